"""The dice cup's line protocol (firmware/PROTOCOL.md): framing with CRC-16/CCITT-FALSE, messages, a parser.

A line is `BODY*XXXX\\n`, XXXX the CRC of BODY in upper-case hex. The parser takes any bytes (noise, cut lines,
a cup reset mid-line) and yields only messages whose CRC and fields are right; everything else is counted and
dropped, so noise can never become a roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Union

PROTOCOL_VERSION = 1
MAX_LINE = 96
STATES = ("idle", "shaking", "settling", "cocked")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): `crc16(b"123456789") == 0x29B1`."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(body: str) -> bytes:
    raw = body.encode("ascii")
    return raw + b"*%04X\n" % crc16(raw)


@dataclass(frozen=True, slots=True)
class Hello:
    protocol: int
    firmware: str
    device_id: str
    boot_id: str

    def body(self) -> str:
        return f"HELLO {self.protocol} {self.firmware} {self.device_id} {self.boot_id}"


@dataclass(frozen=True, slots=True)
class Heartbeat:
    uptime_ms: int
    state: str

    def body(self) -> str:
        return f"HB {self.uptime_ms} {self.state}"


@dataclass(frozen=True, slots=True)
class State:
    state: str

    def body(self) -> str:
        return f"STATE {self.state}"


@dataclass(frozen=True, slots=True)
class RollMessage:
    sequence: int
    dice: tuple[int, int]

    def body(self) -> str:
        return f"ROLL {self.sequence} {self.dice[0]} {self.dice[1]}"


@dataclass(frozen=True, slots=True)
class Error:
    code: int
    text: str

    def body(self) -> str:
        return f"ERR {self.code} {self.text}"


@dataclass(frozen=True, slots=True)
class Ack:
    """Host to cup: the roll with this sequence number arrived."""

    sequence: int

    def body(self) -> str:
        return f"ACK {self.sequence}"


Message = Union[Hello, Heartbeat, State, RollMessage, Error, Ack]


def encode(message: Message) -> bytes:
    return frame(message.body())


def decode_body(body: str) -> Message | None:
    """The message a CRC-checked body holds, or None if its fields are wrong."""
    parts = body.split(" ")
    kind, args = parts[0], parts[1:]
    try:
        if kind == "HELLO" and len(args) == 4 and _hex(args[2], 8) and _hex(args[3], 8):
            return Hello(int(args[0]), args[1], args[2], args[3])
        if kind == "HB" and len(args) == 2 and args[1] in STATES:
            return Heartbeat(_uint(args[0], 2**32 - 1), args[1])
        if kind == "STATE" and len(args) == 1 and args[0] in STATES:
            return State(args[0])
        if kind == "ROLL" and len(args) == 3:
            sequence, d1, d2 = _uint(args[0], 65535), _uint(args[1], 6), _uint(args[2], 6)
            if sequence >= 1 and d1 >= 1 and d2 >= 1:
                return RollMessage(sequence, (d1, d2))
        if kind == "ERR" and len(args) >= 1:
            return Error(_uint(args[0], 255), " ".join(args[1:]))
        if kind == "ACK" and len(args) == 1:
            return Ack(_uint(args[0], 65535))
    except ValueError:
        return None
    return None


def _uint(text: str, most: int) -> int:
    if not text.isdigit() or not text.isascii() or len(text) > 10:
        raise ValueError(text)
    value = int(text)
    if value > most:
        raise ValueError(text)
    return value


def _hex(text: str, width: int) -> bool:
    return len(text) == width and all(c in "0123456789ABCDEF" for c in text)


class LineParser:
    """Bytes in, messages out. Tolerates noise: bad lines are counted in `rejected` and dropped."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overflow = False
        self.rejected = 0

    def feed(self, data: bytes) -> Iterator[Message]:
        for byte in data:
            if byte in (0x0A, 0x0D):
                if self._buffer or self._overflow:
                    message = None if self._overflow else self._line(bytes(self._buffer))
                    if message is None:
                        self.rejected += 1
                    else:
                        yield message
                self._buffer.clear()
                self._overflow = False
            elif len(self._buffer) >= MAX_LINE:
                self._overflow = True  # a line this long is noise: drop it whole, resync at the next newline
            else:
                self._buffer.append(byte)

    @staticmethod
    def _line(raw: bytes) -> Message | None:
        star = raw.rfind(b"*")
        if star < 1 or len(raw) != star + 5:
            return None
        try:
            body, crc = raw[:star].decode("ascii"), raw[star + 1:].decode("ascii")
        except UnicodeDecodeError:
            return None
        if not _hex(crc, 4) or crc16(raw[:star]) != int(crc, 16) or not body.isprintable():
            return None
        return decode_body(body)


__all__ = [
    "Ack", "Error", "Heartbeat", "Hello", "LineParser", "Message", "PROTOCOL_VERSION", "RollMessage", "State",
    "crc16", "decode_body", "encode", "frame",
]
