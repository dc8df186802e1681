"""Issue 30, from the command line: a journal is one match, options checked when parsed, devices that are not
there, `check` and `--no-ui` words, the journal's path on quit, and SGF headers. Each test failed before its fix."""

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.record.jellyfish import read_match_file
from companion.record.journal import read_journal
from companion.record.recorder import convert, load_any
from companion.record.sgf import read_sgf
from companion.referee.observations import Command, UserCommand
from tests.conftest import MATCHES, ctrl_c_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "calibration" / "example-profile.toml"


def _companion(*args, stdin="", timeout=60, env_home=None):
    env = None if env_home is None else {**os.environ, "XDG_DATA_HOME": str(env_home)}
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout, env=env)


def main_quiet(argv, stdin: str) -> int:
    """`main(argv)` with `stdin` as its standard input (the typed lines of `run --no-ui`)."""
    import io

    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        return main(argv)
    finally:
        sys.stdin = saved


# -- defect 1: a journal is one match ------------------------------------------------------------------


def test_resume_refuses_to_replay_another_match_into_a_journal(tmp_path):
    journal = tmp_path / "j.jsonl"
    typed = _companion("run", "--no-ui", "--players", "Ann", "Bob", "--length", "5", "--journal", str(journal),
                       stdin="31\n8/5 6/5\n")
    assert typed.returncode == 0, typed.stderr
    before = journal.read_bytes()
    mixed = _companion("run", "--no-ui", "--resume", str(journal), "--replay", str(MATCHES / "gbf__test.mat"))
    assert mixed.returncode == 2
    assert "one match" in mixed.stderr and "Traceback" not in mixed.stderr
    assert journal.read_bytes() == before


def test_resume_finds_a_journal_by_the_name_the_app_shows_and_says_what_it_keeps(tmp_path, monkeypatch):
    """A club organiser killed the app: its status line showed "Journal match-...jsonl", and `--resume` with that
    name said no such file (journals go to the data folder). `--players`/`--length` given with it were dropped
    without a word."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    first = main_quiet(["run", "--no-ui", "--players", "Ann", "Bob", "--length", "5"], "31\n8/5 6/5\n")
    journal = next((tmp_path / "data").rglob("match-*.jsonl"))
    held = len(read_journal(journal).observations)
    for name in (journal.name, journal.stem):
        again = _companion("run", "--no-ui", "--resume", name, "--players", "X", "Y", "--length", "9",
                           stdin="64\n24/18 13/9\n", env_home=tmp_path / "data")
        assert again.returncode == 0, again.stderr
        assert "--players and --length left as the journal has them (Ann v Bob, 5-point match)" in again.stderr
    assert first == 0
    assert read_journal(journal).header.players == ("Ann", "Bob")
    assert len(read_journal(journal).observations) > held  # both resumes went on with it
    # check, export and analyse find it by that name too (a trainee's `analyse --match match-...jsonl` did not)
    assert main(["check", journal.name]) == 0
    assert main(["export", journal.name, str(tmp_path / "m.mat")]) == 0 and (tmp_path / "m.mat").exists()
    for name, said in (("", "names no journal"), ("nosuch", "no journal nosuch here or in ")):
        missing = _companion("run", "--no-ui", "--resume", name, env_home=tmp_path / "data")
        assert missing.returncode == 2 and said in missing.stderr and "Traceback" not in missing.stderr


def test_a_headless_run_that_plays_nothing_writes_no_empty_match_file(tmp_path):
    """A club organiser's empty `run --no-ui --out x.mat --players A B` wrote a .mat of a date and a length: no
    game, and so no players."""
    ran = _companion("run", "--no-ui", "--out", str(tmp_path / "x.mat"), "--players", "A", "B", "--journal",
                     str(tmp_path / "j.jsonl"))
    assert ran.returncode == 0 and "nothing was played" in ran.stderr and not (tmp_path / "x.mat").exists()
    assert read_journal(tmp_path / "j.jsonl").header.players == ("A", "B")


def test_a_match_played_now_is_dated_in_its_exports_and_a_replayed_one_is_not(tmp_path):
    """A recorder's trial: the journal knew when the match began, but its .mat had no EventDate and its .sgf no DT."""
    import time

    today = time.strftime("%Y.%m.%d")
    typed = _companion("run", "--no-ui", "--players", "Ann", "Bob", "--length", "5", "--journal",
                       str(tmp_path / "t.jsonl"), "--out", str(tmp_path / "t.sgf"), stdin="31\n8/5 6/5\n")
    assert typed.returncode == 0, typed.stderr
    assert f"DT[{today.replace('.', '-')}]" in (tmp_path / "t.sgf").read_text()
    assert main(["export", str(tmp_path / "t.jsonl"), str(tmp_path / "t.mat")]) == 0
    assert f'; [EventDate "{today}"]' in (tmp_path / "t.mat").read_text()
    replayed = _companion("run", "--no-ui", "--replay", str(MATCHES / "gbf__test.mat"), "--journal",
                          str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "r.sgf"))
    replayed_sgf = (tmp_path / "r.sgf").read_text()  # not played today: dated as its file is
    assert replayed.returncode == 0 and f"DT[{today.replace('.', '-')}]" not in replayed_sgf
    assert "DT[2023-11-26]" in replayed_sgf


def test_resume_goes_on_with_the_same_replayed_match(tmp_path):
    journal = tmp_path / "r.jsonl"
    first = _companion("run", "--no-ui", "--replay", str(MATCHES / "gbf__test.mat"), "--journal", str(journal),
                       "--seconds", "0")
    assert first.returncode == 0, first.stderr
    lines = journal.read_text().splitlines()
    (tmp_path / "cut.jsonl").write_text("\n".join(lines[:40]) + "\n")  # as if the replay had crashed here
    resumed = _companion("run", "--no-ui", "--resume", str(tmp_path / "cut.jsonl"), "--replay",
                         str(MATCHES / "gbf__test.mat"), "--out", str(tmp_path / "r.mat"))
    assert resumed.returncode == 0, resumed.stderr
    assert len((tmp_path / "cut.jsonl").read_text().splitlines()) == len(lines)


# -- defect 3: options are checked when parsed ---------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["run", "--length", "100000"],
    ["run", "--length", "-1"],
    ["run", "--delay", "-2"],
    ["run", "--camera", "-1"],
    ["run", "--speed", "fast"],
    ["run", "--speed", "-1"],
    ["analyse", "--top", "-3"],
    ["analyse", "--top", "0"],
    ["render", "--count", "-1", "--out", "x"],
    ["render", "--width", "0", "--out", "x"],
    ["dicecup", "--seconds", "nan"],
    ["demo", "--delay", "-1"],
    ["film", "--fps", "0", "--out", "x"],
    ["film", "--style", "9", "--out", "x"],
], ids=lambda argv: " ".join(argv))
def test_a_bad_option_value_is_one_line_and_exit_status_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error:" in err and "--help" in err


def test_render_out_must_be_a_folder(tmp_path, capsys):
    existing = tmp_path / "file.jpg"
    existing.write_text("not a folder")
    with pytest.raises(SystemExit) as exit_:
        main(["render", "--count", "1", "--out", str(existing)])
    assert exit_.value.code == 2 and "not a folder" in capsys.readouterr().err


def test_run_with_a_huge_match_length_stops_before_the_app(tmp_path):
    result = _companion("run", "--length", "100000", "--journal", str(tmp_path / "x.jsonl"))
    assert result.returncode == 2 and "Traceback" not in result.stderr and "out of range" in result.stderr
    assert not (tmp_path / "x.jsonl").exists()


# -- defect 4: a camera or dice cup that is not there ---------------------------------------------------


def test_dicecup_on_a_missing_port_says_why_and_exits_2():
    result = _companion("dicecup", "--port", "/dev/ttyNOPE", "--wait", "0.5")
    assert result.returncode == 2
    assert "cannot open /dev/ttyNOPE: no such device" in result.stderr and "gave up after 0.5 s" in result.stderr


def test_dicecup_and_run_on_a_port_that_is_no_dice_cup_say_so_and_give_up(tmp_path):
    """A dice cup builder's trial: a port sending other text was looked at until killed, 'connecting' and 'lost'."""
    import os
    import threading

    master, slave = os.openpty()
    stop = threading.Event()

    def chatter():
        while not stop.is_set():
            os.write(master, b"hello from a modem\r\n")
            stop.wait(0.05)

    threading.Thread(target=chatter, daemon=True).start()
    try:
        results = [_companion("dicecup", "--port", os.ttyname(slave), "--wait", "1"),
                   _companion("run", "--no-ui", "--dicecup", os.ttyname(slave), "--wait", "1", "--journal",
                              str(tmp_path / "c.jsonl"))]
    finally:
        stop.set()
        os.close(slave)
        os.close(master)
    for result in results:
        assert result.returncode == 2, result.stderr
        assert "none a dice cup's: is this port the cup" in result.stderr and "gave up after 1 s" in result.stderr


def test_a_killed_software_cup_leaves_nothing_behind(tmp_path):
    """A dice cup builder's trial: `dicecup --simulate` stopped by SIGTERM left its /tmp/dicecup-* folder."""
    import os
    import signal
    import time

    run = subprocess.Popen([sys.executable, "-m", "companion.cli", "dicecup", "--simulate"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)})
    deadline = time.monotonic() + 20
    while not list(tmp_path.glob("dicecup-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(tmp_path.glob("dicecup-*")), "the software cup never started"
    run.send_signal(signal.SIGTERM)
    run.communicate(timeout=20)
    assert run.returncode == 143 and not list(tmp_path.glob("dicecup-*"))


def test_dicecup_refuses_options_it_would_ignore():
    for args, said in ((["--simulate", "--port", "/dev/ttyUSB0"], "leave out --port"),
                       (["--rolls", "3"], "go with --simulate"), (["--seed", "1"], "go with --simulate")):
        result = _companion("dicecup", *args, "--wait", "0.5")
        assert result.returncode == 2 and said in result.stderr, (args, result.stderr)


def test_run_without_the_app_takes_typed_plays_beside_the_dice_cups_rolls(tmp_path):
    """A dice cup builder's trial: `run --no-ui --dicecup PORT` echoed typed plays and dropped them, said 'the play
    was not seen: no board reading since the roll' at each roll, and Ctrl-C left without naming the journal."""
    import queue
    import signal
    import threading
    import time

    from companion.devices import SoftwareDiceCup

    journal = tmp_path / "c.jsonl"
    with SoftwareDiceCup(seed=5, heartbeat_interval=0.2, boot_time=0.05) as cup:
        run = subprocess.Popen([sys.executable, "-m", "companion.cli", "run", "--no-ui", "--dicecup", cup.path,
                                "--players", "Ann", "Bob", "--length", "3", "--journal", str(journal)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, preexec_fn=ctrl_c_as_at_a_terminal)
        said, lines = [], queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in run.stdout], daemon=True).start()

        def until(text: str) -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    said.append(lines.get(timeout=0.2))
                except queue.Empty:
                    continue
                if text in said[-1]:
                    return
            raise AssertionError(f"no {text!r} in {said}")

        try:
            time.sleep(1.0)  # connected
            cup.roll((3, 1))
            until("Opening roll 3 and 1")
            run.stdin.write("8/5 6/5\n")
            run.stdin.flush()
            until("plays 31: 8/5 6/5")
            cup.roll((6, 4))
            until("rolls 64")
        finally:
            run.send_signal(signal.SIGINT)
            out, err = run.communicate(timeout=30)
    assert not any("not seen" in line for line in said), said
    assert f"journalled in {journal}" in err
    assert len(read_journal(journal).observations) >= 3


def test_run_with_a_missing_dice_cup_gives_up_after_the_stated_wait(tmp_path):
    result = _companion("run", "--no-ui", "--dicecup", "/dev/ttyNOPE", "--wait", "0.5",
                        "--journal", str(tmp_path / "c.jsonl"))
    assert result.returncode == 2 and "cannot open /dev/ttyNOPE" in result.stderr
    assert "no journal kept" in result.stderr and not (tmp_path / "c.jsonl").exists()  # nothing was recorded


def test_run_and_calibrate_with_a_missing_camera_give_up_quietly(tmp_path):
    run = _companion("run", "--no-ui", "--camera", "99", "--profile", str(PROFILE), "--wait", "0.5",
                     "--journal", str(tmp_path / "c.jsonl"))
    assert run.returncode == 2 and "cannot open camera 99" in run.stderr
    calibrate = _companion("calibrate", "--camera", "99", "--wait", "0.5", "--out", str(tmp_path / "p.toml"))
    assert calibrate.returncode == 2 and "cannot open camera 99" in calibrate.stderr
    for result in (run, calibrate):
        assert "WARN" not in result.stderr and "VIDEOIO" not in result.stderr  # OpenCV's own logging is silent


@pytest.mark.parametrize("where", [["--camera", "99"], ["--video", "http://phone:8080/video"]])
def test_speed_goes_with_a_video_file_only(tmp_path, where):
    result = _companion("run", "--no-ui", *where, "--speed", "2", "--journal", str(tmp_path / "c.jsonl"))
    assert result.returncode == 2 and "--speed is how fast a --video file plays" in result.stderr


@pytest.mark.parametrize("argv, speed", [([], 1.0), (["--no-ui"], None), (["--no-ui", "--speed", "3"], 3.0),
                                         (["--speed", "0"], None)])
def test_a_film_plays_as_filmed_in_the_app_and_at_once_without_it(tmp_path, argv, speed):
    """Without the app nothing is paced by the film's clock: converting a film to a match took as long as it ran."""
    from companion.cli import _source_for, build_parser

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), np.zeros((36, 64, 3), np.uint8))
    args = build_parser().parse_args(["run", "--video", str(frames), "--profile", str(PROFILE), *argv])
    source, _ = _source_for(args, 0.0)
    assert source.speed == speed


@pytest.mark.parametrize("video", ["missing.mp4", "not-a-video.jpg", "empty-folder", "damaged-folder"])
def test_a_video_that_cannot_be_read_is_said_before_the_match_and_leaves_no_journal(tmp_path, video):
    (tmp_path / "not-a-video.jpg").write_text("not an image")
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "damaged-folder").mkdir()
    for n in range(3):
        (tmp_path / "damaged-folder" / f"{n}.jpg").write_bytes(b"\xff\xd8 cut short")
    journal = tmp_path / "j.jsonl"
    result = _companion("run", "--no-ui", "--video", str(tmp_path / video), "--profile", str(PROFILE),
                        "--journal", str(journal))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert str(tmp_path / video) in result.stderr and not journal.exists()


def test_the_camera_source_says_why_it_cannot_open_on_every_try():
    from companion.vision.capture import StreamSource

    source = StreamSource(99, live=True, retry_seconds=0.01)
    said = []
    for item in source.frames():
        said.append(str(item))
        if len(said) == 3:
            source.stop()
    assert all("cannot open camera 99" in s for s in said) and "still trying (3 tries)" in said[-1]


# -- defect 10: words and numbers on the command line ---------------------------------------------------


def test_no_ui_takes_set_with_the_xgid_as_typed(tmp_path):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:5:10"
    result = _companion("run", "--no-ui", "--length", "5", "--journal", str(tmp_path / "s.jsonl"),
                        stdin=f"set {xgid}\n")
    assert result.returncode == 0 and "error" not in result.stderr, result.stderr
    assert "Position set by hand" in result.stdout


def test_no_ui_refuses_a_mistyped_play_and_the_match_stays_a_mat_match(tmp_path):
    result = _companion("run", "--no-ui", "--length", "5", "--journal", str(tmp_path / "t.jsonl"),
                        "--out", str(tmp_path / "t.mat"), stdin="31\n13/9 6/5\n64\n8/5 6/5\n64\n24/18 13/9\n")
    assert result.returncode == 0, result.stderr
    assert "not a legal play" in result.stderr and "Illegal" not in result.stdout
    assert read_match_file(tmp_path / "t.mat").games[0].actions


def test_analyse_match_json_is_json(capsys):
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--no-cube", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"] == ["Kévin Unger", out["players"][1]] or "Kévin Unger" in out["players"]
    assert out["summary"] and out["decisions"]


def test_check_reads_a_journal_and_convert_never_replaces_a_file_unasked(tmp_path, capsys):
    """A recorder's trial: `check m1.jsonl` said 'line 1: expected a header'; `export m3.jsonl m2.mat` replaced
    another match's archive, saying only 'wrote m2.mat'."""
    journal, archive = tmp_path / "m.jsonl", tmp_path / "other.mat"
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(journal)]) == 0
    assert main(["check", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "m.jsonl: 7-point match" in out and "legal (final score 7-4" in out
    archive.write_text("another match\n")
    for command in ("export", "convert"):
        assert main([command, str(journal), str(archive)]) == 2
        assert "exists already: --force replaces it" in capsys.readouterr().err
        assert archive.read_text() == "another match\n"
    assert main(["export", str(journal), str(archive), "--force"]) == 0
    assert read_match_file(archive).games


def test_check_reads_sgf(tmp_path, capsys):
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(tmp_path / "m.sgf")]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "m.sgf")]) == 0
    out = capsys.readouterr()
    assert "legal" in out.out and "expected a header" not in out.err


def test_check_notes_an_illegal_play_that_stood_in_an_sgf(tmp_path, capsys):
    """A referee's SGF with an illegal play the opponent let stand was called legal with nothing said."""
    from companion.cli import _export_suffix
    from companion.record.journal import JournalHeader
    from companion.record.recorder import Recorder
    from companion.referee.typed import observations_from_text

    recorder = Recorder.create(tmp_path / "m.jsonl", JournalHeader(("Ann", "Bob"), 3))
    for line in ("31", "8/4 6/5!", "64"):  # Bob rolls: Ann's illegal play stands
        pending = recorder.referee.state.pending is not None
        for observation in observations_from_text(line, recorder.referee.game, illegal_pending=pending):
            recorder.observe(observation)
    recorder.observe(UserCommand(Command.OFFER_RESIGN, 1, value=1))
    recorder.observe(UserCommand(Command.ACCEPT_RESIGN))
    written = recorder.export(tmp_path / "m.sgf")
    assert "C[illegal play stood: 8/5 6/4: the checkers moved 5 pips" in written.read_text()  # what was played
    assert _export_suffix(recorder) == ".sgf"  # the quit message named .mat, which refuses it
    assert _export_suffix(Recorder(JournalHeader(("Ann", "Bob"), 3))) == ".mat"
    recorder.close()
    capsys.readouterr()
    assert main(["check", str(written)]) == 0  # the rules let it stand: no problem of the record
    out = capsys.readouterr().out
    assert "legal, 1 illegal play(s) let stand" in out and "note: game 1" in out
    assert "Ann: an illegal play of 31: 8/5 6/4 stood" in out
    assert main(["check", "--json", str(written)]) == 0
    notes = json.loads(capsys.readouterr().out)["files"][0]["notes"]
    assert [n["kind"] for n in notes] == ["illegal-play-stood"]
    # the journal itself: a club organiser's check named "move 0 (line 0)"; a journal names the play in its game
    assert main(["check", str(tmp_path / "m.jsonl")]) == 0
    assert "note: game 1, play 1, Ann: an illegal play of 31" in capsys.readouterr().out
    # filmed, it is left out, and said so (a director's film of it jumped without a word)
    filmed = Recorder.create(tmp_path / "f.jsonl", JournalHeader(("Ann", "Bob"), 3))
    for line in ("31", "8/5 6/5", "64", "13/9 13/9!", "52"):  # Ann rolls: Bob's illegal play stands
        pending = filmed.referee.state.pending is not None
        for observation in observations_from_text(line, filmed.referee.game, illegal_pending=pending):
            filmed.observe(observation)
    filmed.close()
    assert main(["film", "--match", str(tmp_path / "f.jsonl"), "--turns", "1", "--width", "320", "--height", "180",
                 "--out", str(tmp_path / "f.mp4")]) == 0
    assert "1 illegal play(s) that stood, which a film does not show" in capsys.readouterr().err


def test_a_journal_cut_short_by_a_crash_is_said_so_by_check_and_export(tmp_path, capsys):
    """A club organiser's truncated journal was called legal, and exported, without a word of its damaged end."""
    journal = tmp_path / "m.jsonl"
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(journal)]) == 0
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(journal.read_bytes()[:-20])
    capsys.readouterr()
    for command in (["check", str(torn)], ["export", str(torn), str(tmp_path / "torn.sgf")]):
        assert main(command) == 0
        assert "last line of" in capsys.readouterr().err
    assert main(["check", str(journal)]) == 0
    assert "cut short" not in capsys.readouterr().err
    # a line damaged in the middle: refused, naming how to keep the match before it; kept with --salvage
    lines = journal.read_bytes().split(b"\n")
    lines[30] = b"garbage"
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"\n".join(lines))
    assert main(["check", str(damaged)]) == 2
    assert "line 31: damaged" in capsys.readouterr().err
    assert main(["export", "--salvage", str(damaged), str(tmp_path / "kept.sgf")]) == 0
    assert "read up to its line 31, which is damaged" in capsys.readouterr().err
    kept = (tmp_path / "kept.sgf").read_text()
    assert kept.count(";B[") + kept.count(";W[") >= 8  # the plays of the first 30 lines


def test_quitting_the_app_prints_the_journal_path(tmp_path, capsys, monkeypatch):
    from companion.tui.app import CompanionApp

    monkeypatch.setattr(CompanionApp, "run", lambda self: None)  # the app itself is tested with Pilot
    journal = tmp_path / "q.jsonl"
    assert main(["run", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert str(journal) in out and "--resume" in out


# -- defect 11: SGF keeps the header --------------------------------------------------------------------


def test_mat_to_sgf_to_mat_keeps_every_header_field(tmp_path):
    header = {"Site": "Club de Lyon", "Event": "Open 2026", "Round": "Final", "EventDate": "2026.11.25",
              "Annotator": "Ann", "Player 1 Elo": "1620.5/312", "Player 2 Elo": "1500/20",
              "Comment": "a long match, [really]"}
    text = (MATCHES / "gbf__test.mat").read_text(encoding="utf-8-sig")
    body = "\n".join(line for line in text.splitlines() if not line.startswith(";"))
    source = tmp_path / "h.mat"
    source.write_text("".join(f'; [{k} "{v}"]\n' for k, v in header.items()) + "\n" + body + "\n",
                      encoding="utf-8")
    convert(source, tmp_path / "h.sgf")
    sgf = (tmp_path / "h.sgf").read_text(encoding="utf-8")
    assert "EV[Open 2026]" in sgf and "RO[Final]" in sgf and "PC[Club de Lyon]" in sgf and "DT[2026-11-25]" in sgf
    convert(tmp_path / "h.sgf", tmp_path / "back.mat")
    back = read_match_file(tmp_path / "back.mat").metadata
    for key, value in header.items():  # an annotator comes back as gnubg writes and reads one: Transcriber
        assert back.get("Transcriber" if key == "Annotator" else key) == value, key
    assert read_sgf(tmp_path / "h.sgf").metadata["Event"] == "Open 2026"
    loaded, _ = load_any(tmp_path / "h.sgf")
    assert loaded.header.metadata["Round"] == "Final"


def test_analyse_says_a_forced_play_is_forced_not_plus_zero(capsys):
    from companion.rules import GameState, MatchState, Phase, Position

    last = Position.from_points({1: 1}, {6: 5, 5: 5, 4: 5})
    xgid = GameState(MatchState.match_to(7), last, Phase.ROLL, 0).xgid()
    assert main(["analyse", "--xgid", xgid, "--dice", "6", "5"]) == 0
    out = capsys.readouterr().out
    assert "forced" in out and "+0.000" not in out and "1ply" not in out


def test_no_ui_takes_the_same_roll_again_after_a_resignation(tmp_path):
    result = _companion("run", "--no-ui", "--players", "Ann", "Bob", "--length", "5",
                        "--journal", str(tmp_path / "r.jsonl"), stdin="31\nresign 1\naccept\n31\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Opening roll 3 and 1: Ann plays 31") == 2
    assert "Bob wins 1 point (by resignation)" in result.stdout
