"""Game flow, cube and scoring: opening roll, doubles, beavers, Jacoby, Crawford, results."""

import pytest

from companion.errors import IllegalActionError, RulesError
from companion.rules import EndKind, GameState, MatchState, OpeningRoll, Phase, Position


def test_opening_roll_ties_are_rerolled_and_the_higher_die_plays_both():
    game = GameState.new(MatchState.match_to(5))
    assert game.opening_roll(4, 4) == game  # a tie: nothing changes, roll again
    started = game.opening_roll(2, 6)
    assert started.turn == 1 and started.phase is Phase.PLAY and str(started.dice) == "62"
    with pytest.raises(RulesError, match="roll again"):
        OpeningRoll(3, 3).winner


def test_turns_alternate_and_a_roll_must_be_played_before_the_next():
    game = GameState.new().opening_roll(3, 1).play("8/5 6/5")
    assert game.turn == 1 and game.phase is Phase.ROLL
    with pytest.raises(IllegalActionError, match="no dice"):
        game.play("13/8")
    assert game.roll(6, 5).play("24/13").turn == 0


def test_illegal_play_is_refused_with_the_roll_named():
    with pytest.raises(RulesError, match="31"):
        GameState.new().opening_roll(3, 1).play("24/18")


def test_double_take_gives_the_cube_to_the_taker_who_alone_may_redouble():
    game = GameState.new(MatchState.match_to(7)).opening_roll(3, 1).play("8/5 6/5")
    doubled = game.double()
    assert doubled.phase is Phase.DOUBLED and doubled.turn == 0
    taken = doubled.take()
    assert taken.match.cube == 2 and taken.match.cube_owner == 0 and taken.turn == 1
    with pytest.raises(IllegalActionError, match="only the owner"):
        taken.double()  # player 1 doubled; the cube is now player 0's
    # the owner (player 0) may redouble on his turn
    rolled = taken.roll(6, 5)
    owners_turn = rolled.play(rolled.legal_plays()[0])
    assert owners_turn.turn == 0 and owners_turn.double().take().match.cube == 4


def test_a_pass_loses_the_cube_value_before_the_double():
    game = GameState.new(MatchState.money(jacoby=False)).opening_roll(3, 1).play("8/5 6/5")
    over = game.double().pass_double()
    assert over.end.winner == 1 and over.end.points == 1 and over.end.kind is EndKind.PASSED
    taken_twice = game.double().take().roll(3, 3)
    assert taken_twice.phase is Phase.PLAY


def test_cannot_double_after_rolling():
    game = GameState.new().opening_roll(3, 1)
    with pytest.raises(IllegalActionError, match="before rolling"):
        game.double()


def test_beaver_is_money_play_only_and_keeps_the_cube_with_the_beaverer():
    money = GameState.new(MatchState.money(beaver=True)).opening_roll(3, 1).play("8/5 6/5")
    beavered = money.double().beaver()
    assert beavered.match.cube == 4 and beavered.match.cube_owner == 0 and beavered.turn == 1
    match = GameState.new(MatchState.match_to(7)).opening_roll(3, 1).play("8/5 6/5")
    with pytest.raises(IllegalActionError, match="money play only"):
        match.double().beaver()
    with pytest.raises(RulesError, match="money play only"):
        MatchState(length=7, beaver=True)


def test_jacoby_counts_gammons_single_until_the_cube_is_turned():
    jacoby = MatchState.money(jacoby=True)
    assert jacoby.points_for(2) == 1 and jacoby.points_for(3) == 1
    from dataclasses import replace

    turned = replace(jacoby, cube=2, cube_owner=0)
    assert turned.points_for(2) == 4 and turned.points_for(3) == 6
    assert MatchState.money(jacoby=False).points_for(3) == 3
    with pytest.raises(RulesError, match="money play only"):
        MatchState(length=5, jacoby=True)


def test_gammon_and_backgammon_times_the_cube_in_match_play():
    match = MatchState(length=11, cube=4, cube_owner=1)
    assert [match.points_for(k) for k in (1, 2, 3)] == [4, 8, 12]


def test_crawford_game_follows_the_first_time_a_player_reaches_match_point():
    m = MatchState.match_to(5)
    m = m.after_game(0, 4)  # 4-0 in a 5-point match: the next game is the Crawford game
    assert m.crawford and not m.may_double(1) and not m.may_double(0)
    m = m.after_game(1, 2)  # the trailer wins the Crawford game: post-Crawford, the cube is live
    assert not m.crawford and m.post_crawford and m.may_double(1)
    m = m.after_game(1, 1)
    assert not m.crawford and m.score == (4, 3)


def test_no_crawford_without_the_rule_and_match_ends_at_length():
    m = MatchState.match_to(3, crawford_rule=False).after_game(0, 2)
    assert not m.crawford and m.may_double(1)
    done = m.after_game(0, 2)
    assert done.winner() == 0 and done.is_over() and not done.may_double(1)


def test_doubling_in_the_crawford_game_is_refused_with_the_reason():
    game = GameState.new(MatchState.match_to(5).after_game(0, 4)).opening_roll(3, 1).play("8/5 6/5")
    with pytest.raises(IllegalActionError, match="Crawford"):
        game.double()


def test_bearing_off_the_last_checker_ends_and_scores_the_game():
    position = Position.from_points({1: 1}, {20: 15})  # the opponent has borne off none, all in my home board
    game = GameState(MatchState(length=7, cube=2, cube_owner=0), position, Phase.PLAY, 0)
    from companion.rules import Roll

    over = GameState(game.match, position, Phase.ROLL, 0).roll(2, 1).play("1/off")
    assert over.phase is Phase.OVER and over.end.winner == 0
    assert over.end.kind is EndKind.BACKGAMMON and over.end.points == 6
    nxt = over.next_match_state()
    assert nxt.score == (6, 0) and nxt.cube == 1 and nxt.cube_owner is None
    assert Roll(2, 1) == Roll(1, 2)


def test_resignation_scores_the_conceded_result():
    game = GameState.new(MatchState.match_to(7)).opening_roll(3, 1)
    over = game.resign(0, 2)
    assert over.end.winner == 1 and over.end.points == 2 and over.end.kind is EndKind.RESIGNED
    with pytest.raises(IllegalActionError):
        over.resign(1, 1)


@pytest.mark.parametrize("kwargs, why", [
    ({"cube": 3}, "power of two"),
    ({"cube": 1, "cube_owner": 0}, "centred"),
    ({"length": 0, "crawford": True}, "money"),
    ({"length": 7, "crawford": True, "cube": 2, "cube_owner": 0}, "Crawford"),
    ({"length": -1}, "positive"),
])
def test_impossible_match_states_are_rejected(kwargs, why):
    with pytest.raises(RulesError, match=why):
        MatchState(**kwargs)
