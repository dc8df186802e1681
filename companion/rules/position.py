"""Positions: where both sides' checkers stand, seen from the player on roll.

A `Position` holds two 26-slot tuples, one per side, each counted from that side's own point of view:
slot 0 is borne off, slots 1..24 are the points (1 is the owner's ace point, 24 the farthest back) and
slot 25 is the bar. This is the numbering of the notation (`bar/20` is 25 to 20, `6/off` is 6 to 0), so
a move in a play is a pair of slot indices and no translation is needed anywhere.

My point p is the opponent's point 25 - p.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

from companion.errors import InvalidPositionError

if TYPE_CHECKING:
    from companion.rules.dice import Roll
    from companion.rules.play import Play

OFF = 0
BAR = 25
CHECKERS = 15
SLOTS = 26
POINTS = range(1, 25)
HOME = range(1, 7)

_START = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


class GameResult(int):
    """How much a finished game is worth before the cube: 1 single, 2 gammon, 3 backgammon."""

    NAMES = {1: "single", 2: "gammon", 3: "backgammon"}

    @property
    def name(self) -> str:
        return self.NAMES[int(self)]


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable backgammon position from the point of view of the player on roll.

    >>> p = Position.start()
    >>> p.pip_counts()
    (167, 167)
    >>> len(p.legal_plays(3, 1))
    16
    """

    player: tuple[int, ...]
    """Checkers of the player on roll: [0] off, [1..24] points, [25] bar, from his side."""
    opponent: tuple[int, ...]
    """Checkers of the opponent, counted from the opponent's side in the same way."""

    def __post_init__(self) -> None:
        for name in ("player", "opponent"):
            side = getattr(self, name)
            if not isinstance(side, tuple):
                object.__setattr__(self, name, tuple(side))
        _validate(self.player, self.opponent)

    # -- construction -------------------------------------------------------------------------------

    @classmethod
    def start(cls) -> Position:
        """The starting position: 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, for both sides."""
        return _trusted(_START, _START)

    @classmethod
    def from_points(
        cls,
        player: dict[int, int],
        opponent: dict[int, int],
    ) -> Position:
        """Build a position from {slot: count} maps (25 = bar); checkers not placed are taken as borne off.

        >>> Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}) == Position.start()
        True
        """
        return cls(_side_from_map(player, "player"), _side_from_map(opponent, "opponent"))

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode GNU Backgammon's 14-character Position ID."""
        from companion.rules.ids import decode_position_id

        opponent, player = decode_position_id(position_id)
        return cls(player, opponent)

    @classmethod
    def from_xgid(cls, xgid: str) -> Position:
        """The position of an XGID, from the point of view of the player on turn (see `companion.rules.xgid`)."""
        from companion.rules.xgid import parse_xgid

        return parse_xgid(xgid).position

    # -- formats ------------------------------------------------------------------------------------

    def position_id(self) -> str:
        """GNU Backgammon's Position ID (the player not on roll is encoded first, as gnubg does)."""
        from companion.rules.ids import encode_position_id

        return encode_position_id(self.opponent, self.player)

    # -- queries ------------------------------------------------------------------------------------

    def pip_counts(self) -> tuple[int, int]:
        """(player's pips, opponent's pips); a checker on the bar counts 25."""
        return _pips(self.player), _pips(self.opponent)

    def swap(self) -> Position:
        """The same position seen from the other side (the opponent now on roll)."""
        return _trusted(self.opponent, self.player)

    def borne_off(self) -> tuple[int, int]:
        return self.player[OFF], self.opponent[OFF]

    def on_bar(self) -> tuple[int, int]:
        return self.player[BAR], self.opponent[BAR]

    def is_game_over(self) -> bool:
        return self.player[OFF] == CHECKERS or self.opponent[OFF] == CHECKERS

    def winner_result(self) -> GameResult | None:
        """If a side has borne off all 15, what the game is worth (ignoring cube and Jacoby), else None.

        Gammon: the loser has borne off none. Backgammon: and he still has a checker on the bar or in the
        winner's home board.
        """
        for winner, loser in ((self.player, self.opponent), (self.opponent, self.player)):
            if winner[OFF] == CHECKERS:
                return _result(loser)
        return None

    def winner(self) -> int | None:
        """0 if the player on roll has borne off all checkers, 1 if the opponent has, else None."""
        if self.player[OFF] == CHECKERS:
            return 0
        if self.opponent[OFF] == CHECKERS:
            return 1
        return None

    def is_race(self) -> bool:
        """True when contact is over: every checker of mine is past every checker of the opponent."""
        my_back = max((p for p in range(1, 26) if self.player[p]), default=0)
        their_back = max((p for p in range(1, 26) if self.opponent[p]), default=0)
        # my point p is their 25 - p: no contact when my farthest is below their farthest, mirrored
        return my_back + their_back <= 25

    def can_bear_off(self) -> bool:
        """True when all the player's checkers still in play are in his home board."""
        return not any(self.player[7:26])

    def legal_plays(self, die1: int | Roll, die2: int | None = None) -> list[Play]:
        """Every legal play for a roll, one per distinct resulting position.

        Accepts `legal_plays(6, 5)` or `legal_plays(Roll(6, 5))`. When the roll cannot be played at all the
        list holds one empty play (the player dances or is blocked); it is never empty.
        """
        from companion.rules.dice import Roll
        from companion.rules.movegen import generate_plays

        roll = die1 if isinstance(die1, Roll) else Roll(die1, die2 if die2 is not None else -1)
        return generate_plays(self, roll)

    def play(self, notation: str, die1: int | Roll, die2: int | None = None) -> Play:
        """The legal play that `notation` names for this roll (raises `NotationError` if none does)."""
        from companion.rules.dice import Roll
        from companion.rules.notation import resolve_play

        roll = die1 if isinstance(die1, Roll) else Roll(die1, die2 if die2 is not None else -1)
        return resolve_play(self, roll, notation)

    # -- display ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        return render_text(self)

    def counts(self) -> Iterator[tuple[int, int]]:
        """(point, signed count) for points 1..24 from the player's side: + player, - opponent."""
        for p in POINTS:
            yield p, self.player[p] - self.opponent[25 - p]


def _pips(side: Sequence[int]) -> int:
    return sum(i * side[i] for i in range(1, 26))


def _result(loser: Sequence[int]) -> GameResult:
    if loser[OFF]:
        return GameResult(1)
    # the winner's home board is the loser's 19..24, plus the bar
    if any(loser[19:26]):
        return GameResult(3)
    return GameResult(2)


def _trusted(player: tuple[int, ...], opponent: tuple[int, ...]) -> Position:
    """Build without validation: for positions derived from a valid one by legal moves."""
    pos = object.__new__(Position)
    object.__setattr__(pos, "player", player)
    object.__setattr__(pos, "opponent", opponent)
    return pos


def _side_from_map(points: dict[int, int], name: str) -> tuple[int, ...]:
    side = [0] * SLOTS
    for slot, count in points.items():
        if not isinstance(slot, int) or not 1 <= slot <= 25:
            raise InvalidPositionError(f"{name}: {slot!r} is not a point (1..24) or the bar (25)")
        side[slot] = count
    placed = sum(side)
    if placed > CHECKERS:
        raise InvalidPositionError(f"{name} has {placed} checkers on the board; a side has {CHECKERS}")
    side[OFF] = CHECKERS - placed
    return tuple(side)


def _validate(player: tuple[int, ...], opponent: tuple[int, ...]) -> None:
    for name, side in (("player on roll", player), ("opponent", opponent)):
        if len(side) != SLOTS:
            raise InvalidPositionError(f"{name}: expected {SLOTS} slots (off, points 1-24, bar), got {len(side)}")
        for slot, n in enumerate(side):
            if not isinstance(n, int) or isinstance(n, bool):
                raise InvalidPositionError(f"{name}: {_slot_name(slot)} holds {n!r}, not a whole number")
            if n < 0:
                raise InvalidPositionError(f"{name}: {_slot_name(slot)} holds {n} checkers")
        total = sum(side)
        if total != CHECKERS:
            raise InvalidPositionError(
                f"{name} has {total} checkers counting those borne off; each side has exactly {CHECKERS}"
            )
    for p in POINTS:
        if player[p] and opponent[25 - p]:
            raise InvalidPositionError(
                f"the {p}-point holds {player[p]} checker(s) of the player on roll and "
                f"{opponent[25 - p]} of the opponent; a point holds one colour only"
            )
    if player[OFF] == CHECKERS and opponent[OFF] == CHECKERS:
        raise InvalidPositionError("both sides have borne off all their checkers")


def _slot_name(slot: int) -> str:
    if slot == OFF:
        return "off"
    if slot == BAR:
        return "the bar"
    return f"the {slot}-point"


def render_text(position: Position) -> str:
    """A small text diagram in the style of GNU Backgammon: X is on roll and moves toward the bottom right."""
    me, opp = position.player, position.opponent
    cell = {}
    for p in POINTS:
        if me[p]:
            cell[p] = ("X", me[p])
        elif opp[25 - p]:
            cell[p] = ("O", opp[25 - p])
        else:
            cell[p] = (" ", 0)

    def glyph(p: int, level: int) -> str:
        mark, n = cell[p]
        if level == 4 and n > 5:
            return f"{n:>2} "
        return f" {mark} " if n > level else "   "

    def row(points: Sequence[int], level: int) -> str:
        return "".join(glyph(p, level) for p in points)

    top_left, top_right = range(13, 19), range(19, 25)
    bot_left, bot_right = range(12, 6, -1), range(6, 0, -1)
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]
    for level in range(5):
        lines.append(f" |{row(top_left, level)}|   |{row(top_right, level)}|")
    lines.append(f" |{'':18}|BAR|{'':18}|  bar X {me[BAR]}  O {opp[BAR]}")
    for level in reversed(range(5)):
        lines.append(f" |{row(bot_left, level)}|   |{row(bot_right, level)}|")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    pips = position.pip_counts()
    lines.append(f" X on roll: pips {pips[0]}, off {me[OFF]}    O: pips {pips[1]}, off {opp[OFF]}")
    return "\n".join(lines)
