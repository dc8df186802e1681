"""The referee's game flow: opening roll, set-up, re-rolls, the correction window, the cube, games and the match."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.referee import (
    BoardReading,
    Command,
    CorrectionRequested,
    CubePlace,
    CubeReading,
    DiceReading,
    DoubleOffered,
    GameOver,
    IllegalPlay,
    MatchOver,
    NeedsAttention,
    OpeningRoll,
    PlayMade,
    PlayStood,
    Referee,
    Reroll,
    SlotReading,
    UserCommand,
)
from companion.rules import EndKind, MatchState, Phase, Position, Roll
from tests.referee.helpers import finish, kinds, moved, reading_of, referee_at

START = Position.start()


def cmd(command: Command, player: int | None = None, **kw) -> UserCommand:
    return UserCommand(command, player, **kw)


def test_the_opening_roll_rerolls_ties_and_gives_both_dice_to_the_higher():
    ref = Referee(MatchState.match_to(3))
    assert kinds(ref.observe(DiceReading((4, 4)))) == ["GameStarted", "OpeningRoll"]
    assert ref.events[-1] == OpeningRoll((4, 4), None)
    assert ref.observe(DiceReading(())) == []
    events = ref.observe(DiceReading((2, 5)))
    assert events == [OpeningRoll((2, 5), 1)]
    assert ref.game.phase is Phase.PLAY and ref.game.turn == 1 and str(ref.game.dice) == "52"


def test_a_wrong_starting_set_up_needs_attention_once():
    ref = Referee()
    ref.observe(reading_of(START))
    assert not [e for e in ref.events if isinstance(e, NeedsAttention)]
    wrong = reading_of(START).with_point(12, SlotReading(0, 4))  # player 0's 13-point short of one
    events = ref.observe(wrong)
    assert isinstance(events[0], NeedsAttention) and "player 0 has 4 on his 13-point, expected 5" in events[0].what
    assert ref.observe(wrong.with_point(0, SlotReading(1, 2))) == []  # the same complaint, not repeated
    assert ref.observe(reading_of(START)) == []


def test_a_cocked_die_means_roll_again_and_no_play_is_judged():
    ref = referee_at(START, (3, 1))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    ref.observe(DiceReading(()))
    events = ref.observe(DiceReading.cocked("a die rests on a checker", roller=1))
    assert events == [Reroll("a die rests on a checker")]
    assert ref.game.phase is Phase.ROLL and ref.game.turn == 1
    assert kinds(ref.observe(DiceReading((6, 4), roller=1))) == ["Rolled"]


def test_a_play_seen_without_its_roll_takes_the_only_roll_it_fits():
    """A missed throw (the camera looked away) does not leave the referee a turn behind the table: a play only one
    roll allows is recorded with that roll and says so; a play two rolls allow, or none, is asked about."""
    ref = referee_at(START, (3, 1))
    finish(ref, moved(START, "8/5 6/5"))
    before = ref.game.position  # player 1 on roll; his throw is not seen
    events = ref.observe(reading_of(moved(before, "24/23 13/11"), 1))
    assert kinds(events) == ["Rolled", "PlayMade"]
    assert events[0].unseen and sorted((events[0].roll.die1, events[0].roll.die2)) == [1, 2]
    assert "not seen" in events[0].text() and events[1].notation == "24/23 13/11"
    ref.observe(DiceReading(()))
    assert ref.game.turn == 0 and ref.game.phase is Phase.ROLL

    ref = referee_at(START, (3, 1))
    finish(ref, moved(START, "8/5 6/5"))
    before = ref.game.position
    events = ref.observe(reading_of(moved(before, "24/18"), 1))  # 51 (24/23/18) or 42 (24/20/18)
    assert kinds(events) == ["NeedsAttention"] and "no roll was seen" in events[0].text()
    assert kinds(ref.observe(reading_of(moved(before, "24/22"), 1))) == []  # no roll makes it: still asking
    assert ref.game.turn == 1 and ref.game.phase is Phase.ROLL


ON_BAR = Position.from_points({25: 1, 6: 5, 8: 2, 13: 5, 24: 2}, {3: 2, 6: 5, 8: 3, 13: 3, 24: 2})
"""Player 0 on the bar against his opponent's 3- and 6-points: 63 and 66 and 33 dance."""


def test_a_void_roll_the_table_plays_anyway_stands_as_played():
    """A roll called void (by a misjudged die, say) that its player plays anyway is recorded as played, and says
    so: refusing it would leave the referee a turn behind the table."""
    ref = referee_at(START, (3, 1))
    finish(ref, moved(START, "8/5 6/5"))
    before = ref.game.position  # player 1 on roll
    events = ref.observe(DiceReading((4, 2), False, "a die rests on a checker", halves=(1, 1)))
    assert events == [Reroll("a die rests on a checker")]
    events = ref.observe(reading_of(moved(before, "13/11 13/9"), 1))
    assert kinds(events) == ["Rolled", "PlayMade"]
    assert events[0].void_reason == "a die rests on a checker" and "called void" in events[0].text()
    assert events[1].notation == "13/11 13/9"
    ref.observe(DiceReading(()))
    assert ref.game.turn == 0 and ref.game.phase is Phase.ROLL


def test_a_void_dance_the_table_lets_stand_gives_the_opponent_his_roll():
    ref = Referee(MatchState.money())
    ref.observe(UserCommand(Command.SET_POSITION, player=0, position=ON_BAR))
    ref.observe(reading_of(ON_BAR))
    assert ref.observe(DiceReading((3, 6), False, "a die rests on a checker", halves=(0, 0))) == \
        [Reroll("a die rests on a checker")]
    assert ref.observe(DiceReading(())) == []  # picked up, not thrown again
    events = ref.observe(DiceReading((5, 2), halves=(1, 1)))  # the opponent throws: the dance stood
    assert kinds(events) == ["Rolled", "PlayMade", "Rolled"]
    assert events[0].player == 0 and events[0].void_reason and events[1].play.is_empty()
    assert events[2].player == 1 and ref.game.turn == 1 and ref.game.phase is Phase.PLAY


def test_a_void_roll_he_could_move_with_is_not_taken_for_a_dance():
    ref = Referee(MatchState.money())
    ref.observe(UserCommand(Command.SET_POSITION, player=0, position=ON_BAR))
    ref.observe(reading_of(ON_BAR))
    ref.observe(DiceReading((4, 6), False, "a die rests on a checker", halves=(0, 0)))  # 4 enters
    ref.observe(DiceReading(()))
    events = ref.observe(DiceReading((5, 2), halves=(1, 1)))
    assert kinds(events) == ["Reroll"] and ref.game.turn == 0 and ref.game.phase is Phase.ROLL


def test_a_legal_play_is_announced_at_once_and_may_be_changed_until_the_dice_are_picked_up():
    ref = referee_at(START, (6, 5))
    events = ref.observe(reading_of(moved(START, "24/13")))
    assert isinstance(events[0], PlayMade) and events[0].notation == "24/13"
    events = ref.observe(reading_of(moved(START, "13/7 13/8")))
    assert isinstance(events[0], PlayMade) and events[0].revised and events[0].notation == "13/8 13/7"
    ref.observe(DiceReading(()))
    assert ref.observe(reading_of(moved(START, "24/13"))) != []  # too late: the board no longer fits the game


def test_a_play_in_progress_gives_no_verdict():
    ref = referee_at(START, (6, 5))
    assert ref.observe(reading_of(moved(START, "13/7"))) == []  # one checker moved so far
    assert kinds(ref.observe(reading_of(moved(START, "13/7 13/8")))) == ["PlayMade"]


def test_a_correction_requested_makes_the_player_play_again():
    ref = referee_at(START, (6, 4))
    events = finish(ref, moved(START, "13/9 13/8"))
    assert kinds(events) == ["IllegalPlay"]
    assert kinds(ref.observe(cmd(Command.REQUEST_CORRECTION, 1))) == ["CorrectionRequested"]
    assert ref.game.phase is Phase.PLAY and ref.game.position == START
    events = ref.observe(reading_of(moved(START, "24/14")))
    assert isinstance(events[0], PlayMade) and events[0].notation == "24/14"


def test_restoring_the_board_after_an_illegal_play_is_a_correction():
    ref = referee_at(START, (6, 4))
    finish(ref, moved(START, "13/9 13/8"))
    assert ref.observe(reading_of(START)) == [CorrectionRequested(0)]
    assert kinds(ref.observe(reading_of(moved(START, "8/2 6/2")))) == ["PlayMade"]


def test_an_accepted_illegal_play_stands():
    ref = referee_at(START, (6, 4))
    after = moved(START, "13/9 13/8")
    finish(ref, after)
    events = ref.observe(cmd(Command.ACCEPT_PLAY, 1))
    assert kinds(events) == ["PlayStood"] and events[0].after == after
    assert ref.game.phase is Phase.ROLL and ref.game.turn == 1 and ref.game.position == after.swap()


def test_the_opponents_roll_makes_an_illegal_play_stand():
    ref = referee_at(START, (6, 4))
    finish(ref, moved(START, "13/9 13/8"))
    events = ref.observe(DiceReading((3, 1), roller=1))
    assert kinds(events) == ["PlayStood", "Rolled"]
    assert kinds(ref.observe(cmd(Command.REQUEST_CORRECTION, 1))) == ["Refused"]  # the window has closed


def test_the_opponent_rolling_before_the_dice_are_picked_up_finishes_the_play():
    ref = referee_at(START, (6, 4))
    ref.observe(reading_of(moved(START, "13/9 13/8")))
    assert kinds(ref.observe(DiceReading((3, 1), roller=1))) == ["IllegalPlay", "PlayStood", "Rolled"]


def test_doubling_rules_crawford_and_the_owner():
    ref = Referee(MatchState.match_to(5))
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    assert kinds(ref.observe(cmd(Command.DOUBLE, 1))) == ["DoubleOffered"]  # finishes player 0's turn too
    assert kinds(ref.observe(cmd(Command.TAKE))) == ["Taken"]
    assert ref.match.cube == 2 and ref.match.cube_owner == 0
    events = ref.observe(cmd(Command.DOUBLE, 1))  # player 1 rolls next, but player 0 owns the cube
    assert kinds(events) == ["Refused"] and "owner" in events[0].reason
    ref.observe(DiceReading((6, 4), roller=1))
    ref.observe(reading_of(moved(moved(START, "8/5 6/5").swap(), "24/14"), 1))
    assert ref.observe(cmd(Command.DOUBLE, 0)) == [DoubleOffered(0, 4)]
    events = ref.observe(cmd(Command.PASS))
    assert kinds(events) == ["Passed", "GameOver", "GameStarted"]
    assert events[1] == GameOver(0, 2, EndKind.PASSED, (2, 0))  # the cube was at 2 before the redouble


def test_no_double_in_the_crawford_game_and_the_match_ends():
    ref = Referee(MatchState.match_to(2))
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    ref.observe(cmd(Command.DOUBLE, 1))
    events = ref.observe(cmd(Command.PASS))  # player 1 wins 1: 1-away, the next game is the Crawford game
    assert events[-1].crawford
    ref.observe(DiceReading(()))
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    events = ref.observe(cmd(Command.DOUBLE, 1))
    assert kinds(events) == ["Refused"] and "Crawford" in events[0].reason
    events = ref.observe(cmd(Command.RESIGN, 0))
    assert kinds(events) == ["Resigned", "GameOver", "MatchOver"]
    assert events[-1] == MatchOver(1, (0, 2))
    assert events[-1].text(("Ann", "Bob")) == "Bob wins the match 2-0"  # the winner's score first ("4-5" read odd)
    assert kinds(ref.observe(DiceReading((5, 2)))) == []  # nothing happens after the match


def test_beaver_and_jacoby_in_money_play():
    ref = Referee(MatchState.money())
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    ref.observe(cmd(Command.DOUBLE, 1))
    assert kinds(ref.observe(cmd(Command.BEAVER, 0))) == ["Beavered"]
    assert ref.match.cube == 4 and ref.match.cube_owner == 0
    ref2 = Referee(MatchState.money())
    ref2.observe(DiceReading((3, 1)))
    events = ref2.observe(cmd(Command.RESIGN, 1, value=2))  # a gammon with the cube at 1: single under Jacoby
    assert [e for e in events if isinstance(e, GameOver)][0].points == 1


def test_a_beaver_in_match_play_is_refused():
    ref = Referee(MatchState.match_to(5))
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    ref.observe(cmd(Command.DOUBLE, 1))
    assert kinds(ref.observe(cmd(Command.BEAVER, 0))) == ["Refused"]


def test_the_cube_seen_turned_and_pushed_across_is_a_double():
    ref = Referee(MatchState.match_to(5))
    ref.observe(DiceReading((3, 1)))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    ref.observe(DiceReading(()))
    events = ref.observe(CubeReading(2, CubePlace.OFFERED))
    assert events == [DoubleOffered(1, 2)]
    assert kinds(ref.observe(CubeReading(2, CubePlace.PLAYER0))) == ["Taken"]
    events = ref.observe(CubeReading(8, CubePlace.PLAYER1))
    assert isinstance(events[0], NeedsAttention) and "the cube shows 8" in events[0].what


def test_a_game_won_by_bearing_off_scores_gammons():
    position = Position.from_points({1: 1}, {1: 15})  # the opponent has borne off nothing: a gammon
    ref = referee_at(position, (6, 5), match=MatchState.match_to(7))
    events = ref.observe(reading_of(moved(position, "1/off")))
    assert kinds(events) == ["PlayMade", "GameOver", "GameStarted"]
    assert events[1] == GameOver(0, 2, EndKind.GAMMON, (2, 0))


def test_dancing_is_announced_with_the_roll():
    position = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    ref = Referee()
    ref.observe(cmd(Command.SET_POSITION, 0, position=position))
    events = ref.observe(DiceReading((6, 6), roller=0))
    assert kinds(events) == ["Rolled", "PlayMade"] and events[1].play.is_empty()


def test_undo_steps_back():
    ref = referee_at(START, (6, 5))
    ref.observe(reading_of(moved(START, "24/13")))
    assert ref.game.phase is Phase.ROLL
    assert kinds(ref.observe(cmd(Command.UNDO))) == ["Undone"]
    assert ref.game.phase is Phase.PLAY and ref.game.position == START


def test_the_same_dice_lying_on_the_board_are_not_a_new_roll():
    ref = referee_at(START, (3, 1))
    ref.observe(reading_of(moved(START, "8/5 6/5")))
    assert ref.observe(DiceReading((1, 3))) == []  # still player 0's dice
    assert ref.observe(DiceReading(())) == []
    assert kinds(ref.observe(DiceReading((3, 1)))) == ["Rolled"]  # player 1 threw the same numbers


def test_a_dice_cup_tells_rolls_apart_by_sequence():
    ref = Referee()
    ref.observe(DiceReading((5, 2), sequence=1))
    ref.observe(reading_of(moved(START, "13/8 13/11")))
    assert kinds(ref.observe(DiceReading((5, 2), sequence=1))) == []
    assert kinds(ref.observe(DiceReading((5, 2), sequence=2))) == ["Rolled"]


def test_refused_commands_say_why():
    ref = referee_at(START, (6, 5))
    for command in (Command.TAKE, Command.ACCEPT_PLAY, Command.REQUEST_CORRECTION):
        events = ref.observe(cmd(command))
        assert kinds(events) == ["Refused"] and events[0].reason


def test_every_event_can_be_said_in_words():
    ref = referee_at(START, (6, 4))
    finish(ref, moved(START, "13/9 13/8"))
    ref.observe(cmd(Command.ACCEPT_PLAY))
    for event in ref.events:
        assert str(event) and "Player 0" not in event.text(("Alice", "Bob"))
    illegal = next(e for e in ref.events if isinstance(e, IllegalPlay))
    assert "Bob may ask for a correction" in illegal.text(("Alice", "Bob"))
    assert isinstance(ref.events[-1], PlayStood)


def test_a_tall_stack_read_as_at_least_five_is_enough():
    position = Position.from_points({6: 7, 8: 3, 13: 3, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    ref = referee_at(position, (2, 1))
    after = moved(position, "8/6 8/7")  # the 6-point now holds 8
    reading = reading_of(after).with_point(5, SlotReading(0, 7, confidence=0.95, low=5, high=15))
    events = ref.observe(reading)
    assert isinstance(events[0], PlayMade) and events[0].notation == "8/7 8/6"


def test_the_board_read_as_a_whole_new_reading_each_time_is_not_repeated():
    ref = referee_at(START, (6, 5))
    reading = reading_of(moved(START, "13/7"))
    assert ref.observe(reading) == [] and ref.observe(BoardReading(reading.points, reading.bar, reading.off)) == []


def test_a_whole_position_read_unsurely_where_it_leaves_the_legal_plays_is_not_called_illegal():
    """A camera that took one checker for another must not make the referee accuse a player: the play is judged
    illegal only where the reading is sure of every slot that differs from the nearest legal play."""
    after = moved(START, "24/15")  # no 6-4 plays this: as if the camera read 24/14 one point off
    unsure = reading_of(after).with_point(14, SlotReading(0, 1, confidence=0.5))  # the 15-point, unsure
    ref = referee_at(START, (6, 4))
    events = ref.observe(unsure) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "cannot be read surely enough" in events[0].what
    ref = referee_at(START, (6, 4))
    assert kinds(finish(ref, after)) == ["IllegalPlay"]  # read surely: illegal, as before


def test_a_reading_the_camera_mended_to_fifteen_a_side_is_asked_about_never_accused():
    """The reader made each set fifteen by guessing a checker somewhere: a sure misreading elsewhere, which unmended
    was "not a whole position", must not now become an accusation."""
    after = moved(START, "24/15")  # no 6-4 plays this
    ref = referee_at(START, (6, 4))
    events = ref.observe(replace(reading_of(after), mended=True)) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "had to guess a checker" in events[0].what
    assert "24/14" in events[0].what  # the nearest legal play, offered
    ref = referee_at(START, (6, 4))
    assert kinds(finish(ref, after)) == ["IllegalPlay"]  # the same reading as seen: illegal, as before
    # a legal play is still identified on a mended reading
    ref = referee_at(START, (6, 4))
    events = ref.observe(replace(reading_of(moved(START, "24/14")), mended=True)) + ref.observe(DiceReading(()))
    assert "PlayMade" in kinds(events) and "IllegalPlay" not in kinds(events)


def test_an_unsure_tray_that_makes_a_misread_board_whole_carries_no_accusation():
    """The 6-point read surely as 4 (a checker under a hand), and the tray read, unsurely, as holding that checker:
    the position is whole only by the tray, so the referee waits; the same tray read surely is evidence."""
    ref = referee_at(START, (6, 4))
    seen = BoardReading.from_position(moved(START, "24/14"), 0).with_point(5, SlotReading(0, 4))
    unsure = replace(seen, off=(SlotReading(0, 1, 0.5, 0, 15), seen.off[1]))
    events = ref.observe(unsure) + ref.observe(DiceReading(()))
    assert "IllegalPlay" not in kinds(events) and kinds(events) == ["NeedsAttention"]
    ref = referee_at(START, (6, 4))
    events = ref.observe(replace(seen, off=(SlotReading(0, 1), seen.off[1]))) + ref.observe(DiceReading(()))
    assert "IllegalPlay" in kinds(events)


def test_checkers_unseen_with_the_trays_unseen_are_asked_about_unless_a_legal_play_bears_them_off():
    """Trays unseen, a reading counts every checker it does not see as borne off. A checker under a hand (the
    6-point read as 4, surely) is then no bear-off a 6-4 from the start allows, and past the roll's pips: asked
    about, never accused; nor is an opponent's checker gone missing. A bear-off read so is a play, and an illegal
    one within the roll's pips (a checker still outside home) is still called."""
    missing = BoardReading.from_position(moved(START, "24/14"), 0, trays=False).with_point(5, SlotReading(0, 4))
    ref = referee_at(START, (6, 4))
    events = ref.observe(missing) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "out of view" in events[0].what and "24/14" in events[0].what
    theirs_missing = BoardReading.from_position(moved(START, "24/14"), 0, trays=False).with_point(
        18, SlotReading(1, 4))  # the opponent's 6-point, a checker under a hand
    ref = referee_at(START, (6, 4))
    events = ref.observe(theirs_missing) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "out of view" in events[0].what
    home = Position.from_points({1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2}, {1: 5, 2: 5, 3: 5})
    ref = referee_at(home, (6, 5))
    events = ref.observe(BoardReading.from_position(moved(home, "6/off 5/off"), 0, trays=False))
    assert kinds(events) == ["PlayMade"] and events[0].notation == "6/off 5/off"
    # bearing off with a checker still outside home, within the roll's pips: an illegal play, trays seen or not
    not_home = Position.from_points({8: 1, 1: 2, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2}, {1: 5, 2: 5, 3: 5})
    for trays in (True, False):
        ref = referee_at(not_home, (5, 3))
        after = BoardReading.from_position(moved(not_home, "5/off 3/off"), 0, trays=trays)
        assert kinds(ref.observe(after) + ref.observe(DiceReading(()))) == ["IllegalPlay"], trays


def test_a_reading_that_moves_the_opponents_checkers_is_asked_about_but_an_illegal_hit_is_accused():
    """The opponent does not move in the mover's turn: a whole reading, read surely, in which his checkers stand
    elsewhere than before other than hit (a stack of each set surely taken for the other's: the held-out draw's
    one accusation) is a misreading. Where naming those stacks as the rules force them shows a legal play, that is
    the play; where it shows none, the referee asks. A checker he lost to an illegal hit, sent to the bar, is
    called."""
    swapped = BoardReading.from_position(moved(START, "24/14"), 0, trays=False)
    swapped = swapped.with_point(7, SlotReading(1, 3)).with_point(16, SlotReading(0, 3))  # both 8-points, swapped
    ref = referee_at(START, (6, 4))
    events = ref.observe(swapped) + ref.observe(DiceReading(()))
    assert kinds(events) == ["PlayMade"] and events[0].play.position.swap() == moved(START, "24/14")
    swapped = BoardReading.from_position(moved(START, "24/15"), 0, trays=False)  # 9 pips: no play of 6-4
    swapped = swapped.with_point(7, SlotReading(1, 3)).with_point(16, SlotReading(0, 3))
    ref = referee_at(START, (6, 4))
    events = ref.observe(swapped) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "opponent's checkers moved" in events[0].what
    blot = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 4, 7: 1, 8: 3, 13: 5, 24: 2})
    ref = referee_at(blot, (5, 2))
    events = ref.observe(reading_of(moved(blot, "24/18*"))) + ref.observe(DiceReading(()))  # a 6, rolled 5-2
    assert kinds(events) == ["IllegalPlay"]


def test_a_reading_unsure_where_it_differs_from_a_legal_play_only_in_which_set_stands_is_asked_about():
    """Two blots read each as the other set, one of them unsurely (session 35's fresh draw: the hitter's checker and
    the opponent's blot in the hitter's home board, at 0.5 and 0.98): every point holds as many checkers as after
    a legal play that is not among the nearest by checkers out of place, and the referee asks, offering it, where
    it called the play illegal before. Read surely, the same board is an illegal play (the other blot hit, a 7
    with a 4-3), and is called; so is a play whose stacks no legal play leaves."""
    before = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 20: 1, 24: 1})
    legal = moved(before, "24/20 8/5*")
    misread = reading_of(legal).with_point(4, SlotReading(1, 1, confidence=0.5)).with_point(0, SlotReading(0, 1))
    ref = referee_at(before, (4, 3))
    events = ref.observe(misread) + ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and "which set stands" in events[0].what
    assert [p.notation for p in events[0].candidates] == ["24/20 8/5*"]
    ref = referee_at(before, (4, 3))
    assert kinds(finish(ref, moved(before, "24/20 8/1*"))) == ["IllegalPlay"]  # the same board, read surely
    ref = referee_at(before, (4, 3))
    assert kinds(finish(ref, moved(before, "24/20 8/4"))) == ["IllegalPlay"]  # two 4s, rolled 4-3
    # the same misread of a player 1's play
    ref = referee_at(before, (4, 3), mover=1)
    events = ref.observe(reading_of(legal, 1).with_point(19, SlotReading(0, 1, confidence=0.5))
                         .with_point(23, SlotReading(1, 1)))
    events += ref.observe(DiceReading(()))
    assert kinds(events) == ["NeedsAttention"] and [p.notation for p in events[0].candidates] == ["24/20 8/5*"]


def test_only_the_slots_that_differ_from_the_nearest_legal_play_need_to_be_sure():
    """A reading unsure only where it agrees with the nearest legal play (the mover's own 24-point, seen right but
    unsurely; or an empty bar whose range reaches one) is still judged: the play is illegal. Whose side each slot
    is, is the mover's: player 1 moving is judged alike."""
    for mover in (0, 1):
        after = moved(START, "24/15")
        sure = reading_of(after, mover)
        own_24 = 23 if mover == 0 else 0  # the mover's 24-point, in player 0's numbering
        unsure_where_right = sure.with_point(own_24, replace(sure.points[own_24], confidence=0.5))
        ref = referee_at(START, (6, 4), mover)
        events = ref.observe(unsure_where_right) + ref.observe(DiceReading(()))
        assert kinds(events) == ["IllegalPlay"], mover
        bar = list(unsure_where_right.bar)
        bar[1 - mover] = SlotReading(1 - mover, 0, confidence=0.5, low=0, high=1)  # best guess 0: empty
        ref = referee_at(START, (6, 4), mover)
        events = ref.observe(replace(unsure_where_right, bar=tuple(bar))) + ref.observe(DiceReading(()))
        assert kinds(events) == ["IllegalPlay"], mover


def test_a_throw_while_the_play_cannot_be_judged_waits_for_it_and_counts():
    """The opponent throws while the board is read too unsurely to judge the mover's play: the referee asks, and
    the throw is held, not lost; a clearer reading of a legal play then makes the play and the throw together."""
    unsure = reading_of(moved(START, "24/15")).with_point(14, SlotReading(0, 1, confidence=0.5))
    ref = referee_at(START, (6, 4))
    ref.observe(unsure)
    events = ref.observe(DiceReading((3, 1), roller=1))
    assert kinds(events) == ["NeedsAttention"] and ref.game.phase is Phase.PLAY
    events = ref.observe(reading_of(moved(START, "24/14")))
    assert kinds(events) == ["PlayMade", "Rolled"] and events[0].notation == "24/14"
    assert ref.game.turn == 1 and str(ref.game.dice) == "31"
    assert ref.observe(DiceReading((3, 1), roller=1)) == []  # the same dice, still lying there: no new throw


def test_a_play_typed_while_a_throw_is_held_takes_the_throw_and_accuses_nobody():
    """A board that is no whole position (a checker out of view, read surely), the opponent's throw held: the play
    typed from the question's choices is made, the held throw counts, and the opponent's turn is not ended."""
    from companion.referee.typed import observations_from_text

    missing = reading_of(moved(START, "24/14")).with_point(5, SlotReading(0, 4))  # a checker of the 6-point unseen
    ref = referee_at(START, (6, 4))
    ref.observe(missing)
    events = ref.observe(DiceReading((3, 1), roller=1))
    assert kinds(events) == ["NeedsAttention"] and "not a whole position" in events[0].what
    assert "24/14" in events[0].what and ref.state.held_roll is not None
    events = []
    for observation in observations_from_text("24/14", ref.game, roll_held=ref.state.held_roll is not None):
        events += ref.observe(observation)
    assert kinds(events) == ["PlayMade", "Rolled"] and ref.game.turn == 1 and ref.game.phase is Phase.PLAY
    # without the flag the typed play's "dice picked up" would have ended the opponent's turn unplayed
    typed = observations_from_text("24/14", referee_at(START, (6, 4)).game)
    assert [type(o).__name__ for o in typed] == ["BoardReading", "DiceReading"]


def test_a_position_set_by_hand_voids_a_held_throw():
    ref = referee_at(START, (6, 4))
    ref.observe(reading_of(moved(START, "24/14")).with_point(5, SlotReading(0, 4)))
    ref.observe(DiceReading((3, 1), roller=1))
    assert ref.state.held_roll is not None
    ref.observe(UserCommand(Command.SET_POSITION, player=1, position=moved(START, "24/14").swap()))
    assert ref.state.held_roll is None


DANCES_ON_33 = Position.from_points({25: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {3: 2, 8: 3, 9: 3, 13: 5, 24: 2})
"""Player 0 on the bar against his opponent's 3-, 8-, 9-, 13- and 24-points: only 33 has no legal play."""


def test_a_set_misread_where_no_roll_was_seen_is_asked_about_not_taken_for_a_dance():
    """The rules name a misread set only where the dice are known: with no roll seen (or a void one), renaming must
    not choose the dice, nor make the board before the play a "dance" of the one roll that has none (the review
    found both: a wrong roll taken, and a crash judging a play after a dance)."""
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    assert [r for r in rolls if all(p.is_empty() for p in DANCES_ON_33.legal_plays(Roll(*r)))] == [(3, 3)]
    misread = reading_of(DANCES_ON_33).with_point(7, SlotReading(1, 3))  # his 8-point read as the opponent's
    ref = Referee(MatchState.money())
    ref.observe(UserCommand(Command.SET_POSITION, player=0, position=DANCES_ON_33))
    events = ref.observe(misread)
    assert kinds(events) == ["NeedsAttention"] and "no roll was seen" in events[0].what
    ref = Referee(MatchState.money())
    ref.observe(UserCommand(Command.SET_POSITION, player=0, position=DANCES_ON_33))
    ref.observe(reading_of(DANCES_ON_33))
    ref.observe(DiceReading((3, 3), False, "a die rests on a checker", halves=(0, 0)))
    events = ref.observe(misread)
    assert "PlayMade" not in kinds(events) and ref.game.turn == 0


def test_a_set_misread_on_a_board_that_did_not_move_is_no_play():
    """Nothing moved, a hand over the points a play would change and one stack misread: renamed, the reading still
    fits the board before the play, so no play is taken from it (the review found 24/14 taken)."""
    misread = reading_of(START).with_point(7, SlotReading(1, 3))
    for index in (13, 23):  # the 14- and 24-points, under a hand: unsure
        misread = misread.with_point(index, replace(misread.points[index], confidence=0.3))
    ref = referee_at(START, (6, 4))
    assert "PlayMade" not in kinds(ref.observe(misread))


def test_a_set_misread_after_the_play_was_taken_changes_nothing():
    """After a play is announced, a reading of the same board with a stack misread where the rules say whose it is
    neither revises nor withdraws the play."""
    ref = referee_at(START, (6, 4))
    assert kinds(ref.observe(reading_of(moved(START, "24/14")))) == ["PlayMade"]
    misread = reading_of(moved(START, "24/14")).with_point(7, SlotReading(1, 3))
    assert ref.observe(misread) == []
    assert kinds(ref.observe(DiceReading(()))) == []
    assert ref.game.turn == 1


HITS_IN_PASSING_ON_66 = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 18: 1, 24: 1})
"""Player 0 to play 66 from 13 with his opponent's blots on his 7- and 1-points (the opponent's 18 and 24)."""


@pytest.mark.parametrize("typed", ["13/1*(2)", "13/1(2)", "13/1* 13/1", "13/7*/1* 13/1", "13/7*/1*(2)"])
def test_a_typed_play_may_leave_out_a_hit_in_passing_as_records_do(typed):
    """A new user's `13/1*(2)` was refused as "not a legal play of 66" with the same play offered as the legal one:
    the typed path moved the checkers without the dice, so the blot on 7 was never hit."""
    from companion.referee.typed import observations_from_text

    ref = referee_at(HITS_IN_PASSING_ON_66, (6, 6))
    events = []
    for observation in observations_from_text(typed, ref.game):
        events += ref.observe(observation)
    made = [e for e in events if kinds([e]) == ["PlayMade"]]
    assert len(made) == 1 and made[0].play.position == HITS_IN_PASSING_ON_66.play("13/7*/1* 13/1", 6, 6).position


def test_a_typed_play_that_no_legal_play_matches_is_still_refused_with_the_nearest():
    from companion.referee.typed import TypedInputError, observations_from_text

    ref = referee_at(HITS_IN_PASSING_ON_66, (6, 6))
    with pytest.raises(TypedInputError, match="not a legal play of 66"):
        observations_from_text("13/7 13/7", ref.game)  # two of the four sixes left unplayed


def test_a_typed_play_that_leaves_a_checker_on_the_bar_says_it_enters_first():
    """A club organiser's `13/10(4)` for 33 with a checker on the bar was told only "4 checkers moved from the
    13-point, where 3 stand"."""
    from companion.referee.typed import TypedInputError, observations_from_text

    start = Position.start()
    mine = list(start.player)
    mine[24], mine[25] = 1, 1  # one of the back checkers hit
    mine[13], mine[8] = 3, 5
    ref = referee_at(Position(tuple(mine), start.opponent), (3, 3))
    with pytest.raises(TypedInputError, match=r"the checker on the bar enters first, before any other moves \(and "
                                              r"4 checkers moved from the 13-point, where 3 stand\)"):
        observations_from_text("13/10(4)", ref.game)


def test_an_illegal_play_typed_with_a_bang_goes_through_the_correction_window_as_one_seen_does():
    """A recorder could not keep an illegal play that stood (typed, every illegal play was refused at the line):
    one made so on the board is typed with `!`, and the opponent asks for a correction, accepts it or rolls."""
    from companion.referee.typed import TypedInputError, observations_from_text

    with pytest.raises(TypedInputError, match="End it with ! to record it"):
        observations_from_text("8/4 6/5", referee_at(START, (3, 1)).game)  # a slip of the keys is not taken
    for answer in ("roll", "accept", "correct"):
        ref = referee_at(START, (3, 1))
        events = [e for o in observations_from_text("8/4 6/5!", ref.game) for e in ref.observe(o)]
        assert kinds(events) == ["IllegalPlay"] and ref.state.pending is not None
        if answer == "roll":  # the opponent rolls: the play stands
            assert kinds(ref.observe(DiceReading((6, 4), roller=1)))[0] == "PlayStood"
            assert ref.game.turn == 1 and ref.game.position.opponent[4] == 1  # player 0's checker on his 4-point
        elif answer == "accept":
            assert kinds(ref.observe(UserCommand(Command.ACCEPT_PLAY)))[0] == "PlayStood"
        else:
            ref.observe(UserCommand(Command.REQUEST_CORRECTION))
            assert ref.game.turn == 0 and ref.game.position == START  # to be played again
    ref = referee_at(START, (3, 1))
    legal = [e for o in observations_from_text("8/5 6/5!", ref.game) for e in ref.observe(o)]
    assert "PlayMade" in kinds(legal)  # a legal play with ! is the play


def test_a_replay_leaves_out_a_play_taken_back_so_a_review_rates_only_what_was_played():
    """A new user's review still listed, and the summary counted, a play he had taken back with `u`."""
    from companion.referee.typed import observations_from_text

    live = Referee(MatchState.money())
    observations = []

    def typed(text):
        for observation in observations_from_text(text, live.game):
            observations.append(observation)
            live.observe(observation)

    for text in ("31", "8/5 6/5", "64", "24/18 13/9"):
        typed(text)
    observations.append(UserCommand(Command.UNDO))
    assert "24/18 13/9" in str(live.observe(observations[-1])[0])
    typed("24/14")
    replayed = Referee(MatchState.money()).replay(observations)
    assert [e.play.notation for _, events in replayed for e in events if isinstance(e, PlayMade)] == [
        "8/5 6/5", "24/14"]


WRITTEN_HIT_NOT_MADE_ON_64 = Position.from_points({24: 1, 6: 5, 8: 3, 13: 6}, {4: 1, 5: 2, 6: 4, 8: 3, 13: 5})
"""Player 0's back checker on 24 with 64 to play, his opponent holding his 20-point and a blot on his 21 (the
opponent's 5 and 4): 24/14 goes by 18, never by 21."""


def test_a_typed_hit_the_play_cannot_make_is_refused_not_taken_as_shorthand():
    """A play written through a blot it cannot reach (24/21*/14 with 64) is another play, not a record's shorthand
    for 24/14: taken as that, the record would leave on 21 the blot the player took off (found at review)."""
    from companion.referee.typed import TypedInputError, observations_from_text

    ref = referee_at(WRITTEN_HIT_NOT_MADE_ON_64, (6, 4))
    for typed in ("24/21*/14", "24/21/14"):
        with pytest.raises(TypedInputError, match="not a legal play of 64"):
            observations_from_text(typed, ref.game)
    assert [type(o).__name__ for o in observations_from_text("24/14", ref.game)] == ["BoardReading", "DiceReading"]


def test_a_typed_play_that_could_hit_either_of_two_blots_asks_for_the_hit():
    from companion.referee.typed import TypedInputError, observations_from_text

    two_blots = Position.from_points({24: 1, 6: 5, 8: 3, 13: 6}, {5: 1, 7: 1, 6: 5, 8: 3, 13: 5})  # his 20 and 18
    ref = referee_at(two_blots, (6, 4))
    with pytest.raises(TypedInputError, match="could be any of .*write the hits"):
        observations_from_text("24/14", ref.game)


def test_undo_after_a_refused_command_takes_back_the_play_not_the_refusal():
    """A new user pressed `a` with nothing to accept, then `u`: the undo took back the refusal, and the play needed a
    second `u`."""
    from companion.referee.typed import observations_from_text

    ref = Referee(MatchState.money())
    for text in ("31", "8/5 6/5", "64", "24/18 13/9"):
        for observation in observations_from_text(text, ref.game):
            ref.observe(observation)
    assert kinds(ref.observe(UserCommand(Command.ACCEPT_PLAY))) == ["Refused"]
    undone = ref.observe(UserCommand(Command.UNDO))
    assert kinds(undone) == ["Undone"] and "24/18 13/9" in str(undone[0])


def test_a_typed_word_that_is_no_move_is_named_once_in_the_refusal():
    from companion.referee.typed import TypedInputError, observations_from_text

    with pytest.raises(TypedInputError) as refused:
        observations_from_text("zz", referee_at(START, (3, 1)).game)
    assert str(refused.value).count("'zz'") == 1 and "FROM/TO" in str(refused.value)


def test_a_play_typed_with_dashes_is_the_play_with_slashes_and_a_lone_dashed_move_is_no_roll():
    """A new user typed `24-18`, as books write moves, and was refused. While a roll waits for its play, `6-5` is
    the move 6/5, not the dice 65; before the roll, `3-1` is still the dice."""
    from companion.referee.typed import TypedInputError, observations_from_text

    ref = referee_at(START, (6, 1))
    boards = [o for o in observations_from_text("13-7 8-7", ref.game) if isinstance(o, BoardReading)]
    assert boards == [o for o in observations_from_text("13/7 8/7", ref.game) if isinstance(o, BoardReading)]
    with pytest.raises(TypedInputError, match="not a legal play of 61"):  # read as a move, and one die short
        observations_from_text("6-5", ref.game)
    with pytest.raises(TypedInputError, match="has not been played yet"):
        observations_from_text("65", ref.game)
    assert [type(o).__name__ for o in observations_from_text("3-1", Referee(MatchState.money()).game)] == [
        "DiceReading"]


def test_no_move_typed_when_no_roll_waits_is_refused_with_a_reason():
    """A new user entered `-` with nothing to play, and nothing was said. After a play the dice may still lie there,
    and `-` picks them up, as before."""
    from companion.referee.typed import TypedInputError, observations_from_text

    for text in ("-", "none", "cannot move"):
        with pytest.raises(TypedInputError, match="no roll waits for its play"):
            observations_from_text(text, Referee(MatchState.money()).game)
    doubled = Referee(MatchState.money())
    for line in ("31", "8/5 6/5", "double"):
        for observation in observations_from_text(line, doubled.game):
            doubled.observe(observation)
    with pytest.raises(TypedInputError, match="take or pass"):
        observations_from_text("-", doubled.game)
    played = referee_at(START, (3, 1))
    played.observe(reading_of(moved(START, "8/5 6/5")))  # seen on the board, the dice still down
    assert [type(o).__name__ for o in observations_from_text("-", played.game)] == ["DiceReading"]


def test_dice_typed_with_a_face_no_die_has_are_refused_as_such():
    """A new user typed 77 and was told to type the dice first."""
    from companion.referee.typed import TypedInputError, observations_from_text

    for text in ("77", "70", "0-3"):
        with pytest.raises(TypedInputError, match="a die shows 1 to 6"):
            observations_from_text(text, Referee(MatchState.money()).game)
    with pytest.raises(TypedInputError, match="a roll is two dice"):  # a recorder's trial: 611 said 'dice first'
        observations_from_text("611", Referee(MatchState.money()).game)


def test_a_typed_play_into_a_held_point_lists_the_legal_plays_nearest_to_it_first():
    """A new user's `13/7 13/10` with 62 (his 10-point held) listed six plays from the 20-point, not 13/11 13/7."""
    from companion.referee.typed import TypedInputError, observations_from_text

    held_ten = Position.from_points({20: 2, 13: 5, 8: 3, 6: 5}, {15: 2, 13: 4, 8: 3, 6: 6})  # his 15 is my 10
    with pytest.raises(TypedInputError, match="held") as refused:
        observations_from_text("13/7 13/10", referee_at(held_ten, (6, 2)).game)
    assert str(refused.value).split("Legal: ")[1].startswith("13/11 13/7")


def test_a_throw_before_the_movers_play_is_typed_waits_for_it():
    """A dice cup builder's trial: with plays typed and dice from the cup, the next player threw before Bob's play
    was typed; the referee judged Bob's play from the board before his roll ('no checker was moved'), let it stand,
    and took Bob's play, typed next, as Ann's. With no board reading since the roll, the play is not seen: the throw
    waits for it."""
    from companion.referee.typed import observations_from_text

    ref = referee_at(START, (4, 2))
    for line in ("8/4 6/4", "66"):
        for observation in observations_from_text(line, ref.game):
            ref.observe(observation)
    assert ref.game.turn == 1 and ref.game.dice == Roll(6, 6)
    events = ref.observe(DiceReading((6, 5), sequence=7))  # Ann's cup, before Bob's play is typed
    assert kinds(events) == ["NeedsAttention"] and "not seen" in events[0].text()
    assert ref.state.held_roll is not None and ref.game.turn == 1
    events = [e for o in observations_from_text("24/18(2) 13/7(2)", ref.game, roll_held=True) for e in ref.observe(o)]
    assert kinds(events)[:2] == ["PlayMade", "Rolled"] and events[0].player == 1
    assert ref.game.turn == 0 and ref.game.dice == Roll(6, 5)  # Ann's throw counts, after Bob's play


def test_a_roll_while_a_double_waits_is_said_not_to_count():
    """A dice cup builder's trial: the cup's roll during a double was dropped with 'take or pass first', which did
    not say that the throw was lost and must be made again."""
    ref = referee_at(START, (3, 1))
    for observation in (BoardReading.from_position(START.play("8/5 6/5", 3, 1).position, 1),
                        DiceReading(()), UserCommand(Command.DOUBLE, 1)):
        ref.observe(observation)
    assert ref.game.phase is Phase.DOUBLED
    events = ref.observe(DiceReading((5, 2), sequence=9))
    assert kinds(events) == ["NeedsAttention"] and "does not count" in events[0].text()
    assert ref.game.phase is Phase.DOUBLED and ref.game.dice is None


def test_a_throw_before_the_opening_play_is_seen_waits_for_it_too():
    """From the review: the opening roll did not start the wait, so the set-up board, read before it, was judged
    as the opening play ('no checker was moved') when the opponent threw first."""
    from companion.referee import Referee
    from companion.rules import MatchState

    ref = Referee(MatchState.match_to(3))
    ref.observe(BoardReading.from_position(START, 0))  # the camera sees the board set up
    ref.observe(DiceReading((3, 1), sequence=1))  # the opening roll: Ann's 31
    events = ref.observe(DiceReading((6, 4), sequence=2))  # Bob's throw, before Ann's play is seen
    assert kinds(events) == ["NeedsAttention"] and ref.state.held_roll is not None
    events = ref.observe(BoardReading.from_position(START.play("8/5 6/5", 3, 1).position, 1))
    assert kinds(events)[:2] == ["PlayMade", "Rolled"] and ref.game.turn == 1 and ref.game.dice == Roll(6, 4)


def test_an_illegal_play_seen_after_the_throw_was_held_is_judged_and_stands():
    """From the review: with the throw held, a board no legal play fits was never judged (the referee said nothing
    and waited)."""
    from companion.referee.typed import observations_from_text

    ref = referee_at(START, (4, 2))
    for line in ("8/4 6/4", "66"):
        for observation in observations_from_text(line, ref.game):
            ref.observe(observation)
    ref.observe(DiceReading((6, 5), sequence=7))  # Ann's throw, held for Bob's play
    assert ref.state.held_roll is not None
    events = [e for o in observations_from_text("24/20 13/7(2)!", ref.game, roll_held=True) for e in ref.observe(o)]
    assert kinds(events)[:3] == ["IllegalPlay", "PlayStood", "Rolled"], kinds(events)
    assert ref.game.turn == 0 and ref.game.dice == Roll(6, 5) and ref.state.held_roll is None
