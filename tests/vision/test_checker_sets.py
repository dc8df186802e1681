"""Fifteen checkers a set: a reading naming too many of one set is corrected where its colour evidence is weakest,
and the two sets' colours are found past glare spots and mirroring metal."""

import numpy as np

from companion.rules import Position
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Renderer, Scene
from companion.sim.truth import image_corners
from companion.vision.checker_sets import FLIPPED_CONFIDENCE, ColourEvidence, stacks_to_flip, too_many, two_sets
from companion.vision.reader import two_colours
from companion.vision.strip_reader import StripReader

START = [("dark", 2), ("light", 5), ("light", 3), ("dark", 5), ("light", 5), ("dark", 3), ("dark", 5), ("light", 2)]
SURE = ColourEvidence(0.999)


def test_a_stack_named_the_wrong_set_is_flipped_where_the_evidence_is_weakest():
    reads = list(START)
    reads[5] = ("light", 3)  # dark 3 read light: 18 light, 12 dark
    evidence = [SURE] * len(reads)
    evidence[5] = ColourEvidence(0.8)
    evidence[2] = ColourEvidence(0.95)  # the other light 3, surer
    assert too_many(reads) == 3
    assert stacks_to_flip(reads, evidence) == [5]
    evidence[2] = ColourEvidence(0.6)  # now the other light 3 is the weaker: the board cannot tell, flips that one
    assert stacks_to_flip(reads, evidence) == [2]


def test_nothing_flips_when_within_bounds_when_both_sets_are_over_or_when_nothing_fits():
    evidence = [ColourEvidence(0.6)] * 10
    assert stacks_to_flip(START, evidence) == []
    assert stacks_to_flip(START + [("light", 2), ("dark", 2)], evidence) == []  # the counts are wrong, not colours
    # 18 light, 14 dark: three must go, the dark set has room for one
    assert stacks_to_flip([("light", 15), ("light", 3), ("dark", 14)], evidence) == []


def test_the_cheapest_exact_fit_is_chosen():
    reads = [("light", 13), ("light", 2), ("light", 1), ("light", 1), ("dark", 13)]
    # two too many, room for two: either the pair of ones (cost 1 + 1) or the two (cost 3)
    costs = [ColourEvidence(0.99999), ColourEvidence(0.95), ColourEvidence(0.73), ColourEvidence(0.73),
             ColourEvidence(0.01)]
    assert stacks_to_flip(reads, costs) == [2, 3]
    costs[1] = ColourEvidence(0.8)
    assert stacks_to_flip(reads, costs) == [1]


def test_the_colour_samples_distance_counts_as_evidence():
    reads = [("light", 5), ("light", 5), ("light", 3), ("light", 3), ("dark", 12)]
    near = ColourEvidence(0.9, to_light=5.0, to_dark=60.0)
    far = ColourEvidence(0.9, to_light=40.0, to_dark=45.0)
    assert stacks_to_flip(reads, [near, near, near, far, None]) == [3]
    assert stacks_to_flip(reads, [near, near, far, near, None]) == [2]


def test_two_sets_past_glare_spots_and_mirroring_metal():
    rng = np.random.default_rng(1)
    red = [np.array([25.0, 152, 142]) + rng.normal(0, 4, 3) for _ in range(4)]
    silver = [np.array([70.0, 130, 127]) + rng.normal(0, 4, 3) for _ in range(4)]
    glare = [np.array([251.0, 129, 128]), np.array([250.0, 128, 128])]
    w = np.array([0.5, 1, 1])

    def nearer_light(sample, centres):
        return np.linalg.norm((sample - centres["light"]) * w) < np.linalg.norm((sample - centres["dark"]) * w)

    centres = two_sets(red + silver + glare)
    assert all(nearer_light(s, centres) for s in silver) and not any(nearer_light(s, centres) for s in red)
    old = two_colours(red + silver + glare)  # split by its lightest and darkest samples: the glare is a set
    assert not any(nearer_light(s, old) for s in silver)
    one = two_sets(red)
    assert not any(nearer_light(s, one) for s in red)  # one dark set alone stays dark


def test_the_reader_corrects_a_stack_its_colour_network_misnamed():
    scene = Scene.from_position(Position.start(), 0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=8.0), Effects(noise=3), np.random.default_rng(3))
    reader = StripReader(image_corners(label))
    right = reader.read(image)
    assert too_many((p.colour, p.count) for p in right.points) == 0
    three = next(s for s, p in enumerate(right.points) if p.count == 3)
    network = reader.colour_network

    def misnaming(inputs):
        # the network's rows follow the strips that hold checkers, in order: turn the one of point `three`
        logits = network(inputs).copy()
        row = [s for s, p in enumerate(right.points) if p.count][:len(logits)].index(three)
        logits[row] = -logits[row] * 0.3
        return logits

    reader.colour_network = misnaming
    mended = reader.read(image)
    assert [(p.colour, p.count) for p in mended.points] == [(p.colour, p.count) for p in right.points]
    assert mended.points[three].confidence <= right.points[three].confidence * FLIPPED_CONFIDENCE + 1e-9
