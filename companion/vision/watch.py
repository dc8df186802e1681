"""From frames to observations: the board, the dice and the cube are read once each time the board settles, never
while something moves or a hand is over it. What a camera source runs per frame.

    watcher = BoardWatcher(profile)
    for frame in source.frames():
        for observation in watcher.feed(frame.image, frame.time):   # BoardReading, DiceReading, CubeReading
            referee.observe(observation)

The board comes first: a play is judged with the dice it was made with, before the dice that follow it. Dice and
cube readings are handed on only when they change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.referee.observations import CubeReading, DiceReading, Observation
from companion.vision.dice import DiceReader, Found
from companion.vision.motion import StillnessGate
from companion.vision.profile import Profile
from companion.vision.reader import BoardReader, ImageReading
from companion.vision.roll import cube_reading, dice_reading


@dataclass
class WatchStatus:
    frames: int = 0
    readings: int = 0
    busy: int = 0
    last: ImageReading | None = None
    found: Found | None = None
    """The dice and cube of the last reading."""
    warning: str | None = None

    @property
    def confidence(self) -> float:
        """The least sure point of the last reading (what the status panel shows)."""
        if self.last is None:
            return 0.0
        return min(p.confidence for p in self.last.points)


class BoardWatcher:
    def __init__(self, profile: Profile, hold: float = 0.3, *, dice: bool = True) -> None:
        """`dice=False` when a dice cup tells the dice: the camera then reads the board and the cube only."""
        if hold > 0.4:
            raise ValueError("the board is read at most 0.4 s after it settles")
        self.profile = profile
        self.gate = StillnessGate(hold)
        self.status = WatchStatus()
        self.read_dice = dice
        self._dice_reader = DiceReader()
        self._reader: BoardReader | None = None
        self._corners = None
        self._dice: DiceReading | None = None
        self._cube: CubeReading | None = None

    def feed(self, image: np.ndarray, time: float) -> list[Observation]:
        self.status.frames += 1
        if not self.gate.update(image, time).settled:
            return []
        corners, self.status.warning = self.profile.locate(image)
        if self._reader is None or corners != self._corners:  # markers moved the board: a new plane
            self._reader, self._corners = BoardReader(corners, trays=self.profile.trays), corners
        rectified = self._reader.plane.rectify(image)
        reading = self._reader.read(image, time, rectified)
        self.status.last = reading
        if reading.busy:
            self.status.busy += 1
            return []
        self.status.readings += 1
        out: list[Observation] = [reading.to_board_reading(self.profile.orientation)]
        found = self._dice_reader.read_board(image, self._reader.plane, rectified)
        self.status.found = found
        orientation = self.profile.orientation
        dice = dice_reading(found, reading, orientation, time) if self.read_dice else None
        if dice is not None and dice != self._dice:
            out.append(dice)
            self._dice = dice
        cube = cube_reading(found, orientation, time)
        if cube is not None and (self._cube is None or (cube.value, cube.place) != (self._cube.value, self._cube.place)):
            out.append(cube)
            self._cube = cube
        return out


__all__ = ["BoardWatcher", "WatchStatus"]
