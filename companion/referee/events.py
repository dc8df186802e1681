"""Events: what the referee decided. The journal records them, the app shows them, analysis reacts to them.

Every event can say itself in plain words (`event.text(names)`); positions are from the mover's side, as
`Position` always is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.rules import EndKind, Play, Position, Roll
from companion.rules.notation import moves_between

Names = tuple[str, str]
DEFAULT_NAMES: Names = ("Player 0", "Player 1")


@dataclass(frozen=True, slots=True)
class Event:
    def text(self, names: Names = DEFAULT_NAMES) -> str:  # pragma: no cover - every event overrides it
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    number: int
    score: tuple[int, int]
    length: int
    crawford: bool

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        where = f"match to {self.length}, {self.score[0]}-{self.score[1]}" if self.length else "money game"
        return f"Game {self.number} ({where}{', Crawford game' if self.crawford else ''})"


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    dice: tuple[int, int]
    """Player 0's die, player 1's die."""
    winner: int | None
    """Who plays first with both dice; None on a tie (both roll again)."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        d0, d1 = self.dice
        if self.winner is None:
            return f"Opening roll {d0} and {d1}: a tie, both roll again"
        return f"Opening roll {d0} and {d1}: {names[self.winner]} plays {max(self.dice)}{min(self.dice)}"


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    player: int
    roll: Roll
    unseen: bool = False
    """The dice were not seen: the board showed a play that only this roll allows (see `Referee`)."""
    void_reason: str | None = None
    """The roll was called void for this reason, and the table played it anyway: it stands as played."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        if self.unseen:
            return f"{names[self.player]} rolls {self.roll} (not seen: the only roll the play on the board fits)"
        if self.void_reason:
            return f"{names[self.player]} rolls {self.roll} (called void: {self.void_reason}; played, so it stands)"
        return f"{names[self.player]} rolls {self.roll}"


@dataclass(frozen=True, slots=True)
class PlayMade(Event):
    player: int
    play: Play
    before: Position
    """From the mover's side."""
    legal: bool = True
    revised: bool = False
    """The mover changed his play before finishing his turn; this replaces the previous `PlayMade`."""

    @property
    def notation(self) -> str:
        return self.play.notation

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        what = self.play.notation or "cannot move"
        return f"{names[self.player]} plays {self.play.roll}: {what}{' (changed)' if self.revised else ''}"


@dataclass(frozen=True, slots=True)
class PlayWithdrawn(Event):
    """The mover is changing a play he had made (his turn is not over): wait for the new one."""

    player: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} is changing his play"


@dataclass(frozen=True, slots=True)
class IllegalPlay(Event):
    player: int
    roll: Roll
    before: Position
    after: Position | None
    """The position read after the play, from the mover's side. None only in journals written before session 25:
    a reading that is no backgammon position is now asked about (`NeedsAttention`), not called illegal."""
    reasons: tuple[str, ...]
    nearest: tuple[Play, ...]
    """The legal plays closest to what was played (fewest checkers out of place)."""

    @property
    def moves(self) -> str | None:
        """What was played, in words (`13/9 6/5`), where the board after it says (`notation.moves_between`)."""
        return None if self.after is None else moves_between(self.before, self.after, self.roll.moves())

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        near = ", ".join(p.notation or "no move" for p in self.nearest)
        moves = self.moves
        played = f": {moves}" if moves else ""
        return (f"Illegal play by {names[self.player]} ({self.roll}{played}): {'; '.join(self.reasons)}"
                + (f". Nearest legal: {near}" if near else "")
                + f". {names[1 - self.player]} may ask for a correction or accept the play")


@dataclass(frozen=True, slots=True)
class CorrectionRequested(Event):
    player: int
    """Who must play again (the player of the illegal play)."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"Correction requested: {names[self.player]} plays again from the position before"


@dataclass(frozen=True, slots=True)
class PlayStood(Event):
    """An illegal play stands (the opponent accepted it, or rolled): the record marks it."""

    player: int
    roll: Roll
    before: Position
    after: Position
    reasons: tuple[str, ...]

    @property
    def moves(self) -> str:
        """What was played, in words (`notation.moves_between`)."""
        return moves_between(self.before, self.after, self.roll.moves())

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        moves = self.moves
        played = f" ({self.roll}: {moves})" if moves else ""
        return f"The illegal play by {names[self.player]}{played} stands"


@dataclass(frozen=True, slots=True)
class DoubleOffered(Event):
    player: int
    value: int
    """The cube's value if taken."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} doubles to {self.value}"


@dataclass(frozen=True, slots=True)
class Taken(Event):
    player: int
    value: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} takes; the cube is at {self.value}"


@dataclass(frozen=True, slots=True)
class Beavered(Event):
    player: int
    value: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} beavers: the cube is at {self.value}, on {names[self.player]}'s side"


@dataclass(frozen=True, slots=True)
class Passed(Event):
    player: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} passes"


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    player: int
    value: int
    """1 single, 2 gammon, 3 backgammon."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        what = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[self.value]
        return f"{names[self.player]} resigns {what}"


_RESULT = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


@dataclass(frozen=True, slots=True)
class ResignationOffered(Event):
    player: int
    value: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} offers to resign {_RESULT[self.value]}: {names[1 - self.player]} accepts or declines"


@dataclass(frozen=True, slots=True)
class ResignationDeclined(Event):
    player: int
    """Who declined (the offer was the opponent's)."""
    value: int

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"{names[self.player]} declines the resignation of {_RESULT[self.value]}: play on"


@dataclass(frozen=True, slots=True)
class Reroll(Event):
    reason: str

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"Roll again: {self.reason}"


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    winner: int
    points: int
    kind: EndKind
    score: tuple[int, int]
    """The match score after this game."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        how = {EndKind.PASSED: "the double was passed", EndKind.RESIGNED: "by resignation"}.get(
            self.kind, self.kind.name.lower())
        return f"{names[self.winner]} wins {self.points} point{'s' * (self.points != 1)} ({how})"


@dataclass(frozen=True, slots=True)
class MatchOver(Event):
    winner: int
    score: tuple[int, int]

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        won, lost = self.score[self.winner], self.score[1 - self.winner]  # the winner's first, as a result is said
        return f"{names[self.winner]} wins the match {won}-{lost}"


@dataclass(frozen=True, slots=True)
class NeedsAttention(Event):
    """The referee cannot decide alone: the reading is ambiguous or contradicts the game. Nothing was guessed."""

    what: str
    candidates: tuple[Play, ...] = ()

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return "Needs attention: " + self.what


@dataclass(frozen=True, slots=True)
class Refused(Event):
    """A command the rules do not allow now (a double in the Crawford game, a redouble by the taker, ...)."""

    command: str
    reason: str

    @property
    def what(self) -> str:
        """The command as a player says it ('accept', not the journal's 'accept-play')."""
        return COMMAND_WORDS.get(self.command, self.command.replace("-", " "))

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"Not allowed ({self.what}): {self.reason}"


COMMAND_WORDS = {"accept-play": "accept", "request-correction": "correction", "offer-resign": "resign",
                 "accept-resign": "accept the resignation", "decline-resign": "decline the resignation",
                 "set-position": "set up"}


@dataclass(frozen=True, slots=True)
class PositionSet(Event):
    player: int
    position: Position

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        return f"Position set by hand ({names[self.player]} to act)"


@dataclass(frozen=True, slots=True)
class Undone(Event):
    what: str
    events: tuple[Event, ...] = field(default=(), compare=False, repr=False)
    """The events taken back: said with the players' names (`what` has the default ones)."""

    def text(self, names: Names = DEFAULT_NAMES) -> str:
        if self.events:
            return "Undone: " + ", ".join(e.text(names) for e in self.events)
        return f"Undone: {self.what}"


__all__ = [
    "Beavered",
    "CorrectionRequested",
    "DoubleOffered",
    "Event",
    "GameOver",
    "GameStarted",
    "IllegalPlay",
    "MatchOver",
    "NeedsAttention",
    "OpeningRoll",
    "Passed",
    "PlayMade",
    "PlayStood",
    "PlayWithdrawn",
    "PositionSet",
    "Refused",
    "Reroll",
    "ResignationDeclined",
    "ResignationOffered",
    "Resigned",
    "Rolled",
    "Taken",
    "Undone",
]
