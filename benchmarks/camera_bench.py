"""How near to where they stand dice are placed, from corners that are a little off.

    python benchmarks/camera_bench.py [--noise 1.0] [--trials 300] [--seed 1]

The renderer paints dice flat, so this runs on `companion.sim.pinhole` cameras instead: 600 mm over the board's
middle, 0 to 40 degrees off overhead (the calibration guide's range), focal length 900 px on 1280x720. Each trial
moves the four corners by Gaussian noise (`--noise` px) as a calibration or the markers would, works the camera out
from them (`Camera.from_plane`) and places four dice, whose finder marks are `MARK_HEIGHT` of a die up, at the
board's corners and middle. Printed side by side, in mm from where the dice stand: the places as seen (no
correction), corrected with the camera worked out, and corrected with the true camera (what the corners' noise
alone costs); and how often the corners told the focal length.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.sim.pinhole import Pinhole, seen_at  # noqa: E402
from companion.vision.camera import DIE_SIZE, MARK_HEIGHT, Camera  # noqa: E402
from companion.vision.plane import Plane  # noqa: E402

DICE = ((60.0, 40.0), (520.0, 400.0), (300.0, 220.0), (500.0, 60.0))
TILTS = (0, 5, 10, 15, 20, 30, 40)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--noise", type=float, default=1.0, help="corner noise, px (standard deviation)")
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    height = MARK_HEIGHT * DIE_SIZE
    print(f"Dice placed from corners off by {args.noise} px, {args.trials} trials x {len(DICE)} dice per tilt, mm from "
          "where they stand: median / p95 / max")
    print(f"{'tilt':>5} {'focal told':>11} {'as seen':>20} {'corrected':>20} {'true camera':>20}")
    for tilt in TILTS:
        pinhole = Pinhole(tilt, 3.0, 600.0, 900.0)
        true = Camera((float(pinhole.centre[0]), float(pinhole.centre[1]), float(-pinhole.centre[2])), 900.0, True,
                      float(tilt))
        seen, corrected, ideal, told = [], [], [], 0
        for _ in range(args.trials):
            corners = tuple((x + rng.normal(0, args.noise), y + rng.normal(0, args.noise))
                            for x, y in pinhole.corners())
            plane = Plane.from_corners(corners)  # type: ignore[arg-type]
            camera = Camera.from_plane(plane, pinhole.size)
            told += camera.focal_known
            for where in DICE:
                at = seen_at(plane, pinhole.project((where[0], where[1], -height)))
                seen.append(math.dist(at, where))
                corrected.append(math.dist(camera.standing(at, height), where))
                ideal.append(math.dist(true.standing(at, height), where))

        def cell(errors: list[float]) -> str:
            return f"{np.median(errors):5.2f} /{np.percentile(errors, 95):5.2f} /{max(errors):5.2f}"

        print(f"{tilt:>4}° {told:>5}/{args.trials:<5} {cell(seen):>20} {cell(corrected):>20} {cell(ideal):>20}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
