"""Match winning chances: a match equity (EMG, as the engine gives it) as the chance to win the match, read from
the engine's match equity table, as GNU Backgammon shows MWC beside equity in match play.

With the cube at c, a cubeful equity runs linearly from -1 (the player loses c points) to +1 (he wins c):
MWC = MWC(lose c) + (equity + 1) / 2 * (MWC(win c) - MWC(lose c)); the same holds for the double/take and
double/pass equities, which the engine gives in units of the cube before the double.
"""

from __future__ import annotations

from companion.rules import MatchState


def _met(away: int, their_away: int, post_crawford: bool) -> float:
    if away <= 0:
        return 1.0
    if their_away <= 0:
        return 0.0
    import bgbot_cpp  # bgsage's table (Kazaross-XG2); imported here so rules-only users never load it

    # bgsage's flag: False gives the Crawford game's chances at 1-away, True the games after it
    return float(bgbot_cpp.get_met(away, their_away, post_crawford))


def match_winning_chance(match: MatchState, player: int, equity: float) -> float | None:
    """`player`'s chance to win the match, from his cubeful `equity` now (None in money play)."""
    if not match.length:
        return None
    away, their_away, cube = match.away(player), match.away(1 - player), match.cube
    after_crawford = match.crawford or match.post_crawford  # a game won now leads to a post-Crawford game
    win = _met(away - cube, their_away, after_crawford)
    lose = _met(away, their_away - cube, after_crawford)
    return lose + (equity + 1) / 2 * (win - lose)


__all__ = ["match_winning_chance"]
