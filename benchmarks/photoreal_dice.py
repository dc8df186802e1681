"""How well the dice reader reads the dice in path-traced photos of boards (`companion.sim.photoreal`), made by
another process than the flat renderer its board path learnt from.

    python benchmarks/photoreal_dice.py --dir /work/data/photoreal/heldout14 [--json OUT] [--models DIR]

Each frame without a hand (the watcher reads no dice on a busy board) is read as the watcher reads it: dice and
cube on the plane of the playing area's true corners (`DiceReader.read_board`, the trays' side given), then the
roll the referee would get (`roll.dice_reading`, without the checkers' contacts). The photoreal dice lie
flat in the roller's half (training boards from 682 also throw some cocked, `dice_cocked`), so the roll is judged:
- *right*: the values thrown, each die found within one die's width of where it lies (`dice_px`); where a die
  was thrown cocked, the roll called void for it;
- *void*: a die called cocked that lies flat: the referee would have the roll thrown again;
- *unclear*: one die found, or more than two: the watcher waits for a clear look (also counted: frames where the
  reader found more dice than were thrown, *invented*, before the roll's own filter);
- *misread*: two dice, but values or places wrong; or a die thrown cocked, and the roll not called void for it.
The dice are 14-19 mm models, about 8-27 pixels across at 960x540 (most 11-20): smaller than a club's webcam
shows them. (The photo path, `read_photo`, is not judged here: at this size its finest level sees a die at about
the finder's smallest.)
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
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.referee.observations import COCKED  # noqa: E402
from companion.vision.dice import MODELS, DiceReader, DieRead, Found  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.plane import Plane  # noqa: E402
from companion.vision.roll import dice_reading  # noqa: E402

KINDS = ("right", "void", "unclear", "misread")


def image_corners(label: dict) -> tuple:
    """The playing area's corners in the order the reader takes them (as `tools/strip_data.photoreal_label`)."""
    corners = [tuple(p) for p in label["corners"]]
    return tuple(corners[2:] + corners[:2] if label["pose"]["from_player1"] else corners)


def orientation(label: dict) -> Orientation:
    colour = label.get("colours", {}).get("player0_colour") or label.get("player0_colour", "light")
    return Orientation(not label["pose"]["from_player1"], label["pose"]["home_right"], colour)


def placed_right(dice: tuple[DieRead, ...], truth: list[tuple[float, float]]) -> bool:
    """Each true die has a found one of its own within one die's width (the found box's) of its centre."""
    left = list(dice)
    for x, y in truth:
        near = [d for d in left if np.hypot(d.box[0] + d.box[2] / 2 - x, d.box[1] + d.box[3] / 2 - y)
                <= max(d.box[2], d.box[3])]
        if not near:
            return False
        left.remove(near[0])
    return True


def judge(thrown: list[int], truth_px: list, found: Found, orient: Orientation,
          cocked: list[bool] | None = None) -> str:
    """What the roll the referee would get from `found` is, against the dice thrown (see the module's doc).
    `cocked`: which of the thrown dice lean; such a roll is right when the reading calls it void for a die found
    called cocked where a leaning one lies."""
    reading = dice_reading(found, None, orient)
    if reading is None:
        return "unclear"
    leaning = [place for place, lean in zip(truth_px, cocked or ()) if lean]
    if leaning:
        called = tuple(d for d in found.dice if d.cocked)
        right = reading.reason == COCKED and any(placed_right(called, [place]) for place in leaning)
        return "right" if right else "misread"
    if not reading.valid:
        return "void"
    right = sorted(reading.values) == sorted(thrown)
    return "right" if right and placed_right(found.dice, truth_px) else "misread"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--json", type=Path, help="each frame's dice, thrown and found, as a list")
    parser.add_argument("--models", type=Path, default=MODELS, help="the dice models' folder (to compare two)")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.dir.rglob("*.jpg") if p.with_suffix(".json").exists())
    if not files:
        parser.error(f"no labelled frames under {args.dir}")
    reader = DiceReader(args.models)
    rows, times, hands = [], [], 0
    for path in files:
        label = json.loads(path.with_suffix(".json").read_text())
        if label.get("hand"):
            hands += 1
            continue
        image = cv2.imread(str(path))
        if image is None:
            parser.error(f"cannot read {path}")
        orient = orientation(label)
        plane = Plane.from_corners(image_corners(label))
        rectified = plane.rectify(image)
        start = time.perf_counter()
        found = reader.read_board(image, plane, rectified, "right" if orient.tray_on_right() else "left")
        times.append(time.perf_counter() - start)
        thrown = sorted(label["dice"])
        rows.append({"name": path.name, "design": label.get("design", "?"), "thrown": thrown,
                     "found": [d.value for d in found.dice], "cocked": [d.cocked for d in found.dice],
                     "cocked_thrown": any(label.get("dice_cocked", ())),
                     "kind": judge(thrown, label["dice_px"], found, orient, label.get("dice_cocked")),
                     "invented": len(found.dice) > len(thrown)})
    if args.json:
        args.json.write_text(json.dumps(rows))
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row)
        groups["a die thrown cocked" if row["cocked_thrown"] else "flat dice thrown"].append(row)
        groups[f"design {row['design']}"].append(row)
    for name, group in groups.items():
        kinds = Counter(r["kind"] for r in group)
        print(f"{name:28s} rolls {len(group):4d}  " + "  ".join(f"{kind} {kinds[kind]:4d}" for kind in KINDS)
              + f"  (invented {sum(r['invented'] for r in group)})")
    print(f"frames with a hand left out: {hands}")
    if times:
        print(f"board path (finder and readers, the plane given): median {1000 * statistics.median(times):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
