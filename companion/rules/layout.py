"""Where things are on a backgammon board: the geometry of points, bar, trays and the dice area, in millimetres
on the board's own plane. The renderer draws with it and vision reads with it, so they cannot disagree.

Coordinates: x to the right and y downwards, from player 0's chair, with (0, 0) the top-left corner of the
playing area. Player 0 sits at the bottom; his home board is bottom right (or bottom left when the board is
turned the other way, `home_right=False`). Points are player 0's numbers, 1..24 (player 1's point p is 25 - p).
"""

from __future__ import annotations

from dataclasses import dataclass

POINT_WIDTH = 45.0
POINT_LENGTH = 180.0
HALF_WIDTH = 6 * POINT_WIDTH
BAR_WIDTH = 40.0
PLAY_WIDTH = 2 * HALF_WIDTH + BAR_WIDTH
PLAY_HEIGHT = 440.0
CHECKER = 42.0
"""A checker's diameter."""
FRAME = 25.0
TRAY_WIDTH = 50.0
TRAY_CUBE = 45.0
"""An owned cube resting in the tray lies this far from the tray's middle, in its owner's half: clear of fifteen
borne-off checkers, which stand on their edges from the tray's far end (about 100 mm of it)."""

Rect = tuple[float, float, float, float]
"""x0, y0, x1, y1."""


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """The measurements of one physical board, in millimetres. Boards differ (a bar of 5-10 % of the width,
    points of 35-45 % of the height, checkers of 0.8-0.98 of a point's width), so the reader measures them at
    calibration and keeps them in the board's profile; the defaults are the simulator's board (the module's
    constants above)."""

    play_width: float = PLAY_WIDTH
    """The playing area's width, the bar included."""
    play_height: float = PLAY_HEIGHT
    bar_width: float = BAR_WIDTH
    point_length: float = POINT_LENGTH
    checker: float = CHECKER
    """A checker's diameter."""

    def __post_init__(self) -> None:
        if min(self.play_width, self.play_height, self.bar_width, self.point_length, self.checker) <= 0:
            raise ValueError("a board's measurements are all positive")
        if not 0.02 <= self.bar_width / self.play_width <= 0.2:
            raise ValueError(f"a bar of {self.bar_width:g} mm in a playing area {self.play_width:g} mm wide "
                             "is not a backgammon board's")
        if self.point_length >= self.play_height / 2:
            raise ValueError("a point reaches at most to the board's middle")
        if not 0.5 <= self.checker / self.point_width <= 1.2:
            raise ValueError(f"checkers of {self.checker:g} mm do not fit points {self.point_width:.1f} mm wide")

    @property
    def point_width(self) -> float:
        return (self.play_width - self.bar_width) / 12

    @property
    def half_width(self) -> float:
        """One half of the playing area, from its outer edge to the bar."""
        return 6 * self.point_width

    def slot_x(self, slot: int) -> float:
        """The centre line of image slot 0..23 (0..11 along the top edge from the left, 12..23 along the bottom
        from the left), mm from the playing area's left edge."""
        j = slot % 12
        x = self.point_width * (j + 0.5)
        return x if j < 6 else x + self.bar_width

    def bar_x(self) -> float:
        return self.half_width + self.bar_width / 2

    def with_bar(self, fraction: float) -> BoardGeometry:
        """The same board with a bar `fraction` of the playing area's width (what measuring the bar changes)."""
        return BoardGeometry(self.play_width, self.play_height, fraction * self.play_width, self.point_length,
                             self.checker * (1 - fraction) / (1 - self.bar_width / self.play_width))


STANDARD = BoardGeometry()
"""The simulator's board: what a reader assumes before it has measured the board in front of it."""


def column_along(index: int, count: int, *, layered: bool = True) -> float:
    """How far from the board's edge (mm) the `index`-th checker of a stack of `count` lies: five fit in a column;
    taller stacks go on in a second (and third) layer over the gaps, or squeeze into one column that reaches the
    board's middle."""
    if count <= 5 or layered:
        layer, slot = divmod(index, 5)
        return CHECKER / 2 + slot * CHECKER + layer * CHECKER / 2
    return CHECKER / 2 + index * min(CHECKER, (PLAY_HEIGHT / 2 - CHECKER) / (count - 1))


@dataclass(frozen=True, slots=True)
class BoardLayout:
    home_right: bool = True

    def _x(self, x: float) -> float:
        return x if self.home_right else PLAY_WIDTH - x

    def _span(self, x0: float, x1: float) -> tuple[float, float]:
        a, b = self._x(x0), self._x(x1)
        return min(a, b), max(a, b)

    def point_rect(self, point: int) -> Rect:
        """The triangle's bounding box of player 0's `point`."""
        if not 1 <= point <= 24:
            raise ValueError(f"points are 1..24, not {point}")
        if point <= 6:
            x0, top = PLAY_WIDTH - POINT_WIDTH * point, False
        elif point <= 12:
            x0, top = HALF_WIDTH - POINT_WIDTH * (point - 6), False
        elif point <= 18:
            x0, top = POINT_WIDTH * (point - 13), True
        else:
            x0, top = HALF_WIDTH + BAR_WIDTH + POINT_WIDTH * (point - 19), True
        a, b = self._span(x0, x0 + POINT_WIDTH)
        return (a, 0.0, b, POINT_LENGTH) if top else (a, PLAY_HEIGHT - POINT_LENGTH, b, PLAY_HEIGHT)

    def is_top(self, point: int) -> bool:
        return point >= 13

    def checker_centre(self, point: int, index: int, count: int, *, layered: bool = True) -> tuple[float, float]:
        """Where the `index`-th checker (0 at the edge) of a stack of `count` on `point` lies.

        Five fit in a column; taller stacks are built as people build them: a second layer over the gaps
        (`layered`), or one longer, squeezed column."""
        x0, _, x1, _ = self.point_rect(point)
        along = column_along(index, count, layered=layered)
        return (x0 + x1) / 2, (along if self.is_top(point) else PLAY_HEIGHT - along)

    def bar_centre(self, player: int, index: int) -> tuple[float, float]:
        """Checkers on the bar: player 0's in the upper half (he enters into the top right), player 1's lower."""
        x = HALF_WIDTH + BAR_WIDTH / 2
        offset = PLAY_HEIGHT / 2 - CHECKER * (0.9 + index)
        return (x, offset) if player == 0 else (x, PLAY_HEIGHT - offset)

    def tray_rect(self, player: int) -> Rect:
        """Borne-off checkers: beside the playing area on the home side; player 0's lower tray."""
        x0 = PLAY_WIDTH + FRAME / 2 if self.home_right else -FRAME / 2 - TRAY_WIDTH
        if player == 0:
            return (x0, PLAY_HEIGHT / 2 + 5, x0 + TRAY_WIDTH, PLAY_HEIGHT)
        return (x0, 0.0, x0 + TRAY_WIDTH, PLAY_HEIGHT / 2 - 5)

    def dice_area(self, player: int) -> Rect:
        """Where `player`'s dice must land: the half on his right, between the rows of points."""
        band = (POINT_LENGTH + 5, PLAY_HEIGHT - POINT_LENGTH - 5)
        right = (HALF_WIDTH + BAR_WIDTH, PLAY_WIDTH)
        left = (0.0, HALF_WIDTH)
        # player 0 sits at the bottom: his right is the board's right; player 1 faces him
        xs = right if player == 0 else left
        return (xs[0] + 10, band[0], xs[1] - 10, band[1])

    def cube_centre(self, place: str, in_tray: bool = False) -> tuple[float, float]:
        """`place`: centre, player0, player1, offered0 (offered by player 0), offered1. The cube waits on the bar
        (centre, or at its owner's end), or `in_tray`, as rule 003 puts it: in the middle of the tray, or in the
        owner's half of it, nearer the middle than the borne-off checkers reach."""
        if in_tray and place in ("centre", "player0", "player1"):
            x0, _, x1, _ = self.tray_rect(0)
            dy = {"centre": 0.0, "player0": TRAY_CUBE, "player1": -TRAY_CUBE}[place]
            return ((x0 + x1) / 2, PLAY_HEIGHT / 2 + dy)
        x = HALF_WIDTH + BAR_WIDTH / 2
        return {
            "centre": (x, PLAY_HEIGHT / 2),
            "player0": (x, PLAY_HEIGHT - CHECKER * 0.7),
            "player1": (x, CHECKER * 0.7),
            "offered0": (self._x(HALF_WIDTH + BAR_WIDTH + HALF_WIDTH / 2), PLAY_HEIGHT / 2),
            "offered1": (self._x(HALF_WIDTH / 2), PLAY_HEIGHT / 2),
        }[place]

    @staticmethod
    def right_half_owner(x: float, y: float) -> int | None:
        """Whose right-hand half of the playing area holds (x, y), mm as seen from player 0's chair: his right is
        the board's right, and player 1 faces him. None on the bar or off the playing area. Dice must land
        in the roller's right-hand half (rules 000 and 003)."""
        if not 0 <= y <= PLAY_HEIGHT:
            return None
        if 0 <= x <= HALF_WIDTH:
            return 1
        if HALF_WIDTH + BAR_WIDTH <= x <= PLAY_WIDTH:
            return 0
        return None

    @staticmethod
    def playing_area() -> tuple[tuple[float, float], ...]:
        """The four corners of the playing area: top-left, top-right, bottom-right, bottom-left."""
        return ((0.0, 0.0), (PLAY_WIDTH, 0.0), (PLAY_WIDTH, PLAY_HEIGHT), (0.0, PLAY_HEIGHT))

    def outline(self) -> Rect:
        """The whole board with its frame and trays."""
        left = -FRAME - (0 if self.home_right else TRAY_WIDTH + FRAME / 2)
        right = PLAY_WIDTH + FRAME + (TRAY_WIDTH + FRAME / 2 if self.home_right else 0)
        return (left, -FRAME, right, PLAY_HEIGHT + FRAME)


__all__ = ["BoardGeometry", "BoardLayout", "STANDARD", "CHECKER", "PLAY_HEIGHT", "PLAY_WIDTH", "POINT_LENGTH", "POINT_WIDTH", "column_along"]
