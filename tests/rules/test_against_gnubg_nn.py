"""Differential tests: our legal plays against gnubg-nn's move generator, position for position.

Default run: 20,000 random-play pairs and 5,000 real-match pairs. `pytest --full`: 200,000 random-play pairs
and every real-match position with all 21 rolls (about 300,000 more).
"""

import gnubg_nn
import pytest

from companion.rules import Position
from tests.oracles.gnubg_nn_oracle import legal_results, to_board
from tests.oracles.samples import random_play_pairs, real_match_pairs


def _compare(pairs) -> tuple[int, list[str]]:
    checked = 0
    failures = []
    for position, roll in pairs:
        ours = {play.position.swap() for play in position.legal_plays(roll)}
        theirs = legal_results(position, roll.die1, roll.die2)
        checked += 1
        if ours != theirs and len(failures) < 5:
            failures.append(f"{position.position_id()} {roll}: ours {len(ours)}, gnubg-nn {len(theirs)}")
    return checked, failures


def test_random_play_positions_match_gnubg_nn(full):
    checked, failures = _compare(random_play_pairs(seed=20261121, count=200_000 if full else 20_000))
    assert not failures, failures
    assert checked >= 20_000


def test_real_match_positions_match_gnubg_nn(full):
    checked, failures = _compare(real_match_pairs(None if full else 5_000))
    assert not failures, failures
    assert checked >= 5_000


def test_the_oracle_bridge_can_see_a_difference():
    # guard against a comparison that always agrees: drop one play and the sets must differ
    position = Position.start()
    ours = {play.position.swap() for play in position.legal_plays(3, 1)}
    theirs = legal_results(position, 3, 1)
    assert ours == theirs
    ours.pop()
    assert ours != theirs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_position_id_matches_gnubg_nn(seed):
    for position, _roll in random_play_pairs(seed, 2_000):
        assert position.position_id() == gnubg_nn.position_id(to_board(position))
