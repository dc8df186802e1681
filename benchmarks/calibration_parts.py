"""What each part of a calibrated profile is worth on path-traced boards: the same frames read uncalibrated, with
the whole profile, and with one part of it dropped at a time.

    python benchmarks/calibration_parts.py --root data/photoreal heldout13 heldout-mosaic10 [...]

Each board is calibrated on its frame 0 (the starting position, corners given, moved by up to `--jitter` pixels);
its later frames are read by every variant at the same jittered corners, calibrated and drawn by
`photoreal_bench.py --calibrate`'s own functions (so "whole profile" is its figure). Boards whose start does not
calibrate are left out, so every variant reads the same frames. Figures: points right and frames fully right, per
set and in all (`photoreal_bench.judge`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))
sys.path.insert(0, str(REPOSITORY / "benchmarks"))

from photoreal_bench import FRAMES_SEED, STARTS_SEED, judge, jittered_frames, start_profiles  # noqa: E402

from companion.vision.geometry import fit_bar  # noqa: E402
from companion.vision.strip_reader import StripReader  # noqa: E402


def variants(profile, corners, image):
    """(name, reader) for each way of reading this frame: the profile's parts dropped one at a time, each reader
    built by the profile itself (`Profile.board_reader`), so that every part not dropped is kept."""
    bar_fit = fit_bar(image, corners)
    yield "uncalibrated", StripReader(corners, bar_fit)
    yield "whole profile", profile.board_reader(corners)
    yield "profile's colours alone", profile.board_reader(corners, frame_colours=False)
    yield "without its colours", replace(profile, colours={}).board_reader(corners)
    yield "without empty looks", replace(profile, empty_looks=None).board_reader(corners)
    yield "without patterned", replace(profile, patterned=False).board_reader(corners)
    yield "frame's bar fit for geometry", replace(profile, geometry=bar_fit).board_reader(corners)
    yield "measured geometry alone", replace(profile, colours={}, empty_looks=None, patterned=False,
                                             head=None).board_reader(corners)
    refit = fit_bar(image, corners, base=profile.geometry)  # the profile's checkers and points, this frame's bar
    yield "profile, bar fitted per frame", replace(profile, geometry=refit).board_reader(corners)


def _line(name: str, variant: str, row: list[int]) -> str:
    return (f"{name:18} {variant:30} points right {100 * row[0] / max(row[1], 1):6.2f} % of {row[1]:5}  "
            f"fully right {row[2]:3} of {row[3]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="set folders under --root")
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--jitter", type=float, default=2.0)
    args = parser.parse_args()
    total: dict[str, list[int]] = {}
    for name in args.sets:
        rng = np.random.default_rng(FRAMES_SEED)  # per set, as photoreal_bench.py is run once a set
        files = sorted(p for p in (args.root / name).rglob("*.jpg") if p.with_suffix(".json").exists())
        labels = {f: json.loads(f.with_suffix(".json").read_text()) for f in files}
        # the bench's own calibration and corner draws, so that "whole profile" is its figure
        profiles = start_profiles(files, labels, np.random.default_rng(STARTS_SEED), args.jitter)
        per: dict[str, list[int]] = {}
        for path, label, _, orient, corners in jittered_frames(files, labels, rng, args.jitter, True):
            profile = profiles.get(label["board_id"])
            if profile is None:
                continue
            image = cv2.imread(str(path))
            for variant, reader in variants(profile, corners, image):
                result = judge(reader.read(image), orient, label)
                row = per.setdefault(variant, [0, 0, 0, 0])
                row[0] += result["points_right"]
                row[1] += result["points_seen"]
                row[2] += result["full"]
                row[3] += 1
        for variant, row in per.items():
            print(_line(name, variant, row), flush=True)
            t = total.setdefault(variant, [0, 0, 0, 0])
            for k in range(4):
                t[k] += row[k]
    print()
    for variant, row in total.items():
        print(_line("all", variant, row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
