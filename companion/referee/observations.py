"""Observations: what a source saw, with how sure it is. Any source (vision, dice cup, keyboard, a match file)
produces these; the referee turns them into events.

Board readings are in the board's own terms, not the player on roll's: `points[i]` is player 0's point
`i + 1` (player 1's point `24 - i`), and each slot says whose checkers stand there and how many. A slot is
evidence, not a verdict: "at least 5, probably 7, 95% sure" is `SlotReading(0, 7, low=5, high=15, confidence=0.95)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from companion.rules import BAR, CHECKERS, OFF, Position

CONFIDENT = 0.8
"""Slots read at least this sure are binding: the referee never accepts a position that contradicts them."""


@dataclass(frozen=True, slots=True)
class SlotReading:
    """Checkers seen on one point, the bar or a tray: whose (`owner` 0 or 1, None for none) and how many.

    `count` is the best guess; `low`..`high` is the range the evidence allows (a tall stack whose lower
    layer is hidden is `low=5, high=15`). Both default to `count`.
    """

    owner: int | None
    count: int
    confidence: float = 1.0
    low: int = -1
    high: int = -1

    def __post_init__(self) -> None:
        if self.low < 0:
            object.__setattr__(self, "low", self.count)
        if self.high < 0:
            object.__setattr__(self, "high", self.count)
        if not 0 <= self.low <= self.count <= self.high <= CHECKERS:
            raise ValueError(f"a slot reading needs 0 <= low <= count <= high <= 15, got {self}")
        if self.owner not in (None, 0, 1):
            raise ValueError(f"a slot's owner is player 0, 1 or None, not {self.owner!r}")
        if self.owner is None and self.high:
            raise ValueError("checkers on a slot need an owner")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence is between 0 and 1, not {self.confidence}")

    @classmethod
    def empty(cls, confidence: float = 1.0) -> SlotReading:
        return cls(None, 0, confidence)

    @classmethod
    def unknown(cls) -> SlotReading:
        """Nothing could be seen here (a hand over it, glare)."""
        return cls(None, 0, 0.0)

    def allows(self, player: int, count: int, threshold: float = CONFIDENT) -> bool:
        """Whether `count` checkers of `player` here agree with this reading (always, when it is unsure)."""
        if self.confidence < threshold:
            return True
        if count == 0:
            return self.low == 0
        return self.owner == player and self.low <= count <= self.high


@dataclass(frozen=True, slots=True)
class BoardReading:
    """Every slot of the board as read: 24 points (player 0's numbering), the bar and the trays per player.

    `off` is None when the trays are not visible; the referee then counts borne-off checkers as the rest. Trays read
    unsurely (as the tray network's always are) are no evidence to accuse on (`diagnosis.sure_where_it_differs`).
    `mended`: the reader changed some place so that each set makes fifteen: whole by inference, not as seen.
    """

    points: tuple[SlotReading, ...]
    bar: tuple[SlotReading, SlotReading]
    off: tuple[SlotReading, SlotReading] | None = None
    time: float = field(default=0.0, compare=False)
    mended: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise ValueError(f"a board reading has 24 points, not {len(self.points)}")
        for player, slot in enumerate(self.bar):
            if slot.owner not in (None, player):
                raise ValueError(f"player {player}'s bar slot holds player {slot.owner}'s checkers")
        for player, slot in enumerate(self.off or ()):
            if slot.owner not in (None, player):
                raise ValueError(f"player {player}'s tray holds player {slot.owner}'s checkers")

    @classmethod
    def from_position(cls, position: Position, mover: int, *, trays: bool = True, time: float = 0.0) -> BoardReading:
        """The exact reading of `position`, held from the side of player `mover`."""
        sides = (position.player, position.opponent) if mover == 0 else (position.opponent, position.player)
        zero, one = sides
        points = []
        for i in range(24):
            p0, p1 = zero[i + 1], one[24 - i]
            if p0:
                points.append(SlotReading(0, p0))
            elif p1:
                points.append(SlotReading(1, p1))
            else:
                points.append(SlotReading.empty())
        bar = (_side_slot(0, zero[BAR]), _side_slot(1, one[BAR]))
        off = (_side_slot(0, zero[OFF]), _side_slot(1, one[OFF])) if trays else None
        return cls(tuple(points), bar, off, time)

    def with_point(self, index: int, slot: SlotReading) -> BoardReading:
        """The same reading with `points[index]` replaced (index 0..23 is player 0's point index + 1)."""
        points = list(self.points)
        points[index] = slot
        return replace(self, points=tuple(points))

    def is_confident(self, threshold: float = CONFIDENT) -> bool:
        slots = list(self.points) + list(self.bar) + list(self.off or ())
        return all(s.confidence >= threshold for s in slots)

    def best_guess(self) -> tuple[list[int], list[int]]:
        """Each player's 26 slots (own numbering) from the best guesses; trays not seen hold the rest."""
        sides = [[0] * 26, [0] * 26]
        for i, slot in enumerate(self.points):
            if slot.owner == 0:
                sides[0][i + 1] = slot.count
            elif slot.owner == 1:
                sides[1][24 - i] = slot.count
        for player in (0, 1):
            sides[player][BAR] = self.bar[player].count
            if self.off is not None:
                sides[player][OFF] = self.off[player].count
            else:
                sides[player][OFF] = max(0, CHECKERS - sum(sides[player][1:]))
        return sides[0], sides[1]


def _side_slot(player: int, count: int) -> SlotReading:
    return SlotReading(player, count) if count else SlotReading.empty()


COCKED = "a die is cocked"
ON_A_CHECKER = "a die rests on a checker"
MISPLACED = "a die landed outside the right-hand half of the board"
"""The rules' reasons to throw again (000 and 003)."""


@dataclass(frozen=True, slots=True)
class DiceReading:
    """Dice seen on the board or sent by a dice cup.

    `values` is empty when no dice lie on the board (they were picked up: the play is finished). In the
    opening roll the two values are player 0's die and player 1's die. `valid` is False for a roll the rules
    make the roller throw again (a cocked die, a die outside the right-hand half or resting on a checker),
    with the `reason`, and the values where they could be read (a cocked die's cannot): a table that plays the
    roll anyway is recorded as it played. `roller` is who threw, when the source knows; `sequence` tells two
    rolls of the same numbers apart (a dice cup numbers its rolls; vision relies on the dice leaving the board
    between rolls). `halves` says, where a camera saw it, whose right-hand half each die lies in (None:
    neither, the bar or off the board); the referee, who knows whose roll it is, judges it (`misplaced`).
    """

    values: tuple[int, ...] = ()
    valid: bool = True
    reason: str | None = None
    roller: int | None = None
    sequence: int | None = None
    time: float = field(default=0.0, compare=False)
    halves: tuple[int | None, ...] = ()

    def __post_init__(self) -> None:
        if len(self.values) not in (0, 2) or any(not 1 <= v <= 6 for v in self.values):
            raise ValueError(f"a dice reading holds two values from 1 to 6 (or none), not {self.values}")
        if not self.valid and not self.reason:
            raise ValueError("an invalid roll needs a reason (cocked, wrong half, on a checker)")
        if self.halves and len(self.halves) != len(self.values):
            raise ValueError("a half is given for each die, or none")

    def misplaced(self, roller: int, opening: bool) -> str | None:
        """Why the dice do not lie where the rules want them, or None: each player's opening die in his own
        right-hand half (player 0's listed first), otherwise both in the roller's (rules 000 and 003)."""
        if not self.halves:
            return None
        wanted = (0, 1) if opening else (roller, roller)
        return None if tuple(self.halves) == wanted else MISPLACED

    @classmethod
    def cocked(cls, reason: str = COCKED, **kw) -> DiceReading:
        return cls((), False, reason, **kw)


class CubePlace(Enum):
    CENTRE = "centre"
    PLAYER0 = "player0"
    """On player 0's side: player 0 owns it."""
    PLAYER1 = "player1"
    OFFERED = "offered"
    """In play between the players (being offered); its owner is not settled."""

    @property
    def owner(self) -> int | None:
        return {CubePlace.PLAYER0: 0, CubePlace.PLAYER1: 1}.get(self)


@dataclass(frozen=True, slots=True)
class CubeReading:
    """The doubling cube as seen: the number on top and where it lies (64 in the centre means 1)."""

    value: int
    place: CubePlace
    confidence: float = 1.0
    time: float = field(default=0.0, compare=False)

    @property
    def cube(self) -> int:
        """The cube's worth: a centred 64 is the cube at 1."""
        return 1 if self.place is CubePlace.CENTRE and self.value == 64 else self.value


class Command(Enum):
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    ACCEPT_PLAY = "accept-play"
    """The opponent lets an illegal play stand."""
    REQUEST_CORRECTION = "request-correction"
    """The opponent asks for an illegal play to be played again."""
    RESIGN = "resign"
    """A resignation offered and accepted at once (a match file's, or an older journal's)."""
    OFFER_RESIGN = "offer-resign"
    """A resignation offered (`value` 1, 2 or 3), waiting for the opponent's answer, as in gnubg."""
    ACCEPT_RESIGN = "accept-resign"
    DECLINE_RESIGN = "decline-resign"
    NEW_GAME = "new-game"
    SET_POSITION = "set-position"
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class UserCommand:
    """Something a person said or keyed. `player` is who (None: whoever the command belongs to now).

    RESIGN takes `value` 1, 2 or 3 (single, gammon, backgammon). SET_POSITION takes `position` from the side
    of `player` (default: the player to act), for when the board was read wrong or set up by hand.
    """

    command: Command
    player: int | None = None
    value: int = 1
    position: Position | None = None
    time: float = field(default=0.0, compare=False)


Observation = BoardReading | DiceReading | CubeReading | UserCommand

__all__ = [
    "COCKED",
    "MISPLACED",
    "ON_A_CHECKER",
    "CONFIDENT",
    "BoardReading",
    "Command",
    "CubePlace",
    "CubeReading",
    "DiceReading",
    "Observation",
    "SlotReading",
    "UserCommand",
]
