"""Train the dice finder and the two readers of `companion.vision.dice` and export them as ONNX.

    pip install torch==2.13.0 onnx      # training only; the companion runs the ONNX files with ONNX Runtime
    python tools/train_dice.py [--frames 5000] [--photos ../shared/data/dice_photos] [--out companion/vision/models]
                               [--hold-out-fold 0 [1 ...]] [--finder FILE] [--reader FILE] [--seed 0]

Data, and what it never sees:
- real webcam photos of dice: every fold but the held-out one (`companion.vision.photos`, fold 0 by default);
  `--hold-out-fold N` trains a model without fold N, for cross-validation (`benchmarks/dice_bench.py --cv`);
  `--hold-out-fold 0 1` without two, to try a change out on fold 1 while fold 0 stays unseen;
- rendered boards from development seeds 200 000 .. 499 999 (the held-out set starts at 1 000 000), with dice of
  the development colours, cocked dice and the cube at every value; every other pair of frames at the `dev-hard`
  set's ranges (`TRAIN_HARD`), a third of the rest on random board styles.
Frames are rendered at 800x450 to 1280x720 (`FRAME_SIZES`). Augmentation: scale, rotation, flips, light, colour,
blur, noise, and colour inversion of the photos (light pips on dark dice, which the photos do not show). The
reader also learns from the finder's own false finds on the training data (hard negatives). Dice and the cube
under a hand (the renderer's `dice_hidden`, `cube_hidden`) are left out of both: the finder is neither rewarded
nor punished around them.

The photo reader (any photo that is not a board) learns from the photos alone, at its own crop size: each labelled
die centred on its top face and again where the finder puts it, and the finder's false finds in them.

Defaults took 40 minutes on two cores, the finder's part shared with other work (render 2 min, finder 25, hard
negatives and reader 13), and the photo reader about 8 more. `--finder` and `--reader` reuse trained models.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.layout import BoardLayout  # noqa: E402
from companion.referee.observations import ON_A_CHECKER  # noqa: E402
from companion.sim.render import CUBE, DIE, Renderer, dice_validity  # noqa: E402
from companion.sim.sets import DEV, DEV_HARD, HELDOUT, dice_colour, sample  # noqa: E402
from companion.sim.truth import image_corners  # noqa: E402
from companion.vision.dice import (CLASSES, CROP, CROP_OBJECT, CUBE_FACES, FINDER_SIZES, PHOTO_CROP,  # noqa: E402
                                   PHOTO_CROP_OBJECT, STRIDE, crop_on_plane, decode, finder_knows, normalise,
                                   photo_pyramid)
from companion.vision.network import Network  # noqa: E402
from companion.vision.photos import fold_of, photos, read_labels  # noqa: E402
from companion.vision.plane import MM_PER_PX, Plane  # noqa: E402

TRAIN = replace(DEV, name="dev", seed_base=200_000, random_styles=1 / 3, bad_dice=0.45)
TRAIN_HARD = replace(DEV_HARD, name="train-hard", seed_base=200_000, bad_dice=0.45)
"""Every other pair of frames has the held-out set's harsher ranges (tilt, glare, blur, JPEG, hands) on development
styles, as the checker models learn them: trained on the milder ranges alone, the finder scored clear dice on
random boards under its threshold (8 of the 14 valid rolls `dev-hard` misread)."""
PATCH = 128
"""Finder training patches, pixels."""
HIDDEN = 2
"""The kind of an object a hand covers: the finder is neither rewarded nor punished around it."""
FRAME_SIZES = ((1280, 720), (1280, 720), (1120, 630), (960, 540), (800, 450))
"""Frames are rendered at these sizes (one drawn per frame): a die of the same millimetres spans fewer pixels in a
smaller frame, and a reader that only saw 720p dice read 2s as 1s in 540p films."""
OUTPUT_WEIGHTS = (1.5, 0.5)
"""The shares of the reader's loss (the class's is 1) of its two yes/no outputs: cocked, and resting on a checker
(a training aid only). The cocked output's was 0.5 until session 13, when 12 of `dev-hard`'s 79 cocked dice scored
under 0.5 and 8 of its flat dice over 0.8: the reader had learnt the faces and little of the slant."""


# -- rendered boards ------------------------------------------------------------------------------

def render_frame(index: int):
    style, scene, pose, effects, rng = sample(TRAIN_HARD if (index // 2) % 2 else TRAIN, index)
    if index % 5 < 3:  # dice of any colour, as random styles do for the board (own generator: same frame again)
        scene = replace(scene, dice_colour=dice_colour(HELDOUT, np.random.default_rng([TRAIN.seed_base + index, 9])))
    width, height = FRAME_SIZES[int(np.random.default_rng([TRAIN.seed_base + index, 11]).integers(len(FRAME_SIZES)))]
    image, label = Renderer(style, width, height).render(scene, pose, effects, rng)
    corners = np.array(image_corners(label)) + rng.uniform(-2, 2, (4, 2))
    plane = Plane.from_corners(tuple(map(tuple, corners)))
    rectified = plane.rectify(image)
    # player 0's millimetres -> frame pixels (the label's corners) -> playing-area mm in image order
    mm0 = np.array(BoardLayout.playing_area(), np.float32)
    to_frame = cv2.getPerspectiveTransform(mm0, np.array(label.corners, np.float32))
    image_mm = np.array([[0, 0], [mm0[1][0], 0], [mm0[1][0], mm0[2][1]], [0, mm0[2][1]]], np.float32)
    to_image_mm = cv2.getPerspectiveTransform(np.array(image_corners(label), np.float32), image_mm)
    to_mm = to_image_mm @ to_frame

    def at(x: float, y: float) -> tuple[float, float]:
        p = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), to_mm)[0, 0]
        return float(p[0]), float(p[1])

    return image, label, scene, plane, rectified, at, rng


def render_sample(index: int):
    """A dev frame: its plane (finder input), the objects on it (plane px), and reader crops with labels."""
    image, label, scene, plane, rectified, at, rng = render_frame(index)
    objects, crops, classes, cocked = [], [], [], []
    layout = BoardLayout(label.pose["home_right"])
    for die, hidden in zip(scene.dice, label.dice_hidden):
        x, y = at(die.x, die.y)
        turn = math.radians(die.angle)
        box = DIE * (abs(math.cos(turn)) + abs(math.sin(turn)))
        objects.append((HIDDEN if hidden else 0, *Plane.px(x, y), box / MM_PER_PX))
        if hidden:  # under a hand: neither a die to find nor a place to learn "nothing" from
            continue
        alone = replace(scene, dice=(replace(die, cocked=False),), roller=None)
        resting = dice_validity(alone, layout)[1] == ON_A_CHECKER
        for _ in range(10 if die.cocked else 6 if resting else 3):
            jx, jy = rng.uniform(-0.15, 0.15, 2) * box
            crops.append(crop_on_plane(image, plane, x + jx, y + jy, box * rng.uniform(0.85, 1.2)))
            classes.append(die.value)
            cocked.append((float(die.cocked), float(resting)))
    if scene.cube_value in CUBE_FACES:
        x, y = at(*label.cube_at)
        objects.append((HIDDEN if label.cube_hidden else 1, *Plane.px(x, y), CUBE / MM_PER_PX))
        for _ in range(0 if label.cube_hidden else 2):
            jx, jy = rng.uniform(-0.15, 0.15, 2) * CUBE
            crop = crop_on_plane(image, plane, x + jx, y + jy, CUBE * rng.uniform(0.85, 1.2))
            crops.append(_rotate(crop, rng.uniform(0, 360)))
            classes.append(7 + CUBE_FACES.index(scene.cube_value))
            cocked.append((-1.0, -1.0))
    for _ in range(6):  # anything else on the board: checkers, points, the bar, a hand
        x, y = rng.uniform(-40, 620), rng.uniform(-15, 455)
        size = rng.uniform(16, 30)
        if all(math.dist((x, y), Plane.mm(o[1], o[2])) > 0.8 * o[3] * MM_PER_PX
               for o in objects):
            crops.append(crop_on_plane(image, plane, x, y, size))
            classes.append(0)
            cocked.append((-1.0, -1.0))
    return rectified, objects, np.array(crops, np.uint8).reshape(-1, CROP, CROP, 3), classes, cocked


def _rotate(crop: np.ndarray, angle: float) -> np.ndarray:
    m = cv2.getRotationMatrix2D((CROP / 2 - 0.5, CROP / 2 - 0.5), angle, 1.0)
    return cv2.warpAffine(crop, m, (CROP, CROP), borderMode=cv2.BORDER_REFLECT)


# -- real photos ----------------------------------------------------------------------------------

def photo_objects(path: Path) -> tuple[np.ndarray, list[tuple[int, float, float, float]]]:
    """A photo and its dice as (value, cx, cy, size). The labels box the pips of the top face, not the die (the
    data's README says otherwise): the centre is the top face's, and the die's size is measured in the photo
    (the light body against the wood), one size for all dice of a photo (one camera distance)."""
    image = cv2.imread(str(path))
    h, w = image.shape[:2]
    dice = read_labels(path.with_suffix(".txt"), w, h)
    measured = [die_extent(image, *d.centre) for d in dice]
    pips = [max(d.box[2:]) * (3.2 if d.value == 1 else 1.6) for d in dice]
    plausible = [m for m, p in zip(measured, pips) if m is not None and 0.6 * p <= m <= 2.5 * p]
    size = float(np.median(plausible)) if plausible else float(np.median(pips))
    return image, [(d.value, *d.centre, size) for d in dice]


def die_extent(image: np.ndarray, cx: float, cy: float) -> float | None:
    """The longer side of the light blob around (cx, cy): a white die's body is less saturated than wood."""
    x0, y0 = int(max(0, cx - 60)), int(max(0, cy - 60))
    hsv = cv2.cvtColor(image[y0:int(cy + 60), x0:int(cx + 60)], cv2.COLOR_BGR2HSV).astype(np.float32)
    blur = cv2.GaussianBlur(hsv[..., 2] - 2.0 * hsv[..., 1], (0, 0), 1.5)
    mask = (blur > (np.percentile(blur, 97) + np.median(blur)) / 2).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))  # fills the pips
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    k = labels[min(int(cy) - y0, labels.shape[0] - 1), min(int(cx) - x0, labels.shape[1] - 1)]
    return float(max(stats[k][2:4])) if k else None


def affine_crop(image: np.ndarray, cx: float, cy: float, size: float, angle: float, crop: int = CROP,
                span: int = CROP_OBJECT) -> np.ndarray:
    """`crop` x `crop`, the box of `size` spanning `span`, turned by `angle`, shrunk by area first."""
    scale = span / size
    while scale < 0.5:
        image = cv2.pyrDown(image)
        cx, cy, size, scale = cx / 2, cy / 2, size / 2, scale * 2
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[:, 2] += [crop / 2 - cx, crop / 2 - cy]
    return cv2.warpAffine(image, m, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def photo_crops(image, objects, rng, copies: int = 16, crop: int = CROP, span: int = CROP_OBJECT):
    crops, classes = [], []
    for value, cx, cy, size in objects:
        for _ in range(copies):
            j = rng.uniform(-0.15, 0.15, 2) * size
            crops.append(affine_crop(image, cx + j[0], cy + j[1], size * rng.uniform(0.85, 1.2), rng.uniform(0, 360),
                                     crop, span))
            classes.append(value)
    h, w = image.shape[:2]
    typical = float(np.median([o[3] for o in objects])) if objects else 50.0
    for _ in range(copies * 2):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        size = typical * rng.uniform(0.6, 1.4)
        if all(math.hypot(x - o[1], y - o[2]) > 0.7 * o[3] for o in objects):
            crops.append(affine_crop(image, x, y, size, rng.uniform(0, 360), crop, span))
            classes.append(0)
    return crops, classes


def photo_finds(finder: Network, image: np.ndarray, every: bool = False) -> list[tuple[float, float, float]]:
    """What the finder marks in a photo over the pyramid a photo read uses, as (cx, cy, size) in photo pixels: finds
    of the sizes a read keeps, or with `every` also those it drops (the board reader's hard negatives have always
    had them)."""
    return [(f.x / scale, f.y / scale, f.size / scale) for scale, small in photo_pyramid(image)
            for f in decode(finder(normalise(small))[0], 0.2) if every or finder_knows(f.size)]


def finder_placed_crops(image, objects, finds, rng, copies: int = 8):
    """Photo reader crops of each labelled die where the finder puts it, with the label's value. Seen from the
    side, a die is found about a quarter of a die below its top face, where its side face's pips lie nearer the
    crop's centre than the top face's: crops at the label's centre alone taught the reader the wrong face there."""
    crops, classes = [], []
    for value, cx, cy, size in objects:
        near = [f for f in finds if math.hypot(f[0] - cx, f[1] - cy) < 0.5 * size and 0.6 * size < f[2] < 1.6 * size]
        for fx, fy, fs in near[:2]:
            for _ in range(copies):
                j = rng.uniform(-0.05, 0.05, 2) * fs
                side = fs * rng.uniform(0.95, 1.05)
                crops.append(affine_crop(image, fx + j[0], fy + j[1], side, rng.uniform(0, 360), PHOTO_CROP,
                                         PHOTO_CROP_OBJECT))
                classes.append(value)
    return crops, classes


def near_misses(image, objects, rng, copies: int = 4, crop: int = PHOTO_CROP,
                span: int = PHOTO_CROP_OBJECT) -> list[np.ndarray]:
    """Crops centred beside each labelled die, 0.75 to 1.1 of a die from its top face, where no other die lies: part
    of a die in view but none at the middle, which is what a second find of one die shows (its side face, its
    shadow). Labelled nothing, so the reader learns that a die counts only where it is centred."""
    out = []
    for _, cx, cy, size in objects:
        for _ in range(copies):
            turn, reach = rng.uniform(0, 2 * math.pi), rng.uniform(0.75, 1.1) * size
            x, y = cx + reach * math.cos(turn), cy + reach * math.sin(turn)
            if all(math.hypot(x - ox, y - oy) > 0.7 * os_ for _, ox, oy, os_ in objects):
                out.append(affine_crop(image, x, y, size * rng.uniform(0.85, 1.2), rng.uniform(0, 360), crop, span))
    return out


# -- augmentation ---------------------------------------------------------------------------------

def camera_jitter(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What another webcam does to a photo, on top of `jitter`: gamma, saturation, a lower resolution, motion blur
    and JPEG, each on some of the batch (N, H, W, 3) uint8."""
    out = images.copy()
    for i in range(len(out)):
        x = out[i]
        if rng.random() < 0.5:  # gamma
            table = (255 * (np.arange(256) / 255) ** rng.uniform(0.6, 1.6)).astype(np.uint8)
            x = table[x]
        if rng.random() < 0.4:  # saturation, either way
            hsv = cv2.cvtColor(x, cv2.COLOR_BGR2HSV).astype(np.float32)
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.3, 2.0), 0, 255)
            x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        if rng.random() < 0.3:  # a coarser camera: down and up again
            side = x.shape[0]
            small = max(8, int(side * rng.uniform(0.35, 0.8)))
            x = cv2.resize(cv2.resize(x, (small, small), interpolation=cv2.INTER_AREA), (side, side),
                           interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.15:  # motion blur
            k = int(rng.integers(3, 8))
            kernel = np.zeros((k, k), np.float32)
            kernel[k // 2] = 1 / k
            m = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), rng.uniform(0, 180), 1.0)
            kernel = cv2.warpAffine(kernel, m, (k, k))
            x = cv2.filter2D(x, -1, kernel / max(kernel.sum(), 1e-6))
        if rng.random() < 0.3:
            ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
            x = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out[i] = x
    return out


def jitter(images: np.ndarray, rng: np.random.Generator, invert: float = 0.0) -> np.ndarray:
    """Light, colour, blur and noise on a batch (N, H, W, 3) uint8; some inverted (dark dice, light pips)."""
    out = images.astype(np.float32)
    n = len(out)
    gain = rng.uniform(0.6, 1.4, (n, 1, 1, 1)) * rng.uniform(0.85, 1.15, (n, 1, 1, 3))
    out = out * gain + rng.uniform(-30, 30, (n, 1, 1, 1))
    flip = rng.random(n) < invert
    out[flip] = 255 - out[flip]
    out += rng.normal(0, 1, out.shape) * rng.uniform(0, 8, (n, 1, 1, 1))
    out = np.clip(out, 0, 255).astype(np.uint8)
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        out[i] = cv2.GaussianBlur(out[i], (0, 0), rng.uniform(0.4, 1.2))
    return out


def heat_targets(objects, size: int, rng=None) -> np.ndarray:
    """(7, size/4, size/4): die heat, cube heat, offset x, offset y, log size, where the last three count, and
    where nothing counts (a hidden object)."""
    g = size // STRIDE
    t = np.zeros((7, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for kind, x, y, s in objects:
        cx, cy = x / STRIDE - 0.5, y / STRIDE - 0.5
        if kind == HIDDEN:
            t[6] = np.maximum(t[6], (np.abs(xx - cx) <= s / STRIDE) & (np.abs(yy - cy) <= s / STRIDE))
            continue
        ix, iy = int(round(cx)), int(round(cy))
        if not (0 <= ix < g and 0 <= iy < g):
            continue
        sigma = max(0.6, s / STRIDE / 4)
        t[kind] = np.maximum(t[kind], np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2)))
        t[kind, iy, ix] = 1.0
        t[2, iy, ix], t[3, iy, ix], t[4, iy, ix], t[5, iy, ix] = cx - ix, cy - iy, math.log(s), 1.0
    return t


def finder_patches(planes, photo_set, n: int, rng: np.random.Generator):
    """`n` training patches for the finder: two in three from rendered planes, the rest from rescaled photos."""
    xs, ts = [], []
    for i in range(n):
        if i % 3 != 2:
            rectified, objects = planes[int(rng.integers(len(planes)))]
            img, objs = rectified, [(k, x, y, s) for k, x, y, s in objects]
        else:
            image, objects = photo_set[int(rng.integers(len(photo_set)))]
            typical = float(np.median([o[3] for o in objects]))
            large = rng.random() < 0.25  # the next pyramid level up: dice too big to count, pips not dice
            scale = rng.uniform(32.0, 70.0) / typical if large else rng.uniform(*FINDER_SIZES) / typical
            img = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
            objs = [] if large else [(0, x * scale, y * scale, s * scale) for _, x, y, s in objects]
            if rng.random() < 0.3:
                img = 255 - img
        h, w = img.shape[:2]
        if h < PATCH or w < PATCH:
            pad_y, pad_x = max(0, PATCH - h), max(0, PATCH - w)
            img = cv2.copyMakeBorder(img, 0, pad_y, 0, pad_x, cv2.BORDER_REFLECT)
            h, w = img.shape[:2]
        if objs and rng.random() < 0.7:
            _, ox, oy, _ = objs[int(rng.integers(len(objs)))]
            x0 = int(np.clip(ox - rng.uniform(16, PATCH - 16), 0, w - PATCH))
            y0 = int(np.clip(oy - rng.uniform(16, PATCH - 16), 0, h - PATCH))
        else:
            x0, y0 = int(rng.integers(0, w - PATCH + 1)), int(rng.integers(0, h - PATCH + 1))
        patch = img[y0:y0 + PATCH, x0:x0 + PATCH]
        objs = [(k, x - x0, y - y0, s) for k, x, y, s in objs]
        k = int(rng.integers(4))  # quarter turns and a flip: dice have no up
        patch, objs = _turn(patch, objs, k, bool(rng.random() < 0.5))
        xs.append(patch)
        ts.append(heat_targets(objs, PATCH))
    return jitter(np.array(xs), rng), np.array(ts)


def _turn(patch, objs, k: int, flip: bool):
    """Turn a patch by k quarter turns counter-clockwise, then mirror it left to right if `flip`, and its objects
    with it. Positions are pixel-centred (pixel i's centre is at i), so pixel x goes to PATCH - 1 - x: with
    PATCH - x the targets sat half a pixel down and right of the dice on average, and so did every find."""
    for _ in range(k):
        patch = cv2.rotate(patch, cv2.ROTATE_90_COUNTERCLOCKWISE)
        objs = [(kind, y, PATCH - 1 - x, s) for kind, x, y, s in objs]
    if flip:
        patch = patch[:, ::-1]
        objs = [(kind, PATCH - 1 - x, y, s) for kind, x, y, s in objs]
    return np.ascontiguousarray(patch), objs


# -- the networks ---------------------------------------------------------------------------------

def networks():
    import torch.nn as nn

    def block(i, o, stride=1, dilation=1):
        return [nn.Conv2d(i, o, 3, stride, dilation, dilation=dilation), nn.BatchNorm2d(o), nn.ReLU()]

    def separable(i, o, dilation=1, stride=1):  # cheap per channel: a full 3x3 16->32 cost the finder 0.6 ms
        return [nn.Conv2d(i, i, 3, stride, dilation, dilation=dilation, groups=i), nn.BatchNorm2d(i), nn.ReLU(),
                nn.Conv2d(i, o, 1), nn.BatchNorm2d(o), nn.ReLU()]

    finder = nn.Sequential(*block(3, 16, 2), *separable(16, 32, stride=2), *separable(32, 48), *separable(48, 48, 2),
                           *separable(48, 48, 3), nn.Conv2d(48, 5, 1))
    nn.init.constant_(finder[-1].bias[:2], -2.19)  # CenterNet's start: a low prior of an object per cell
    reader = nn.Sequential(*block(3, 24), nn.MaxPool2d(2), *block(24, 32), nn.MaxPool2d(2), *block(32, 64),
                           nn.MaxPool2d(2), *block(64, 64), nn.Flatten(), nn.Dropout(0.2),
                           nn.Linear(64 * 5 * 5, 96), nn.ReLU(), nn.Linear(96, len(CLASSES) + 2))
    side = PHOTO_CROP // 16  # the board reader's layers and one more halving
    photo_reader = nn.Sequential(*block(3, 24), nn.MaxPool2d(2), *block(24, 32), nn.MaxPool2d(2), *block(32, 64),
                                 nn.MaxPool2d(2), *block(64, 64), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2),
                                 nn.Linear(64 * side * side, 96), nn.ReLU(), nn.Linear(96, len(CLASSES) + 2))
    return finder, reader, photo_reader


def finder_loss(out, t):
    import torch

    loss = 0
    for kind in (0, 1):  # CenterNet's focal loss
        p = torch.sigmoid(out[:, kind]).clamp(1e-4, 1 - 1e-4)
        gt = t[:, kind]
        pos = (gt == 1).float()
        neg = (1 - pos) * (1 - gt) ** 4 * (1 - t[:, 6])
        loss = loss - ((1 - p) ** 2 * torch.log(p) * pos + p ** 2 * torch.log(1 - p) * neg).sum() / pos.sum().clamp(min=1)
    mask = t[:, 5]
    reg = (torch.abs(out[:, 2:5] - t[:, 2:5]).sum(1) * mask).sum() / mask.sum().clamp(min=1)
    return loss + reg


def _optimiser(model, rate: float, steps: int):
    import torch

    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, rate, total_steps=steps)


def _step(opt, sched, loss) -> None:
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()


def train_finder(finder, planes, photo_set, steps: int, rng):
    import torch

    opt, sched = _optimiser(finder, 3e-3, steps)
    finder.train()
    for step in range(steps):
        x, t = finder_patches(planes, photo_set, 32, rng)
        loss = finder_loss(finder(torch.from_numpy(normalise(x))), torch.from_numpy(t))
        _step(opt, sched, loss)
        if step % 200 == 0:
            print(f"  finder step {step}: loss {loss.item():.3f}", flush=True)
    finder.eval()


def train_reader(reader, crops, classes, cocked, steps: int, rng, invertible, camera: bool = False):
    import torch
    import torch.nn.functional as F

    opt, sched = _optimiser(reader, 2e-3, steps)
    classes_t, cocked_t = torch.tensor(classes), torch.tensor(cocked, dtype=torch.float32)
    weights = np.bincount(classes, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((weights.sum() / np.maximum(weights, 1) / len(CLASSES)) ** 0.5, dtype=torch.float32)
    reader.train()
    for step in range(steps):
        idx = rng.integers(0, len(crops), 96)
        x = jitter(camera_jitter(crops[idx], rng) if camera else crops[idx], rng, 0.0)
        flip = invertible[idx] & (rng.random(len(idx)) < 0.3)
        x[flip] = 255 - x[flip]
        x = np.array([np.rot90(c, int(k)) for c, k in zip(x, rng.integers(0, 4, len(x)))])
        out = reader(torch.from_numpy(normalise(x)))
        loss = F.cross_entropy(out[:, :len(CLASSES)], classes_t[idx], weight=weights)
        for k in (0, 1):  # cocked, resting on a checker: only where known
            c = cocked_t[idx, k]
            has = c >= 0
            if has.any():
                loss = loss + OUTPUT_WEIGHTS[k] * F.binary_cross_entropy_with_logits(out[has, len(CLASSES) + k], c[has])
        _step(opt, sched, loss)
        if step % 300 == 0:
            print(f"  reader step {step}: loss {loss.item():.3f}", flush=True)
    reader.eval()


def _reuse(model: Path, path: Path) -> None:
    if model.resolve() != path.resolve():
        shutil.copyfile(model, path)


def export(model, shape, path: Path) -> None:
    import torch

    torch.onnx.export(model, torch.zeros(shape), str(path), dynamo=False, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}, "y": {0: "n"}}, opset_version=13)


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=5000)
    parser.add_argument("--photos", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/dice_photos")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "companion/vision/models")
    parser.add_argument("--hold-out-fold", type=int, nargs="+", default=[0])
    parser.add_argument("--finder-steps", type=int, default=8000)
    parser.add_argument("--reader-steps", type=int, default=10000)
    parser.add_argument("--photo-reader-steps", type=int, default=2500)
    parser.add_argument("--finder", type=Path, help="reuse this trained dice_finder.onnx: train the readers only")
    parser.add_argument("--reader", type=Path,
                        help="reuse this trained dice_reader.onnx (with --finder: train the photo reader only)")
    parser.add_argument("--seed", type=int, default=0,
                        help="the same recipe with other random draws: the spread between trainings")
    parser.add_argument("--photo-extra", nargs="*", default=[], choices=("near", "mined", "camera"),
                        help="photo reader: near-miss crops beside each die as nothing; every find down to 0.1 as "
                             "hard negatives; a second camera's augmentation")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (1 to leave a core to other work)")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    photo_set = [photo_objects(p) for p in photos(args.photos) if fold_of(p.name) not in args.hold_out_fold]
    if not photo_set:  # a model trained on renders alone reads real dice badly (77 % on fold 1): never by accident
        parser.error(f"no labelled photos to train on in {args.photos} (pass --photos)")
    start = time.time()
    renders = []
    if args.finder is None or args.reader is None:
        with ProcessPoolExecutor(2) as pool:
            renders = list(pool.map(render_sample, range(args.frames), chunksize=16))
        print(f"{len(renders)} frames rendered in {time.time() - start:.0f} s", flush=True)
    print(f"{len(photo_set)} photos ({sum(len(o) for _, o in photo_set)} dice) for training", flush=True)
    finder, reader, photo_reader = networks()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.finder is not None:
        _reuse(args.finder, args.out / "dice_finder.onnx")
    else:
        train_finder(finder, [(r[0], r[1]) for r in renders], photo_set, args.finder_steps, rng)
        print(f"finder trained at {time.time() - start:.0f} s", flush=True)
        export(finder, (1, 3, 128, 128), args.out / "dice_finder.onnx")
    finding = Network(args.out / "dice_finder.onnx")
    finds = [photo_finds(finding, image) for image, _ in photo_set]

    if args.reader is not None:
        _reuse(args.reader, args.out / "dice_reader.onnx")
    else:
        crops, classes, cocked, invertible = [], [], [], []
        for r in renders:
            crops += list(r[2]); classes += r[3]; cocked += r[4]; invertible += [False] * len(r[3])
        for image, objects in photo_set:
            c, k = photo_crops(image, objects, rng)
            crops += c; classes += k; cocked += [(0.0, -1.0) if v else (-1.0, -1.0) for v in k]
            invertible += [True] * len(k)
        # hard negatives: what the finder marks on training images that is not there
        hard = hard_negatives(finding, renders)
        for image, objects in photo_set:
            hard += photo_hard_negatives(image, objects, photo_finds(finding, image, every=True))
        if len(hard) > 8000:
            hard = [hard[i] for i in rng.choice(len(hard), 8000, replace=False)]
        crops += hard; classes += [0] * len(hard); cocked += [(-1.0, -1.0)] * len(hard)
        invertible += [False] * len(hard)
        print(f"reader: {len(crops)} crops ({len(hard)} hard negatives)", flush=True)
        train_reader(reader, np.array(crops, np.uint8), classes, cocked, args.reader_steps, rng, np.array(invertible))
        export(reader, (1, 3, CROP, CROP), args.out / "dice_reader.onnx")
        print(f"reader trained at {time.time() - start:.0f} s", flush=True)

    crops, classes = [], []
    extra = set(args.photo_extra)
    for (image, objects), found in zip(photo_set, finds):
        for c, k in (photo_crops(image, objects, rng, 24, PHOTO_CROP, PHOTO_CROP_OBJECT),
                     finder_placed_crops(image, objects, found, rng)):
            crops += c; classes += k
        if "mined" in extra:  # every find of the finder, down to 0.1 and of any size
            found = [(f.x / scale, f.y / scale, f.size / scale) for scale, small in photo_pyramid(image)
                     for f in decode(finding(normalise(small))[0], 0.1)]
        hard = photo_hard_negatives(image, objects, found, PHOTO_CROP, PHOTO_CROP_OBJECT)
        if "near" in extra:
            hard += near_misses(image, objects, rng)
        crops += hard; classes += [0] * len(hard)
    print(f"photo reader: {len(crops)} crops ({classes.count(0)} nothing; extras {sorted(extra)})", flush=True)
    cocked = [(0.0, -1.0) if v else (-1.0, -1.0) for v in classes]
    train_reader(photo_reader, np.array(crops, np.uint8), classes, cocked, args.photo_reader_steps, rng,
                 np.ones(len(classes), bool), camera="camera" in extra)
    export(photo_reader, (1, 3, PHOTO_CROP, PHOTO_CROP), args.out / "dice_photo_reader.onnx")
    print(f"done in {time.time() - start:.0f} s -> {args.out}", flush=True)
    return 0


def hard_negatives(finder: Network, renders, frames: int = 600) -> list[np.ndarray]:
    """Board reader crops of what the finder marks on training frames that is not there."""
    out = []
    for index in range(min(frames, len(renders))):
        image, _, _, plane, rectified, _, _ = render_frame(index)  # the same frame again (seeded)
        objects = renders[index][1]
        for f in decode(finder(normalise(rectified))[0], 0.2):
            if all(math.hypot(f.x - x, f.y - y) > 0.6 * s for _, x, y, s in objects):
                out.append(crop_on_plane(image, plane, *Plane.mm(f.x, f.y), f.size * MM_PER_PX))
    return out


def photo_hard_negatives(image, objects, finds, crop: int = CROP, span: int = CROP_OBJECT) -> list[np.ndarray]:
    """Crops of what the finder marks in a training photo that is no die: a speck, a key, a die's pip."""
    from companion.vision.dice import crop_square

    return [crop_square(image, x, y, s, crop, span) for x, y, s in finds
            if all(math.hypot(x - ox, y - oy) > 0.6 * os_ or s < 0.6 * os_ for _, ox, oy, os_ in objects)]

if __name__ == "__main__":
    raise SystemExit(main())
