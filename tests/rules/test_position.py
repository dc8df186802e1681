import pytest

from companion.errors import InvalidPositionError
from companion.rules import Position

START = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def test_start_matches_the_rule_text_set_up():
    # 004_...txt: 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, the opponent mirrored
    p = Position.start()
    assert p.player == START and p.opponent == START
    assert p.pip_counts() == (167, 167)
    assert p.position_id() == "4HPwATDgc/ABMA"


def test_swap_is_an_involution_and_exchanges_sides():
    p = Position.from_points({6: 10, 25: 1, 1: 4}, {6: 5, 8: 3, 13: 7})
    assert p.swap().swap() == p
    assert p.swap().player == p.opponent
    assert p.swap().pip_counts() == p.pip_counts()[::-1]


def test_equality_and_hashing_by_value():
    a = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert a == Position.start() and hash(a) == hash(Position.start())
    assert len({a, Position.start(), a.swap()}) == 1  # the start is symmetric


def test_positions_are_immutable():
    p = Position.start()
    with pytest.raises(AttributeError):
        p.player = START  # type: ignore[misc]


@pytest.mark.parametrize(
    "player, opponent, message",
    [
        ({6: 16}, {6: 15}, "16 checkers"),
        ({6: 14}, {6: 15}, None),  # one borne off: fine
        ({6: 15}, {19: 1}, "a point holds one colour only"),
        ({26: 1}, {6: 15}, "not a point"),
    ],
)
def test_validation(player, opponent, message):
    if message is None:
        Position.from_points(player, opponent)
        return
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_points(player, opponent)


def test_negative_and_wrong_length_are_rejected_with_reasons():
    bad = list(START)
    bad[6] = -1
    bad[0] = 6
    with pytest.raises(InvalidPositionError, match="holds -1"):
        Position(tuple(bad), START)
    with pytest.raises(InvalidPositionError, match="26 slots"):
        Position(START[:25], START)
    with pytest.raises(InvalidPositionError, match="both sides have borne off"):
        Position((15,) + (0,) * 25, (15,) + (0,) * 25)


def test_game_over_and_result_kinds():
    single = Position.from_points({}, {1: 14})  # loser has one off
    assert single.winner() == 0 and single.winner_result() == 1
    gammon = Position.from_points({}, {1: 15})
    assert gammon.winner_result() == 2
    backgammon = Position.from_points({}, {20: 1, 1: 14})  # a checker in the winner's home board
    assert backgammon.winner_result() == 3
    on_bar = Position.from_points({}, {25: 1, 1: 14})
    assert on_bar.winner_result() == 3
    assert Position.start().winner_result() is None


def test_text_rendering_shows_counts_and_pips():
    text = str(Position.from_points({6: 9, 5: 6}, {6: 5, 8: 3, 13: 5, 24: 2}))
    assert " 9 " in text and "pips" in text
