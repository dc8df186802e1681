"""A software dice cup: the firmware's protocol on a pseudo-terminal, for tests, benchmarks and demos.

`SoftwareDiceCup().start()` makes a pty and a stable path to it (`cup.path`, a symlink), says HELLO, sends
heartbeats, and on `roll()` goes through shaking and settling and sends the roll until it is acknowledged,
as the firmware does. `unplug()` closes the pty (the driver's next read fails, as with a pulled USB cable);
`replug()` makes a new one behind the same path and boots again with a new boot id.
"""

from __future__ import annotations

import os
import random
import select
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Callable

from companion.devices.protocol import Ack, Heartbeat, Hello, LineParser, RollMessage, State, encode


def fair_die(next_byte: Callable[[], int]) -> int:
    """1..6 from random bytes, rejecting 252..255 so each face has 42 of the 252 accepted values (as the firmware)."""
    while True:
        byte = next_byte()
        if byte < 252:
            return byte % 6 + 1


class SoftwareDiceCup:
    def __init__(self, *, seed: int | None = None, heartbeat_interval: float = 1.0, resend_interval: float = 0.25,
                 settle_time: float = 0.0, boot_time: float = 0.3, device_id: str = "50F7CA9E") -> None:
        self._rng = random.Random(seed)
        self.heartbeat_interval = heartbeat_interval
        self.resend_interval = resend_interval
        self.settle_time = settle_time
        self.boot_time = boot_time
        """Seconds from power-on to HELLO: like an Uno, which resets when the port opens and says HELLO after."""
        self.device_id = device_id
        self._dir = Path(tempfile.mkdtemp(prefix="dicecup-"))
        self.path = str(self._dir / "dicecup")
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._thread: threading.Thread | None = None
        self._running = False
        self._sequence = 0
        self._unacked: RollMessage | None = None
        self.sent: list[bytes] = []
        self.heartbeats = True
        self.says_hello = True
        """False: the HELLO is lost (sent before the port opened), for tests."""
        self.boot_id: str | None = None
        """A fixed boot id for every start (a board without entropy, as under simavr); None draws one each time."""

    # -- power and cable ----------------------------------------------------------------------------

    def start(self) -> SoftwareDiceCup:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self._sequence = 0
        self._unacked = None
        self._running = True
        self._hello = Hello(1, "sim-1.0.0", self.device_id, self.boot_id or f"{self._rng.getrandbits(32):08X}")
        self._thread = threading.Thread(target=self._run, name="software-dice-cup", daemon=True)
        self._thread.start()
        return self

    def unplug(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join()
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def replug(self) -> None:
        self.start()

    def close(self) -> None:
        self.unplug()
        Path(self.path).unlink(missing_ok=True)
        try:
            self._dir.rmdir()
        except OSError:
            pass

    def __enter__(self) -> SoftwareDiceCup:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what a player does -------------------------------------------------------------------------

    def roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """Shake, set down flat and let settle: the dice drawn (or the ones given) are sent until acknowledged."""
        if dice is None:
            byte = lambda: self._rng.getrandbits(8)  # noqa: E731
            dice = (fair_die(byte), fair_die(byte))
        self._send(State("shaking"))
        self._send(State("settling"))
        if self.settle_time:
            time.sleep(self.settle_time)
        with self._lock:
            self._sequence = self._sequence % 65535 + 1
            self._unacked = RollMessage(self._sequence, dice)
        self._send(State("idle"))
        self._send(self._unacked)
        return dice

    def cocked(self) -> None:
        """Shake and set the cup down tilted."""
        self._send(State("shaking"))
        self._send(State("settling"))
        self._send(State("cocked"))

    def send_raw(self, data: bytes) -> None:
        """Noise on the line, for tests."""
        if self._master is not None:
            os.write(self._master, data)

    @property
    def acknowledged(self) -> bool:
        return self._unacked is None

    # -- the cup's loop -----------------------------------------------------------------------------

    def _send(self, message) -> None:
        data = encode(message)
        with self._lock:
            if self._master is not None:
                os.write(self._master, data)
                self.sent.append(data)

    def _run(self) -> None:
        parser = LineParser()
        start = time.monotonic()
        while self._running and time.monotonic() - start < self.boot_time:
            time.sleep(0.01)
        if self.says_hello:
            self._send(self._hello)
        last_beat = last_resend = time.monotonic()
        while self._running:
            master = self._master
            if master is None:
                return
            ready, _, _ = select.select([master], [], [], 0.02)
            if ready:
                try:
                    data = os.read(master, 256)
                except OSError:
                    data = b""
                for message in parser.feed(data):
                    if isinstance(message, Ack):
                        with self._lock:
                            if self._unacked is not None and message.sequence == self._unacked.sequence:
                                self._unacked = None
            now = time.monotonic()
            if self.heartbeats and now - last_beat >= self.heartbeat_interval:
                self._send(Heartbeat(int((now - start) * 1000), "idle"))
                last_beat = now
            if self._unacked is not None and now - last_resend >= self.resend_interval:
                self._send(self._unacked)
                last_resend = now


__all__ = ["SoftwareDiceCup", "fair_die"]
