"""Measuring the board in front of the camera: how wide its bar is, and so where each point lies.

Real boards differ from the simulator's (a bar of 5-10 % of the width, not 6.9 %), and a point read in the wrong
place is read wrong. With the playing area's corners known, the bar's width is the one free measurement that moves
the points. Two passes:
1. coarse: for each candidate width, how well the 26 strips cut with it look like points (at calibration, where
   the position is known, how likely the known counts are; on a photo read without a profile, how sure the network
   is of its own counts);
2. fine: the network also says how far off its middle each strip is cut. A bar assumed too wide by D shifts the
   points of each half by a known pattern (nothing at the outer edge, D beside the bar), so D is the least-squares
   fit of the 24 offsets to that pattern (with a common shift for corners a little off).
Checker size and point length need no measuring: strips are measured in point widths, and the network was trained
on checkers of 0.8-1.0 of a point's width.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from companion.rules.layout import STANDARD, BoardGeometry
from companion.vision.plane import Corners
from companion.vision.strip_reader import NOT_A_POINT, StripReader

BAR_FRACTIONS = tuple(round(f, 4) for f in np.arange(0.045, 0.1151, 0.0075))
"""Bars from 4.5 to 11.5 % of the playing area's width, the range of real boards and a little more."""


def score(probabilities: np.ndarray, counts: Sequence[int] | None = None) -> float:
    """How well strips fit: the mean log chance of the known `counts` (-1 for unknown), or, with no counts, of the
    network's own best count, less its chance that a strip is no point at all."""
    p = np.clip(probabilities, 1e-9, 1.0)
    if counts is not None:
        rows = [i for i, c in enumerate(counts) if c >= 0]
        return float(np.mean(np.log(p[rows, np.array(counts)[rows]])))
    best = np.log(p[:, :NOT_A_POINT].max(axis=1))
    return float(np.mean(best) + np.mean(np.log(1 - p[:24, NOT_A_POINT] + 1e-9)))


def bar_error(offsets: np.ndarray, geometry: BoardGeometry) -> float:
    """How much wider (mm) `geometry` assumes the bar than the strips' `offsets` (the network's, 24 points in image
    order, point widths across each strip) say it is."""
    pw = geometry.point_width
    k = np.arange(24) % 12
    pattern = np.where(k < 6, (k + 0.5) / 12, (k + 0.5) / 12 - 1)
    # a bottom-row strip is turned half round: its "across" runs right to left
    shift_mm = np.where(np.arange(24) < 12, 1.0, -1.0) * offsets[:24] * pw
    design = np.stack([pattern, np.ones(24)], axis=1)
    (delta, _), *_ = np.linalg.lstsq(design, shift_mm, rcond=None)
    return float(delta)


def fit_bar(image: np.ndarray, corners: Corners, *, base: BoardGeometry = STANDARD,
            counts: Sequence[int] | None = None, fractions: Sequence[float] = BAR_FRACTIONS,
            refine: int = 2) -> BoardGeometry:
    """The geometry whose bar makes the strips fit best: a coarse pass over `fractions`, then `refine` passes that
    correct the bar by the strips' own offsets. `counts`: the true count of each strip (26, image order, -1
    unknown) when the position is known."""
    coarse = {f: score(StripReader(corners, base.with_bar(f)).probabilities(image), counts) for f in fractions}
    geometry = base.with_bar(max(coarse, key=coarse.get))  # type: ignore[arg-type]
    for _ in range(refine):
        _, offsets = StripReader(corners, geometry).look(image)
        width = geometry.bar_width - bar_error(offsets, geometry)
        fraction = float(np.clip(width / geometry.play_width, min(fractions), max(fractions)))
        geometry = base.with_bar(fraction)
    return geometry


__all__ = ["BAR_FRACTIONS", "bar_error", "fit_bar", "score"]
