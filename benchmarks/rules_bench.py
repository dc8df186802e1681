"""Legal-play generation: ours against gnubg-nn's C generator on the same 20,000 (position, roll) pairs.

Prints the median and worst time per pair for each, and the ratio of medians. Run: python benchmarks/rules_bench.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gnubg_nn  # noqa: E402  (test extra; a benchmark reference, never imported by companion)

from companion.rules import Position, Roll  # noqa: E402


def pairs(count: int, seed: int = 424242) -> list[tuple[Position, Roll]]:
    rng = random.Random(seed)
    out: list[tuple[Position, Roll]] = []
    while len(out) < count:
        position = Position.start()
        while not position.is_game_over() and len(out) < count:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            out.append((position, roll))
            position = rng.choice(position.legal_plays(roll)).position
    return out


def main(count: int = 20_000, repeats: int = 3) -> None:
    sample = pairs(count)
    boards = [[list(p.opponent[1:26]), list(p.player[1:26])] for p, _ in sample]
    ours: list[float] = []
    theirs: list[float] = []
    clock = time.perf_counter
    for (position, roll), board in zip(sample, boards):
        best_ours = best_theirs = float("inf")
        for _ in range(repeats):  # best of a few: the machine's noise, not the code's cost
            t = clock()
            position.legal_plays(roll)
            best_ours = min(best_ours, clock() - t)
            t = clock()
            gnubg_nn.moves(board, roll.die1, roll.die2)
            best_theirs = min(best_theirs, clock() - t)
        ours.append(best_ours)
        theirs.append(best_theirs)
    m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
    q = statistics.quantiles(ours, n=100)
    print(f"pairs: {len(sample)} (random play, seed 424242), best of {repeats} runs each")
    print(f"{'':24}{'median':>12}{'p99':>12}{'worst':>12}")
    print(f"{'companion.rules':24}{m_ours * 1e6:>10.1f}us{q[98] * 1e6:>10.1f}us{max(ours) * 1e6:>10.1f}us")
    q2 = statistics.quantiles(theirs, n=100)
    print(f"{'gnubg-nn (C)':24}{m_theirs * 1e6:>10.1f}us{q2[98] * 1e6:>10.1f}us{max(theirs) * 1e6:>10.1f}us")
    print(f"ratio of medians: {m_ours / m_theirs:.1f} (target <= 20); worst case {max(ours) * 1e3:.2f} ms (target < 2 ms)")


if __name__ == "__main__":
    main()
