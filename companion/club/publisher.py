"""A board's side of club mode: send its journal, line by line, to the club's broker, and remember what the
server has acknowledged.

The journal on disk is the queue: lines are read from it (the header is number 0, each entry carries its number
`n`) and published with QoS 1. The server's acknowledgement (the highest number it has stored) is kept in the
journal itself, as an acknowledgement line (see `companion.record.journal`), so after a disconnect, a crash of the
board or of the server, sending resumes after the last acknowledged line: nothing is lost while the network is
down, and what is sent twice the server recognises by its number and stores once.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from companion.club.topics import (Ack, ClubURL, JournalMessage, ack_topic, board_user, check_name, journal_topic,
                                   match_id)
from companion.record.journal import Journal, JournalError, is_aside_line

WINDOW = 200
"""Lines sent ahead of the acknowledgement: enough to stream a match at any speed, small enough to resend."""
SILENT_AFTER = 10.0
"""Seconds connected with lines waiting and no answer before the status says so (a wrong event name, no server)."""
REFUSED_PAUSE = 30.0
"""Seconds before a line the server refused is sent again (a newer server may take it; sooner is only noise)."""


@dataclass(frozen=True, slots=True)
class LinkStatus:
    connected: bool
    acked: int
    """Highest line number the server has stored (-1: none yet)."""
    waiting: int
    """Journal lines the server has not acknowledged yet."""
    refused: str = ""
    """Why the broker refused the board, or the server a line (sending again will not mend it)."""
    silent: bool = False
    """Connected, lines waiting, and no answer from the server for `SILENT_AFTER` seconds."""

    def text(self) -> str:
        link = "club: connected" if self.connected else "club: offline"
        if self.refused:
            link = f"club: refused ({self.refused})"
        elif self.silent and self.waiting:
            link += " but no answer from the club's server (is it running, is the event's name right?)"
        return f"{link}, {self.waiting} waiting" if self.waiting else f"{link}, all sent"


class Publisher:
    """Publishes one journal to `club/<event>/<board>/journal`; runs in a thread of its own."""

    def __init__(self, journal: Journal, url: ClubURL, board: str, *, user: str | None = None,
                 password: str | None = None, resend_after: float = 2.0, poll: float = 0.02,
                 save_every: float = 0.5, client_id: str | None = None, ca: str | Path | None = None) -> None:
        """`journal`: the recorder's open journal (the one writer of the file), which the acknowledgements are
        appended to. To send a finished match, open it with `Journal.reopen` and close it after `stop`."""
        if not isinstance(journal, Journal):
            raise TypeError("a Publisher appends to the recorder's open Journal, not to a path of its own")
        self.writer = journal
        self.journal = journal.path
        self.url, self.board = url, check_name("board", board)
        self.user = user or url.user or board_user(board)
        self.password = password if password is not None else url.password
        self.resend_after, self.poll, self.save_every = resend_after, poll, save_every
        self.lines: list[bytes] = []
        self._offset = 0
        self._partial = b""
        self.acked = self.writer.acked
        self._saved = self.acked
        self._saved_at = 0.0
        self._next = self.acked + 1
        self._progress = time.monotonic()
        self._answered = time.monotonic()
        self._connected = False
        self._match: str | None = None
        """This journal's `match_id`, once its header is read: acknowledgements of another match are not ours."""
        self.refused = ""
        self._refused_at = 0.0
        self._refused_after = -1
        """What the server had stored when it refused a line: the refusal stands until it stores more."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._nudge = threading.Event()
        self._passes = 0
        """Rounds of the sending loop so far: `flush` waits for one that began after it was called."""
        self._thread: threading.Thread | None = None
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or
                                  f"{url.event}-{board}-{int(time.time() * 1000) % 10**9}", clean_session=True)
        self.client.username_pw_set(self.user, self.password)
        if url.tls:  # the system's CAs (a hosted broker) or the club's own (`ca`): the broker is always verified
            self.client.tls_set(ca_certs=str(ca) if ca else None, cert_reqs=ssl.CERT_REQUIRED)
        self.client.reconnect_delay_set(0.2, 2)
        self.client.max_inflight_messages_set(WINDOW)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # -- the link -------------------------------------------------------------------------------------------------

    def _on_connect(self, client, _userdata, _flags, reason, _props) -> None:
        if reason.is_failure:  # paho retries; the status line says why (a wrong board, token or password)
            with self._lock:
                self.refused = f"the broker said: {reason}; check --board, --token-file and the club URL"
            return
        client.subscribe(ack_topic(self.url.event, self.board), qos=1)
        with self._lock:
            self.refused = ""
            self._connected = True
            self._answered = time.monotonic()
            self._next = self.acked + 1  # whatever was in flight may be lost: send it again
            self._progress = time.monotonic()

    def _on_disconnect(self, _client, _userdata, _flags, _reason, _props) -> None:
        with self._lock:
            self._connected = False

    def _on_message(self, _client, _userdata, message) -> None:
        ack = Ack.decode(message.payload)
        if ack is None:
            return
        n, resend = ack.n, ack.resend
        with self._lock:
            if ack.match is not None and ack.match != self._match:
                return  # the answer about another match of this board (an earlier one, or kept retained)
            self._answered = time.monotonic()
            if ack.refused:
                self.refused, self._refused_at, self._refused_after = f"the server said: {ack.refused}", \
                    time.monotonic(), n
            elif self.refused and n <= self._refused_after:
                return  # the refused line is still not stored (an answer to the lines after it): the pause holds
            else:
                self.refused = ""
            if n > self.acked:
                self.acked = min(n, len(self.lines) - 1) if self.lines else n
                self._progress = time.monotonic()
            if resend:  # the server missed lines: start again after what it has
                self._next = min(self._next, n + 1)

    # -- the loop ----------------------------------------------------------------------------------------------

    def start(self) -> Publisher:
        self.client.connect_async(self.url.host, self.url.port, keepalive=10)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"club-publisher-{self.board}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self._read_new_lines()
            self._send()
            self._save_acked()
            self._passes += 1
            self._nudge.wait(self.poll)
            self._nudge.clear()

    def wake(self) -> None:
        """The journal has a new line: look now rather than at the next poll (the recorder's process calls it)."""
        self._nudge.set()

    def _read_new_lines(self) -> None:
        try:
            with open(self.journal, "rb") as f:
                f.seek(self._offset)
                chunk = f.read()
        except OSError:
            return
        if not chunk:
            return
        self._offset += len(chunk)
        data = self._partial + chunk
        *complete, self._partial = data.split(b"\n")  # a line still being written waits for its newline
        with self._lock:  # line n of the list is entry n: the lines beside the match (`is_aside_line`) are not sent
            if self.acked >= len(self.lines) - 1:  # none was waiting: the silence is counted from the new lines
                self._answered = time.monotonic()
            self.lines.extend(line for line in complete if line.strip() and not is_aside_line(line))
            if self._match is None and self.lines:
                self._match = match_id(_entry(self.lines[0]))

    def _send(self) -> None:
        with self._lock:
            if not self._connected:
                return
            if self.refused and time.monotonic() - self._refused_at < REFUSED_PAUSE:
                return
            if self._next > self.acked + 1 and time.monotonic() - self._progress > self.resend_after:
                self._next = self.acked + 1  # no answer for a while: the messages or the acks were lost
                self._progress = time.monotonic()
            todo = []
            while self._next < len(self.lines) and self._next - self.acked <= WINDOW:
                todo.append(self._next)
                self._next += 1
            lines, match = [self.lines[n] for n in todo], self._match
        topic = journal_topic(self.url.event, self.board)
        for n, raw in zip(todo, lines):
            payload = JournalMessage(self.board, n, _entry(raw), time.time(), match).encode()
            self.client.publish(topic, payload, qos=1)

    def _save_acked(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.acked != self._saved and (force or now - self._saved_at >= self.save_every):
            # an older number in the journal only means lines sent again, which the server stores once
            acked = self.acked
            try:
                self.writer.append_ack(acked)
            except (JournalError, ValueError):  # a journal closed or failing: the recorder reports that itself
                return
            self._saved, self._saved_at = acked, now

    def status(self) -> LinkStatus:
        with self._lock:
            waiting = max(0, len(self.lines) - 1 - self.acked)
            silent = self._connected and time.monotonic() - self._answered > SILENT_AFTER
            return LinkStatus(self._connected, self.acked, waiting, self.refused, silent)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the server has every line of the journal as it is now; False on timeout."""
        deadline = time.monotonic() + timeout
        begun = self._passes
        while time.monotonic() < deadline:
            # a round that began after this call has read the journal's last line: only then can none wait
            if self._passes >= begun + 2 and self.status().waiting == 0 and self.lines:
                return True
            self.wake()  # keep the loop going (sending as the acks come) whatever its poll
            time.sleep(0.02)
        return False

    def stop(self) -> None:
        self._stop.set()
        self._nudge.set()
        if self._thread is not None:
            self._thread.join(5)
        self._save_acked(force=True)
        self.client.disconnect()
        self.client.loop_stop()


def _entry(raw: bytes) -> dict[str, Any]:
    return json.loads(raw)
