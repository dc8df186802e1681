"""Per-point strips cut straight from the camera image, sized by the board's own geometry.

A strip is what the strip network reads: one point (or one half of the bar) seen from straight above, its edge at
the top, `ACROSS` point widths across and `ALONG` point widths long, whatever the board's millimetres. Measuring
in point widths makes a 187 mm point with 40 mm checkers and a 180 mm point with 42 mm checkers look alike; the
network learns the rest (checkers of 0.8-0.98 of a point's width, sloppy stacks) from training strips cut with
jittered frames.

Strips 0..23 are the points in image order (`companion.vision.plane`); 24 and 25 the bar's top and bottom halves,
their "edge" the board's middle, where checkers on the bar start. Bottom-row strips are turned half round, as the
player on that side sees his points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.rules.layout import STANDARD, BoardGeometry

STRIP_W, STRIP_H = 24, 112
"""Pixels across and along a strip."""
ACROSS = 1.25
"""Point widths across a strip: the point and a little of its neighbours, so a board measured a few mm wrong
still has its checkers inside."""
BEFORE = 0.2
"""Point widths of the frame (or the bar's middle) before the edge."""
PX_PER_POINT = STRIP_W / ACROSS
ALONG = STRIP_H / PX_PER_POINT
"""Point widths along a strip (5.83): five checkers in a column, and the start of the board's other half."""
STRIPS = 26
BAR_TOP, BAR_BOTTOM = 24, 25


def strip_frames(geometry: BoardGeometry = STANDARD) -> np.ndarray:
    """Each strip's place on the playing area: (26, 3, 2) rows origin, across and along, mm; pixel (i, j) of a
    strip (i along, j across, pixel centres) lies at origin + (j + 0.5) * across + (i + 0.5) * along."""
    g = geometry
    mm = g.point_width / PX_PER_POINT
    out = np.empty((STRIPS, 3, 2), np.float64)
    for strip in range(STRIPS):
        if strip < 24:
            cx, top = g.slot_x(strip), strip < 12
            edge = 0.0 if top else g.play_height
        else:
            cx, top = g.bar_x(), strip == BAR_BOTTOM  # the bottom half runs down from the middle, as a top point
            edge = g.play_height / 2
        sign = 1.0 if top else -1.0
        across = np.array([sign * mm, 0.0])
        along = np.array([0.0, sign * mm])
        origin = np.array([cx, edge]) - across * STRIP_W / 2 - along * BEFORE * PX_PER_POINT
        out[strip] = (origin, across, along)
    return out


def jittered_frames(geometry: BoardGeometry, rng: np.random.Generator, offsets: list | None = None) -> np.ndarray:
    """`strip_frames(geometry)` each moved and scaled at random, the edge kept `BEFORE` point widths in. `offsets`,
    when given, gets where each strip's true middle lies from the strip's own middle, across it, in the strip's
    point widths: what the network learns to see (and calibration to correct)."""
    frames = strip_frames(geometry)
    n = len(frames)
    across, along = frames[:, 1], frames[:, 2]
    unit_x = across / np.linalg.norm(across, axis=1, keepdims=True)
    unit_y = along / np.linalg.norm(along, axis=1, keepdims=True)
    edge = frames[:, 0] + across * STRIP_W / 2 + along * BEFORE * PX_PER_POINT
    scale = rng.uniform(0.9, 1.2, n)[:, None]
    stretch = scale * rng.uniform(0.94, 1.06, n)[:, None]
    pw = geometry.point_width
    # most strips a little off, as a measured board's are; some far off, so that the offset head sees what a
    # bar measured wrong by a few percent of the width does to the points beside it
    shift = np.where(rng.random((n, 1)) < 0.7, rng.uniform(-0.12, 0.12, (n, 1)), rng.uniform(-0.3, 0.3, (n, 1)))
    edge = edge + unit_x * shift * pw + unit_y * rng.uniform(-0.1, 0.1, (n, 1)) * pw
    if offsets is not None:
        offsets.extend((-shift[:, 0] / scale[:, 0]).tolist())
    out = np.empty_like(frames)
    out[:, 1], out[:, 2] = across * scale, along * stretch
    out[:, 0] = edge - out[:, 1] * STRIP_W / 2 - out[:, 2] * BEFORE * PX_PER_POINT
    return out


def finer_frames(frames: np.ndarray, scale: int) -> np.ndarray:
    """`frames` cut at `scale` times as many pixels each way: the same places, pixels `scale` times smaller (what the
    colour network's finer crops are cut with)."""
    out = np.array(frames, np.float64, copy=True)
    out[:, 1:] /= scale
    return out


def strip_grid(frames: np.ndarray) -> np.ndarray:
    """The mm place of every strip pixel: (n, STRIP_H, STRIP_W, 2)."""
    i = np.arange(STRIP_H, dtype=np.float64)[:, None, None] + 0.5
    j = np.arange(STRIP_W, dtype=np.float64)[None, :, None] + 0.5
    origin, across, along = frames[:, None, None, 0], frames[:, None, None, 1], frames[:, None, None, 2]
    return origin + j * across + i * along


def strip_pixels(frames: np.ndarray, homography: np.ndarray, size: tuple[int, int] = (STRIP_H, STRIP_W)) -> np.ndarray:
    """Where every strip pixel lies in the image under `homography` (mm to image): (n, height, width, 2) float32,
    for `size` (height, width). A strip is an affine grid in mm, so its image is the homography of three vectors
    per strip, mixed per pixel: one pass of multiply-adds over the pixels instead of a grid in mm and a transform of it."""
    h = np.asarray(homography, np.float64)
    origin = np.concatenate([frames[:, 0], np.ones((len(frames), 1))], axis=1) @ h.T
    across, along = frames[:, 1] @ h[:, :2].T, frames[:, 2] @ h[:, :2].T
    i = (np.arange(size[0], dtype=np.float32) + 0.5)[None, :, None, None]
    j = (np.arange(size[1], dtype=np.float32) + 0.5)[None, None, :, None]
    point = (origin.astype(np.float32)[:, None, None] + j * across.astype(np.float32)[:, None, None]
             + i * along.astype(np.float32)[:, None, None])
    return point[..., :2] / point[..., 2:]


def mm_to_image(corners, geometry: BoardGeometry = STANDARD) -> np.ndarray:
    """The homography from the playing area's millimetres to image pixels, given its four image corners
    (top-left, top-right, bottom-right, bottom-left as the image shows them)."""
    g = geometry
    mm = np.array([[0, 0], [g.play_width, 0], [g.play_width, g.play_height], [0, g.play_height]], np.float32)
    return cv2.getPerspectiveTransform(mm, np.array(corners, np.float32))


class Pyramid:
    """One frame and its halvings (`cv2.pyrDown`), each made once: a read cuts the strips, the doubtful strips'
    second cuts and the trays from the same frame, most of them from the same halving (at 1280x720 a read's four or
    five cuts took 3.5 ms when each halved the frame again)."""

    def __init__(self, image: np.ndarray) -> None:
        self._levels = [image]

    def level(self, shrink: int) -> np.ndarray:
        """The frame halved `shrink` times."""
        while len(self._levels) <= shrink:
            self._levels.append(cv2.pyrDown(self._levels[-1]))
        return self._levels[shrink]


@dataclass
class StripCutter:
    """Cuts the 26 strips of one board placement with one `cv2.remap`: the maps are worked out once per corners
    and geometry, not per frame."""

    corners: tuple
    geometry: BoardGeometry = STANDARD
    frames: np.ndarray | None = None
    """Strip frames other than the board's own (training jitters them); None for `strip_frames(geometry)`."""
    size: tuple[int, int] = (STRIP_H, STRIP_W)
    """Each strip's pixels along and across (the trays' are cut by the same means, at their own size)."""
    pixels: np.ndarray | None = field(default=None, repr=False)
    """Where each strip pixel lies in the image: given when already worked out for these frames (`StripPlaces`),
    else worked out from the corners; kept either way."""
    _maps: tuple = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        if self.pixels is None:
            frames = strip_frames(self.geometry) if self.frames is None else self.frames
            self.pixels = strip_pixels(frames, mm_to_image(self.corners, self.geometry), self.size)
        self._maps = _maps(self.pixels)

    def cut(self, image: np.ndarray | Pyramid) -> np.ndarray:
        """The strips of `image` (or of the frame a `Pyramid` holds): (n, height, width, 3) uint8."""
        map_x, map_y, shrink, n = self._maps
        src = (image if isinstance(image, Pyramid) else Pyramid(image)).level(shrink)
        out = cv2.remap(src, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(n, *self.size, 3)


class StripPlaces:
    """Where the pixels of each strip of one board placement lie in the image, worked out for a strip the first
    time a cutter of it is asked for, then kept: the second look cuts a few doubtful strips each frame from the same
    nudged corners, and needs neither the image places of all 26 nor those of its strips again."""

    def __init__(self, corners, geometry: BoardGeometry = STANDARD) -> None:
        self.corners, self.geometry = corners, geometry
        self._frames = strip_frames(geometry)
        self._homography = mm_to_image(corners, geometry)
        self._pixels: dict[int, np.ndarray] = {}

    def cutter(self, strips) -> StripCutter:
        """A cutter of `strips`, cutting exactly as `StripCutter(corners, geometry, strip_frames(geometry)[strips])`
        does (each strip's pixels are its own rows of the same arithmetic; how far to halve the image is decided
        over these strips, as that cutter decides it)."""
        strips = [int(s) for s in strips]
        missing = [s for s in dict.fromkeys(strips) if s not in self._pixels]
        if missing:
            self._pixels.update(zip(missing, strip_pixels(self._frames[missing], self._homography)))
        return StripCutter(self.corners, self.geometry, self._frames[strips],
                           pixels=np.stack([self._pixels[s] for s in strips]))


def _maps(pixels: np.ndarray) -> tuple:
    """`cv2.remap`'s maps for strips whose pixels lie at `pixels` (n, height, width, 2), with how many times the
    image is halved first (so each strip pixel averages the image pixels it spans), and n."""
    n, height, width = pixels.shape[:3]
    image = pixels.reshape(n * height, width, 2)
    # a strip pixel spans this many image pixels: shrink the image first so each one averages them
    step = np.linalg.norm(image[1::8] - image[:-1:8], axis=2)  # every 8th row's step tells the span as well
    span = float(np.median(step[step < 50])) if np.any(step < 50) else 1.0
    shrink = 0
    while span >= 2.0 and shrink < 3:
        span /= 2
        shrink += 1
    scale = 0.5 ** shrink
    image = (image + 0.5) * scale - 0.5
    return image[..., 0].astype(np.float32), image[..., 1].astype(np.float32), shrink, n


def normalisation(strips: np.ndarray) -> tuple[np.ndarray, float]:
    """The whole board's mean colour (BGR) and spread, by which every strip of it is centred and scaled."""
    mean, std = cv2.meanStdDev(strips.reshape(-1, strips.shape[-2], 3))
    return mean[:, 0].astype(np.float32), float(std.mean()) + 8.0


def centred(pixels: np.ndarray, mean, std, out: np.ndarray | None = None) -> np.ndarray:
    """`(pixels - mean) / std` in float32, channels first: (n, h, w, 3) uint8 to (n, 3, h, w), into `out` when
    given. `mean` (3 or n x 3) and `std` (one or n): a whole board's, or each item's. Done on channel planes: numpy
    subtracting along a last axis 3 wide took 0.8 ms for a board's 26 strips, the planes 0.1 ms."""
    planes = np.ascontiguousarray(pixels.transpose(0, 3, 1, 2))
    if out is None:
        out = np.empty(planes.shape, np.float32)
    np.subtract(planes, np.asarray(mean, np.float32).reshape(-1, 3, 1, 1), out=out, dtype=np.float32)
    out /= np.asarray(std, np.float32).reshape(-1, 1, 1, 1)
    return out


def beside_sets(pixels: np.ndarray, first_lab, second_lab, norm: tuple) -> np.ndarray:
    """The colour and tray networks' input: the cut pixels (n, height, width, 3) centred and scaled by the board's
    look (`norm`: the strips' `normalisation`, or a mean n x 3 and a spread n, one per item, as training stores
    them), beside the two sets' colours (Lab, one pair or one per item) as flat planes. (n, 9, height, width)."""
    mean = np.asarray(norm[0], np.float32).reshape(-1, 3)
    std = np.asarray(norm[1], np.float32).reshape(-1, 1)
    out = np.empty((len(pixels), 9, *pixels.shape[1:3]), np.float32)
    centred(pixels, mean, std, out[:, :3])
    for k, lab in enumerate((first_lab, second_lab)):
        labs = np.clip(np.asarray(lab, np.float64).reshape(-1, 3), 0, 255).astype(np.uint8)
        bgr = cv2.cvtColor(labs[None], cv2.COLOR_LAB2BGR)[0].astype(np.float32)
        out[:, 3 + 3 * k:6 + 3 * k] = ((bgr - mean) / std)[:, :, None, None]
    return out


def network_input(strips: np.ndarray, norm: tuple[np.ndarray, float] | None = None, mirrored: bool = False
                  ) -> np.ndarray:
    """Strips as the network takes them: float32 NCHW, each strip's colours centred and scaled by the whole
    board's (lighting drops out, but a checker's colour against the board's still shows). `norm`: the board's
    `normalisation`, when the caller has it. `mirrored`: followed by the same strips mirrored across."""
    mean, std = norm or normalisation(strips)
    n = len(strips)
    out = np.empty((2 * n if mirrored else n, 3, *strips.shape[1:3]), np.float32)
    centred(strips, mean, std, out[:n])
    if mirrored:
        out[n:] = out[:n, ..., ::-1]
    return out


__all__ = ["ACROSS", "ALONG", "BAR_BOTTOM", "BAR_TOP", "BEFORE", "STRIPS", "STRIP_H", "STRIP_W", "Pyramid",
           "StripCutter", "StripPlaces", "beside_sets", "centred", "finer_frames", "jittered_frames", "mm_to_image",
           "network_input", "normalisation", "strip_frames", "strip_grid", "strip_pixels"]
