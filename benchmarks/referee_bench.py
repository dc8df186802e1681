"""Referee speed over the real-match replay: inference per play, and inference plus diagnosis per illegal play.

For every play of the shared matches (about 15,000): the time for the referee to turn the board reading after
the play into its verdict (legal-play generation, matching the reading), and, for the same play made illegal
(its last checker stopped one pip short), the time for inference plus diagnosis. Legal-play generation alone is
printed beside them as the reference. Target: median at most 5 ms. Run: python benchmarks/referee_bench.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.errors import InvalidPositionError  # noqa: E402
from companion.referee import BoardReading, Fit, diagnose, infer_play  # noqa: E402
from companion.rules import Position  # noqa: E402
from tests.oracles.samples import real_match_plays  # noqa: E402


def short_of(before: Position, after: Position) -> Position | None:
    """`after` with one moved checker stopped a pip short: usually not a legal result."""
    mine = list(after.player)
    for point in range(1, 24):
        if mine[point] > before.player[point] and not after.opponent[24 - point]:
            mine[point] -= 1
            mine[point + 1] += 1
            try:
                return Position(tuple(mine), after.opponent)
            except InvalidPositionError:
                return None
    return None


def row(name: str, times: list[float]) -> str:
    q = statistics.quantiles(times, n=100)
    return f"{name:34}{statistics.median(times) * 1e3:>9.3f}ms{q[98] * 1e3:>9.3f}ms{max(times) * 1e3:>9.3f}ms{len(times):>8}"


def main() -> None:
    plays = real_match_plays()
    clock = time.perf_counter
    generate, infer, illegal = [], [], []
    for before, roll, after in plays:
        reading = BoardReading.from_position(after, 0)
        t = clock()
        legal = before.legal_plays(roll)
        generate.append(clock() - t)
        t = clock()
        result = infer_play(before, roll, reading, 0)
        infer.append(clock() - t)
        assert result.fit in (Fit.PLAY, Fit.UNCHANGED)
        wrong = short_of(before, after)
        if wrong is None or any(p.position.swap() == wrong for p in legal):
            continue
        bad = BoardReading.from_position(wrong, 0)
        t = clock()
        plays_now = before.legal_plays(roll)
        if infer_play(before, roll, bad, 0, plays=plays_now).fit is Fit.NONE:
            mine, theirs = bad.best_guess()
            diagnose(before, roll, (mine, theirs), plays_now)
        illegal.append(clock() - t)
    print(f"real-match plays: {len(plays)}")
    print(f"{'':34}{'median':>11}{'p99':>11}{'worst':>11}{'n':>8}")
    print(row("legal plays alone (reference)", generate))
    print(row("inference (legal play read)", infer))
    print(row("inference + diagnosis (illegal)", illegal))
    print(f"ratio inference / generation (medians): {statistics.median(infer) / statistics.median(generate):.1f}")
    print(f"target: median at most 5 ms -> inference {statistics.median(infer) * 1e3:.2f} ms, "
          f"with diagnosis {statistics.median(illegal) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
