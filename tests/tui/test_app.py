"""The app driven by Textual's Pilot: a whole game typed, an illegal play corrected and one that stands,
double/take and double/pass by key, export, hints in training mode only, and snapshots of the main screen."""



import pytest

from companion.record.audit import audit_match
from companion.record.jellyfish import read_match_file
from companion.record.journal import JournalHeader
from companion.record.model import ActionKind
from companion.record.recorder import Recorder, load_any
from companion.referee import (Command, CorrectionRequested, DoubleOffered, GameOver, IllegalPlay, PlayMade,
                               PlayStood, Refused, Taken, Passed, UserCommand)
from companion.rules import Position
from companion.sources import ReplaySource
from companion.tui.app import CompanionApp
from companion.tui.board import THEIR_BAR
from companion.tui.confirm import Confirm
from tests.conftest import MATCHES

SIZE = (130, 48)


def _app(tmp_path, mode="record", length=5, **kw) -> CompanionApp:
    recorder = Recorder.create(tmp_path / "m.jsonl", JournalHeader(("Ann", "Bob"), length))
    return CompanionApp(recorder, mode=mode, export_path=tmp_path / "m.mat", **kw)


async def _type(pilot, *lines):
    for line in lines:
        pilot.app.query_one("#command").focus()
        pilot.app.query_one("#command").value = line
        await pilot.press("enter")
        await pilot.pause()


def _board_play(app, notation):
    """A play seen on the board (a camera's reading, then the dice picked up): unlike a typed play, it reaches
    the referee even when it is illegal."""
    from companion.referee import BoardReading, DiceReading
    from companion.rules import Position
    from companion.rules.notation import apply_moves, parse_moves

    game = app.recorder.referee.game
    mine, theirs = apply_moves(game.position, parse_moves(notation))
    app.apply(BoardReading.from_position(Position(tuple(mine), tuple(theirs)), game.turn))
    app.apply(DiceReading(()))


def _events(app, kind):
    return [e for e in app.recorder.referee.events if isinstance(e, kind)]


def _typed_game(path, number=1):
    """A recorded game as the lines a person would type: dice, play, cube words."""
    record = read_match_file(path)
    game = record.games[number - 1]
    lines, first = [], True
    for a in game.actions:
        if a.kind is ActionKind.ROLL:
            d1, d2 = a.dice
            if first:  # the opening roll is typed as player 0's die, then player 1's
                high, low = max(a.dice), min(a.dice)
                d1, d2 = (high, low) if a.player == 0 else (low, high)
                first = False
            lines += [f"{d1}{d2}", a.notation or "-"]
        elif a.kind is ActionKind.DOUBLE:
            lines.append("double")
        elif a.kind is ActionKind.TAKE:
            lines.append("take")
        elif a.kind is ActionKind.DROP:
            lines.append("pass")
    return lines


async def test_a_whole_game_typed_on_the_keyboard_is_refereed_and_journalled(tmp_path):
    app = _app(tmp_path, length=7)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, *_typed_game(MATCHES / "gbf__test.mat"))
        await pilot.pause()
        over = _events(app, GameOver)
        assert over and over[0].winner == 0 and over[0].points == 1  # Kévin's double was dropped
        assert not _events(app, IllegalPlay)
        assert len(_events(app, PlayMade)) == 30
    # the journal alone gives the same game back
    resumed = Recorder.resume(tmp_path / "m.jsonl")
    assert [str(e) for e in resumed.referee.events] == [str(e) for e in app.recorder.referee.events]


async def test_an_illegal_play_typed_with_a_bang_reaches_the_correction_window_from_the_keyboard(tmp_path):
    """The correction window could not be reached without a camera: every typed illegal play was refused."""
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "13/9 6/5")
        assert "End it with ! to record it" in str(app.query_one("#verdict").render()) and not _events(
            app, IllegalPlay)
        await _type(pilot, "13/9 6/5!")
        assert _events(app, IllegalPlay) and "Illegal" in str(app.query_one("#verdict").render())
        assert "Look at the illegal play" in {c.title for c in app.get_system_commands(app.screen)}
        app.set_focus(None)
        await pilot.press("c")
        await pilot.pause()
        assert _events(app, CorrectionRequested)
        await _type(pilot, "8/5 6/5")
        assert _events(app, PlayMade)[-1].play.notation == "8/5 6/5"


async def test_an_illegal_play_is_explained_then_corrected_on_request(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")  # 4 and 1 played with 3-1
        await pilot.pause()
        verdict = str(app.query_one("#verdict").render())
        assert "Illegal" in verdict and "moved" in verdict and "Nearest legal" in verdict
        await pilot.press("escape")
        app.set_focus(None)
        await pilot.press("c")
        await pilot.pause()
        assert _events(app, CorrectionRequested)
        await _type(pilot, "8/5 6/5")
        assert "Legal" in str(app.query_one("#verdict").render())
        assert _events(app, PlayMade)[-1].play.notation == "8/5 6/5"


async def test_an_illegal_play_stands_once_the_opponent_rolls(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")
        await _type(pilot, "64")
        stood = _events(app, PlayStood)
        assert len(stood) == 1 and stood[0].player == 0
        assert app.recorder.referee.game.turn == 1 and str(app.recorder.referee.game.dice) == "64"


def _footer(app) -> list[str]:
    from textual.widgets._footer import FooterKey  # the footer's keys, as shown

    return [key.description for key in app.screen.query(FooterKey)]


async def test_the_footer_shows_the_answers_only_while_they_apply_and_a_hidden_key_says_why_not(tmp_path):
    """A new user saw Accept, Correction, Take and Pass in the footer at every moment. They show while an illegal play
    or a double waits; pressed at another time, from the input line or elsewhere, the key says why it does not
    apply (a hidden key that did nothing would leave the user guessing)."""
    app = _app(tmp_path)
    answers = {"Accept", "Correction", "Take", "Pass"}
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        assert answers.isdisjoint(_footer(app)) and "Double" not in _footer(app)  # typed: the play comes first
        entries = len(app.recorder.observations)
        app.set_focus(None)
        await pilot.press("d")  # it ended Ann's turn unplayed ("the play was not seen"), in camera words
        await pilot.pause()
        assert "Not now" in str(app.query_one("#verdict").render()) and len(app.recorder.observations) == entries
        _board_play(app, "13/9 6/5")  # 4 and 1 played with 3-1
        await pilot.pause()
        assert {"Accept", "Correction"} <= set(_footer(app)) and "Take" not in _footer(app)
        await pilot.press("escape")
        await _keys(pilot, "c")
        assert _events(app, CorrectionRequested)
        await pilot.pause()
        assert answers.isdisjoint(_footer(app))
        await _type(pilot, "8/5 6/5")
        for key, where in (("t", "the input line"), ("a", "the play list")):
            if where == "the input line":
                app.query_one("#command").focus()
            else:
                app.query_one("#plays").focus()
            refused = len(_events(app, Refused))
            await pilot.press(key)
            await pilot.pause()
            assert len(_events(app, Refused)) == refused + 1, where
            assert app.query_one("#command").value == ""
        assert [e.reason for e in _events(app, Refused)[-2:]] == ["no double is waiting for an answer",
                                                                   "there is no illegal play to accept"]
        assert "Not allowed (accept): there is no illegal play to accept" in str(app.query_one("#verdict").render())
        # said once: at 80x24 the play list repeated each refusal and pushed the plays out of sight
        assert not any("Not allowed" in str(line.text) for line in app.query_one("#plays").lines)
        # keys pressed on another screen are not the match's, hidden or not (they bubble up to the app)
        from companion.tui.keys import KeysScreen

        refused = len(_events(app, Refused))
        app.set_focus(None)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        await pilot.press("t", "a", "p", "c")
        await pilot.pause()
        assert len(_events(app, Refused)) == refused
        await pilot.press("escape")
        await pilot.pause()
        app.set_focus(None)
        await pilot.press("d")
        await pilot.pause()
        assert {"Take", "Pass"} <= set(_footer(app)) and "Accept" not in _footer(app)
        await pilot.press("t")
        await pilot.pause()
        assert _events(app, Taken) and answers.isdisjoint(_footer(app))


async def test_the_xgid_is_shown_whole_or_broken_at_a_colon_and_fitted_again_after_a_resize(tmp_path):
    """A new user at 120x40 saw the XGID wrapped mid-ID in the side panel, where its halves read as two IDs."""
    from companion.tui.app import ids_text

    app = _app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64", "24/18 13/9")
        game = app.recorder.referee.game
        xgid, board = game.xgid(), game.xgid().partition(":")[0]
        ids = app.query_one("#ids")

        def shown() -> list[str]:
            return [line.strip() for line in str(ids.render()).splitlines()]

        assert shown() == [f"IDs {game.gnubg_id()}", xgid]
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert ids.content_region.width < len(xgid) + 4  # it would not fit whole
        assert shown() == [f"IDs {game.gnubg_id()}", board, xgid[len(board):]]
    assert ids_text("ID", xgid, len(xgid) + 4).splitlines()[1:] == [f"    {xgid}"]
    assert ids_text("ID", xgid, len(xgid) + 3).splitlines()[1:] == [f"    {board}", f"    {xgid[len(board):]}"]


async def test_the_board_is_numbered_for_the_player_on_roll(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64")  # Bob to play, in his numbering
        top = str(app.query_one("#board").render()).splitlines()[0].split()
        assert top[:2] == ["12", "11"] and top[-1] == "Bob's"
        await _type(pilot, "24/18 13/9", "52")  # Ann's again
        assert str(app.query_one("#board").render()).splitlines()[0].split()[:2] == ["13", "14"]


async def test_double_take_and_double_pass_by_key(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        app.set_focus(None)
        await pilot.press("d", "t")
        await pilot.pause()
        assert _events(app, Taken) and app.recorder.referee.match.cube == 2
        assert app.recorder.referee.match.cube_owner == 0
        await _type(pilot, "64", "24/18 13/9")
        app.set_focus(None)
        await pilot.press("d", "p")  # Ann owns the cube and redoubles; Bob passes
        await pilot.pause()
        assert _events(app, Passed)
        over = _events(app, GameOver)[-1]
        assert (over.winner, over.points) == (0, 2)
        # a new user saw the next game's opening help at once, and never who won the game passed
        verdict = str(app.query_one("#verdict").render())
        assert verdict.startswith("Ann wins 2 points (the double was passed). Game 2")


async def _keys(pilot, text):
    """`text` pressed key by key on the focused input line, then Enter: as a person types it."""
    pilot.app.query_one("#command").focus()
    await pilot.press(*("space" if c == " " else "slash" if c == "/" else c for c in text), "enter")
    await pilot.pause()


async def test_a_play_from_the_bar_typed_key_by_key_is_not_taken_for_beaver_and_accept(tmp_path):
    app = _app(tmp_path)
    start = Position.start()
    on_the_bar = list(start.player)
    on_the_bar[24], on_the_bar[25] = 1, 1  # one of Ann's back checkers hit
    async with app.run_test(size=SIZE) as pilot:
        app.apply(UserCommand(Command.SET_POSITION, player=0, position=Position(tuple(on_the_bar), start.opponent)))
        await _keys(pilot, "43")
        await _keys(pilot, "bar/21 13/10")
        assert _events(app, PlayMade)[-1].play.notation == "bar/21 13/10"
        assert not _events(app, Refused)


async def test_a_key_acts_at_once_on_the_empty_line_when_no_word_it_begins_is_due(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        app.query_one("#command").focus()
        await pilot.press("d")  # Bob may double: no play is due, so `d` is not typed
        await pilot.pause()
        assert _events(app, DoubleOffered) and app.query_one("#command").value == ""


async def test_a_command_word_typed_on_the_empty_line_acts_once(tmp_path, monkeypatch):
    """A club organiser typed `take` (as `--no-ui` takes it): `t` took, then `a` said no play waits, `k` no clock,
    and `e` exported the match. The rest of the word is spent; a key pressed after a pause acts again."""
    from companion.tui import app as app_module

    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await _keys(pilot, "double")
        assert len(_events(app, DoubleOffered)) == 1
        await _keys(pilot, "take")
        assert len(_events(app, Taken)) == 1 and app.recorder.referee.match.cube == 2
        assert not (tmp_path / "m.mat").exists() and app.query_one("#command").value == ""
        assert not _events(app, Refused)
        # not a command word: its letters act as keys once it leaves the words (`he` begins `help`, `hel` too)
        await _keys(pilot, "64")
        await pilot.press("h", "e", "l", "x")
        await pilot.pause()
        assert app.query_one("#command").value == ""
        monkeypatch.setattr(app_module, "WORD_GAP", 0.0)  # a key pressed a while after the word's first acts
        await pilot.press("d", "e")
        await pilot.pause()
        assert (tmp_path / "m.mat").exists()


async def test_n_while_a_play_is_due_is_typed_and_entered_alone_asks_first(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        app.query_one("#command").focus()
        await pilot.press("n", "o")
        await pilot.pause()
        assert app.query_one("#command").value == "no"  # the start of `no move`, not a new game
        app.query_one("#command").value = ""
        await pilot.press("n", "enter")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)  # as `n` pressed at once asks
        await pilot.press("escape")
        await _type(pilot, "N")
        assert isinstance(app.screen, Confirm)  # the typed word's capital too: it never starts a game unasked


async def test_a_question_clears_the_toasts_that_would_cover_its_answers(tmp_path):
    """At 80x24 a club organiser's toasts lay over the Quit dialog's No button."""
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify("No illegal play is waiting for an answer")
        await pilot.pause()
        assert app._notifications
        app.set_focus(None)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, Confirm) and not app._notifications


async def test_question_mark_lists_every_key_even_those_the_footer_has_no_room_for(tmp_path):
    """A new user at 80x24 found no help key: `?` was typed into the line, and the footer never showed x, i, l, b or
    k. On the empty line `?` (or F1) lists every key and what the line takes; Escape goes back."""
    import io

    from rich.console import Console

    from companion.tui.keys import ACTIONS, KeysScreen

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31")
        app.query_one("#command").focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen) and app.query_one("#command").value == ""
        console = Console(width=76, record=True, file=io.StringIO())
        parts = list(app.screen.query("#keys Static"))
        words = next(k for k, part in enumerate(parts) if str(part.content).startswith("[b]Words"))
        for part in parts[:words]:
            console.print(part.content)
        listed = [" ".join(line.split()) for line in console.export_text().splitlines()]
        assert len(listed) <= 22  # at 80x24 the keys and the line's words all show, borders and all
        # below them, scrolled to, the words the hints use (a newcomer met equity, MWC, mEMG unexplained)
        glossary = Console(width=76, record=True, file=io.StringIO())
        glossary.print(parts[words + 1].content)
        said = " ".join(glossary.export_text().split())
        assert all(word in said for word in ("equity", "MWC", "mEMG", "blunder from 0.16")), said
        for binding in CompanionApp.BINDINGS:  # every binding, those the footer never shows too
            title = ACTIONS[binding.action][0]
            shown = {"question_mark,f1": "? F1", "colon": ":"}.get(binding.key, binding.key)
            assert any(f"{shown} {title}" in line for line in listed), (shown, title)
        assert any("24-18" in line for line in listed)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, KeysScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert not isinstance(app.screen, KeysScreen)
        await _keys(pilot, "8-5 6-5")  # and what the list says the line takes, it takes
        assert _events(app, PlayMade)[-1].play.notation == "8/5 6/5"


async def test_the_play_list_wraps_at_its_width_and_again_when_the_terminal_is_resized(tmp_path):
    """A new user at 80x24 saw the play list's long lines cut, not wrapped (RichLog rendered each at least 78
    columns wide), and after a resize it no longer showed the newest line."""
    from companion.tui.playlist import PlayList

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/8")  # illegal: a long line
        for _ in range(3):
            await pilot.pause()
        plays = app.query_one("#plays", PlayList)
        width = plays.scrollable_content_region.width
        assert max(strip.cell_length for strip in plays.lines) <= width
        assert any("Nearest legal" in text for text in plays.texts)
        narrow_rows = len(plays.lines)
        await pilot.resize_terminal(160, 50)
        for _ in range(3):
            await pilot.pause()
        assert plays.scrollable_content_region.width > width and len(plays.lines) < narrow_rows
        await pilot.resize_terminal(80, 24)
        for _ in range(3):
            await pilot.pause()
        assert len(plays.lines) == narrow_rows and plays.scroll_y == plays.max_scroll_y
        await pilot.resize_terminal(80, 40)  # as tall: the pane keeps its width and gets a border, 2 columns less
        for _ in range(3):
            await pilot.pause()
        assert max(strip.cell_length for strip in plays.lines) <= plays.scrollable_content_region.width < width


async def test_a_rating_under_its_play_wraps_under_its_own_indent(tmp_path):
    """A new user at 80x24 saw a rating's best play wrapped to the pane's edge, where it read as an entry of its
    own."""
    from companion.tui.playlist import PlayList

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        plays = app.query_one("#plays", PlayList)
        plays.write("    Player 0: 6/4 6/2: -0.385 (blunder); best 8/4 6/4, and a few more words to wrap")
        for _ in range(3):
            await pilot.pause()
        rows = [strip.text for strip in plays.lines]
        assert len(rows) >= 2 and all(row.startswith("    ") for row in rows)
        assert plays.texts[-1].startswith("    Player 0")


async def test_the_play_list_still_shows_the_newest_line_when_the_verdict_above_it_grows(tmp_path):
    """At 80x24 a new user's refused play made the verdict two lines taller, and the play list then showed older
    lines, not the newest."""
    from companion.tui.playlist import PlayList

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31", "8/5 6/5", "62", "24/18 13/11", "41", "13/8", "53")
        plays = app.query_one("#plays", PlayList)
        for _ in range(3):
            await pilot.pause()
        assert plays.max_scroll_y > 0 and plays.scroll_y == plays.max_scroll_y
        tall = plays.size.height
        await _type(pilot, "24/21 24/19")  # refused: the verdict lists the legal plays
        for _ in range(3):
            await pilot.pause()
        assert plays.size.height < tall and plays.scroll_y == plays.max_scroll_y


async def test_an_entry_taller_than_the_play_list_shows_from_its_start(tmp_path):
    """A referee's trial at 100x32: the illegal play's entry showed its last words ('pips; 42 allows at most 6...'),
    not who played what."""
    from companion.tui.playlist import PlayList

    app = _app(tmp_path, mode="referee")
    async with app.run_test(size=(100, 32)) as pilot:
        await _type(pilot, "42", "13/8 6/4!")
        plays = app.query_one("#plays", PlayList)
        for _ in range(3):
            await pilot.pause()
        newest = len(plays.lines) - plays._newest_from
        assert newest > plays.scrollable_content_region.height  # the case: taller than the pane
        assert plays.scroll_y == plays._newest_from and "Illegal play by Ann" in plays.lines[plays._newest_from].text


async def test_export_writes_a_mat_file_that_reads_back(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64", "24/18 13/9")
        app.set_focus(None)
        await pilot.press("e")
        await pilot.pause()
    report = audit_match(read_match_file(tmp_path / "m.mat"))
    assert report.ok and report.plays == 2


async def test_export_without_a_path_writes_beside_the_journal_wherever_it_is(tmp_path):
    """The app's own default (`companion run` once passed it the user's data folder instead, which need not exist;
    that call is not exercised here)."""
    recorder = Recorder.create(tmp_path / "club" / "ann.jsonl", JournalHeader(("Ann", "Bob"), 5))
    app = CompanionApp(recorder, mode="record")
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        app.set_focus(None)
        await pilot.press("e")
        await pilot.pause()
        assert app.last_export == tmp_path / "club" / "ann.mat"
    assert audit_match(read_match_file(tmp_path / "club" / "ann.mat")).ok


async def test_an_export_that_cannot_be_written_says_why_and_tries_no_other_format(tmp_path):
    app = _app(tmp_path)
    app.export_path = tmp_path / "no such folder" / "m.mat"
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        app.set_focus(None)
        said = []
        app.notify = lambda message, **_: said.append(message)
        await pilot.press("e")
        await pilot.pause()
        assert app.last_export is None
        assert any("cannot write" in m and "m.mat" in m for m in said) and not any(".sgf" in m for m in said)


async def test_an_illegal_play_that_stood_is_exported_as_sgf(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        _board_play(app, "13/9 6/5")
        await _type(pilot, "64")
        app.set_focus(None)
        await pilot.press("e")
        await pilot.pause()
        # what was done first, then why (a new user read "export to .sgf instead" beside "Wrote m.sgf")
        said = str(list(app._notifications)[-1].message)
        assert said.startswith(f"Wrote {tmp_path / 'm.sgf'}: as SGF, since ") and "instead" not in said
    assert not (tmp_path / "m.mat").exists() and (tmp_path / "m.sgf").exists()
    loaded, report = load_any(tmp_path / "m.sgf")
    assert loaded.referee.game.turn == 1


async def test_hints_and_cube_advice_in_training_mode(tmp_path):
    app = _app(tmp_path, mode="train")
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        await app.workers.wait_for_complete()
        await pilot.pause()
        hints = str(app.query_one("#hints").render())
        # the columns are named, and whose plays they are (a new user could not tell the third column)
        assert "Hint" in hints and hints.splitlines()[1].split() == ["Ann's", "play", "equity", "MWC", "cost"]
        assert "8/5 6/5" in hints.splitlines()[2]
        await _type(pilot, "8/5 6/5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        cube = str(app.query_one("#cube").render()).splitlines()
        assert cube[1] == "Bob's view:" and cube[2].startswith("No double")  # whose equities they are
        assert "best play" in "\n".join(str(line.text) for line in app.query_one("#plays").lines)
    from companion.analysis.rating import PlayRating

    played, best = Position.start().play("13/8 6/4", 5, 2), Position.start().play("13/11 13/8", 5, 2)
    assert PlayRating(0, played, best, 0.089, False).text() == "costs 0.089 (error); best 13/11 13/8"


@pytest.mark.parametrize("mode, shown", [("record", True), ("referee", False)])
async def test_h_brings_hints_in_record_mode_and_none_in_referee_mode(tmp_path, mode, shown):
    """A new user in record mode (the default) pressed h and saw "thinking..." for a minute: only training mode
    asked the engine. Referee mode keeps them hidden."""
    app = _app(tmp_path, mode=mode)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        app.set_focus(None)
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        hints = str(app.query_one("#hints").render())
        assert ("Hint" in hints and "8/5 6/5" in hints.splitlines()[2]) if shown else "Hint" not in hints


async def test_the_cube_advice_fits_the_side_panel_at_80_columns(tmp_path):
    """A new user at 80x24 in a match saw each cube line broken in two: 'No double -0.240 MWC' and '48.5%' below."""
    app = _app(tmp_path, mode="train", length=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        cube = app.query_one("#cube")
        text = str(cube.render())
        assert "Double/take" in text and "%" in text
        rows = [line for line in text.splitlines() if line.startswith(("No double", "Double/"))]
        assert len(rows) == 3 and all(len(line) <= cube.content_region.width for line in rows)
        assert all(line.rstrip().endswith("%") for line in rows)  # each line keeps its chances
        # a second trial saw the heading, the answer, the chances and the turn wrap while a double waited
        app.set_focus(None)
        await pilot.press("d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = str(cube.render())
        assert "Ann: Take" in text or "Ann: Pass" in text  # Bob doubles, Ann answers
        status = app.query_one("#status")
        for widget, lines in ((cube, text.splitlines()), (status, str(status.render()).splitlines())):
            assert all(len(line) <= widget.content_region.width for line in lines), lines
        from textual.widgets import Footer

        assert app.query_one(Footer).compact  # it cut its seventh key ("h Hin") with room to spare between them
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not app.query_one(Footer).compact


async def test_with_the_cube_the_opponents_the_panel_says_why_there_is_no_cube_advice(tmp_path):
    """A new user found the cube panel blank on turns where the opponent owned the cube."""
    app = _app(tmp_path, mode="train", length=0)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "double", "take", "64", "24/14", "52", "13/11 13/8")  # Ann owns it
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No cube decision: only the owner of the cube may redouble" in str(app.query_one("#cube").render())
        # nor does the footer offer Double (a new user saw it there); pressed, it says why not
        assert "Double" not in _footer(app)
        app.set_focus(None)
        await pilot.press("d")
        await pilot.pause()
        assert _events(app, Refused)[-1].reason == "only the owner of the cube may redouble"
        await _type(pilot, "64", "bar/21 24/18")  # Bob, hit, enters; then Ann, the owner, may redouble
        assert "Double" in _footer(app)


async def test_typing_nonsense_is_explained_and_loses_nothing(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "banana", "8/5 6/5")
        assert "Legal" in str(app.query_one("#verdict").render())
        await _type(pilot, "set notanid")
        assert "Position ID" in str(app.query_one("#verdict").render())


async def test_a_refused_line_stays_to_be_mended_and_typing_replaces_it(tmp_path):
    """A new user's typo (`5?` for the dice) was refused and the line cleared: it had to be typed again."""
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _keys(pilot, "5?")
        line = app.query_one("#command")
        assert "type the dice first" in str(app.query_one("#verdict").render())
        assert line.value == "5?" and line.selected_text == "5?"
        await _keys(pilot, "31")  # typed over the selection
        assert line.value == "" and str(app.recorder.referee.game.dice) == "31"


async def test_typing_while_a_recorded_game_plays_is_refused_not_mixed_into_it(tmp_path):
    """A new user typed during `demo --match`, and what he typed went into the replayed game."""
    loaded, _ = load_any(MATCHES / "gbf__test.mat")
    source = ReplaySource(loaded.observations[:6], 30.0)  # the second observation half a minute away
    app = _app(tmp_path, mode="record", length=7, source=source)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await pilot.pause()
            if app.recorder.observations:
                break
        seen = len(app.recorder.observations)
        await _type(pilot, "31")
        app.set_focus(None)
        await pilot.press("u", "d")
        await pilot.pause()
        assert len(app.recorder.observations) == seen == 1  # nothing typed or commanded reached the referee
        # not kept: a line left on it took the next keys (a new user's q typed a q in the demo instead of quitting)
        assert app.query_one("#command").value == ""
        source.stop()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not source.playing.is_set()
        app.set_focus(None)
        await pilot.press("u")  # the replay stopped: commands reach the referee again
        await pilot.pause()
        assert len(app.recorder.observations) == 2


async def test_a_replayed_match_runs_through_the_app(tmp_path):
    loaded, _ = load_any(MATCHES / "gbf__test.mat")
    app = _app(tmp_path, mode="record", length=7, source=ReplaySource(loaded.observations[:120], 0.0))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.recorder.observations) == 120
        assert "120/120" in app.source_status or "finished" in app.source_status


def _scripted(tmp_path, lines, board=None):
    app = _app(tmp_path)

    async def run_before(pilot):
        await _type(pilot, *lines)
        if board:
            _board_play(app, board)
        app.set_focus(None)
        await pilot.pause()

    return app, run_before


SIZES = [(80, 24), (120, 40), (160, 50)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_the_main_screen_after_an_opening(snap_compare, tmp_path, size):
    app, run_before = _scripted(tmp_path, ["31", "8/5 6/5", "64", "24/18 13/9"])
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_an_illegal_play_waiting_for_the_opponent(snap_compare, tmp_path, size):
    app, run_before = _scripted(tmp_path, ["31"], board="13/9 6/5")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_the_command_palette_offers_the_referee_commands(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        app.set_focus(None)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Double")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        from companion.referee import DoubleOffered

        assert _events(app, DoubleOffered)


async def test_the_palette_offers_a_resignation_and_names_each_commands_key(tmp_path):
    """A new user found no resignation in the palette (it is typed: resign 2), nor which key each entry has."""
    from companion.referee import ResignationOffered

    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64")  # Bob on roll
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "(key e)" in commands["Export"].help and "(key ?)" in commands["List the keys"].help
        # what cannot be done now is not offered: no illegal play waits, no double after the roll, no beaver in
        # match play
        assert not {"Accept the illegal play", "Double", "Take", "Pass", "Beaver"} & set(commands)
        # a trial found "Look at the illegal play" offered with none waiting, and Textual's "Keys" beside this app's
        assert not {"Look at the illegal play", "Keys"} & set(commands)
        app.set_focus(None)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Resign a gammon")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        offered = _events(app, ResignationOffered)
        assert offered and offered[-1].player == 1 and offered[-1].value == 2


async def test_referee_mode_has_no_hints_key_in_its_footer_and_h_still_says_why(tmp_path):
    """A referee's trial: the footer offered `h Hints`, which only said hints are hidden in referee mode."""
    app = _app(tmp_path, mode="referee")
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        assert app.check_action("toggle_hints", ()) is False
        assert "Toggle hints" not in {c.title for c in app.get_system_commands(app.screen)}
        app.set_focus(None)
        await pilot.press("h")
        await pilot.pause()
        assert any("hidden in referee mode" in str(n.message) for n in app._notifications)
    (tmp_path / "r").mkdir()
    assert _app(tmp_path / "r", mode="record").check_action("toggle_hints", ()) is True


async def _open_editor(pilot):
    pilot.app.set_focus(None)
    await pilot.press("s")
    await pilot.pause()
    from companion.tui.editor import PositionEditor

    assert isinstance(pilot.app.screen, PositionEditor)
    return pilot.app.screen


async def test_the_board_set_up_by_hand_becomes_the_referees_position(tmp_path, monkeypatch):
    from companion.tui import editor as editor_module

    monkeypatch.setattr(editor_module, "ID_GAP", 0.0)  # each key pressed as a person edits: a while after the last
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64")  # Bob to play 6-4
        editor = await _open_editor(pilot)
        assert editor.cursor == 8
        # the camera missed it: Ann has a third checker on her 5-point from her 8-point
        await pilot.press("minus", "right", "right", "right", "right", "plus")
        assert editor.cursor == 5  # past the 7-point and the bar
        # whose checkers, by name ("3 of yours" named no one)
        assert str(editor.query_one("#editor-status").render()).startswith("Ann's point 5: 3 of Ann's")
        await pilot.press("u", "n")  # the game's keys do nothing behind the editor: no undo, no new game
        await pilot.pause()
        field = editor.query_one("#editor-id")
        assert field.value == "un" and field.has_focus  # typed on the board, they begin an ID
        await pilot.press("backspace", "backspace", "enter")  # Enter on the emptied field applies the board
        await pilot.pause()
        assert not isinstance(app.screen, type(editor))
        from companion.referee import GameStarted, Undone

        assert not _events(app, Undone) and len(_events(app, GameStarted)) <= 1
        ann = app.recorder.referee.game.position_of(0)
        assert (ann.player[8], ann.player[5], ann.player[6]) == (1, 3, 4)
        assert app.recorder.referee.game.turn == 1  # the turn was kept
        assert app.recorder.referee.game.position_of(1) == ann.swap()


async def test_a_position_id_typed_in_the_editor_may_begin_with_a_board_key(tmp_path):
    """A club organiser typed `sGfwATDgc/ABMA`: `s` set the board to the start and the field got `GfwATDgc/ABMA`,
    not a Position ID. Board keys typed at once before a key that is none of the board's are the ID's."""
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        for typed in ("sGfwATDgc/ABMA", "0HPwATDgc/ABMA", "s0PwATDgc/ABMA"):
            editor = await _open_editor(pilot)
            before = dict(editor.counts)
            await pilot.press(*("slash" if c == "/" else c for c in typed))
            await pilot.pause()
            assert editor.query_one("#editor-id").value == typed and editor.counts == before
            await pilot.press("escape", "escape")
            await pilot.pause()
        editor = await _open_editor(pilot)
        await pilot.press(*("slash" if c == "/" else c for c in "sGfwATDgc/ABMZ"), "enter")  # a typo: refused
        await pilot.pause()
        await pilot.press(*("slash" if c == "/" else c for c in "sGfwATDgc/ABMA"), "enter")  # typed over it
        await pilot.pause()
        assert editor.query_one("#editor-id").value == ""  # taken: a trainee's second try was appended, refused
        from companion.rules import Position as P

        assert editor.edited in (P.from_position_id("sGfwATDgc/ABMA"), P.from_position_id("sGfwATDgc/ABMA").swap())


async def test_the_editor_fits_whole_at_80x24(tmp_path):
    """A club organiser's set-up at 80x24 lost its top border or its bottom one under the footer."""
    from textual.containers import Vertical
    from textual.widgets import Footer

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await _open_editor(pilot)
        box = editor.query_one(Vertical).region
        assert box.y >= 0 and box.bottom <= editor.query_one(Footer).region.y


async def test_the_bar_and_a_pasted_xgid_in_the_editor(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        await pilot.press(*["left"] * 4)  # the viewer's side is drawn 12 to 1, left to right
        assert editor.cursor == 12 and editor.counts[12] == -5  # the opponent's mid-point
        await pilot.press("plus")  # towards mine: one of his comes off first
        assert editor.counts[12] == -4 and editor.edited.opponent[0] == 1
        await pilot.press(*["right"] * 6, "up")
        assert editor.cursor == THEIR_BAR
        await pilot.press("plus")  # the opponent's bar holds only his checkers: nothing to take
        assert editor.bars[THEIR_BAR] == 0
        await pilot.press("minus")
        assert editor.bars[THEIR_BAR] == 1 and editor.edited.opponent[0] == 0  # from his tray to the bar
        # a pasted XGID replaces everything, and a game not begun takes its turn from it
        xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:5:10"
        editor.query_one("#editor-id").value = xgid
        editor.query_one("#editor-id").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert editor.roller == 1 and editor.bars[0] == 0
        await pilot.press("enter")
        await pilot.pause()
        game = app.recorder.referee.game
        assert game.turn == 1 and game.xgid().split(":")[0] == xgid.split(":")[0]


async def test_the_editor_refuses_a_sixteenth_checker_and_escape_changes_nothing(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        before = app.recorder.referee.game
        editor = await _open_editor(pilot)
        await pilot.press("plus")
        assert editor.counts[8] == 3  # all fifteen are on the board already
        await pilot.press("0", "plus", "plus")
        assert editor.counts[8] == 2
        await pilot.press("escape")
        await pilot.pause()
        assert app.recorder.referee.game == before and not app.recorder.observations


async def test_the_set_up_footer_shows_r_while_it_chooses_who_starts_and_r_mid_game_says_why_not(tmp_path):
    """`r` chose who rolls first in the set-up screen but was in no footer: a new user found it only in the status
    line. It shows before the game begins, every key whole at 80 columns; mid-game the turn is kept, and `r`, hidden
    then, still says so."""
    from tests.tui.test_app_at_the_table import _screen_text

    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await _open_editor(pilot)
        assert "Who starts" in _footer(app)
        assert _screen_text(app).splitlines()[-1].rstrip().endswith("esc Cancel")  # the last key, whole
        await pilot.press("r")
        await pilot.pause()
        assert editor.roller == 1 and "Bob rolls first" in str(editor.query_one("#editor-status").render())
        await pilot.press("escape")
        await pilot.pause()
        await _type(pilot, "31", "8/5 6/5")
        editor = await _open_editor(pilot)
        assert "Who starts" not in _footer(app)
        await pilot.press("r")
        await pilot.pause()
        assert any("The turn is kept" in str(n.message) for n in app._notifications)
        assert editor.roller == 1 and app.screen is editor and not editor.query_one("#editor-id").value


async def test_set_takes_an_xgid_typed_on_the_input_line(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:5:10"
        await _type(pilot, f"set {xgid}")
        assert app.recorder.referee.game.xgid().split(":")[:4] == xgid.split(":")[:4]


@pytest.mark.parametrize("how", ["typed on the line", "typed on the board", "pasted"])
async def test_an_xgid_with_dice_sets_the_position_and_its_roll(tmp_path, how):
    """A new user's XGID with 52 set the board and dropped the dice; typing an ID on the set-up board (without Tab
    to its field first) and pasting one did nothing, and Enter applied the board unchanged."""
    from textual import events

    from companion.referee import PositionSet

    app = _app(tmp_path)
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10"
    async with app.run_test(size=SIZE) as pilot:
        if how == "typed on the line":
            await _type(pilot, f"set {xgid}")
        else:
            verdict = str(app.query_one("#verdict").render())
            editor = await _open_editor(pilot)
            if how == "pasted":
                editor.post_message(events.Paste(xgid))
                await pilot.pause()
            else:
                await pilot.press(*xgid)
            assert editor.query_one("#editor-id").value == xgid
            await pilot.press("enter")  # the ID into the board, and not to the app's line as a play
            await pilot.pause()
            assert editor.dice == (5, 2) and str(app.query_one("#verdict").render()) == verdict
            await pilot.press("enter")  # the board applied
            await pilot.pause()
        game = app.recorder.referee.game
        assert len(_events(app, PositionSet)) == 1 and not _events(app, Refused)
        assert game.xgid().split(":")[:5] == xgid.split(":")[:5] and str(game.dice) == "52"  # Bob to play 52


async def test_an_xgid_s_dice_are_thrown_only_for_the_player_who_rolls_now(tmp_path):
    """Mid-game the turn is kept: an XGID whose other player rolled gives its position, not its dice to the wrong
    player; in the opening, `r` after the paste makes the other player roll, and the dice are not his either."""
    from textual import events

    from companion.referee import PositionSet, Rolled

    bottoms = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10"  # player 1 on turn (the bottom), 52; to 7
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "64", "24/18 13/9")  # Ann to roll
        editor = await _open_editor(pilot)
        editor.post_message(events.Paste(bottoms))
        await pilot.pause()
        await pilot.press("enter", "enter")
        await pilot.pause()
        game = app.recorder.referee.game
        assert len(_events(app, PositionSet)) == 1 and game.turn == 0 and game.dice is None
        said = [str(n.message) for n in app._notifications]
        assert any("The XGID's 52 is not thrown" in m for m in said)  # said, not dropped without a word
        assert any("not its score, match length or cube" in m for m in said)  # a 7-point match's XGID in a 5
    app = _app(tmp_path / "opening")
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        editor.post_message(events.Paste(bottoms))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert editor.roller == 1
        await pilot.press("r", "enter")  # player 0 rolls first after all
        await pilot.pause()
        game = app.recorder.referee.game
        assert game.turn == 0 and game.dice is None and not _events(app, Rolled)


async def test_keys_in_one_burst_and_a_stray_letter_on_the_set_up_board(tmp_path):
    """An ID's keys arriving in one burst (a paste without bracketed paste) reached the board before its field had
    the focus, which took its - and = as edits; one stray letter kept the board's keys in the field for good."""
    from textual import events
    from textual.keys import _character_to_key

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10"
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        before = editor.edited
        for ch in xgid:  # as a terminal's driver hands them to the app, none waiting for the one before
            app.post_message(events.Key(_character_to_key(ch), ch))
        await pilot.pause()
        assert editor.query_one("#editor-id").value == xgid and editor.edited == before
        await pilot.press("escape")  # rubs the half-typed ID out, the editor stays
        await pilot.pause()
        assert app.screen is editor and editor.query_one("#editor-id").value == "" and editor.focused is None
        await pilot.press("u", "backspace", "minus")  # a stray letter rubbed out: - edits the board again
        await pilot.pause()
        assert editor.focused is None and editor.edited != before
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not editor and not app.recorder.observations


async def test_a_typed_double_while_a_roll_waits_for_its_typed_play_is_refused(tmp_path):
    """`double` typed after the dice ended the mover's turn unplayed, the play standing as illegal."""
    from companion.referee import DoubleOffered, IllegalPlay

    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5", "52")
        entries = len(app.recorder.observations)
        await _type(pilot, "double")
        assert "Not now" in str(app.query_one("#verdict").render()) and len(app.recorder.observations) == entries
        assert app.query_one("#command").value == "double"  # kept, as any refused line is
        assert not _events(app, DoubleOffered) and not _events(app, IllegalPlay)


def test_only_a_camera_or_the_film_reads_the_board():
    from companion.sources import CameraSource, DiceCupSource, FilmSource, ReplaySource, Sources, reads_the_board

    assert reads_the_board(CameraSource("0", None)) and reads_the_board(FilmSource())
    assert reads_the_board(Sources([DiceCupSource(), CameraSource("0", None)]))
    assert not any(reads_the_board(s) for s in (None, DiceCupSource(), Sources([DiceCupSource()]), ReplaySource([])))


async def test_the_status_panel_shows_the_position_id_match_id_and_xgid(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        game = app.recorder.referee.game
        status = str(app.query_one("#ids").render())
        position_id, match_id = game.gnubg_id().split(":")
        assert position_id in status and match_id in status
        assert game.xgid() in "".join(line.strip() for line in status.splitlines())  # whole, or broken at a colon


async def test_the_editor_refuses_to_empty_the_board_and_keeps_running(tmp_path):
    """A board with no checker left is no position (both sides borne off): clearing the last one is refused,
    and the screen goes on with the last board that was one."""
    from companion.rules import Position

    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot)
        last_two = Position.from_points({1: 1}, {1: 1})  # mine on my 1-point, his on his 1 (my 24)
        editor.query_one("#editor-id").value = last_two.position_id()
        editor.query_one("#editor-id").focus()
        await pilot.press("enter", *["right"] * 8, "0")
        await pilot.pause()
        assert editor.cursor == 1 and editor.counts[1] == 0
        await pilot.press("up", "0")
        await pilot.pause()
        assert editor.cursor == 24 and editor.counts[24] == -1 and editor.edited.opponent[1] == 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.recorder.referee.game.position_of(0) == Position.from_points({}, {1: 1})


async def test_a_board_the_referee_takes_for_a_legal_play_goes_back_to_the_source(tmp_path):
    """The camera learns its board's empty points from positions the referee accepted: the app hands such a
    reading back (`source.confirm`), and not a reading whose play was illegal."""
    from companion.referee import BoardReading, DiceReading
    from companion.rules import Position
    from companion.rules.notation import apply_moves, parse_moves

    class Source:
        def __init__(self):
            self.confirmed = []

        def run(self, emit, status):
            pass

        def stop(self):
            pass

        def confirm(self, board):
            self.confirmed.append(board)

    def seen(notation):
        game = app.recorder.referee.game
        mine, theirs = apply_moves(game.position, parse_moves(notation))
        return BoardReading.from_position(Position(tuple(mine), tuple(theirs)), game.turn)

    source = Source()
    app = _app(tmp_path, source=source)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        legal = seen("8/5 6/5")
        assert any(isinstance(e, PlayMade) for e in app.apply(legal))
        taken = [[(p.owner, p.count) for p in board.points] for board in source.confirmed]
        assert taken == [[(p.owner, p.count) for p in legal.points]]  # the position the referee took
        app.apply(DiceReading(()))
        await _type(pilot, "52")
        events = app.apply(seen("13/9 6/5")) + app.apply(DiceReading(()))  # 4 and 1 played with 5-2
        assert any(isinstance(e, IllegalPlay) for e in events)
        assert len(source.confirmed) == 1


async def test_help_or_hint_typed_as_a_word_points_to_the_keys_and_records_nothing(tmp_path):
    """A newcomer typing `help` or `hint` was told "cannot read 'help': a move is FROM/TO"."""
    app = _app(tmp_path, mode="train")
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "31")
        entries = len(app.recorder.observations)
        await _type(pilot, "help")
        verdict = str(app.query_one("#verdict").render())
        assert "'help' is not a play" in verdict and "? lists the keys" in verdict and "FROM/TO" not in verdict
        await _type(pilot, "Hint")
        assert "h shows or hides the hints" in str(app.query_one("#verdict").render())
        assert len(app.recorder.observations) == entries
        # the line is left empty, so the key the answer names acts at once (kept, it typed a '?')
        assert app.query_one("#command").value == ""
        await pilot.press("question_mark")
        await pilot.pause()
        from companion.tui.keys import KeysScreen

        assert isinstance(app.screen, KeysScreen)
        await pilot.press("escape")
        await pilot.pause()
        await _type(pilot, "8/5 6/5")
        assert _events(app, PlayMade)[-1].play.notation == "8/5 6/5"


async def test_help_typed_while_the_demo_plays_is_answered_too(tmp_path):
    """The demo is where a newcomer asks first; a playing source refused the word before it was looked at."""
    loaded, _ = load_any(MATCHES / "gbf__test.mat")
    source = ReplaySource(loaded.observations[:6], 30.0)
    app = _app(tmp_path, mode="train", length=7, source=source)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "help")
        assert "? lists the keys" in str(app.query_one("#verdict").render())
        source.stop()
        await app.workers.wait_for_complete()
        await pilot.pause()


async def test_at_80_columns_quit_stays_in_the_footer_while_a_double_or_an_illegal_play_waits(tmp_path):
    """A newcomer at 80x24 saw `q Qui` cut off, and after an illegal play Review and Quit gone: while an answer
    waits, Set up steps out of the footer (s still opens it) and Accept is one word."""
    from textual.widgets._footer import FooterKey

    def fits(app) -> bool:
        keys = list(app.screen.query(FooterKey))
        palette = min(k.region.x for k in keys if k.key_display == "^p")
        return "Quit" in _footer(app) and all(k.region.right <= palette for k in keys if k.key_display != "^p")

    app = _app(tmp_path, mode="train")
    async with app.run_test(size=(80, 24)) as pilot:
        await _type(pilot, "31", "8/5 6/5")
        assert fits(app) and "Set up" in _footer(app)
        app.set_focus(None)
        await pilot.press("d")
        await pilot.pause()
        assert "Take" in _footer(app) and "Set up" not in _footer(app) and fits(app)
        await pilot.press("t")
        await pilot.pause()
        await _type(pilot, "31", "13/9 6/5!")
        assert "Accept" in _footer(app) and "Set up" not in _footer(app) and fits(app)
        from companion.tui.editor import PositionEditor

        for focus in (None, app.query_one("#command")):  # hidden, it still acts, from the board or the empty line
            app.set_focus(focus)
            await pilot.press("s")  # the editor's own `s` (the start) must not take it too: it crashed the app
            await pilot.pause()
            assert isinstance(app.screen, PositionEditor)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, PositionEditor)
