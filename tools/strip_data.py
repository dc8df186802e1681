"""Training strips for the strip network (`companion.vision.strips`), from three sources, cached as `.npz`:

    python tools/strip_data.py sim --frames 4000 --out /work/data/strips-sim.npz
    python tools/strip_data.py photoreal --dir /work/data/photoreal/train --out /work/data/strips-photoreal.npz

- `sim`: the flat renderer's *development* seeds 500,000-999,999 (as `train_reader.py`; the held-out set's seeds
  are never rendered here), half at the held-out ranges, half with random tall stacks;
- `photoreal`: frames of `companion.sim.photoreal`'s training designs (never its held-out designs), cut with the
  board's true geometry from its label;
- negatives from both: the same frame's strips cut where no point is (corners turned a quarter round, or moved off
  the board), strips of the real dice photos (`../shared/data/dice_photos`) and of random pictures (noise, colour
  fields, stripes, blobs), labelled "not a point" (16).

Every strip is cut with its frame jittered: a point width 0.9-1.2 times the true one (checkers of 0.78-1.0 of a
point's width), its centre up to 0.12 point widths off (0.3 for three strips in ten), its start up to 0.1 off. That
is how the network learns boards it has not seen, and boards measured a little wrong; each strip's offset is kept,
so the network also learns to say how far off it is (what measuring the bar uses).
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

from companion.rules.layout import STANDARD, BoardGeometry  # noqa: E402
from companion.sim.truth import image_corners, player0_colour, strip_colours, strip_counts  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.strip_reader import COLOUR_ROWS  # noqa: E402
from companion.vision.strips import STRIP_W, StripCutter, finer_frames, jittered_frames  # noqa: E402

NOT_A_POINT = 16
HELDOUT_BOARDS = 1_000_000
"""Added to a held-out board's number in the `board` array: its boards are not the training boards of that number."""
PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "data" / "dice_photos"


def board_number(label: dict) -> int:
    """The frame's board as the `board` arrays record it (held-out boards offset by `HELDOUT_BOARDS`)."""
    number = int(label["board_id"].rsplit("-", 1)[1])
    return number + (HELDOUT_BOARDS if label["board_id"].startswith("heldout") else 0)


def true_dists(counts) -> np.ndarray:
    """The true counts as distributions (one-hot over 0..15), what `checker_colours` takes to find the checkers'
    middles; "not a point" and unknown (-1) count as empty."""
    counts = np.asarray(counts)
    return np.eye(NOT_A_POINT)[np.where((counts >= 0) & (counts < NOT_A_POINT), counts, 0)]


def negatives(image: np.ndarray, corners, geometry: BoardGeometry, rng: np.random.Generator) -> np.ndarray:
    """26 strips cut where the corners do not show a board: turned a quarter round, or moved off it."""
    c = np.array(corners, np.float64)
    kind = rng.integers(0, 3)
    if kind == 0:
        c = np.roll(c, int(rng.choice([1, 3])), axis=0)
    elif kind == 1:
        width = np.linalg.norm(c[1] - c[0])
        c = c + np.array([rng.choice([-1, 1]) * width * rng.uniform(1.05, 1.5), 0])
    else:
        height = np.linalg.norm(c[3] - c[0])
        c = c + np.array([0, rng.choice([-1, 1]) * height * rng.uniform(0.35, 0.65)])
    return StripCutter(tuple(map(tuple, c)), geometry, jittered_frames(geometry, rng)).cut(image)


def photo_negatives(rng: np.random.Generator) -> np.ndarray | None:
    photos = sorted(PHOTOS.glob("*.jpg"))
    if not photos:
        return None
    image = cv2.imread(str(photos[int(rng.integers(len(photos)))]))
    if image is None:
        return None
    h, w = image.shape[:2]
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    half_w, half_h = rng.uniform(0.25, 0.5) * w, rng.uniform(0.2, 0.45) * h
    corners = ((cx - half_w, cy - half_h), (cx + half_w, cy - half_h), (cx + half_w, cy + half_h),
               (cx - half_w, cy + half_h))
    return StripCutter(corners, STANDARD, jittered_frames(STANDARD, rng)).cut(image)


def random_picture(rng: np.random.Generator, size=(720, 1280)) -> np.ndarray:
    """Something that is no board: noise, a smooth colour field, stripes or blobs."""
    h, w = size
    kind = rng.integers(0, 4)
    if kind == 0:
        return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    small = rng.integers(0, 256, (int(rng.integers(2, 12)), int(rng.integers(2, 12)), 3)).astype(np.uint8)
    image = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    if kind == 2:
        for _ in range(int(rng.integers(5, 40))):
            colour = tuple(int(v) for v in rng.integers(0, 256, 3))
            p0 = tuple(int(v) for v in rng.integers(0, max(h, w), 2))
            p1 = tuple(int(v) for v in rng.integers(0, max(h, w), 2))
            cv2.line(image, p0, p1, colour, int(rng.integers(1, 30)))
    elif kind == 3:
        for _ in range(int(rng.integers(5, 60))):
            colour = tuple(int(v) for v in rng.integers(0, 256, 3))
            centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.circle(image, centre, int(rng.integers(5, 60)), colour, -1)
    return image


def negative_block(strips: np.ndarray, colour_scale: int = 0) -> dict:
    n = len(strips)
    block = {"x": strips, "y": np.full(n, NOT_A_POINT), "offset": np.full(n, np.nan), "colour": np.full(n, -1)}
    if colour_scale:  # the colour network never sees a negative: its crops are left black
        block["crops"] = np.zeros((n, colour_scale * COLOUR_ROWS, colour_scale * STRIP_W, 3), np.uint8)
    return block


def from_image(image, corners, geometry, counts, colours, rng, negative_share: float, colour_scale: int = 0
               ) -> list[dict]:
    """Blocks (strips, counts, offsets, colours) for one frame: its 26 strips (those a hand hides left out) and
    perhaps 26 negatives (offset NaN: they have no point to be off from). `colour_scale`: each strip's first
    `COLOUR_ROWS` rows also cut at that many times the pixels each way from the same jittered frame (`crops`)."""
    corners = np.array(corners, np.float64) + rng.uniform(-2.5, 2.5, (4, 2))
    offsets: list[float] = []
    frames = jittered_frames(geometry, rng, offsets)
    strips = StripCutter(tuple(map(tuple, corners)), geometry, frames).cut(image)
    keep = np.array(counts) >= 0
    block = {"x": strips[keep], "y": np.array(counts)[keep], "offset": np.array(offsets)[keep],
             "colour": np.array(colours)[keep]}
    if colour_scale:
        size = (colour_scale * COLOUR_ROWS, colour_scale * STRIP_W)
        block["crops"] = StripCutter(tuple(map(tuple, corners)), geometry, finer_frames(frames, colour_scale)[keep],
                                     size=size).cut(image)
    blocks = [block]
    if rng.random() < negative_share:
        blocks.append(negative_block(negatives(image, corners, geometry, rng), colour_scale))
    return blocks


def sim_frame(args):
    index, colour_scale = args
    from tools.train_reader import TRAIN, TRAIN_HARD, random_stacks
    from companion.sim.render import Renderer
    from companion.sim.sets import sample

    style, scene, pose, effects, rng = sample(TRAIN_HARD if (index // 2) % 2 else TRAIN, index)
    if index % 2:
        scene = random_stacks(scene, rng)
    image, label = Renderer(style, 1280, 720).render(scene, pose, effects, rng)
    orient = Orientation(not pose.from_player1, pose.home_right, player0_colour(style))
    counts = strip_counts(label.points, label.bar, orient, set(label.occluded), label.hand)
    colours = strip_colours(label.points, label.bar, orient)
    blocks = from_image(image, image_corners(label), STANDARD, counts, colours, rng, 0.25, colour_scale)
    extra = []
    if rng.random() < 0.1:
        extra.append(photo_negatives(rng))
    if rng.random() < 0.05:
        extra.append(StripCutter(image_corners(label), STANDARD, jittered_frames(STANDARD, rng)).cut(
            random_picture(rng)))
    return blocks + [negative_block(strips, colour_scale) for strips in extra if strips is not None]


def photoreal_label(label: dict, hidden_as: int = -1):
    """What a photoreal label says in the reader's terms: image-order corners, geometry, orientation, counts
    (`hidden_as` where a hand hides a point)."""
    g = label["geometry"]
    geometry = BoardGeometry(g["play_width"], g["play_height"], g["bar_width"], g["point_length"],
                             g["checker_diameter"])
    corners = [tuple(p) for p in label["corners"]]
    pose = label["pose"]
    if pose["from_player1"]:
        corners = corners[2:] + corners[:2]
    colour = label.get("colours", {}).get("player0_colour") or label.get("player0_colour", "light")
    orient = Orientation(not pose["from_player1"], pose["home_right"], colour)
    counts = strip_counts(label["points"], label["bar"], orient, set(label.get("occluded", ())),
                          label.get("bar_hidden", bool(label.get("hand"))), hidden_as)
    return tuple(corners), geometry, orient, counts, strip_colours(label["points"], label["bar"], orient)


def photoreal_frame(args):
    path, seed, repeats, colour_scale = args
    label = json.loads(path.with_suffix(".json").read_text())
    image = cv2.imread(str(path))
    # a point under a hand is taught as "not a point": the reader then knows something is over the board
    corners, geometry, orient, counts, colours = photoreal_label(label, hidden_as=NOT_A_POINT)
    colours = [-1 if n == NOT_A_POINT else c for n, c in zip(counts, colours)]  # a hand's colour is no set's
    if label.get("hand") and "occluded" not in label:  # which points a hand hides is not known: leave them out
        counts = [-1] * 26
    rng = np.random.default_rng(seed)
    board = board_number(label)
    blocks = [block for _ in range(repeats)
              for block in from_image(image, corners, geometry, counts, colours, rng, 0.3, colour_scale)]
    for block in blocks:  # negatives belong to no board: no set's colours are measured on them
        positive = np.any(block["y"] != NOT_A_POINT)
        block["board"] = np.full(len(block["y"]), board if positive else -1)
        block["frame"] = np.full(len(block["y"]), label.get("frame_index", -1) if positive else -1)
    return blocks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", choices=("sim", "photoreal"))
    parser.add_argument("--frames", type=int, default=4000)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--repeats", type=int, default=4, help="jittered cuts of each photoreal frame")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--colour-scale", type=int, default=0, choices=(0, 1, 2),
                        help="also keep each strip's colour rows cut at this many times the pixels (`crops`)")
    args = parser.parse_args()
    with ProcessPoolExecutor(args.workers) as pool:
        if args.source == "sim":
            parts = list(pool.map(sim_frame, [(i, args.colour_scale) for i in range(args.frames)], chunksize=16))
        else:
            files = sorted(p for p in args.dir.rglob("*.jpg") if p.with_suffix(".json").exists())
            parts = list(pool.map(photoreal_frame, [(p, i, args.repeats, args.colour_scale)
                                                    for i, p in enumerate(files)], chunksize=4))
    # a group is one cut of one frame (or its negatives): the network's input is normalised per group
    blocks = [block for frame_blocks in parts for block in frame_blocks]
    x = np.concatenate([b["x"] for b in blocks])
    y = np.concatenate([b["y"] for b in blocks]).astype(np.int8)
    offset = np.concatenate([b["offset"] for b in blocks]).astype(np.float32)
    colour = np.concatenate([b["colour"] for b in blocks]).astype(np.int8)
    group = np.concatenate([np.full(len(b["y"]), i, np.int32) for i, b in enumerate(blocks)])
    # which board and which of its frames each strip comes from (-1: the flat renderer's, or a negative): the colour
    # network is also shown a frame with the set colours measured on its board's frame 0, as calibration gives them
    board = np.concatenate([b.get("board", np.full(len(b["y"]), -1)) for b in blocks]).astype(np.int32)
    frame = np.concatenate([b.get("frame", np.full(len(b["y"]), -1)) for b in blocks]).astype(np.int32)
    crops = {"crops": np.concatenate([b["crops"] for b in blocks])} if args.colour_scale else {}
    np.savez(args.out, x=x, y=y, group=group, offset=offset, colour=colour, board=board, frame=frame, **crops)
    print(f"{len(parts)} frames, {len(blocks)} groups, {len(x)} strips ({np.mean(y == NOT_A_POINT):.2f} negatives) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
