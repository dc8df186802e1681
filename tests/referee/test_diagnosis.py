"""Each kind of illegal play, injected: the referee names the rule broken and offers sensible legal plays."""

from __future__ import annotations

import random

import pytest

from companion.referee import DiceReading, IllegalPlay, NeedsAttention, SlotReading
from companion.referee.diagnosis import colours_differ_only
from companion.rules import Position, Roll
from tests.oracles.samples import random_play_pairs
from tests.referee.helpers import finish, moved, reading_of, referee_at

START = Position.start()


def illegal(position: Position, dice: tuple[int, int], after: Position) -> IllegalPlay:
    ref = referee_at(position, dice)
    events = finish(ref, after)
    found = [e for e in events if isinstance(e, IllegalPlay)]
    assert found, events
    return found[0]


def reasons(event: IllegalPlay) -> str:
    return " | ".join(event.reasons)


def nearest(event: IllegalPlay) -> list[str]:
    return [p.notation for p in event.nearest]


def test_moving_other_checkers_with_one_on_the_bar():
    position = Position.from_points({25: 1, 13: 4, 8: 3, 6: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    event = illegal(position, (6, 5), moved(position, "13/7 13/8"))
    assert "must enter from the bar before moving other checkers" in reasons(event)
    assert nearest(event) and all(n.startswith("bar/") for n in nearest(event)), nearest(event)


def test_passing_over_blocked_points():
    # the opponent holds my 7-point and my 11-point: 13/5 with 6-2 lands on one of them on the way
    opponent = {18: 2, 14: 2, 6: 5, 8: 3, 13: 3}
    position = Position.from_points({13: 5, 8: 3, 6: 5, 24: 2}, opponent)
    event = illegal(position, (6, 2), moved(position, "13/5"))
    assert "the 7-point is blocked" in reasons(event) or "the 11-point is blocked" in reasons(event)
    assert nearest(event) and all(p for p in nearest(event))


def test_entering_on_a_blocked_point():
    # the 5 enters on my 20-point, held by the opponent (his 5-point); the 3 enters on 22, open
    # the opponent holds my 20-point and my 22-point: 5-3 cannot enter, yet the checker is brought in to 17
    position = Position.from_points({25: 1, 13: 5, 8: 3, 6: 4, 24: 2}, {5: 2, 3: 2, 6: 4, 7: 2, 13: 5})
    event = illegal(position, (5, 3), moved(position, "bar/17"))
    assert reasons(event) in ("cannot enter with a 5: the 20-point is blocked",
                              "cannot enter with a 3: the 22-point is blocked")
    assert nearest(event) == [""]  # the legal play is no move at all


def _higher_die_case() -> tuple[Position, Roll, str]:
    """A real position where only one die can be played, the lower could be, and the higher must be."""
    for position, roll in random_play_pairs(seed=3, count=200_000):
        if roll.is_double:
            continue
        plays = position.legal_plays(roll)
        if not all(p.dice_used == 1 for p in plays):
            continue
        results = {p.position.swap() for p in plays}
        for low_play in position.legal_plays(Roll(roll.low, roll.low)):
            if low_play.is_empty():
                break
            first = low_play.moves[0]
            move = f"{_slot(first.source)}/{_slot(first.dest)}"
            if moved(position, move) not in results:
                return position, roll, move
    raise AssertionError("no higher-die position found")


def _slot(n: int) -> str:
    return {25: "bar", 0: "off"}.get(n, str(n))


def test_playing_the_lower_die_when_only_one_die_can_be_played():
    position, roll, low_move = _higher_die_case()
    event = illegal(position, (roll.high, roll.low), moved(position, low_move))
    assert f"only one die can be played: the higher ({roll.high}) must be played" in reasons(event)
    assert set(nearest(event)) <= {p.notation for p in position.legal_plays(roll)}


def test_playing_one_die_when_both_can_be_played():
    event = illegal(START, (6, 5), moved(START, "13/7"))
    assert reasons(event) == "both dice can be played"
    assert "13/7 13/8" in nearest(event) or "13/2" in nearest(event), nearest(event)


def test_playing_no_checker_when_the_roll_can_be_played():
    event = illegal(START, (6, 5), START)
    assert reasons(event) == "no checker was moved, but 65 can be played"


def test_bearing_off_with_a_checker_outside():
    position = Position.from_points({9: 1, 6: 4, 5: 4, 4: 3, 3: 3}, {1: 5, 2: 5, 3: 5})
    event = illegal(position, (6, 5), moved(position, "6/off 5/off"))
    assert "cannot bear off: a checker is still on the 9-point" in reasons(event)
    assert any("9/" in n for n in nearest(event)), nearest(event)


def test_bearing_off_from_a_lower_point_with_a_higher_checker_left():
    position = Position.from_points({4: 3, 3: 4, 2: 4, 1: 4}, {1: 5, 2: 5, 3: 5})
    event = illegal(position, (5, 1), moved(position, "3/off 2/1"))
    assert "a 5 bears off from the 3-point only when no checker is higher, but one is on the 4-point" in reasons(event)
    assert "4/off" in " ".join(nearest(event)), nearest(event)


def test_a_checker_moved_backwards():
    # 13/10, and a checker carried from the 6-point back to the 8-point
    player = list(START.player)
    player[13] -= 1
    player[10] += 1
    player[6] -= 1
    player[8] += 1
    event = illegal(START, (3, 1), Position(tuple(player), START.opponent))
    assert "a checker moved backwards (onto the 8-point)" in reasons(event)


@pytest.mark.parametrize("delta, word", [(1, "appeared"), (-1, "disappeared")])
def test_a_checker_appeared_or_disappeared_is_asked_about_not_called_illegal(delta, word):
    """A reading that is no whole position, however surely read, says what it counts and offers the nearest plays:
    a checker out of the camera's view (borne off beside a board without trays) is likelier than one gone."""
    after = list(moved(START, "8/5 6/5").player)
    after[5] += delta
    ref = referee_at(START, (3, 1))
    reading = reading_of(moved(START, "8/5 6/5")).with_point(4, SlotReading(0, after[5]))
    assert reading.is_confident()
    ref.observe(reading)
    events = ref.observe(DiceReading(()))
    assert not any(isinstance(e, IllegalPlay) for e in events)
    event = next(e for e in events if isinstance(e, NeedsAttention))
    assert f"a checker of the player {word}" in event.what and "not a whole position" in event.what
    assert event.candidates[0].notation == "8/5 6/5"


def test_wrong_distances_are_described():
    event = illegal(START, (6, 4), moved(START, "13/9 13/8"))
    assert reasons(event) == "the checkers moved (from 13, 13 to 9, 8) do not fit the dice 64"
    assert "13/9 13/7" in nearest(event)


def test_nearest_plays_have_the_fewest_checkers_out_of_place():
    rng = random.Random(11)
    pairs = [pair for pair in random_play_pairs(seed=5, count=3000) if not pair[1].is_double]
    for position, roll in rng.sample(pairs, 60):
        plays = position.legal_plays(roll)
        if len(plays) < 2 or plays[0].is_empty():
            continue
        play = rng.choice(plays)
        # the play made, with its first checker moved one pip short: the play itself is the nearest
        first = play.moves[0]
        if first.dest in (0, 1) or first.hit or any(m.source == first.dest for m in play.moves):
            continue
        after = list(play.position.opponent)
        after[first.dest] -= 1
        after[first.dest + 1] += 1
        theirs = play.position.player
        if theirs[24 - first.dest]:  # the short landing is the opponent's point: not a clean case
            continue
        try:
            target = Position(tuple(after), theirs)
        except ValueError:
            continue
        if any(p.position.swap() == target for p in plays):
            continue
        ref = referee_at(position, (roll.high, roll.low))
        event = next(e for e in finish(ref, target) if isinstance(e, IllegalPlay))
        assert play in event.nearest, (position, roll, play, nearest(event))


def test_colours_differ_only_asks_for_every_stack_and_each_bar_as_a_legal_play_leaves_them():
    before = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 20: 1, 24: 1})
    plays = before.legal_plays(Roll(4, 3))
    legal = next(p for p in plays if p.notation == "24/20 8/5*")
    mine, theirs = list(legal.result_key[:26]), list(legal.result_key[26:])  # the mover's side first
    assert colours_differ_only(plays, mine, theirs) == (legal,)
    mine[5], theirs[20] = 0, 1  # the hitter's 5-point read as the opponent's 20-point: the same stacks
    mine[1], theirs[24] = 1, 0  # the opponent's 24-point blot read as the hitter's 1-point
    assert colours_differ_only(plays, mine, theirs) == (legal,)
    mine[20], mine[21] = 0, 1  # a checker a point further: no legal play leaves these stacks
    assert colours_differ_only(plays, mine, theirs) == ()
    mine[20], mine[21] = 1, 0
    theirs[25], mine[25] = 0, 1  # the hit checker read on the hitter's half of the bar
    assert colours_differ_only(plays, mine, theirs) == ()
