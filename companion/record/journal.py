"""The journal: every observation and the events it caused, one JSON line each, flushed and fsynced before
the events are shown, so a crash at any moment loses nothing that was on screen.

The first line is a header (players, match length and rules). Replaying the observations through a new
referee rebuilds the match exactly (the referee is deterministic); the events are kept for people and tools.
A crash can tear only the last line; reading drops a torn last line and says so, any other damage is an
error naming the line.

In club mode the journal also keeps the club server's acknowledgements, as lines of their own (`{"ack":N}`: the
server has stored every line up to entry N), so the board knows after any crash where sending resumes. The app's
hints, shown or hidden (`h`), are lines of their own too (`{"hints":true}`), so a resumed match shows them as they
were, and so is the match clock's time used when the app quits (`{"clock":[12.5,40.0]}`), and where a player asked
for the deeper look in training mode (`{"deep":[12,"play:..."]}`: after entry 12, at that decision), so a resumed
match rates that play as deeply as it was rated. None is an entry: reading the match, exporting it and sending it skip
them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.record.codec import CodecError, event_to_json, observation_from_json, observation_to_json
from companion.referee.events import Event
from companion.referee.observations import Observation
from companion.rules import MatchState

FORMAT = "backgammon-companion-journal"
VERSION = 2
"""Written in every new journal's header. A version 2 journal may hold the hints and clock lines and the header's
clock (which only the last version 1 builds knew) and the deeper-look lines (which none did): a build that reads
version 1 only refuses it by its number rather than failing on a line it does not know."""
READABLE_VERSIONS = (1, 2)
"""Journals this build reads: version 1's (whose last builds also wrote the hints and clock lines) and 2's."""


class JournalError(CompanionError):
    """A journal that cannot be read or written."""


@dataclass(frozen=True, slots=True)
class JournalHeader:
    players: tuple[str, str] = ("Player 0", "Player 1")
    length: int = 0
    crawford_rule: bool = True
    jacoby: bool = True
    beaver: bool = True
    metadata: dict[str, str] = field(default_factory=dict)
    created: str = ""
    mode: str = ""
    """The app's mode (referee, record, train) when the match began: a resumed match comes back in it."""
    clock: tuple[float, float] | None = None
    """The match clock's settings, a delay per move and a reserve per point of the match, in seconds (`run
    --clock`), when the match has one: a resumed match keeps its clock without being told again."""

    def match_state(self) -> MatchState:
        if self.length:
            return MatchState.match_to(self.length, crawford_rule=self.crawford_rule)
        return MatchState.money(jacoby=self.jacoby, beaver=self.beaver)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "players": list(self.players), "length": self.length,
                "crawford_rule": self.crawford_rule, "jacoby": self.jacoby, "beaver": self.beaver,
                "metadata": self.metadata, "created": self.created, "mode": self.mode} | (
                    {"clock": list(self.clock)} if self.clock is not None else {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalHeader:
        if data.get("format") != FORMAT:
            raise JournalError("not a Backgammon Companion journal (no header line)")
        if data.get("version") not in READABLE_VERSIONS:
            raise JournalError(f"journal version {data.get('version')} is not supported (this build reads "
                               f"versions {', '.join(map(str, READABLE_VERSIONS))}: a newer build wrote it?)")
        clock = data.get("clock")
        return cls(tuple(data["players"]), int(data["length"]), bool(data["crawford_rule"]), bool(data["jacoby"]),
                   bool(data["beaver"]), dict(data.get("metadata", {})), str(data.get("created", "")),
                   str(data.get("mode", "")), None if clock is None else (float(clock[0]), float(clock[1])))


@dataclass(frozen=True, slots=True)
class JournalContents:
    header: JournalHeader
    observations: tuple[Observation, ...]
    torn: bool
    """The last line was cut short by a crash (it is not in `observations`)."""
    good_bytes: int
    """Where the intact lines end: appending resumes here."""
    clock: tuple[float, float] | None = None
    """The match clock's reserve used by each player, as last journalled (None: no clock)."""
    acked: int = -1
    """The last entry number the club server acknowledged, as last journalled (-1: none)."""
    hints: bool | None = None
    """Whether the app showed hints, as last journalled (None: never toggled, so as the mode has them)."""
    deep: tuple[tuple[int, str], ...] = ()
    """Where the player asked for the deeper look (x): the entries before it and the decision's key, in order."""
    damaged_at: int | None = None
    """Read with `salvage`: the damaged line the reading stopped at (1-based), None where every line was whole."""


ACK_PREFIX = b'{"ack":'
HINTS_PREFIX = b'{"hints":'
CLOCK_PREFIX = b'{"clock":'
DEEP_PREFIX = b'{"deep":'


def is_ack_line(line: bytes) -> bool:
    """An acknowledgement line (written only by `Journal.append_ack`, always in this form), not an entry."""
    return line.startswith(ACK_PREFIX)


def is_aside_line(line: bytes) -> bool:
    """A line beside the match, not an entry: a club acknowledgement, the app's hints toggle, the match clock's
    time at a quit or a deeper look asked for (written only by `Journal.append_ack`, `append_hints`, `append_clock`
    and `append_deep`, always in these forms). Reading the match and sending it skip them."""
    return line.startswith((ACK_PREFIX, HINTS_PREFIX, CLOCK_PREFIX, DEEP_PREFIX))


def record_lines(raw: bytes) -> list[bytes]:
    """The header and the entries of a journal's bytes, in order, without the lines beside the match
    (`is_aside_line`), blank lines or a torn last line: what the club server must hold of this match."""
    return [line for line in raw.split(b"\n")[:-1] if line.strip() and not is_aside_line(line)]


def read_journal(path: str | Path, *, salvage: bool = False) -> JournalContents:
    """The journal's match. A damaged line is an error, naming it; with `salvage` the match is read up to it
    (`JournalContents.damaged_at`): what follows a lost entry cannot be replayed. The file is never changed here."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise JournalError(f"cannot read the journal {p}: {exc.strerror or exc}") from exc
    lines = raw.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # the text after the last newline was never finished
    if not complete:
        raise JournalError(f"{p} is empty or has no header line: not a journal")
    try:
        first = json.loads(complete[0])
    except (UnicodeDecodeError, json.JSONDecodeError):
        first = None
    if not isinstance(first, dict):  # not a damaged journal: some other file (a match file is .mat, .txt or .sgf)
        raise JournalError(f"{p} is not a Backgammon Companion journal (its first line is no header); a match file "
                           "is read by its suffix, .mat, .txt or .sgf")
    header = JournalHeader.from_json(first)
    observations = []
    clock = None
    acked = -1
    hints = None
    deep = []
    damaged_at = None
    good = len(raw) - len(tail)
    offset = len(complete[0]) + 1
    for number, line in enumerate(complete[1:], start=2):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        try:
            entry = _parse(line, p, number)
            if is_ack_line(line):
                acked = max(acked, int(entry["ack"]))
                continue
            if line.startswith(HINTS_PREFIX):
                hints = bool(entry["hints"])
                continue
            if line.startswith(CLOCK_PREFIX):
                clock = (float(entry["clock"][0]), float(entry["clock"][1]))
                continue
            if line.startswith(DEEP_PREFIX):
                deep.append((int(entry["deep"][0]), str(entry["deep"][1])))
                continue
            observations.append(observation_from_json(entry["obs"]))
            if "clock" in entry:
                clock = (float(entry["clock"][0]), float(entry["clock"][1]))
        except (JournalError, CodecError, KeyError, TypeError, ValueError, IndexError) as exc:
            if salvage and is_aside_line(line):
                continue  # beside the match (an acknowledgement, the hints, the clock): the match goes on after it
            if salvage:
                damaged_at, good = number, start
                break
            said = str(exc) if isinstance(exc, JournalError) else f"{p}, line {number}: {exc}"
            raise JournalError(f"{said}. The lines before it are whole: `companion export --salvage {p} OUT.sgf` "
                               f"writes the match up to there (this file is left as it is)") from exc
    torn = bool(tail.strip()) and damaged_at is None
    return JournalContents(header, tuple(observations), torn, good, clock, acked, hints, tuple(deep), damaged_at)


def _parse(line: bytes, path: Path, number: int) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        what = f"not JSON ({exc.msg} at column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise JournalError(f"{path}, line {number}: damaged, {what}") from exc
    if not isinstance(data, dict):
        raise JournalError(f"{path}, line {number}: not a journal entry")
    return data


class Journal:
    """An open journal, appended to one entry at a time."""

    def __init__(self, path: Path, handle, header: JournalHeader, entries: int, acked: int = -1) -> None:
        self.path, self._handle, self.header, self.entries = path, handle, header, entries
        self.acked = acked
        """The last acknowledgement written (see `append_ack`)."""
        self._lock = threading.Lock()  # the recorder and the club link (a thread of its own) both append

    @classmethod
    def create(cls, path: str | Path, header: JournalHeader) -> Journal:
        p = Path(path)
        if not header.created:
            # to the microsecond: the club names a match by a digest of its header (`club.topics.match_id`), and
            # two matches begun on one board by the same players under the same rules in one second were one
            header = replace(header, created=datetime.now(timezone.utc).isoformat(timespec="microseconds"))
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            # never overwrite a match; append-only, so a line lands at the end whoever else has the file open
            # unbuffered: a line that failed to write must not wait in a buffer for the next write to carry it
            handle = os.fdopen(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644), "ab",
                               buffering=0)
        except FileExistsError as exc:
            raise JournalError(f"{p} exists already: resume it with --resume, or choose another file") from exc
        except OSError as exc:
            raise JournalError(f"cannot create the journal {p}: {exc.strerror or exc}") from exc
        journal = cls(p, handle, header, 0)
        journal._write(header.to_json())
        return journal

    @classmethod
    def reopen(cls, path: str | Path) -> tuple[Journal, JournalContents]:
        """Open an existing journal for appending, first cutting off a torn last line."""
        contents = read_journal(path)
        p = Path(path)
        try:
            with open(p, "r+b") as cut:
                cut.truncate(contents.good_bytes)
            handle = open(p, "ab", buffering=0)  # every line lands at the end, whoever else has the file open
        except OSError as exc:
            raise JournalError(f"cannot reopen the journal {p}: {exc.strerror or exc}") from exc
        return cls(p, handle, contents.header, len(contents.observations), contents.acked), contents

    def append(self, observation: Observation, events: list[Event],
               clock: tuple[float, float] | None = None) -> None:
        """Write one entry; when this returns, it is on disk. `clock`: the match clock's reserve used by each
        player when the observation arrived, so a resumed match keeps its time."""
        entry = {"n": self.entries + 1, "obs": observation_to_json(observation),
                 "events": [event_to_json(e, self.header.players) for e in events]}
        if clock is not None:
            entry["clock"] = [round(clock[0], 2), round(clock[1], 2)]
        with self._lock:
            entry["n"] = self.entries + 1
            self._write(entry)
            self.entries += 1

    def append_ack(self, n: int) -> None:
        """Keep the club server's acknowledgement of every line up to entry `n` (0: the header). An older
        number than one already kept is ignored: acknowledgements only go forward."""
        with self._lock:
            if n <= self.acked:
                return
            self._write({"ack": int(n)})
            self.acked = int(n)

    def append_hints(self, shown: bool) -> None:
        """Keep whether the app shows hints (`h`): not the match's, but how its screen was, which a resume restores
        as it restores the mode."""
        with self._lock:
            self._write({"hints": bool(shown)})

    def append_deep(self, key: str) -> None:
        """Keep that the player asked for the deeper look (x) at the decision `key`, after the entries so far: the
        play made there is rated at that depth, on a resume too."""
        with self._lock:
            self._write({"deep": [self.entries, str(key)]})

    def append_clock(self, used: tuple[float, float]) -> None:
        """Keep the match clock's reserve used by each player when the app quits: the seconds since the last entry
        (the player on turn thinking) are not lost on a resume. An entry carries the clock as it was then."""
        with self._lock:
            self._write({"clock": [round(float(used[0]), 3), round(float(used[1]), 3)]})

    def _write(self, data: dict[str, Any]) -> None:
        line = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if self._handle.closed:  # a late writer (the app's last clock line) is told as any failed write is
            raise JournalError(f"cannot write the journal {self.path}: it is closed")
        fd = self._handle.fileno()
        start = os.fstat(fd).st_size  # the end, where an append-only write lands
        try:
            done = 0
            while done < len(line):  # a full disk or a file size limit may take part of it
                done += os.write(fd, line[done:])
            os.fsync(fd)
        except OSError as exc:
            try:  # the entry is not decided: leave none of it, not even half a line, for the next to follow
                os.ftruncate(fd, start)
            except OSError:
                pass
            raise JournalError(f"cannot write the journal {self.path}: {exc.strerror or exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._handle.close()


__all__ = ["Journal", "JournalContents", "JournalError", "JournalHeader", "is_ack_line", "is_aside_line",
           "read_journal", "record_lines"]
