"""Sum `photoreal_bench.py --json` results over several sets, and say what the misses are.

    python benchmarks/photoreal_summary.py RESULT.json... [--calibrated-in CALIBRATED.json...] [--by-set]

Each RESULT.json is one set's frames as `photoreal_bench.py --json` writes them. Printed: points right, frames fully
right, the referee's calls, frames called busy with and without a hand, and the wrong places by kind (a colour
alone; a count, under six or six and more, with or without the colour; a covered point read empty; an empty one
read covered; a bar half). Calibrated against uncalibrated on the same frames: `--calibrated-in CALIBRATED.json...`
keeps only the frames those `--calibrate` results read through a profile (a calibrated run leaves out each board's
frame 0, and reads a board it could not calibrate without one).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from photoreal_bench import REFEREE_CALLS


def miss_kind(wrong: list) -> str:
    """What kind of miss one of `photoreal_bench.judge`'s wrong places is."""
    place, truth, read = wrong
    if isinstance(place, str):
        return "bar"
    (true_colour, true_count), (colour, count) = truth, read[:2]
    if true_count == count:
        return "colour"
    if true_count == 0:
        return "empty read covered"
    if count == 0:
        return "covered read empty"
    kind = "count >= 6" if true_count >= 6 else "count < 6"
    return kind + (" and colour" if colour != true_colour else "")


def summary(frames: list[dict]) -> dict:
    right = sum(f["points_right"] for f in frames)
    seen = sum(f.get("points_seen", 24) for f in frames)
    hands = [f for f in frames if f["hand"]]
    clear = [f for f in frames if not f["hand"]]
    return {"frames": len(frames), "points_right": right, "points_seen": seen,
            "points": 100.0 * right / max(seen, 1), "full": sum(f["full"] for f in frames),
            "referee": Counter(f["referee"] for f in frames if f.get("referee")),
            "busy_clear": (sum(f["busy"] for f in clear), len(clear)),
            "busy_hand": (sum(f["busy"] for f in hands), len(hands)),
            "misses": Counter(miss_kind(w) for f in frames for w in f["wrong"])}


def line(name: str, s: dict) -> str:
    referee = ", ".join(f"{kind} {s['referee'][kind]}" for kind in REFEREE_CALLS)
    misses = ", ".join(f"{kind} {n}" for kind, n in s["misses"].most_common())
    return (f"{name}: points right {s['points']:.2f} % ({s['points_right']}/{s['points_seen']}), fully right "
            f"{s['full']}/{s['frames']}; busy {s['busy_clear'][0]}/{s['busy_clear'][1]} clear, {s['busy_hand'][0]}/"
            f"{s['busy_hand'][1]} with a hand; referee: {referee}\n  misses {sum(s['misses'].values())}: {misses}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--calibrated-in", nargs="+", type=Path, default=[],
                        help="judge only the frames these --calibrate results read through a profile")
    parser.add_argument("--by-set", action="store_true")
    args = parser.parse_args(argv)
    sets: dict[str, list[dict]] = {}
    for path in args.results:
        try:
            sets[str(path)] = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            parser.error(f"cannot read {path}: {exc}")
    if args.calibrated_in:
        keep = {f["name"] for path in args.calibrated_in for f in json.loads(path.read_text()) if f["calibrated"]}
        sets = {name: [f for f in frames if f["name"] in keep] for name, frames in sets.items()}
    if args.by_set:
        for name, frames in sets.items():
            print(line(name, summary(frames)))
    print(line("all", summary([f for frames in sets.values() for f in frames])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
