"""Stillness: a board reading goes to the referee only once the scene has stopped moving for a while.

Motion is measured on a small blurred grey copy of each frame (sensor noise and JPEG loss average out there),
as the share of pixels that changed since the previous frame. The gate opens once that share has stayed
below the threshold for `hold` seconds, and says so once per still interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SMALL = (160, 90)


@dataclass(frozen=True, slots=True)
class Motion:
    moving: float
    """Share of the (small) frame that changed since the last frame, 0..1."""
    still_for: float
    """Seconds without motion."""
    settled: bool
    """True on the one frame where the scene has just been still for `hold` seconds: read the board now."""


class StillnessGate:
    def __init__(self, hold: float = 0.3, threshold: float = 0.0002, change: int = 10) -> None:
        # a die is small: at 160x90 a rolling one changes only a few pixels, so a few pixels are motion
        if not 0 < hold <= 5:
            raise ValueError(f"hold is a few tenths of a second, not {hold}")
        self.hold, self.threshold, self.change = hold, threshold, change
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._announced = False

    def update(self, image: np.ndarray, time: float) -> Motion:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        small = cv2.GaussianBlur(cv2.resize(grey, SMALL, interpolation=cv2.INTER_AREA), (5, 5), 0)
        if self._previous is None:
            moving = 1.0  # nothing to compare with: not known to be still
        else:
            moving = float(np.count_nonzero(cv2.absdiff(small, self._previous) > self.change)) / small.size
        self._previous = small
        if moving > self.threshold:
            self._still_since, self._announced = None, False
            return Motion(moving, 0.0, False)
        if self._still_since is None:
            self._still_since = time
        still_for = time - self._still_since
        settled = still_for >= self.hold - 1e-6 and not self._announced  # frame times are fractions
        if settled:
            self._announced = True
        return Motion(moving, still_for, settled)


__all__ = ["Motion", "StillnessGate"]
