"""Frames from a camera (device index), a video file, a folder of images or a URL (a phone as an IP camera),
each with a timestamp. A camera that vanishes is reported and reopened; nothing raises into the caller's loop.

    source = open_source("0")                  # or "match.mp4", "frames/", "http://phone:8080/video"
    for item in source.frames():               # Frame, or Status when something changed
        ...

A file or folder yields its frames as fast as they are read; `at_speed` plays them against their own clock, as the
camera that filmed them saw the table (a live source is its own clock).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from companion.errors import CompanionError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")

# FFmpeg's decoder complaints (a damaged frame) went to the terminal, over the app: OpenCV reads this when it first
# opens a file with FFmpeg, so it is set before any source opens (a value set by the user stands)
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET


class CaptureError(CompanionError):
    """A source that cannot be opened at all (a missing file, an empty folder)."""


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray
    time: float
    """Seconds: the video's own clock for files and folders (index / fps), the monotonic clock for cameras."""
    index: int


@dataclass(frozen=True, slots=True)
class Status:
    """A change in the source: connected, lost (and being reopened), finished."""

    state: str
    detail: str = ""
    source: str = "camera"
    """What it is a change of, as the status line names it: "camera", or "video" for a file or folder."""

    def __str__(self) -> str:
        return f"{self.source} {self.state}" + (f": {self.detail}" if self.detail else "")


class FrameSource:
    """Base of the sources: `frames()` yields `Frame`s and `Status`es until the source ends or `stop()`."""

    live = False
    """Whether frames come as the world makes them (a camera, a stream), not as fast as they are read (a file)."""

    @property
    def noun(self) -> str:
        """What the status line calls it: a live source is a camera, a file or folder a video."""
        return "camera" if self.live else "video"

    def __init__(self) -> None:
        self._stopped = False

    def stop(self) -> None:
        self._stopped = True

    def check(self) -> None:
        """Raises `CaptureError` when the source plainly cannot give frames (see `StreamSource.check`)."""

    def frames(self) -> Iterator[Frame | Status]:  # pragma: no cover - overridden
        raise NotImplementedError


class FolderSource(FrameSource):
    """Images in a folder, in name order, as a video at `fps`. Unreadable files are reported and skipped."""

    def __init__(self, folder: Path, fps: float = 20.0) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CaptureError(f"{folder} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps

    def check(self) -> None:
        """Raises `CaptureError` unless one of the images reads: a folder of damaged files is no video."""
        if not any(cv2.imread(str(path)) is not None for path in self.files):
            raise CaptureError(f"none of the {len(self.files)} images in {self.folder} can be read")

    def frames(self) -> Iterator[Frame | Status]:
        yield Status("connected", f"{len(self.files)} images", self.noun)
        for index, path in enumerate(self.files):
            if self._stopped:
                return
            image = cv2.imread(str(path))
            if image is None:
                yield Status("unreadable", path.name, self.noun)
                continue
            yield Frame(image, index / self.fps, index)
        yield Status("finished", source=self.noun)


class StreamSource(FrameSource):
    """A camera, a video file or a URL through `cv2.VideoCapture`. Live sources are reopened when lost; a file
    simply ends."""

    def __init__(self, target: int | str, *, live: bool, retry_seconds: float = 1.0, max_failures: int = 5,
                 backend: int = cv2.CAP_ANY) -> None:
        super().__init__()
        self.target, self.live, self.retry_seconds = target, live, retry_seconds
        self.max_failures = max_failures
        self.backend = backend

    def check(self) -> None:
        """Raises `CaptureError` unless a file gives a first frame: a missing or unreadable video is said before a
        match starts on it, not found out by a reading thread (a live source is looked for again instead)."""
        if self.live:
            return
        capture = self._open()
        try:
            if capture is None or not capture.read()[0]:
                raise CaptureError(f"cannot read {self.target} as a video: no frame could be decoded from it")
        finally:
            if capture is not None:
                capture.release()

    def _open(self) -> cv2.VideoCapture | None:
        # OpenCV's own warnings go to the terminal, over the app, on every try: the status line says it instead
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        capture = cv2.VideoCapture(self.target, self.backend)
        if not capture.isOpened():
            capture.release()
            return None
        return capture

    def why_not_open(self) -> str:
        """In words, for the status line: the camera that cannot be opened, and the likely reason."""
        if isinstance(self.target, int):
            device = Path(f"/dev/video{self.target}")
            if sys.platform.startswith("linux") and not device.exists():
                return f"cannot open camera {self.target}: no such device ({device})"
            return f"cannot open camera {self.target}: busy in another program, not a camera, or not permitted"
        return f"cannot open {self.target}: unreachable or not a video stream"

    def frames(self) -> Iterator[Frame | Status]:
        capture = self._open()
        if capture is None:
            if not self.live:
                raise CaptureError(f"cannot open the video {self.target}")
            yield Status("lost", f"{self.why_not_open()}; trying again every {self.retry_seconds:g} s", self.noun)
        else:
            yield Status("connected", str(self.target), self.noun)
        fps = (capture.get(cv2.CAP_PROP_FPS) if capture is not None else 0) or 30.0
        index, failures, tries = 0, 0, 1
        while not self._stopped:
            if capture is None:
                time.sleep(self.retry_seconds)
                capture = self._open()
                tries += 1
                if capture is not None:
                    failures = 0
                    yield Status("connected", f"{self.target} (reopened)", self.noun)
                else:  # said on every try: the app shows it is still looking, and a caller may give up
                    yield Status("lost", f"{self.why_not_open()}; still trying ({tries} tries)", self.noun)
                continue
            try:
                ok, image = capture.read()
            except cv2.error as exc:  # some backends raise when the device goes away
                ok, image = False, None
                yield Status("error", str(exc).strip().splitlines()[-1], self.noun)
            if ok and image is not None:
                failures = 0
                stamp = time.monotonic() if self.live else index / fps
                yield Frame(image, stamp, index)
                index += 1
                continue
            if not self.live:
                capture.release()
                yield Status("finished", source=self.noun)
                return
            failures += 1
            if failures >= self.max_failures:  # the camera is gone: let it go and reopen it
                capture.release()
                capture = None
                yield Status("lost", f"{self.target} stopped sending frames; reopening", self.noun)
        if capture is not None:
            capture.release()


def at_speed(items: Iterator[Frame | Status], speed: float = 1.0, *, clock=time.monotonic,
             wait=time.sleep) -> Iterator[Frame | Status]:
    """`items` of a file or folder, each frame held back until its own time (`Frame.time`, from the first frame's)
    has passed at `speed` (2.0: twice as fast), so that a recorded game is watched at the pace it was played:
    otherwise a whole match's plays and rolls reach the referee within seconds. Frames read late are not dropped
    (a file's every frame is read). `wait(seconds)` is the sleep (a stop event's `wait` ends it at a stop)."""
    if speed <= 0:
        raise ValueError(f"speed must be above 0, not {speed}")
    start = first = None
    for item in items:
        if isinstance(item, Frame):
            if start is None:
                start, first = clock(), item.time
            ahead = start + (item.time - first) / speed - clock()
            if ahead > 0:
                wait(ahead)
        yield item


def open_source(spec: str, *, fps: float = 20.0) -> FrameSource:
    """A device index ("0"), a URL ("http://...", "rtsp://..."), a folder of images, or a video file."""
    if spec.isdigit():
        return StreamSource(int(spec), live=True)
    if "://" in spec:
        return StreamSource(spec, live=True)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps)
    if not path.exists():
        raise CaptureError(f"{spec}: no such camera, file or folder")
    return StreamSource(str(path), live=False)


__all__ = ["CaptureError", "FolderSource", "Frame", "FrameSource", "Status", "StreamSource", "at_speed",
           "open_source"]
