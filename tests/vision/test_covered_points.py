"""What the strip reader calls "something over the board": a hand, not a patterned board's stray points."""

import numpy as np

from companion.vision.strip_reader import NOT_A_POINT, covered_points


def _chances(not_a_point: dict[int, float]) -> np.ndarray:
    p = np.zeros((26, NOT_A_POINT + 1))
    p[:, 0] = 1.0
    for slot, chance in not_a_point.items():
        p[slot, NOT_A_POINT], p[slot, 0] = chance, 1 - chance
    return p


def test_scattered_half_likely_points_are_a_pattern_not_a_hand():
    assert covered_points(_chances({})) is None
    assert covered_points(_chances({2: 0.7, 7: 0.6, 16: 0.8})) is None  # grout on three points far apart
    assert covered_points(_chances({11: 0.6, 12: 0.6})) is None  # the ends of the two rows are no neighbours


def test_a_point_surely_covered_or_neighbours_that_both_look_it_are_a_hand():
    assert "1 point covered" in covered_points(_chances({9: 0.99}))
    assert "2 points covered" in covered_points(_chances({5: 0.6, 6: 0.7}))  # side by side, across the bar
    assert "1 point covered" in covered_points(_chances({19: 0.55, 20: 0.4}))


def test_a_board_mostly_unlike_points_is_no_hand():
    assert covered_points(_chances({slot: 0.99 for slot in range(20)})) is None  # wrong corners: the board says so


def test_on_a_patterned_board_only_two_neighbours_surely_covered_are_a_hand():
    """A board whose calibration photo looked covered somewhere (`patterned`) shows its tiles as a sure point or two
    half-likely neighbours on clear frames; a hand covers neighbours surely."""
    for chances in ({9: 0.99}, {5: 0.6, 6: 0.7}, {3: 0.95, 16: 0.9}, {4: 0.86, 5: 0.75, 15: 0.97}):
        assert covered_points(_chances(chances)) is not None  # what the plain test calls a hand
        assert covered_points(_chances(chances), patterned=True) is None
    assert "2 points covered" in covered_points(_chances({17: 0.9, 18: 1.0}), patterned=True)
    assert "3 points covered" in covered_points(_chances({1: 0.6, 8: 0.86, 9: 0.99}), patterned=True)
    assert covered_points(_chances({slot: 0.99 for slot in range(20)}), patterned=True) is None
    assert covered_points(_chances({17: 0.85, 18: 0.85}), patterned=True) is not None  # PATTERN_HAND, inclusive
    assert covered_points(_chances({17: 0.84, 18: 0.99}), patterned=True) is None
