"""The four corners of the playing area, clicked in an OpenCV window (calibration by hand, where a display exists).

Click top-left, top-right, bottom-right, bottom-left of the playing area as the picture shows it; Backspace takes
the last click back, Enter accepts four, Esc gives up. The window is OpenCV's own (`cv2.imshow`), so nothing
beyond `opencv-python` is needed; `pick_corners` takes the window functions as an argument so that tests can
click without a display.
"""

from __future__ import annotations

import os
import sys
from typing import Protocol

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.plane import Corners, parse_corners

ORDER = ("top-left", "top-right", "bottom-right", "bottom-left")
WINDOW = "companion calibrate: click the playing area's corners"
ENTER, ESCAPE, BACKSPACES = (10, 13), 27, (8, 127)


class NoDisplay(CompanionError):
    """There is no screen to open a window on."""


class CornerPicker:
    """What the clicks so far say, and the picture that shows it."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.clicks: list[tuple[float, float]] = []
        self.problem: str | None = None

    def click(self, x: float, y: float) -> None:
        if len(self.clicks) < len(ORDER):
            self.clicks.append((float(x), float(y)))
            self.problem = None

    def undo(self) -> None:
        if self.clicks:
            self.clicks.pop()
            self.problem = None

    def corners(self) -> Corners | None:
        """The four corners once they make a board; otherwise None, and `problem` says why."""
        if len(self.clicks) < len(ORDER):
            self.problem = f"{len(ORDER) - len(self.clicks)} more to click"
            return None
        try:
            return parse_corners([f"{x},{y}" for x, y in self.clicks])
        except ValueError as exc:
            self.problem = str(exc)
            return None

    def prompt(self) -> str:
        if self.problem:
            return self.problem
        if len(self.clicks) < len(ORDER):
            return f"click the {ORDER[len(self.clicks)]} corner (Backspace: undo, Esc: cancel)"
        return "Enter to accept, Backspace to undo"

    def picture(self) -> np.ndarray:
        out = self.image.copy()
        scale = max(1, round(max(out.shape[:2]) / 640))
        points = [(int(round(x)), int(round(y))) for x, y in self.clicks]
        if len(points) > 1:
            cv2.polylines(out, [np.array(points, np.int32)], len(points) == len(ORDER), (0, 255, 255), scale)
        for name, p in zip(ORDER, points):
            cv2.circle(out, p, 4 * scale, (0, 0, 255), -1)
            cv2.putText(out, name, (p[0] + 6 * scale, p[1] - 6 * scale), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                        (0, 255, 255), scale, cv2.LINE_AA)
        cv2.rectangle(out, (0, 0), (out.shape[1], 28 * scale), (0, 0, 0), -1)
        cv2.putText(out, self.prompt(), (8, 20 * scale), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (255, 255, 255),
                    scale, cv2.LINE_AA)
        return out


class Window(Protocol):
    """The part of OpenCV's highgui that the picker uses (the `cv2` module itself)."""

    EVENT_LBUTTONDOWN: int

    def namedWindow(self, name: str, flags: int = ...) -> None: ...  # noqa: N802 (OpenCV's names)
    def setMouseCallback(self, name: str, callback, param=None) -> None: ...  # noqa: N802
    def imshow(self, name: str, image: np.ndarray) -> None: ...
    def waitKey(self, delay: int = ...) -> int: ...  # noqa: N802
    def destroyWindow(self, name: str) -> None: ...  # noqa: N802


def has_display() -> bool:
    """Whether a window can open: on Linux and the BSDs that needs an X or Wayland display."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def pick_corners(image: np.ndarray, window: Window = cv2) -> Corners:  # type: ignore[assignment]
    """Show `image` and wait for four clicked corners. Raises NoDisplay without a screen, CompanionError when the
    user gives up."""
    if window is cv2 and not has_display():
        raise NoDisplay("no display to click the corners on: give them with --corners x,y x,y x,y x,y")
    picker = CornerPicker(image)

    def on_mouse(event: int, x: int, y: int, flags: int, param) -> None:
        if event == window.EVENT_LBUTTONDOWN:
            picker.click(x, y)

    try:
        window.namedWindow(WINDOW, getattr(window, "WINDOW_NORMAL", 0))
        window.setMouseCallback(WINDOW, on_mouse)
    except cv2.error as exc:  # an OpenCV built without a GUI (the headless wheel)
        raise NoDisplay(f"OpenCV cannot open a window here ({exc.err}): give the corners with --corners") from None
    try:
        while True:
            window.imshow(WINDOW, picker.picture())
            key = window.waitKey(30) & 0xFF
            if key == ESCAPE:
                raise CompanionError("calibration cancelled: no corners were given")
            if key in BACKSPACES:
                picker.undo()
            elif key in ENTER:
                corners = picker.corners()
                if corners is not None:
                    return corners
    finally:
        window.destroyWindow(WINDOW)


__all__ = ["CornerPicker", "NoDisplay", "ORDER", "has_display", "pick_corners"]
