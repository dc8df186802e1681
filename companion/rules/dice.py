"""Dice: a roll of two dice, the 21 distinct rolls, and the opening roll."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from companion.errors import RulesError


@dataclass(frozen=True, slots=True)
class Roll:
    """Two dice as thrown. Order is kept (records write `52` or `25`), but equality ignores it."""

    die1: int
    die2: int

    def __post_init__(self) -> None:
        for d in (self.die1, self.die2):
            if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6:
                raise RulesError(f"a die shows 1 to 6, not {d!r}")

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read `52`, `5-2`, `5 2` or `5,2`."""
        digits = [c for c in text if c.isdigit()]
        if len(digits) != 2 or any(c not in "123456" for c in digits) or any(
            c not in "123456 -,/x" for c in text.strip()
        ):
            raise RulesError(f"cannot read a roll from {text!r}: write it as two digits 1-6, e.g. 52")
        return cls(int(digits[0]), int(digits[1]))

    @property
    def is_double(self) -> bool:
        return self.die1 == self.die2

    @property
    def high(self) -> int:
        return max(self.die1, self.die2)

    @property
    def low(self) -> int:
        return min(self.die1, self.die2)

    def moves(self) -> tuple[int, ...]:
        """The numbers to play: four of them for a double."""
        if self.is_double:
            return (self.die1,) * 4
        return (self.high, self.low)

    def pips(self) -> int:
        return sum(self.moves())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Roll):
            return NotImplemented
        return (self.high, self.low) == (other.high, other.low)

    def __hash__(self) -> int:
        return hash((self.high, self.low))

    def __str__(self) -> str:
        return f"{self.high}{self.low}"


def all_rolls() -> Iterator[Roll]:
    """The 21 distinct rolls, high die first."""
    for high in range(1, 7):
        for low in range(1, high + 1):
            yield Roll(high, low)


def roll_weight(roll: Roll) -> int:
    """Chances out of 36: 1 for a double, 2 otherwise."""
    return 1 if roll.is_double else 2


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """One die each to start a game: equal dice are re-rolled; the higher die's owner plays both."""

    die0: int
    die1: int

    def __post_init__(self) -> None:
        Roll(self.die0, self.die1)  # validates the faces

    @property
    def is_tie(self) -> bool:
        return self.die0 == self.die1

    @property
    def winner(self) -> int:
        """Player 0 or 1, whose die is higher; raises on a tie (re-roll)."""
        if self.is_tie:
            raise RulesError(f"the opening dice tie at {self.die0}: both players roll again")
        return 0 if self.die0 > self.die1 else 1

    def roll(self) -> Roll:
        """The roll the winner plays: both opening dice, his own first (as records write it: gnubg and
        Jellyfish write `52` for the second player's 5 against the first's 2)."""
        if self.is_tie:
            raise RulesError(f"the opening dice tie at {self.die0}: both players roll again")
        return Roll(max(self.die0, self.die1), min(self.die0, self.die1))
