"""The board's plane as the camera shows it: from four playing-area corners to a small, square-pixel, top-down
image in which every point, bar slot and tray has a fixed place.

Everything here is in *image order*: "top" is the playing area's edge nearer the top of the photo, whoever sits
there. Slots are numbered as `companion read --json` lists them: 0..11 along the top edge from the top-left
corner, 12..23 along the bottom edge from the bottom-left corner. Which player's point a slot is, is the
profile's business (`companion.vision.profile.Orientation`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.rules.layout import (BAR_WIDTH, CHECKER, FRAME, HALF_WIDTH, PLAY_HEIGHT, PLAY_WIDTH, POINT_WIDTH,
                                    TRAY_WIDTH, column_along)

MM_PER_PX = 2.0
"""The rectified plane's resolution: a checker is 21 pixels across, enough to see its rim."""
MARGIN_X = FRAME + TRAY_WIDTH + FRAME / 2 + 8
"""The plane reaches past the playing area on both sides far enough to hold either tray."""
MARGIN_Y = 20.0
SLOT_ALONG = tuple(column_along(k, 5) for k in range(5))
"""Where the five checkers of a column lie, measured from the point's base (the board's edge)."""
BAR_ALONG = tuple(PLAY_HEIGHT / 2 - CHECKER * (0.9 + k) for k in range(5))
"""Checkers on the bar, from the middle outwards (as `BoardLayout.bar_centre` puts them), from the top edge."""

_PX_TO_MM = np.array([[MM_PER_PX, 0, -MARGIN_X], [0, MM_PER_PX, -MARGIN_Y], [0, 0, 1]], np.float64)
"""Plane pixels -> playing-area millimetres."""
_MM_TO_PX = np.linalg.inv(_PX_TO_MM)

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
"""Top-left, top-right, bottom-right, bottom-left of the playing area, in image pixels."""


def slot_x(slot: int) -> float:
    """The centre line of slot 0..23, in mm from the playing area's left edge (image order)."""
    j = slot if slot < 12 else slot - 12
    x = POINT_WIDTH * (j + 0.5)
    return x if j < 6 else x + BAR_WIDTH


def slot_is_top(slot: int) -> bool:
    return slot < 12


BAR_X = HALF_WIDTH + BAR_WIDTH / 2


def parse_corners(text: str | list[str]) -> Corners:
    """`x,y x,y x,y x,y` (or the four pieces as a list) into corners; ValueError with what is wrong."""
    parts = text.split() if isinstance(text, str) else list(text)
    if len(parts) != 4:
        raise ValueError(f"four corners are needed (x,y x,y x,y x,y), not {len(parts)}")
    corners = []
    for part in parts:
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            raise ValueError(f"a corner is x,y in pixels, not {part!r}") from None
        corners.append((x, y))
    quad = np.array(corners, np.float32)
    if abs(cv2.contourArea(quad)) < 100 or not cv2.isContourConvex(quad):
        raise ValueError("the four corners do not make a board: give top-left, top-right, bottom-right, "
                         "bottom-left of the playing area")
    return tuple(corners)  # type: ignore[return-value]


def in_image_order(quad: np.ndarray) -> np.ndarray:
    """Four corners as the picture shows them: clockwise on screen from the top-left one (smallest x + y)."""
    quad = np.asarray(quad, np.float64)
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise on screen (y down), from the left-most angle
    return np.roll(quad, -int(np.argmin(quad.sum(axis=1))), axis=0)


def corner_order_warning(corners: Corners) -> str | None:
    """What is odd about the order of corners a user gave, meant as the picture shows them (`in_image_order`):
    given another way round, the board is read turned or mirrored."""
    given, ordered = np.asarray(corners, np.float64), in_image_order(corners)
    if np.array_equal(given, ordered):
        return None
    if any(np.array_equal(np.roll(given, -k, axis=0), ordered) for k in range(1, 4)):
        return "the first is not the top-left one (as given, the board would read turned round)"
    return "they go round anticlockwise (as given, the board would read mirrored)"


@dataclass(frozen=True)
class Plane:
    """The homography between an image and the rectified plane of one board placement."""

    corners: Corners
    to_image: np.ndarray
    """Plane pixels -> image pixels (3x3)."""

    @classmethod
    def from_corners(cls, corners: Corners) -> Plane:
        mm = np.array([[0, 0], [PLAY_WIDTH, 0], [PLAY_WIDTH, PLAY_HEIGHT], [0, PLAY_HEIGHT]], np.float32)
        image = np.array(corners, np.float32)
        mm_to_image = cv2.getPerspectiveTransform(mm, image)
        return cls(tuple(tuple(map(float, c)) for c in corners), mm_to_image @ _PX_TO_MM)  # type: ignore[arg-type]

    @staticmethod
    def size() -> tuple[int, int]:
        """Width and height of the rectified image, pixels."""
        return (int(round((PLAY_WIDTH + 2 * MARGIN_X) / MM_PER_PX)), int(round((PLAY_HEIGHT + 2 * MARGIN_Y) / MM_PER_PX)))

    @staticmethod
    def px(x_mm: float, y_mm: float) -> tuple[float, float]:
        """Playing-area millimetres to plane pixels."""
        return (x_mm + MARGIN_X) / MM_PER_PX, (y_mm + MARGIN_Y) / MM_PER_PX

    @staticmethod
    def mm(x_px: float, y_px: float) -> tuple[float, float]:
        """Plane pixels to playing-area millimetres (the inverse of `px`)."""
        return x_px * MM_PER_PX - MARGIN_X, y_px * MM_PER_PX - MARGIN_Y

    def mm_to_image(self) -> np.ndarray:
        """Playing-area millimetres -> image pixels (3x3)."""
        return self.to_image @ _MM_TO_PX

    def image_scale(self) -> float:
        """Image pixels per millimetre on this board (the mean over the playing area's edges)."""
        c = np.array(self.corners)
        top, bottom = np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])
        left, right = np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1])
        return float((top + bottom) / (2 * PLAY_WIDTH) + (left + right) / (2 * PLAY_HEIGHT)) / 2

    def rectify(self, image: np.ndarray) -> np.ndarray:
        """The board seen from straight above at `MM_PER_PX`, with its margins."""
        return self.warp(image, (-MARGIN_X, -MARGIN_Y), MM_PER_PX, self.size())

    def warp(self, image: np.ndarray, origin_mm: tuple[float, float], mm_per_px: float,
             size: tuple[int, int]) -> np.ndarray:
        """Part of the board seen from straight above: `size` (width, height) pixels of `mm_per_px` mm each, the
        top-left one at `origin_mm` of the playing area. Where a pixel covers two or more camera pixels across, the
        image is halved first, so each pixel averages the camera pixels under it (warping alone would sample one
        and keep its noise)."""
        x_mm, y_mm = origin_mm
        h = self.mm_to_image() @ np.array([[mm_per_px, 0, x_mm], [0, mm_per_px, y_mm], [0, 0, 1]], np.float64)
        src, shrink = image, self.image_scale() * mm_per_px
        while shrink >= 2.0 and min(src.shape[:2]) > 200:
            src = cv2.pyrDown(src)
            h = np.diag([0.5, 0.5, 1.0]) @ h
            shrink /= 2
        return cv2.warpPerspective(src, h, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)

    def to_image_points(self, points_mm) -> np.ndarray:
        pts = np.array([self.px(x, y) for x, y in points_mm], np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.to_image).reshape(-1, 2)


__all__ = ["BAR_ALONG", "BAR_X", "Corners", "MM_PER_PX", "Plane", "SLOT_ALONG",
           "corner_order_warning", "in_image_order", "parse_corners", "slot_is_top", "slot_x"]
