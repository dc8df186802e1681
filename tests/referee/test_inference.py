"""Play inference from noisy readings of real-match plays: unsure slots are resolved by the rules, and a
reading that contradicts every legal play is never taken for one."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.referee import (
    BoardReading,
    Command,
    CubePlace,
    CubeReading,
    DiceReading,
    Fit,
    IllegalPlay,
    NeedsAttention,
    PlayMade,
    Referee,
    SlotReading,
    UserCommand,
    infer_play,
)
from companion.referee.inference import agrees, key_bounds, position_agrees, sets_the_rules_force
from companion.rules import MatchState, Position, Roll
from tests.oracles.samples import random_play_pairs, real_match_plays
from tests.referee.helpers import referee_at

UNSURE = 0.3


def sample(count: int, seed: int):
    plays = [p for p in real_match_plays() if p[0] != p[2]]  # skip dances: nothing to infer
    return random.Random(seed).sample(plays, count)


def blur(reading: BoardReading, rng: random.Random, slots: int) -> BoardReading:
    """Make `slots` random points unsure, with a wrong best guess."""
    for index in rng.sample(range(24), slots):
        true = reading.points[index]
        wrong = SlotReading(true.owner if true.count else rng.choice((0, 1)), max(0, true.count + rng.choice((-1, 1, 2))) or 1,
                            confidence=UNSURE)
        reading = reading.with_point(index, wrong)
    return reading


def test_one_unsure_slot_never_stops_inference():
    rng = random.Random(1)
    for before, roll, after in sample(3000, seed=1):
        reading = blur(BoardReading.from_position(after, 0), rng, 1)
        inference = infer_play(before, roll, reading, 0)
        assert inference.fit is Fit.PLAY, (before, roll, after)
        assert inference.play.position.swap() == after


def test_two_unsure_slots_give_the_play_or_a_question_never_a_wrong_play():
    rng = random.Random(2)
    # UNCHANGED: the unsure slots are the only ones the play changed, so it cannot be told from no move yet
    outcomes = {Fit.PLAY: 0, Fit.AMBIGUOUS: 0, Fit.UNCHANGED: 0}
    for before, roll, after in sample(3000, seed=2):
        reading = blur(BoardReading.from_position(after, 0), rng, 2)
        inference = infer_play(before, roll, reading, 0)
        assert inference.fit in outcomes, (before, roll, after)
        assert after in {p.position.swap() for p in inference.plays}
        outcomes[inference.fit] += 1
    assert outcomes[Fit.PLAY] > 0.95 * sum(outcomes.values()), outcomes


def test_trays_out_of_sight_are_counted_from_the_rest():
    for before, roll, after in sample(500, seed=3):
        reading = BoardReading.from_position(after, 0, trays=False)
        inference = infer_play(before, roll, reading, 0)
        assert inference.fit is Fit.PLAY and inference.play.position.swap() == after


def test_a_contradicting_reading_is_never_accepted_as_a_play():
    rng = random.Random(4)
    checked = 0
    for before, roll, after in sample(2500, seed=4):
        reading = BoardReading.from_position(after, 0)
        index = rng.randrange(24)
        slot = reading.points[index]
        # one confident slot read wrong: a checker more (or one fewer) than is there
        count = slot.count + 1 if slot.count < 15 and slot.owner is not None else max(slot.count - 1, 0)
        owner = slot.owner if count else None
        bad = reading.with_point(index, SlotReading(owner, count))
        results = {p.position.swap() for p in before.legal_plays(roll)}
        if any(position_agrees(r, bad, 0) for r in results) or position_agrees(before, bad, 0):
            continue  # the wrong reading happens to be a legal result: not a contradiction
        checked += 1
        ref = referee_at(before, (roll.die1, roll.die2))
        during = ref.observe(bad)
        assert not [e for e in during if isinstance(e, PlayMade)]
        verdict = ref.observe(DiceReading(()))
        assert verdict and all(isinstance(e, (IllegalPlay, NeedsAttention)) for e in verdict), verdict
    assert checked > 1000


def test_a_misfit_read_with_unsure_slots_asks_rather_than_calls_the_play_illegal():
    asked = 0
    for before, roll, after in sample(200, seed=5):
        reading = BoardReading.from_position(after, 0)
        stacks = [i for i, s in enumerate(reading.points) if s.count >= 2]
        if len(stacks) < 2:
            continue
        sure, unsure = stacks[:2]
        # one stack confidently read a checker short (no legal play fits), another unsure and also short
        bad = reading.with_point(sure, SlotReading(reading.points[sure].owner, reading.points[sure].count - 1))
        bad = bad.with_point(unsure, SlotReading(reading.points[unsure].owner, reading.points[unsure].count - 1,
                                                 confidence=UNSURE))
        ref = referee_at(before, (roll.die1, roll.die2))
        ref.observe(bad)
        events = ref.observe(DiceReading(()))
        assert len(events) == 1 and isinstance(events[0], NeedsAttention), events
        assert "cannot be read surely" in events[0].what
        asked += 1
    assert asked > 150


# -- determinism: the same observations give the same events ---------------------------------------

_POSITIONS = [position for position, _ in random_play_pairs(seed=9, count=60)][::6]
_observation = st.one_of(
    st.builds(lambda i, m: BoardReading.from_position(_POSITIONS[i], m),
              st.integers(0, len(_POSITIONS) - 1), st.integers(0, 1)),
    st.builds(lambda a, b, r: DiceReading((a, b), roller=r), st.integers(1, 6), st.integers(1, 6),
              st.sampled_from([None, 0, 1])),
    st.just(DiceReading(())),
    st.just(DiceReading.cocked()),
    st.builds(lambda v, p: CubeReading(v, p), st.sampled_from([1, 2, 4, 64]), st.sampled_from(list(CubePlace))),
    st.builds(lambda c, p, v: UserCommand(c, p, value=v), st.sampled_from([c for c in Command if c is not Command.SET_POSITION]),
              st.sampled_from([None, 0, 1]), st.integers(1, 3)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_observation, max_size=40), st.sampled_from([MatchState(), MatchState.match_to(3)]))
def test_the_same_observations_give_the_same_events(observations, match):
    first, second = Referee(match), Referee(match)
    for observation in observations:
        assert first.observe(observation) == second.observe(observation)
    assert first.state == second.state


def test_a_legal_result_has_no_set_the_rules_force():
    """No legal play gives the opponent checkers on a point, or puts the mover's where the opponent held two or
    more: a reading of any legal result, hits included, is left as it is."""
    for before, roll, after in sample(2000, seed=5):
        for mover in (0, 1):
            reading = BoardReading.from_position(after, mover)
            assert sets_the_rules_force(before, reading, mover) is None


def test_a_stack_read_as_the_other_set_where_the_rules_forbid_it_still_gives_the_play():
    """A stack of two or more surely read as the other set (glossy checkers mirroring a lamp), where the mover's turn
    cannot have put that set: the play is still the one the rest of the board shows, never another; either player
    moving."""
    rng = random.Random(6)
    checked = {0: 0, 1: 0}
    for before, roll, after in sample(1500, seed=6):
        for mover in (0, 1):
            opponent = 1 - mover
            reading = BoardReading.from_position(after, mover)

            def held(i: int) -> int:  # the opponent's checkers on reading index i before the play
                return before.opponent[i + 1 if opponent == 0 else 24 - i]
            # the opponent keeps every stack he had; the mover's new stacks stand where the opponent had none
            theirs = [i for i, s in enumerate(reading.points) if s.owner == opponent and s.count >= 2]
            mine = [i for i, s in enumerate(reading.points) if s.owner == mover and s.count >= 2 and held(i) == 0]
            for pool, other in ((theirs, mover), (mine, opponent)):
                if not pool:
                    continue
                index = rng.choice(pool)
                misread = reading.with_point(index, SlotReading(other, reading.points[index].count))
                inference = infer_play(before, roll, misread, mover)
                assert inference.fit is Fit.PLAY, (before, roll, after, mover, index)
                assert inference.play.position.swap() == after
                checked[mover] += 1
    assert min(checked.values()) > 1000


def test_a_reading_whose_sets_the_rules_named_is_taken_only_when_one_play_fits_it():
    """A reading that named a stack's set surely wrong is trusted less than one that did not: where several plays
    fit it once the rules name its sets, none is offered (the referee waits or asks, as for a misfit)."""
    start = Position.start()
    after = start.play("24/14", 6, 4).position.swap()
    swapped = BoardReading.from_position(after, 0)
    swapped = swapped.with_point(7, SlotReading(1, 3)).with_point(16, SlotReading(0, 3))  # both 8-points, swapped
    assert infer_play(start, Roll(6, 4), swapped, 0).fit is Fit.PLAY
    unsure = swapped
    for index in set(range(24)) - {7, 16, 23}:  # only the swapped 8-points and the 24-point read surely
        unsure = unsure.with_point(index, replace(unsure.points[index], confidence=UNSURE))
    named = sets_the_rules_force(start, unsure, 0)
    assert named is not None and sum(agrees(p.result_key, key_bounds(named, 0)) for p in start.legal_plays(Roll(6, 4))) > 1
    assert infer_play(start, Roll(6, 4), unsure, 0).fit is Fit.NONE


def test_a_reading_the_camera_mended_is_not_renamed_by_the_rules_into_a_play():
    """The rules rename sets only on a reading as the camera saw it: one it already made whole by inference
    (`mended`) and whose sets the rules must also rename is two guesses deep, and gives no play (the referee asks);
    the same reading unmended gives the play."""
    start = Position.start()
    after = start.play("24/14", 6, 4).position.swap()
    swapped = BoardReading.from_position(after, 0)
    swapped = swapped.with_point(7, SlotReading(1, 3)).with_point(16, SlotReading(0, 3))  # both 8-points, swapped
    assert infer_play(start, Roll(6, 4), swapped, 0).fit is Fit.PLAY
    assert infer_play(start, Roll(6, 4), replace(swapped, mended=True), 0).fit is Fit.NONE
    # a mended reading that fits a play without renaming still gives it
    assert infer_play(start, Roll(6, 4), replace(BoardReading.from_position(after, 0), mended=True), 0).fit is Fit.PLAY
