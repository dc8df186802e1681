"""A frame's label in the terms a camera has: corners in image order, whose colour is the lighter.

The renderer labels from player 0's chair; a reader knows only the picture. These helpers translate, so that
benchmarks, tests and training compare like with like.
"""

from __future__ import annotations

from companion.sim.render import FrameLabel
from companion.sim.styles import Style


def image_corners(label: FrameLabel) -> tuple[tuple[float, float], ...]:
    """The playing area's corners as the picture shows them: top-left, top-right, bottom-right, bottom-left.
    A camera on player 1's side sees the board turned half round."""
    c = [tuple(p) for p in label.corners]
    return tuple(c[2:] + c[:2]) if label.pose["from_player1"] else tuple(c)


def luminance(bgr) -> float:
    b, g, r = bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


def player0_colour(style: Style) -> str:
    """'light' when player 0's checkers are the lighter set."""
    return "light" if luminance(style.checkers[0]) >= luminance(style.checkers[1]) else "dark"




def strip_counts(points, bar, orientation, occluded=(), bar_hidden=False, hidden_as: int = -1) -> list[int]:
    """The truth per strip (`companion.vision.strips`: 24 points in image order, then the bar's top and bottom
    halves): how many checkers, or `hidden_as` (-1: unknown) where a hand hides a point. `points` are (owner,
    count) in player 0's numbering, `bar` the two players' counts, as a `FrameLabel` or a photoreal label holds
    them; `bar_hidden` says whether a hand hides the bar: for both halves (a bool), or per player (a pair)."""
    out = []
    for slot in range(24):
        point = orientation.point_of_slot(slot)
        out.append(hidden_as if point in occluded else int(points[point - 1][1]))
    hidden = (bar_hidden, bar_hidden) if isinstance(bar_hidden, bool) else tuple(bar_hidden)
    for top in (True, False):
        player = orientation.bar_owner(top)
        out.append(-1 if hidden[player] else int(bar[player]))
    return out


def strip_colours(points, bar, orientation) -> list[int]:
    """Per strip (as `strip_counts`): 1 where the checkers are the lighter set, 0 the darker, -1 none."""
    out = []
    for slot in range(24):
        owner, count = points[orientation.point_of_slot(slot) - 1]
        out.append(-1 if not count else int(orientation.colour_of(owner) == "light"))
    for top in (True, False):
        player = orientation.bar_owner(top)
        out.append(-1 if not bar[player] else int(orientation.colour_of(player) == "light"))
    return out


__all__ = ["image_corners", "luminance", "player0_colour", "strip_colours", "strip_counts"]
