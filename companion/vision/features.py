"""What the checker models look at, cut from the rectified plane: one patch per place a checker can stand, and
one strip per point for counting tall stacks. Shared by the reader and by the training script, so the two
cannot drift apart.

Patches are turned so the board's edge (or, on the bar, the middle) is always up: the models learn one
orientation, not four.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.rules.layout import PLAY_HEIGHT
from companion.vision.plane import BAR_ALONG, BAR_X, MM_PER_PX, SLOT_ALONG, Plane, slot_is_top, slot_x

PATCH = 22
"""Pixels (44 mm): one checker and a little of what is around it."""
STRIP = (22, 112)
"""Width and length of a point's strip, pixels (44 x 224 mm: the point and the checkers on it)."""


def _cut(plane_image: np.ndarray, cx: float, cy: float, w: int, h: int, flip: bool) -> np.ndarray:
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    piece = plane_image[y0:y0 + h, x0:x0 + w]
    return piece[::-1] if flip else piece


@lru_cache(maxsize=1)
def place_centres() -> tuple[tuple[float, float, bool], ...]:
    """Plane-pixel centre of each of the 130 places (24 points x 5 from the edge, then the bar's 2 halves x 5
    from the middle out), and whether its patch is flipped to put the edge (or the bar's middle) up."""
    out = []
    for slot in range(24):
        top = slot_is_top(slot)
        for along in SLOT_ALONG:
            out.append((*Plane.px(slot_x(slot), along if top else PLAY_HEIGHT - along), not top))
    for top in (True, False):
        for along in BAR_ALONG:
            out.append((*Plane.px(BAR_X, along if top else PLAY_HEIGHT - along), top))
    return tuple(out)


def slot_patches(plane_image: np.ndarray) -> np.ndarray:
    """Patches for the 24 points x 5 places, then the bar's 2 halves x 5 places: (130, PATCH, PATCH, 3) uint8."""
    out = np.empty((24 * 5 + 10, PATCH, PATCH, 3), np.uint8)
    for i, (cx, cy, flip) in enumerate(place_centres()):
        out[i] = _cut(plane_image, cx, cy, PATCH, PATCH, flip)
    return out


def point_strips(plane_image: np.ndarray) -> np.ndarray:
    """Each point's strip, base up: (24, STRIP[1], STRIP[0], 3) uint8."""
    w, h = STRIP
    out = np.empty((24, h, w, 3), np.uint8)
    for slot in range(24):
        top = slot_is_top(slot)
        along = h * MM_PER_PX / 2 - 2  # starts 2 mm outside the edge
        cx, cy = Plane.px(slot_x(slot), along if top else PLAY_HEIGHT - along)
        out[slot] = _cut(plane_image, cx, cy, w, h, not top)
    return out


def normalise(pieces: np.ndarray) -> np.ndarray:
    """Per piece: contrast-normalised pixels (lighting drops out), plus the piece's mean colour and contrast
    (a checker's colour still counts). (n, features) float32."""
    x = pieces.reshape(len(pieces), -1, 3).astype(np.float32)
    mean = x.mean(axis=1, keepdims=True)
    std = x.std(axis=(1, 2), keepdims=True)
    shape = ((x - mean) / (std + 6.0)).reshape(len(pieces), -1)
    return np.concatenate([shape, mean.reshape(-1, 3) / 255.0, std.reshape(-1, 1) / 64.0], axis=1)


def slot_features(patches: np.ndarray) -> np.ndarray:
    """Features of the 130 patches `slot_patches` cuts, in its order."""
    if len(patches) != 24 * 5 + 10:
        raise ValueError(f"slot_features takes the 130 patches of one board, not {len(patches)}")
    feats = normalise(patches)
    kind = np.zeros((len(patches), 1), np.float32)
    kind[24 * 5:] = 1.0  # bar places see the bar's wood, not a point
    return np.concatenate([feats, kind], axis=1)


def strip_features(strips: np.ndarray) -> np.ndarray:
    return normalise(strips)


__all__ = ["PATCH", "STRIP", "normalise", "place_centres", "point_strips", "slot_features", "slot_patches",
           "strip_features"]
