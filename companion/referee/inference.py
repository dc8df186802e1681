"""Play inference: which legal play, if any, reached the board that was read.

The referee knows the position before the play and the dice, so it does not need vision to see every checker:
it keeps the legal plays whose results agree with every confident slot of the reading. Slots read unsure
constrain nothing, and the 15-checkers-a-side rule is implicit (every candidate is a legal position). One
result left is the play; several are `AMBIGUOUS` (the referee then asks, never guesses). Where none is left, the
stacks whose set the rules force (the opponent does not move in the mover's turn) are named so, and a play that
alone fits then is the play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from companion.referee.observations import CONFIDENT, BoardReading
from companion.rules import BAR, OFF, Play, Position, Roll


class Fit(Enum):
    UNCHANGED = "unchanged"
    """The reading still agrees with the position before the play (nothing moved, or too unsure to say)."""
    PLAY = "play"
    """Exactly one legal result agrees with the reading."""
    AMBIGUOUS = "ambiguous"
    """Several legal results agree with it."""
    NONE = "none"
    """No legal result agrees (nor exactly one once the rules name the sets): a play in progress, or an illegal
    one."""


@dataclass(frozen=True, slots=True)
class Inference:
    fit: Fit
    plays: tuple[Play, ...]
    """The legal plays whose results agree with the reading."""

    @property
    def play(self) -> Play:
        assert self.fit is Fit.PLAY
        return self.plays[0]


Bounds = list[tuple[int, int, int]]
"""(index into a 52-byte result key, fewest, most): one per confident slot."""


def key_bounds(reading: BoardReading, mover: int, threshold: float = CONFIDENT) -> Bounds:
    """The reading's confident slots as bounds on a result key held from `mover`'s side (mover's slots first)."""
    base = (0, 26) if mover == 0 else (26, 0)  # where player 0's and player 1's slots start in the key
    bounds: Bounds = []
    for i, slot in enumerate(reading.points):
        if slot.confidence < threshold:
            continue
        own = (base[0] + i + 1, base[1] + 24 - i)  # the point as player 0's and as player 1's slot
        for player in (0, 1):
            if slot.owner == player:
                bounds.append((own[player], slot.low, slot.high))
            else:
                bounds.append((own[player], 0, 0))
    for player in (0, 1):
        trays = (reading.bar[player], BAR), *(((reading.off[player], OFF),) if reading.off else ())
        for slot, index in trays:
            if slot.confidence >= threshold:
                bounds.append((base[player] + index, slot.low, slot.high))
    return bounds


def agrees(key: bytes, bounds: Bounds) -> bool:
    for index, low, high in bounds:
        if not low <= key[index] <= high:
            return False
    return True


def infer_play(before: Position, roll: Roll, reading: BoardReading, mover: int,
               threshold: float = CONFIDENT, plays: list[Play] | None = None, *,
               rules_name_sets: bool = True) -> Inference:
    """Match `reading` against the legal plays of `roll` from `before` (from `mover`'s side). `rules_name_sets`:
    where nothing fits, try the reading with the sets the rules force (`sets_the_rules_force`); off where the roll
    itself is guessed from the board (a renamed reading must not also choose the dice)."""
    bounds = key_bounds(reading, mover, threshold)
    if plays is None:
        plays = before.legal_plays(roll)
    unchanged = agrees(bytes(before.player + before.opponent), bounds)
    matches = tuple(p for p in plays if agrees(p.result_key, bounds))
    if unchanged:
        return Inference(Fit.UNCHANGED, matches)
    if not matches and rules_name_sets:
        # a reading that named some stack's set surely wrong is trusted less: only one play fitting it is taken
        forced = sets_the_rules_force(before, reading, mover, threshold)
        if forced is not None:
            bounds = key_bounds(forced, mover, threshold)
            matches = tuple(p for p in plays if agrees(p.result_key, bounds))
            if agrees(bytes(before.player + before.opponent), bounds):
                return Inference(Fit.UNCHANGED, matches)  # renamed, the board may not have moved at all
            if len(matches) != 1 or reading.mended:
                # one guess on another: a reading the camera made whole by inference, its sets then renamed by the
                # rules, took a wrong play on a metal-checker development board (nine stacks of the wrong set)
                matches = ()
    if not matches:
        return Inference(Fit.NONE, ())
    return Inference(Fit.PLAY if len(matches) == 1 else Fit.AMBIGUOUS, matches)


def sets_the_rules_force(before: Position, reading: BoardReading, mover: int,
                         threshold: float = CONFIDENT) -> BoardReading | None:
    """`reading` with each stack read surely as a set the mover's turn cannot have put there named the other set,
    or None when there is none. In the mover's turn no point gains the opponent's checkers (a hit one goes to the
    bar) and the mover cannot land where the opponent held two or more: such a stack is the other set's misread
    (glossy checkers mirroring a lamp), or the opponent's checkers were moved, which no legal play does either."""
    opponent = 1 - mover
    theirs = before.opponent
    points = list(reading.points)
    for i, slot in enumerate(points):
        if slot.confidence < threshold or slot.owner is None or slot.count == 0:
            continue
        held = theirs[i + 1 if opponent == 0 else 24 - i]  # the opponent's checkers there before, his numbering
        if slot.owner == opponent and slot.low > held and held <= 1:
            points[i] = replace(slot, owner=mover)
        elif slot.owner == mover and held >= 2 and slot.high <= held:
            points[i] = replace(slot, owner=opponent)
    if points == list(reading.points):
        return None
    return replace(reading, points=tuple(points))


def position_agrees(position: Position, reading: BoardReading, mover: int, threshold: float = CONFIDENT) -> bool:
    """Whether `position` (from `mover`'s side) agrees with every confident slot of `reading`."""
    return agrees(bytes(position.player + position.opponent), key_bounds(reading, mover, threshold))


__all__ = ["Fit", "Inference", "agrees", "infer_play", "key_bounds", "position_agrees", "sets_the_rules_force"]
