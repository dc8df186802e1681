"""How fast the app answers: a key press to the screen, hint and cube-decision latency, the review of a 7-point
match, and the longest stall of the UI while analysis runs.

    python benchmarks/app_bench.py [--positions 300] [--keys 120] [--review-runs 3]

Key press to screen: a game of the bundled 7-point match typed line by line into the running app (headless,
80x24, record mode), from the Enter key to the screen refreshed with the referee's verdict. Review: the whole
bundled match (`companion analyse --match`, and `v` in the app) rated by the engine, checker plays and cube
decisions, in this process and in the engine's own process as the app runs it.

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


def _typed_lines(path: Path) -> list[str]:
    """The bundled match as the lines a person types: dice, play, cube words."""
    from companion.record.jellyfish import read_match_file
    from companion.record.model import ActionKind

    lines: list[str] = []
    for game in read_match_file(path).games:
        first = True
        for a in game.actions:
            if a.kind is ActionKind.ROLL:
                d1, d2 = a.dice
                if first:  # the opening roll is typed as player 0's die, then player 1's
                    d1, d2 = (max(a.dice), min(a.dice)) if a.player == 0 else (min(a.dice), max(a.dice))
                    first = False
                lines += [f"{d1}{d2}", a.notation or "-"]
            elif a.kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP):
                lines.append({ActionKind.DOUBLE: "double", ActionKind.TAKE: "take", ActionKind.DROP: "pass"}[a.kind])
    return lines


async def _key_presses(count: int) -> tuple[list[float], list[float], list[float]]:
    """From the Enter key to the first paint of the screen after the line was handled (the compositor's refresh,
    wrapped to note its time), and what Pilot itself measures (its idle detection sleeps in 20 ms steps)."""
    from textual.screen import Screen

    from companion.record.journal import JournalHeader
    from companion.record.recorder import Recorder
    from companion.tui.app import CompanionApp

    lines = _typed_lines(ROOT / "companion" / "data" / "demo.mat")[:count]
    folder = Path(tempfile.mkdtemp(prefix="app-bench-keys-"))
    recorder = Recorder.create(folder / "keys.jsonl", JournalHeader(("A", "B"), 7))
    app = CompanionApp(recorder, mode="record")
    painted: list[float] = []
    original = Screen._compositor_refresh

    def noted(screen) -> None:
        original(screen)
        painted.append(time.perf_counter())

    Screen._compositor_refresh = noted  # type: ignore[method-assign]
    to_paint: list[float] = []
    pilot_times: list[float] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            line = app.query_one("#command")
            for text in lines:
                line.value = text
                await pilot.pause()
                handled = len(app.stalls)
                started = time.perf_counter()
                await pilot.press("enter")
                await pilot.pause()
                pilot_times.append(time.perf_counter() - started)
                if len(app.stalls) > handled:  # the line reached the referee: the first paint after it
                    done = started + sum(app.stalls[handled:])
                    after = [t for t in painted if t >= done]
                    if after:
                        to_paint.append(after[0] - started)
    finally:
        Screen._compositor_refresh = original  # type: ignore[method-assign]
    return to_paint, app.stalls, pilot_times


def key_presses(count: int) -> None:
    import os

    times, handling, pilot_times = asyncio.run(_key_presses(count))
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(_row("key press (Enter) to screen, 80x24", times))
    print(_row("  of which referee + journal (fsync)", handling))
    print(_row("  as Pilot waits for it (idle steps)", pilot_times))


def review(runs: int) -> None:
    from companion.analysis import Engine, EngineProcess, review_match
    from companion.record.recorder import load_any
    from companion.referee import Referee

    loaded, _ = load_any(ROOT / "companion" / "data" / "demo.mat")
    for name, engine in (("in process", Engine()), ("engine process, as the app", EngineProcess())):
        times, decisions = [], 0
        for _ in range(runs):
            started = time.perf_counter()
            result = review_match(Referee(loaded.header.match_state()).replay(loaded.observations), engine,
                                  loaded.names)
            times.append(time.perf_counter() - started)
            decisions = len(result.decisions)
        print(_row(f"review of the 7-point match, {name}", times)
              + f"  {decisions} decisions, {len(loaded.record().games)} games")
        if isinstance(engine, EngineProcess):
            engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--observations", type=int, default=300)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds between replayed observations")
    parser.add_argument("--keys", type=int, default=120, help="typed lines for the key-press figure")
    parser.add_argument("--review-runs", type=int, default=3, help="reviews of the 7-point match (median)")
    args = parser.parse_args()
    key_presses(args.keys)
    latency(args.positions)
    review(args.review_runs)
    stalls(args.observations, args.delay)


if __name__ == "__main__":
    main()
