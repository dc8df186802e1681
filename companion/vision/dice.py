"""Dice and the doubling cube in a camera image: where they lie and what they show.

Two small convolutional networks, trained by `tools/train_dice.py` (PyTorch) on real webcam photos of dice and
on rendered development boards, shipped as ONNX and run by ONNX Runtime (`companion.vision.network`):

- the *finder* looks at a small image in which a die is about 10 px across and marks the centres of dice and of
  the cube, with each one's size (a CenterNet-style heat map at a stride of 4);
- the *reader* looks at a 40 px crop around each find, the object about 24 px across, and says what it is
  (nothing, a die showing 1..6, the cube showing 2..64) and whether a die is cocked;
- the *photo reader* does the same for any photo that is not a board, from a 64 px crop in which the object spans
  40 px, trained on real photos alone.

On a board the finder runs on the rectified plane the board reader already made (2 mm a pixel, so a 19 mm die
is 9.5 px) and the reader's crops are taken straight down from the full frame; in any other photo the finder
runs over a three-level pyramid. Whether a roll counts (which half, on a checker) is `companion.vision.roll`'s
business: this module only says what lies where.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.layout import FRAME
from companion.vision.network import Network
from companion.vision.plane import MARGIN_X, MM_PER_PX, Plane

MODELS = Path(__file__).with_name("models")
STRIDE = 4
"""Finder input pixels per heat-map cell."""
FINDER_SIZES = (8.0, 22.0)
"""The object sizes (finder pixels, a die's visible box) the finder was trained on; other finds are dropped."""
CROP = 40
CROP_OBJECT = 24
"""A found object's box spans this many of the reader crop's pixels."""
PHOTO_CROP = 64
PHOTO_CROP_OBJECT = 40
"""The photo reader's crop and the object's span in it. A photo's die is often seen from the side, its top face a
narrow band above a side face: at the board reader's 24 px the top face's one pip is a speck beside the side face's
plainer pips. Photos have no frame rate to keep."""
FACES = (1, 2, 3, 4, 5, 6)
CUBE_FACES = (2, 4, 8, 16, 32, 64)
CLASSES = ("none",) + tuple(f"die{v}" for v in FACES) + tuple(f"cube{v}" for v in CUBE_FACES)
FIND_THRESHOLD = 0.3
SECOND_LOOK = 0.12
"""On a board where the reader confirms fewer than two dice, the best SECOND_LOOK_FINDS fainter finds down to this
go to it too (a white die on a cream board is faint at 2 mm a pixel; the reader still sees its pips)."""
SECOND_LOOK_FINDS = 3
READ_THRESHOLD = 0.5
"""A find the reader calls an object with less than this probability is dropped (it was not one)."""
COCKED_THRESHOLD = 0.7
"""The reader's cocked output above which a die counts as cocked. Set on `dev-hard` frames 0..1499 with the
session-13 reader: 76 of 79 cocked dice caught and none of 2,117 flat finds called cocked at 0.7; 74 at 0.8, and
at 0.5 one flat die called cocked. (The session-8 reader at 0.8 caught 63 and called 8 flat dice cocked.) A valid
roll called void costs a re-roll every time."""
BOARD_DICE = 4
"""At most this many dice are kept on a board, the most confident: a roll is two, and a stray pair beside it is
worth reporting; more is the finder's noise. A photo keeps every die it shows."""
BOARD_DIE_MM = (15.0, 27.0)
"""The crop sizes a die on a board may have (mm): see `_size_mm`."""
PHOTO_TURNS = 4
"""A photo's finds are read in four quarter turns and the answers averaged: on the real photos' held-out fold
this leaves the dice read right unchanged and the invented dice at 2 instead of 8 (keyboard keys, cable labels).
On a board it changed nothing (the same 5 of 1,115 dev-hard valid rolls missed), so a board read is done in one."""
PHOTO_SAME_SIZE = 0.5
"""Dice in one photo are one size. A die read under this fraction of the surest die's size is a pip, a speck or a
key seen as a die. Set on the photos' training folds (683 real dice, none from the held-out fold): real dice
measured 0.62 and up against the surest, the finds that were no die 0.41 and down."""
PHOTO_OVERLAP = 0.5
"""Two finds in a photo are one die when their centres are nearer than this fraction of the finder's size on both
axes. A die's top face spans about half that size (median 0.47 on the training folds), so the board's 0.8 took
touching dice for one: on the training folds 96.9 % of dice read right at 0.8, 97.6 % at 0.5."""
PHOTO_LEVELS = (128, 256, 512)
"""Long sides of the pyramid the finder sees for a photo of unknown scale: dice of 1/16 to 1/6 of the photo's
long side at the first level, half and a quarter of that at the next."""


@dataclass(frozen=True, slots=True)
class DieRead:
    value: int
    box: tuple[int, int, int, int]
    """x, y, width, height in image pixels."""
    confidence: float
    cocked: bool
    at: tuple[float, float] | None = None
    """The centre on the playing area, mm from its top-left corner in image order (board reads only)."""


@dataclass(frozen=True, slots=True)
class CubeRead:
    value: int
    box: tuple[int, int, int, int]
    confidence: float
    at: tuple[float, float] | None = None


@dataclass
class Found:
    """What one image shows: its dice (left to right) and the cube, if seen."""

    dice: tuple[DieRead, ...] = ()
    cube: CubeRead | None = None


def normalise(image: np.ndarray) -> np.ndarray:
    """BGR uint8 (H, W, 3) or (N, H, W, 3) -> the networks' float input, NCHW, roughly zero-centred."""
    x = image.astype(np.float32) * (1 / 64.0) - 2.0
    return x.transpose(2, 0, 1)[None] if x.ndim == 3 else x.transpose(0, 3, 1, 2)


@lru_cache(maxsize=2)
def _nets(folder: str) -> tuple[Network, Network, Network]:
    return tuple(Network(Path(folder) / f"dice_{name}.onnx") for name in ("finder", "reader", "photo_reader"))


@dataclass(frozen=True, slots=True)
class _Find:
    kind: int
    """0 die, 1 cube."""
    x: float
    y: float
    size: float
    score: float


def decode(out: np.ndarray, threshold: float = FIND_THRESHOLD) -> list[_Find]:
    """The finder's map (5, h, w): die and cube heat (logits), cell offsets x and y, log size; local peaks."""
    finds = []
    least = np.log(threshold / (1 - threshold))  # peaks are found on the logits: the sigmoid keeps their order
    for kind in (0, 1):
        logit = np.ascontiguousarray(out[kind])
        peaks = (logit >= cv2.dilate(logit, np.ones((3, 3), np.uint8))) & (logit > least)
        for y, x in zip(*np.nonzero(peaks)):
            size = float(np.exp(out[4, y, x]))
            finds.append(_Find(kind, (x + 0.5 + out[2, y, x]) * STRIDE, (y + 0.5 + out[3, y, x]) * STRIDE, size,
                               float(1 / (1 + np.exp(-logit[y, x])))))
    return finds


def _suppress(finds: list[_Find], overlap: float = 0.8) -> list[_Find]:
    """Drop a find whose centre lies too near a better one's to be another object: dice do not overlap, so two
    centres less than 0.8 of a die apart are one die found twice."""
    kept: list[_Find] = []
    for f in sorted(finds, key=lambda f: -f.score):
        if all(abs(f.x - k.x) > overlap * max(f.size, k.size) or abs(f.y - k.y) > overlap * max(f.size, k.size)
               for k in kept):
            kept.append(f)
    return kept


def finder_knows(size: float) -> bool:
    """Whether a find's size (finder pixels) is near enough the sizes the finder was trained on to be kept."""
    return FINDER_SIZES[0] * 0.8 <= size <= FINDER_SIZES[1] * 1.2


def photo_pyramid(image: np.ndarray) -> Iterator[tuple[float, np.ndarray]]:
    """(scale, the photo shrunk by it) for each of `PHOTO_LEVELS` the photo is large enough for, coarse to fine."""
    long_side = max(image.shape[:2])
    for level in PHOTO_LEVELS:
        scale = level / long_side
        if scale > 1.0:
            return
        yield scale, cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def crop_square(image: np.ndarray, cx: float, cy: float, size: float, crop: int = CROP,
                span: int = CROP_OBJECT) -> np.ndarray:
    """A `crop` x `crop` patch, axis-aligned, centred on (cx, cy), in which a box of `size` pixels spans `span`
    pixels. Shrinks by area (no aliasing of pips); pads by repeating the edge."""
    side = size * crop / span
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    n = max(2, int(round(side)))
    h, w = image.shape[:2]
    pad = max(0, -x0, -y0, x0 + n - w, y0 + n - h)
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        x0, y0 = x0 + pad, y0 + pad
    patch = image[y0:y0 + n, x0:x0 + n]
    return cv2.resize(patch, (crop, crop), interpolation=cv2.INTER_AREA if n > crop else cv2.INTER_LINEAR)


def crop_on_plane(image: np.ndarray, plane: Plane, x_mm: float, y_mm: float, size_mm: float) -> np.ndarray:
    """A CROP x CROP patch seen straight down, centred on (x_mm, y_mm) of the playing area, in which `size_mm`
    spans CROP_OBJECT pixels."""
    mm_per_px = size_mm / CROP_OBJECT
    half = mm_per_px * CROP / 2
    return plane.warp(image, (x_mm - half, y_mm - half), mm_per_px, (CROP, CROP))


class DiceReader:
    """Finds and reads dice and the cube. Cheap to build: the networks load once per process."""

    def __init__(self, models: Path = MODELS) -> None:
        self.finder, self.reader, self.photo_reader = _nets(str(models))

    # -- the networks -------------------------------------------------------------------------------

    def _find(self, image: np.ndarray, threshold: float = FIND_THRESHOLD) -> list[_Find]:
        return [f for f in decode(self.finder(normalise(image))[0], threshold) if finder_knows(f.size)]

    def classify(self, crops: np.ndarray, turns: int = 1,
                 reader: Network | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (N, len(CLASSES)), and for each the probabilities (N, 2) that a die is cocked and
        that it rests on a checker. The second is a training aid only: measured on held-out boards it calls too
        many dice beside a checker resting on it, so `roll` judges that from the board reading instead.
        `turns` > 1 averages over that many quarter turns of each crop: a die reads the same turned, a
        keyboard key or a printed letter seldom does. `reader` is the board reader unless given."""
        if not len(crops):
            return np.zeros((0, len(CLASSES))), np.zeros((0, 2))
        views = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(turns)])
        out = (reader or self.reader)(normalise(views)).reshape(turns, len(crops), -1)
        logits = out[..., :len(CLASSES)]
        p = np.exp(logits - logits.max(axis=2, keepdims=True))
        p = p / p.sum(axis=2, keepdims=True)
        return p.mean(axis=0), (1 / (1 + np.exp(-out[..., len(CLASSES):len(CLASSES) + 2]))).mean(axis=0)

    # -- any photo ----------------------------------------------------------------------------------

    def read_photo(self, image: np.ndarray) -> Found:
        """Dice and cube anywhere in a photo of unknown scale."""
        finds: list[_Find] = []
        # coarse to fine: a find inside a coarser one is a pip of it, or it again
        for scale, small in photo_pyramid(image):
            finer = [_Find(f.kind, f.x / scale, f.y / scale, f.size / scale, f.score) for f in self._find(small)]
            finds += [f for f in _suppress(finer, PHOTO_OVERLAP)
                      if all(abs(f.x - k.x) > 0.6 * k.size or abs(f.y - k.y) > 0.6 * k.size for k in finds)]
        crops = np.array([crop_square(image, f.x, f.y, f.size, PHOTO_CROP, PHOTO_CROP_OBJECT) for f in finds])
        crops = crops.reshape(-1, PHOTO_CROP, PHOTO_CROP, 3)
        found = self._assemble(finds, *self.classify(crops, PHOTO_TURNS, self.photo_reader), most=len(finds))
        if not found.dice:
            return found
        least = PHOTO_SAME_SIZE * max(found.dice, key=lambda d: d.confidence).box[2]
        return replace(found, dice=tuple(d for d in found.dice if d.box[2] >= least))

    # -- a board ------------------------------------------------------------------------------------

    def read_board(self, image: np.ndarray, plane: Plane, rectified: np.ndarray | None = None,
                   trays: str | None = None) -> Found:
        """Dice and cube on a board: `rectified` is `plane.rectify(image)`, if the caller has it already. `trays`
        ('left' or 'right', image order), when known, spares the finder the plane's margin on the other side,
        which is there to hold a tray on either side and holds nothing else."""
        if rectified is None:
            rectified = plane.rectify(image)
        x0, x1 = _finder_columns(rectified.shape[1], trays)
        finds = [replace(f, x=f.x + x0) for f in _suppress(self._find(rectified[:, x0:x1], SECOND_LOOK))]
        sure = [f for f in finds if f.score >= FIND_THRESHOLD]
        probs, cocked = self._classify_on_board(image, plane, sure)
        found = self._assemble(sure, probs, cocked, BOARD_DICE, plane)
        if len(found.dice) < 2:  # a roll is two dice: the reader judges the likeliest fainter finds too
            fainter = sorted((f for f in finds if f.score < FIND_THRESHOLD and f.kind == 0), key=lambda f: -f.score)
            fainter = fainter[:SECOND_LOOK_FINDS]
            more_probs, more_cocked = self._classify_on_board(image, plane, fainter)
            found = self._assemble(sure + fainter, np.concatenate([probs, more_probs]),
                                   np.concatenate([cocked, more_cocked]), BOARD_DICE, plane)
        return found

    def _classify_on_board(self, image: np.ndarray, plane: Plane, finds: list[_Find]):
        crops = np.array([crop_on_plane(image, plane, *Plane.mm(f.x, f.y), _size_mm(f)) for f in finds])
        return self.classify(crops.reshape(-1, CROP, CROP, 3))

    def _assemble(self, finds: list[_Find], probs: np.ndarray, cocked: np.ndarray, most: int,
                  plane: Plane | None = None) -> Found:
        """Dice and the cube from the finds and the reader's answers on them; `plane` for a board (places in mm,
        boxes in the image), None for a photo (the finds are in the photo's pixels)."""
        dice, cubes = [], []
        for f, p, c in zip(finds, probs, cocked):
            best = int(np.argmax(p))
            leaning = 1 <= best <= 6 and c[0] > COCKED_THRESHOLD and p[1:7].sum() >= READ_THRESHOLD
            if best == 0 or (p[best] < READ_THRESHOLD and not leaning):
                continue  # a cocked die shows two faces and may split its vote between them: it is still a die
            at = Plane.mm(f.x, f.y) if plane is not None else None
            box, confidence = _box(f, plane), float(p[best] * f.score ** 0.5)
            if best <= 6:
                dice.append(DieRead(FACES[best - 1], box, confidence, bool(c[0] > COCKED_THRESHOLD), at))
            else:
                cubes.append(CubeRead(CUBE_FACES[best - 7], box, confidence, at))
        dice.sort(key=lambda d: -d.confidence)
        cube = max(cubes, key=lambda c: c.confidence) if cubes else None
        return Found(tuple(sorted(dice[:most], key=lambda d: d.box[0])), cube)


def _finder_columns(width: int, trays: str | None) -> tuple[int, int]:
    """The plane's columns the finder looks at: all of them, or without the margin on the side away from the
    trays, keeping the frame there (a die on it is off the playing area; the finder should still see it)."""
    spare = int((MARGIN_X - FRAME) / MM_PER_PX) // STRIDE * STRIDE
    return (spare if trays == "right" else 0), (width - spare if trays == "left" else width)


def _size_mm(f: _Find) -> float:
    """A find's size on the board for its crop. A die is 15-19 mm across (up to 27 mm turned 45 degrees): a finder
    size outside that is the finder's error, and too wide a crop leaves the die too small for the reader."""
    size = f.size * MM_PER_PX
    return float(np.clip(size, *BOARD_DIE_MM)) if f.kind == 0 else size


def _box(f: _Find, plane: Plane | None) -> tuple[int, int, int, int]:
    if plane is None:
        return (int(round(f.x - f.size / 2)), int(round(f.y - f.size / 2)), int(round(f.size)), int(round(f.size)))
    half = f.size / 2
    pts = np.array([[f.x - half, f.y - half], [f.x + half, f.y - half], [f.x + half, f.y + half],
                    [f.x - half, f.y + half]], np.float64).reshape(-1, 1, 2)
    x, y, w, h = cv2.boundingRect(cv2.perspectiveTransform(pts, plane.to_image).astype(np.float32))
    return (int(x), int(y), int(w), int(h))


__all__ = ["CLASSES", "CROP", "CROP_OBJECT", "CUBE_FACES", "PHOTO_CROP", "PHOTO_CROP_OBJECT", "CubeRead",
           "DiceReader", "DieRead", "Found", "crop_on_plane", "crop_square", "decode", "finder_knows", "normalise",
           "photo_pyramid"]
