"""A path-traced frame through a cheap camera: auto-exposure, wide-angle distortion, defocus, motion blur, sensor
noise and JPEG; and the frame's label, in the schema the readers' benchmarks and training data read (the flat
renderer's `FrameLabel` fields, plus the board's true geometry and its design).

Which points a hand hides is worked out here, from the hand's outline that the Blender worker projected: a point
is hidden when the hand covers any of the ground its checkers stand on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

HIDDEN = 0.02
"""The share of a point's ground a hand must cover for the point to count as hidden."""


def _luminance(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


class Lens:
    """Radial distortion about the image centre, r_d = r_u (1 + k1 r_u^2) with r in focal lengths, then a zoom
    that fills the frame (a barrel lens's corners would otherwise look past the rendered image)."""

    def __init__(self, width: int, height: int, focal_mm: float, k1: float) -> None:
        self.c = np.array([width / 2, height / 2])
        self.f = focal_mm / 36.0 * width
        self.k1 = k1
        r2 = float(((self.c / self.f) ** 2).sum())  # the image corner's, in focal lengths
        self.zoom = max(1.0, 1.0 / (1.0 + k1 * r2))  # the distorted corner pulled back out to the frame's corner

    def _undistort(self, d: np.ndarray) -> np.ndarray:
        u = d.copy()
        for _ in range(10):  # invert the polynomial by fixed-point steps: converges fast for |k1| r^2 << 1
            u = d / (1 + self.k1 * (u ** 2).sum(-1, keepdims=True))
        return u

    def distort(self, points) -> np.ndarray:
        p = (np.asarray(points, np.float64) - self.c) / self.f
        r2 = (p ** 2).sum(axis=-1, keepdims=True)
        return p * (1 + self.k1 * r2) * self.f * self.zoom + self.c

    def warp(self, image: np.ndarray) -> np.ndarray:
        """The image as the distorting lens shows it: each output pixel fetched from where it came from."""
        h, w = image.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        d = (np.stack([xs, ys], -1) - self.c) / (self.f * self.zoom)
        src = (self._undistort(d) * self.f + self.c).astype(np.float32)
        return cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = np.cos(np.radians(angle)) * length / 2, np.sin(np.radians(angle)) * length / 2
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    return kernel / kernel.sum()


def _point_ground(board: dict, point: int, frame: dict) -> np.ndarray:
    """The ground a point's checkers stand on, as a polygon in mm on the playing area (player 0's view)."""
    g = board["geometry"]
    pw, H = g["point_width"], g["play_height"]
    if point <= 12:
        j, top = (12 - point if board["home_right"] else point - 1), False
    else:
        j, top = (point - 13 if board["home_right"] else 24 - point), True
    cx = pw * (j + 0.5) + (g["bar_width"] if j >= 6 else 0.0)
    count = frame["points"][point - 1][1]
    reach = max(g["point_length"], g["edge_margin"] + g["checker_diameter"] * min(count, 5) * 1.06)
    reach = min(reach, H / 2)
    v0, v1 = (0.0, reach) if top else (H - reach, H)
    return np.array([(cx - pw / 2, v0), (cx + pw / 2, v0), (cx + pw / 2, v1), (cx - pw / 2, v1)])


def _bar_ground(board: dict, player: int) -> np.ndarray:
    g = board["geometry"]
    x0 = 6 * g["point_width"]
    x1 = x0 + g["bar_width"]
    pad = max(0.0, (g["checker_diameter"] - g["bar_width"]) / 2)
    H = g["play_height"]
    v0, v1 = (0.0, H / 2) if player == 0 else (H / 2, H)
    return np.array([(x0 - pad, v0), (x1 + pad, v0), (x1 + pad, v1), (x0 - pad, v1)])


def label_for(board: dict, frame: dict, raw: dict, lens: Lens, hand_mask: np.ndarray | None) -> dict[str, Any]:
    g = board["geometry"]
    W, H = g["play_width"], g["play_height"]
    corners_u = np.array(raw["corners"], np.float64)
    homography = cv2.getPerspectiveTransform(np.float32([(0, 0), (W, 0), (W, H), (0, H)]), corners_u.astype(np.float32))

    def hidden(ground: np.ndarray) -> bool:
        if hand_mask is None:
            return False
        poly = cv2.perspectiveTransform(ground.reshape(-1, 1, 2).astype(np.float64), homography).reshape(-1, 2)
        poly = lens.distort(poly)
        region = np.zeros_like(hand_mask)
        cv2.fillConvexPoly(region, np.round(poly).astype(np.int32), 255)
        area = np.count_nonzero(region)
        return bool(area > 0 and np.count_nonzero(region & hand_mask) > HIDDEN * area)

    light, dark = board["checkers"]["colours"]
    lighter_is_light = _luminance(light) >= _luminance(dark)
    player0_colour = "light" if board["player0_light"] == lighter_is_light else "dark"
    occluded = [p for p in range(1, 25) if hidden(_point_ground(board, p, frame))]
    return {
        "points": frame["points"], "bar": frame["bar"], "off": frame["off"],
        "dice": frame["dice"], "roller": frame["roller"], "dice_px": lens.distort(raw["dice_px"]).round(1).tolist(),
        "dice_cocked": [bool(lean) for lean in frame.get("dice_lean", [None, None])],
        "cube_value": frame["cube"]["value"], "cube_place": frame["cube"]["place"],
        "corners": lens.distort(corners_u).round(2).tolist(),
        "occluded": occluded, "bar_hidden": [hidden(_bar_ground(board, p)) for p in (0, 1)],
        "hand": hand_mask is not None,
        "pose": {"from_player1": board["from_player1"], "home_right": board["home_right"],
                 "tilt": frame["camera"]["tilt"], "focal": frame["camera"]["focal"],
                 "distortion": frame["camera"]["distortion"]},
        "style": board["design"], "design": board["design"], "split": board["split"], "board_id": board["board_id"],
        "frame_index": frame["frame_index"],
        "geometry": dict(g),
        "colours": {"player0_colour": player0_colour},
        "checkers": {"model": board["checkers"]["model"], "finish": board["checkers"]["finish"]},
        "stacking": frame["stacking"]["style"], "effects": frame["effects"],
        "render_seconds": raw.get("render_seconds"),
        "renderer": "photoreal",
    }


def develop(board: dict, frame: dict, raw_png: Path, out_jpg: Path) -> dict[str, Any]:
    """The raw render through the camera: writes `out_jpg` and its label `.json` beside it; returns the label."""
    raw = json.loads(raw_png.with_suffix(".raw.json").read_text())
    image = cv2.imread(str(raw_png), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{raw_png} is not a readable image")
    image = image.astype(np.float32) / (65535.0 if image.dtype == np.uint16 else 255.0)
    fx = frame["effects"]
    rng = np.random.default_rng(frame["stacking"]["seed"] + 7)
    h, w = image.shape[:2]  # exposed already, as a webcam exposes: by the Blender worker
    lens = Lens(w, h, frame["camera"]["focal"], frame["camera"]["distortion"])
    image = lens.warp(image)
    if fx["defocus"]:
        image = cv2.GaussianBlur(image, (0, 0), fx["defocus"])
    if fx["motion"] >= 1.5:
        image = cv2.filter2D(image, -1, _motion_kernel(fx["motion"], fx["motion_angle"]))
    image = np.clip(image * 255.0 + rng.normal(0, fx["noise"], image.shape).astype(np.float32), 0, 255).astype(np.uint8)
    hand_mask = None
    if raw["hand_outline"]:
        hand_mask = np.zeros((h, w), np.uint8)
        for part in raw["hand_outline"]:
            hull = cv2.convexHull(lens.distort(part).astype(np.float32))
            cv2.fillConvexPoly(hand_mask, np.round(hull).astype(np.int32), 255)
    label = label_for(board, frame, raw, lens, hand_mask)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(fx["jpeg"])])
    out_jpg.write_bytes(data.tobytes())
    out_jpg.with_suffix(".json").write_text(json.dumps(label))
    return label


__all__ = ["HIDDEN", "Lens", "develop", "label_for"]
