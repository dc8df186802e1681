"""Reading the checkers with the strip network: one learned look at each point, sized by the board's geometry.

Each point (and each half of the bar) is cut from the camera image as a strip measured in point widths
(`companion.vision.strips`), so the network sees every board alike whatever its millimetres; it gives the
probability of each count 0..15 and of "not a point at all". The board test is the mean of that last output over
the 24 points: learned from strips cut where no board is, so an empty board is a board and a table is not.
Colours are the two sets found among the first checker of each occupied point (two-means), or the sets the profile
learnt from the starting position.

It gives the same `ImageReading` as `companion.vision.reader.BoardReader`, which it replaces where the board is not
the simulator's (its trays, the hand test and the dice still use the plane of `companion.vision.plane`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.layout import STANDARD, BoardGeometry
from companion.vision.mlp import MLP
from companion.vision.network import Network
from companion.vision.plane import Corners, Plane
from companion.vision.reader import (MODELS, HalfRead, ImageReading, NotABoard, SlotRead, _hand_over_frame,
                                     _spread, _tray_half, _tray_rect, tray_halves, tray_side, two_colours)
from companion.vision.strips import BEFORE, PX_PER_POINT, STRIP_W, StripCutter, network_input

NOT_A_POINT = 16
BOARD_LEAST = 0.5
"""Below this board confidence (the mean chance over the 24 points that each is a point) the corners do not show a
board: what a board found without corners must reach."""
GIVEN_LEAST = 0.05
"""Where a user gave the corners, only a picture this unlike a board (noise, a wall) is refused: a real board,
however unlike the boards the network learnt, is read, with its low confidence said."""
FIRST_CHECKER = (int(round((BEFORE + 0.45) * PX_PER_POINT)), STRIP_W // 2)
"""Where in a strip the first checker's middle lies (row, column) on the simulator's board."""


@lru_cache(maxsize=2)
def _network(path: str) -> Network:
    return Network(Path(path))


@lru_cache(maxsize=2)
def _tray_model(path: str) -> MLP:
    return MLP.load(Path(path))


class StripReader:
    """Reads boards placed where `corners` say, measured as `geometry` says. Models are loaded once per process."""

    def __init__(self, corners: Corners, geometry: BoardGeometry = STANDARD, *, trays: str | None = None,
                 colours: dict[str, tuple[float, float, float]] | None = None, models: Path = MODELS) -> None:
        """`colours`: each set's BGR as calibration saw it (the profile's), or None to find them per image."""
        self.corners, self.geometry, self.trays = corners, geometry, trays
        self.plane = Plane.from_corners(corners)
        self.cutter = StripCutter(corners, geometry)
        self.network = _network(str(models / "strips.onnx"))
        self.trays_model = _tray_model(str(models / "trays.npz"))
        self.known_colours = None if not colours else {
            name: cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)
            for name, bgr in colours.items()}

    def look(self, image: np.ndarray, strips: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The network's answer for the 26 strips: probabilities (26, 17), counts 0..15 then "not a point", and
        how far each strip's point lies from the strip's middle, across it, in point widths (26)."""
        logits, offsets = self.network.outputs(network_input(self.cutter.cut(image) if strips is None else strips))[:2]
        logits = logits.astype(np.float64)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), offsets.astype(np.float64)

    def probabilities(self, image: np.ndarray) -> np.ndarray:
        return self.look(image)[0]

    def point_certainty(self, image: np.ndarray) -> np.ndarray:
        """How sure the network is of each point's count (24 values): how well the board fits these corners."""
        p = self.probabilities(image)[:24]
        return p[:, :NOT_A_POINT].max(axis=1)

    def read(self, image: np.ndarray, time: float = 0.0, rectified: np.ndarray | None = None) -> ImageReading:
        if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 64:
            raise NotABoard("the frame is not a colour image")
        timings: dict[str, float] = {}
        tick = cv2.getTickCount()

        def lap(name: str) -> None:
            nonlocal tick
            now = cv2.getTickCount()
            timings[name] = (now - tick) / cv2.getTickFrequency() * 1000
            tick = now

        strips = self.cutter.cut(image)
        p, _ = self.look(image, strips)
        lap("strips")
        board = float(1.0 - p[:24, NOT_A_POINT].mean())
        dists = p[:, :NOT_A_POINT] / np.maximum(p[:, :NOT_A_POINT].sum(axis=1, keepdims=True), 1e-9)
        samples = checker_colours(strips, dists, self.geometry)
        centres = self.known_colours or two_colours(list(samples.values()))
        points = tuple(_slot(dists[s], samples.get(s), centres) for s in range(24))
        bar = tuple(_half(dists[24 + h], samples.get(24 + h), centres) for h in (0, 1))
        lap("colours")
        plane = self.plane.rectify(image) if rectified is None else rectified
        busy = _hand_over_frame(plane)
        trays = self._read_trays(image, centres)
        lap("trays")
        bgr = {name: tuple(float(v) for v in cv2.cvtColor(np.uint8([[np.clip(c, 0, 255)]]), cv2.COLOR_LAB2BGR)[0, 0])
               for name, c in centres.items()}
        return ImageReading(points, bar, trays, bgr, busy, time, timings, board)  # type: ignore[arg-type]

    def _read_trays(self, image: np.ndarray, centres: dict[str, np.ndarray]) -> dict | None:
        side = self.trays or tray_side(image, self.plane)
        h, w = image.shape[:2]
        x0, y0, x1, y1 = _tray_rect(side)
        corners = self.plane.to_image_points([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        if not all(0 <= x < w and 0 <= y < h for x, y in corners):
            return None
        top, bottom = tray_halves(image, self.plane, side)
        return {side: (_tray_half(top, centres, self.trays_model), _tray_half(bottom, centres, self.trays_model))}


def checker_colours(strips: np.ndarray, dists: np.ndarray, geometry: BoardGeometry) -> dict[int, np.ndarray]:
    """Each strip's checker colour (Lab) where it probably holds checkers: the median over the middles of the
    checkers of its first column (glare that washes one checker out rarely washes them all)."""
    diameter = geometry.checker / geometry.point_width * PX_PER_POINT
    col = STRIP_W // 2
    lab = cv2.cvtColor(strips.reshape(-1, STRIP_W, 3), cv2.COLOR_BGR2LAB).reshape(strips.shape).astype(np.float32)
    out = {}
    for s in np.nonzero(dists[:, 0] < 0.5)[0]:
        count = int(min(5, max(1, np.argmax(dists[s]))))
        middles = []
        for k in range(count):
            row = int(round(BEFORE * PX_PER_POINT + (k + 0.5) * diameter))
            if row + 3 >= strips.shape[1]:
                break
            middles.append(np.median(lab[s, row - 3:row + 4, col - 3:col + 4].reshape(-1, 3), axis=0))
        out[int(s)] = np.median(np.array(middles), axis=0)
    return out


LIGHTNESS_WEIGHT = 0.5
"""Lightness counts half in telling the sets apart: glare and shade change a checker's lightness, rarely its hue."""


def _colour(sample: np.ndarray, centres: dict[str, np.ndarray]) -> tuple[str, float]:
    w = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])
    d_light = float(np.linalg.norm((sample - centres["light"]) * w))
    d_dark = float(np.linalg.norm((sample - centres["dark"]) * w))
    colour, near, far = ("light", d_light, d_dark) if d_light <= d_dark else ("dark", d_dark, d_light)
    return colour, float(np.clip(2 * (far - near) / (far + near + 1e-6), 0, 1))


def _slot(dist: np.ndarray, sample: np.ndarray | None, centres) -> SlotRead:
    best, low, high = _spread(dist)
    mass = min(1.0, float(dist[low:high + 1].sum()))
    if high == 0:
        return SlotRead(None, 0, 0, 0, mass)
    if sample is None:
        return SlotRead(None, 0, 0, high, float(dist[0]))
    colour, sure = _colour(sample, centres)
    return SlotRead(colour, best, low, high, mass * min(1.0, 1.5 * sure))


def _half(dist: np.ndarray, sample: np.ndarray | None, centres) -> HalfRead:
    best, low, high = _spread(dist)
    if best == 0 or sample is None:
        return HalfRead(None, 0, float(dist[0]), 0, high)
    colour, sure = _colour(sample, centres)
    return HalfRead(colour, best, float(dist[best]) * min(1.0, 1.5 * sure), low, high)


__all__ = ["BOARD_LEAST", "GIVEN_LEAST", "FIRST_CHECKER", "StripReader", "checker_colours"]
