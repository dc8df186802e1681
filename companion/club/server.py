"""The club server: subscribes to every board's journal, referees each match again from its observations (a
board's events are not trusted: where they differ from the referee's, the match is flagged), stores every line
once and acknowledges it, and keeps a summary of each board for the web page.

Messages that cannot be right (garbage, oversized, a line out of sequence, a board writing for another, an
observation the referee cannot take) are refused and logged in the store; they never stop the server and never
change a stored match. A line that was stored already (sent again after a disconnect) is acknowledged again and
otherwise ignored. A refusal that sending again will not mend (a header this server cannot read, an observation it
cannot referee) is told to the board in its acknowledgement, for its status line.

A board plays more than one match in a night: a new match's header (another `match_id`) moves the board's match
before it to `<board>~1` (then `~2`...), where it stays whole and can still take its own late lines, and the new
match takes the board's name.
"""

from __future__ import annotations

import logging
import queue
import ssl
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import paho.mqtt.client as mqtt

from companion.club.store import Line, Store, StoredMatch
from companion.club.topics import SERVER_USER, Ack, ClubURL, JournalMessage, ack_topic, match_id
from companion.errors import ClubError, CompanionError
from companion.record.codec import observation_from_json
from companion.record.journal import JournalHeader
from companion.record.recorder import Recorder, format_record
from companion.referee.events import (
    Beavered,
    DoubleOffered,
    Event,
    GameOver,
    GameStarted,
    IllegalPlay,
    MatchOver,
    Passed,
    PlayMade,
    PlayStood,
    ResignationOffered,
    Resigned,
    Rolled,
    Taken,
    Undone,
)
from companion.rules.game import GameState, Phase

log = logging.getLogger("companion.club")

BATCH = 500
"""Messages stored in one transaction at most."""

Listener = Callable[[str, int, float], None]
"""Called (board, line number, board's send time) after a line is stored; from the MQTT thread."""

SHOWN = (GameStarted, Rolled, PlayMade, IllegalPlay, PlayStood, DoubleOffered, Taken, Beavered, Passed,
         ResignationOffered, Resigned, Undone, GameOver, MatchOver)
"""The events the page's play list shows: the match's story (not the referee's questions and refusals)."""

EARLIER = "~"
"""Between a board's name and the number of one of its earlier matches (`1~1`): no board name holds it."""


class BoardRefused(ClubError):
    """A line refused that sending again will not mend: the board is told why."""


@dataclass
class _Batch:
    """What one batch of messages adds, stored in one transaction, then acknowledged."""

    rows: list[Line] = field(default_factory=list)
    acks: dict[str, bool] = field(default_factory=dict)
    """Where a match is kept -> ask its board to send again after what is stored."""
    told: list[tuple[str, Ack]] = field(default_factory=list)
    """(board, answer) for a match not kept (yet), or a refusal."""
    refusals: list[tuple[str, str]] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)
    stored: list[tuple[str | None, int, float]] = field(default_factory=list)
    """(where kept, line number, the board's send time) of each line stored, for the listeners."""


@dataclass
class Board:
    """One board's match as the server's referee sees it."""

    name: str
    """Where the match is kept and shown: the board's name, or `<board>~k` for its k-th match before this one."""
    header: JournalHeader
    recorder: Recorder
    match: str = ""
    """The match's `match_id`, which each of its messages and acknowledgements carries."""
    last_n: int = 0
    label: str = ""
    result: str = ""
    disagreements: list[str] = field(default_factory=list)
    last_play: str = ""
    plays: list[str] = field(default_factory=list)
    updated: float = 0.0

    def apply(self, events: list[Event]) -> None:
        names = self.header.players
        for event in events:
            if isinstance(event, SHOWN):
                self.plays.append(event.text(names))
            if isinstance(event, PlayMade):
                self.last_play = event.text(names)

    def summary(self) -> dict[str, Any]:
        """What the page shows of this board (plain JSON)."""
        referee = self.recorder.referee
        game, match = referee.game, referee.match
        mine = game.position_of(0)
        points = [0] * 25  # 1..24 from player 0's side: + his checkers, - the opponent's
        for p in range(1, 25):
            points[p] += mine.player[p]
            points[25 - p] -= mine.opponent[p]
        pips = mine.pip_counts()
        over = match.is_over()
        return {
            "board": self.name, "title": _shown(self.name), "label": self.label, "players": list(self.header.players),
            "length": self.header.length, "score": list(match.score), "cube": match.cube,
            "cube_owner": match.cube_owner, "turn": game.turn, "phase": game.phase.name.lower(),
            "doubled": game.phase is Phase.DOUBLED,
            "dice": [game.dice.die1, game.dice.die2] if game.dice else [],
            "points": points[1:], "bar": [mine.player[25], mine.opponent[25]],
            "off": [mine.player[0], mine.opponent[0]], "pips": list(pips),
            "last_play": self.last_play, "plays": self.plays[-400:], "n": self.last_n,
            "over": over, "winner": match.winner() if over else None, "result": self.result,
            "flags": list(self.disagreements), "updated": self.updated,
        }


class ClubServer:
    def __init__(self, store: Store, url: ClubURL, *, password: str | None = None, user: str = SERVER_USER,
                 client_id: str | None = None, ca: str | None = None) -> None:
        self.store, self.url, self.event, self.ca = store, url, url.event, ca
        self.user, self.password = url.user or user, password if password is not None else url.password
        self.boards: dict[str, Board] = {}
        self.listeners: list[Listener] = []
        self.lock = threading.Lock()
        self.stats = {"stored": 0, "duplicates": 0, "refused": 0, "flagged": 0, "out_of_sequence": 0}
        self._gaps: dict[str, int] = {}
        self._gap_time: dict[str, float] = {}
        self._inbox: queue.Queue[tuple[str, bytes] | None] = queue.Queue()
        self._subscribed = threading.Event()
        self._worker: threading.Thread | None = None
        self.client: mqtt.Client | None = None
        self.client_id = client_id or f"companion-server-{self.event}"
        self._rebuild()

    # -- state ------------------------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Replay every stored match through a new referee (after a restart, the server is where it was)."""
        for stored in self.store.matches(self.event):
            self._load(stored)

    def _load(self, stored: StoredMatch) -> None:
        lines = self.store.lines(self.event, stored.board)
        board = self._new_board(stored.board, lines[0])
        for n, line in enumerate(lines[1:], start=1):
            events = board.recorder.referee.observe(observation_from_json(line["obs"]))
            board.recorder.log.add(events)
            board.apply(events)
            board.last_n = n
        board.label, board.result = stored.label, stored.result
        board.disagreements = list(stored.disagreements)
        self.boards[stored.board] = board

    def _board_from(self, name: str, line: dict[str, Any]) -> Board:
        """A match begun by the header `line`, or `BoardRefused` saying why it cannot begin one."""
        try:
            return self._new_board(name, line)
        except (CompanionError, KeyError, TypeError, ValueError) as exc:
            raise BoardRefused(f"line 0 is not a journal header ({exc})") from exc

    @staticmethod
    def _new_board(name: str, line: dict[str, Any]) -> Board:
        header = JournalHeader.from_json(line)
        return Board(name, header, Recorder(header), match_id(line), updated=time.time())

    def _kept_at(self, message: JournalMessage) -> str | None:
        """Where the message's match is kept: the board's name for its match of the moment (or a message that
        names no match), `<board>~k` for an earlier one; None for a match this board has not sent before."""
        current = self.boards.get(message.board)
        match = message.match
        if match is None and message.n == 0:  # a board before session 46 names no match: its header does
            try:
                match = match_id(message.line)
            except (TypeError, ValueError):
                match = None
        if match is None or current is None or current.match == match:
            return message.board
        return next((name for name, b in self.boards.items()
                     if b.match == match and name.split(EARLIER)[0] == message.board), None)

    def _move_aside(self, board: str, batch: _Batch) -> None:
        """The board's match makes way for a new one: kept whole as `<board>~k`, its next free number, with what
        this batch holds of it already (its lines are stored under the new name: the store renames first)."""
        earlier = 1 + sum(name.split(EARLIER)[0] == board and EARLIER in name for name in self.boards)
        aside = f"{board}{EARLIER}{earlier}"
        moved = self.boards.pop(board)
        moved.name = aside
        self.boards[aside] = moved
        batch.renames.append((board, aside))
        batch.rows[:] = [replace(row, board=aside) if row.board == board else row for row in batch.rows]
        if board in batch.acks:
            batch.acks[aside] = batch.acks.pop(board)
        batch.stored[:] = [(aside if kept == board else kept, n, sent) for kept, n, sent in batch.stored]

    def summaries(self) -> list[dict[str, Any]]:
        with self.lock:
            return [b.summary() for b in sorted(self.boards.values(), key=_board_order)]

    def summary(self, board: str) -> dict[str, Any] | None:
        with self.lock:
            b = self.boards.get(board)
            return None if b is None else b.summary()

    def game(self, board: str) -> GameState | None:
        """The board's game now (immutable, so it may be analysed outside the lock)."""
        with self.lock:
            b = self.boards.get(board)
            return None if b is None else b.recorder.referee.game

    def match_text(self, board: str, suffix: str) -> str | None:
        """The board's match so far as a `.mat` or `.sgf` file's text, named by the event and dated by the match's
        start where the board's header does not say; `MatchFileError` where `.mat` cannot carry it (an illegal play
        that stood: `.sgf` can)."""
        with self.lock:
            b = self.boards.get(board)
            if b is None:
                return None
            record = b.recorder.record()
        metadata = {"Event": self.title, "EventDate": b.header.created[:10].replace("-", ".")} | record.metadata
        return format_record(replace(record, metadata={k: v for k, v in metadata.items() if v}), suffix)

    # -- messages ---------------------------------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes) -> str:
        """Take one message; returns what was done ("stored", "duplicate", or "refused: why")."""
        return self.handle_batch([(topic, payload)])[0]

    def handle_batch(self, messages: list[tuple[str, bytes]]) -> list[str]:
        """Take messages in order and store what they add in one transaction (one disk flush for the lot: the
        boards' lines arrive hundreds a second at a big event); acknowledge only what is committed."""
        outcomes: list[str] = []
        batch = _Batch()
        with self.lock:
            for topic, payload in messages:
                message, kept, why = None, None, ""
                try:
                    message = JournalMessage.decode(topic, payload, self.event)
                    outcome, kept = self._take(topic, message, batch)
                except BoardRefused as exc:
                    outcome, why = self._refuse(topic, str(exc), batch.refusals), str(exc)
                except ClubError as exc:
                    outcome = self._refuse(topic, str(exc), batch.refusals)
                except Exception as exc:  # a hostile observation must not stop the server: refuse it, log it
                    log.exception("refused %s", topic)
                    why = f"cannot be refereed ({exc.__class__.__name__}: {exc})"
                    outcome = self._refuse(topic, why, batch.refusals)
                if why and message is not None:  # sending it again will not mend it: the board is told why
                    at = self.boards.get(self._kept_at(message) or "")
                    batch.told.append((message.board, Ack(-1 if at is None else at.last_n, False, message.match,
                                                          why)))
                outcomes.append(outcome)
                if outcome == "stored":
                    batch.stored.append((kept, message.n, message.sent))
            try:
                self.store.add_lines(self.event, batch.rows, batch.refusals, batch.renames)
            except Exception:
                # nothing of the batch is stored, so nothing is acknowledged: the boards send it all again
                log.exception("cannot store %d lines; they will be sent again", len(batch.rows))
                self.boards.clear()  # as the store has them (a match moved aside in memory is back in place)
                self._rebuild()
                outcomes = ["refused: not stored" if o == "stored" else o for o in outcomes]
                batch = _Batch()
            else:
                self.stats["stored"] += len(batch.rows)
            answers = [(kept.split(EARLIER)[0], Ack(self.boards[kept].last_n, resend, self.boards[kept].match)
                        if kept in self.boards else Ack(-1, resend))  # no match of it here yet: from its start
                       for kept, resend in batch.acks.items()] + batch.told
        for board, ack in answers:
            self._ack(board, ack)
        for board, n, sent in batch.stored:
            for listener in list(self.listeners):
                try:
                    listener(board, n, sent)
                except Exception:  # a broken page must not stop the referee
                    log.exception("listener failed")
        return outcomes

    def _take(self, topic: str, message: JournalMessage, batch: _Batch) -> tuple[str, str | None]:
        """What was done with the message, and where its match is kept."""
        rows, acks, told = batch.rows, batch.acks, batch.told
        kept = self._kept_at(message)
        if kept is None and message.n == 0:  # a new match on this board: the one before it makes way
            self._board_from(message.board, message.line)  # (a header that cannot start one moves nothing)
            self._move_aside(message.board, batch)
            kept = message.board
        board = self.boards.get(kept) if kept is not None else None
        last = board.last_n if board is not None else -1
        if message.n <= last:
            self.stats["duplicates"] += 1
            log.debug("%s: line %d again (stored up to %d)", topic, message.n, last)
            acks.setdefault(kept, False)  # type: ignore[arg-type]
            return "duplicate", kept
        if message.n > last + 1:
            # a line was lost on the way, and every line the board sent after it arrives early: ask for a resend
            # once per gap (not once per line, or each answer would start the board's whole window again)
            self.stats["out_of_sequence"] += 1
            gap = (message.board, last)
            if self._gaps.get(message.board) != gap[1] or time.monotonic() - self._gap_time.get(message.board, 0) > 2:
                self._gaps[message.board], self._gap_time[message.board] = last, time.monotonic()
                if kept is None:  # lines of a match whose header never came: ask for it
                    told.append((message.board, Ack(-1, True, message.match)))
                else:
                    acks[kept] = True
                raise ClubError(f"line {message.n} out of sequence: line {last + 1} is next")
            return f"refused: line {message.n} out of sequence (asked again already)", kept
        assert kept is not None
        line = message.line
        if message.n == 0:
            self.boards[kept] = self._board_from(kept, line)
            rows.append(Line(kept, 0, line, None))
            acks.setdefault(kept, False)
            return "stored", kept
        assert board is not None
        if line.get("n") != message.n:
            raise BoardRefused(f"line {message.n} carries the journal number {line.get('n')!r}")
        try:
            observation = observation_from_json(line["obs"])
        except (CompanionError, KeyError, TypeError) as exc:
            raise BoardRefused(f"line {message.n}: {exc}") from exc
        events = board.recorder.referee.observe(observation)
        names = board.header.players
        ours = [e.text(names) for e in events]
        theirs = [e.get("text") for e in line.get("events", []) if isinstance(e, dict)]
        disagreement = None
        if ours != theirs:
            disagreement = f"line {message.n}: the board said {theirs}, the referee says {ours}"
            self.stats["flagged"] += 1
            log.warning("board %s %s", kept, disagreement)
        rows.append(Line(kept, message.n, line, disagreement))
        board.recorder.observations.append(observation)
        board.recorder.log.add(events)
        board.apply(events)
        if disagreement:
            board.disagreements.append(disagreement)
        board.last_n = message.n
        board.updated = time.time()
        acks.setdefault(kept, False)
        return "stored", kept

    def _ack(self, board: str, ack: Ack) -> None:
        if self.client is not None:
            self.client.publish(ack_topic(self.event, board), ack.encode(), qos=1, retain=True)

    def _refuse(self, topic: str, reason: str, refusals: list[tuple[str, str]]) -> str:
        self.stats["refused"] += 1
        log.warning("refused %s: %s", topic, reason)
        refusals.append((topic, reason))
        return f"refused: {reason}"

    # -- director ---------------------------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return self.store.event_title(self.event) or self.event

    def start_event(self, title: str) -> None:
        title = title.strip()[:120]
        if not title:
            raise ClubError("an event needs a title")
        self.store.start_event(self.event, title)
        for listener in list(self.listeners):
            listener("", -1, time.time())  # "" : the whole room changed

    def set_label(self, board: str, label: str) -> bool:
        label = label.strip()[:80]
        with self.lock:
            if board not in self.boards or not self.store.set_label(self.event, board, label):
                return False
            self.boards[board].label = label
        self._notify(board)
        return True

    def set_result(self, board: str, result: str) -> bool:
        """The director's word on who won ("0" or "1", player 0 or 1; "" gives the referee's verdict back)."""
        if result not in ("", "0", "1"):
            raise ClubError(f"a result is the winner, 0 or 1 (or empty), not {result!r}")
        with self.lock:
            if board not in self.boards or not self.store.set_result(self.event, board, result):
                return False
            self.boards[board].result = result
        self._notify(board)
        return True

    def _notify(self, board: str) -> None:
        for listener in list(self.listeners):
            listener(board, self.boards[board].last_n, time.time())

    # -- MQTT -------------------------------------------------------------------------------------------------

    def start(self) -> ClubServer:
        # a persistent session: while the server is down (a restart, a crash) the broker keeps the boards' lines
        # for it, so they need not all be sent again
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id, clean_session=False)
        client.username_pw_set(self.user, self.password)
        if self.url.tls:
            client.tls_set(ca_certs=self.ca, cert_reqs=ssl.CERT_REQUIRED)
        client.reconnect_delay_set(0.2, 2)
        client.max_inflight_messages_set(1000)
        client.max_queued_messages_set(0)

        def on_connect(c, _u, _f, reason, _p) -> None:
            if reason.is_failure:
                log.error("the broker refused the server: %s", reason)
                return
            c.subscribe(f"club/{self.event}/+/journal", qos=1)

        client.on_connect = on_connect
        client.on_subscribe = lambda _c, _u, _mid, _codes, _p: self._subscribed.set()
        client.on_disconnect = lambda _c, _u, _f, _reason, _p: self._subscribed.clear()
        # the network thread only queues: refereeing and the disk happen in the server's own thread, in batches
        client.on_message = lambda _c, _u, m: self._inbox.put((m.topic, m.payload))
        self.client = client
        self._worker = threading.Thread(target=self._work, name="club-server", daemon=True)
        self._worker.start()
        client.connect_async(self.url.host, self.url.port, keepalive=10)
        client.loop_start()
        return self

    def _work(self) -> None:
        while True:
            first = self._inbox.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    item = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._inbox.put(None)
                    break
                batch.append(item)
            try:
                self.handle_batch(batch)
            except Exception:  # never let the thread die: the messages are not acknowledged and come again
                log.exception("a batch of %d messages failed", len(batch))

    def connected(self) -> bool:
        return self.client is not None and self.client.is_connected()

    def subscribed(self) -> bool:
        """Whether the broker has confirmed the subscription to the boards' journals: from then on no board's
        line is missed (a line published before, to nobody, is refused out of sequence and sent again)."""
        return self.connected() and self._subscribed.is_set()

    def stop(self) -> None:
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
            self.client = None
        if self._worker is not None:
            self._inbox.put(None)
            self._worker.join(10)
            self._worker = None


def _shown(name: str) -> str:
    """A match's place as people read it: `1`, or `1 (earlier match 1)` for `1~1`."""
    board, _, earlier = name.partition(EARLIER)
    return f"{board} (earlier match {earlier})" if earlier else board


def _board_order(board: Board) -> tuple[int, str, int]:
    """Boards by number (then name), each board's earlier matches after its match of the moment, in order."""
    name, _, earlier = board.name.partition(EARLIER)
    return ((int(name), "") if name.isdigit() else (10**9, name)) + (int(earlier) if earlier else 0,)
