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
is 9.5 px) and the reader's crops are taken straight down from the full frame; each die the reader confirms
is then placed by the finder again, over a small patch around it in eight views (`place_die`). In any other
photo the finder runs over a three-level pyramid. Whether a roll counts (which half, on a checker) is
`companion.vision.roll`'s business: this module only says what lies where.
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
NONE, DIE, CUBE = range(3)
"""What the reader may say a find is (`_kinds`): the classes' groups."""
FIND_THRESHOLD = 0.3
SECOND_LOOK = 0.12
"""On a board where the reader confirms fewer than two dice, the best SECOND_LOOK_FINDS fainter finds down to this
go to it too (a white die on a cream board is faint at 2 mm a pixel; the reader still sees its pips)."""
SECOND_LOOK_FINDS = 3
READ_THRESHOLD = 0.5
"""A find the reader calls an object (a die, the cube) with less than this probability is dropped (it was not
one). In a photo a die's likeliest face must also reach it: a find there whose face the reader cannot settle is
as often a key or a speck (on the photos' training folds, keeping such finds invented a die and read none more).
On a board a roll is two dice, and a sure find whose face is split is kept with the likelier face: on `dev-hard`
frames 0..5999 (with `BOARD_UNSURE` and `place_die`) that read 3 more of 3,376 valid rolls right and flagged 2 more
of 1,081 invalid ones, and lost none. The fainter finds of the second look still need a sure face: kept, they
showed a die on 38 of the 1,242 empty boards against 23 (one as a roll), for one invalid roll more flagged."""
COCKED_THRESHOLD = 0.7
"""The reader's cocked output above which a die counts as cocked. Set on `dev-hard` frames 0..1499 with the
session-13 reader: 76 of 79 cocked dice caught and none of 2,117 flat finds called cocked at 0.7; 74 at 0.8, and
at 0.5 one flat die called cocked. (The session-8 reader at 0.8 caught 63 and called 8 flat dice cocked.) A valid
roll called void costs a re-roll every time."""
BOARD_UNSURE = 0.9
"""On a board, a crop whose likeliest class the reader gives less than this is read again in the other three
quarter turns and the four answers averaged (`PHOTO_TURNS` for every crop of a photo). Only the unsure few pay
for it: 243 of the 14,445 finds of `dev-hard` frames 0..5999 the finder was sure of. Turned, a round spot reads as
a one as surely as a die's one does, which is why a faint find must still show a sure face (`READ_THRESHOLD`)."""
PLACE_PATCH = 48
"""The finder's second look at a die on a board: a patch this wide (plane pixels, 96 mm) around it, seen in the
eight ways a square can be turned and flipped; the die's place is the mean of the eight places found. On
`dev-hard` frames 0..5999 (`dice_bench.py`, about 9,160 dice) the places' error fell from a median 1.07 mm (p95
2.71, 101 over 4 mm) to 0.74 mm (p95 1.96, 17 over 4 mm), with no lean towards a checker (the mean offset stayed
+0.3 mm down and right); within 5 mm of the on-a-checker line the spread roughly halved (docs/VISION.md)."""
PLACE_LEAST = 0.02
"""The heat at which a view's find still counts in `place_die`: the die is known to be there."""
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
PHOTO_SIDE_FACE = 0.8
PHOTO_SIDE_SHARE = 0.7
"""A die in a photo whose centre lies within `PHOTO_SIDE_FACE` of a surer die's box (its width, its height, on both
axes) and whose confidence is under `PHOTO_SIDE_SHARE` of that die's is the same die found again: its side face
(a close, oblique die shows a side face nearly as large as its top, with pips of its own) or its shadow.
Touching dice are found alike and read as surely as each other. Set on the photos' folds 1-3 read by photo
readers trained without them, with the finder's threshold also lowered to 0.15 to see more such second finds."""
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
    n = max(2, int(round(side)))
    patch = _window(image, int(round(cx - side / 2)), int(round(cy - side / 2)), n)
    return cv2.resize(patch, (crop, crop), interpolation=cv2.INTER_AREA if n > crop else cv2.INTER_LINEAR)


def crop_on_plane(image: np.ndarray, plane: Plane, x_mm: float, y_mm: float, size_mm: float) -> np.ndarray:
    """A CROP x CROP patch seen straight down, centred on (x_mm, y_mm) of the playing area, in which `size_mm`
    spans CROP_OBJECT pixels."""
    mm_per_px = size_mm / CROP_OBJECT
    half = mm_per_px * CROP / 2
    return plane.warp(image, (x_mm - half, y_mm - half), mm_per_px, (CROP, CROP))


class DiceReader:
    """Finds and reads dice and the cube. Cheap to build: the networks load once per process."""

    def __init__(self, models: Path = MODELS, photo_threshold: float = FIND_THRESHOLD) -> None:
        """`photo_threshold`: the finder's threshold in a photo; lower only to test how the reader copes with more
        finds than the finder's own threshold lets through (`dice_bench.py --photo-threshold`)."""
        self.finder, self.reader, self.photo_reader = _nets(str(models))
        self.photo_threshold = photo_threshold

    # -- the networks -------------------------------------------------------------------------------

    def _find(self, image: np.ndarray, threshold: float = FIND_THRESHOLD) -> list[_Find]:
        return [f for f in decode(self.finder(normalise(image))[0], threshold) if finder_knows(f.size)]

    def classify(self, crops: np.ndarray, turns: int = 1, reader: Network | None = None,
                 unsure: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (N, len(CLASSES)), and for each the probabilities (N, 2) that a die is cocked and
        that it rests on a checker. The second is a training aid only: measured on held-out boards it calls too
        many dice beside a checker resting on it, so `roll` judges that from the board reading instead.
        `turns` > 1 averages over that many quarter turns of each crop: a die reads the same turned, a
        keyboard key or a printed letter seldom does. `reader` is the board reader unless given. With `unsure`,
        the crops are read once and only those whose likeliest class is under `unsure` in four turns."""
        if not len(crops):
            return np.zeros((0, len(CLASSES))), np.zeros((0, 2))
        if unsure is not None:
            probs, cocked = self.classify(crops, 1, reader)
            again = probs.max(axis=1) < unsure
            if again.any():
                probs[again], cocked[again] = self.classify(crops[again], 4, reader)
            return probs, cocked
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
            finer = [_Find(f.kind, f.x / scale, f.y / scale, f.size / scale, f.score)
                     for f in self._find(small, self.photo_threshold)]
            finds += [f for f in _suppress(finer, PHOTO_OVERLAP)
                      if all(abs(f.x - k.x) > 0.6 * k.size or abs(f.y - k.y) > 0.6 * k.size for k in finds)]
        crops = np.array([crop_square(image, f.x, f.y, f.size, PHOTO_CROP, PHOTO_CROP_OBJECT) for f in finds])
        crops = crops.reshape(-1, PHOTO_CROP, PHOTO_CROP, 3)
        found = self._assemble(finds, *self.classify(crops, PHOTO_TURNS, self.photo_reader), most=len(finds),
                               sure_faces=True)
        if not found.dice:
            return found
        least = PHOTO_SAME_SIZE * max(found.dice, key=lambda d: d.confidence).box[2]
        return replace(found, dice=one_find_a_die([d for d in found.dice if d.box[2] >= least]))

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
        if (_kinds(probs) == DIE).sum() < 2:  # a roll is two dice: the reader judges the likeliest fainter finds too
            fainter = sorted((f for f in finds if f.score < FIND_THRESHOLD and f.kind == 0), key=lambda f: -f.score)
            more_probs, more_cocked = self._classify_on_board(image, plane, fainter[:SECOND_LOOK_FINDS])
            sure, probs, cocked = (sure + fainter[:SECOND_LOOK_FINDS], np.concatenate([probs, more_probs]),
                                   np.concatenate([cocked, more_cocked]))
        placed = [self.place_die(rectified, f) if kind == DIE else f for f, kind in zip(sure, _kinds(probs))]
        return self._assemble(placed, probs, cocked, BOARD_DICE, plane)

    def _classify_on_board(self, image: np.ndarray, plane: Plane, finds: list[_Find]):
        crops = np.array([crop_on_plane(image, plane, *Plane.mm(f.x, f.y), _size_mm(f)) for f in finds])
        return self.classify(crops.reshape(-1, CROP, CROP, 3), unsure=BOARD_UNSURE)

    def place_die(self, rectified: np.ndarray, find: _Find) -> _Find:
        """`find` placed again: the finder over a `PLACE_PATCH` patch of the plane centred on it, in the eight
        views of `dihedral_views`, each view's place mapped back, the places averaged. Beside a checker the finder's
        one look strays (its rim pulls the heat map's peak); the eight looks stray in different ways."""
        x0, y0 = int(round(find.x)) - PLACE_PATCH // 2, int(round(find.y)) - PLACE_PATCH // 2
        out = self.finder(normalise(np.stack(dihedral_views(_window(rectified, x0, y0, PLACE_PATCH)))))
        # the die lies at the patch's middle in every view: its peak is the hottest of the middle cells
        heat = out[:, 0, _MIDDLE, _MIDDLE].reshape(len(out), -1)
        best = heat.argmax(axis=1)
        row, column = _MIDDLE.start + best // _MIDDLE_CELLS, _MIDDLE.start + best % _MIDDLE_CELLS
        views = np.arange(len(out))
        x = (column + 0.5 + out[views, 2, row, column]) * STRIDE
        y = (row + 0.5 + out[views, 3, row, column]) * STRIDE
        origin, along_x, along_y = _VIEW_MAPS
        places = origin + x[:, None] * along_x + y[:, None] * along_y
        kept = (heat[views, best] > _PLACE_LEAST_LOGIT) & (np.hypot(*(places - (find.x - x0, find.y - y0)).T)
                                                          <= STRIDE * 1.5)
        if not kept.any():
            return find
        px, py = places[kept].mean(axis=0)
        return replace(find, x=float(px) + x0, y=float(py) + y0)

    def _assemble(self, finds: list[_Find], probs: np.ndarray, cocked: np.ndarray, most: int,
                  plane: Plane | None = None, sure_faces: bool = False) -> Found:
        """Dice and the cube from the finds and the reader's answers on them; `plane` for a board (places in mm,
        boxes in the image), None for a photo (the finds are in the photo's pixels). `sure_faces`: a die whose
        likeliest face is under `READ_THRESHOLD` is dropped unless the reader calls it cocked (see there), as is
        such a die among the fainter finds of a board."""
        dice, cubes = [], []
        for f, p, c, kind in zip(finds, probs, cocked, _kinds(probs)):
            if kind == NONE:
                continue
            best = 1 + int(np.argmax(p[1:7])) if kind == DIE else 7 + int(np.argmax(p[7:]))
            faint = f.score < FIND_THRESHOLD  # a second-look find on a board: weak evidence
            if (sure_faces or faint) and p[best] < READ_THRESHOLD and not (kind == DIE and c[0] > COCKED_THRESHOLD):
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


def one_find_a_die(dice: list[DieRead]) -> tuple[DieRead, ...]:
    """A photo's dice (left to right) without a die's second find (`PHOTO_SIDE_FACE`)."""
    kept: list[DieRead] = []
    for d in sorted(dice, key=lambda d: -d.confidence):
        x, y = d.box[0] + d.box[2] / 2, d.box[1] + d.box[3] / 2
        if not any(abs(x - k.box[0] - k.box[2] / 2) < PHOTO_SIDE_FACE * k.box[2]
                   and abs(y - k.box[1] - k.box[3] / 2) < PHOTO_SIDE_FACE * k.box[3]
                   and d.confidence < PHOTO_SIDE_SHARE * k.confidence for k in kept):
            kept.append(d)
    return tuple(sorted(kept, key=lambda d: d.box[0]))


def dihedral_views(patch: np.ndarray) -> list[np.ndarray]:
    """A square patch in the eight ways a square can be turned and flipped: quarter turns, then the same
    mirrored."""
    return [np.ascontiguousarray(np.rot90(patch, k % 4)[:, ::-1] if k >= 4 else np.rot90(patch, k % 4))
            for k in range(8)]


def _view_maps(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of `dihedral_views`, the patch's pixel coordinates as an affine map of the view's: (where each
    view's (0, 0) came from, the step for one pixel along the view's x, the step along its y), each (8, 2). Read off
    by turning the coordinate grids themselves, so it cannot disagree with the views."""
    gx, gy = np.meshgrid(np.arange(side, dtype=np.float64), np.arange(side, dtype=np.float64))
    views = np.stack([np.stack(dihedral_views(gx)), np.stack(dihedral_views(gy))], axis=-1)  # (8, side, side, 2)
    origin = views[:, 0, 0]
    return origin, views[:, 0, 1] - origin, views[:, 1, 0] - origin


_VIEW_MAPS = _view_maps(PLACE_PATCH)
_MIDDLE_CELLS = 4
_MIDDLE = slice(PLACE_PATCH // STRIDE // 2 - _MIDDLE_CELLS // 2, PLACE_PATCH // STRIDE // 2 + _MIDDLE_CELLS // 2)
"""The heat-map cells around a view's middle (8 px each way): a die found at the patch's middle is found there in
every view, and no other die fits so near it."""
_PLACE_LEAST_LOGIT = float(np.log(PLACE_LEAST / (1 - PLACE_LEAST)))


def _window(image: np.ndarray, x0: int, y0: int, side: int) -> np.ndarray:
    """image[y0:y0 + side, x0:x0 + side], the edge repeated where it reaches past the image."""
    h, w = image.shape[:2]
    pad = max(0, -x0, -y0, x0 + side - w, y0 + side - h)
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return image[y0 + pad:y0 + pad + side, x0 + pad:x0 + pad + side]


def _kinds(probs: np.ndarray) -> np.ndarray:
    """What each of the reader's answers (N, len(CLASSES)) says a find is: NONE, DIE or CUBE, by the summed
    probability of each (a die's faces may split the vote), NONE also when the likeliest is under
    `READ_THRESHOLD`."""
    kinds = np.stack([probs[:, 0], probs[:, 1:7].sum(axis=1), probs[:, 7:].sum(axis=1)], axis=1)
    return np.where(kinds.max(axis=1) >= READ_THRESHOLD, kinds.argmax(axis=1), NONE)


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
           "DiceReader", "DieRead", "Found", "crop_on_plane", "crop_square", "decode", "dihedral_views", "finder_knows",
           "normalise", "photo_pyramid"]
