"""Calibration: one frame of the board set up for a game becomes a `Profile`.

The playing area is found by the markers (with the corners given once, or found), by corners given by hand, or
from the board alone. The checkers of the starting position then say everything else: which set is lighter,
which side each player sits on, and where each home board is. The profile is checked by reading the starting
position back through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from companion.errors import CompanionError
from companion.referee.observations import BoardReading
from companion.rules import Position
from companion.vision.markers import IDS, MarkerFrame, find_markers
from companion.vision.orientation import COLOURS, Orientation
from companion.vision.plane import Corners, Plane
from companion.vision.profile import Profile
from companion.vision.reader import BoardReader, ImageReading, tray_side


class CalibrationError(CompanionError):
    """The frame does not show a board in its starting position where it was looked for."""


@dataclass(frozen=True)
class Calibration:
    profile: Profile
    reading: ImageReading
    how: str
    """How the playing area was found, in words."""


def start_orientations(reading: ImageReading) -> list[Orientation]:
    """Every orientation under which `reading` is the starting position (none, or two mirror images: the start
    looks the same with the players and their colours swapped)."""
    start = BoardReading.from_position(Position.start(), 0, trays=False)
    found = []
    for bottom, home_right, colour in product((True, False), (True, False), COLOURS):
        orientation = Orientation(bottom, home_right, colour)
        board = reading.to_board_reading(orientation)
        if all(a.owner == b.owner and a.count == b.count for a, b in zip(board.points, start.points)):
            found.append(orientation)
    return found


def calibrate(image: np.ndarray, *, corners: Corners | None = None, player0: str | None = None,
              markers: bool | None = None) -> Calibration:
    """`player0`: 'light' or 'dark' when known; otherwise player 0 is whoever sits at the bottom of the picture.
    `markers`: None uses them when all four are in the frame."""
    found = find_markers(image)
    use_markers = len(found) == len(IDS) if markers is None else markers
    if markers and len(found) < len(IDS):
        raise CalibrationError(f"only {len(found)} of the 4 corner markers are in the frame")
    if corners is not None:
        how = "corners given"
    else:
        from companion.vision.locate import playing_area

        corners = playing_area(image)
        how = "found from the board"
    localisation = "markers" if use_markers else "corners"
    marker_corners = MarkerFrame.learn(image, corners).corners if use_markers else None
    if use_markers:
        how += ", followed by the markers"
    side = tray_side(image, Plane.from_corners(corners))
    reading = BoardReader(corners, trays=side).read(image)
    if reading.busy:
        raise CalibrationError(f"{reading.busy}: calibrate with nothing over the board")
    choices = start_orientations(reading)
    if not choices:
        raise CalibrationError("the board is not in its starting position as read "
                               f"({_describe(reading)}): set it up for a game, light it evenly and try again")
    if player0 is not None:
        choices = [o for o in choices if o.player0_colour == player0]
    else:
        choices = [o for o in choices if o.player0_at_bottom] or choices
    orientation = choices[0]
    h, w = image.shape[:2]
    profile = Profile(corners, orientation, localisation, marker_corners, (w, h), side,
                      dict(reading.colours))
    check = verify(profile, image)
    if check:
        raise CalibrationError(f"the profile does not read the starting position back: {check}")
    return Calibration(profile, reading, how)


def verify(profile: Profile, image: np.ndarray) -> str | None:
    """None when `profile` reads the starting position from `image`; else what differs."""
    corners, _ = profile.locate(image)
    reading = BoardReader(corners, trays=profile.trays).read(image)
    board = reading.to_board_reading(profile.orientation)
    start = BoardReading.from_position(Position.start(), 0, trays=False)
    wrong = [f"point {i + 1}" for i, (a, b) in enumerate(zip(board.points, start.points))
             if a.owner != b.owner or a.count != b.count]
    return ", ".join(wrong) if wrong else None


def _describe(reading: ImageReading) -> str:
    occupied = [f"{p.count} {p.colour}" for p in reading.points if p.count]
    return f"{len(occupied)} points hold checkers: " + ", ".join(occupied[:8]) + ("..." if len(occupied) > 8 else "")


__all__ = ["Calibration", "CalibrationError", "calibrate", "start_orientations", "verify"]
