"""The board and the hint rows as text: the cube said by the players' names, each hint row whole in its panel."""

from companion.referee import Referee
from companion.referee.typed import observations_from_text
from companion.rules import MatchState
from companion.tui.board import render_board


def _after(*lines):
    referee = Referee(MatchState.money())
    for line in lines:
        for observation in observations_from_text(line, referee.game):
            referee.observe(observation)
    return referee.game


def test_the_cube_is_said_by_name_who_offers_it_and_whose_it_is():
    """A new user saw "cube 2 by you" and "cube 2 theirs" on the board beside "Ann offers 2" in the side panel."""
    names = ("Ann", "Bob")
    offered = _after("31", "8/5 6/5", "double")  # Bob, on roll, doubles
    assert "Bob offers 2" in str(render_board(offered, 0, names=names))
    taken = _after("31", "8/5 6/5", "double", "take")
    assert "cube 2 Ann's" in str(render_board(taken, 0, names=names))
    assert "cube 2 Ann's" in str(render_board(taken, 1, names=names))  # whoever looks
    assert "cube 2 yours" in str(render_board(taken, 0)) and "cube 2 theirs" in str(render_board(taken, 1))


def test_a_centred_cube_is_said_at_its_worth_as_the_side_panel_says_it():
    """A new user read "cube 64 centre" on the board beside "Cube 1" in the side panel: the board gave the number on
    top of a centred cube, the panel its worth."""
    for board in (render_board(_after("31"), 0, names=("Ann", "Bob")), render_board(_after("31"), 1)):
        middle = next(line for line in str(board).splitlines() if "BAR" in line)
        assert "cube 1 centred" in middle and "64" not in middle


def test_a_long_name_is_cut_never_the_cube_value():
    """With names of eight letters and more ('Player 0', the default) an offered 16 showed as 'offers 1'."""
    from dataclasses import replace

    names = ("Alexandra", "Player 1")
    offered = _after("31", "8/5 6/5", "double")
    high = replace(offered, match=replace(offered.match, cube=32))
    assert "offers 64" in str(render_board(high, 0, names=names))
    taken = _after("31", "8/5 6/5", "double", "take")
    owned = replace(taken, match=replace(taken.match, cube=16))
    board = str(render_board(owned, 0, names=names))
    assert "cube 16 Alexand's" in board
    assert "cube 2 Maxence's" in str(render_board(taken, 0, names=("Maxence Job", "Bob")))  # no space before 's
    middle = next(line for line in board.splitlines() if "BAR" in line)
    assert middle.index("BAR") == next(line for line in str(render_board(_after("31"), 0)).splitlines()
                                       if "BAR" in line).index("BAR")  # the bar stays where it is


def test_each_hint_row_fits_its_panel_whole_the_loss_then_the_chances_left_out_first():
    """At 120x40 a new user saw each hint's loss wrapped to a line of its own, read as another play."""
    from companion.tui.app import hint_rows

    plays = [("10/5* 8/5", 0.215, 0.577, 0.0), ("8/5* 6/1", -0.070, 0.559, 0.285), ("13/10 6/1", -0.119, 0.556, 0.334)]
    for width in (20, 26, 34, 46, 80):
        rows = hint_rows(plays, width)
        assert len(rows) == 3 and all(row.startswith(f"{i}. ") for i, row in enumerate(rows, start=1))
        assert all(len(row) <= width for row in rows)
    long = [("bar/20 13/8(2)", e, mwc, loss) for _, e, mwc, loss in plays]  # 3 + 14 + 7, + 7 for the chances
    assert "57.7%" in hint_rows(long, 36)[0] and "-0.285" not in hint_rows(long, 36)[1]
    assert "-0.285" in hint_rows(plays, 36)[1] and "%" not in hint_rows(plays, 20)[0]
    assert "%" not in hint_rows([(p, e, None, loss) for p, e, _, loss in plays], 80)[0]  # money play: no chances


def test_the_hint_header_names_each_column_over_it():
    from companion.tui.app import hint_header, hint_rows

    plays = [("10/5* 8/5", 0.215, 0.577, 0.0), ("8/5* 6/1", -0.070, 0.559, 0.285)]
    for width, names in ((36, ["play", "equity", "MWC", "cost"]), (46, ["play", "equity", "MWC", "cost"])):
        header, row = hint_header(plays, width, "Ann"), hint_rows(plays, width)[1]
        assert header.split() == names and len(header) == len(row) <= width  # each name ends over its figures
        assert header.index("equity") + 6 == row.index("-0.070") + 6
    long = [("bar/20 13/8(2)", e, mwc, loss) for _, e, mwc, loss in plays]
    assert hint_header(long, 36, "Ann").split() == ["Ann's", "play", "equity", "MWC"]  # no room left for the cost
    # narrower than 36, each row gives its equity first, whatever the plays (the columns do not swap between turns)
    assert hint_header(plays, 30, "Ann").split() == ["equity", "Ann's", "play"]
    assert hint_rows(plays, 30)[0] == "1. +0.215 10/5* 8/5"
    assert hint_header(plays, 46, "Bo").split()[:2] == ["Bo's", "play"]  # whose plays, where the name fits


def test_a_play_too_long_for_its_row_comes_after_its_equity():
    """At 80x24 a new user saw plays of four moves push each equity to a line of its own."""
    from companion.tui.app import hint_header, hint_rows

    plays = [("bar/20 13/8(2) 6/1*", 0.527, 0.6, 0.0), ("bar/15 13/8 6/1*", 0.41, 0.58, 0.117)]
    rows = hint_rows(plays, 26)
    assert rows == ["1. +0.527 bar/20 13/8(2) 6/1*", "2. +0.410 bar/15 13/8 6/1*"]
    assert hint_header(plays, 26, "Bob").split() == ["equity", "Bob's", "play"]
    # a name too long for the panel wrapped the header ("equity Kévin Unger's" over "play"): then "play" alone
    assert hint_header(plays, 26, "Kévin Unger") == f"{'':3}{'equity':>6} play"
    assert hint_rows(plays, 40)[0].startswith("1. bar/20 13/8(2) 6/1*")  # where it fits, the play comes first


def test_the_numbers_can_be_the_player_on_rolls_own_with_his_name_beside_them():
    """A new user could not find where the second player's `bar/22*` or hint `bar/17*` went: they are in his own
    numbering, and the board was numbered for player 0 only."""
    names = ("Ann", "Bob")
    game = _after("31", "8/5 6/5", "64")
    own, bobs = str(render_board(game, 0, names=names)), str(render_board(game, 0, names=names, numbered_for=1))
    assert own.splitlines()[0].split() == [str(p) for p in range(13, 25)]
    assert own.splitlines()[-1].split() == [str(p) for p in range(12, 0, -1)]
    assert bobs.splitlines()[0].split() == [str(p) for p in range(12, 0, -1)] + ["Bob's"]
    assert bobs.splitlines()[-1].split() == [str(p) for p in range(13, 25)]
    assert bobs.splitlines()[1:-1] == own.splitlines()[1:-1]  # the checkers stay where they are
    assert str(render_board(game, 0, names=names, numbered_for=0)) == own
    width = max(len(line) for line in own.splitlines())
    long = render_board(game, 0, names=("Ann", "Bartholomew"), numbered_for=1)
    assert max(len(line) for line in str(long).splitlines()) <= width  # the name no wider than the trays' column
    assert str(long).splitlines()[0].split()[-1] == "Bart.'s"
    # the default names were both cut to "Playe's": whose numbers they are must still show
    default = render_board(game, 0, names=("Player 0", "Player 1"), numbered_for=1)
    assert str(default).splitlines()[0].split()[-1] == "P1's"
    assert max(len(line) for line in str(default).splitlines()) <= width
