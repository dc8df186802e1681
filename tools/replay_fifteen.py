"""Record the strip reader's last step (the counts made fifteen a side) on photoreal frames, and replay it offline
with other constants: seconds instead of minutes per trial, the same figures as the benchmark.

    python tools/replay_fifteen.py record --dir /work/data/photoreal/dev --out dev.pkl [--calibrate]
    python tools/replay_fifteen.py replay dev.pkl more.pkl --hidden-any 0.75 0.9 --colour-cap 0.98 0.995 \
        --distance-weight 0 0.05 --tray-count-word 0.5 1

`record` runs `benchmarks/photoreal_bench.py` (same frames, same jitter) with the step's inputs kept for every
frame: the strips' count distributions, the colour network's chances and each stack's colour distances to the two
sets, the trays' chances per set (`off_chances`' halves named, before `holding_then_count` and `TRAYS_TRUSTED`),
whether the board was busy, and each place's truth.
`replay` makes the step's colour chances (`strip_reader.colour_chances`) and borne-off chances (`off_chances`'
last part, `hidden_or_off` on a busy board) again from those, runs `checker_sets.counts_making_fifteen`, and prints
points right and frames fully right (points and bar, as the benchmark judges them) for each setting; the recorded
constants reproduce the benchmark's figures exactly. Only the last step is replayed: what the networks saw is
fixed. Files recorded before session 39 kept the chances already made, and do not replay today's reader.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import companion.vision.checker_sets as checker_sets  # noqa: E402
import companion.vision.strip_reader as strip_reader  # noqa: E402


def record(bench_args: list[str], out: Path) -> None:
    """Run the photoreal benchmark with the step's inputs and each frame's truth kept, and save them."""
    import photoreal_bench

    frames: list[dict] = []
    step: dict = {}
    fifteen, covered, judge = strip_reader._fifteen_a_side, strip_reader.covered_points, photoreal_bench.judge
    chances, holding = strip_reader.colour_chances, strip_reader.holding_then_count

    def covered_kept(p, patterned=False):
        step["busy"] = covered(p, patterned=patterned)
        return step["busy"]

    def chances_kept(evidence):
        p_light = {s: e.p_light for s, e in enumerate(evidence) if e.p_light is not None}
        distances = {s: (e.to_light, e.to_dark) for s, e in enumerate(evidence)
                     if s < 24 and e.p_light is not None and e.to_light is not None}
        step["colour"] = (p_light, distances)
        return chances(evidence)

    def holding_kept(off):
        step["trays"] = np.array(off)  # the trays' chances per set, before the holding word and the trust
        return holding(off)

    def fifteen_kept(points, bar, dists, chances, off=None):
        step["inputs"] = (np.array(dists), *step.pop("colour"), step.pop("trays", None))
        return fifteen(points, bar, dists, chances, off)

    def judge_kept(reading, orient, label):
        out = judge(reading, orient, label)
        dists, p_light, distances, trays = step.pop("inputs")
        busy = step.pop("busy") is not None
        frames.append({"name": label.get("board_id"), "frame": label.get("frame_index"), "busy": busy,
                       "dists": dists, "light": p_light, "distances": distances, "trays": trays,
                       "truth": photoreal_bench.place_truths(orient, label),
                       "read": [(r.colour if r.count else None, r.count) for r in (*reading.points, *reading.bar)]})
        return out

    strip_reader.covered_points, strip_reader._fifteen_a_side = covered_kept, fifteen_kept
    strip_reader.colour_chances, strip_reader.holding_then_count = chances_kept, holding_kept
    photoreal_bench.judge = judge_kept
    sys.argv = ["photoreal_bench.py", *bench_args]
    try:
        photoreal_bench.main()
    finally:
        strip_reader.covered_points, strip_reader._fifteen_a_side = covered, fifteen
        strip_reader.colour_chances, strip_reader.holding_then_count = chances, holding
        photoreal_bench.judge = judge
    out.write_bytes(pickle.dumps(frames))
    print(f"recorded {len(frames)} frames to {out}")


def replay_frame(frame: dict) -> list[tuple[str | None, int]]:
    """The step again on one recorded frame, with the module constants as they are now."""
    places = len(frame["dists"])
    chances = strip_reader.colour_chances([checker_sets.ColourEvidence(frame["light"].get(s),
                                                                       *frame["distances"].get(s, ()))
                                           for s in range(places)])
    off = None if frame["trays"] is None else strip_reader.trusted_trays(frame["trays"])
    if frame["busy"]:
        off = strip_reader.hidden_or_off(off)
    light = [chances.get(s, 0.5) for s in range(places)]
    return checker_sets.counts_making_fifteen(frame["dists"], light, off)


def score(frames: list[dict], readings) -> tuple[int, int, int]:
    """Points right, points judged and frames fully right (points and bar), as the benchmark judges them."""
    from photoreal_bench import read_right

    right = seen = full = 0
    for frame, reading in zip(frames, readings):
        whole = True
        for place, truth in enumerate(frame["truth"]):
            if truth is None:
                continue
            ok = read_right(truth, *reading[place])
            if place < 24:
                seen += 1
                right += ok
            whole &= ok
        full += whole
    return right, seen, full


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run photoreal_bench and keep the step's inputs")
    rec.add_argument("--out", type=Path, required=True)
    rep = sub.add_parser("replay", help="replay recorded frames with other constants")
    rep.add_argument("files", type=Path, nargs="+")
    rep.add_argument("--hidden-any", type=float, nargs="+", default=[strip_reader.HIDDEN_ANY])
    rep.add_argument("--colour-cap", type=float, nargs="+", default=[checker_sets.COLOUR_CAP])
    rep.add_argument("--count-floor", type=float, nargs="+", default=[checker_sets.COUNT_FLOOR])
    rep.add_argument("--distance-weight", type=float, nargs="+", default=[checker_sets.DISTANCE_WEIGHT])
    rep.add_argument("--tray-count-word", type=float, nargs="+", default=[strip_reader.TRAY_COUNT_WORD])
    args, rest = parser.parse_known_args()
    if args.command == "record":
        record(rest, args.out)
        return 0
    if rest:
        parser.error(f"unknown arguments: {' '.join(rest)}")
    frames = [f for path in args.files for f in pickle.loads(path.read_bytes())]
    if any("distances" not in f for f in frames):
        parser.error("recorded before session 39 (no colour distances): record the frames again")
    right, seen, full = score(frames, [f["read"] for f in frames])
    print(f"as read: {100 * right / max(seen, 1):.2f} % of {seen} points, {full} of {len(frames)} frames fully right")
    for hidden_any, cap, floor, weight, word in itertools.product(args.hidden_any, args.colour_cap, args.count_floor,
                                                                  args.distance_weight, args.tray_count_word):
        strip_reader.HIDDEN_ANY, checker_sets.COLOUR_CAP, checker_sets.COUNT_FLOOR = hidden_any, cap, floor
        checker_sets.DISTANCE_WEIGHT, strip_reader.TRAY_COUNT_WORD = weight, word
        right, seen, full = score(frames, [replay_frame(f) for f in frames])
        print(f"HIDDEN_ANY {hidden_any:g}, COLOUR_CAP {cap:g}, COUNT_FLOOR {floor:g}, DISTANCE_WEIGHT {weight:g}, "
              f"TRAY_COUNT_WORD {word:g}: {100 * right / max(seen, 1):.2f} % ({right}), {full} frames fully right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
