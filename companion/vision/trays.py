"""Borne-off checkers on a board measured from the image: each tray half cut beside the playing area, sized by the
board's own geometry, and read by the tray network (how many checkers, and which of the two sets).

A tray half is cut as a strip is (`companion.vision.strips`), in point widths rather than millimetres: from the
board's middle outwards (`ALONG` point widths), and from the playing area's side edge outwards (`ACROSS`), which
holds the frame and a tray of any build this project has met (a frame of 18-55 mm and a tray of 45-70 mm beside
points 33-49 mm wide), or the table beside a board without trays, where players put the checkers they bear off.
The network sees the cut beside the two sets' colours, as the strip colour network does: which set a pile
belongs to is a question about this board.
"""

from __future__ import annotations

import numpy as np

from companion.rules.layout import BoardGeometry
from companion.vision.strips import StripCutter, finer_frames

TRAY_W, TRAY_H = 48, 84
"""Pixels across (outwards from the playing area) and along (from the board's middle outwards) a tray half."""
PX_PER_POINT = 12.0
ACROSS = TRAY_W / PX_PER_POINT
"""Point widths across a tray half, from the playing area's side edge: 4."""
BEFORE = 0.8
"""Point widths before the board's middle, where each half starts: a pile's top leans over the middle on a tilted
camera (a 35 mm pile at 30 degrees, half a point width), so the cut starts past it; the network learns that what
lies before the middle is the other half's."""
ALONG = TRAY_H / PX_PER_POINT
HALVES = (("left", True), ("left", False), ("right", True), ("right", False))
"""The order of the cut halves: (side of the image, top half)."""
COUNTS = 16
"""The network's count classes, 0..15."""


def tray_frames(geometry: BoardGeometry) -> np.ndarray:
    """Each tray half's place in the playing area's millimetres, as `strip_frames` gives a strip's: (4, 3, 2) rows
    origin, across and along, in `HALVES` order."""
    g = geometry
    mm = g.point_width / PX_PER_POINT
    out = np.empty((len(HALVES), 3, 2), np.float64)
    for k, (side, top) in enumerate(HALVES):
        across = np.array([mm if side == "right" else -mm, 0.0])
        along = np.array([0.0, -mm if top else mm])
        edge = np.array([g.play_width if side == "right" else 0.0, g.play_height / 2])
        out[k] = (edge - along * BEFORE * PX_PER_POINT, across, along)
    return out


def jittered_tray_frames(geometry: BoardGeometry, rng: np.random.Generator) -> np.ndarray:
    """`tray_frames(geometry)` each scaled and moved at random, as a board measured a little wrong cuts them."""
    frames = tray_frames(geometry)
    n = len(frames)
    scale = rng.uniform(0.9, 1.15, (n, 1))
    unit_x = frames[:, 1] / np.linalg.norm(frames[:, 1], axis=1, keepdims=True)
    unit_y = frames[:, 2] / np.linalg.norm(frames[:, 2], axis=1, keepdims=True)
    pw = geometry.point_width
    out = frames.copy()
    out[:, 1] *= scale
    out[:, 2] *= scale * rng.uniform(0.95, 1.05, (n, 1))
    out[:, 0] += unit_x * rng.uniform(-0.25, 0.25, (n, 1)) * pw + unit_y * rng.uniform(-0.15, 0.15, (n, 1)) * pw
    return out


def tray_cutter(corners, geometry: BoardGeometry, frames: np.ndarray | None = None, scale: int = 1) -> StripCutter:
    """Cuts the four tray halves (`HALVES` order) with one remap, as the strips are cut; at `scale` times the
    pixels each way for a network that reads them so."""
    frames = tray_frames(geometry) if frames is None else frames
    return StripCutter(corners, geometry, finer_frames(frames, scale), (scale * TRAY_H, scale * TRAY_W))


__all__ = ["ACROSS", "ALONG", "BEFORE", "COUNTS", "HALVES", "TRAY_H", "TRAY_W", "jittered_tray_frames",
           "tray_cutter", "tray_frames"]
