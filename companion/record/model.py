"""The match record: games, and in each the actions in the order they happened. Every format reads into it
and writes from it (Jellyfish `.mat`, SGF, the journal via the referee's events).

Players are 0 (the left column of a `.mat`, White in SGF) and 1. Nothing here is judged:
`companion.record.audit` replays a record under the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from companion.rules import Position


class ActionKind(Enum):
    ROLL = "roll"
    """A roll and its play (the notation may be empty: no legal move)."""
    UNPLAYED = "unplayed"
    """`dd: ????`: rolled but not played because the game ended."""
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    WIN = "win"
    """`Wins N point(s) [and the match]`: N is not always what the game was worth (Galaxy)."""
    RESIGN = "resign"
    """`Losses N point`: the player resigned (Galaxy); or the size (1-3) of a resignation, in `value`."""
    STOOD = "stood"
    """An illegal play that stood: `position` is the board after it, from the opponent's side (SGF only)."""
    SETUP = "setup"
    """The position was set by hand: `position` from the side of `player`, who acts next (SGF only)."""


@dataclass(frozen=True, slots=True)
class Action:
    player: int
    kind: ActionKind
    line: int = 0
    move: int = 0
    dice: tuple[int, int] | None = None
    notation: str = ""
    value: int | None = None
    text: str = ""
    position: Position | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    number: int
    score: tuple[int, int]
    """Score at the start of the game, (left player, right player)."""
    actions: tuple[Action, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class MatchRecord:
    length: int
    """0 for money play."""
    players: tuple[str, str]
    games: tuple[GameRecord, ...]
    metadata: dict[str, str] = field(default_factory=dict)
    source: str = ""

    @property
    def crawford_rule(self) -> bool:
        return self.metadata.get("Crawford", "On").lower() != "off"

    @property
    def jacoby(self) -> bool:
        return self.length == 0
