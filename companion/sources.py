"""Observation sources for `companion run` and `companion demo`: a recorded match replayed at a pace, and the
dice cup. Each runs in a thread and hands observations (and status lines) to callbacks; `stop` ends it.

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


def run_source_until_done(source, emit: Emit, status: Status, timeout: float | None = None) -> None:
    """Run a source in this thread (the headless runner), with an optional time limit."""
    if timeout is not None:
        timer = threading.Timer(timeout, source.stop)
        timer.daemon = True
        timer.start()
    source.run(emit, status)


__all__ = ["DiceCupSource", "ReplaySource", "run_source_until_done"]
