import pytest

from companion.errors import NotationError
from companion.rules import Position, Roll, parse_moves
from companion.rules.notation import resolve_play
from companion.rules.play import format_moves


@pytest.mark.parametrize(
    "text, moves",
    [
        ("13/8 24/22*", [(13, 8, False), (24, 22, True)]),
        ("bar/20", [(25, 20, False)]),
        ("25/20", [(25, 20, False)]),
        ("6/off", [(6, 0, False)]),
        ("6/0", [(6, 0, False)]),
        ("6/Off", [(6, 0, False)]),
        ("8/5(2)", [(8, 5, False), (8, 5, False)]),
        ("13/7*/6", [(13, 7, True), (7, 6, False)]),
        ("  Bar/22   ", [(25, 22, False)]),
        ("", []),
        ("Cannot Move", []),
        ("24-18 13-11", [(24, 18, False), (13, 11, False)]),
        ("bar-20* 6-off", [(25, 20, True), (6, 0, False)]),
        ("13-7*/6", [(13, 7, True), (7, 6, False)]),
    ],
)
def test_parse_variants(text, moves):
    assert parse_moves(text) == moves


@pytest.mark.parametrize(
    "text, why",
    [("13.8", "cannot read"), ("13--8", "FROM/TO"), ("8/13", "backwards"), ("27/20", "not a point"),
     ("13/8*x", "not a point"), ("off/3", "the other way"), ("13/", "FROM/TO")],
)
def test_unreadable_notation_says_why(text, why):
    with pytest.raises(NotationError, match=why):
        parse_moves(text)


def test_resolving_accepts_real_file_spellings():
    start = Position.start()
    assert start.play("24/20 24/20 20/16 20/16", 4, 4).notation == "24/16(2)"  # each die written out
    assert start.play("13/10 24/23", 1, 3).notation == "24/23 13/10"  # moves in either order
    assert start.play("24/22 24/22 13/11 13/11", 2, 2).notation == "24/22(2) 13/11(2)"


def test_unmarked_hits_are_found():
    p = Position.from_points({8: 2, 6: 13}, {20: 1, 24: 14})
    assert p.play("8/5 6/5", 3, 1).notation == "8/5* 6/5"


def test_a_hit_made_in_passing_may_be_left_out_but_a_hit_the_play_cannot_make_names_no_play():
    through_a_blot = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 18: 1, 24: 1})
    assert through_a_blot.play("13/1(2)", 6, 6).notation == through_a_blot.play("13/7*/1*(2)", 6, 6).notation
    past_a_blot = Position.from_points({24: 1, 6: 5, 8: 3, 13: 6}, {4: 1, 5: 2, 6: 4, 8: 3, 13: 5})
    with pytest.raises(NotationError, match="not a legal play"):
        past_a_blot.play("24/21*/14", 6, 4)  # 24/14 goes by 18 (his 20 is held) and leaves the blot on 21
    assert past_a_blot.play("24/14", 6, 4).notation == "24/14"


def test_illegal_and_impossible_plays_are_refused():
    start = Position.start()
    with pytest.raises(NotationError, match="not a legal play"):
        start.play("24/21 13/9", 3, 1)
    with pytest.raises(NotationError, match="no checker"):
        start.play("12/9 12/11", 3, 1)
    with pytest.raises(NotationError, match="can be played"):
        start.play("", 3, 1)


def test_more_checkers_moved_from_a_point_than_stand_there_is_said_so():
    """A new user's `24/21 24/19` with one checker left on 24 was told "no checker on the 24-point", though one is."""
    from companion.rules.notation import apply_moves

    one_back = Position.from_points({24: 1, 13: 6, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    with pytest.raises(NotationError, match="2 checkers moved from the 24-point, where 1 stands"):
        apply_moves(one_back, parse_moves("24/21 24/19"))
    with pytest.raises(NotationError, match="no checker on the 20-point"):
        apply_moves(one_back, parse_moves("20/15"))


@pytest.mark.parametrize("written, said", [
    ("13/9 6/5", "13/9 6/5"),  # legal or not, the board change in words
    ("13/8 13/9", "13/9 13/8"),
    ("6/off 6/off", "6/off(2)"),
    ("24/18 24/18 13/7 13/7", "24/18(2) 13/7(2)"),
])
def test_moves_between_says_what_was_played_from_the_two_boards(written, said):
    from companion.rules.notation import apply_moves, moves_between

    start = Position.start()
    mine, theirs = apply_moves(start, parse_moves(written))
    assert moves_between(start, Position(tuple(mine), tuple(theirs))) == said


@pytest.mark.parametrize("written, dice, said", [
    ("8/4 6/5", (4, 1), "8/4 6/5"),  # the same board as 8/5 6/4: the dice say which
    ("8/5 6/4", (3, 2), "8/5 6/4"),
    ("8/4 6/5", (), "8/5 6/4"),  # no dice: the farthest first
    ("13/9 6/5", (4, 1), "13/9 6/5"),
    ("13/7 8/7 6/5", (6, 1), "13/7 8/7 6/5"),  # three moves for two dice: the spare one as it falls
    ("13/7(2) 8/2(2)", (6, 6, 6, 6), "13/7(2) 8/2(2)"),  # doubles: four dice
    ("24/20 6/5 6/5 8/7 8/7 13/11 13/11", (4, 1), "24/20 13/11(2) 8/7(2) 6/5(2)"),  # past six: farthest first
])
def test_moves_between_pairs_moves_by_the_dice_where_it_can(written, dice, said):
    from companion.rules.notation import apply_moves, moves_between

    start = Position.start()
    mine, theirs = apply_moves(start, parse_moves(written))
    assert moves_between(start, Position(tuple(mine), tuple(theirs)), dice) == said


def test_moves_between_pairs_by_the_dice_off_the_board_from_the_bar_and_through_a_hit():
    from companion.rules.notation import apply_moves, moves_between

    nine = Position.from_points({9: 1, 6: 5, 13: 9}, {24: 2, 13: 13})
    mine, theirs = apply_moves(nine, parse_moves("9/7 6/5"))  # 9/5 6/7 fits a die, but moves a checker backwards
    assert moves_between(nine, Position(tuple(mine), tuple(theirs)), (5, 4)) == "9/7 6/5"
    home = Position.from_points({6: 2, 5: 2, 2: 1}, {24: 2, 13: 5})
    for written, dice, said in (("6/off 5/2", (6, 3), "6/off 5/2"), ("6/3 5/off", (6, 3), "6/3 5/off"),
                                ("6/off 2/off", (6, 2), "6/off 2/off")):  # a larger die bears off a checker
        mine, theirs = apply_moves(home, parse_moves(written))
        assert moves_between(home, Position(tuple(mine), tuple(theirs)), dice) == said
    barred = Position.from_points({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {5: 1, 13: 5, 8: 3, 6: 5, 24: 1})
    mine, theirs = apply_moves(barred, parse_moves("bar/20* 6/5"))
    assert moves_between(barred, Position(tuple(mine), tuple(theirs)), (5, 1)) == "bar/20* 6/5"
    mine, theirs = apply_moves(barred, parse_moves("bar/24 6/1*"))  # bar/21 6/4 would be another board
    assert moves_between(barred, Position(tuple(mine), tuple(theirs)), (1, 5)) == "bar/24 6/1*"


def test_moves_between_marks_a_hit_and_names_the_bar():
    from companion.rules.notation import apply_moves, moves_between

    before = Position.from_points({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {5: 1, 13: 5, 8: 3, 6: 5, 24: 1})
    mine, theirs = apply_moves(before, parse_moves("bar/20*"))
    assert moves_between(before, Position(tuple(mine), tuple(theirs))) == "bar/20*"
    assert moves_between(before, before) == ""
    blot = Position.from_points({13: 5, 8: 3, 6: 5, 24: 2}, {16: 1, 13: 4, 8: 3, 6: 5, 24: 2})  # his blot on my 9
    for written, said in (("13/9*/5", "13/9*/5"), ("13/9* 13/5", "13/9* 13/5")):
        mine, theirs = apply_moves(blot, parse_moves(written))
        assert moves_between(blot, Position(tuple(mine), tuple(theirs))) == said
    onto = Position.from_points({13: 5, 8: 3, 6: 5, 24: 2}, {20: 1, 13: 4, 8: 3, 6: 5, 24: 2})  # his blot on my 5
    mine, theirs = apply_moves(onto, parse_moves("13/5* 6/5"))
    assert moves_between(onto, Position(tuple(mine), tuple(theirs))) == "13/5* 6/5"  # starred once


def test_checkers_moving_the_same_way_are_counted_with_their_hit_marked_once():
    """Counted as GNU Backgammon counts them: the hit no longer splits a group (`22/16* 22/16(3)` was written), and a
    move on from a point goes with the checker that hit there (the order within a play stays this program's)."""
    assert format_moves([(22, 16, True), (22, 16, False), (22, 16, False), (22, 16, False)]) == "22/16*(4)"
    assert format_moves([(22, 16, True), (22, 16, False), (16, 10, False), (16, 10, False)]) == "22/16*/10(2)"
    assert format_moves([(22, 16, True), (22, 16, False), (16, 10, False), (10, 4, False)]) == "22/16 22/16*/4"
    # a checker that left a point before another reached it: one checker's steps, as gnubg writes the play
    assert format_moves([(16, 10, False), (20, 16, False)]) == "20/10"
    assert format_moves([(6, 3, True), (9, 6, False), (13, 9, False)]) == "13/3*"
    assert format_moves([(16, 10, False), (20, 16, False), (24, 20, False)]) == "24/10"
    assert format_moves([(23, 21, False), (23, 21, False), (4, 2, True), (4, 2, False)]) == "23/21(2) 4/2*(2)"
    assert format_moves([(25, 19, False), (25, 19, False), (7, 1, True), (7, 1, False)]) == "bar/19(2) 7/1*(2)"
    # and they read back as the same play
    position = Position.from_xgid("XGID=--DdCBC-BA---------b-bbcb-:1:-1:-1:66:0:0:0:3:10")
    for play in position.legal_plays(Roll(6, 6)):
        assert resolve_play(position, Roll(6, 6), play.notation) == play
