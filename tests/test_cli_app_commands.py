"""`companion analyse`, `convert`, `run` and `demo` from the command line, checked against independent answers."""

import json
import os
import subprocess
import sys
from pathlib import Path


from companion.cli import main
from companion.record.audit import audit_match
from companion.record.jellyfish import read_match_file
from tests.conftest import MATCHES

ROOT = Path(__file__).resolve().parents[1]
START_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10"


def test_analyse_hint_json_ranks_every_legal_play(capsys):
    assert main(["analyse", "--xgid", START_31, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["roll"] == "31" and len(out["plays"]) == 16
    assert out["plays"][0]["play"] == "8/5 6/5" and out["plays"][0]["loss"] == 0
    losses = [p["loss"] for p in out["plays"]]
    assert losses == sorted(losses)


def test_analyse_cube_from_gnubg_ids_and_dice_override(capsys):
    assert main(["analyse", "--position-id", "4HPwATDgc/ABMA", "--match-id", "cAkAAAAAAAAA", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)
    assert cube["action"].startswith("No double")
    assert main(["analyse", "--position-id", "4HPwATDgc/ABMA", "--dice", "6", "5"]) == 0
    assert "24/13" in capsys.readouterr().out.splitlines()[2]


def test_analyse_bad_input_is_a_clear_error(capsys):
    assert main(["analyse", "--xgid", "XGID=nonsense"]) == 2
    assert "XGID" in capsys.readouterr().err
    assert main(["analyse"]) == 2
    assert "--xgid" in capsys.readouterr().err


def test_analyse_takes_what_a_player_copies_and_types(tmp_path, capsys):
    """A player's trial: the app's 'IDs P:M' pair was refused as a Position ID, --dice 31 was refused, both an XGID and
    a Position ID were taken silently, a closed-out roll was 'no move is forced', and a file that is no match said
    'line 1: damaged (Expecting value)'."""
    import pytest

    assert main(["analyse", "--position-id", "4HPwATDgc/ABMA:cAkAAAAAAAAA", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["action"].startswith("No double")  # as with --match-id
    assert main(["analyse", "--position-id", "4HPwATDgc/ABMA", "--dice", "65"]) == 0
    assert "24/13" in capsys.readouterr().out.splitlines()[2]
    assert main(["analyse", "--position-id", "4HPwATDgc/ABMA", "--dice", "7", "1"]) == 2
    assert "give the two dice, 3 1 or 31" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["analyse", "--xgid", START_31, "--position-id", "4HPwATDgc/ABMA"])
    assert exit_.value.code == 2 and "not allowed with argument --xgid" in capsys.readouterr().err
    closed_out = "XGID=-c----N------------bbbbbbA:0:0:1:64:0:0:0:0:10"  # on the bar against a closed board
    assert main(["analyse", "--xgid", closed_out]) == 0
    assert "64 to play: no legal play (the roll cannot be played)" in capsys.readouterr().out
    notes = tmp_path / "notes.md"
    notes.write_text("# not a match\n")
    assert main(["analyse", "--match", str(notes)]) == 2
    assert "is not a Backgammon Companion journal" in capsys.readouterr().err


def test_analyse_match_prints_a_summary(capsys):
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--no-cube"]) == 0
    out = capsys.readouterr().out
    assert "Kévin Unger" in out and "Error rate" in out and "Rating" in out
    # each listed decision with its XGID under it, its cost said as the app says it (a player had no XGID to paste)
    rows = [line for line in out.splitlines() if line.startswith("game ")]
    assert rows and all("costs " in row for row in rows if "best " in row)
    lines = out.splitlines()
    assert all(lines[lines.index(row) + 1].startswith("    XGID=") for row in rows)


def test_analyse_match_says_when_the_record_breaks_the_rules(tmp_path, capsys):
    """An illegal play is not rated and the plays after it are rated from where it left the board: the user is told,
    where the ratings had come without a word."""
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--no-cube"]) == 0
    assert "breaks the rules" not in capsys.readouterr().err
    text = (MATCHES / "gbf__test.mat").read_text(encoding="utf-8")
    assert "  3) 53: 8/3 6/3 " in text
    illegal = tmp_path / "illegal.mat"
    illegal.write_text(text.replace("  3) 53: 8/3 6/3 ", "  3) 53: 8/3 6/2 ", 1), encoding="utf-8")
    assert main(["analyse", "--match", str(illegal), "--no-cube"]) == 0
    err = capsys.readouterr().err
    assert "illegal.mat breaks the rules in 1 place(s)" in err and "53 allows at most 8" in err


def test_convert_mat_to_sgf_and_back(tmp_path, capsys):
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(tmp_path / "m.sgf")]) == 0
    assert main(["export", str(tmp_path / "m.sgf"), str(tmp_path / "m.mat")]) == 0
    assert audit_match(read_match_file(tmp_path / "m.mat")).final_score == (7, 4)
    # an opening roll the second player won is written as recorded, his die first (it had become 25, 23, 36, 24)
    game2 = (tmp_path / "m.mat").read_text(encoding="utf-8").split("Game 2")[1]
    assert "52: 13/8 13/11" in game2.split("Game 3")[0]
    assert ";B[52" in (tmp_path / "m.sgf").read_text(encoding="utf-8")
    assert main(["convert", str(tmp_path / "missing.mat"), str(tmp_path / "x.sgf")]) == 2
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(tmp_path / "m.doc")]) == 2
    assert "use .jsonl (a journal), .mat, .txt or .sgf" in capsys.readouterr().err
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(tmp_path / "m.jsonl")]) == 0
    assert main(["convert", str(MATCHES / "gbf__test.mat"), str(tmp_path / "m.jsonl"), "--force"]) == 2
    err = capsys.readouterr().err
    assert "a journal is never replaced" in err and "--resume" not in err  # an option of run, not of convert


def test_run_without_ui_records_typed_lines(tmp_path):
    journal, out = tmp_path / "t.jsonl", tmp_path / "t.mat"
    typed = "31\n8/5 6/5\n64\nbanana\n24/18 13/9\n"
    result = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--no-ui", "--players", "Ann", "Bob",
                             "--length", "3", "--journal", str(journal), "--out", str(out)], input=typed,
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Bob plays 64: 24/18 13/9" in result.stdout and "banana" in result.stderr
    assert audit_match(read_match_file(out)).plays == 2


def test_run_replay_to_a_mat_file(tmp_path):
    out = tmp_path / "r.mat"
    assert main(["run", "--no-ui", "--replay", str(MATCHES / "gbf__test.mat"), "--journal",
                 str(tmp_path / "r.jsonl"), "--out", str(out)]) == 0
    assert audit_match(read_match_file(out)).final_score == (7, 4)


def test_camera_sources_need_a_calibrated_profile(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["run", "--no-ui", "--camera", "0", "--journal", str(tmp_path / "c.jsonl")]) == 2
    assert "run companion calibrate first" in capsys.readouterr().err


def test_demo_without_ui_plays_the_bundled_match(tmp_path):
    result = subprocess.run([sys.executable, "-m", "companion.cli", "demo", "--match", "--no-ui", "--delay", "0", "--out",
                             str(tmp_path / "d.mat")], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={**os.environ, "TMPDIR": str(tmp_path)})  # its journal's folder, not /tmp's
    assert result.returncode == 0, result.stderr
    assert "wins the match 7-4" in result.stdout
    journal = next(tmp_path.glob("companion-demo-*/demo.jsonl"))  # said, and there
    assert f"The demo's journal is in {journal.parent}" in result.stdout
    assert audit_match(read_match_file(tmp_path / "d.mat")).final_score == (7, 4)


def test_demo_app_starts_and_plays_with_hints(tmp_path, monkeypatch):
    """`companion demo` as a newcomer sees it: the app, the bundled match replaying, hints coming in."""
    from companion import cli
    from companion.tui import app as app_module

    seen = {}

    class Probe(app_module.CompanionApp):
        def on_mount(self) -> None:
            super().on_mount()
            seen["app"] = self

    monkeypatch.setattr(app_module, "CompanionApp", Probe)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # the process's temporary folder, already chosen
    monkeypatch.setattr(Probe, "run", lambda self, auto_pilot=None: _run_headless_app(self))
    assert cli.main(["demo", "--match", "--delay", "0.05"]) == 0
    app = seen["app"]
    assert len(app.recorder.observations) > 5
    assert app.mode == "train"
    # its journal says so: resumed (`run --resume`), the demo comes back with its hints and ratings
    journal = next(tmp_path.glob("companion-demo-*/demo.jsonl"))
    assert json.loads(journal.read_text().splitlines()[0])["mode"] == "train"


def test_demo_app_stops_after_seconds_and_says_where_its_journal_is(tmp_path, monkeypatch, capsys):
    """`demo --seconds` closed only the headless demo; the app ran on. Quit earlier, the app must not wait the
    seconds out (a sleeping auto-pilot held Textual's shutdown)."""
    import time

    from companion import cli
    from companion.tui import app as app_module

    original, took = app_module.CompanionApp.run, []

    def run(self, auto_pilot=None, quit_after=None):
        async def then_quit(pilot):
            await auto_pilot(pilot)
            if quit_after is not None:
                await pilot.pause(quit_after)
                pilot.app.exit()
        start = time.monotonic()
        original(self, headless=True, auto_pilot=then_quit)
        took.append(time.monotonic() - start)

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr(app_module.CompanionApp, "run", run)
    assert cli.main(["demo", "--match", "--delay", "0.05", "--seconds", "0.5"]) == 0
    assert 0.5 <= took[-1] < 8
    journal = next(tmp_path.glob("companion-demo-*/demo.jsonl"))
    assert f"companion run --resume {journal}" in capsys.readouterr().out
    monkeypatch.setattr(app_module.CompanionApp, "run", lambda self, auto_pilot=None: run(self, auto_pilot, 0.3))
    assert cli.main(["demo", "--match", "--delay", "0.05", "--seconds", "60"]) == 0
    assert took[-1] < 15  # quit after 0.3 s: not the minute


def _run_headless_app(app):
    import asyncio

    async def go():
        async with app.run_test(size=(130, 48)) as pilot:
            await pilot.pause(2.5)
            app.source.stop()
            from textual.worker import WorkerCancelled

            for _ in range(20):  # observations already queued start newer analyses, which cancel older ones
                try:
                    await app.workers.wait_for_complete()
                    break
                except WorkerCancelled:
                    await pilot.pause()
            await pilot.pause(0.2)
            assert "Hint" in str(app.query_one("#hints").render()) or "Cube" in str(app.query_one("#cube").render())

    asyncio.run(go())


def test_demo_reads_a_rendered_game_through_vision(tmp_path):
    """The default demo: a game rendered as it is watched, its checkers read from the pixels, plays refereed."""
    result = subprocess.run([sys.executable, "-m", "companion.cli", "demo", "--no-ui", "--seconds", "14"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    plays = [line for line in result.stdout.splitlines() if " plays " in line and ":" in line]
    assert len(plays) >= 3, result.stdout
    assert "Illegal" not in result.stdout and "Needs attention" not in result.stdout


def test_a_filmed_game_becomes_a_mat_file(tmp_path, capsys):
    """A match video read by vision (board, dice and cube from the pixels), without the app, becomes a .mat with
    the film's rolls and plays: film it, calibrate on its first frame by corners, run it headless."""
    import numpy as np

    from companion.sim.video import self_play

    video, profile, mat = tmp_path / "game.mp4", tmp_path / "board.toml", tmp_path / "game.mat"
    assert main(["film", "--turns", "7", "--seed", "3", "--style", "1", "--width", "960", "--height", "540",
                 "--out", str(video)]) == 0
    assert f"their labels to {tmp_path / 'game.labels.jsonl'}" in capsys.readouterr().out  # where to find them
    first = json.loads((tmp_path / "game.labels.jsonl").open().readline())
    corners = [f"{x:.0f},{y:.0f}" for x, y in first["corners"]]
    assert main(["calibrate", "--video", str(video), "--corners", *corners, "--out", str(profile)]) == 0
    assert main(["run", "--no-ui", "--video", str(video), "--profile", str(profile), "--players", "Ann", "Bob",
                 "--journal", str(tmp_path / "game.jsonl"), "--out", str(mat)]) == 0
    assert "opening the video (up to" in capsys.readouterr().err  # not "the camera or dice cup"
    rolls = [a for a in read_match_file(mat).games[0].actions if a.dice is not None]
    script = self_play(np.random.default_rng(3))[:7]  # what `companion film --seed 3` played
    assert len(rolls) == len(script)
    for action, turn in zip(rolls, script):
        assert sorted(action.dice) == sorted((turn.play.roll.die1, turn.play.roll.die2))
        assert turn.before.play(action.notation, *action.dice) == turn.play, action


def test_the_demo_camera_reports_frames_per_second_latency_and_confidence():
    """The status panel's source line: the demo's film is a camera, and says what a camera says."""
    import re

    from companion.sources import FilmSource, run_source_until_done

    lines: list[str] = []
    run_source_until_done(FilmSource(seed=1, width=640), lambda obs: None, lines.append, timeout=6)
    camera = [line for line in lines if re.fullmatch(r"film camera: \d+ fps, read in \d+ ms, confidence "
                                                      r"[01]\.\d\d, \d+ s in", line)]
    assert camera, lines
    assert lines[0] == "film: calibrated on the starting position"


def test_the_reading_as_text_marks_an_unsure_empty_point():
    """An empty point read with little confidence (a stack the reader missed, say) is marked '?' like any other."""
    from types import SimpleNamespace

    from companion.cli import _reading_text

    def point(count, confidence, colour=None):
        return SimpleNamespace(count=count, confidence=confidence, low=count, high=count, colour=colour)

    points = [point(0, 1.0)] * 24
    points[1] = point(0, 0.0003)
    points[2] = point(5, 0.99, "dark")
    reading = SimpleNamespace(points=points, busy=None, bar_counts=lambda: {"light": 0, "dark": 0},
                              off_counts=lambda: None)
    text = _reading_text(reading)
    top, bottom = text.splitlines()[1:3]
    assert top.startswith("top       .    .?  5D    . ")
    assert bottom.startswith("bottom    .    .    . ")  # each edge named (a new user could not tell the second row)
    assert text.splitlines()[-1] == "check on the board: 1 point unsure (?)"


def test_the_reading_as_text_keeps_two_digit_counts_apart_and_says_a_mended_reading():
    """A new user read '3L?10L?' as one cell; a reading whose counts were made fifteen by inference was printed,
    IDs and all, as if each point had been seen."""
    from types import SimpleNamespace

    from companion.cli import _reading_text

    def point(count, confidence, colour="light"):
        return SimpleNamespace(count=count, confidence=confidence, low=count, high=count, colour=colour)

    points = [point(0, 1.0)] * 24
    points[0], points[1] = point(3, 0.5), point(10, 0.5)
    reading = SimpleNamespace(points=points, busy=None, bar_counts=lambda: {"light": 0, "dark": 0},
                              off_counts=lambda: None, mended=True)
    text = _reading_text(reading)
    assert text.splitlines()[1].startswith("top      3L? 10L?")
    assert text.splitlines()[-1] == ("check on the board: 2 points unsure (?); some counts are the reader's guess "
                                     "towards 15 checkers a side, not what it saw")


def test_read_says_a_roll_is_unclear_where_the_referee_would_wait():
    """A new user's `read` listed four dice at 0.29-0.47 and said nothing of the roll, whose IDs then had none."""
    from companion.cli import _found_text
    from companion.vision.dice import DieRead, Found

    def die(value, x, confidence=0.4):
        return DieRead(value, (x, 10, 20, 20), confidence, False, (100.0 + x, 200.0))

    four = _found_text(Found((die(3, 0), die(5, 40), die(2, 80), die(6, 120))))
    assert four.splitlines()[-1] == "the roll is unclear (4 dice found): no roll can be taken from them"
    one = _found_text(Found((die(3, 0),)))
    assert "the roll is unclear (1 die found)" in one
    two = _found_text(Found((die(3, 0), die(5, 40))))
    assert "unclear" not in two and len(two.splitlines()) == 2


def test_analyse_json_gives_a_forced_play_no_equity(capsys):
    """A forced play is not evaluated: its equity is null like its chances, not a real-looking 0.0."""
    assert main(["analyse", "--xgid", "XGID=-N----------------cbbbbb-A:0:0:1:61:0:0:0:0:10", "--json"]) == 0
    (play,) = json.loads(capsys.readouterr().out)["plays"]
    assert play["forced"] is True and play["equity"] is None and play["win"] is None
    assert main(["analyse", "--xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--json"]) == 0
    plays = json.loads(capsys.readouterr().out)["plays"]
    assert len(plays) > 1 and not plays[0]["forced"] and isinstance(plays[0]["equity"], float)


def test_a_headless_run_never_writes_its_out_over_an_existing_file(tmp_path, capsys):
    precious = tmp_path / "precious.mat"
    precious.write_text("another match\n")
    assert main(["run", "--no-ui", "--replay", str(MATCHES / "gbf__test.mat"), "--journal", str(tmp_path / "j.jsonl"),
                 "--out", str(precious)]) == 0
    assert precious.read_text() == "another match\n"
    written = tmp_path / "precious-2.mat"
    assert audit_match(read_match_file(written)).final_score == (7, 4)
    assert f"wrote {written} ({precious} exists already" in capsys.readouterr().out


def test_a_replayed_file_keeps_its_match_information(tmp_path, capsys):
    """run --replay ... --out wrote a record without the file's event, round, site, date and annotator (its
    journal's header had none); `convert` kept them."""
    out = tmp_path / "r.mat"
    assert main(["run", "--no-ui", "--replay", str(MATCHES / "gbf__test.sgf"), "--journal", str(tmp_path / "r.jsonl"),
                 "--out", str(out)]) == 0
    metadata = read_match_file(out).metadata
    assert metadata["Event"] == "HSBT Paris 2023" and metadata["Round"] == "Tableau Or 2"
    assert metadata["EventDate"] == "2023.11.26" and metadata["Transcriber"] == "Kévin Unger"


def test_analyse_refuses_options_that_do_not_apply(capsys):
    """They were ignored in silence: `--match F --dice 31 --top 2` rated the match, `--xgid X --all` one position."""
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--dice", "31"]) == 2
    assert "--dice, --top and --match-id are for one position" in capsys.readouterr().err
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--top", "2"]) == 2
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--top", "8"]) == 2  # the default, said
    assert main(["analyse", "--match", str(MATCHES / "gbf__test.mat"), "--match-id", "cAkAAAAAAAAA"]) == 2
    assert main(["analyse", "--xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--all"]) == 2
    assert "--all and --no-cube go with --match FILE" in capsys.readouterr().err
    assert main(["analyse", "--xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--no-cube"]) == 2
