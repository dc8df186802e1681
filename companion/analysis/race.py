"""Race formulas for an instant cube guide, before (or instead of) the engine: the Keith count and the Thorp count.

Both are money-play rules of thumb for pure races (no contact). They take a `Position` from the side of
the player on roll, who is thinking of doubling. Definitions as published (Tom Keith, 2004; Edward Thorp,
as refined by Bill Robertie).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules import BAR, OFF, Position


@dataclass(frozen=True, slots=True)
class RaceGuide:
    formula: str
    roller: float
    """The roller's adjusted count (lower is better)."""
    opponent: float
    double: bool
    redouble: bool
    take: bool

    def text(self) -> str:
        cube = "double/redouble" if self.redouble else ("double (initial only)" if self.double else "no double")
        return (f"{self.formula}: {self.roller:.1f} v {self.opponent:.1f}: {cube}, "
                f"{'take' if self.take else 'pass'}")


def keith_count(side: tuple[int, ...]) -> int:
    """Pips, plus 2 per checker beyond one on the 1-point, 1 per checker beyond one on the 2-point,
    1 per checker beyond three on the 3-point, and 1 per empty 4-, 5- and 6-point."""
    pips = sum(point * side[point] for point in range(1, 26))
    waste = 2 * max(0, side[1] - 1) + max(0, side[2] - 1) + max(0, side[3] - 3)
    gaps = sum(1 for point in (4, 5, 6) if side[point] == 0)
    return pips + waste + gaps


def keith(position: Position) -> RaceGuide:
    """The roller adds a seventh to his count; he doubles if it exceeds the opponent's by at most 4,
    redoubles by at most 3; the opponent takes if it exceeds his by at least 2."""
    roller = keith_count(position.player) * 8 / 7
    opponent = keith_count(position.opponent)
    excess = roller - opponent
    return RaceGuide("Keith", roller, opponent, excess <= 4, excess <= 3, excess >= 2)


def thorp_count(side: tuple[int, ...]) -> int:
    """Pips, plus 2 per checker still on the board, plus 1 per checker on the 1-point, minus 1 per home
    point held."""
    pips = sum(point * side[point] for point in range(1, 26))
    left = sum(side[1:BAR + 1])
    held = sum(1 for point in range(1, 7) if side[point])
    return pips + 2 * left + side[1] - held


def thorp(position: Position) -> RaceGuide:
    """The roller's count grows by a tenth past 30; he doubles if it is at most the opponent's + 2,
    redoubles at most + 1; the opponent takes if it is at least his - 2."""
    roller = float(thorp_count(position.player))
    if roller > 30:
        roller *= 1.1
    opponent = float(thorp_count(position.opponent))
    return RaceGuide("Thorp", roller, opponent, roller <= opponent + 2, roller <= opponent + 1,
                     roller >= opponent - 2)


def race_guides(position: Position) -> tuple[RaceGuide, ...]:
    """Both guides when the position is a pure race, else none (they say nothing about contact play)."""
    if not position.is_race() or position.player[OFF] == 15 or position.opponent[OFF] == 15:
        return ()
    return keith(position), thorp(position)


__all__ = ["RaceGuide", "keith", "keith_count", "race_guides", "thorp", "thorp_count"]
