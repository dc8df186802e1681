"""Fifteen checkers a set: a reading that shows more of one set than exist is corrected where its colour
evidence is weakest.

Each stack's colour is read on its own, and a mirror-like glossy checker reflecting a lamp, or a glass one taking
the colour of the board behind it, can read as the other set with high confidence. The board as a whole says more:
no set has more than 15 checkers. When one set reads over 15 and the other has room for the surplus, the stacks
to name again are the cheapest to flip, cost being the evidence each colour had (the colour network's log-odds,
capped, plus how much nearer the sample lay to its set's colour than to the other's): a small knapsack over the
stacks. Flipped stacks keep a lowered confidence: the whole board chose their colour, not what they look like
(and a referee never accuses a player over a slot read unsurely). Nothing is flipped where the counts' own doubt
explains the surplus, or where the trays show the other set has no room.

The rule says more than "at most": each set has exactly 15 on the points, the bar and the trays together.
`counts_making_fifteen` reads the whole board at once: the counts and sets of all places that are likeliest
together, given each strip's distribution over counts, each stack's colour evidence and the checkers borne off (the
trays' chances, `strip_reader.off_chances`, or a prior). A 5 read 6, a tower's hidden sixth checker, a lone checker
read empty: each is mended where the strip's own second guess makes the set whole.

The two sets' colours themselves come from the stacks' samples; when the usual split (by the lightest and the
darkest sample) names more than 15 of a set, `two_sets` splits them again, robust to glare spots and to metal
checkers that mirror a dark room, and the reader keeps whichever split breaks the rule less.

The renaming, measured with `benchmarks/photoreal_bench.py`, uncalibrated, corners given, session 23's networks
(session 24, with the busy test's change): development boards 10-14 95.77 -> 96.64 % of points, stone and wood
boards 94.66 -> 95.14 %; earlier held-out draws, now development: boards 20-25 91.60 -> 92.32 %, mosaic-glass
89.68 -> 92.87 %.
The whole board at once (session 26): twelve development sets 93.84 -> 94.60 %, frames fully right 183 -> 231 of
426; on the 96 frames with checkers borne off only 91.58 -> 91.76 %, 26 -> 24 fully right: the prior that none
are borne off pulls a bear-off's counts up where a strip half-allows one more.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from companion.rules import CHECKERS
from companion.vision.reader import one_set_colours

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
        """The evidence for `colour` over the other set, in log-odds (negative where it favours the other)."""
        if self.p_light is None:
            cost = LOGIT_CAP
        else:
            p = min(max(self.p_light, 1e-9), 1 - 1e-9)
            logit = float(np.log(p / (1 - p)))
            cost = float(np.clip(logit if colour == "light" else -logit, -LOGIT_CAP, LOGIT_CAP))
        if self.to_light is not None and self.to_dark is not None:
            own, far = (self.to_light, self.to_dark) if colour == "light" else (self.to_dark, self.to_light)
            cost += DISTANCE_WEIGHT * (far - own)
        return cost

    def chance_of_light(self) -> float:
        """P(light) as this evidence weighs it (the log-odds `cost_of_flipping` gives the light set), for
        `counts_making_fifteen`; 0.5 where no network read the stack."""
        if self.p_light is None:
            return 0.5
        return float(1.0 / (1.0 + np.exp(-self.cost_of_flipping("light"))))


@dataclass(frozen=True, slots=True)
class Stack:
    """One stack as read, for the rule: its set, its count and the lowest count the evidence allows, and whether
    it may be named the other set (a bar half may not: its place says whose it is)."""

    colour: str | None
    count: int
    low: int | None = None
    may_flip: bool = True


def other(colour: str) -> str:
    return "dark" if colour == "light" else "light"


def totals(stacks: Iterable[Stack]) -> dict[str, int]:
    out = {"light": 0, "dark": 0}
    for stack in stacks:
        if stack.colour is not None and stack.count > 0:
            out[stack.colour] += stack.count
    return out


def too_many(stacks: Iterable[Stack]) -> int:
    """How many checkers the reading names past 15 of a set on the board and the bar, both sets together."""
    return sum(max(0, n - CHECKERS) for n in totals(stacks).values())


def stacks_to_flip(stacks: Sequence[Stack], evidence: Sequence[ColourEvidence | None],
                   off: dict[str, int] | None = None) -> list[int]:
    """Which stacks to name the other set so that neither set exceeds 15, flipping as little evidence as can be,
    then as few checkers. None when the reading is within bounds; when both sets read over 15 or the surplus lies
    within the counts' own doubt (a 5 read 6: the counts, not the colours, are wrong); or when no choice of stacks
    fits. `off`: checkers per set seen borne off, where the trays were read: they only take room from the set that
    would receive the flipped stacks (a tray misread never starts a flip)."""
    seen = totals(stacks)
    over = [c for c in seen if seen[c] > CHECKERS]
    if len(over) != 1:
        return []
    big = over[0]
    need = seen[big] - CHECKERS
    room = CHECKERS - seen[other(big)] - (off or {}).get(other(big), 0)
    doubt = sum(s.count - s.low for s in stacks if s.colour == big and s.count > 0 and s.low is not None)
    if need > room or doubt >= need:
        return []
    # best[f]: the cheapest (cost, stacks) flipping exactly f checkers
    best: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}
    for index, stack in enumerate(stacks):
        if stack.colour != big or stack.count <= 0 or not stack.may_flip:
            continue
        proof = evidence[index]
        cost = max(proof.cost_of_flipping(big), 0.0) if proof is not None else LOGIT_CAP
        for flipped, (total, chosen) in list(best.items()):
            f = flipped + stack.count
            if f <= room and (f not in best or best[f][0] > total + cost):
                best[f] = (total + cost, chosen + (index,))
    choices = [(value[0], flipped - need, value[1]) for flipped, value in best.items() if need <= flipped <= room]
    return sorted(min(choices)[2]) if choices else []


def flip(read, confidence_scale: float = FLIPPED_CONFIDENCE):
    """A `SlotRead` or `HalfRead` named the other set, less sure."""
    if read.colour is None:
        raise ValueError("an empty point has no set to flip")
    return replace(read, colour=other(read.colour), confidence=read.confidence * confidence_scale)


OFF_NONE = 0.8
"""The chance that a set has no checker borne off, before the trays are looked at: most positions of a match are
played before the bear-off."""


def off_prior() -> np.ndarray:
    """P(k checkers of a set borne off), k = 0..15, before the trays are looked at."""
    return np.where(np.arange(CHECKERS + 1) == 0, OFF_NONE, (1 - OFF_NONE) / CHECKERS)


COUNT_FLOOR = 1e-4
"""No count is ruled out entirely by one strip's look: a tower's fifth checker may hide five more."""
COLOUR_CAP = 0.999
"""How sure a stack's colour may be, for the counts: 6.9 nats, under the 9.2 of `COUNT_FLOOR`, so that a surely seen
stack is named the other set before it is made to vanish. It was 0.98 (3.9 nats) until session 39, when replayed on
40 photoreal development sets the counts then renamed 145 stacks wrongly for 174 rightly (uncalibrated); with the
nearer set's word in each chance (`ColourEvidence.chance_of_light`), the two together read 0.28 points more
uncalibrated, 0.34 calibrated and 0.08 calibrated at a mounted camera's corners (of which the cap's, given the
word, about 0.16, 0.20 and 0.05; docs/VISION.md, session 39)."""


def counts_making_fifteen(dists: np.ndarray, light: Sequence[float],
                          off: np.ndarray | None = None) -> list[tuple[str | None, int]]:
    """The most likely counts and sets of all 26 places (24 points, then the two bar halves) together, such that
    each set has 15 checkers once its borne-off ones are added: each strip's own distribution over 0..15 (`dists`,
    26x16) says how likely each count is, `light` how likely its checkers are the light set (0.5: no idea), and
    the checkers not on the board are borne off: `off` (2x16) says how likely each count borne off is for the light
    and the dark set (the trays' chances, `strip_reader.off_chances`), else `off_prior` for both. A dynamic
    programme over the places, its state the checkers of each set so far. Returns (colour, count) a place, (None, 0)
    where empty."""
    n = CHECKERS
    # a NaN says nothing: it must not win an argmax
    log_p = np.log(np.maximum(np.nan_to_num(np.asarray(dists, np.float64)[:, :n + 1]), COUNT_FLOOR))
    # the best so far, best[i, j] for i light and j dark checkers placed, with n rows and n columns of -inf before it:
    # then views of it shifted by c = 1..n checkers (a state with fewer than none is -inf) cost no copy
    padded = np.full((2 * n + 1, 2 * n + 1), -np.inf)
    best = padded[n:, n:]
    best[0, 0] = 0.0
    row, col = padded.strides
    shifted = np.lib.stride_tricks.as_strided
    fewer_light = shifted(padded[n - 1:, n:], (n, n + 1, n + 1), (-row, row, col))  # [c - 1, i, j]: best[i - c, j]
    fewer_dark = shifted(padded[n:, n - 1:], (n, n + 1, n + 1), (-col, row, col))  # [c - 1, i, j]: best[i, j - c]
    options = np.empty((2 * n + 1, n + 1, n + 1))  # 0 empty, 1..n light, n+1..2n dark
    chances = np.array([min(max(0.5 if math.isnan(c) else c, 1 - COLOUR_CAP), COLOUR_CAP)  # NaN says nothing
                        for c in (float(light[place]) for place in range(len(log_p)))])
    as_light = (log_p[:, 1:] + np.log(chances)[:, None])[:, :, None, None]  # c checkers of the light set here
    as_dark = (log_p[:, 1:] + np.log(1 - chances)[:, None])[:, :, None, None]
    choices = []
    for place in range(len(log_p)):
        np.add(best, log_p[place, 0], out=options[0])
        np.add(fewer_light, as_light[place], out=options[1:n + 1])
        np.add(fewer_dark, as_dark[place], out=options[n + 1:])
        choices.append(np.argmax(options, axis=0))
        options.max(axis=0, out=best)
    chances = np.vstack([off_prior(), off_prior()]) if off is None else np.nan_to_num(np.asarray(off, np.float64))
    by_on_board = np.log(np.maximum(chances[:, ::-1], COUNT_FLOOR))  # k on the board: 15 - k borne off
    total = best + by_on_board[0][:, None] + by_on_board[1][None, :]  # finite: all places empty is always a choice
    light_on, dark_on = np.unravel_index(int(np.argmax(total)), total.shape)
    out: list[tuple[str | None, int]] = []
    for which in reversed(choices):
        k = int(which[light_on, dark_on])
        if k == 0:
            out.append((None, 0))
        elif k <= n:
            out.append(("light", k))
            light_on -= k
        else:
            out.append(("dark", k - n))
            dark_on -= k - n
    return out[::-1]


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
        return one_set_colours(centre, centre[0] > 110)
    # every pair of samples seeds a split, all refined at once: each side moves to its members' median
    i, j = np.triu_indices(len(data), 1)
    a, b = scaled[i], scaled[j]
    for _ in range(6):
        near_a = (np.linalg.norm(scaled[None] - a[:, None], axis=2)
                  <= np.linalg.norm(scaled[None] - b[:, None], axis=2))
        a, b = _medians(scaled, near_a), _medians(scaled, ~near_a)  # a side left empty: that seed is dropped below
    to_a, to_b = (np.linalg.norm(scaled[None] - c[:, None], axis=2) for c in (a, b))
    near_a = to_a <= to_b
    split = near_a.any(axis=1) & (~near_a).any(axis=1) & ~np.isnan(a).any(axis=1) & ~np.isnan(b).any(axis=1)
    if not split.any():
        centre = data.mean(axis=0)
        return one_set_colours(centre, centre[0] > 110)
    cost = np.where(split, np.minimum(np.minimum(to_a, to_b), OUTLIER).sum(axis=1), np.inf)
    k = int(np.argmin(cost))
    a, b = a[k] / w, b[k] / w
    return {"light": a, "dark": b} if a[0] >= b[0] else {"light": b, "dark": a}


def _medians(values: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Each row's median of its members among `values` (m x 3; `members` rows x m), coordinate by coordinate, NaN
    where a row has no member (or only NaN there): what `np.nanmedian` gives over the values with the others NaN,
    without its masked arrays (`two_sets` took 6.2 ms a call with them, 2.3 without)."""
    x = np.where(members[..., None], values[None], np.nan)
    x.sort(axis=1)  # NaN last
    k = np.count_nonzero(~np.isnan(x), axis=1)[:, None]  # per row and coordinate
    low = np.take_along_axis(x, np.maximum((k - 1) // 2, 0), axis=1)[:, 0]
    high = np.take_along_axis(x, k // 2, axis=1)[:, 0]
    out = (low + high) / 2  # an odd count's middle, x + x halved, is x exactly
    out[k[:, 0] == 0] = np.nan
    return out


__all__ = ["ColourEvidence", "FLIPPED_CONFIDENCE", "Stack", "counts_making_fifteen", "flip", "off_prior",
           "stacks_to_flip", "too_many", "two_sets"]
