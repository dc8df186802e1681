"""The recorder: a referee whose every observation is journalled before its events are handed on, a match
log for export, and conversion between journals, `.mat` and `.sgf`.

    recorder = Recorder.create("club.jsonl", JournalHeader(("Ann", "Bob"), 7))
    events = recorder.observe(DiceReading((3, 1)))   # on disk when this returns
    recorder.export("club.mat")
    ...
    recorder = Recorder.resume("club.jsonl")         # after a crash: the same match, the same events
"""

from __future__ import annotations

from pathlib import Path

from companion.errors import CompanionError, MatchFileError
from companion.record.audit import AuditReport, audit_match
from companion.record.jellyfish import format_match_text, read_match_file
from companion.record.journal import Journal, JournalContents, JournalHeader, read_journal
from companion.record.log import MatchLog
from companion.record.model import MatchRecord
from companion.record.sgf import format_sgf, read_sgf
from companion.files import write_atomically
from companion.referee.events import Event
from companion.referee.observations import Observation
from companion.referee.referee import Referee


class Recorder:
    def __init__(self, header: JournalHeader, journal: Journal | None = None) -> None:
        self.header = header
        self.referee = Referee(header.match_state())
        self.log = MatchLog(header.players, header.length, dict(header.metadata))
        self.journal = journal
        self.observations: list[Observation] = []
        """Every observation so far (those replayed from a journal included)."""
        self.torn = False
        """On resume: the journal's last line had been cut short by the crash (and was dropped)."""
        self.damaged_at: int | None = None
        """Read with `load_any(..., salvage=True)`: the journal's damaged line the match was read up to."""
        self.clock_used: tuple[float, float] | None = None
        """The match clock's reserve used by each player, as last journalled (on resume)."""
        self.hints_shown: bool | None = None
        """Whether the app showed hints, as last journalled (on resume; None: as the mode has them)."""
        self.deep_looks: tuple[tuple[int, str], ...] = ()
        """Where the player asked for the deeper look, as journalled (on resume): entries before it, decision."""
        self.last_events: list[Event] = []
        """The last observation's events that were not empty: what a resumed app shows as its verdict."""

    @classmethod
    def create(cls, path: str | Path, header: JournalHeader) -> Recorder:
        journal = Journal.create(path, header)
        return cls(journal.header, journal)

    @classmethod
    def resume(cls, path: str | Path) -> Recorder:
        """The match of a journal, replayed; new observations are appended to it."""
        journal, contents = Journal.reopen(path)
        recorder = cls(contents.header, None)
        recorder.replay(contents.observations)
        recorder.journal = journal
        recorder.torn = contents.torn
        recorder.clock_used = contents.clock
        recorder.hints_shown = contents.hints
        recorder.deep_looks = contents.deep
        return recorder

    def replay(self, observations) -> None:
        for observation in observations:
            self.observations.append(observation)
            events = self.referee.observe(observation)
            self.log.add(events)
            if events:
                self.last_events = events

    def observe(self, observation: Observation, clock: tuple[float, float] | None = None) -> list[Event]:
        """Judge and journal one observation (with the match clock's time used, when there is a clock). If it
        cannot be journalled (a full disk), the referee is put back as it was and the error raised: what is
        decided is always what is on disk."""
        checkpoint = self.referee.checkpoint()
        events = self.referee.observe(observation)
        if self.journal is not None:
            try:
                self.journal.append(observation, events, clock)
            except CompanionError:
                self.referee.rewind(checkpoint)
                raise
        self.observations.append(observation)
        self.log.add(events)
        if events:
            self.last_events = events
        return events

    @property
    def names(self) -> tuple[str, str]:
        return self.header.players

    def record(self) -> MatchRecord:
        return self.log.record()

    def export(self, path: str | Path) -> Path:
        """Write the match so far as `.mat` or `.sgf` (by the file's suffix); returns the path."""
        p = Path(path)
        write_atomically(p, format_record(self.record(), p.suffix))
        return p

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


def format_record(record: MatchRecord, suffix: str) -> str:
    suffix = suffix.lower()
    if suffix in (".mat", ".txt"):
        return format_match_text(record)
    if suffix == ".sgf":
        return format_sgf(record)
    raise CompanionError(f"cannot write {suffix or 'files without a suffix'}: use .mat, .txt or .sgf")


def load_any(path: str | Path, *, salvage: bool = False) -> tuple[Recorder, AuditReport | None]:
    """A journal, `.mat`/`.txt` or `.sgf`, replayed through the referee into a (journal-less) recorder; a journal
    with a damaged line read up to it with `salvage` (`read_journal`)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".mat", ".txt", ".sgf"):
        record = read_sgf(p) if suffix == ".sgf" else read_match_file(p)
        header = JournalHeader(record.players, record.length, record.crawford_rule, metadata=dict(record.metadata))
        recorder = Recorder(header)
        observed: list[Observation] = []

        def keep(observation: Observation, events: list[Event]) -> None:
            observed.append(observation)
            recorder.log.add(events)

        report = audit_match(record, observer=keep, referee=recorder.referee)
        recorder.observations = observed
        return recorder, report
    contents: JournalContents = read_journal(p, salvage=salvage)
    recorder = Recorder(contents.header)
    recorder.replay(contents.observations)
    recorder.torn = contents.torn  # the caller says so: a crash cut its last line, which is left out
    recorder.damaged_at = contents.damaged_at
    return recorder, None


def convert(source: str | Path, target: str | Path) -> AuditReport | None:
    """Convert between a journal (`.jsonl`), `.mat`/`.txt` and `.sgf`. The match is replayed under the rules on
    the way, so what is written is what the referee saw; an audit report comes back for file inputs."""
    recorder, report = load_any(source)
    write_converted(recorder, report, source, target)
    return report


def write_converted(recorder: Recorder, report: AuditReport | None, source: str | Path, target: str | Path) -> None:
    """`convert`'s writing, of a match `load_any` read from `source`."""
    t = Path(target)
    if t.suffix.lower() in (".jsonl", ".journal"):
        out = Journal.create(t, recorder.header)
        replay = Referee(recorder.header.match_state())
        for observation in recorder.observations:
            out.append(observation, replay.observe(observation))
        out.close()
    else:
        if report is not None and not report.ok and t.suffix.lower() != ".sgf":
            problems = "; ".join(str(f) for f in report.findings[:3])
            raise MatchFileError(f"{source} breaks the rules ({problems}); convert it to .sgf, which can carry that")
        recorder.export(t)


__all__ = ["Recorder", "convert", "format_record", "load_any", "write_converted"]
