"""Training tray halves for the tray network (`companion.vision.trays`), from photoreal frames, cached as `.npz`:

    python tools/tray_data.py --dir /work/data/photoreal/train --out /work/data/trays-train.npz

Every frame gives its four tray halves (both sides of the playing area, each cut top and bottom), cut with the
board's true geometry jittered as a board measured a little wrong cuts them, and with its corners a few pixels off.
A half beside the home boards holds that player's borne-off checkers (in a tray, or on the table beside a board
without trays); the other side's halves hold none, and teach the network what a frame and a table look like.

Each half is stored with what the reader has beside it: the board's normalisation (the strips' mean colour and
spread) and the two sets' colours (Lab), measured on the frame's points where the label says each set stands,
else as the reader finds them (`two_colours`).
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.reader import two_colours  # noqa: E402
from companion.vision.strip_reader import checker_colours  # noqa: E402
from companion.vision.strips import StripCutter, normalisation  # noqa: E402
from companion.vision.trays import HALVES, jittered_tray_frames, tray_cutter  # noqa: E402
from tools.strip_data import board_number, photoreal_label, true_dists  # noqa: E402


def set_colours(strips: np.ndarray, counts: list[int], colours: list[int], geometry) -> dict[str, np.ndarray]:
    """The two sets' Lab colours on this frame: each the median of its checkers' middles where the label puts it."""
    samples = checker_colours(strips, true_dists(counts), geometry)
    found = two_colours(list(samples.values()))
    for name, flag in (("light", 1), ("dark", 0)):
        mine = [samples[s] for s in samples if colours[s] == flag]
        if mine:
            found[name] = np.median(np.array(mine), axis=0)
    return found


def tray_labels(label: dict, orient) -> tuple[list[int], list[int]]:
    """Per half (`HALVES` order): how many checkers, and 1 where they are the lighter set, 0 the darker, -1 none."""
    home = "right" if orient.tray_on_right() else "left"
    counts, colours = [], []
    for side, top in HALVES:
        player = orient.tray_owner(top)
        n = int(label["off"][player]) if side == home else 0
        counts.append(n)
        colours.append(int(orient.colour_of(player) == "light") if n else -1)
    return counts, colours


def frame_halves(args) -> dict | None:
    path, seed, repeats, scale = args
    label = json.loads(path.with_suffix(".json").read_text())
    image = cv2.imread(str(path))
    if image is None or "off" not in label:
        return None
    corners, geometry, orient, counts, colours = photoreal_label(label)
    rng = np.random.default_rng(seed)
    counts_off, colours_off = tray_labels(label, orient)
    board = board_number(label)
    out: dict[str, list] = {k: [] for k in ("x", "y", "colour", "mean", "std", "light", "dark", "board", "half")}
    for _ in range(repeats):
        moved = tuple(map(tuple, np.array(corners, np.float64) + rng.uniform(-2.5, 2.5, (4, 2))))
        strips = StripCutter(moved, geometry).cut(image)
        mean, std = normalisation(strips)
        sets = set_colours(strips, counts, colours, geometry)
        halves = tray_cutter(moved, geometry, jittered_tray_frames(geometry, rng), scale).cut(image)
        for k in range(len(HALVES)):
            out["x"].append(halves[k])
            out["y"].append(counts_off[k])
            out["colour"].append(colours_off[k])
            out["mean"].append(mean)
            out["std"].append(std)
            out["light"].append(sets["light"])
            out["dark"].append(sets["dark"])
            out["board"].append(board)
            out["half"].append(k)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, nargs="+", required=True)
    parser.add_argument("--repeats", type=int, default=2, help="jittered cuts of each frame")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scale", type=int, default=1, choices=(1, 2),
                        help="halves cut at this many times the pixels each way")
    args = parser.parse_args()
    found = {p.name: p for d in args.dir for p in d.rglob("*.jpg") if p.with_suffix(".json").exists()}
    files = [found[name] for name in sorted(found)]  # a frame in two folders (copies for a fit) counts once
    with ProcessPoolExecutor(args.workers) as pool:
        parts = [p for p in pool.map(frame_halves, [(p, i, args.repeats, args.scale) for i, p in enumerate(files)],
                                          chunksize=4)
                 if p is not None]
    data = {k: np.array([v for part in parts for v in part[k]]) for k in parts[0]}
    data["x"] = data["x"].astype(np.uint8)
    for k in ("y", "colour", "half"):
        data[k] = data[k].astype(np.int8)
    for k in ("mean", "std", "light", "dark"):
        data[k] = data[k].astype(np.float32)
    data["board"] = data["board"].astype(np.int32)
    np.savez(args.out, **data)
    held = data["y"] > 0
    print(f"{len(parts)} frames, {len(data['y'])} halves ({held.mean():.2f} holding checkers) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
