"""Analysis: hints, cube advice, play ratings and race formulas, over the bgsage engine.

>>> from companion.analysis import Engine
>>> from companion.rules import Position, Roll, MatchState
>>> Engine().hint(Position.start(), Roll(3, 1), MatchState(), 0).best.play.notation
'8/5 6/5'
"""

from companion.analysis.engine import (
    DEEP,
    FAST,
    Chances,
    CubeAction,
    CubeAdvice,
    Engine,
    EngineError,
    EngineProcess,
    Hint,
    RankedPlay,
)
from companion.analysis.race import RaceGuide, keith, race_guides, thorp
from companion.analysis.rating import MatchSummary, PlayRating, Skill, rate_play
from companion.analysis.review import MatchReview, ReviewedDecision, Reviewer, review_match

__all__ = [
    "DEEP",
    "FAST",
    "Chances",
    "CubeAction",
    "CubeAdvice",
    "Engine",
    "EngineError",
    "EngineProcess",
    "Hint",
    "MatchSummary",
    "PlayRating",
    "RaceGuide",
    "RankedPlay",
    "MatchReview",
    "ReviewedDecision",
    "Reviewer",
    "Skill",
    "keith",
    "race_guides",
    "rate_play",
    "review_match",
    "thorp",
]
