"""How well the camera reads dice and the cube, and how long it takes.

    python benchmarks/dice_bench.py [--photos DIR] [--frames 600] [--start 0] [--set heldout|dev-hard|dev]
                                    [--models DIR] [--workers N] [--cv]

1. Real webcam photos (`../shared/data/dice_photos/`, 951 labelled dice): dice read right, per face, missed and
   invented, on the held-out fold (never trained on) and, apart, on the training folds. `--cv` retrains the models
   four times, each without one fold (tools/train_dice.py, ~28 min each), so every photo is read by a model that
   never saw it.
2. Rendered held-out board frames (seeds 1 000 000+, never trained on; dice of any colour; `--set dev-hard`
   gives frames of the same ranges on development seeds, to tune on): rolls read right,
   invalid rolls flagged with the right reason, valid rolls wrongly called invalid, cube value and owner; each
   frame is read as the live path reads it (board reader, then dice on the same rectified plane). Frames where a
   hand covers part of a die (or the cube) are counted apart: nobody can read those, and the live path waits.
   Also how far from the truth the dice centres are found (a die on a checker is judged from them). A change that
   moves a few rolls in a thousand is judged on thousands of development frames: `--set dev-hard --frames 6000
   --workers 2 --skip-photos` (about 6 minutes on two cores).
3. Time: the dice-and-cube read per frame, median and 95th percentile, beside the board read of the same frames.
   `--runtimes N` also runs both networks on N frames' inputs with ONNX Runtime (what the companion uses) and with
   OpenCV's DNN module (what it used to), side by side, and how far apart their outputs are. `--stand N` times
   what the live path adds for a real board (`Camera.from_plane` and `stand`, which the rendered frames, painted
   flat, are read without) on N frames, beside the dice read of the same frames.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.referee.observations import CubePlace  # noqa: E402
from companion.sim import sets  # noqa: E402
from companion.sim.truth import image_corners, player0_colour  # noqa: E402
from companion.vision.camera import Camera  # noqa: E402
from companion.vision.dice import CROP, MODELS, DiceReader, _nets, crop_on_plane, decode, normalise  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.photos import FOLDS, HELD_OUT_FOLD, fold_of, photos, read_labels  # noqa: E402
from companion.vision.plane import MM_PER_PX, Plane  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402
from companion.vision.roll import cube_reading, dice_reading, player0_mm  # noqa: E402

PHOTOS = Path(__file__).resolve().parents[2] / "shared/data/dice_photos"


def match(labels, found) -> tuple[list[tuple[int, int | None]], int]:
    """Pairs (true value, value read or None) per labelled die, and the number of dice read that match no label.
    A read die matches a label when either's centre lies inside the other's box (some labels of a one box only
    its pip), nearest first."""
    pairs, used = [], set()
    for label in labels:
        lx, ly = label.centre
        best, best_d = None, math.inf
        for i, die in enumerate(found.dice):
            if i in used:
                continue
            x, y, w, h = die.box
            cx, cy = x + w / 2, y + h / 2
            bx, by, bw, bh = label.box
            inside = (x <= lx <= x + w and y <= ly <= y + h) or (bx <= cx <= bx + bw and by <= cy <= by + bh)
            d = math.hypot(cx - lx, cy - ly)
            if inside and d < best_d:
                best, best_d = i, d
        if best is not None:
            used.add(best)
        pairs.append((label.value, found.dice[best].value if best is not None else None))
    return pairs, len(found.dice) - len(used)


def photo_report(title: str, paths: list[Path], reader: DiceReader) -> dict:
    per_face: dict[int, Counter] = {v: Counter() for v in range(1, 7)}
    invented, wrong_examples = 0, []
    for path in paths:
        image = cv2.imread(str(path))
        labels = read_labels(path.with_suffix(".txt"), image.shape[1], image.shape[0])
        pairs, extra = match(labels, reader.read_photo(image))
        invented += extra
        for true, read in pairs:
            per_face[true]["right" if read == true else ("missed" if read is None else "wrong")] += 1
            if read != true and len(wrong_examples) < 12:
                wrong_examples.append(f"{path.name}: {true} read as {read}")
        if extra and len(wrong_examples) < 12:
            wrong_examples.append(f"{path.name}: {extra} invented")
    total = sum(sum(c.values()) for c in per_face.values())
    right = sum(c["right"] for c in per_face.values())
    print(f"\n{title}: {len(paths)} photos, {total} dice")
    print("  face   dice  right  wrong  missed")
    for v, c in per_face.items():
        print(f"  {v:>4} {sum(c.values()):>6} {c['right']:>6} {c['wrong']:>6} {c['missed']:>7}")
    print(f"  read right: {right}/{total} = {100 * right / max(total, 1):.2f} %; invented dice: {invented}")
    for line in wrong_examples:
        print(f"    {line}")
    return {"total": total, "right": right, "invented": invented}


def photo_section(folder: Path, cv: bool, models: Path = MODELS, folds: list[int] | None = None,
                  threshold: float | None = None) -> None:
    paths = photos(folder)
    reader = DiceReader(models) if threshold is None else DiceReader(models, photo_threshold=threshold)
    if folds:  # development: only these folds, read by models trained without them (`train_dice.py
        # --hold-out-fold 0 N`); the held-out fold is not read
        photo_report(f"Real photos, folds {folds} only ({models})", [p for p in paths if fold_of(p.name) in folds],
                     reader)
        return
    held = [p for p in paths if fold_of(p.name) == HELD_OUT_FOLD]
    trained = [p for p in paths if fold_of(p.name) != HELD_OUT_FOLD]
    photo_report(f"Real photos, held-out fold {HELD_OUT_FOLD} (never trained on)", held, reader)
    photo_report("Real photos, training folds (for reference: the models saw these)", trained, reader)
    if not cv:
        return
    total = right = invented = 0
    for fold in range(FOLDS):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "tools/train_dice.py"),
                            "--hold-out-fold", str(fold), "--out", tmp], check=True, stdout=subprocess.DEVNULL)
            _nets.cache_clear()
            r = photo_report(f"Cross-validation: fold {fold}, by a model trained without it",
                             [p for p in paths if fold_of(p.name) == fold], DiceReader(Path(tmp)))
            _nets.cache_clear()
        total, right, invented = total + r["total"], right + r["right"], invented + r["invented"]
    print(f"\nCross-validation, all {total} dice each read by a model that never saw its photo: "
          f"{right}/{total} = {100 * right / total:.2f} %; invented {invented}")


def owner_place(place: str) -> CubePlace:
    return {"centre": CubePlace.CENTRE, "player0": CubePlace.PLAYER0, "player1": CubePlace.PLAYER1}.get(
        place, CubePlace.OFFERED)


def die_offsets(label, found, orientation: Orientation) -> list[tuple[float, float]]:
    """Found die centre minus true centre (player 0's mm) for each visible labelled die found within 10 mm."""
    out, places = [], [player0_mm(d.at, orientation) for d in found.dice if d.at is not None]
    for (tx, ty), hidden in zip(label.dice_at, label.dice_hidden):
        near = [(x - tx, y - ty) for x, y in places if math.hypot(x - tx, y - ty) < 10]
        if near and not hidden:
            out.append(min(near, key=lambda o: math.hypot(*o)))
    return out


def _ms_since(tick: int) -> float:
    """Milliseconds since `tick`, a `cv2.getTickCount()`."""
    return (cv2.getTickCount() - tick) / cv2.getTickFrequency() * 1000


def _read_frames(name: str, start: int, stop: int, models: Path) -> dict:
    """Frames start..stop-1 of a set, each read as the live path reads it: the tallies `render_section` prints."""
    _nets.cache_clear()
    cv2.setNumThreads(1)
    dice_reader = DiceReader(models)
    renderers: dict = {}
    tally: Counter = Counter()
    misses: Counter = Counter()
    dice_ms, board_ms, offsets = [], [], []
    for index in range(start, stop):
        image, label = sets.frame(name, index, renderers=renderers)
        style, _, pose, _, _ = sets.sample(sets.SETS[name], index)
        orientation = Orientation(not pose.from_player1, pose.home_right, player0_colour(style))
        reader = BoardReader(image_corners(label), trays="right" if orientation.tray_on_right() else "left")
        tick = cv2.getTickCount()
        rectified = reader.plane.rectify(image)
        reading = reader.read(image, 0.0, rectified)
        board_ms.append(_ms_since(tick))
        tick = cv2.getTickCount()
        found = dice_reader.read_board(image, reader.plane, rectified, reader.trays)
        # rendered dice are painted flat: the live path's `Camera.stand` would move them off their labels, so it
        # is left out here and timed apart (`--stand`)
        dice = dice_reading(found, reading, orientation)
        cube = cube_reading(found, orientation)
        dice_ms.append(_ms_since(tick))
        offsets += die_offsets(label, found, orientation)
        if label.cube_value in (2, 4, 8, 16, 32, 64) and not label.cube_hidden:
            tally["cubes"] += 1
            tally["cubes_right"] += (cube is not None and cube.value == label.cube_value
                                     and cube.place is owner_place(label.cube_place))
        if not label.dice:
            tally["empty"] += 1
            tally["empty_right"] += dice is not None and dice.valid and not dice.values
            continue
        if any(label.dice_hidden):  # nobody can read it; the live path waits for the hand to go
            tally["hidden"] += 1
            continue
        reason = dice.reason if dice is not None and not dice.valid else None
        if dice is not None and dice.valid and dice.values and label.roller is not None:
            reason = dice.misplaced(label.roller, opening=False)
        if label.dice_valid:
            tally["valid"] += 1
            ok = dice is not None and dice.valid and sorted(dice.values) == sorted(label.dice)
            tally["rolls_right"] += ok
            tally["called_invalid"] += reason is not None
            if not ok:
                misses["valid roll: " + ("unclear" if dice is None else reason or f"read {dice.values}")] += 1
        else:
            tally["invalid"] += 1
            tally["flagged"] += reason == label.dice_reason
            if reason != label.dice_reason:
                misses[f"{label.dice_reason}: got {reason}"] += 1
    return {"tally": tally, "misses": misses, "dice_ms": dice_ms, "board_ms": board_ms, "offsets": offsets}


def render_section(count: int, name: str = "heldout", models: Path = MODELS, start: int = 0,
                   workers: int = 1) -> None:
    """Frames start..start+count-1, split between `workers` processes (the times are then not one core's)."""
    bounds = np.linspace(start, start + count, workers + 1).astype(int)
    if workers == 1:
        parts = [_read_frames(name, start, start + count, models)]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_read_frames, [name] * workers, bounds[:-1], bounds[1:], [models] * workers))
    t: Counter = sum((p["tally"] for p in parts), Counter())
    misses: Counter = sum((p["misses"] for p in parts), Counter())
    dice_ms, board_ms, offsets = ([x for p in parts for x in p[key]] for key in ("dice_ms", "board_ms", "offsets"))
    valid, invalid = t["valid"], t["invalid"]
    print(f"\nRendered {name} board frames: {count} (seeds {sets.SETS[name].seed_base + start}..)")
    print(f"  valid rolls read right: {t['rolls_right']}/{valid} = {100 * t['rolls_right'] / max(valid, 1):.2f} %")
    print(f"  invalid rolls flagged with the right reason: {t['flagged']}/{invalid} = "
          f"{100 * t['flagged'] / max(invalid, 1):.2f} %")
    print(f"  valid rolls called invalid: {t['called_invalid']}/{valid} = "
          f"{100 * t['called_invalid'] / max(valid, 1):.2f} %")
    print(f"  frames without dice read as none: {t['empty_right']}/{t['empty']}")
    print(f"  frames where a hand covers a die (not counted above): {t['hidden']}")
    print(f"  cube value and owner right: {t['cubes_right']}/{t['cubes']} = "
          f"{100 * t['cubes_right'] / max(t['cubes'], 1):.2f} %")
    for what, n in misses.most_common():
        print(f"    {n:>3} x {what}")
    errors = np.hypot(*np.array(offsets).T)
    mean_x, mean_y = np.mean(offsets, axis=0)
    print(f"  die centres (player 0's mm; whether a die rests on a checker is decided from them): error median "
          f"{np.median(errors):.2f} mm, p95 {np.percentile(errors, 95):.2f}, over 4 mm {int((errors > 4).sum())} "
          f"of {len(errors)}; mean offset x {mean_x:+.2f}, y {mean_y:+.2f}")
    shared = f" ({workers} processes sharing the cores: not one core's times)" if workers > 1 else ""
    print(f"\nTime per 1280x720 frame, one core (ms){shared}:      median    p95")
    print(f"  dice and cube (finder + reader + rules)   {np.median(dice_ms):6.2f} {np.percentile(dice_ms, 95):6.2f}")
    print(f"  board read, for reference                 {np.median(board_ms):6.2f} {np.percentile(board_ms, 95):6.2f}")


def runtime_section(count: int, name: str, models: Path = MODELS) -> None:
    """The finder on each frame's plane and the reader on its finds' crops, timed in both runtimes."""
    runtime = DiceReader(models)
    opencv = [cv2.dnn.readNetFromONNX(str(models / f"dice_{n}.onnx")) for n in ("finder", "reader")]
    times: dict[str, list[float]] = {k: [] for k in ("finder ort", "finder cv", "reader ort", "reader cv")}
    apart = 0.0
    renderers: dict = {}
    for index in range(count):
        image, label = sets.frame(name, index, renderers=renderers)
        reader = BoardReader(image_corners(label))
        rectified = normalise(reader.plane.rectify(image))
        finds = decode(runtime.finder(rectified)[0])
        crops = normalise(np.array([crop_on_plane(image, reader.plane, *Plane.mm(f.x, f.y), f.size * MM_PER_PX)
                                    for f in finds]).reshape(-1, CROP, CROP, 3))
        for part, x, ort, cv in (("finder", rectified, runtime.finder, opencv[0]),
                                 ("reader", crops, runtime.reader, opencv[1])):
            if not len(x):
                continue
            tick = cv2.getTickCount()
            a = ort(x)
            times[f"{part} ort"].append(_ms_since(tick))
            tick = cv2.getTickCount()
            cv.setInput(x)
            b = cv.forward()
            times[f"{part} cv"].append(_ms_since(tick))
            apart = max(apart, float(np.abs(a - b).max()))
    print(f"\nThe two networks in two runtimes, {count} {name} frames, one thread, median ms:")
    print(f"  {'':<32}{'ONNX Runtime':>14}{'OpenCV DNN':>12}{'ratio':>8}")
    for part, what in (("finder", "finder (the plane)"), ("reader", "reader (all finds, one batch)")):
        ort, cv = np.median(times[f"{part} ort"]), np.median(times[f"{part} cv"])
        print(f"  {what:<32}{ort:>14.2f}{cv:>12.2f}{cv / ort:>7.1f}x")
    print(f"  largest difference between the two runtimes' outputs (logits): {apart:.2e}")


def stand_section(count: int, name: str, models: Path = MODELS) -> None:
    """The camera worked out and the finds placed where they stand, timed beside the dice read they follow."""
    dice_reader = DiceReader(models)
    read_ms, stand_ms, moved = [], [], []
    renderers: dict = {}
    for index in range(count):
        image, label = sets.frame(name, index, renderers=renderers)
        reader = BoardReader(image_corners(label))
        rectified = reader.plane.rectify(image)
        tick = cv2.getTickCount()
        found = dice_reader.read_board(image, reader.plane, rectified, reader.trays)
        read_ms.append(_ms_since(tick))
        tick = cv2.getTickCount()
        stood = Camera.from_plane(reader.plane, (image.shape[1], image.shape[0])).stand(found)
        stand_ms.append(_ms_since(tick))
        moved += [math.dist(a.at, b.at) for a, b in zip(found.dice, stood.dice) if a.at is not None]
    print(f"\nPlacing dice where they stand, {count} {name} frames, one thread, median ms (p95):")
    print(f"  camera from the homography + stand      {np.median(stand_ms):7.3f} ({np.percentile(stand_ms, 95):.3f})")
    print(f"  dice read, for reference                {np.median(read_ms):7.3f} ({np.percentile(read_ms, 95):.3f})")
    if moved:
        print(f"  how far the dice would move under these frames' cameras, were they standing: median "
              f"{np.median(moved):.1f} mm, max {max(moved):.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--start", type=int, default=0, help="the first frame's index in the set")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes to read the frames in (a large development range; times then shared)")
    parser.add_argument("--set", choices=sorted(sets.SETS), default="heldout",
                        help="the rendered frames: heldout to measure, dev-hard or dev to tune on")
    parser.add_argument("--models", type=Path, default=MODELS, help="the dice models' folder (to compare two)")
    parser.add_argument("--cv", action="store_true", help="cross-validate on the photos (retrains 4 times)")
    parser.add_argument("--skip-photos", action="store_true")
    parser.add_argument("--photo-threshold", type=float,
                        help="the finder's threshold in photos (0.3): lower, as a stress, to see how the reader copes "
                             "with the more finds a finder makes on scenes it never saw")
    parser.add_argument("--folds", type=int, nargs="+",
                        help="read only these photo folds (development, with --models trained without them)")
    parser.add_argument("--runtimes", type=int, default=0, metavar="N",
                        help="time ONNX Runtime against OpenCV DNN on N frames' inputs")
    parser.add_argument("--stand", type=int, default=0, metavar="N",
                        help="time placing the dice where they stand (the live path on a real board) on N frames")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if not args.skip_photos:
        photo_section(args.photos, args.cv, args.models, args.folds, args.photo_threshold)
    if args.frames > 0:  # --frames 0: the photos alone
        render_section(args.frames, args.set, args.models, args.start, args.workers)
    if args.runtimes > 0:
        runtime_section(args.runtimes, args.set, args.models)
    if args.stand > 0:
        stand_section(args.stand, args.set, args.models)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
