"""Observation sources for `companion run` and `companion demo`: a recorded match replayed at a pace, the dice
cup, a camera or video read by vision, a rendered game film, and several at once. Each runs in a thread and hands observations (and status lines) to callbacks; `stop` ends it.

A source never touches the referee: the app (or the headless runner) owns it, so exactly one thread
decides and journals.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

from companion.referee.observations import DiceReading, Observation

Emit = Callable[[Observation], None]
Status = Callable[[str], None]


@dataclass
class ReplaySource:
    """Observations taken from a file (a journal, `.mat` or `.sgf`), given out `delay` seconds apart."""

    observations: Sequence[Observation]
    delay: float = 0.5
    name: str = "replay"
    stop_event: threading.Event = field(default_factory=threading.Event)

    def run(self, emit: Emit, status: Status) -> None:
        total = len(self.observations)
        for index, observation in enumerate(self.observations, start=1):
            if self.stop_event.wait(self.delay if index > 1 else 0):
                return
            emit(observation)
            status(f"{self.name}: {index}/{total}")
        status(f"{self.name}: finished ({total} observations)")

    def stop(self) -> None:
        self.stop_event.set()


@dataclass
class DiceCupSource:
    """Rolls from an electronic dice cup (a port, a pyserial URL, or None to find it by USB id)."""

    port: str | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)

    def run(self, emit: Emit, status: Status) -> None:
        from companion.devices import DiceCupDriver

        driver = DiceCupDriver(self.port)
        try:
            while not self.stop_event.is_set():
                for item in driver.poll(0.05):  # short reads: stopping never waits on the port
                    if isinstance(item, DiceReading):
                        emit(item)
                    else:
                        status(f"dice cup: {item}")
        finally:
            driver.close()

    def stop(self) -> None:
        self.stop_event.set()


@dataclass
class CameraSource:
    """Board readings from a camera, video file, folder or URL, read through a calibrated profile. Status lines
    carry frames per second, how long a read takes and the least sure point of the last reading."""

    spec: str
    profile: object
    """A `companion.vision.profile.Profile`."""
    stop_event: threading.Event = field(default_factory=threading.Event)

    def run(self, emit: Emit, status: Status) -> None:
        import time

        from companion.vision.capture import Frame, open_source
        from companion.vision.watch import BoardWatcher

        watcher = BoardWatcher(self.profile)  # type: ignore[arg-type]
        source = open_source(self.spec)
        frames, since, latency = 0, time.monotonic(), 0.0
        for item in source.frames():
            if self.stop_event.is_set():
                source.stop()
                break
            if not isinstance(item, Frame):
                status(str(item))
                continue
            started = time.perf_counter()
            reading = watcher.feed(item.image, item.time)
            if reading is not None:
                latency = (time.perf_counter() - started) * 1000
                emit(reading)
            frames += 1
            now = time.monotonic()
            if now - since >= 1.0:
                warning = f"; {watcher.status.warning}" if watcher.status.warning else ""
                status(f"camera: {frames / (now - since):.0f} fps, read in {latency:.0f} ms, "
                       f"confidence {watcher.status.confidence:.2f}{warning}")
                frames, since = 0, now

    def stop(self) -> None:
        self.stop_event.set()


@dataclass
class FilmSource:
    """A self-played game rendered as it is watched, read by vision in real time: the demo's camera.

    The film is calibrated like a real board (its first frame, the starting position, with the playing area's
    corners as a user would give them). The dice are taken from the film's labels until the camera reads dice
    (issue 6); the checkers are read from the pixels."""

    seed: int = 0
    width: int = 960
    fps: int = 20
    stop_event: threading.Event = field(default_factory=threading.Event)

    def run(self, emit: Emit, status: Status) -> None:
        import time

        import numpy as np

        from companion.sim import STYLES, Effects, Pose
        from companion.sim.truth import image_corners
        from companion.sim.video import GameFilm, self_play
        from companion.vision.calibrate import calibrate
        from companion.vision.watch import BoardWatcher

        rng = np.random.default_rng(self.seed)
        turns = self_play(rng)
        film = GameFilm(STYLES[self.seed % len(STYLES)], Pose(tilt=20, roll=4), Effects(light=0.15, noise=4, jpeg=85),
                        fps=self.fps, width=self.width, height=self.width * 9 // 16, seed=self.seed)
        watcher = None
        dice_seen: tuple[int, ...] = ()
        started, shown = time.monotonic(), 0
        for image, label, _phase in film.film(turns):
            if self.stop_event.wait(max(0.0, started + label.time - time.monotonic())):
                return
            if watcher is None:
                profile = calibrate(image, corners=image_corners(label), markers=False).profile
                watcher = BoardWatcher(profile)
                status("film: calibrated on the starting position")
            reading = watcher.feed(image, label.time)
            if reading is None:
                continue
            emit(reading)
            dice = tuple(label.dice)
            if dice != dice_seen:
                if dice and not dice_seen and shown == 0:  # the opening roll: the first mover's die is higher
                    dice = (max(dice), min(dice)) if turns[0].player == 0 else (min(dice), max(dice))
                emit(DiceReading(dice))
                dice_seen = tuple(label.dice)
                shown += 1
            status(f"film: {label.time:.0f} s, {watcher.status.readings} board readings, "
                   f"confidence {watcher.status.confidence:.2f}")
        status("film: finished")

    def stop(self) -> None:
        self.stop_event.set()


@dataclass
class Sources:
    """Several sources at once (a camera for the board, the dice cup for the dice), each in its own thread."""

    parts: Sequence[object]

    def run(self, emit: Emit, status: Status) -> None:
        threads = [threading.Thread(target=part.run, args=(emit, status), daemon=True) for part in self.parts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def stop(self) -> None:
        for part in self.parts:
            part.stop()  # type: ignore[attr-defined]


def run_source_until_done(source, emit: Emit, status: Status, timeout: float | None = None) -> None:
    """Run a source in this thread (the headless runner), with an optional time limit."""
    if timeout is not None:
        timer = threading.Timer(timeout, source.stop)
        timer.daemon = True
        timer.start()
    source.run(emit, status)


__all__ = ["CameraSource", "DiceCupSource", "FilmSource", "ReplaySource", "Sources", "run_source_until_done"]
