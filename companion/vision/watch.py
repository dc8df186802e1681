"""From frames to board readings: the board is read once each time it settles, never while something moves or
a hand is over it. What a camera source runs per frame.

    watcher = BoardWatcher(profile)
    for frame in source.frames():
        reading = watcher.feed(frame.image, frame.time)   # a BoardReading, or None
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.referee.observations import BoardReading
from companion.vision.motion import StillnessGate
from companion.vision.profile import Profile
from companion.vision.reader import BoardReader, ImageReading


@dataclass
class WatchStatus:
    frames: int = 0
    readings: int = 0
    busy: int = 0
    last: ImageReading | None = None
    warning: str | None = None

    @property
    def confidence(self) -> float:
        """The least sure point of the last reading (what the status panel shows)."""
        if self.last is None:
            return 0.0
        return min(p.confidence for p in self.last.points)


class BoardWatcher:
    def __init__(self, profile: Profile, hold: float = 0.3) -> None:
        if hold > 0.4:
            raise ValueError("the board is read at most 0.4 s after it settles")
        self.profile = profile
        self.gate = StillnessGate(hold)
        self.status = WatchStatus()
        self._reader: BoardReader | None = None
        self._corners = None

    def feed(self, image: np.ndarray, time: float) -> BoardReading | None:
        self.status.frames += 1
        if not self.gate.update(image, time).settled:
            return None
        corners, self.status.warning = self.profile.locate(image)
        if self._reader is None or corners != self._corners:  # markers moved the board: a new plane
            self._reader, self._corners = BoardReader(corners, trays=self.profile.trays), corners
        reading = self._reader.read(image, time)
        self.status.last = reading
        if reading.busy:
            self.status.busy += 1
            return None
        self.status.readings += 1
        return reading.to_board_reading(self.profile.orientation)


__all__ = ["BoardWatcher", "WatchStatus"]
