"""How well and how fast the board reader reads frames it was never tuned on.

    python benchmarks/vision_bench.py [--set heldout|dev|dev-hard] [--frames 600] [--jitter 2] [--models DIR]

Frames come from the renderer's held-out set (seeds from 1 000 000; the models were trained on development
seeds 500 000 .. 999 999). The reader is given the playing area's corners as a calibrated profile would
give them, moved by up to `--jitter` pixels (a calibration is never perfect). Points, a player's bar checkers
and trays under a hand are left out ("where the evidence is visible"); frames the reader itself calls busy are
also counted apart.

A point is *correct* when its colour is right and its true count lies in the reader's `low`..`high`; it is
*exact* when the best guess is the count. The bar and trays are judged the same way, as the referee gets them
(each half's owner is known by where it lies; a tray whose checkers are the tray's own colour reads 0..15). A *confident miss* is a wrong point read with confidence >= 0.8:
the only kind the referee would act on. Timing is the full board read (rectify, models, colours, trays) on
one core, per 1280x720 frame; rendering is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.sim.sets import SETS, frame, sample  # noqa: E402
from companion.sim.truth import image_corners, player0_colour  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.reader import MODELS, BoardReader  # noqa: E402
from companion.vision.strip_reader import StripReader  # noqa: E402


def judge(reading, label, orient: Orientation) -> dict:
    """Per frame: points judged, correct, exact, confident misses, and whether bar and trays are right."""
    occluded = set(label.occluded)
    out = {"points": 0, "correct": 0, "exact": 0, "confident_miss": 0, "tall": 0, "tall_exact": 0,
           "misses": []}
    for slot, read in enumerate(reading.points):
        point = orient.point_of_slot(slot)
        if point in occluded:
            continue
        owner, count = label.points[point - 1]
        out["points"] += 1
        colour = orient.colour_of(owner) if count else None
        ok = read.low <= count <= read.high and (count == 0 and read.low == 0 or read.colour == colour)
        exact = read.count == count and (count == 0 or read.colour == colour)
        out["correct"] += ok
        out["exact"] += exact
        if count > 5:
            out["tall"] += 1
            out["tall_exact"] += exact
        if not ok:
            read_as = (read.colour, read.count, read.low, read.high, round(read.confidence, 3))
            out["misses"].append((f"slot {slot} (point {point})", (colour, count), read_as))
            if read.confidence >= 0.8:
                out["confident_miss"] += 1
    # the bar and the trays as the referee gets them: each half's owner by where it lies, the count a range
    board = reading.to_board_reading(orient)
    out["bar_ok"] = all(board.bar[p].low <= label.bar[p] <= board.bar[p].high or label.bar_hidden[p]
                        for p in (0, 1))
    out["off_ok"] = board.off is not None and all(
        board.off[p].low <= label.off[p] <= board.off[p].high or label.off_hidden[p] for p in (0, 1))
    out["off_exact"] = board.off is not None and all(board.off[p].count == label.off[p] for p in (0, 1))
    for name, ok, truth, read in (("bar", out["bar_ok"], label.bar, board.bar),
                                  ("trays", out["off_ok"], label.off, board.off)):
        if not ok:
            ranges = None if read is None else tuple((r.low, r.count, r.high, round(r.confidence, 3)) for r in read)
            out["misses"].append((f"{name} (player 0, player 1)", tuple(truth), ranges))
    # what a referee would act on: a wrong bar or tray counts only when it is claimed sure
    out["sure_extra_ok"] = all(board.bar[p].count == label.bar[p] or board.bar[p].confidence < 0.8 for p in (0, 1)) \
        and (board.off is None or all(board.off[p].count == label.off[p] or board.off[p].confidence < 0.8
                                      for p in (0, 1)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=tuple(SETS), default="heldout")
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--jitter", type=float, default=2.0)
    parser.add_argument("--show-misses", type=int, default=10)
    parser.add_argument("--models", type=Path, default=MODELS, help="the checker models' folder (to compare two)")
    parser.add_argument("--reader", choices=("classic", "strips"), default="classic",
                        help="the classic reader (the simulator's board) or the strip network (with the "
                        "simulator's geometry, as a calibrated profile gives it)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(7)
    renderers: dict = {}
    times: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    totals = defaultdict(int)
    splits: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0, 0]))
    misses = []
    hands = [0, 0]
    false_busy = [0, 0]
    for index in range(args.start, args.start + args.frames):
        style, scene, pose, effects, _ = sample(SETS[args.set], index)
        image, label = frame(args.set, index, renderers=renderers)
        corners = np.array(image_corners(label)) + rng.uniform(-args.jitter, args.jitter, (4, 2))
        orient = Orientation(not pose.from_player1, pose.home_right, player0_colour(style))
        trays = "right" if orient.tray_on_right() else "left"
        if args.reader == "strips":
            reader = StripReader(tuple(map(tuple, corners)), trays=trays, models=args.models)
        else:
            reader = BoardReader(tuple(map(tuple, corners)), trays=trays, models=args.models)
        start = time.perf_counter()
        reading = reader.read(image)
        times.append((time.perf_counter() - start) * 1000)
        for name, ms in reading.timings.items():
            stages[name].append(ms)
        if label.hand:
            hands[0] += 1
            hands[1] += reading.busy is not None
        else:
            false_busy[0] += 1
            false_busy[1] += reading.busy is not None
        result = judge(reading, label, orient)
        frame_ok = result["correct"] == result["points"] and result["bar_ok"] and result["off_ok"]
        if reading.busy is None:  # a busy reading is not handed to the referee
            totals["handed"] += 1
            totals["handed_ok"] += result["correct"] == result["points"] and result["sure_extra_ok"]
        for key in ("points", "correct", "exact", "confident_miss", "tall", "tall_exact"):
            totals[key] += result[key]
        totals["frames"] += 1
        totals["frames_ok"] += frame_ok
        totals["bar_ok"] += result["bar_ok"]
        totals["off_ok"] += result["off_ok"]
        totals["off_exact"] += result["off_exact"]
        keys = {
            "tilt": f"{int(pose.tilt // 10) * 10}-{int(pose.tilt // 10) * 10 + 10} deg",
            "style": style.name if not style.name.startswith("random") else "random",
            "stacks": "tall stack (>5)" if any(c > 5 for _, c in label.points) else "stacks <= 5",
            "blur": "blur >= 1 px" if effects.blur >= 1 else "blur < 1 px",
            "light": "uneven light >= 0.25" if effects.light >= 0.25 else "light < 0.25",
            "hand": "hand in frame" if label.hand else "no hand",
        }
        for split, key in keys.items():
            row = splits[split][key]
            row[0] += result["points"]
            row[1] += result["correct"]
            row[2] += 1
            row[3] += frame_ok
        misses.extend((index, *m) for m in result["misses"])
    pct = lambda a, b: f"{100 * a / b:.3f}%" if b else "n/a"  # noqa: E731
    print(f"vision_bench: {args.reader} reader, {totals['frames']} frames of the {args.set} set from index {args.start}, "
          f"corners jittered by up to {args.jitter} px")
    print(f"  points correct (colour right, true count in low..high): {totals['correct']}/{totals['points']} "
          f"= {pct(totals['correct'], totals['points'])}   [target >= 99.9%]")
    print(f"  points exact (best guess = truth): {pct(totals['exact'], totals['points'])}; tall stacks (>5) exact: "
          f"{totals['tall_exact']}/{totals['tall']} = {pct(totals['tall_exact'], totals['tall'])}")
    print(f"  confident misses (wrong, confidence >= 0.8): {totals['confident_miss']}")
    print(f"  bar right: {pct(totals['bar_ok'], totals['frames'])}; trays right: {pct(totals['off_ok'], totals['frames'])} "
          f"(exact, best guess: {pct(totals['off_exact'], totals['frames'])})")
    print(f"  frames fully correct (points, bar, trays): {totals['frames_ok']}/{totals['frames']} = "
          f"{pct(totals['frames_ok'], totals['frames'])}   [target >= 99%]")
    print(f"  frames handed to the referee (not busy) with nothing wrong that is claimed sure: "
          f"{totals['handed_ok']}/{totals['handed']} = {pct(totals['handed_ok'], totals['handed'])}")
    print(f"  hand over the board called busy: {hands[1]}/{hands[0]}; boards without a hand called busy: "
          f"{false_busy[1]}/{false_busy[0]}")
    for split, rows in splits.items():
        print(f"  by {split}:")
        for key in sorted(rows):
            p, c, f, fo = rows[key]
            print(f"    {key:24s} points {pct(c, p):>9s} of {p:6d}   frames {pct(fo, f):>9s} of {f:4d}")
    times.sort()
    print(f"  time per frame, one core: median {statistics.median(times):.1f} ms, "
          f"p95 {times[int(len(times) * 0.95) - 1]:.1f} ms   [target median <= 15 ms]")
    print("  stages (median ms): " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in stages.items()))
    for m in misses[:args.show_misses]:
        print(f"  miss: frame {m[0]} {m[1]}: truth {m[2]}, read {m[3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
