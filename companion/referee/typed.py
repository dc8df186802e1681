"""Typed input: the keyboard-only mode, where dice and plays are typed instead of seen.

A line becomes the observations a camera and dice cup would have given. Typed input is not a board, though: a
typed play that is not legal is refused here, with the reason and the legal plays (a slip of the keyboard is not a
play made), unless it ends with `!`: it was made so on the board, and goes through the correction window as a play
seen there does (the opponent asks for a correction, accepts it, or rolls, and it stands), so that a recorder can
keep a match as it was played.

    31            the dice (in the opening roll: player 0's die, then player 1's; the higher die plays first)
    8/5 6/5       the play of the dice on the board (the board after it, then the dice picked up); 8-5 6-5 too,
                  and a lone 6-5 while a roll awaits its play is the move, not dice
    8/4 6/5!      a play made on the board though not legal: the referee's correction window takes it
    -             the roll cannot be played (pick up the dice)
    double | take | pass | beaver | accept | correct | undo | new
    resign [1|2|3]  offers to resign a single game, a gammon or a backgammon; the opponent answers with
                    accept or decline
    d t p b a c u n  the same commands by their keys in the app
    set <Position ID or XGID>
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from companion.errors import CompanionError, RulesError
from companion.referee.observations import BoardReading, Command, DiceReading, Observation, UserCommand
from companion.referee.diagnosis import diagnose
from companion.rules import BAR, GameState, Phase, Position, parse_position_text
from companion.rules.notation import apply_moves, parse_moves, written_as
from companion.rules.xgid import parse_xgid

if TYPE_CHECKING:
    from companion.referee.referee import RefereeState

_COMMANDS = {
    "double": Command.DOUBLE, "take": Command.TAKE, "pass": Command.PASS, "drop": Command.PASS,
    "beaver": Command.BEAVER, "accept": Command.ACCEPT_PLAY, "correct": Command.REQUEST_CORRECTION,
    "undo": Command.UNDO, "new": Command.NEW_GAME,
    # the app's keys, typed as words: "press c" works on the line too
    "d": Command.DOUBLE, "t": Command.TAKE, "p": Command.PASS, "b": Command.BEAVER, "a": Command.ACCEPT_PLAY,
    "c": Command.REQUEST_CORRECTION, "u": Command.UNDO, "n": Command.NEW_GAME,
}


class TypedInputError(CompanionError):
    """A typed line that is neither dice, a play nor a command."""


def observations_typed(line: str, state: RefereeState, *, sequence: int | None = None) -> list[Observation]:
    """`observations_from_text` in the referee's `state` as it stands: its game, an illegal play waiting for the
    opponent, a resignation offered, a throw held (what the app's and the command line's typed lines share)."""
    return observations_from_text(line, state.game, sequence=sequence, illegal_pending=state.pending is not None,
                                  resign_offered=state.resign_offer is not None, roll_held=state.held_roll is not None)


def observations_from_text(line: str, game: GameState, *, sequence: int | None = None,
                           illegal_pending: bool = False, resign_offered: bool = False,
                           roll_held: bool = False) -> list[Observation]:
    """What `line` means now, in `game` (the referee's current game).

    `sequence` numbers typed dice: the same numbers typed again are a new roll (a new game, a new turn), never
    the dice still lying there. `illegal_pending`: an illegal play seen on the board waits for the opponent,
    whose roll lets it stand. `roll_held`: the opponent has thrown while the play could not be judged
    (`RefereeState.held_roll`); a typed play then ends the turn by itself, the held throw counting."""
    stripped = line.strip()
    text = stripped.lower()
    if not text:
        return []
    if text.startswith("set ") or text == "set":
        return set_observations(stripped[3:].strip(), game, sequence)
    playing = game.phase is Phase.PLAY and not illegal_pending
    # `6-5` while a roll awaits its play is a move written with a dash (6/5), not dice
    if re.fullmatch(r"[1-6]\s*[-,]?\s*[1-6]", text) and not (playing and re.fullmatch(r"[1-6]-[1-6]", text)):
        d1, d2 = int(text[0]), int(text[-1])
        if game.phase is Phase.OPENING:
            return [DiceReading((d1, d2), sequence=sequence)]
        if playing:
            raise TypedInputError(f"{stripped!r}: the roll {game.dice} has not been played yet; type its play "
                                  "(e.g. 13/9 6/5), or - if it cannot be played")
        roller = game.turn if game.phase is not Phase.PLAY else 1 - game.turn
        return [DiceReading((d1, d2), roller=roller, sequence=sequence)]
    word, *rest = text.split()
    if resign_offered and text in ("accept", "a", "yes", "y"):
        return [UserCommand(Command.ACCEPT_RESIGN)]
    if resign_offered and text in ("decline", "no", "n"):
        return [UserCommand(Command.DECLINE_RESIGN)]
    if word in _COMMANDS and not rest:
        return [UserCommand(_COMMANDS[word])]
    if word == "resign":
        if len(rest) > 1 or (rest and rest[0] not in ("1", "2", "3")):
            raise TypedInputError(f"{stripped!r}: resign 1 (a single game), resign 2 (a gammon) or "
                                  "resign 3 (a backgammon)")
        return [UserCommand(Command.OFFER_RESIGN, game.on_roll, value=int(rest[0]) if rest else 1)]
    if text in ("-", "none", "no move", "cannot move"):
        # after a play the dice may still lie there, and `-` picks them up; before any roll, or while a double
        # waits, it meant nothing and said so not
        if game.phase is Phase.OPENING:
            raise TypedInputError(f"{stripped!r}: no roll waits for its play; type the opening dice (e.g. 31)")
        if game.phase is Phase.DOUBLED:
            raise TypedInputError(f"{stripped!r}: a double waits for its answer: take or pass")
        if game.phase is Phase.OVER:
            raise TypedInputError(f"{stripped!r}: the game is over")
        if (game.phase is Phase.PLAY and not illegal_pending and game.legal_plays()
                and not game.legal_plays()[0].is_empty()):
            raise TypedInputError(f"{stripped!r}: {game.dice} can be played: "
                                  + _legal_list(game.legal_plays()))
        return [DiceReading(())]
    if game.phase is not Phase.PLAY:
        if re.fullmatch(r"\d\s*[-,]?\s*\d", text):  # two digits, one of them no die's face
            raise TypedInputError(f"{stripped!r}: a die shows 1 to 6")
        if re.fullmatch(r"\d{3,}", text):  # a key struck twice
            raise TypedInputError(f"{stripped!r}: a roll is two dice, 1 to 6 each (e.g. 61)")
        raise TypedInputError(f"{stripped!r}: type the dice first (e.g. 31), or a command")
    if illegal_pending:
        raise TypedInputError(f"{stripped!r}: an illegal play waits for an answer: c (correct) or a (accept)")
    plays = game.legal_plays()
    made_so = text.endswith("!")  # the user's word that the board shows it, legal or not
    written: list[tuple[int, int, bool]] = []
    try:
        written = parse_moves(text.rstrip("!").strip())
        mine, theirs = apply_moves(game.position, written)
    except RulesError as exc:
        said = str(exc) if repr(stripped) in str(exc) else f"{stripped!r}: {exc}"  # the line named once
        on_bar = game.position.player[BAR]
        enters = bool(plays) and not plays[0].is_empty()  # shut out (the referee ends such a turn itself)
        if on_bar and enters and written and not any(source == BAR for source, _, _ in written):
            # the first rule broken, before the count the line got wrong (`13/10(4)` with one hit checker)
            said = (f"{stripped!r}: the {'checker' if on_bar == 1 else f'{on_bar} checkers'} on the bar "
                    f"{'enters' if on_bar == 1 else 'enter'} first, before any other moves (and {exc})")
        raise TypedInputError(f"{said}. Legal: {_legal_list(_nearest_to_written(plays, written))}") from exc
    if bytes(mine) + bytes(theirs) not in {p.result_key for p in plays}:
        passing = written_as(plays, mine, theirs)  # as records write plays: a hit made in passing left out
        if len(passing) > 1:
            raise TypedInputError(f"{stripped!r} could be any of {_legal_list(passing)}: write the hits")
        if not passing and made_so:  # seen on the board, as a camera would have: the referee judges it
            return [BoardReading.from_position(Position(tuple(mine), tuple(theirs)), game.turn)] + (
                [] if roll_held else [DiceReading(())])
        if not passing:
            sides = (list(mine), list(theirs))
            diagnosis = diagnose(game.position, game.dice, sides, plays)  # type: ignore[arg-type]
            raise TypedInputError(f"{stripped!r} is not a legal play of {game.dice}: "
                                  f"{'; '.join(diagnosis.reasons)}. "
                                  f"Legal: {_legal_list(list(diagnosis.nearest) or plays)}. "
                                  "Made so on the board? End it with ! to record it")
        mine, theirs = passing[0].position.opponent, passing[0].position.player
    after = Position(tuple(mine), tuple(theirs))
    # the dice picked up end the turn; with the opponent's throw held, the play taking it ends the turn already,
    # and picking up would end the opponent's turn before he moved
    return [BoardReading.from_position(after, game.turn)] + ([] if roll_held else [DiceReading(())])


def set_observations(identifier: str, game: GameState, sequence: int | None = None) -> list[Observation]:
    """`set ID` (`set_command`), with an XGID's dice (`position_set`)."""
    return position_set(set_command(identifier), xgid_dice(identifier), game, sequence)


def position_set(command: UserCommand, dice: tuple[int, int] | None, game: GameState,
                 sequence: int | None = None) -> list[Observation]:
    """A SET_POSITION `command`, and `dice` thrown after it where the player it puts on turn is the one to roll
    then: a pasted XGID with dice is a roll to play (its dice were dropped)."""
    to_roll = command.player if game.phase is Phase.OPENING else game.turn if game.phase is Phase.ROLL else None
    if dice is None or to_roll is None or command.player != to_roll:
        return [command]
    return [command, DiceReading(dice, roller=to_roll, sequence=sequence)]


def xgid_dice(identifier: str) -> tuple[int, int] | None:
    """The dice an XGID says were thrown (None for a Position ID, or an XGID before its roll or with a double)."""
    if not identifier.strip().upper().startswith("XGID="):
        return None
    roll = parse_xgid(identifier).dice
    return None if roll is None else (roll.die1, roll.die2)


def set_command(identifier: str) -> UserCommand:
    """`set <Position ID>` (the player to act is on roll) or `set XGID=...` (its own player on turn); the ID is
    kept as typed (IDs are case-sensitive)."""
    if not identifier:
        raise TypedInputError("set: give a Position ID or an XGID (set XGID=...)")
    position, turn = parse_position_text(identifier)
    return UserCommand(Command.SET_POSITION, turn, position=position)


def _nearest_to_written(plays, written: list[tuple[int, int, bool]]) -> list:
    """The legal plays, those sharing most of the written moves first (a whole move counts twice its start): with
    62, `13/7 13/10` into a held point lists 13/11 13/7 first, not the first plays in the engine's order."""
    wanted = Counter((source, dest) for source, dest, _ in written)
    starts = Counter(source for source, _, _ in written)

    def shared(play) -> int:
        moves = parse_moves(play.notation)
        return (2 * sum((Counter((s, d) for s, d, _ in moves) & wanted).values())
                + sum((Counter(s for s, _, _ in moves) & starts).values()))
    return sorted(plays, key=shared, reverse=True)


def _legal_list(plays, most: int = 6) -> str:
    names = [p.notation or "no move" for p in plays[:most]]
    return ", ".join(names) + (f" (and {len(plays) - most} more)" if len(plays) > most else "")


__all__ = ["TypedInputError", "observations_from_text", "position_set", "set_command", "set_observations",
           "xgid_dice"]
