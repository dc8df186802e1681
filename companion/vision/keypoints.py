"""Finding the playing area's four corners with a learned keypoint network, no markers, no help.

A small encoder-decoder (`tools/train_corners.py`, run with ONNX Runtime) looks at the whole frame shrunk to
`INPUT` and puts out one heatmap per corner, in image order (top-left, top-right, bottom-right, bottom-left as the
picture shows them, whichever side the players sit). Each corner is the heatmap's mass-weighted centre near its
peak, so it lands between cells; `locate.playing_area` then weighs this guess against the outline-based ones with
the strip network, and keeps the one that reads most like a board.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.vision.plane import Corners

INPUT = (256, 144)
"""The network's input size, width x height: a 16:9 frame shrunk eight- to five-fold."""
STRIDE = 4
"""Input pixels per heatmap cell."""
MODEL = Path(__file__).with_name("models") / "corners.onnx"


def network_input(image: np.ndarray) -> np.ndarray:
    """(1, 3, H, W) float32: the frame shrunk to `INPUT`, each channel normalised over the frame (light and
    white balance vary far more between rooms than the board's shape does)."""
    small = cv2.resize(image, INPUT, interpolation=cv2.INTER_AREA).astype(np.float32)
    mean, std = cv2.meanStdDev(small)
    small = (small - mean.reshape(1, 1, 3)) / (std.reshape(1, 1, 3) + 1.0)
    return np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32)


def to_cells(points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Image pixel coordinates (pixel centres at integers) to heatmap cell coordinates."""
    scale = np.array([INPUT[0] / size[0], INPUT[1] / size[1]])
    return ((np.asarray(points, np.float64) + 0.5) * scale - 0.5 - (STRIDE - 1) / 2) / STRIDE


def from_cells(cells: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    scale = np.array([size[0] / INPUT[0], size[1] / INPUT[1]])
    return (np.asarray(cells, np.float64) * STRIDE + (STRIDE - 1) / 2 + 0.5) * scale - 0.5


def peaks(heatmaps: np.ndarray, window: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Each heatmap's (x, y) in cells, from the softmax mass around its peak, and that mass (how sure)."""
    n, h, w = heatmaps.shape
    flat = heatmaps.reshape(n, -1)
    prob = np.exp(flat - flat.max(axis=1, keepdims=True))
    prob = (prob / prob.sum(axis=1, keepdims=True)).reshape(n, h, w)
    out, mass = np.empty((n, 2)), np.empty(n)
    ys, xs = np.mgrid[0:h, 0:w]
    for k in range(n):
        y, x = np.unravel_index(int(np.argmax(prob[k])), (h, w))
        y0, y1, x0, x1 = max(0, y - window), min(h, y + window + 1), max(0, x - window), min(w, x + window + 1)
        p = prob[k, y0:y1, x0:x1]
        mass[k] = p.sum()
        out[k] = ((p * xs[y0:y1, x0:x1]).sum() / mass[k], (p * ys[y0:y1, x0:x1]).sum() / mass[k])
    return out, mass


@lru_cache(maxsize=1)
def _session():
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(MODEL), options, providers=["CPUExecutionProvider"])


def find_corners(image: np.ndarray) -> tuple[Corners, float]:
    """The playing area's corners in image order, and how sure the network is (the least sure corner's peak
    mass, 0..1). None of it is checked here: `locate.playing_area` tests the guess with the strip network."""
    heatmaps = _session().run(None, {"image": network_input(image)})[0][0]
    cells, mass = peaks(heatmaps)
    points = from_cells(cells, (image.shape[1], image.shape[0]))
    return tuple((float(x), float(y)) for x, y in points), float(mass.min())  # type: ignore[return-value]


__all__ = ["INPUT", "MODEL", "STRIDE", "find_corners", "from_cells", "network_input", "peaks", "to_cells"]
