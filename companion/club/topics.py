"""MQTT topics and message payloads of club mode, and the checks every received message goes through.

A board publishes each journal line (the header as number 0, then every entry with its sequence number `n`) to
`club/<event>/<board>/journal` with QoS 1. The server answers on `club/<event>/<board>/ack` (retained) with the
highest number it has stored; the board keeps that number on disk and sends everything after it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from companion.errors import ClubError

MAX_PAYLOAD = 64 * 1024
"""A journal line is a few hundred bytes; anything this large is hostile or broken."""

NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""Event and board names: safe in topics, URLs, file names and user names (no MQTT wildcards)."""


def check_name(kind: str, value: str) -> str:
    if not NAME.match(value):
        raise ClubError(f"{kind} {value!r} must be 1-32 letters, digits, '-' or '_'")
    return value


def journal_topic(event: str, board: str) -> str:
    return f"club/{event}/{board}/journal"


def ack_topic(event: str, board: str) -> str:
    return f"club/{event}/{board}/ack"


def board_user(board: str) -> str:
    """The MQTT user name of a board: one per board, so the broker can keep a board to its own topics."""
    return f"board-{board}"


SERVER_USER = "server"


@dataclass(frozen=True, slots=True)
class ClubURL:
    """Where a board or the server finds the broker: mqtt://[user:password@]host[:port]/event (mqtts: TLS)."""

    host: str
    port: int
    event: str
    tls: bool = False
    user: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> ClubURL:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ClubError(f"club URL {url!r} must start with mqtt:// or mqtts://")
        if not parts.hostname:
            raise ClubError(f"club URL {url!r} names no broker host")
        event = parts.path.strip("/")
        if not event:
            raise ClubError(f"club URL {url!r} names no event: mqtt://host/EVENT")
        check_name("event", event)
        tls = parts.scheme == "mqtts"
        try:
            port = parts.port or (8883 if tls else 1883)
        except ValueError as exc:
            raise ClubError(f"club URL {url!r} has a bad port") from exc
        return cls(parts.hostname, port, event, tls, unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None)


@dataclass(frozen=True, slots=True)
class JournalMessage:
    """One journal line as sent: the board's name, its sequence number, the line, and when it was sent."""

    board: str
    n: int
    line: dict[str, Any]
    sent: float = 0.0

    def encode(self) -> bytes:
        return json.dumps({"board": self.board, "n": self.n, "line": self.line, "sent": self.sent},
                          separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    @classmethod
    def decode(cls, topic: str, payload: bytes, event: str) -> JournalMessage:
        """The message, or ClubError saying why it is refused (the server logs it and goes on)."""
        if len(payload) > MAX_PAYLOAD:
            raise ClubError(f"{topic}: {len(payload)} bytes is over the {MAX_PAYLOAD} byte limit")
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != "club" or parts[1] != event or parts[3] != "journal":
            raise ClubError(f"{topic}: not a journal topic of event {event}")
        board = parts[2]
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ClubError(f"{topic}: not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ClubError(f"{topic}: not a JSON object")
        if data.get("board") != board:  # a message about another board than the topic it came on
            raise ClubError(f"{topic}: says it is board {data.get('board')!r}")
        n, line, sent = data.get("n"), data.get("line"), data.get("sent", 0.0)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ClubError(f"{topic}: sequence number {n!r} is not a number >= 0")
        if not isinstance(line, dict):
            raise ClubError(f"{topic}: no journal line")
        if not isinstance(sent, (int, float)):
            raise ClubError(f"{topic}: bad send time")
        return cls(board, n, line, float(sent))


def encode_ack(n: int, resend: bool = False) -> bytes:
    return json.dumps({"n": n, "resend": resend}).encode()


def decode_ack(payload: bytes) -> tuple[int, bool] | None:
    try:
        data = json.loads(payload)
        n = data["n"]
        if isinstance(n, int) and n >= -1:
            return n, bool(data.get("resend", False))
    except (ValueError, KeyError, TypeError):
        pass
    return None
