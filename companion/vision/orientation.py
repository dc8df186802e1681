"""Whose side is whose: image order (what the camera shows) to the board's own terms (player 0's points).

The reader works in image order; the referee in player 0's numbering. Three facts, learned by calibration from
the starting position, connect them: whether player 0 sits at the bottom of the picture, whether his home board
is on his right, and which of the two checker sets (the lighter or the darker) is his.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from companion.rules.layout import PLAY_HEIGHT, PLAY_WIDTH, BoardLayout
from companion.vision.plane import slot_is_top, slot_x

COLOURS = ("light", "dark")


@dataclass(frozen=True, slots=True)
class Orientation:
    player0_at_bottom: bool = True
    home_right: bool = True
    """Player 0's home board is on his right, as he sits."""
    player0_colour: str = "light"

    def __post_init__(self) -> None:
        if self.player0_colour not in COLOURS:
            raise ValueError(f"player 0's checkers are 'light' or 'dark', not {self.player0_colour!r}")

    def player_of(self, colour: str) -> int:
        return 0 if colour == self.player0_colour else 1

    def colour_of(self, player: int) -> str:
        return self.player0_colour if player == 0 else COLOURS[1 - COLOURS.index(self.player0_colour)]

    def _layout_xy(self, x: float, y: float) -> tuple[float, float]:
        return (x, y) if self.player0_at_bottom else (PLAY_WIDTH - x, PLAY_HEIGHT - y)

    def point_of_slot(self, slot: int) -> int:
        """Player 0's point number (1..24) of image slot 0..23."""
        return _points_of_slots(self)[slot]

    def bar_owner(self, top_half: bool) -> int:
        """Whose checkers wait on the bar in the image's top or bottom half (player 0's lie in the layout's
        upper half, towards the points he enters on)."""
        return 0 if top_half == self.player0_at_bottom else 1

    def tray_on_right(self) -> bool:
        """Whether the trays are on the image's right."""
        return self.home_right == self.player0_at_bottom

    def tray_owner(self, top_half: bool) -> int:
        return 1 if top_half == self.player0_at_bottom else 0


@lru_cache(maxsize=8)
def _points_of_slots(orientation: Orientation) -> tuple[int, ...]:
    """Where each image slot falls on the layout; worked out once per orientation, not per reading."""
    layout = BoardLayout(orientation.home_right)
    rects = [(point, layout.point_rect(point)) for point in range(1, 25)]
    out = []
    for slot in range(24):
        x, y = orientation._layout_xy(slot_x(slot), 1.0 if slot_is_top(slot) else PLAY_HEIGHT - 1.0)
        out.append(next(point for point, (x0, y0, x1, y1) in rects if x0 <= x <= x1 and y0 <= y <= y1))
    return tuple(out)


__all__ = ["COLOURS", "Orientation"]
