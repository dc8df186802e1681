"""Export: every real match written as .mat imports into GNU Backgammon unchanged; .sgf round-trips and loads
in Debian's gnubg; what .mat cannot carry is refused with a clear error, never written wrong."""

import shutil
import subprocess

import pytest

from companion.errors import MatchFileError
from companion.record.audit import audit_match
from companion.record.jellyfish import format_match_text, parse_match_text, read_match_file
from companion.record.log import MatchLog, die_by_die
from companion.record.model import ActionKind
from companion.record.recorder import Recorder, convert, load_any
from companion.record.sgf import format_sgf, parse_sgf, read_sgf
from companion.record.journal import JournalHeader
from companion.referee import BoardReading, Command, DiceReading, UserCommand
from companion.rules import Position
from tests.conftest import MATCHES, match_files
from tests.oracles.gnubg_oracle import quiet

FILES = match_files()
GNUBG_CLI = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games") or "gnubg"


def _run_gnubg_cli(script: str) -> str:
    try:
        return subprocess.run([GNUBG_CLI, "-t", "-q"], input=script, capture_output=True, text=True, timeout=60).stdout
    except FileNotFoundError:  # pragma: no cover - .ci/run installs it
        pytest.fail("Debian's GNU Backgammon is needed: apt-get install gnubg")


def _exported(path):
    """The match replayed by the referee, and its log's record."""
    record = read_match_file(path)
    log = MatchLog(record.players, record.length, dict(record.metadata))
    report = audit_match(record, trace=True, observer=lambda obs, events: log.add(events))
    return report, log.record()


def _steps(report):
    return [(t.game, t.player, tuple(sorted(t.dice)), t.before, t.after) for t in report.trace]


def _gnubg_import(gnubg, path):
    gnubg.command(f'import mat "{path}"')
    return gnubg.match(analysis=False, boards=True, statistics=False, verbose=False)


def _gnubg_games(match):
    """Per game, as gnubg imported it: the score it starts at, its plays and cube actions, winner and points."""
    games = []
    for g in match["games"]:
        actions = []
        for a in g["game"]:
            player = "XO".index(a["player"]) if a.get("player") in ("X", "O") else None
            if a["action"] == "move":
                actions.append(("move", player, a["board"], tuple(sorted(a["dice"]))))
            elif a["action"] in ("double", "take", "drop"):
                actions.append((a["action"], player))
        info = g["info"]
        games.append(((info["score-X"], info["score-O"]), actions, "XO".index(info["winner"]), info["points-won"]))
    return games


def _our_games(record, report):
    """The same, from the referee's replay of the original file."""
    befores = iter(step.before for step in report.trace)
    kinds = {ActionKind.DOUBLE: "double", ActionKind.TAKE: "take", ActionKind.DROP: "drop"}
    games = []
    for game, outcome in zip(record.games, report.games):
        actions = []
        for a in game.actions:
            if a.kind is ActionKind.ROLL:
                actions.append(("move", a.player, next(befores), tuple(sorted(a.dice))))
            elif a.kind in kinds:
                actions.append((kinds[a.kind], a.player))
        games.append((game.score, actions, outcome.winner, outcome.points))
    return games


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_real_match_exported_to_mat_imports_into_gnubg_with_the_same_plays_cube_and_results(path, tmp_path):
    report, record = _exported(path)
    assert report.ok
    out = tmp_path / "export.mat"
    out.write_text(format_match_text(record), encoding="utf-8")
    imported = _gnubg_games(quiet(_gnubg_import, str(out)))
    assert imported == _our_games(record, report)
    # and our own reader gets back the same plays
    again = audit_match(parse_match_text(out.read_text(encoding="utf-8")), trace=True)
    assert again.ok and _steps(again) == _steps(report) and again.final_score == report.final_score


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_real_match_round_trips_through_sgf(path):
    report, record = _exported(path)
    again = audit_match(parse_sgf(format_sgf(record)), trace=True)
    assert again.ok, [str(f) for f in again.findings]
    assert _steps(again) == _steps(report)
    assert again.final_score == report.final_score


def test_gnubgs_own_sgf_reads_like_its_mat():
    from_sgf = audit_match(read_sgf(MATCHES / "gbf__test.sgf"), trace=True)
    from_mat = audit_match(read_match_file(MATCHES / "gbf__test.mat"), trace=True)
    assert from_sgf.ok and from_sgf.final_score == (7, 4)
    assert [(t.before, t.after) for t in from_sgf.trace] == [(t.before, t.after) for t in from_mat.trace]


def _gnubg_cli_score(path):
    script = f"set player 0 human\nset player 1 human\nload match {path}\nshow score\n"
    out = _run_gnubg_cli(script)
    line = next(l for l in out.splitlines() if l.startswith("The score"))
    return line


@pytest.mark.parametrize("name", ["gbf__test.mat", "raccoon__03_Junichi_Tanaka_-_Hideaki_Ueda_11pt_2025-09-07_1757237175.txt",
                                  "bglab__Llabba_-_emperor_13pt_Backgammon_Studio_2023_11_07_15_53_55.txt"])
def test_our_sgf_loads_in_debians_gnubg_with_the_right_score(name, tmp_path):
    path = MATCHES / name
    report, record = _exported(path)
    out = tmp_path / "export.sgf"
    out.write_text(format_sgf(record), encoding="utf-8")
    line = _gnubg_cli_score(out)
    a, b = record.players
    assert f"{a} {report.final_score[0]}, {b} {report.final_score[1]}" in line, line


def _stood_illegal_play(tmp_path):
    recorder = Recorder.create(tmp_path / "m.jsonl", JournalHeader(("Ann", "Bob"), 5))
    recorder.observe(DiceReading((3, 1)))  # Ann opens with 31
    start = Position.start()
    wrong = Position.from_points({6: 4, 5: 1, 8: 3, 13: 4, 24: 2, 9: 1}, {6: 5, 8: 3, 13: 5, 24: 2})  # 13/9 6/5: 4 and 1
    recorder.observe(BoardReading.from_position(wrong.swap(), 1))
    events = recorder.observe(DiceReading(()))
    assert any(type(e).__name__ == "IllegalPlay" for e in events)
    events = recorder.observe(UserCommand(Command.ACCEPT_PLAY, 1))
    assert any(type(e).__name__ == "PlayStood" for e in events)
    recorder.observe(DiceReading((6, 5), roller=1))
    assert start != wrong
    return recorder, wrong


def test_an_illegal_play_that_stood_is_refused_by_mat_and_carried_by_sgf(tmp_path):
    recorder, wrong = _stood_illegal_play(tmp_path)
    with pytest.raises(MatchFileError, match="sgf"):
        recorder.export(tmp_path / "m.mat")
    assert not (tmp_path / "m.mat").exists()
    recorder.export(tmp_path / "m.sgf")
    record = read_sgf(tmp_path / "m.sgf")
    stood = [a for a in record.games[0].actions if a.kind is ActionKind.STOOD]
    assert len(stood) == 1 and stood[0].position == wrong.swap()
    # replayed, the referee lets it stand again and the game goes on from the board as it stood
    again, report = load_any(tmp_path / "m.sgf")
    assert again.referee.game.position_of(0) == wrong


def test_debians_gnubg_loads_the_stood_illegal_play_board(tmp_path):
    recorder, wrong = _stood_illegal_play(tmp_path)
    recorder.export(tmp_path / "m.sgf")
    script = (f"set player 0 human\nset player 1 human\nload match {tmp_path / 'm.sgf'}\n"
              "show board\n")
    out = _run_gnubg_cli(script)
    # Bob (player 1, on roll with 65) sees Ann's checkers as placed by the illegal play
    assert f"Position ID: {wrong.swap().position_id()}" in out or wrong.swap().position_id() in out, out[-1500:]


def test_convert_between_journal_mat_and_sgf_keeps_every_play(tmp_path):
    source = MATCHES / "gbf__test.mat"
    original = audit_match(read_match_file(source), trace=True)
    convert(source, tmp_path / "a.jsonl")
    convert(tmp_path / "a.jsonl", tmp_path / "b.sgf")
    convert(tmp_path / "b.sgf", tmp_path / "c.mat")
    final = audit_match(read_match_file(tmp_path / "c.mat"), trace=True)
    assert [(t.before, t.after) for t in final.trace] == [(t.before, t.after) for t in original.trace]
    assert final.final_score == original.final_score == (7, 4)


def test_a_file_that_breaks_the_rules_is_not_converted_to_mat(tmp_path):
    text = (MATCHES / "bglab__match10090396.txt").read_text()
    bad = tmp_path / "bad.txt"
    bad.write_text(text.replace("43: 13/9 24/21", "43: 13/9 24/20", 1))
    with pytest.raises(MatchFileError, match="breaks the rules"):
        convert(bad, tmp_path / "out.mat")
    assert not (tmp_path / "out.mat").exists()


def test_the_log_follows_undo_and_changed_plays():
    from companion.referee import Referee
    from companion.rules import MatchState

    referee, log = Referee(MatchState.match_to(3)), MatchLog(("A", "B"), 3)
    observe = lambda obs: log.add(referee.observe(obs))  # noqa: E731
    observe(DiceReading((3, 1)))
    first = Position.start().play("8/5 6/5", 3, 1).position
    second = Position.start().play("24/23 24/21", 3, 1)
    observe(BoardReading.from_position(first, 1))
    observe(BoardReading.from_position(second.position, 1))  # changed before the dice were picked up
    observe(DiceReading(()))
    plays = [a for a in log.record().games[0].actions if a.kind is ActionKind.ROLL]
    assert [sorted(p.notation.split()) for p in plays] == [sorted(die_by_die(second).split())]
    observe(UserCommand(Command.DOUBLE, 1))
    assert [a.kind for a in log.record().games[0].actions][-1] is ActionKind.DOUBLE
    observe(UserCommand(Command.UNDO))
    assert [a.kind for a in log.record().games[0].actions][-1] is ActionKind.ROLL


def test_undo_after_a_refused_key_takes_back_the_same_batch_in_the_log_as_in_the_referee():
    """A dice cup builder's trial: an illegal play stood, `c` was refused (too late), `u` took the play back in the
    referee but the log took back the refusal: the export still carried the stood play."""
    from companion.referee import Referee
    from companion.referee.typed import observations_from_text
    from companion.rules import MatchState

    referee, log = Referee(MatchState.match_to(3)), MatchLog(("A", "B"), 3)
    for line in ("31", "8/4 6/5!", "64", "c", "u"):
        state = referee.state
        for observation in observations_from_text(line, state.game, illegal_pending=state.pending is not None):
            log.add(referee.observe(observation))
    assert referee.state.pending is not None  # the illegal play waits for Bob's word again
    assert not any(a.kind is ActionKind.STOOD for g in log.record().games for a in g.actions)  # nor in the log


def _beavered_money_game(tmp_path):
    """A money game: Bob doubles, Ann beavers (the cube at 4, hers), Ann redoubles to 8 and Bob passes: Ann 4."""
    from companion.referee.typed import observations_typed

    recorder = Recorder.create(tmp_path / "m.jsonl", JournalHeader(("Ann", "Bob"), 0))
    for line in ("63", "13/10 8/2", "22", "13/9 8/6(2)", "43", "24/20 13/10", "d", "b", "52", "13/8 13/11", "d", "p"):
        for observation in observations_typed(line, recorder.referee.state, sequence=len(recorder.observations) + 1):
            recorder.observe(observation)
    assert recorder.referee.match.score == (4, 0)
    return recorder


def test_a_beaver_survives_sgf_in_our_reader_and_in_debians_gnubg(tmp_path):
    """A recorder's trial: a beaver went to .sgf as a take and a cube-setting node this program's reader ignored,
    so `check` and `convert` halved the session's score; gnubg took it for an edited board. It is written as gnubg
    writes a beaver (the double answered by a double, the doubler's take), and read so, as the old form is."""
    recorder = _beavered_money_game(tmp_path)
    recorder.export(tmp_path / "m.sgf")
    text = (tmp_path / "m.sgf").read_text()
    assert ";B[double]\n;W[double]\n;B[take]" in text and "CV[" not in text
    for written in (text, text.replace(";W[double]\n;B[take]", ";W[take]\n;CV[4]CP[w]")):  # ours before session 46
        (tmp_path / "again.sgf").write_text(written)
        again, report = load_any(tmp_path / "again.sgf")
        assert report.ok and again.referee.match.score == (4, 0)
        beavers = [a for a in read_sgf(tmp_path / "again.sgf").games[0].actions if a.kind is ActionKind.BEAVER]
        assert [(b.player, b.value) for b in beavers] == [(0, 4)]
    assert "Ann 4, Bob 0" in _gnubg_cli_score(tmp_path / "m.sgf")


def test_sgf_keeps_the_transcriber_and_gives_each_rating_to_its_named_player(tmp_path):
    """gbf's header names the right-hand column's player "Player 1": his rating went to the left-hand one (PW); and
    its Transcriber, gnubg's annotator, was dropped."""
    text = (MATCHES / "gbf__test.mat").read_text(encoding="utf-8")
    assert '[Player 1 "Maxence Job"]' in text and '[Player 1 Elo "1600.00/0"]' in text
    source = tmp_path / "elo.mat"
    source.write_text(text.replace('[Player 1 Elo "1600.00/0"]', '[Player 1 Elo "1700.00/0"]'), encoding="utf-8")
    convert(source, tmp_path / "elo.sgf")
    sgf = (tmp_path / "elo.sgf").read_text(encoding="utf-8")
    assert "PB[Maxence Job]" in sgf and "BR[1700.00/0]" in sgf and "WR[1600.00/0]" in sgf
    assert "AN[Kévin Unger]" in sgf
    convert(tmp_path / "elo.sgf", tmp_path / "back.mat")
    assert '[Transcriber "Kévin Unger"]' in (tmp_path / "back.mat").read_text(encoding="utf-8")
