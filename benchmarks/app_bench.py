"""How fast the app answers: hint and cube-decision latency, and the longest stall of the UI while analysis runs.

    python benchmarks/app_bench.py [--positions 300]

Latency is measured over real positions (the shared matches), through `companion.analysis.Engine`, beside
gnubg-nn's own best move in the same run as a reference. The stall is measured in the running app (headless,
training mode, a match replayed fast so the engine is always busy): a 10 ms timer records how late the event
loop runs it, and each observation's handling time on the UI thread is kept. Targets: hint <= 50 ms,
cube decision <= 100 ms, no stall over 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _row(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"{name:<34} median {statistics.median(ms):7.2f} ms   p95 {_percentile(ms, 0.95):7.2f} ms   "
            f"worst {max(ms):7.2f} ms   (n={len(ms)})")


def latency(count: int) -> None:
    import gnubg_nn

    from companion.analysis import DEEP, FAST, EngineProcess
    from companion.rules import GameState, MatchState, Phase
    from tests.oracles.gnubg_nn_oracle import to_board
    from tests.oracles.samples import real_match_pairs

    engine = EngineProcess()  # as the app runs it: in a process of its own, so the figures include the hand-over
    engine.warm_up()
    pairs = [(p, r) for p, r in real_match_pairs(count, seed=21) if len(p.legal_plays(r)) > 1]
    match = MatchState.match_to(7)
    for level in (FAST, DEEP):
        hint_times = []
        for position, roll in pairs:
            started = time.perf_counter()
            engine.hint(position, roll, match, 0, level=level)
            hint_times.append(time.perf_counter() - started)
        print(_row(f"hint, {level}", hint_times))
    reference = []
    for position, roll in pairs:
        started = time.perf_counter()
        gnubg_nn.best_move(to_board(position), roll.die1, roll.die2)
        reference.append(time.perf_counter() - started)
    print(_row("reference: gnubg-nn best move, 0-ply", reference))
    positions = list({p for p, _ in pairs})[: max(50, count // 3)]
    for level in (FAST, DEEP):
        cube_times = []
        for position in positions:
            game = GameState(match, position, Phase.ROLL, 0)
            started = time.perf_counter()
            engine.cube_for(game, level=level)
            cube_times.append(time.perf_counter() - started)
        print(_row(f"cube decision, {level}", cube_times))
    engine.close()


async def _stalls(observations: int, delay: float) -> tuple[list[float], list[float], int]:
    from companion.record.journal import JournalHeader
    from companion.record.recorder import Recorder, load_any
    from companion.sources import ReplaySource
    from companion.tui.app import CompanionApp

    loaded, _ = load_any(ROOT / "companion" / "data" / "demo.mat")
    folder = Path(tempfile.mkdtemp(prefix="app-bench-"))
    recorder = Recorder.create(folder / "bench.jsonl", JournalHeader(loaded.names, loaded.header.length))
    app = CompanionApp(recorder, mode="train", source=ReplaySource(loaded.observations[:observations], delay))
    lags: list[tuple[float, float]] = []
    async with app.run_test(size=(130, 48)) as pilot:
        expected = start = time.perf_counter() + 0.01

        def tick() -> None:
            nonlocal expected
            now = time.perf_counter()
            lags.append((now - start, max(0.0, now - expected)))
            expected = now + 0.01

        app.set_interval(0.01, tick)
        while len(recorder.observations) < observations:
            if app._exception is not None or not app.is_running:
                raise RuntimeError(f"the app stopped: {app._exception!r}")
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause(0.1)
    return lags, app.stalls, len(app._reviewer.ratings if app._reviewer else [])


def stalls(observations: int, delay: float) -> None:
    timed, handling, ratings = asyncio.run(_stalls(observations, delay))
    lags = [lag for _, lag in timed]
    print(_row("UI event-loop lag (10 ms timer)", lags))
    worst_at, worst = max(timed, key=lambda t: t[1])
    print(f"{'':<34} the worst lag came {worst_at:.2f} s after start-up")
    print(_row("UI thread per observation", handling))
    print(f"{'':<34} {ratings} plays and cube decisions rated meanwhile; longest stall "
          f"{max(max(lags), max(handling)) * 1000:.1f} ms (target 50 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--observations", type=int, default=300)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds between replayed observations")
    args = parser.parse_args()
    latency(args.positions)
    stalls(args.observations, args.delay)


if __name__ == "__main__":
    main()
