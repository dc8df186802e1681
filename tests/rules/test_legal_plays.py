"""Legal plays: each case the rule texts spell out, with the exact set of plays worked out by hand.

`from_points(mine, theirs)`: each side counted from its own side; my point p is their point 25 - p.
"""

from companion.rules import Position, Roll


def notations(position: Position, d1: int, d2: int) -> set[str]:
    return {p.notation for p in position.legal_plays(d1, d2)}


def test_opening_31_has_sixteen_plays_and_the_point_making_one():
    plays = notations(Position.start(), 3, 1)
    assert len(plays) == 16 and "8/5 6/5" in plays


def test_doubles_play_four_times():
    plays = Position.start().legal_plays(6, 6)
    assert {p.dice_used for p in plays} == {4}
    assert "24/18(2) 13/7(2)" in {p.notation for p in plays}


def test_bar_checker_enters_first_and_only_on_an_open_point():
    # 002: on the bar with 6-4 and the opponent's 6-point made: enter with the 4, then play the 6
    p = Position.from_points({25: 1, 13: 14}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert notations(p, 6, 4) == {"bar/15", "bar/21 13/7"}


def test_dance_when_no_entry_point_is_open():
    p = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    plays = p.legal_plays(6, 5)
    assert len(plays) == 1 and plays[0].is_empty() and plays[0].position == p.swap()


def test_the_higher_die_when_either_can_be_played_but_not_both():
    # a lone runner on 20 (the rest stuck on the ace point, not all home); my 9 is held, so after 20/14 the 5
    # and after 20/15 the 6 are blocked: the 6 must be played
    p = Position.from_points({20: 1, 1: 14}, {16: 2, 1: 13})
    assert notations(p, 6, 5) == {"20/14"}


def test_the_lower_die_when_the_higher_cannot_be_played():
    p = Position.from_points({20: 1, 1: 14}, {16: 2, 11: 2, 1: 11})  # my 9 and my 14 held
    assert notations(p, 6, 5) == {"20/15"}


def test_bear_off_only_with_all_checkers_home():
    p = Position.from_points({7: 1, 6: 2, 1: 12}, {1: 15})
    assert notations(p, 6, 1) == {"7/off", "7/1 6/5"}


def test_a_larger_die_bears_off_from_the_highest_point():
    p = Position.from_points({4: 1, 2: 1}, {1: 15})
    assert notations(p, 6, 5) == {"4/off 2/off"}


def test_a_larger_die_may_not_bear_off_while_a_checker_stands_higher():
    p = Position.from_points({6: 1, 3: 1}, {1: 15})
    assert notations(p, 5, 4) == {"6/1 3/off", "6/2 3/off"}


def test_gammonlife_65_with_two_on_six_and_two_on_five():
    # 003: 6/off 6/1 is legal and avoids leaving two blots; so is 6/off 5/off
    p = Position.from_points({6: 2, 5: 2, 1: 11}, {23: 1, 1: 14})
    assert notations(p, 6, 5) == {"6/off 5/off", "6/1 6/off"}


def test_gammonlife_43_with_one_each_on_one_two_five_six():
    # 003: no checker comes off; the 4 and the 3 are played with the checkers on 5 and 6
    p = Position.from_points({6: 1, 5: 1, 2: 1, 1: 1}, {1: 15})
    assert notations(p, 4, 3) == {"6/2 5/2", "6/3 5/1"}


def test_gammonlife_52_bears_off_partway_through_the_roll():
    # 003: two on 1, two on 3, one on 6: 6/4 with the 2, then 4/off with the 5
    p = Position.from_points({6: 1, 3: 2, 1: 2}, {1: 15})
    assert notations(p, 5, 2) == {"6/off", "6/1 3/1"}


def test_a_hit_during_bear_off_stops_bearing_off_until_home_again():
    p = Position.from_points({25: 1, 6: 4, 5: 10}, {1: 2, 2: 2, 24: 11})
    plays = p.legal_plays(6, 5)
    assert plays and all(play.position.opponent[0] == 0 for play in plays)
    assert all(play.notation.startswith("bar/") for play in plays)


def test_hits_are_marked_and_the_blot_goes_to_the_bar():
    p = Position.from_points({8: 2, 6: 13}, {20: 1, 24: 14})  # their 20 is my 5
    plays = {pl.notation: pl for pl in p.legal_plays(3, 1)}
    hit = plays["8/5* 6/5"]
    assert hit.hits == 1 and hit.position.player[25] == 1


def test_plays_are_distinct_by_resulting_position():
    plays = Position.start().legal_plays(Roll(4, 4))
    assert len({p.position for p in plays}) == len(plays)


def test_plays_chain_into_the_opponents_turn():
    first = Position.start().legal_plays(3, 1)[0]
    assert first.position.pip_counts() == (167, 163)
    assert first.position.legal_plays(6, 5)
