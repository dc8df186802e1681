"""Fifteen checkers a set: a reading that shows more of one set than exist is corrected where its colour
evidence is weakest.

Each stack's colour is read on its own, and a mirror-like glossy checker reflecting a lamp, or a glass one taking
the colour of the board behind it, can read as the other set with high confidence. The board as a whole says more:
no set has more than 15 checkers. When one set reads over 15 and the other has room for the surplus, the stacks
to name again are the cheapest to flip, cost being the evidence each colour had (the colour network's log-odds,
capped, plus how much nearer the sample lay to its set's colour than to the other's): a small knapsack over the
stacks. Flipped stacks keep a lowered confidence: the whole board chose their colour, not what they look like.

The two sets' colours themselves come from the stacks' samples; when the usual split (by the lightest and the
darkest sample) names more than 15 of a set, `two_sets` splits them again, robust to glare spots and to metal
checkers that mirror a dark room, and the reader keeps whichever split breaks the rule less.

Measured with `benchmarks/photoreal_bench.py`, uncalibrated, corners given (session 24): development boards 10-14
95.77 -> 96.93 % of points, stone and wood boards 94.66 -> 94.78 %; earlier held-out draws, now development:
boards 20-25 91.60 -> 92.32 %, mosaic-glass 89.68 -> 93.00 %.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

CHECKERS_A_SET = 15
LOGIT_CAP = 10.0
"""Log-odds beyond this say no more: a network at 1.0 is as often wrong on a mirror-like checker as at 0.9999."""
DISTANCE_WEIGHT = 0.05
"""Log-odds per unit of Lab distance by which a sample lies nearer its own set's colour than the other's."""
FLIPPED_CONFIDENCE = 0.5
"""A flipped stack's confidence is scaled by this: its colour is the board's inference, not a sighting."""


@dataclass(frozen=True, slots=True)
class ColourEvidence:
    """How strongly one stack's reading says its colour: the colour network's P(light), and the distances of its
    colour sample (Lab, weighted as the reader weighs them) to the two sets' colours."""

    p_light: float | None
    to_light: float | None = None
    to_dark: float | None = None

    def cost_of_flipping(self, colour: str) -> float:
        if self.p_light is None:
            cost = LOGIT_CAP
        else:
            p = min(max(self.p_light, 1e-9), 1 - 1e-9)
            cost = min(abs(float(np.log(p / (1 - p)))), LOGIT_CAP)
        if self.to_light is not None and self.to_dark is not None:
            own, other = (self.to_light, self.to_dark) if colour == "light" else (self.to_dark, self.to_light)
            cost += DISTANCE_WEIGHT * (other - own)
        return max(cost, 0.0)


def other(colour: str) -> str:
    return "dark" if colour == "light" else "light"


def too_many(reads: Iterable[tuple[str | None, int]]) -> int:
    """How many checkers the reading names past 15 of a set, both sets together. `reads`: (colour, count)."""
    totals = {"light": 0, "dark": 0}
    for colour, count in reads:
        if colour is not None and count > 0:
            totals[colour] += count
    return sum(max(0, n - CHECKERS_A_SET) for n in totals.values())


def stacks_to_flip(reads: Sequence[tuple[str | None, int]], evidence: Sequence[ColourEvidence | None]) -> list[int]:
    """Which stacks to name the other set so that neither set exceeds 15, flipping as little evidence as can be;
    none when the reading is within bounds, or when both sets read over 15 (the counts, not the colours, are
    wrong), or when no choice of stacks fits. `reads`: (colour, count) per stack; `evidence`, per stack."""
    totals = {"light": 0, "dark": 0}
    for colour, count in reads:
        if colour is not None and count > 0:
            totals[colour] += count
    over = [c for c in totals if totals[c] > CHECKERS_A_SET]
    if len(over) != 1:
        return []
    big = over[0]
    need, room = totals[big] - CHECKERS_A_SET, CHECKERS_A_SET - totals[other(big)]
    if need > room:
        return []
    # best[f]: the cheapest (cost, stacks) flipping exactly f checkers
    best: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}
    for s, (colour, count) in enumerate(reads):
        if colour != big or count <= 0:
            continue
        proof = evidence[s]
        cost = proof.cost_of_flipping(colour) if proof is not None else LOGIT_CAP
        for flipped, (total, stacks) in list(best.items()):
            f = flipped + count
            if f <= room and (f not in best or best[f][0] > total + cost):
                best[f] = (total + cost, stacks + (s,))
    choices = [value for flipped, value in best.items() if need <= flipped <= room]
    return sorted(min(choices)[1]) if choices else []


def flip(read, confidence_scale: float = FLIPPED_CONFIDENCE):
    """A `SlotRead` or `HalfRead` named the other set, less sure."""
    return replace(read, colour=other(read.colour), confidence=read.confidence * confidence_scale)



ONE_SET_SPREAD = 25.0
"""Samples all within this (weighted Lab) of each other are one set: the other is off the board or not seen."""
OUTLIER = 30.0
"""Weighted Lab distance past which a sample counts no more against a split: one glare spot must not become a set."""


def two_sets(samples: Sequence[np.ndarray], lightness_weight: float = 0.5) -> dict[str, np.ndarray]:
    """The two checker sets' colours (Lab) among the stacks' colour samples: the split into two groups with the
    least spread, tried from every pair of samples as seeds, each sample's cost capped (glare spots and stray
    samples are outliers, not a set). Splitting by the lightest and darkest samples instead
    named a glare spot one set, and metal checkers that mirror a dark room the other set's."""
    if not samples:
        return {"light": np.array([200.0, 128, 128]), "dark": np.array([50.0, 128, 128])}
    data = np.asarray(samples, np.float64)
    w = np.array([lightness_weight, 1.0, 1.0])
    scaled = data * w
    gaps = np.linalg.norm(scaled[:, None] - scaled[None], axis=2)
    if gaps.max() < ONE_SET_SPREAD:
        centre = data.mean(axis=0)
        lighter = centre[0] > 110
        other_set = centre + np.array([-100.0 if lighter else 100.0, 0, 0])
        return {"light": centre, "dark": other_set} if lighter else {"light": other_set, "dark": centre}
    best = None
    for i, j in zip(*np.triu_indices(len(data), 1)):
        a, b = scaled[i], scaled[j]
        for _ in range(6):
            near_a = np.linalg.norm(scaled - a, axis=1) <= np.linalg.norm(scaled - b, axis=1)
            if near_a.all() or not near_a.any():
                break
            a, b = np.median(scaled[near_a], axis=0), np.median(scaled[~near_a], axis=0)
        if near_a.all() or not near_a.any():
            continue
        cost = float(np.minimum(np.minimum(np.linalg.norm(scaled - a, axis=1),
                                           np.linalg.norm(scaled - b, axis=1)), OUTLIER).sum())
        if best is None or cost < best[0]:
            best = (cost, a / w, b / w)
    if best is None:
        centre = data.mean(axis=0)
        return {"light": centre, "dark": centre - np.array([100.0, 0, 0])}
    _, a, b = best
    return {"light": a, "dark": b} if a[0] >= b[0] else {"light": b, "dark": a}


__all__ = ["CHECKERS_A_SET", "ColourEvidence", "FLIPPED_CONFIDENCE", "flip", "stacks_to_flip", "too_many", "two_sets"]
