"""Issue 30: what a new user hit at a real table, driven by Textual's Pilot. Each test failed before its fix."""

import pytest

from companion.record.journal import JournalHeader
from companion.record.recorder import Recorder
from companion.referee import (
    CorrectionRequested,
    DoubleOffered,
    GameStarted,
    IllegalPlay,
    OpeningRoll,
    PlayMade,
    PlayStood,
    Undone,
)
from companion.tui.app import CompanionApp
from companion.tui.confirm import Confirm
from tests.tui.test_app import _board_play, _events, _type

SMALL = (80, 24)


def _app(tmp_path, mode="record", length=5, name="m", **kw) -> CompanionApp:
    recorder = Recorder.create(tmp_path / f"{name}.jsonl", JournalHeader(("Ann", "Bob"), length, mode=mode))
    return CompanionApp(recorder, mode=mode, export_path=tmp_path / f"{name}.mat", **kw)


def _text(app, selector) -> str:
    return str(app.query_one(selector).render())


def _screen_text(app) -> str:
    return "\n".join("".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips())


def _log(app) -> str:
    return "\n".join(str(line.text) for line in app.query_one("#plays").lines)


# -- defect 2: a roll equal to the previous one --------------------------------------------------------


async def test_a_typed_roll_equal_to_the_last_one_starts_the_next_game(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "resign 1")
        await pilot.press("y")  # Bob accepts
        await pilot.pause()
        await _type(pilot, "31")
        openings = _events(app, OpeningRoll)
        assert len(openings) == 2 and openings[1].winner == 0
        assert app.recorder.referee.game.dice is not None and str(app.recorder.referee.game.dice) == "31"


async def test_the_same_opening_roll_after_a_new_game_is_taken(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "53")
        app.set_focus(None)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await pilot.pause()
        assert len(_events(app, GameStarted)) == 2
        await _type(pilot, "53")
        assert len(_events(app, OpeningRoll)) == 2 and str(app.recorder.referee.game.dice) == "53"


# -- defect 6: the keys named on screen work from the first second ------------------------------------


async def test_the_keys_named_in_the_verdict_work_while_the_input_line_has_focus(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")
        await pilot.pause()
        line = app.query_one("#command")
        assert app.focused is line and line.value == ""
        assert "c[/]" in app.verdict or " c " in _text(app, "#verdict")
        await pilot.press("c")  # as the verdict says; not typed into the line
        await pilot.pause()
        assert _events(app, CorrectionRequested) and line.value == ""
        await pilot.press("8", "/", "5", "space", "6", "/", "5")  # dice and plays are still typed
        assert line.value == "8/5 6/5"
        await pilot.press("enter")
        await pilot.pause()
        assert _events(app, PlayMade)[-1].play.notation == "8/5 6/5"
        await pilot.press("d")
        await pilot.pause()
        assert _events(app, DoubleOffered)


async def test_a_key_typed_after_other_characters_is_text(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("r", "e", "s", "i", "g", "n", "space", "2")
        assert app.query_one("#command").value == "resign 2"
        assert not _events(app, DoubleOffered)


async def test_typed_c_and_enter_asks_for_the_correction(tmp_path):
    """The same words work typed on a line (the no-ui mode, or a line with text before)."""
    from companion.referee.typed import observations_from_text
    from companion.referee import Command

    app = _app(tmp_path)
    (command,) = observations_from_text("c", app.recorder.referee.game)
    assert command.command is Command.REQUEST_CORRECTION


# -- defect 7: a mistyped play is refused at the input line -------------------------------------------


async def test_a_mistyped_play_is_refused_with_the_reason_and_the_legal_plays(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "64")  # Ann's play forgotten: the next roll is refused too
        assert "not been played" in app.verdict
        entries = app.recorder.journal.entries
        await _type(pilot, "13/9 6/5")
        assert "not a legal play" in app.verdict and "moved 5 pips" in app.verdict
        assert "Legal: 13/10 6/5, 13/9" in app.verdict  # the nearest legal plays
        await _type(pilot, "64")
        assert not _events(app, IllegalPlay) and not _events(app, PlayStood)
        assert app.recorder.journal.entries == entries  # nothing journalled
        await _type(pilot, "8/5 6/5", "64", "24/18 13/9")
        assert [e.play.notation for e in _events(app, PlayMade)] == ["8/5 6/5", "24/18 13/9"]
    assert app.recorder.export(tmp_path / "ok.mat").exists()  # still a .mat match


# -- defect 8: export never overwrites -----------------------------------------------------------------


async def test_export_writes_a_new_file_and_shows_its_path(tmp_path):
    (tmp_path / "m.mat").write_text("someone's match\n")
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("e")
        await pilot.pause()
        assert (tmp_path / "m.mat").read_text() == "someone's match\n"
        assert app.last_export == tmp_path / "m-2.mat" and app.last_export.exists()
        await pilot.press("e")
        await pilot.pause()
        assert app.last_export == tmp_path / "m-3.mat"


async def test_export_defaults_to_the_data_folder_beside_the_journal(tmp_path):
    recorder = Recorder.create(tmp_path / "data" / "club.jsonl", JournalHeader(("Ann", "Bob"), 5))
    app = CompanionApp(recorder, mode="record")
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("e")
        await pilot.pause()
        assert app.last_export == tmp_path / "data" / "club.mat"


# -- defect 9: resume restores the screen --------------------------------------------------------------


async def test_resume_restores_the_mode_the_ratings_and_the_correction_prompt(tmp_path):
    app = _app(tmp_path, mode="train")
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64")
        _board_play(app, "13/9 6/5")  # Bob's illegal play, seen on the board
        await app.workers.wait_for_complete()
        await pilot.pause()
        verdict = app.verdict
        assert "Illegal" in verdict and "best play" in _log(app)
    app.recorder.close()
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"))  # no mode given: the journal's
    async with resumed.run_test(size=SMALL) as pilot:
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        assert resumed.mode == "train" and resumed.hints_shown
        assert resumed.verdict == verdict
        assert "best play" in _log(resumed)  # Ann's rated 8/5 6/5
        await pilot.press("c")
        await pilot.pause()
        assert _events(resumed, CorrectionRequested)


async def test_resume_shows_the_last_verdict(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
    app.recorder.close()
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"))
    async with resumed.run_test(size=SMALL):
        assert resumed.mode == "record" and "Ann plays 31: 8/5 6/5" in resumed.verdict


async def test_resume_restores_the_hints_as_h_left_them(tmp_path):
    """A new user showed the hints in record mode (hid them in train mode) with `h`; a resumed match had them back
    as the mode has them."""
    for mode in ("record", "train"):
        app = _app(tmp_path, mode=mode, name=mode)
        async with app.run_test(size=SMALL) as pilot:
            await _type(pilot, "31")
            await pilot.press("h")  # on the empty input line
            await pilot.pause()
            assert app.hints_shown == (mode == "record")
        app.recorder.close()
        resumed = CompanionApp(Recorder.resume(tmp_path / f"{mode}.jsonl"))  # no mode given: the journal's
        async with resumed.run_test(size=SMALL) as pilot:
            await pilot.pause()
            assert resumed.mode == mode and resumed.hints_shown == (mode == "record"), mode
            assert ("hints hidden (h)" in _text(resumed, "#hints")) == (mode == "train")
            await resumed.workers.wait_for_complete()
        resumed.recorder.close()


# -- defect 10: words and numbers ----------------------------------------------------------------------


async def test_quit_asks_first(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, Confirm) and "m.jsonl" in str(app.screen.question)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, Confirm)
        await pilot.press("q", "y")
        await pilot.pause()
        assert not app.is_running


async def test_new_game_asks_first_and_no_keeps_the_game(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert len(_events(app, GameStarted)) == 1


async def test_resign_with_a_wrong_size_is_refused(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "resign 5")
        assert "resign 2" in app.verdict
        await _type(pilot, "resign 0")
        assert app.recorder.referee.game.end is None


async def test_a_double_shows_the_offered_value_and_who_offered(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("d")
        await pilot.pause()
        board = _text(app, "#board")
        assert "Bob offers 2" in board and "64" not in board  # Bob offered; Ann, at the board, answers
        assert "Bob offers 2" in _text(app, "#status")


async def test_undo_says_the_players_names(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("u")
        await pilot.pause()
        undone = _events(app, Undone)[-1]
        assert "Ann" in undone.text(app.recorder.names) and "Player 0" not in _log(app)


@pytest.mark.parametrize("size, said", [((120, 40), "money, Ann 0, Bob 1"), (SMALL, "money 0-1")])
async def test_money_play_shows_the_running_total(tmp_path, size, said):
    """At 80 columns without the names, which the lines above give in the same order: with them it took two lines."""
    app = _app(tmp_path, length=0)
    async with app.run_test(size=size) as pilot:
        await _type(pilot, "31", "resign 2")
        await pilot.press("y")
        await pilot.pause()
        assert said in _text(app, "#status")  # Jacoby: an unturned cube makes the gammon single


async def test_the_crawford_game_offers_no_doubling_advice(tmp_path):
    recorder = Recorder.create(tmp_path / "c.jsonl", JournalHeader(("Ann", "Bob"), 3, mode="train"))
    app = CompanionApp(recorder, mode="train")
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "resign 2")  # Ann gives Bob 2: 0-2 to 3, Crawford
        await pilot.press("y")
        await pilot.pause()
        await _type(pilot, "31", "8/5 6/5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        cube = _text(app, "#cube")
        assert "Crawford game: no doubling" in cube and "double/redouble" not in cube


async def test_a_forced_play_and_the_level_are_said_plainly(tmp_path):
    from companion.rules import Position

    app = _app(tmp_path, mode="train")
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "1-ply" in _text(app, "#hints") and "1ply" not in _text(app, "#hints")
        last = Position.from_points({1: 1}, {6: 5, 5: 5, 4: 5})  # Ann's last checker: any roll bears it off
        await _type(pilot, "n")
        await pilot.press("y")
        await _type(pilot, f"set {last.position_id()}", "65")
        await app.workers.wait_for_complete()
        await pilot.pause()
        hints = _text(app, "#hints")
        assert "forced" in hints and "+0.000" not in hints


async def test_the_opening_roll_is_explained(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL):
        verdict = _text(app, "#verdict")
        assert "Ann's die, then Bob's" in verdict and "higher" in verdict


# -- defect 5: 80x24 ----------------------------------------------------------------------------------


async def test_at_80x24_the_whole_board_the_verdict_and_the_input_line_are_on_screen(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")
        await pilot.pause()
        board, verdict, line = (app.query_one(s) for s in ("#board", "#verdict", "#command"))
        assert board.region.height == 15 and board.region.y >= 0  # every row of the board
        assert verdict.region.y >= board.region.bottom and verdict.region.bottom <= line.region.y
        assert line.region.bottom <= 23 and line.region.height >= 1
        shown = _screen_text(app)
        assert "Nearest legal" in shown and "a accepts" in shown  # the verdict's last line too
        assert " 12 11 10" in shown and " 13 14 15" in shown


async def test_bigger_terminals_give_the_room_to_the_play_list(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        plays = app.query_one("#plays")
        assert plays.region.height >= 20


# -- defect 4: a device that is not there ---------------------------------------------------------------


async def test_a_missing_dice_cup_is_said_in_the_status_line_and_looked_for_again(tmp_path):
    from companion.sources import DiceCupSource

    app = _app(tmp_path, source=DiceCupSource("/dev/ttyNOPE"))
    async with app.run_test(size=SMALL) as pilot:
        for _ in range(200):  # until the source's first status arrives (not a time limit on the answer)
            if app.source_status != "keyboard":
                break
            await pilot.pause(0.05)
        assert "cannot open /dev/ttyNOPE: no such device" in app.source_status
        assert "cannot open /dev/ttyNOPE" in _text(app, "#status")
        assert app.is_running  # the app goes on, and the source keeps looking


# -- feature: the match review, browsable -----------------------------------------------------------------


async def test_the_match_review_lists_every_decision_and_jumps_to_its_position(tmp_path):
    from companion.tui.review import ReviewScreen

    app = _app(tmp_path, mode="record", length=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "24/21 6/5", "64", "24/18 13/9", "55", "8/3(2) 6/1(2)")  # 31 and 55 badly
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        rows = [d for d in screen.review.decisions if d.kind == "play"]
        assert [d.played for d in rows] == ["24/21 6/5", "24/18 13/9", "8/3(2) 6/1*(2)"]
        assert rows[0].best == "8/5 6/5" and rows[0].loss > 0
        assert screen.query_one("#decisions").row_count == len(screen.review.decisions)
        await pilot.press("f")  # only the doubtful ones and worse
        await pilot.pause()
        assert all(d.skill.value for d in screen.shown) and screen.shown
        await pilot.press("down")
        await screen.workers.wait_for_complete()
        await pilot.pause()
        chosen = screen.selected
        assert chosen is screen.shown[min(1, len(screen.shown) - 1)]
        assert chosen.xgid in _text(screen, "#review-decision")
        panel = _text(screen, "#review-engine")
        assert "Hint (1-ply)" in panel or "Cube" in panel  # the look's depth said (a trainee could not tell)
        assert "Error rate" in _text(screen, "#review-summary")
        await pilot.press("d")  # the match's keys do not reach past the review
        await pilot.pause()
        assert not _events(app, DoubleOffered)
        await pilot.press("q")  # back to the match, as from a pager; the match's own q would quit
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen)
        await pilot.press("v")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen)


async def test_the_review_shows_a_take_or_pass_from_the_answering_players_side(tmp_path):
    """A player's trial: the review showed the doubler's equities, unnamed, beside 'Bob pass 0.978 blunder', where
    the match screen had said 'Bob's answer: Take' with his figures."""
    from companion.tui.review import ReviewScreen

    app = _app(tmp_path, mode="train", length=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64", "24/18 13/9", "d", "p")  # Ann doubles early, Bob passes
        await pilot.press("v")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        played = screen.app.query_one("#plays").texts
        assert any(t.startswith("    game 1, Bob: pass costs") for t in played), played  # after "Game 2 (...)"
        answer = next(d for d in screen.review.decisions if d.played == "pass")
        screen.choose(answer)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        panel = _text(screen, "#review-engine")
        assert "Bob's answer: Take" in panel and "Ann's view" in panel, panel


async def test_a_play_after_the_deeper_look_is_rated_at_its_depth_resumed_too(tmp_path, monkeypatch):
    """A player's trial: after x the 2-ply hint ranked 24/20 11/8 below the best, and the 1-ply rating of it said
    'best play'. A play made where the player asked for the deeper look is rated at that depth, and so it is when the
    match is resumed (the look is journalled beside the match)."""
    from companion.analysis import DEEP
    from companion.analysis.review import Reviewer

    app = _app(tmp_path, mode="train", length=7)
    levels = []
    async with app.run_test(size=(120, 40)) as pilot:
        review = app.reviewer.review
        app.reviewer.review = lambda before, events, level=None: levels.append(level) or review(before, events, level)
        await _type(pilot, "31", "8/5 6/5", "43")
        app.set_focus(None)
        await pilot.press("x")
        await app.workers.wait_for_complete()
        await _type(pilot, "13/10 13/9")
        await app.workers.wait_for_complete()
        await _type(pilot, "62", "13/7 13/11")  # Ann's play, no deeper look asked
        await app.workers.wait_for_complete()
    assert DEEP in levels and levels[-1] is None
    live = levels[:]
    levels.clear()
    review = Reviewer.review
    monkeypatch.setattr(Reviewer, "review", lambda self, before, events, level=None: levels.append(level)
                        or review(self, before, events, level))
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"))
    async with resumed.run_test(size=(120, 40)):
        await resumed.workers.wait_for_complete()
    assert levels == live  # the history rated again as it was: 1-ply, 2-ply where x was pressed, 1-ply


async def test_at_80_columns_the_review_gives_its_list_the_whole_width(tmp_path):
    """A new user at 80x24 saw the review's decision column cut to a few letters, and no loss or class: the chosen
    decision's board took 54 of the 80 columns."""
    from textual.widgets import DataTable

    app = _app(tmp_path, mode="record", length=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31", "24/21 6/5", "64", "24/18 13/9")
        app.set_focus(None)
        await pilot.press("v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#decisions", DataTable)
        assert not screen.query_one("#review-side").display
        assert table.size.width >= 76 and table.virtual_size.width <= table.size.width  # every column shows
        # Enter shows the chosen decision's board and the engine's panel in the list's place (the footer says so);
        # Escape goes back
        from textual.widgets._footer import FooterKey

        assert "Board and engine" in [key.description for key in screen.query(FooterKey)]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert screen.query_one("#review-side").display and not table.display
        assert screen.selected is screen.shown[1]
        assert str(screen.query_one("#review-decision").render()).startswith("Game 1: Bob")
        assert "24" in str(screen.query_one("#review-board").render())  # the board, its point numbers
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and table.display and not screen.query_one("#review-side").display
        await pilot.press("enter", "f")  # the list changes under an open decision: back to the list
        await pilot.pause()
        assert table.display and not screen.query_one("#review-side").display
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert screen.query_one("#review-side").display  # wider, the board and the engine come back
        assert "Board and engine" not in [key.description for key in screen.query(FooterKey)]  # beside the list


# -- feature: the referee's view of an illegal play -------------------------------------------------------


async def test_the_illegal_play_view_shows_the_board_as_it_stands_beside_the_last_legal_one(tmp_path):
    from companion.tui.board import MY_BAR
    from companion.tui.illegal import IllegalPlayView

    app = _app(tmp_path, mode="referee")
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")  # 4 and 1 with 3-1
        await pilot.pause()
        assert "l[/] shows the board" in app.verdict
        await pilot.press("l")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, IllegalPlayView)
        assert view.marks == {13, 9, 6, 5} and MY_BAR not in view.marks  # where the checkers differ
        stands, before = _text(view, "#illegal-stands"), _text(view, "#illegal-before")
        assert stands != before
        assert "13/10 6/5" in _text(view, "#illegal-nearest")
        await pilot.press("c")  # answered from the view
        await pilot.pause()
        assert not isinstance(app.screen, IllegalPlayView) and _events(app, CorrectionRequested)
        await pilot.press("l")  # nothing waits now: no view
        await pilot.pause()
        assert not isinstance(app.screen, IllegalPlayView)


# -- feature: match winning chances and the take/pass view -------------------------------------------------


def test_match_winning_chances_run_from_losing_to_winning_the_cube():
    from companion.analysis.mwc import match_winning_chance
    from companion.rules import MatchState

    match = MatchState.match_to(7)
    assert match_winning_chance(match, 0, -1.0) < match_winning_chance(match, 0, 0.0) < match_winning_chance(match, 0, 1.0)
    assert abs(match_winning_chance(match, 0, 0.0) - 0.5) < 0.01  # 7-away each, even equity: even chances
    assert match_winning_chance(MatchState.money(), 0, 0.3) is None


async def test_the_cube_panel_shows_match_winning_chances_and_the_take_pass_view(tmp_path):
    app = _app(tmp_path, mode="train", length=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        cube = _text(app, "#cube")
        assert "MWC" in cube and "No double" in cube and "answer" not in cube
        hints_before = _text(app, "#hints")
        await pilot.press("d")  # Bob doubles early: Ann's answer is the view now
        await app.workers.wait_for_complete()
        await pilot.pause()
        cube = _text(app, "#cube")
        assert "Ann's answer: Take" in cube and "Pass        -1.000" in cube and "Bob's view" in cube
        assert "%" in hints_before or "Hint" not in hints_before


# -- feature: the match clock ----------------------------------------------------------------------------


async def test_the_match_clock_runs_for_the_player_to_act_is_journalled_and_restored(tmp_path):
    from companion.rules.clock import MatchClock

    now = [1000.0]
    app = _app(tmp_path, mode="referee", length=1, clock=MatchClock(delay=12, reserve=120), now=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31")  # Ann won the opening roll: her clock runs
        assert app.clock.running == 0
        now[0] += 30
        await _type(pilot, "8/5 6/5")  # dice picked up: 18 s past the delay off Ann's reserve, Bob's runs
        assert app.clock.running == 1 and app.clock.used == (18.0, 0.0)
        app.refresh_clock()
        assert "1:42" in _text(app, "#clock") and app.query_one("#clock-large").display  # large for a referee
        await pilot.press("k")  # paused
        assert app.clock.running is None
        now[0] += 500
        await pilot.press("k")
        assert app.clock.running == 1 and not app.clock.flagged(now[0])
        now[0] += 200  # Bob thinks too long
        app.refresh_clock()
        assert "FLAG: Bob" in _text(app, "#clock")
        await _type(pilot, "64")
    app.recorder.close()
    resumed = Recorder.resume(tmp_path / "m.jsonl")
    assert resumed.clock_used == (18.0, 188.0)  # as journalled with the last observation
    again = CompanionApp(resumed, clock=MatchClock(delay=12, reserve=120), now=lambda: now[0])
    async with again.run_test(size=SMALL):
        assert again.clock.used == (18.0, 188.0)


async def test_a_resumed_match_keeps_its_clock_and_the_time_thought_before_the_quit(tmp_path, capsys):
    """The clock's settings were not in the journal (a resume needed --clock again) and the seconds the player on
    turn had thought since the last entry were lost at a quit."""
    from argparse import Namespace

    from companion.cli import _clock_settings
    from companion.rules.clock import MatchClock

    now = [1000.0]
    recorder = Recorder.create(tmp_path / "c.jsonl", JournalHeader(("Ann", "Bob"), 1, mode="referee",
                                                                   clock=(12.0, 120.0)))
    app = CompanionApp(recorder, mode="referee", clock=MatchClock(12, 120), now=lambda: now[0])
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31")  # Ann's clock runs
        now[0] += 30  # she thinks 18 s past the delay, and the app is quit
    recorder.close()
    resumed = Recorder.resume(tmp_path / "c.jsonl")
    assert resumed.clock_used == (18.0, 0.0)
    assert _clock_settings(Namespace(clock=None, resume="c.jsonl"), resumed) == (12.0, 120.0)
    assert _clock_settings(Namespace(clock=(5.0, 60.0), resume="c.jsonl"), resumed) == (5.0, 60.0)  # as given
    old = Recorder.create(tmp_path / "o.jsonl", JournalHeader(("Ann", "Bob"), 1))  # a match without a clock
    assert _clock_settings(Namespace(clock=None, resume="o.jsonl"), old) is None and not capsys.readouterr().err
    old.close()


async def test_the_clock_runs_for_the_player_who_decides_on_an_illegal_play_or_a_resignation(tmp_path):
    """A referee's trial: Ann's reserve ran while Bob decided whether to ask for a correction of her illegal play, and
    Bob's while Ann decided on his resignation; a resumed match's clock ran from while the app was starting."""
    from companion.rules.clock import MatchClock

    now = [1000.0]
    app = _app(tmp_path, mode="referee", length=5, clock=MatchClock(delay=12, reserve=600), now=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "8/4 6/5!")  # Ann's illegal play, made on the board: Bob decides
        assert app.recorder.referee.state.pending is not None and app.clock.running == 1
        app.set_focus(None)
        await pilot.press("a")  # Bob accepts it: his turn, his clock
        await pilot.pause()
        assert app.clock.running == 1
        await _type(pilot, "64")
        app.offer_resignation(1)  # Bob offers: Ann decides
        await pilot.pause()
        assert app.clock.running == 0
        await pilot.press("n")  # declined: Bob's turn again
        await pilot.pause()
        assert app.clock.running == 1
        now[0] += 40
    app.recorder.close()
    at_quit = (app.clock.used_now(0, now[0]), app.clock.used_now(1, now[0]))
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"), clock=MatchClock(delay=12, reserve=600),
                           now=lambda: now[0])
    async with resumed.run_test(size=SMALL) as pilot:
        assert resumed.clock_paused and resumed.clock.running is None  # waits for k
        now[0] += 100  # the app starting, the players coming back: nobody's time
        resumed.set_focus(None)
        await pilot.press("k")
        await pilot.pause()
        assert resumed.clock.running == 1 and resumed.clock.used == at_quit and at_quit[1] > 0
    between = Recorder.create(tmp_path / "b.jsonl", JournalHeader(("Ann", "Bob"), 5, clock=(12.0, 600.0)))
    between.journal.append_clock((30.0, 20.0))  # quit before the opening roll: the clock stood, nothing to pause
    between.close()
    again = CompanionApp(Recorder.resume(tmp_path / "b.jsonl"), clock=MatchClock(delay=12, reserve=600),
                         now=lambda: now[0])
    async with again.run_test(size=SMALL) as pilot:
        assert not again.clock_paused
        await _type(pilot, "42")
        assert again.clock.running == 0  # from the opening roll, as in any game


async def test_k_before_the_first_roll_leaves_the_clock_to_run_from_it_and_a_pause_is_kept(tmp_path):
    """A new user pressed `k` before the first roll (the clock stood, "stopped") and found it paused after the roll.
    Between games there is nothing to pause: `k` says when the clock runs, and the footer shows Clock from then."""
    from companion.rules.clock import MatchClock
    from tests.tui.test_app import _footer

    now = [1000.0]
    app = _app(tmp_path, length=3, clock=MatchClock(delay=12, reserve=120), now=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Clock" not in _footer(app) and "Keys" in _footer(app)
        await pilot.press("k")  # on the empty input line
        await pilot.pause()
        await _type(pilot, "31")
        assert app.clock.running == 0 and not app.clock_paused  # Ann's clock runs
        assert any("from the opening roll it runs" in str(n.message) for n in app._notifications)
        assert "Clock" in _footer(app)
        await pilot.press("k")  # a pause asked for while the clock runs is kept
        await pilot.pause()
        assert app.clock_paused and app.clock.running is None and "Clock" in _footer(app)
        await _type(pilot, "8/5 6/5")
        assert app.clock.running is None


async def test_a_timer_tick_during_shutdown_is_quiet_and_a_missing_widget_while_running_is_not(tmp_path):
    """A shutdown stops the app running, then removes the screen's widgets while the screen is still attached: a
    clock tick then finds no #clock (a CI run once failed so under load). While the app runs, that is a bug."""
    from textual.css.query import NoMatches

    def missing() -> None:
        raise NoMatches("No nodes match '#clock'")

    app = _app(tmp_path)
    async with app.run_test(size=SMALL):
        tick = app._while_shown(missing)
        with pytest.raises(NoMatches):
            tick()
        app._running = False  # as `App._shutdown` does first (Textual 8)
        try:
            assert app.default_screen.is_attached
            tick()
        finally:
            app._running = True


async def test_a_missing_camera_is_said_in_the_status_line_on_every_try(tmp_path):
    from pathlib import Path

    from companion.sources import CameraSource
    from companion.vision.profile import Profile

    profile = Profile.load(Path(__file__).resolve().parents[2] / "calibration" / "example-profile.toml")
    app = _app(tmp_path, source=CameraSource("99", profile))
    async with app.run_test(size=SMALL) as pilot:
        for _ in range(400):  # until the second try has been said (the source retries every second)
            if "still trying" in app.source_status:
                break
            await pilot.pause(0.05)
        assert "cannot open camera 99" in app.source_status and "still trying" in app.source_status
        assert app.is_running



# -- feature: resignations accepted or declined --------------------------------------------------------------


async def test_a_resignation_is_offered_and_the_opponent_accepts_or_declines(tmp_path):
    from companion.referee import GameOver, ResignationDeclined, ResignationOffered, Resigned

    app = _app(tmp_path, length=7)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64", "24/18 13/9", "resign 2")  # Ann offers a gammon
        assert _events(app, ResignationOffered)[-1].value == 2
        assert isinstance(app.screen, Confirm) and "Bob: accept?" in str(app.screen.question)
        await pilot.press("n")
        await pilot.pause()
        assert _events(app, ResignationDeclined) and not _events(app, GameOver)
        assert app.recorder.referee.game.end is None  # play on
        await _type(pilot, "resign 1")
        app.recorder.close()  # the app stops with the offer waiting
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"))
    async with resumed.run_test(size=SMALL) as pilot:
        assert isinstance(resumed.screen, Confirm)  # asked again
        await pilot.press("y")
        await pilot.pause()
        over = _events(resumed, GameOver)[-1]
        assert _events(resumed, Resigned) and (over.winner, over.points) == (1, 1)


def test_no_ui_resignations_are_answered_with_accept_or_decline():
    from companion.referee import Command, Referee
    from companion.referee.typed import observations_from_text

    referee = Referee()
    for line in ("31", "8/5 6/5"):
        for observation in observations_from_text(line, referee.game, sequence=len(referee.events) + 1):
            referee.observe(observation)
    (offer,) = observations_from_text("resign 3", referee.game)
    assert offer.command is Command.OFFER_RESIGN and offer.value == 3
    referee.observe(offer)
    (answer,) = observations_from_text("decline", referee.game, resign_offered=True)
    assert answer.command is Command.DECLINE_RESIGN


async def test_a_beaver_gives_the_cube_to_the_beaverer_and_says_so(tmp_path):
    app = _app(tmp_path, length=0)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await pilot.press("d", "b")  # Bob doubles, Ann beavers
        await pilot.pause()
        match = app.recorder.referee.match
        assert (match.cube, match.cube_owner) == (4, 0)
        assert "Ann beavers: the cube is at 4, on Ann's side" in _log(app) and "still his" not in _log(app)


# -- a fourth new user's trial ------------------------------------------------------------------------------


async def test_input_after_the_match_is_over_is_refused_and_not_journalled(tmp_path):
    """Dice typed after the match was won were journalled and came to nothing, with nothing said; the line still
    asked for dice and plays."""
    app = _app(tmp_path, length=1)
    async with app.run_test(size=SMALL) as pilot:
        await _type(pilot, "31", "resign 1")
        await pilot.press("y")
        await pilot.pause()
        assert app.recorder.referee.state.match_over
        entries = len(app.recorder.observations)
        await _type(pilot, "31")
        assert "The match is over" in app.verdict and len(app.recorder.observations) == entries
        assert app.query_one("#command").placeholder.startswith("the match is over")


async def test_a_resumed_match_shows_its_last_verdict_not_a_refused_key_and_undo_shows_when_it_can(tmp_path):
    from tests.tui.test_app import _footer

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert "Undo" not in _footer(app)  # nothing to undo yet
        await _type(pilot, "31", "8/5 6/5")
        assert "Undo" in _footer(app)
        app.set_focus(None)
        await pilot.press("p")  # refused: no double waits
        await pilot.pause()
        assert "(pass): no double is waiting" in app.verdict
    app.recorder.close()
    resumed = CompanionApp(Recorder.resume(tmp_path / "m.jsonl"), mode="record")
    async with resumed.run_test(size=(120, 40)) as pilot:
        assert "Not allowed" not in resumed.verdict and "8/5 6/5" in resumed.verdict
    resumed.recorder.close()


async def test_x_with_hints_hidden_shows_them_and_the_film_hides_the_games_keys(tmp_path):
    """`x` with hints hidden looked deeper and showed nothing; while the demo's film played its game, the footer
    offered Double, Undo and Set up, which could only say it was playing."""
    import threading

    from tests.tui.test_app import _footer

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31")
        assert not app.hints_shown
        app.set_focus(None)
        await pilot.press("x")
        await pilot.pause()
        assert app.hints_shown

    class Film:  # plays its game, as the demo's film does (`sources.plays_the_game`)
        playing = threading.Event()

        def run(self, emit, status):
            pass

        def stop(self):
            pass

    Film.playing.set()
    film = _app(tmp_path / "film", source=Film())
    async with film.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = _footer(film)
        assert not {"Double", "Undo", "Set up"} & set(shown) and "Review" in shown


async def test_an_illegal_play_judged_as_it_stands_asks_for_no_correction(tmp_path):
    """A dice cup builder's trial: a play judged illegal in the same step as the opponent's throw let it stand, and
    the verdict still said 'Ann: c asks for a correction' (c was then refused: the play had stood)."""
    from companion.referee import DiceReading

    app = _app(tmp_path, mode="referee")
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "8/4 6/5!")
        judged = list(app.recorder.referee.events[-1:])
        stood = app.recorder.observe(DiceReading((6, 4), roller=1))
        app._verdict_from(judged + stood)
        await pilot.pause()
        verdict = _text(app, "#verdict")
        assert "stands" in verdict and "asks for a correction" not in verdict, verdict


async def test_a_resume_after_a_torn_entry_says_so_in_the_app(tmp_path):
    """A recorder's trial: a journal whose last line a crash cut short resumed one step back; the note on the
    terminal was covered by the app at once."""
    app = _app(tmp_path, mode="record")
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64")
    app.recorder.close()
    path = tmp_path / "m.jsonl"
    path.write_bytes(path.read_bytes()[:-7])  # the last entry torn
    resumed = CompanionApp(Recorder.resume(path))
    async with resumed.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert any("cut short by the crash" in str(n.message) for n in resumed._notifications)
