"""Building referees and readings for tests."""

from __future__ import annotations

from companion.referee import BoardReading, Command, DiceReading, Referee, UserCommand
from companion.referee.events import Event
from companion.rules import MatchState, Position
from companion.rules.notation import apply_moves, parse_moves


def referee_at(position: Position, dice: tuple[int, int], mover: int = 0,
               match: MatchState | None = None) -> Referee:
    """A referee with `position` set up (from `mover`'s side) and `mover` having rolled `dice`."""
    ref = Referee(match or MatchState.money())
    ref.observe(UserCommand(Command.SET_POSITION, player=mover, position=position))
    ref.observe(DiceReading(dice, roller=mover))
    return ref


def moved(position: Position, notation: str) -> Position:
    """`position` after checker moves written in notation, legal or not (from the same side)."""
    mine, theirs = apply_moves(position, parse_moves(notation))
    return Position(mine, theirs)


def reading_of(position: Position, mover: int = 0) -> BoardReading:
    """The exact reading of `position` held from `mover`'s side."""
    return BoardReading.from_position(position, mover)


def finish(ref: Referee, after: Position, mover: int = 0) -> list[Event]:
    """The mover leaves `after` (his side) on the board and picks up the dice."""
    return ref.observe(reading_of(after, mover)) + ref.observe(DiceReading(()))


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]
