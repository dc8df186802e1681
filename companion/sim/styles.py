"""Board styles and the sprites drawn on them: checkers with rims, shading and shadows, dice, the cube.

Sprites are drawn once per style and scale (BGRA, premultiplied shading) and pasted per frame: drawing
circles per frame would cost the frame rate the demo needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

BGR = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    field: BGR
    """The playing surface."""
    frame: BGR
    point_dark: BGR
    point_light: BGR
    checkers: tuple[BGR, BGR]
    """Player 0's colour, player 1's."""
    table: BGR
    texture: float = 0.0
    """Grain of the surface (wood, leather, felt): 0 smooth."""


STYLES: tuple[Style, ...] = (
    Style("classic", (200, 228, 240), (40, 70, 110), (40, 40, 170), (30, 30, 30), ((235, 240, 245), (25, 25, 30)),
          (70, 90, 110), 0.03),
    Style("tournament-felt", (60, 120, 40), (30, 45, 60), (235, 235, 230), (40, 40, 150), ((230, 235, 240), (35, 30, 160)),
          (50, 60, 60), 0.06),
    Style("dark-leather", (40, 45, 55), (20, 25, 35), (60, 110, 160), (150, 150, 150), ((80, 160, 220), (60, 60, 60)),
          (90, 110, 130), 0.08),
    Style("wood", (110, 160, 200), (30, 60, 100), (45, 80, 130), (170, 200, 225), ((215, 235, 245), (30, 50, 90)),
          (60, 70, 80), 0.12),
    Style("blue-marine", (140, 90, 40), (70, 40, 20), (220, 210, 200), (90, 60, 30), ((240, 240, 240), (40, 40, 200)),
          (100, 100, 100), 0.04),
)

DEV_STYLES = STYLES[:4]
"""The development set never sees the last style: vision is measured on a board it was not tuned on."""


def random_style(rng: np.random.Generator) -> Style:
    """A style no one designed: random surface and checker colours (checkers kept apart from each other)."""
    def colour(low: int = 0, high: int = 256) -> BGR:
        return tuple(int(c) for c in rng.integers(low, high, 3))  # type: ignore[return-value]

    light = colour(170, 256)
    dark = colour(0, 90)
    return Style(f"random-{int(rng.integers(1 << 30))}", colour(40, 230), colour(10, 90), colour(20, 200),
                 colour(20, 230), (light, dark) if rng.random() < 0.5 else (dark, light), colour(30, 160),
                 float(rng.uniform(0, 0.12)))


def vivid_checkers(rng: np.random.Generator) -> tuple[BGR, BGR]:
    """Two checker colours as real sets come: a dark set of any hue, often saturated (red, blue, green, brown,
    black), and a lighter one from white and pastels down to a red beside black, at least 25 L* lighter.
    `random_style` draws each channel alone, so its dark set is never a strong colour and its light set never a
    mid one: a red set was a colour the checker models had never seen."""
    def lab_colour(lightness: tuple[float, float], chroma: float) -> tuple[float, BGR]:
        while True:
            hue, c, l_star = rng.uniform(0, 2 * np.pi), rng.uniform(0, chroma), rng.uniform(*lightness)
            lab = np.float32([[[l_star, c * np.cos(hue), c * np.sin(hue)]]])  # float Lab: L* 0..100
            bgr = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)
            if np.abs(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab) - lab).max() < 1:  # a colour a screen can show
                return l_star, tuple(int(round(float(v) * 255)) for v in bgr[0, 0])  # type: ignore[return-value]

    dark_l, dark = lab_colour((12, 55), 75)
    light = lab_colour((max(dark_l + 25, 45), 97), 60)[1]
    return (light, dark) if rng.random() < 0.5 else (dark, light)


@lru_cache(maxsize=64)
def checker_sprite(colour: BGR, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """A checker seen from above: rim, bevelled face, a soft highlight, and its shadow. (BGR image, alpha 0..1)."""
    size = 2 * radius + 8
    c = size // 2
    img = np.zeros((size, size, 3), np.float32)
    alpha = np.zeros((size, size), np.float32)
    # shadow: down and to the right, soft
    shadow = np.zeros((size, size), np.float32)
    cv2.circle(shadow, (c + 3, c + 4), radius, 0.45, -1, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2.0)
    alpha = np.maximum(alpha, shadow)
    base = np.array(colour, np.float32)
    rim = base * 0.55 + 10
    cv2.circle(img, (c, c), radius, rim.tolist(), -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(radius * 0.86), (base * 0.95 + 5).tolist(), -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(radius * 0.62), (base * 0.8 + 12).tolist(), 2, cv2.LINE_AA)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    highlight = np.exp(-(((xx - c + radius * 0.3) ** 2 + (yy - c + radius * 0.35) ** 2) / (2 * (radius * 0.45) ** 2)))
    img += highlight[..., None] * 45
    body = np.zeros((size, size), np.float32)
    cv2.circle(body, (c, c), radius, 1.0, -1, cv2.LINE_AA)
    img = img * body[..., None]
    alpha = body + (1 - body) * alpha  # shadow shows only outside the checker
    return np.clip(img, 0, 255), alpha


@lru_cache(maxsize=16)
def die_sprite(value: int, size: int, colour: BGR = (245, 245, 245), pips: BGR = (20, 20, 20)) -> np.ndarray:
    """A die's top face, BGR, rounded corners drawn by the caller's mask."""
    img = np.full((size, size, 3), colour, np.uint8)
    cv2.rectangle(img, (0, 0), (size - 1, size - 1), (150, 150, 150), max(1, size // 16))
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
             5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)]}[value]
    for row, col in spots:
        centre = (int(size * (0.25 + 0.25 * col)), int(size * (0.25 + 0.25 * row)))
        cv2.circle(img, centre, max(2, size // 10), pips, -1, cv2.LINE_AA)
    return img


@lru_cache(maxsize=16)
def cube_sprite(value: int, size: int) -> np.ndarray:
    img = np.full((size, size, 3), (230, 240, 245), np.uint8)
    cv2.rectangle(img, (0, 0), (size - 1, size - 1), (60, 60, 60), max(1, size // 14))
    text = str(value)
    scale = size / (38.0 if len(text) == 1 else 52.0)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, size // 14))
    cv2.putText(img, text, ((size - w) // 2, (size + h) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20),
                max(1, size // 14), cv2.LINE_AA)
    return img


__all__ = ["DEV_STYLES", "STYLES", "Style", "checker_sprite", "cube_sprite", "die_sprite", "random_style"]
