"""The live-path timing bench (`benchmarks/live_read_bench.py`) measures what it says on the committed sample."""

import json
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "benchmarks"))
import live_read_bench  # noqa: E402


def test_the_bench_times_each_frame_the_watchers_way_and_the_one_off_read():
    figures = live_read_bench.measure([live_read_bench.SAMPLE], (640, 360), repeat=1)
    frames = list(live_read_bench.SAMPLE.glob("*.jpg"))
    assert len({json.loads(p.with_suffix(".json").read_text())["board_id"] for p in frames}) == len(frames)
    assert figures["frames"] + figures["boards refused"] == len(frames)  # one frame a board: each read or refused
    assert figures["frames"] >= len(frames) // 2  # most calibrate on their own position
    assert 0 < figures["live read"] <= figures["live p95"]
    assert {"  strips", "  colours", "  trays", "  fifteen"} <= set(figures)
    assert figures["one-off read"] > figures["  strips"]  # it measures the bar and builds a reader as well
