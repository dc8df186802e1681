"""The board as text: the cube said by the players' names, as the side panel says it."""

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
    assert "cube 64 centre" in str(render_board(_after("31"), 0, names=names))


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
