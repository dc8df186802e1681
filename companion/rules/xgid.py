"""eXtreme Gammon's XGID: `XGID=<26 chars>:cube:owner:turn:dice:score:score:flags:length:maxcube`.

The 26 characters are fixed to the *bottom* player's side whoever is on turn: 0 is the top player's bar,
1..24 the bottom player's points, 25 his bar; `A`-`P` are 1-16 bottom checkers, `a`-`p` top checkers.
The bottom player is GNU Backgammon's player 1 (its `X`), the top player its player 0: GNU Backgammon reads
an XGID that way, and we check against it. Fields: cube as log2; owner 1 bottom, -1 top, 0 centred; turn 1
bottom, -1 top; dice `00` before the roll, `D` when the cube has been offered (turn is then the doubler),
else two digits; scores bottom then top; flags: match play 1 for the Crawford game, money play Jacoby (1) +
beaver (2); length 0 for money; max cube as log2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.errors import InvalidIdError, RulesError
from companion.rules.dice import Roll
from companion.rules.match import MAX_MATCH_LENGTH, MatchState
from companion.rules.position import BAR, CHECKERS, Position

BOTTOM = 1
TOP = 0
DEFAULT_MAX_CUBE_LOG = 10


@dataclass(frozen=True, slots=True)
class XgidState:
    """Everything an XGID says. `position` is from the side of `turn` (0 top / 1 bottom, gnubg numbering)."""

    position: Position
    match: MatchState
    turn: int
    dice: Roll | None = None
    doubled: bool = False
    max_cube_log: int = DEFAULT_MAX_CUBE_LOG


def parse_position_text(text: str) -> tuple[Position, int | None]:
    """A pasted Position ID or XGID: the position from the side of the player on turn, and that player where the
    text says who it is (an XGID does; a Position ID does not, and gives None)."""
    if text.strip().upper().startswith("XGID="):
        parsed = parse_xgid(text)
        return parsed.position, parsed.turn
    return Position.from_position_id(text.strip()), None


def _place(index: int) -> str:
    """What the position part's character `index` (from 0) stands for, as a message names it."""
    if index == 0:
        return "the top player's bar"
    if index == 25:
        return "the bottom player's bar"
    return f"the bottom player's {index}-point"


def parse_xgid(xgid: str) -> XgidState:
    if not isinstance(xgid, str):
        raise InvalidIdError(f"an XGID is a string, not {type(xgid).__name__}")
    text = xgid.strip()
    if text.upper().startswith("XGID="):
        text = text[5:]
    fields = text.split(":")
    if len(fields) not in (9, 10):
        raise InvalidIdError(
            f"{xgid!r} is not an XGID: it has {len(fields)} fields separated by ':', an XGID has 10 "
            "(e.g. XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10)"
        )
    board = fields[0]
    if len(board) != 26:
        raise InvalidIdError(f"{xgid!r}: the position part must be 26 characters, each '-', A-P or a-p "
                             f"(it is {len(board)})")
    wrong = next((k for k, c in enumerate(board) if c != "-" and not ("a" <= c <= "p" or "A" <= c <= "P")), None)
    if wrong is not None:
        raise InvalidIdError(f"{xgid!r}: character {wrong + 1} of the position part ({_place(wrong)}) is "
                             f"{board[wrong]!r}; each is '-', A-P or a-p")
    numbers = [(k, f) for k, f in enumerate(fields[1:], 1) if k != 4]  # field 4 is the dice
    for k, f in numbers:
        if not re.fullmatch(r"-?[0-9]+", f):
            raise InvalidIdError(f"{xgid!r}: field {k + 1} ({f!r}) must be a whole number, as every field after "
                                 f"the position but the dice")
    cube_log, owner, turn = (int(f) for f in fields[1:4])
    score_bottom, score_top, flags, length = (int(f) for f in fields[5:9])
    max_cube_log = int(fields[9]) if len(fields) == 10 else DEFAULT_MAX_CUBE_LOG
    if owner not in (-1, 0, 1) or turn not in (-1, 1):
        raise InvalidIdError(f"{xgid!r}: cube owner is -1, 0 or 1 and turn is 1 or -1")
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise InvalidIdError(f"{xgid!r}: the match length field is 0 (money) to {MAX_MATCH_LENGTH} points, as GNU "
                             f"Backgammon plays them, not {length}")
    if length and max(score_bottom, score_top) >= length:
        raise InvalidIdError(f"{xgid!r} is impossible: a score of {max(score_bottom, score_top)} has already won "
                             f"a {length}-point match")
    if not 0 <= cube_log <= 15:
        raise InvalidIdError(f"{xgid!r}: the cube field is log2 of the cube, 0 to 15")
    bottom = [0] * 26
    top = [0] * 26
    for i, c in enumerate(board):
        if c == "-":
            continue
        if c.isupper():
            n = ord(c) - ord("A") + 1
            if i == 0:
                raise InvalidIdError(f"{xgid!r}: character 1 of the position part is the top player's bar; bottom "
                                     "checkers cannot be there")
            bottom[i if i < 25 else BAR] += n
        else:
            n = ord(c) - ord("a") + 1
            if i == 25:
                raise InvalidIdError(f"{xgid!r}: character 26 of the position part is the bottom player's bar; top "
                                     "checkers cannot be there")
            top[BAR if i == 0 else 25 - i] += n
    for side, name in ((bottom, "bottom"), (top, "top")):
        placed = sum(side)
        if placed > CHECKERS:
            raise InvalidIdError(f"{xgid!r}: the {name} player has {placed} checkers on the board; a side has 15")
        side[0] = CHECKERS - placed
    dice_text = fields[4].upper()
    dice: Roll | None = None
    doubled = False
    if dice_text in ("D", "B", "R"):
        doubled = True
    elif dice_text != "00":
        try:
            dice = Roll.parse(dice_text)
        except RulesError as exc:
            raise InvalidIdError(f"{xgid!r}: dice are 00, D or two digits 1-6, not {fields[4]!r}") from exc
    player_on_turn = BOTTOM if turn == 1 else TOP
    try:
        bottom_view = Position(tuple(bottom), tuple(top))
        if length:
            match = MatchState(
                length=length,
                score=(score_top, score_bottom),
                cube=1 << cube_log,
                cube_owner=None if owner == 0 else (BOTTOM if owner == 1 else TOP),
                crawford=bool(flags & 1),
                post_crawford=length > 1 and not flags & 1 and (length - 1) in (score_top, score_bottom),
            )
        else:
            match = MatchState(
                length=0,
                score=(score_top, score_bottom),
                cube=1 << cube_log,
                cube_owner=None if owner == 0 else (BOTTOM if owner == 1 else TOP),
                jacoby=bool(flags & 1),
                beaver=bool(flags & 2),
            )
    except RulesError as exc:
        raise InvalidIdError(f"{xgid!r} describes an impossible state: {exc}") from exc
    position = bottom_view if player_on_turn == BOTTOM else bottom_view.swap()
    return XgidState(position, match, player_on_turn, dice, doubled, max_cube_log)


def format_xgid(state: XgidState) -> str:
    bottom_view = state.position if state.turn == BOTTOM else state.position.swap()
    bottom, top = bottom_view.player, bottom_view.opponent
    chars = []
    for i in range(26):
        if i == 0:
            n, upper = top[BAR], False
        elif i == 25:
            n, upper = bottom[BAR], True
        elif bottom[i]:
            n, upper = bottom[i], True
        else:
            n, upper = top[25 - i], False
        chars.append("-" if n == 0 else chr((ord("A") if upper else ord("a")) + n - 1))
    m = state.match
    owner = 0 if m.cube_owner is None else (1 if m.cube_owner == BOTTOM else -1)
    if state.doubled:
        dice = "D"
    elif state.dice is not None:
        dice = f"{state.dice.die1}{state.dice.die2}"
    else:
        dice = "00"
    flags = int(m.crawford) if m.length else int(m.jacoby) + 2 * int(m.beaver)
    return (
        f"XGID={''.join(chars)}:{m.cube.bit_length() - 1}:{owner}:{1 if state.turn == BOTTOM else -1}:{dice}:"
        f"{m.score[BOTTOM]}:{m.score[TOP]}:{flags}:{m.length}:{state.max_cube_log}"
    )
