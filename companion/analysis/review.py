"""Reviewing a match as it goes (or afterwards): each play and cube decision rated against the engine.

The reviewer is fed the game as it stood before an observation and the events the observation caused,
which is what the app and the recorder have at hand; it never asks the referee anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from companion.analysis.engine import FAST, Engine
from companion.analysis.rating import (
    CubeRating,
    MatchSummary,
    PlayRating,
    Skill,
    rate_answer,
    rate_double,
    rate_play,
)
from companion.referee.events import Beavered, DoubleOffered, Event, GameStarted, Passed, PlayMade, Rolled, Taken
from companion.rules import GameState, Phase


@dataclass
class Reviewer:
    engine: Engine
    summary: MatchSummary
    level: str = FAST
    cube: bool = True
    """Rate cube decisions too (a cube analysis per turn, about 30 ms each)."""
    ratings: list[PlayRating | CubeRating] = field(default_factory=list)

    def review(self, before: GameState, events: list[Event], level: str | None = None) -> list[PlayRating | CubeRating]:
        """Rate what `events` did, `before` being the game before them; at `level` where given (the player looked
        deeper at this position: the play is rated as the hint he saw), else the reviewer's."""
        level = level or self.level
        out: list[PlayRating | CubeRating] = []
        for event in events:
            if isinstance(event, PlayMade) and not event.revised:
                hint = self.engine.hint(event.before, event.play.roll, before.match, event.player, level=level)
                out.append(rate_play(hint, event.play, event.player))
            elif self.cube and isinstance(event, DoubleOffered) and before.phase is Phase.ROLL:
                advice = self.engine.cube_for(before, level=level)
                if advice is not None:
                    out.append(rate_double(advice, event.player, True))
            elif self.cube and isinstance(event, Rolled) and before.phase is Phase.ROLL and before.may_double():
                advice = self.engine.cube_for(before, level=level)
                if advice is not None:
                    out.append(rate_double(advice, event.player, False))
            elif self.cube and isinstance(event, (Taken, Passed, Beavered)) and before.phase is Phase.DOUBLED:
                advice = self.engine.cube_for(before, level=level)
                if advice is not None:
                    answer = "take" if isinstance(event, Taken) else "pass" if isinstance(event, Passed) else "beaver"
                    out.append(rate_answer(advice, event.player, answer, beaver=before.match.beaver))
        for rating in out:
            if isinstance(rating, PlayRating):
                self.summary.add_play(rating)
            else:
                self.summary.add_cube(rating)
        self.ratings += out
        return out


_BETTER = {"double": "no double", "no-double": "double"}


@dataclass(frozen=True, slots=True)
class ReviewedDecision:
    """One play or cube decision of a match, rated: what a match review lists (as gnubg's and XG's analysis)."""

    index: int
    """Its place in the match's list of decisions, from 0: the app jumps to it by this number."""
    game: int
    player: int
    xgid: str
    """The position of the decision (dice included for a play): open it in gnubg, XG, or `companion analyse`."""
    kind: str
    """"play" or "cube"."""
    roll: str
    played: str
    best: str
    loss: float
    forced: bool = False

    @property
    def skill(self) -> Skill:
        return Skill.of(self.loss)

    def text(self, names: tuple[str, str]) -> str:
        """One row and, under it, the decision's XGID, to paste into gnubg, XG or `companion analyse`; its cost said
        as the app says it ("costs 0.242 (blunder)")."""
        what = f"{self.roll}: {self.played}" if self.kind == "play" else self.played
        if self.forced:
            verdict = "forced"
        elif self.loss < 0.0005:
            verdict = "best"
        else:
            verdict = (f"costs {self.loss:.3f}" + (f" ({self.skill.value})" if self.skill.value else "")
                       + f"; best {self.best}")
        return f"game {self.game}  {names[self.player]:<12} {what:<28} {verdict}\n    {self.xgid}"

    def to_json(self, names: tuple[str, str]) -> dict:
        return {"index": self.index, "game": self.game, "player": names[self.player], "kind": self.kind,
                "xgid": self.xgid, "roll": self.roll, "played": self.played, "best": self.best,
                "loss": round(self.loss, 4), "skill": self.skill.value or "good", "forced": self.forced}


def _with_dice(before: GameState, rating: PlayRating) -> GameState:
    """The state a play was made in, its dice thrown: a roll played as it came (forced, or no move) is judged with
    its throw, so `before` has none yet (its XGID said dice `00`)."""
    if before.phase is Phase.ROLL and before.turn == rating.player:
        return before.roll(rating.play.roll.die1, rating.play.roll.die2)
    return before


@dataclass
class MatchReview:
    """Every rated decision of a match with its summary; built from what a `Reviewer` returns as the match is
    replayed (`add`), so a live match and a file are reviewed the same way."""

    names: tuple[str, str]
    summary: MatchSummary
    decisions: list[ReviewedDecision] = field(default_factory=list)
    game: int = 1

    def add(self, before: GameState, events: list[Event], ratings: list[PlayRating | CubeRating]) -> None:
        number = self.game  # a game's last play comes with the next game's start: it is rated in its own game
        for rating in ratings:
            if isinstance(rating, PlayRating):
                self.decisions.append(ReviewedDecision(
                    len(self.decisions), number, rating.player, _with_dice(before, rating).xgid(), "play",
                    str(rating.play.roll),
                    rating.play.notation or "cannot move", rating.best.notation or "cannot move", rating.loss,
                    rating.forced))
            else:
                played = rating.decision.replace("-", " ")
                best = (played if rating.loss < 0.0005 else rating.best if rating.best is not None
                        else _BETTER[rating.decision])
                self.decisions.append(ReviewedDecision(
                    len(self.decisions), number, rating.player, before.xgid(), "cube", "", played, best,
                    rating.loss))
        for event in events:
            if isinstance(event, GameStarted):
                self.game = event.number

    def flagged(self, least: Skill = Skill.DOUBTFUL) -> list[ReviewedDecision]:
        """The decisions at `least` doubtful (an error, a blunder) and worse."""
        order = list(Skill)
        return [d for d in self.decisions if order.index(d.skill) >= order.index(least)]

    def text(self, every: bool = False) -> str:
        shown = self.decisions if every else self.flagged()
        rows = [d.text(self.names) for d in shown]
        head = (f"{len(self.decisions)} decisions rated; "
                + ("all of them:" if every else f"{len(shown)} doubtful, errors or blunders:"))
        return "\n".join([head, *rows, "", self.summary.text()])

    def to_json(self) -> dict:
        sides = []
        for side in self.summary.sides:
            sides.append({"plays": side.plays, "unforced": side.unforced, "play_loss": round(side.play_loss, 4),
                          "cube_decisions": side.cube_decisions, "close_cube_decisions": side.close_cube,
                          "cube_loss": round(side.cube_loss, 4),
                          "doubtful": side.skills[Skill.DOUBTFUL], "errors": side.skills[Skill.ERROR],
                          "blunders": side.skills[Skill.BLUNDER], "error_rate": round(side.error_rate, 5),
                          "rating": side.rating})
        return {"players": list(self.names), "summary": dict(zip(self.names, sides)),
                "decisions": [d.to_json(self.names) for d in self.decisions]}


def review_match(replayed: Iterable[tuple[GameState, list[Event]]], engine: Engine, names: tuple[str, str], *,
                 cube: bool = True, level: str = FAST) -> MatchReview:
    """Rate a whole match: `replayed` is the game before each observation and its events, as
    `Referee.replay` gives them for a file, a journal or the match being played."""
    summary = MatchSummary(names)
    reviewer = Reviewer(engine, summary, level=level, cube=cube)
    review = MatchReview(names, summary)
    for before, events in replayed:
        review.add(before, events, reviewer.review(before, events) if events else [])
    return review


__all__ = ["MatchReview", "ReviewedDecision", "Reviewer", "review_match"]
