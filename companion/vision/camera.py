"""Where the camera is, worked out from the board's homography, and where a die or the cube stands.

Everything else in the pipeline lives on the board's surface; a die does not. It stands 19 mm tall, and the point
the finder marks on it (taken as 14 mm up, `MARK_HEIGHT`) is seen on the rectified plane away from the camera: by
the mark's height times its distance from the point under the camera, over the camera's height less the mark's.
From 600 mm up and 40 degrees off overhead (the most `calibration/README.md` allows) that is 7 mm on the near side
of the board and 17 mm on the far side; a die counts as resting on a checker by a margin of 5.7 mm.

The camera's pose follows from the board-to-image homography once the focal length is known (Zhang, "A flexible new
technique for camera calibration", 2000, section 2.3): with square pixels and the principal point at the image's
centre, the homography of a tilted board fixes the focal length too. Seen straight down it does not (a nearer camera
with a wider lens makes the same picture), and `DEFAULT_FOCAL` stands in.

The simulator paints its dice flat on the board, so its frames are read as they are (`Profile.flat_dice`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.vision.dice import Found
from companion.vision.plane import Plane

DEFAULT_FOCAL = 0.8
"""A webcam's focal length in image widths (a 64-degree horizontal field), where the picture cannot tell it."""
FOCAL_RANGE = (0.3, 3.0)
"""Focal lengths (image widths) believed from a homography: outside, the board is too near square-on to tell."""
LEAST_TILT = 10.0
"""Degrees off overhead under which the focal length the homography gives is not believed: there a pixel of error
in the corners moves it far. `benchmarks/camera_bench.py`, 1 px of corner noise, 5 degrees off: dice put back up to
9.0 mm off with the corners' focal length (before this guard), 2.7 mm with `DEFAULT_FOCAL`; from 15 degrees on the
corners' focal length places dice as well as the true camera does (median 0.72 against 0.70 mm at 15 degrees)."""
DIE_SIZE = 19.0
CUBE_SIZE = 26.0
"""The layout's die and the common cube (mm): both stand on the board."""
MARK_HEIGHT = 0.75
"""The height of the point the finder marks on a die or the cube, as a fraction of its size: between its top face
(all the finder sees from overhead) and its middle (what a side view shows of it)."""


@dataclass(frozen=True, slots=True)
class Camera:
    """The camera over one board placement."""

    centre: tuple[float, float, float]
    """The camera's x and y over the playing area (mm, image order, as `Plane.mm`) and its height above the
    board's surface (mm)."""
    focal: float
    """Pixels."""
    focal_known: bool
    """Whether the homography told the focal length (False: `DEFAULT_FOCAL`)."""
    tilt: float = 0.0
    """Degrees between the camera's axis and the board's normal."""

    @classmethod
    def from_plane(cls, plane: Plane, image_size: tuple[int, int]) -> Camera:
        """The camera that sees the board as `plane` says; `image_size` is (width, height) in pixels."""
        width, height = image_size
        to_centre = np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]])
        g = to_centre @ plane.mm_to_image()
        focal = _focal(g)
        if focal is not None and FOCAL_RANGE[0] * width <= focal <= FOCAL_RANGE[1] * width:
            camera = cls._posed(g, focal, True)
            if camera.tilt >= LEAST_TILT:
                return camera
        return cls._posed(g, DEFAULT_FOCAL * width, False)

    @classmethod
    def _posed(cls, g: np.ndarray, focal: float, known: bool) -> Camera:
        """The camera of the centred homography `g`, given its focal length: the board's axes and the camera's
        offset, seen through it, scaled to unit axes."""
        b = np.diag([1 / focal, 1 / focal, 1.0]) @ g
        scale = 2.0 / (np.linalg.norm(b[:, 0]) + np.linalg.norm(b[:, 1]))
        r1, r2, t = b[:, 0] * scale, b[:, 1] * scale, b[:, 2] * scale
        if t[2] < 0:  # the board lies in front of the camera
            r1, r2, t = -r1, -r2, -t
        rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
        x, y, z = -rotation.T @ t
        tilt = float(np.degrees(np.arccos(min(1.0, abs(rotation[2, 2])))))
        return cls((float(x), float(y), float(abs(z))), float(focal), known, tilt)

    def standing(self, at: tuple[float, float], height: float) -> tuple[float, float]:
        """Where a point the camera sees `height` mm above the board stands, given the place on the board's surface
        it appears at (`at`, mm): along the ray from the camera, `height` short of the surface."""
        cx, cy, cz = self.centre
        keep = 1.0 - height / cz if cz > height else 0.0
        return cx + (at[0] - cx) * keep, cy + (at[1] - cy) * keep

    def stand(self, found: Found) -> Found:
        """`found` with each die and the cube placed where it stands on the board."""
        dice = tuple(d if d.at is None else replace(d, at=self.standing(d.at, MARK_HEIGHT * DIE_SIZE))
                     for d in found.dice)
        cube = found.cube
        if cube is not None and cube.at is not None:
            cube = replace(cube, at=self.standing(cube.at, MARK_HEIGHT * CUBE_SIZE))
        return Found(dice, cube)


def _focal(g: np.ndarray) -> float | None:
    """The focal length (pixels) that makes the homography's first two columns, seen through the camera, two
    orthogonal vectors of one length (the board's axes); least squares over the two conditions, in 1/f^2. None
    when they do not fix it."""
    (ax, bx, _), (ay, by, _), (az, bz, _) = g
    rows = np.array([ax * bx + ay * by, ax * ax + ay * ay - bx * bx - by * by])
    rest = np.array([az * bz, az * az - bz * bz])
    norm = float(rows @ rows)
    if norm == 0.0:
        return None
    inverse_square = -float(rows @ rest) / norm
    return float(inverse_square ** -0.5) if inverse_square > 0 else None


__all__ = ["CUBE_SIZE", "Camera", "DEFAULT_FOCAL", "DIE_SIZE", "MARK_HEIGHT"]
