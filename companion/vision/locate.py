"""Finding the playing area without markers or help.

0. A keypoint network (`keypoints`) guesses the four corners from the whole picture.
1. The table's colour is what the picture's border shows; the board is the largest region far from it.
2. Its outline is fitted by a quadrilateral (the board's outer frame).
3. That quadrilateral may be the frame's outline (trays on the right or the left), or, where the frame is the
   table's colour, the playing area with or without its trays.
4. Each guess (the keypoints' and the outline's) is weighed by the strip network; the one it finds most like a
   board, reading every point most surely, is kept.

Meant for calibration on a clear, well-lit board; a board the table's own colour, or a hand across the edge,
is reported, not guessed.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.rules.layout import FRAME, PLAY_HEIGHT, PLAY_WIDTH, TRAY_WIDTH
from companion.vision.keypoints import MODEL as KEYPOINT_MODEL
from companion.vision.keypoints import find_corners
from companion.vision.plane import Corners, in_image_order

OUTLINE_EXTRA = TRAY_WIDTH + FRAME / 2
"""How much wider the frame is on the trays' side."""


class BoardNotFound(CompanionError):
    """No board-shaped region stands out from the table."""


def find_outline(image: np.ndarray) -> np.ndarray:
    """The board's outer corners (4x2: top-left, top-right, bottom-right, bottom-left, as the image shows)."""
    small_scale = 640 / image.shape[1]
    small = cv2.resize(image, None, fx=small_scale, fy=small_scale, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[:6].reshape(-1, 3), lab[-6:].reshape(-1, 3), lab[:, :6].reshape(-1, 3),
                             lab[:, -6:].reshape(-1, 3)])
    table = np.median(border, axis=0)
    spread = np.median(np.linalg.norm(border - table, axis=1))
    mask = (np.linalg.norm(lab - table, axis=2) > max(18.0, 4 * spread)).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        raise BoardNotFound("no board stands out from the table: give the corners (--corners) or use markers")
    contour = max(contours, key=cv2.contourArea)
    if cv2.contourArea(contour) < 0.1 * mask.size:
        raise BoardNotFound("the largest region that is not table is too small to be the board")
    hull = cv2.convexHull(contour)
    quad = None
    for eps in np.linspace(0.005, 0.08, 30):
        approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:
        raise BoardNotFound("the board's outline is not a quadrilateral (something over its edge?)")
    quad = _refine(quad, contour.reshape(-1, 2).astype(np.float64))
    return in_image_order(quad / small_scale)


def _refine(quad: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Each side fitted as a line through the outline's pixels near it; corners where the lines meet."""
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = np.linalg.norm(d)
        n = np.array([-d[1], d[0]]) / length
        t = (pts - a) @ (d / length)
        near = pts[(np.abs((pts - a) @ n) < 4) & (t > 0.1 * length) & (t < 0.9 * length)]
        if len(near) < 10:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s = np.linalg.solve(m, q - p)
        out.append(p + s[0] * u)
    return np.array(out)


def playing_area(image: np.ndarray) -> Corners:
    """The playing area's corners, image order, found from the board alone: the keypoint network's guess and
    the outline's, each weighed by the strip network; the one that reads most like a board is kept."""
    candidates: list[Corners] = []
    if KEYPOINT_MODEL.exists():
        candidates.append(find_corners(image)[0])
    try:
        candidates.extend(_outline_candidates(image))
    except BoardNotFound:
        if not candidates:
            raise
    scored = [(_fit_score(image, c), c) for c in candidates if _plausible(c, image.shape)]
    if not scored:
        raise BoardNotFound("nothing in the picture has a board's shape: give the corners (--corners)")
    return min(scored, key=lambda item: item[0])[1]


def _plausible(corners: Corners, shape) -> bool:
    """A convex quadrilateral of a sensible size, mostly inside the picture."""
    quad = np.array(corners, np.float32)
    h, w = shape[:2]
    area = cv2.contourArea(quad)
    inside = np.all((quad > -0.1 * np.array([w, h])) & (quad < 1.1 * np.array([w, h])))
    return bool(inside and cv2.isContourConvex(quad.reshape(-1, 1, 2)) and area > 0.04 * w * h)


def _outline_candidates(image: np.ndarray) -> list[Corners]:
    """The playing area, if the outline found is the frame's outline (trays right or left) or, on a frame the
    table's colour, the playing area itself, with or without the trays."""
    outline = find_outline(image)
    tray = OUTLINE_EXTRA
    out = []
    for left, right, top, bottom in ((-FRAME, PLAY_WIDTH + FRAME + OUTLINE_EXTRA, -FRAME, PLAY_HEIGHT + FRAME),
                                     (-FRAME - OUTLINE_EXTRA, PLAY_WIDTH + FRAME, -FRAME, PLAY_HEIGHT + FRAME),
                                     (0.0, PLAY_WIDTH, 0.0, PLAY_HEIGHT), (0.0, PLAY_WIDTH + tray, 0.0, PLAY_HEIGHT),
                                     (-tray, PLAY_WIDTH, 0.0, PLAY_HEIGHT)):
        mm = np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float32)
        to_image = cv2.getPerspectiveTransform(mm, outline.astype(np.float32))
        area = np.array([[0, 0], [PLAY_WIDTH, 0], [PLAY_WIDTH, PLAY_HEIGHT], [0, PLAY_HEIGHT]], np.float64)
        corners = cv2.perspectiveTransform(area.reshape(-1, 1, 2), to_image).reshape(-1, 2)
        out.append(tuple((float(x), float(y)) for x, y in corners))
    return out  # type: ignore[return-value]


def _fit_score(image: np.ndarray, corners: Corners) -> float:
    """How badly the board placed at `corners` fits (lower is better): the strip network's board test (strips that
    are no points) and how unsure it is of each point's count (checkers off their places)."""
    from companion.vision.strip_reader import NOT_A_POINT, StripReader

    p = StripReader(corners).probabilities(image)[:24]
    sure = p[:, :NOT_A_POINT].max(axis=1)
    return -float(np.mean(np.log(np.clip(sure, 1e-6, 1.0))) + np.mean(np.log(np.clip(1 - p[:, NOT_A_POINT], 1e-6, 1))))


__all__ = ["BoardNotFound", "find_outline", "playing_area"]
