"""Reviewing a match as it goes (or afterwards): each play and cube decision rated against the engine.

The reviewer is fed the game as it stood before an observation and the events the observation caused,
which is what the app and the recorder have at hand; it never asks the referee anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.analysis.engine import FAST, Engine
from companion.analysis.rating import CubeRating, MatchSummary, PlayRating, rate_answer, rate_double, rate_play
from companion.referee.events import DoubleOffered, Event, Passed, PlayMade, Rolled, Taken
from companion.rules import GameState, Phase


@dataclass
class Reviewer:
    engine: Engine
    summary: MatchSummary
    level: str = FAST
    cube: bool = True
    """Rate cube decisions too (a cube analysis per turn, about 30 ms each)."""
    ratings: list[PlayRating | CubeRating] = field(default_factory=list)

    def review(self, before: GameState, events: list[Event]) -> list[PlayRating | CubeRating]:
        """Rate what `events` did, `before` being the game before them."""
        out: list[PlayRating | CubeRating] = []
        for event in events:
            if isinstance(event, PlayMade) and not event.revised:
                hint = self.engine.hint(event.before, event.play.roll, before.match, event.player, level=self.level)
                out.append(rate_play(hint, event.play, event.player))
            elif self.cube and isinstance(event, DoubleOffered) and before.phase is Phase.ROLL:
                advice = self.engine.cube_for(before, level=self.level)
                if advice is not None:
                    out.append(rate_double(advice, event.player, True))
            elif self.cube and isinstance(event, Rolled) and before.phase is Phase.ROLL and before.may_double():
                advice = self.engine.cube_for(before, level=self.level)
                if advice is not None:
                    out.append(rate_double(advice, event.player, False))
            elif self.cube and isinstance(event, (Taken, Passed)) and before.phase is Phase.DOUBLED:
                advice = self.engine.cube_for(before, level=self.level)
                if advice is not None:
                    out.append(rate_answer(advice, event.player, isinstance(event, Taken)))
        for rating in out:
            if isinstance(rating, PlayRating):
                self.summary.add_play(rating)
            else:
                self.summary.add_cube(rating)
        self.ratings += out
        return out


__all__ = ["Reviewer"]
