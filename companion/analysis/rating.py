"""Rating plays and cube decisions by the equity they gave up, and a match summary like GNU Backgammon's.

Thresholds and the overall ratings are GNU Backgammon's defaults (equity per decision, and error rate in
thousandths of equity per unforced decision), so a summary reads the same as one from gnubg.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from companion.analysis.engine import CubeAdvice, Hint
from companion.rules import Play


class Skill(Enum):
    GOOD = ""
    DOUBTFUL = "doubtful"
    ERROR = "error"
    BLUNDER = "blunder"

    @classmethod
    def of(cls, loss: float) -> Skill:
        return next((skill for least, skill in SKILL_FLOORS if loss >= least), cls.GOOD)


SKILL_FLOORS = ((0.16, Skill.BLUNDER), (0.08, Skill.ERROR), (0.04, Skill.DOUBTFUL))
"""The least equity lost that makes a decision a blunder, an error, doubtful (gnubg's very bad, bad, doubtful)."""


_RATINGS = ((0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
            (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))


def rating_name(error_rate: float) -> str:
    """GNU Backgammon's words for an error rate (equity lost per unforced decision)."""
    for limit, name in _RATINGS:
        if error_rate < limit:
            return name
    return "Awful!"


@dataclass(frozen=True, slots=True)
class PlayRating:
    player: int
    play: Play
    best: Play
    loss: float
    forced: bool

    @property
    def skill(self) -> Skill:
        return Skill.of(self.loss)

    def text(self) -> str:
        if self.forced:
            return "forced"
        if self.loss < 0.0005:
            return "best play"
        mark = f" ({self.skill.value})" if self.skill is not Skill.GOOD else ""
        # "costs", as a cube rating says it: a bare "-0.089" did not say it was equity lost
        return f"costs {self.loss:.3f}{mark}; best {self.best.notation or 'no move'}"


def rate_play(hint: Hint, play: Play, player: int) -> PlayRating:
    ranked = hint.ranking_of(play)
    loss = ranked.loss if ranked is not None else hint.plays[-1].loss
    return PlayRating(player, play, hint.best.play, loss, len(hint.plays) == 1)


@dataclass(frozen=True, slots=True)
class CubeRating:
    player: int
    decision: str
    """double, no-double, take, pass, beaver."""
    loss: float
    best: str | None = None
    """The right answer to a double, where the decision is one (three may be right or wrong with beavers)."""
    close: bool = True
    """Counted in the error rate's decisions, as GNU Backgammon counts them: a double and its answer always, a
    hold only where doubling was close (`CLOSE_CUBE`); the obvious holds of a game would otherwise dilute it."""

    @property
    def skill(self) -> Skill:
        return Skill.of(self.loss)


CLOSE_CUBE = 0.16
"""A hold counts as a decision where doubling (the take's equity, at most 1) was within this of the best action:
gnubg's `isCloseCubedecision`."""


def rate_double(advice: CubeAdvice, player: int, doubled: bool) -> CubeRating:
    close = doubled or advice.optimal - min(advice.double_take, 1.0) < CLOSE_CUBE
    return CubeRating(player, "double" if doubled else "no-double", advice.doubling_cost(doubled), close=close)


def rate_answer(advice: CubeAdvice, player: int, answer: str, *, beaver: bool = False) -> CubeRating:
    """`answer`: take, pass or beaver; `beaver`: whether the rules allowed one (it is then one of the choices)."""
    costs = advice.answer_costs(beaver or answer == "beaver")
    return CubeRating(player, answer, costs[answer], best=min(costs, key=costs.__getitem__))


@dataclass
class PlayerSummary:
    plays: int = 0
    unforced: int = 0
    play_loss: float = 0.0
    cube_decisions: int = 0
    close_cube: int = 0
    """The cube decisions the error rate counts (`CubeRating.close`)."""
    cube_loss: float = 0.0
    skills: dict[Skill, int] = field(default_factory=lambda: {s: 0 for s in Skill})

    @property
    def error_rate(self) -> float:
        """Equity lost per decision, as gnubg's: unforced plays and close or actual cube decisions."""
        decisions = self.unforced + self.close_cube
        return (self.play_loss + self.cube_loss) / decisions if decisions else 0.0

    @property
    def rating(self) -> str:
        return rating_name(self.error_rate)


@dataclass
class MatchSummary:
    players: tuple[str, str]
    sides: tuple[PlayerSummary, PlayerSummary] = field(default_factory=lambda: (PlayerSummary(), PlayerSummary()))

    def add_play(self, rating: PlayRating) -> None:
        side = self.sides[rating.player]
        side.plays += 1
        if not rating.forced:
            side.unforced += 1
            side.play_loss += rating.loss
            side.skills[rating.skill] += 1

    def add_cube(self, rating: CubeRating) -> None:
        side = self.sides[rating.player]
        side.cube_decisions += 1
        side.close_cube += rating.close
        side.cube_loss += rating.loss
        side.skills[rating.skill] += 1

    def text(self) -> str:
        rows = [("", *self.players)]
        a, b = self.sides
        rows += [
            ("Checker plays (unforced)", f"{a.plays} ({a.unforced})", f"{b.plays} ({b.unforced})"),
            ("Checker play error", f"{a.play_loss:.3f}", f"{b.play_loss:.3f}"),
            ("Cube decisions (close or actual)", f"{a.cube_decisions} ({a.close_cube})",
             f"{b.cube_decisions} ({b.close_cube})"),
            ("Cube error", f"{a.cube_loss:.3f}", f"{b.cube_loss:.3f}"),
            ("Doubtful / errors / blunders",
             f"{a.skills[Skill.DOUBTFUL]} / {a.skills[Skill.ERROR]} / {a.skills[Skill.BLUNDER]}",
             f"{b.skills[Skill.DOUBTFUL]} / {b.skills[Skill.ERROR]} / {b.skills[Skill.BLUNDER]}"),
            ("Error rate (mEMG per decision)", f"{a.error_rate * 1000:.1f}", f"{b.error_rate * 1000:.1f}"),
            ("Rating", a.rating, b.rating),
        ]
        width = max(len(r[0]) for r in rows) + 2
        col = max(len(str(c)) for r in rows for c in r[1:]) + 2
        return "\n".join(f"{r[0]:<{width}}{r[1]:>{col}}{r[2]:>{col}}" for r in rows)


__all__ = [
    "CubeRating",
    "MatchSummary",
    "PlayRating",
    "PlayerSummary",
    "Skill",
    "rate_answer",
    "rate_double",
    "rate_play",
    "rating_name",
]
