"""MQTT topics and message payloads of club mode, and the checks every received message goes through.

A board publishes each journal line (the header as number 0, then every entry with its sequence number `n`) to
`club/<event>/<board>/journal` with QoS 1. The server answers on `club/<event>/<board>/ack` (retained) with the
highest number it has stored; the board keeps that number on disk and sends everything after it.

Each message and each acknowledgement names its match (`match_id`, a digest of the journal's header): a board plays
several matches in a night, and an acknowledgement of the first must not tell the second that it was stored. An
acknowledgement may also say why the server refused a line that sending again will not mend (`refused`).
"""

from __future__ import annotations

import hashlib
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

MATCH_ID = re.compile(r"^[0-9a-f]{16}$")


def match_id(header: dict[str, Any]) -> str:
    """A match's name on the wire: a digest of its journal header (players, rules, when it was created), worked out
    alike by the board from its journal and by the server from the header it stored."""
    text = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


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
    """One journal line as sent: the board's name, its sequence number, the line, when it was sent, and its match
    (`match_id`; None from boards before session 46, taken as the board's match of the moment)."""

    board: str
    n: int
    line: dict[str, Any]
    sent: float = 0.0
    match: str | None = None

    def encode(self) -> bytes:
        data = {"board": self.board, "n": self.n, "line": self.line, "sent": self.sent}
        if self.match is not None:
            data["match"] = self.match
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

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
        match = data.get("match")
        if match is not None and not (isinstance(match, str) and MATCH_ID.match(match)):
            raise ClubError(f"{topic}: match {match!r} is not a match id")
        return cls(board, n, line, float(sent), match)


@dataclass(frozen=True, slots=True)
class Ack:
    """The server's answer to a board: the highest line number it stored of the match `match` (None: a server
    before session 46, which named none), whether to send again after it, and why a line was refused, if one was."""

    n: int
    resend: bool = False
    match: str | None = None
    refused: str = ""

    def encode(self) -> bytes:
        data: dict[str, Any] = {"n": self.n, "resend": self.resend}
        if self.match is not None:
            data["match"] = self.match
        if self.refused:
            data["refused"] = self.refused
        return json.dumps(data).encode()

    @classmethod
    def decode(cls, payload: bytes) -> Ack | None:
        try:
            data = json.loads(payload)
            n, match, refused = data["n"], data.get("match"), data.get("refused", "")
            if (isinstance(n, int) and not isinstance(n, bool) and n >= -1
                    and (match is None or isinstance(match, str)) and isinstance(refused, str)):
                return cls(n, bool(data.get("resend", False)), match, refused[:300])
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        return None
