"""How well the dice reader reads the dice in path-traced photos of boards (`companion.sim.photoreal`), made by
another process than the flat renderer its board path learnt from.

    python benchmarks/photoreal_dice.py --dir /work/data/photoreal/heldout14 [--json OUT]

Each frame's dice are read as the watcher reads them, on the board (`DiceReader.read_board`, on the plane of the
playing area's true corners), and, beside it, as any photo (`read_photo`, no board). A roll is *right* when the
values found are the values thrown, no more and no fewer. Also counted: frames where more dice are found than were
thrown (*invented*: the referee would see a roll nobody threw), and fewer (*missed*). The photoreal dice are Blender
models of 14-19 mm, 12-20 pixels across at 960x540: smaller than a club's webcam shows them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.dice import DiceReader  # noqa: E402
from companion.vision.plane import Plane  # noqa: E402

KINDS = ("right", "invented", "missed", "misread")


def judge(thrown: list[int], found: list[int]) -> str:
    """What a reading of a roll is: right, more dice than thrown (invented), fewer (missed), or as many, misread."""
    thrown, found = sorted(thrown), sorted(found)
    if found == thrown:
        return "right"
    return "invented" if len(found) > len(thrown) else "missed" if len(found) < len(thrown) else "misread"


def image_corners(label: dict) -> tuple:
    """The playing area's corners in the order the reader takes them (as `tools/strip_data.photoreal_label`)."""
    corners = [tuple(p) for p in label["corners"]]
    return tuple(corners[2:] + corners[:2] if label["pose"]["from_player1"] else corners)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--json", type=Path, help="each frame's dice, thrown and found, as a list")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.dir.rglob("*.jpg") if p.with_suffix(".json").exists())
    if not files:
        parser.error(f"no labelled frames under {args.dir}")
    reader = DiceReader()
    rows, times = [], []
    for path in files:
        label = json.loads(path.with_suffix(".json").read_text())
        image = cv2.imread(str(path))
        if image is None or not label.get("dice"):
            continue
        plane = Plane.from_corners(image_corners(label))
        start = time.perf_counter()
        board = reader.read_board(image, plane)
        times.append(time.perf_counter() - start)
        photo = reader.read_photo(image)
        thrown = sorted(label["dice"])
        on_board = sorted(d.value for d in board.dice)
        rows.append({"name": path.name, "design": label.get("design", "?"), "thrown": thrown, "board": on_board,
                     "photo": sorted(d.value for d in photo.dice), "board_kind": judge(thrown, on_board),
                     "photo_kind": judge(thrown, [d.value for d in photo.dice])})
    if args.json:
        args.json.write_text(json.dumps(rows))
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row)
        groups[f"design {row['design']}"].append(row)
    for name, group in groups.items():
        for path_name in ("board", "photo"):
            kinds = Counter(r[f"{path_name}_kind"] for r in group)
            print(f"{name:28s} {path_name:5s} rolls {len(group):4d}  " +
                  "  ".join(f"{kind} {kinds[kind]:4d}" for kind in KINDS))
    if times:
        print(f"board path: median {1000 * statistics.median(times):.1f} ms a frame")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
