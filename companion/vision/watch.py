"""From frames to observations: the board is read once each time it settles (the dice and the cube on the still
frames that follow), never while something moves or a hand is over it. What a camera source runs per frame.

    watcher = BoardWatcher(profile)
    for frame in source.frames():
        for observation in watcher.feed(frame.image, frame.time):   # BoardReading, DiceReading, CubeReading
            referee.observe(observation)

The board comes first: a play is judged with the dice it was made with, before the dice that follow it. Dice and
cube readings are handed on only when they change; a roll (or a void roll) only once two still frames agree on
it (the dice are read again on the still frames after the settle until they do, or the board moves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.referee.observations import BoardReading, CubeReading, DiceReading, Observation
from companion.vision.camera import Camera
from companion.vision.dice import DiceReader, Found
from companion.vision.motion import StillnessGate
from companion.vision.profile import Profile
from companion.vision.reader import BoardReader, ImageReading
from companion.vision.strip_reader import BOARD_LEAST, StripReader
from companion.vision.roll import cube_reading, dice_reading


DICE_LOOKS = 8
"""Still frames after a settle on which the dice are read until two reads agree (at 20 fps, 0.4 s)."""
BUSY_TOO_LONG = 10.0
"""Seconds a still board may look covered before the status says what else it may be: a hand rests on a still board
for a moment; through another board's profile, or after the camera moved, the points read covered for good."""


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
        self._reader: BoardReader | StripReader | None = None
        self._corners = None
        self._camera: Camera | None = None
        """Worked out from the plane on the first look at the dice, kept while the plane is."""
        self._dice: DiceReading | None = None
        self._cube: CubeReading | None = None
        self._reading: ImageReading | None = None
        """The board as it settled, while it stays still."""
        self._settled_image: np.ndarray | None = None
        """The frame `_reading` was read from: what a confirmed position's empty points are learnt from."""
        self._looks = DICE_LOOKS
        self._seen: list[DiceReading] = []
        self._busy_since: float | None = None
        """When the still board began to look covered, while it does."""

    def feed(self, image: np.ndarray, time: float) -> list[Observation]:
        self.status.frames += 1
        motion = self.gate.update(image, time)
        if motion.settled:
            return self._settled(image, time)
        if motion.still_for > 0 and self._looks < DICE_LOOKS and self._reading is not None:
            return self._look_at_dice(image, time)  # still, and the roll not yet confirmed: look again
        if motion.still_for == 0:
            self._looks = DICE_LOOKS  # moving: what was seen while still is old news
        return []

    def _settled(self, image: np.ndarray, time: float) -> list[Observation]:
        corners, self.status.warning = self.profile.locate(image)
        if self._reader is None or corners != self._corners:  # markers moved the board: a new plane
            self._reader, self._corners = self.profile.board_reader(corners), corners
            self._camera = None
        rectified = self._reader.plane.rectify(image)
        reading = self._reader.read(image, time, rectified)
        self.status.last = reading
        if reading.board < BOARD_LEAST and not reading.busy:  # no board, not a covered one: say the likely cause
            self.status.warning = "; ".join(w for w in (self.status.warning, (
                f"no board where the profile looks (board confidence {reading.board:.2f}): has the camera or the "
                "board moved? calibrate again")) if w)
        self._reading = None
        if reading.busy:
            self.status.busy += 1
            self._busy_since = time if self._busy_since is None else self._busy_since
            if time - self._busy_since >= BUSY_TOO_LONG:  # not a hand passing: say what else it may be
                self.status.warning = "; ".join(w for w in (self.status.warning, (
                    f"the board has looked covered for {time - self._busy_since:.0f} s: if nothing lies on it, the "
                    "camera or the board has moved, or the profile is another board's; calibrate again")) if w)
            return []
        self._busy_since = None
        self.status.readings += 1
        self._reading, self._looks, self._seen = reading, 0, []
        self._settled_image = image
        out: list[Observation] = [reading.to_board_reading(self.profile.orientation)]
        return out + self._look_at_dice(image, time, rectified)

    def confirm(self, accepted: BoardReading) -> bool:
        """The referee took the position `accepted` (a play it accepted): what the frame the board last settled
        on shows of it is learnt for the rest of the session (`Profile.confirmed`). True when something was
        learnt."""
        reader, image, reading = self._reader, self._settled_image, self._reading
        if reader is None or reading is None or image is None:
            return False
        learnt = self.profile.confirmed(image, reader, reading, accepted)
        if learnt is None:
            return False
        self.profile = learnt
        self._reader = self.profile.board_reader(reader.corners)
        return True

    def _look_at_dice(self, image: np.ndarray, time: float, rectified: np.ndarray | None = None) -> list[Observation]:
        """One look at the dice and the cube on a still board. A roll, or a void one, is handed on once two looks
        agree (one noisy frame neither makes a roll nor calls a re-roll); an empty board and the cube, which is
        never thrown, on the first."""
        assert self._reader is not None and self._reading is not None
        self._looks += 1
        found = self._dice_reader.read_board(image, self._reader.plane, rectified, self._reader.trays)
        if not self.profile.flat_dice:  # real dice stand on the board: place them where they stand
            if self._camera is None:
                self._camera = Camera.from_plane(self._reader.plane, (image.shape[1], image.shape[0]))
            found = self._camera.stand(found)
        self.status.found = found
        orientation = self.profile.orientation
        out: list[Observation] = []
        cube = cube_reading(found, orientation, time)
        if cube is not None and (self._cube is None or (cube.value, cube.place) != (self._cube.value, self._cube.place)):
            out.append(cube)
            self._cube = cube
        if not self.read_dice:
            self._looks = DICE_LOOKS
            return out
        dice = dice_reading(found, self._reading, orientation, time)
        if dice is None:
            return out
        self._seen.append(dice)
        call = _call(dice)
        if (dice.values or not dice.valid) and [_call(d) for d in self._seen].count(call) < 2:
            return out  # a bare board needs no second look
        self._looks = DICE_LOOKS  # confirmed: no need to look again until the board moves
        if self._dice is None or call != _call(self._dice):
            out.append(dice)
            self._dice = dice
        return out


def _call(dice: DiceReading) -> tuple:
    """What two looks must agree on: a roll's values and halves; for a void roll, only why it is void (its
    values, which ride along for the record, may be misread on one look without changing the call)."""
    return (dice.values, dice.halves) if dice.valid else (False, dice.reason)


__all__ = ["BoardWatcher", "WatchStatus"]
