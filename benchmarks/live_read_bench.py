"""How fast a board is read on the live path, beside another checkout's code in the same run.

    python benchmarks/live_read_bench.py [--dir DIR ...] [--size 1280x720] [--repeat 3]
        [--against OTHER_CHECKOUT [--rounds 2]]

The issue's budget is a median board read of at most 15 ms per 1280x720 frame on one core. This measures it as the
watcher meets it (`BoardWatcher`): each board is calibrated once on its first frame (its true position), a reader
is made at the profile's corners (a mounted camera) and kept, and each of the board's frames is read by it. Path-
traced frames (`companion.sim.photoreal`; default the committed sample, which has one frame a board) are resized
to `--size` first. Also timed, the one-off read of `companion read IMG --corners` without a profile: the bar
measured on the photo (`fit_bar`), a reader made, the frame read.

Everything runs on one thread (OpenCV's and ONNX Runtime's). With `--against`, the same measurement runs in
subprocesses on the other checkout's code (this script, that checkout's `companion`, `benchmarks` and `tools`: it
needs `calibrate(..., position=)`, `photoreal_bench.true_board` and `strip_data.photoreal_label`, as from session
39), the two taking turns to go first over `--rounds`, and the medians are printed side by side with their ratio
(with a warning where the two calibrated different boards, and so timed different frames).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
SAMPLE = REPOSITORY / "docs" / "photoreal-sample"


def measure(dirs: list[Path], size: tuple[int, int], repeat: int) -> dict:
    """Medians (ms) of the live read and its stages, and of the one-off read, over every frame `repeat` times."""
    import cv2
    import numpy as np

    from benchmarks.photoreal_bench import true_board
    from companion.vision.calibrate import CalibrationError, calibrate
    from companion.vision.geometry import fit_bar
    from companion.vision.strip_reader import StripReader
    from tools.strip_data import photoreal_label

    cv2.setNumThreads(1)
    width, height = size
    boards: dict[str, list] = {}
    for folder in dirs:
        for path in sorted(p for p in folder.rglob("*.jpg") if p.with_suffix(".json").exists()):
            label = json.loads(path.with_suffix(".json").read_text())
            image = cv2.imread(str(path))
            sx, sy = width / image.shape[1], height / image.shape[0]
            corners = tuple((x * sx, y * sy) for x, y in photoreal_label(label)[0])
            boards.setdefault(label["board_id"], []).append(
                (cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR),
                 corners, label))
    live, stages, one_off, refused = [], [], [], []
    for frames in boards.values():
        image, corners, label = frames[0]
        orient = photoreal_label(label)[2]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                profile = calibrate(image, corners=corners, markers=False, player0=orient.player0_colour,
                                    position=true_board(label)).profile
        except CalibrationError:
            refused.append(label["board_id"])
            continue
        reader = profile.board_reader(profile.corners)
        reader.read(image)  # models loaded, caches made
        for _ in range(repeat):
            for image, corners, _ in frames:
                start = cv2.getTickCount()
                reading = reader.read(image)
                live.append((cv2.getTickCount() - start) / cv2.getTickFrequency() * 1000)
                stages.append(reading.timings)
                start = cv2.getTickCount()
                StripReader(corners, fit_bar(image, corners)).read(image)
                one_off.append((cv2.getTickCount() - start) / cv2.getTickFrequency() * 1000)
    if not live:
        raise SystemExit("no board calibrated: nothing to time")
    return {"frames": len(live) // repeat, "boards refused": len(refused), "_refused": sorted(refused),
            "live read": statistics.median(live), "live p95": sorted(live)[int(0.95 * (len(live) - 1))],
            **{f"  {name}": statistics.median(t.get(name, 0.0) for t in stages) for name in stages[0]},
            "one-off read": statistics.median(one_off)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, action="append", help="photoreal frames (default: the committed sample)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, timed in turn with this one")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--code", type=Path, default=REPOSITORY, help=argparse.SUPPRESS)  # a worker's checkout
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    dirs = args.dir or [SAMPLE]
    size = tuple(int(v) for v in args.size.lower().split("x"))
    if args.worker:
        sys.path.insert(0, str(args.code.resolve()))
        print(json.dumps(measure(dirs, size, args.repeat)))  # type: ignore[arg-type]
        return 0
    checkouts = {"this checkout": REPOSITORY}
    if args.against:
        checkouts[str(args.against)] = args.against
    results: dict[str, list[dict]] = {name: [] for name in checkouts}
    for round_ in range(args.rounds if args.against else 1):
        order = list(checkouts.items())
        for name, code in order[::-1] if round_ % 2 else order:  # each side goes first in turn
            command = [sys.executable, __file__, "--worker", "--code", str(code), "--size", args.size,
                       "--repeat", str(args.repeat), *(f"--dir={d}" for d in dirs)]
            env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(code.resolve())}
            done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
            if done.returncode:
                raise SystemExit(f"{name}: {done.stderr.strip() or done.stdout.strip()}")
            results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    first = next(iter(results.values()))[0]
    refusals = {name: {tuple(run["_refused"]) for run in runs} for name, runs in results.items()}
    if len(set().union(*refusals.values())) > 1:  # each side calibrates with its own code: one may refuse a board
        print(f"warning: the sides refused different boards ({refusals}), so timed different frames: the ratio "
              "compares unlike sets", file=sys.stderr)
    print(f"live board read, {first['frames']} frames at {args.size} from {', '.join(map(str, dirs))}, one thread; "
          f"medians in ms over {args.rounds if args.against else 1} run(s) each [budget: 15 ms]")
    print(f"{'':24s}" + "".join(f"{name[-28:]:>30s}" for name in results) + ("       ratio" if args.against else ""))
    for key in (key for key in first if not key.startswith("_")):
        if isinstance(first[key], int):  # counts, not times: each run's
            runs_of = ("/".join(str(run[key]) for run in runs) for runs in results.values())
            print(f"{key:24s}" + "".join(f"{cell:>30s}" for cell in runs_of))
            continue
        values = [statistics.median(run[key] for run in runs) for runs in results.values()]
        cells = "".join(f"{v:>30.2f}" for v in values)
        ratio = f"{values[0] / values[1]:>12.2f}" if args.against and values[1] else ""
        print(f"{key:24s}{cells}{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
