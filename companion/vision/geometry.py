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
The strip network needs no more: strips are measured in point widths, and it was trained on checkers of 0.8-0.98
of a point's width. Where the checkers' colours are sampled does: at calibration, with the position known, the
checkers' diameter is measured from the length of the known stacks, and the points' length from where the empty
points' colour gives way to the field (`measure_checkers_and_points`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from companion.rules.layout import STANDARD, BoardGeometry
from companion.vision.plane import Corners
from companion.vision.strip_reader import NOT_A_POINT, StripReader

BAR_FRACTIONS = tuple(round(float(f), 4) for f in np.linspace(0.045, 0.115, 5))
"""Bars from 4.5 to 11.5 % of the playing area's width, the range of real boards and a little more: five for the
coarse pass, which the offsets then refine (ten gave the same bar on the photoreal development boards, median
0.25 of a point's width off either way, in 1.6 times the time)."""


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


NEAR_BAR = tuple(s for s in range(24) if 3 <= s % 12 <= 8)
"""The three points each side of the bar in both rows: the strips a bar's width moves most (the outer points
barely move), what the coarse pass scores."""


def coarse_scores(image: np.ndarray, corners: Corners, base: BoardGeometry, counts: Sequence[int] | None,
                  fractions: Sequence[float]) -> dict[float, float]:
    """`score` of each bar fraction, on the strips `NEAR_BAR`: every candidate's strips cut by one remap and read by
    one run of the network, each centred and scaled by the whole board's look, as a read does."""
    from companion.vision.strips import StripCutter, normalisation, strip_frames

    reader = StripReader(corners, base)
    norm = normalisation(reader.cutter.cut(image))
    near = list(NEAR_BAR)
    frames = np.concatenate([strip_frames(base.with_bar(f))[near] for f in fractions])
    strips = StripCutter(corners, base, frames).cut(image)  # the bar's width moves no corner: one homography
    p, _ = reader.look(image, strips, norm)
    known = None if counts is None else [counts[s] for s in near]
    n = len(near)
    return {f: score(p[k * n:(k + 1) * n], known) for k, f in enumerate(fractions)}  # (all of them points)


def fit_bar(image: np.ndarray, corners: Corners, *, base: BoardGeometry = STANDARD,
            counts: Sequence[int] | None = None, fractions: Sequence[float] = BAR_FRACTIONS,
            refine: int = 2) -> BoardGeometry:
    """The geometry whose bar makes the strips fit best: a coarse pass over `fractions`, then `refine` passes that
    correct the bar by the strips' own offsets. `counts`: the true count of each strip (26, image order, -1
    unknown) when the position is known."""
    from companion.vision.strips import StripCutter

    coarse = coarse_scores(image, corners, base, counts, fractions)
    geometry = base.with_bar(max(coarse, key=coarse.get))  # type: ignore[arg-type]
    reader = StripReader(corners, base)  # the network and the plane; each pass cuts its own strips
    for _ in range(refine):
        _, offsets = reader.look(image, StripCutter(corners, geometry).cut(image))
        width = geometry.bar_width - bar_error(offsets, geometry)
        fraction = float(np.clip(width / geometry.play_width, min(fractions), max(fractions)))
        geometry = base.with_bar(fraction)
    return geometry


CONTRAST_LEAST = 12.0
"""Lab distance below which two colours (a point and the field, a checker and its point) are too alike to measure
an edge between them."""


TIP_SEEN = 0.88
"""The share of a point's length over which its middle still shows the point's colour in a photo (its tip is
lost in the blur and the field's colour); measured on the photoreal training boards 0-9."""


def _centre_profile(strips_lab: np.ndarray, half_width: int) -> np.ndarray:
    """Each strip's colour down its middle, row by row: (strips, rows, 3)."""
    from companion.vision.strips import STRIP_W

    mid = STRIP_W // 2
    return np.median(strips_lab[:, :, mid - half_width:mid + half_width, :], axis=2)


def _last_run(closer: np.ndarray, start: int, gap: int = 1) -> int | None:
    """Where the run of True rows from `start` ends: after its last True row, once `gap` rows in a row are False
    (between two checkers of a column their round edges leave a few rows of the point showing)."""
    if not closer[start]:
        return None
    last, missing = start, 0
    for row in range(start + 1, len(closer)):
        if closer[row]:
            last, missing = row, 0
        else:
            missing += 1
            if missing >= gap:
                return last + 1
    return None


def _chord(strip: np.ndarray, twin: np.ndarray, checker: np.ndarray, edge: int) -> float | None:
    """The first checker's diameter, point widths: its widest chord across the strip, found where each row's
    colour turns from the checker's to the empty twin point's (to a fraction of a pixel), over the rows where the
    checker's middle may lie. Across, the camera's tilt barely changes it (along, a stack's height does)."""
    from companion.vision.strips import PX_PER_POINT

    best = None
    for row in range(edge + int(PX_PER_POINT * 0.3), edge + int(PX_PER_POINT * 0.75)):
        background = twin[row]
        if np.linalg.norm(np.median(background, axis=0) - checker) < CONTRAST_LEAST:
            return None
        q = np.linalg.norm(strip[row] - background, axis=1) - np.linalg.norm(strip[row] - checker, axis=1)
        mid = len(q) // 2
        if q[mid] <= 0:
            continue
        left = mid
        while left > 0 and q[left - 1] > 0:
            left -= 1
        right = mid
        while right < len(q) - 1 and q[right + 1] > 0:
            right += 1
        if left == 0 or right == len(q) - 1:
            continue  # the checker runs off the strip: something else lies there
        # where q crosses zero between the last inside column and the first outside one
        a = left - 1 + q[left - 1] / (q[left - 1] - q[left])
        b = right + q[right] / (q[right] - q[right + 1])
        width = (b - a) / PX_PER_POINT
        best = width if best is None else max(best, width)
    return best


def measure_checkers_and_points(image: np.ndarray, corners: Corners, geometry: BoardGeometry,
                                counts: Sequence[int], checker_lab: Sequence[np.ndarray]) -> BoardGeometry:
    """`geometry` with the checkers' diameter and the points' length measured on a photo of a known position:
    `counts` per strip (image order, as `fit_bar`'s), `checker_lab` the Lab colour of each strip's checkers
    (anything for an empty strip). What cannot be measured is kept: the point length without an empty point that
    stands out from the field, the diameter without a stack whose twin (the point of the same
    colour two over, on the same side) is empty to compare it with."""
    import cv2

    from companion.vision.strips import BEFORE, PX_PER_POINT, StripCutter

    strips = StripCutter(corners, geometry).cut(image)
    lab = cv2.cvtColor(strips.reshape(-1, strips.shape[2], 3), cv2.COLOR_BGR2LAB).reshape(strips.shape).astype(
        np.float32)
    edge = int(round(BEFORE * PX_PER_POINT))
    middle = _centre_profile(lab, 2)
    # the field shows between the points' tips, at the strips' sides, from a third of a point's length on
    field_rows = slice(edge + int(PX_PER_POINT * 1.5), edge + int(PX_PER_POINT * 3))
    lengths, diameters = [], []
    for s in range(24):
        if counts[s] != 0:
            continue
        field = np.median(np.concatenate([lab[s, field_rows, :2], lab[s, field_rows, -2:]], axis=1).reshape(-1, 3),
                          axis=0)
        point = np.median(middle[s, edge + 3:edge + 10], axis=0)
        if np.linalg.norm(point - field) < CONTRAST_LEAST:
            continue
        closer = np.linalg.norm(middle[s] - point, axis=1) < np.linalg.norm(middle[s] - field, axis=1)
        tip = _last_run(closer, edge + 4, gap=2)
        if tip is not None:
            lengths.append((tip - edge) / PX_PER_POINT / TIP_SEEN)
    for s in range(24):
        n = counts[s]
        if n < 1:
            continue
        # the same point colour with no checkers on it: two strips along in the same row
        twins = [t for t in (s - 2, s + 2) if 0 <= t < 24 and t // 12 == s // 12 and counts[t] == 0]
        if not twins:
            continue
        checker = np.asarray(checker_lab[s], np.float32)
        width = _chord(lab[s], lab[twins[0]], checker, edge)
        if width is not None:
            diameters.append(width)
    point_length = geometry.point_length
    if lengths:
        measured = float(np.median(lengths)) * geometry.point_width
        point_length = float(np.clip(measured, 0.3 * geometry.play_height, 0.48 * geometry.play_height))
    checker = geometry.checker
    if diameters:
        checker = float(np.clip(np.median(diameters), 0.75, 1.0)) * geometry.point_width
    return BoardGeometry(geometry.play_width, geometry.play_height, geometry.bar_width, point_length, checker)


__all__ = ["BAR_FRACTIONS", "NEAR_BAR", "bar_error", "coarse_scores", "fit_bar", "measure_checkers_and_points", "score"]
