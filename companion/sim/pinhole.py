"""A pinhole camera over the playing area, with points above the board as well as on it: what the renderer, which
paints everything flat, cannot show, to check `companion.vision.camera` against (its tests and
`benchmarks/camera_bench.py`).

Board millimetres are the playing area's, image order: x right, y down, and up is -z.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.rules.layout import PLAY_HEIGHT, PLAY_WIDTH
from companion.vision.plane import Plane


@dataclass(frozen=True)
class Pinhole:
    """A camera `height` mm over the board's middle, moved back and tilted `tilt` degrees from overhead towards it,
    the picture turned `turn` degrees; square pixels, the principal point at the picture's centre."""

    tilt: float
    turn: float
    height: float
    focal: float
    size: tuple[int, int] = (1280, 720)

    @property
    def centre(self) -> np.ndarray:
        """Where the camera is: board mm and -height."""
        return np.array([PLAY_WIDTH / 2, PLAY_HEIGHT / 2 + self.height * math.tan(math.radians(self.tilt)),
                         -self.height])

    def project(self, point) -> np.ndarray:
        """Image pixels of a point (x, y, z) in board mm."""
        width, image_height = self.size
        k = np.array([[self.focal, 0, width / 2], [0, self.focal, image_height / 2], [0, 0, 1.0]])
        t, a = math.radians(self.tilt), math.radians(self.turn)
        # looking straight down: camera x = board x, camera y = board y, camera z (forward) = board z (down)
        tilt_about_x = np.array([[1, 0, 0], [0, math.cos(t), math.sin(t)], [0, -math.sin(t), math.cos(t)]])
        turn_about_z = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        p = k @ ((turn_about_z @ tilt_about_x) @ (np.asarray(point, float) - self.centre))
        return p[:2] / p[2]

    def corners(self) -> tuple[tuple[float, float], ...]:
        """The playing area's corners in the picture: top-left, top-right, bottom-right, bottom-left."""
        return tuple(tuple(float(v) for v in self.project((x, y, 0.0)))  # type: ignore[misc]
                     for x, y in ((0, 0), (PLAY_WIDTH, 0), (PLAY_WIDTH, PLAY_HEIGHT), (0, PLAY_HEIGHT)))

    def plane(self) -> Plane:
        return Plane.from_corners(self.corners())  # type: ignore[arg-type]


def seen_at(plane: Plane, image_point) -> tuple[float, float]:
    """The point of the board's surface (mm) that `plane` says the picture shows at `image_point`."""
    p = np.linalg.inv(plane.mm_to_image()) @ np.array([image_point[0], image_point[1], 1.0])
    return float(p[0] / p[2]), float(p[1] / p[2])


__all__ = ["Pinhole", "seen_at"]
