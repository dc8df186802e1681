"""The journal: every observation on disk before its events are shown; a crash at any moment loses nothing."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.record.journal import (Journal, JournalError, JournalHeader, is_ack_line, read_journal,
                                      record_lines)
from companion.record.recorder import Recorder, load_any
from companion.referee import BoardReading, CubePlace, CubeReading, DiceReading, SlotReading, UserCommand, Command
from companion.rules import Position
from tests.conftest import MATCHES

ROOT = Path(__file__).resolve().parents[2]
GAME = MATCHES / "gbf__test.mat"


def test_every_kind_of_observation_survives_the_journal(tmp_path):
    reading = BoardReading.from_position(Position.start(), 0).with_point(
        5, SlotReading(0, 7, confidence=0.9, low=5, high=15))
    observations = [
        DiceReading((3, 1), sequence=4, roller=0, time=1.5),
        reading,
        DiceReading.cocked("a die leans on a checker", roller=1),
        CubeReading(2, CubePlace.PLAYER1, 0.95),
        UserCommand(Command.SET_POSITION, 1, position=Position.start().play("8/5 6/5", 3, 1).position),
        UserCommand(Command.RESIGN, 0, value=2),
    ]
    journal = Journal.create(tmp_path / "j.jsonl", JournalHeader(("A", "B"), 5))
    for obs in observations:
        journal.append(obs, [])
    journal.close()
    contents = read_journal(tmp_path / "j.jsonl")
    assert list(contents.observations) == observations
    assert [o.time for o in contents.observations] == [o.time for o in observations]
    assert contents.header.players == ("A", "B") and contents.header.length == 5 and not contents.torn


def test_a_mended_reading_stays_mended_through_the_journal_and_older_lines_read_as_seen(tmp_path):
    """`mended` does not take part in a reading's equality, so it is checked on its own: a replay must not turn a
    reading the referee would only ask about into one it may accuse on."""
    from dataclasses import replace

    from companion.record.codec import observation_from_json, observation_to_json

    mended = replace(BoardReading.from_position(Position.start(), 0), mended=True)
    journal = Journal.create(tmp_path / "j.jsonl", JournalHeader(("A", "B"), 5))
    journal.append(mended, [])
    journal.close()
    assert read_journal(tmp_path / "j.jsonl").observations[0].mended
    line = observation_to_json(BoardReading.from_position(Position.start(), 0))
    assert "mended" not in line and not observation_from_json(line).mended


def test_a_journal_replays_to_the_same_match(tmp_path):
    loaded, _ = load_any(GAME)
    recorder = Recorder.create(tmp_path / "m.jsonl", loaded.header)
    for obs in loaded.observations:
        recorder.observe(obs)
    recorder.close()
    resumed = Recorder.resume(tmp_path / "m.jsonl")
    assert [str(e) for e in resumed.referee.events] == [str(e) for e in recorder.referee.events]
    assert resumed.referee.match.score == (7, 4)


def test_a_torn_last_line_is_dropped_and_appending_goes_on(tmp_path):
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    recorder.close()
    with open(path, "ab") as f:
        f.write(b'{"n":2,"obs":{"type":"dice","val')  # the crash came mid-write
    resumed = Recorder.resume(path)
    assert resumed.torn and len(resumed.observations) == 1
    resumed.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    resumed.close()
    contents = read_journal(path)
    assert not contents.torn and len(contents.observations) == 2


def test_club_acknowledgements_live_in_the_journal_without_changing_the_match(tmp_path):
    loaded, _ = load_any(GAME)
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, loaded.header)
    half = len(loaded.observations) // 2
    for k, obs in enumerate(loaded.observations[:half]):
        recorder.observe(obs)
        if k % 7 == 3:
            recorder.journal.append_ack(k)  # the club link, between the recorder's entries
    recorder.journal.append_ack(2)  # an older acknowledgement arriving late is not kept
    acked = recorder.journal.acked
    recorder.close()
    resumed = Recorder.resume(path)  # the board restarts mid-match
    assert resumed.journal.acked == acked > 2
    for obs in loaded.observations[half:]:
        resumed.observe(obs)
    resumed.journal.append_ack(len(loaded.observations))
    resumed.close()

    plain = Recorder.create(tmp_path / "plain.jsonl", loaded.header)
    for obs in loaded.observations:
        plain.observe(obs)
    plain.close()
    contents = read_journal(path)
    assert contents.acked == len(loaded.observations) and not contents.torn
    assert contents.observations == read_journal(tmp_path / "plain.jsonl").observations
    assert [str(e) for e in Recorder.resume(path).referee.events] == [str(e) for e in plain.referee.events]
    entries = [json.loads(line) for line in record_lines(path.read_bytes())]
    assert [e["n"] for e in entries[1:]] == list(range(1, len(loaded.observations) + 1))
    acks = [json.loads(line)["ack"] for line in path.read_bytes().splitlines() if is_ack_line(line)]
    assert acks == sorted(set(acks)) and len(acks) > 3  # only forward, never repeated


def test_a_torn_acknowledgement_is_dropped_like_any_torn_line(tmp_path):
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    recorder.journal.append_ack(1)
    recorder.close()
    with open(path, "ab") as f:
        f.write(b'{"ack":')
    resumed = Recorder.resume(path)
    assert resumed.torn and resumed.journal.acked == 1 and len(resumed.observations) == 1
    resumed.close()


def test_the_apps_hints_toggle_is_kept_beside_the_match_and_never_sent_as_an_entry(tmp_path):
    """A resumed match showed hints as its mode has them, whatever `h` had made of them: the toggle is journalled,
    as lines of its own that reading the match and sending it to the club skip, as they skip acknowledgements."""
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3, mode="record"))
    recorder.observe(DiceReading((3, 1)))
    recorder.journal.append_hints(True)
    recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    recorder.journal.append_ack(2)
    recorder.journal.append_hints(False)
    recorder.journal.append_deep("play:4HPwATDgc/ABMA:cAkAAAAAAAAA")  # the deeper look asked for, after entry 2
    recorder.journal.append_hints(True)
    recorder.close()
    contents = read_journal(path)
    assert contents.hints is True and contents.acked == 2 and len(contents.observations) == 2
    assert contents.deep == ((2, "play:4HPwATDgc/ABMA:cAkAAAAAAAAA"),)
    entries = [json.loads(line) for line in record_lines(path.read_bytes())]
    assert [e.get("n") for e in entries] == [None, 1, 2]  # the header and the entries: what the club is sent
    resumed = Recorder.resume(path)
    assert resumed.deep_looks == contents.deep
    assert resumed.hints_shown is True and [str(e) for e in resumed.referee.events] == [
        str(e) for e in recorder.referee.events]
    resumed.close()
    untouched = Recorder.create(tmp_path / "n.jsonl", JournalHeader(("A", "B"), 3))
    untouched.close()
    assert Recorder.resume(tmp_path / "n.jsonl").hints_shown is None  # never toggled: as the mode has them


def test_the_match_clock_is_kept_in_the_header_and_its_time_at_a_quit_beside_the_entries(tmp_path):
    """A resumed match came back without its clock unless --clock was given again, and the seconds the player on
    turn had thought since the last entry were lost at a quit."""
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3, mode="referee", clock=(12.0, 120.0)))
    recorder.observe(DiceReading((3, 1)), (0.0, 0.0))
    recorder.journal.append_clock((4.5, 0.0))  # A thought 4.5 s past the delay, then the app quit
    recorder.close()
    contents = read_journal(path)
    assert contents.header.clock == (12.0, 120.0) and contents.clock == (4.5, 0.0)
    assert len(contents.observations) == 1
    assert [json.loads(line).get("n") for line in record_lines(path.read_bytes())] == [None, 1]  # not sent
    resumed = Recorder.resume(path)
    assert resumed.clock_used == (4.5, 0.0)
    resumed.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1), (9.0, 0.0))
    resumed.close()
    assert read_journal(path).clock == (9.0, 0.0)  # a later entry's clock is the clock
    with pytest.raises(JournalError, match="it is closed"):  # a late line from the app is an error it can catch
        resumed.journal.append_clock((1.0, 1.0))
    unclocked = JournalHeader(("A", "B"), 3)
    assert "clock" not in unclocked.to_json() and JournalHeader.from_json(unclocked.to_json()).clock is None


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines[:1] + [b"this is not json"] + lines[2:], "line 2: damaged"),
    (lambda lines: lines[:1] + [b'{"n":1,"obs":{"type":"dice","values":[9,9],"valid":true}}'] + lines[2:], "line 2"),
    (lambda lines: lines[1:], "header"),
    (lambda lines: lines[:2] + [b'{"deep":[2]}'] + lines[2:], "line 3"),  # a deeper look's line without its key
])
def test_a_damaged_journal_is_refused_with_its_line(tmp_path, damage, message):
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    recorder.observe(DiceReading(()))
    recorder.close()
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(damage(lines[:-1])) + b"\n")
    with pytest.raises(JournalError, match=message):
        read_journal(path)
    if message.startswith("line"):  # read up to the damaged line on request, the file as it was
        kept = path.read_bytes()
        salvaged = read_journal(path, salvage=True)
        if message == "line 3":  # a deeper look's line, beside the match: read past
            assert salvaged.damaged_at is None and len(salvaged.observations) == 2
        else:
            assert salvaged.damaged_at == int(message.split()[1].rstrip(":"))
            assert len(salvaged.observations) == salvaged.damaged_at - 2
        assert path.read_bytes() == kept


def test_a_damaged_line_is_named_with_what_is_wrong_and_the_way_to_keep_what_precedes_it(tmp_path):
    """A club organiser's journal with one garbled line in the middle: every command said "damaged (Expecting
    value)", a parser's words, and nothing could be done with the match before it."""
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    for dice in ((3, 1), (), (6, 4), ()):
        recorder.observe(DiceReading(dice))
    recorder.close()
    lines = path.read_bytes().split(b"\n")
    lines[3] = b'{"n":3,"obs":GARBAGE'
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"line 4: damaged, not JSON \(Expecting value at column 14\)\. The lines "
                                           r"before it are whole: `companion export --salvage"):
        read_journal(path)
    salvaged = read_journal(path, salvage=True)
    assert salvaged.damaged_at == 4 and len(salvaged.observations) == 2 and not salvaged.torn
    # a damaged line beside the match (a club acknowledgement) ends nothing: the match goes on after it
    lines[3] = b'{"ack":GARBAGE'
    path.write_bytes(b"\n".join(lines))
    salvaged = read_journal(path, salvage=True)
    assert salvaged.damaged_at is None and len(salvaged.observations) == 3


def test_a_version_1_journal_still_reads_and_a_newer_builds_is_refused_by_its_number(tmp_path):
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    recorder.close()
    header, rest = path.read_bytes().split(b"\n", 1)
    assert json.loads(header)["version"] == 2
    for version, readable in ((1, True), (3, False)):
        path.write_bytes(json.dumps(json.loads(header) | {"version": version}).encode() + b"\n" + rest)
        if readable:
            assert read_journal(path).observations == (DiceReading((3, 1)),)
        else:
            with pytest.raises(JournalError, match="version 3 is not supported .*reads versions 1, 2"):
                read_journal(path)


def test_a_journal_is_never_overwritten(tmp_path):
    path = tmp_path / "m.jsonl"
    Recorder.create(path, JournalHeader()).close()
    before = path.read_bytes()
    with pytest.raises(JournalError, match="resume"):
        Recorder.create(path, JournalHeader())
    assert path.read_bytes() == before


def _start_recording(journal: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--no-ui", "--replay", str(GAME), "--journal", str(journal),
         "--delay", "0.002", "--print-events"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("seed", range(6))
def test_killed_at_a_random_moment_resume_loses_nothing_that_was_shown(tmp_path, seed):
    journal = tmp_path / "crash.jsonl"
    process = _start_recording(journal)
    started = time.monotonic()
    while not journal.exists() and time.monotonic() - started < 60:  # the interpreter starts (slowly under load)
        time.sleep(0.01)
    assert journal.exists(), "the recorder made no journal in 60 s"
    time.sleep(random.Random(seed).uniform(0.1, 2.0))  # then a random moment of the match (which takes ~3 s)
    process.send_signal(signal.SIGKILL)
    shown, _ = process.communicate()
    shown_lines = shown.splitlines()
    resumed = Recorder.resume(journal)
    replayed = [e.text(resumed.names) for e in resumed.referee.events]
    assert replayed[:len(shown_lines)] == shown_lines  # everything printed (after its fsync) is in the journal
    # and going on from the journal finishes the match exactly as an uninterrupted run does
    resumed.close()
    subprocess.run([sys.executable, "-m", "companion.cli", "run", "--no-ui", "--replay", str(GAME), "--resume",
                    str(journal), "--delay", "0"], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    final = Recorder.resume(journal)
    assert final.referee.match.score == (7, 4)
    loaded, _ = load_any(GAME)
    assert [str(e) for e in final.referee.events] == [str(e) for e in loaded.referee.events]
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()[1:]]
    assert [e["n"] for e in entries] == list(range(1, len(entries) + 1))


def test_an_observation_that_cannot_be_journalled_is_not_decided(tmp_path, monkeypatch):
    recorder = Recorder.create(tmp_path / "m.jsonl", JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    before = (recorder.referee.state, list(recorder.referee.events))

    def disk_full(*args):
        raise JournalError("cannot write the journal: No space left on device")

    monkeypatch.setattr(recorder.journal, "_write", disk_full)
    with pytest.raises(JournalError, match="space"):
        recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    assert (recorder.referee.state, list(recorder.referee.events)) == before
    assert len(recorder.observations) == 1
    monkeypatch.undo()
    events = recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    assert [type(e).__name__ for e in events] == ["PlayMade"]
    assert len(read_journal(tmp_path / "m.jsonl").observations) == 2


def test_a_second_handle_on_a_journal_cannot_overwrite_its_entries(tmp_path):
    """Journals append only: a line lands at the end whoever else has the file open (a publisher given a journal
    reopened by path while the recorder still writes it used to write its acknowledgement over newer entries)."""
    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    other, _ = Journal.reopen(path)
    recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    recorder.observe(DiceReading((6, 5)))
    other.append_ack(1)
    recorder.close()
    other.close()
    contents = read_journal(path)
    assert len(contents.observations) == 3 and contents.acked == 1 and not contents.torn


def test_a_publisher_takes_the_open_journal_not_a_path(tmp_path):
    from companion.club.publisher import Publisher
    from companion.club.topics import ClubURL

    Recorder.create(tmp_path / "m.jsonl", JournalHeader(("A", "B"), 3)).close()
    with pytest.raises(TypeError, match="open Journal"):
        Publisher(tmp_path / "m.jsonl", ClubURL.parse("mqtt://127.0.0.1:1/club"), "1")


def test_a_write_the_disk_refuses_leaves_nothing_behind(tmp_path):
    """A line the file system takes only part of (a file size limit here, a full disk in life) is cut off again,
    and the next entry does not carry it along: the observation that failed is not in the journal."""
    import resource

    path = tmp_path / "m.jsonl"
    recorder = Recorder.create(path, JournalHeader(("A", "B"), 3))
    recorder.observe(DiceReading((3, 1)))
    size = path.stat().st_size
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 20, limits[1]))  # room for 20 bytes: part of a line
    try:
        with pytest.raises(JournalError):
            recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
    assert path.stat().st_size == size
    recorder.observe(BoardReading.from_position(Position.start().play("8/5 6/5", 3, 1).position, 1))
    recorder.close()
    contents = read_journal(path)
    assert [e["n"] for e in map(json.loads, path.read_text(encoding="utf-8").splitlines()[1:])] == [1, 2]
    assert len(contents.observations) == 2 and not contents.torn


def test_two_matches_begun_alike_at_once_are_two_matches_to_the_club(tmp_path):
    """The club names a match by a digest of its header: a board that begins the same players' match again at once
    (a mistaken start put right) must not have its second match taken for the first."""
    from companion.club.topics import match_id

    header = JournalHeader(("Ann", "Bob"), 5)
    first = Journal.create(tmp_path / "a.jsonl", header)
    second = Journal.create(tmp_path / "b.jsonl", header)
    first.close(), second.close()
    headers = [read_journal(path).header for path in (tmp_path / "a.jsonl", tmp_path / "b.jsonl")]
    assert match_id(headers[0].to_json()) != match_id(headers[1].to_json())
    assert headers[0].created[:10] == headers[1].created[:10]  # the event date the club's export takes
