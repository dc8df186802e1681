"""The dice cup driver: finds the cup, reads its lines, acknowledges rolls, and turns them into `DiceReading`s.

Call `poll()` from a worker thread or loop; it never blocks for longer than its timeout. A cup that is
unplugged (the read raises, although pyserial keeps `is_open` true) or falls silent (no heartbeat) is closed
and reopened; a roll re-sent after a lost ACK, or after a reconnect, is recognised by its boot id and
sequence number and given to the referee once. Only CRC-checked `ROLL` lines make readings: no phantom rolls.

The cup re-sends only its latest roll, so a sequence number other than the last one seen is a new roll: a lower one
means the cup reset (its count starts again at 1) even where its HELLO was missed (sent before the port opened) or
its boot id came out the same (a simulator without entropy). The port is opened exclusively, so a second program
(`companion dicecup` beside the app) is told the cup is busy rather than taking the rolls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable

import serial
from serial.tools import list_ports

from companion.devices.protocol import (PROTOCOL_VERSION, Ack, Error, Heartbeat, Hello, LineParser, RollMessage,
                                       State, encode)
from companion.referee.observations import DiceReading

# USB ids of the boards the firmware runs on: Arduino Uno (ATmega16U2), Nano clones (CH340, FT232R)
KNOWN_USB_IDS = ((0x2341, 0x0043), (0x2341, 0x0001), (0x1A86, 0x7523), (0x0403, 0x6001))
BAUDRATE = 115200


class Link(Enum):
    SEARCHING = "searching"
    """No cup found yet (or it was unplugged): looking again every `retry_interval`."""
    CONNECTING = "connecting"
    """Port open, waiting for the cup's HELLO (an Uno resets when the port opens)."""
    CONNECTED = "connected"
    LOST = "lost"
    """The cup went away (read error or missed heartbeats); it will be looked for again."""


@dataclass(frozen=True, slots=True)
class LinkStatus:
    link: Link
    detail: str = ""

    def __str__(self) -> str:
        return f"dice cup {self.link.value}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class CupState:
    """What the cup says it is doing (idle, shaking, settling, cocked), for the app's status line."""

    state: str

    def __str__(self) -> str:
        return f"cup {self.state}"


def find_cup_ports(usb_ids=KNOWN_USB_IDS, serial_number: str | None = None) -> list[str]:
    """Serial ports whose USB vendor/product id (and serial number, when given) match a dice cup."""
    found = []
    for port in list_ports.comports():
        if port.vid is None or (port.vid, port.pid) not in usb_ids:
            continue
        if serial_number and port.serial_number != serial_number:
            continue
        found.append(port.device)
    return sorted(found)


def _reason(exc: Exception) -> str:
    """pyserial's "[Errno 2] could not open port /dev/x: [Errno 2] No such file or directory: '/dev/x'", short."""
    errno = getattr(exc, "errno", None)
    if errno == 2 or "No such file" in str(exc):
        return "no such device"
    if errno == 13 or "Permission denied" in str(exc):
        return "permission denied (on Linux, join the dialout group)"
    if errno in (11, 16) or "busy" in str(exc).lower() or "exclusively lock" in str(exc):
        return "busy in another program (close it: one program at a time reads the cup)"
    return str(exc).split(":")[-1].strip() or exc.__class__.__name__


class DiceCupDriver:
    """One dice cup. `port` is a device path or a pyserial URL; None finds the cup by its USB ids."""

    def __init__(self, port: str | None = None, *, serial_number: str | None = None, baudrate: int = BAUDRATE,
                 heartbeat_timeout: float = 3.0, retry_interval: float = 0.5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.serial_number = serial_number
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.retry_interval = retry_interval
        self.clock = clock
        self._serial: serial.SerialBase | None = None
        self._parser = LineParser()
        self._link = Link.SEARCHING
        self._last_heard = 0.0
        self._next_try = 0.0
        self._boot: str | None = None
        self._seen: dict[str | None, int] = {}  # boot id -> highest roll sequence given out
        self._rolls = 0
        self._why = ""
        """Why the last try to open the cup failed (said once, not on every try)."""
        self.hello: Hello | None = None

    @property
    def link(self) -> Link:
        return self._link

    def poll(self, timeout: float = 0.05) -> list[DiceReading | LinkStatus | CupState]:
        """Read what arrived within `timeout` seconds; returns new readings and status changes."""
        out: list[DiceReading | LinkStatus | CupState] = []
        if self._serial is None:
            self._try_open(out)
            if self._serial is None:
                time.sleep(min(timeout, self.retry_interval))
                return out
        assert self._serial is not None
        try:
            self._serial.timeout = timeout
            data = self._serial.read(max(1, self._serial.in_waiting))
        except (serial.SerialException, OSError) as exc:
            self._lose(out, f"read failed ({exc.__class__.__name__}): unplugged?")
            return out
        now = self.clock()
        for message in self._parser.feed(data):
            self._last_heard = now
            self._handle(message, out)
        if now - self._last_heard > self.heartbeat_timeout:
            self._lose(out, self.unanswered() if self._link is Link.CONNECTING
                       else f"no heartbeat for {self.heartbeat_timeout:.0f} s")
        return out

    def unanswered(self) -> str:
        """Why a port opened gives no dice cup line (said when the wait for one runs out): is it the cup at all?"""
        if self._parser.rejected:
            return (f"{self._parser.rejected} line(s) arrived, none a dice cup's: is this port the cup, at "
                    f"{self.baudrate} baud?")
        return "nothing arrived from the port: is it the cup, with its firmware loaded?"

    def close(self) -> None:
        if self._serial is not None:
            try:
                self._serial.close()
            except (serial.SerialException, OSError):
                pass
            self._serial = None

    # -- internals ----------------------------------------------------------------------------------

    def _try_open(self, out: list) -> None:
        now = self.clock()
        if now < self._next_try:
            return
        self._next_try = now + self.retry_interval
        ports = [self.port] if self.port else find_cup_ports(serial_number=self.serial_number)
        why = "no dice cup found (none of its USB ids is plugged in)"
        for port in ports:
            try:
                self._serial = serial.serial_for_url(port, baudrate=self.baudrate, timeout=0.05,
                                                     exclusive=True)
            except (serial.SerialException, OSError, ValueError) as exc:
                why = f"cannot open {port}: {_reason(exc)}"
                if "/" not in port and "://" not in port and Path("/dev", port).exists():
                    why += f" (did you mean /dev/{port}?)"
                continue
            self._parser = LineParser()
            self._last_heard = now
            self._why = ""
            self._set(out, Link.CONNECTING, port)
            return
        if self._link is not Link.SEARCHING and self._link is not Link.LOST:
            self._set(out, Link.SEARCHING, why)
        elif why != self._why:  # said once: why the cup is not there, while it is looked for again
            out.append(LinkStatus(self._link, why))
        self._why = why

    def _lose(self, out: list, why: str) -> None:
        self.close()
        self._next_try = self.clock() + self.retry_interval
        self._set(out, Link.LOST, why)

    def _set(self, out: list, link: Link, detail: str) -> None:
        if link is not self._link or link is Link.CONNECTING:
            self._link = link
            out.append(LinkStatus(link, detail))

    def _send(self, message: Ack) -> None:
        assert self._serial is not None
        try:
            self._serial.write(encode(message))
        except (serial.SerialException, OSError):
            pass  # the next read will notice the unplug

    def _handle(self, message, out: list) -> None:
        if isinstance(message, Hello):
            reset = self._link is Link.CONNECTED  # a HELLO while connected: the cup reset (power, a brown-out)
            self.hello = message
            self._boot = message.boot_id
            self._seen.pop(message.boot_id, None)  # a new boot counts from 1, whatever id it drew
            detail = (f"{'the cup reset: ' if reset else ''}device {message.device_id}, firmware "
                      f"{message.firmware}, protocol {message.protocol}")
            if message.protocol != PROTOCOL_VERSION:
                detail += f" (this app speaks protocol {PROTOCOL_VERSION}: update the app or the firmware)"
            self._link = Link.CONNECTING if reset else self._link  # said again, not swallowed as no change
            self._set(out, Link.CONNECTED, detail)
        elif self._link is Link.CONNECTING and isinstance(message, (Heartbeat, State, RollMessage)):
            self._set(out, Link.CONNECTED, "(the cup was already on when the port opened)")
        if isinstance(message, RollMessage):
            self._send(Ack(message.sequence))  # every copy is acknowledged, so the cup stops re-sending
            if message.sequence != self._seen.get(self._boot, 0):  # it re-sends only its latest roll
                self._seen[self._boot] = message.sequence
                self._rolls += 1
                out.append(DiceReading(message.dice, sequence=self._rolls, time=self.clock()))
        elif isinstance(message, State):
            out.append(CupState(message.state))
            if message.state == "cocked":
                out.append(DiceReading.cocked("the dice cup was set down tilted: shake again", time=self.clock()))
        elif isinstance(message, Error):
            out.append(LinkStatus(self._link, f"cup error {message.code}: {message.text}"))


__all__ = ["BAUDRATE", "CupState", "DiceCupDriver", "KNOWN_USB_IDS", "Link", "LinkStatus", "find_cup_ports"]
