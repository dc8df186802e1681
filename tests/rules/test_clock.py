"""The match clock: the delay first, then the reserve; a flag when a reserve runs out. Time is passed in."""

from companion.rules.clock import MatchClock, clock_text


def test_the_delay_is_used_first_and_only_the_rest_comes_off_the_reserve():
    clock = MatchClock.for_match(7)  # 12 s a move, 14 minutes each
    assert clock.reserve == 14 * 60
    clock = clock.start(0, now=100.0)
    assert clock.delay_left(105.0) == 7 and clock.left(0, 105.0) == clock.reserve
    clock = clock.start(1, now=130.0)  # Ann took 30 s: 18 s past the delay
    assert clock.used == (18.0, 0.0) and clock.running == 1
    clock = clock.stop(now=135.0)  # Bob within his delay: nothing used
    assert clock.used == (18.0, 0.0) and clock.running is None
    assert clock_text(clock.left(0, 200.0)) == "13:42"


def test_a_reserve_that_runs_out_is_flagged():
    clock = MatchClock(delay=12, reserve=60).start(1, now=0.0)
    assert clock.flagged(71.0) == ()
    assert clock.flagged(73.0) == (1,) and clock_text(clock.left(1, 73.0)) == "-0:01"
