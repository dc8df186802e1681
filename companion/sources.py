"""Observation sources for `companion run` and `companion demo`: a recorded match replayed at a pace, the dice
cup, a camera or video read by vision, a rendered game film, and several at once. Each runs in a thread and hands observations (and status lines) to callbacks; `stop` ends it.

A source never touches the referee: the app (or the headless runner) owns it, so exactly one thread
decides and journals.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

from companion.referee.events import Event, PlayMade
from companion.referee.observations import BoardReading, DiceReading, Observation

Emit = Callable[[Observation], None]
Status = Callable[[str], None]


@dataclass
class ReplaySource:
    """Observations taken from a file (a journal, `.mat` or `.sgf`), given out `delay` seconds apart."""

    observations: Sequence[Observation]
    delay: float = 0.5
    name: str = "replay"
    stop_event: threading.Event = field(default_factory=threading.Event)
    playing: threading.Event = field(default_factory=threading.Event)
    """Set while the replay plays the game (`plays_the_game`)."""

    def run(self, emit: Emit, status: Status) -> None:
        total = len(self.observations)
        self.playing.set()
        try:
            for index, observation in enumerate(self.observations, start=1):
                if self.stop_event.wait(self.delay if index > 1 else 0):
                    return
                emit(observation)
                status(f"{self.name}: {index}/{total}")
        finally:
            self.playing.clear()
        status(f"{self.name}: finished ({total} observations)")

    def stop(self) -> None:
        self.stop_event.set()


@dataclass
class DiceCupSource:
    """Rolls from an electronic dice cup (a port, a pyserial URL, or None to find it by USB id)."""

    port: str | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)

    def run(self, emit: Emit, status: Status) -> None:
        from companion.devices import DiceCupDriver, Link

        driver = DiceCupDriver(self.port)
        try:
            while not self.stop_event.is_set():
                for item in driver.poll(0.05):  # short reads: stopping never waits on the port
                    if isinstance(item, DiceReading):
                        emit(item)
                    else:  # a link status says "dice cup ..." itself
                        status(str(item) if str(item).startswith("dice cup") else f"dice cup: {item}")
        finally:
            if driver.link is Link.CONNECTING:  # stopped while a port gave no dice cup line: say what came
                status(f"dice cup: {driver.unanswered()}")
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
    read_dice: bool = True
    """False when a dice cup tells the dice: the camera then reads the board and the cube."""
    speed: float | None = 1.0
    """How fast a video file or folder plays against its own clock (`capture.at_speed`); None: as fast as it is
    read. A camera or a stream is its own clock."""
    stop_event: threading.Event = field(default_factory=threading.Event)
    confirmed: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)
    """Board readings the referee took (`confirm`), for the reading thread to learn from."""

    def confirm(self, board: BoardReading) -> None:
        """The referee took `board` as a legal play's result: the watcher learns its empty points' looks (called
        from the app's thread; the reading thread takes it before its next frame)."""
        self.confirmed.put(board)

    def run(self, emit: Emit, status: Status) -> None:
        from companion.vision.capture import CaptureError, at_speed, open_source
        from companion.vision.watch import BoardWatcher

        watcher = BoardWatcher(self.profile, dice=self.read_dice)  # type: ignore[arg-type]
        try:
            source = open_source(self.spec)
            items = source.frames()
            if not source.live and self.speed is not None:
                items = at_speed(items, self.speed, wait=self.stop_event.wait)
            self._read(watcher, source, items, emit, status)
        except CaptureError as exc:  # a video that cannot be read: said where the camera's troubles are, not raised
            status(f"video stopped: {exc}")

    def _read(self, watcher, source, items, emit: Emit, status: Status) -> None:
        from companion.vision.capture import Frame

        frames, since, latency, misfit = 0, time.monotonic(), 0.0, None
        for item in items:
            if self.stop_event.is_set():
                source.stop()
                break
            if not isinstance(item, Frame):
                status(str(item))
                continue
            if misfit is None:  # said with every status line: it explains them
                profile: Any = self.profile  # a `Profile`, or None where a test hands none
                misfit = (profile.size_warning(item.image) if profile is not None else None) or ""
                if misfit:
                    status(f"{source.noun}: {misfit}")
            while not self.confirmed.empty():
                watcher.confirm(self.confirmed.get())
            started = time.perf_counter()
            observations = watcher.feed(item.image, item.time)
            if observations:
                latency = (time.perf_counter() - started) * 1000
            for observation in observations:
                emit(observation)
            frames += 1
            now = time.monotonic()
            if now - since >= 1.0:
                warning = "".join(f"; {w}" for w in (misfit, watcher.status.warning) if w)
                status(f"{source.noun}: {frames / (now - since):.0f} fps, read in {latency:.0f} ms, "
                       f"confidence {watcher.status.confidence:.2f}{warning}")
                frames, since = 0, now

    def stop(self) -> None:
        self.stop_event.set()


class FilmObserver:
    """A rendered game film as a camera source sees it: board, dice and cube read from the pixels at each still
    moment, in the order a table shows them (a play is made before the next roll).

    `profile_for(image, label)` gives the board profile from the first frame (the demo calibrates on it; the
    benchmark uses the truth). `dice_from_labels` takes the dice from the film's labels instead of the pixels:
    the benchmark uses it to tell board errors from dice errors."""

    def __init__(self, first_mover: int, profile_for: Callable, *, dice_from_labels: bool = False) -> None:
        self.first_mover, self.profile_for = first_mover, profile_for
        self.dice_from_labels = dice_from_labels
        self.watcher = None
        self.read_ms = 0.0
        """How long the last frame that gave observations took to read (the status line's latency)."""

    def observations(self, frames: Iterable) -> Iterator[Observation]:
        from companion.vision.watch import BoardWatcher

        dice_seen: tuple[int, ...] = ()
        for image, label, _phase in frames:
            if self.watcher is None:
                self.watcher = BoardWatcher(self.profile_for(image, label), dice=not self.dice_from_labels)
            started = time.perf_counter()
            observations = self.watcher.feed(image, label.time)
            if observations:
                self.read_ms = (time.perf_counter() - started) * 1000
            yield from observations
            if not observations or not self.dice_from_labels:
                continue
            dice = tuple(label.dice)
            if dice == dice_seen:
                continue
            dice_seen = dice
            if dice and label.roller is None:  # the opening roll: player 0's die first; the first mover's is higher
                dice = (max(dice), min(dice)) if self.first_mover == 0 else (min(dice), max(dice))
            yield DiceReading(dice)


@dataclass
class FilmSource:
    """A self-played game rendered as it is watched, read by vision in real time: the demo's camera.

    The film is calibrated like a real board: on its first frame (the starting position), with the playing
    area's corners as a user would give them."""

    seed: int = 0
    width: int = 960
    fps: int = 20
    dice_from_labels: bool = False
    """Take the dice from the film's labels (as a dice cup would tell them) instead of reading them."""
    stop_event: threading.Event = field(default_factory=threading.Event)
    playing: threading.Event = field(default_factory=threading.Event)
    """Set while the film plays the game (`plays_the_game`)."""

    def run(self, emit: Emit, status: Status) -> None:
        self.playing.set()
        try:
            self._run(emit, status)
        finally:
            self.playing.clear()

    def _run(self, emit: Emit, status: Status) -> None:
        import numpy as np

        from companion.sim import STYLES, Effects, Pose
        from companion.sim.truth import image_corners
        from companion.sim.video import GameFilm, self_play
        from companion.vision.calibrate import calibrate

        turns = self_play(np.random.default_rng(self.seed))
        film = GameFilm(STYLES[self.seed % len(STYLES)], Pose(tilt=20, roll=4), Effects(light=0.15, noise=4, jpeg=85),
                        fps=self.fps, width=self.width, height=self.width * 9 // 16, seed=self.seed)
        started = time.monotonic()

        def calibrated(image, label):
            status("film: calibrated on the starting position")
            # the renderer paints its dice flat on the board
            return replace(calibrate(image, corners=image_corners(label), markers=False, reader="classic").profile,
                           flat_dice=True)

        observer = FilmObserver(turns[0].player, calibrated, dice_from_labels=self.dice_from_labels)

        def paced():
            frames, since = 0, time.monotonic()
            for image, label, phase in film.film(turns):
                if self.stop_event.wait(max(0.0, started + label.time - time.monotonic())):
                    return
                yield image, label, phase
                frames += 1
                now = time.monotonic()
                if now - since >= 1.0 and observer.watcher is not None:  # as a camera's status line reads
                    status(f"film camera: {frames / (now - since):.0f} fps, read in {observer.read_ms:.0f} ms, "
                           f"confidence {observer.watcher.status.confidence:.2f}, {label.time:.0f} s in")
                    frames, since = 0, now

        for observation in observer.observations(paced()):
            emit(observation)
        if not self.stop_event.is_set():
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

    def confirm(self, board: BoardReading) -> None:
        for part in self.parts:
            if hasattr(part, "confirm"):
                part.confirm(board)  # type: ignore[attr-defined]


def plays_the_game(source) -> bool:
    """Whether `source` is playing a whole game by itself just now (a recorded match replayed, the demo's film):
    what is typed or commanded meanwhile would mix into its game. A camera or a dice cup only watches the table."""
    playing = getattr(source, "playing", None)
    return isinstance(playing, threading.Event) and playing.is_set()


def reads_the_board(source) -> bool:
    """Whether `source` watches the checkers (a camera, the demo's film, or a group holding one): a play is then seen
    on the board, and the opponent may double as the mover finishes it. Without one, plays are typed, and a typed
    play ends its turn as it is entered."""
    if isinstance(source, Sources):
        return any(reads_the_board(part) for part in source.parts)
    return isinstance(source, (CameraSource, FilmSource))


def confirmed_board(observation: Observation, events: Sequence[Event]) -> BoardReading | None:
    """The position the referee took when `observation`, a board reading, made a play (as a reading, player 0's
    numbering): what a camera source may learn the board's empty points from (`BoardWatcher.confirm`); else None.
    The position, not the reading: the referee matched the reading's sure points only."""
    if not isinstance(observation, BoardReading):
        return None
    for event in events:
        if isinstance(event, PlayMade):
            after = event.play.position  # from the side of the opponent, now on roll
            return BoardReading.from_position(after, 1 - event.player, trays=False)
    return None


def hand_back(source, observation: Observation, events: Sequence[Event]) -> None:
    """Give `source` (if it learns from them: `confirm`) the position the referee took from `observation`."""
    board = confirmed_board(observation, events)
    if board is not None and hasattr(source, "confirm"):
        source.confirm(board)


def run_source_until_done(source, emit: Emit, status: Status, timeout: float | None = None) -> None:
    """Run a source in this thread (the headless runner), with an optional time limit."""
    if timeout is not None:
        timer = threading.Timer(timeout, source.stop)
        timer.daemon = True
        timer.start()
    source.run(emit, status)


__all__ = ["CameraSource", "DiceCupSource", "FilmObserver", "FilmSource", "ReplaySource", "Sources", "confirmed_board",
           "hand_back", "plays_the_game", "run_source_until_done"]
