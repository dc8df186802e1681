"""`benchmarks/photoreal_summary.py`: its totals are the benchmark's own, summed, and each kind of miss is named."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import photoreal_bench  # noqa: E402
import photoreal_summary  # noqa: E402

SAMPLE = ROOT / "docs" / "photoreal-sample"


def test_the_summary_sums_what_the_benchmark_judged(tmp_path, monkeypatch, capsys):
    out = tmp_path / "sample.json"
    monkeypatch.setattr(sys, "argv", ["photoreal_bench.py", "--dir", str(SAMPLE), "--json", str(out)])
    assert photoreal_bench.main() == 0
    frames = json.loads(out.read_text())
    s = photoreal_summary.summary(frames)
    assert s["frames"] == len(frames) == len(list(SAMPLE.glob("*.jpg")))
    assert s["points_right"] == sum(f["points_right"] for f in frames)
    assert s["points_seen"] == sum(f["points_seen"] for f in frames)
    assert sum(s["misses"].values()) == sum(len(f["wrong"]) for f in frames)
    capsys.readouterr()
    # the same frames twice, as two sets: twice the points; kept to none, nothing
    copy = tmp_path / "copy.json"
    copy.write_text(out.read_text())
    assert photoreal_summary.main([str(out), str(copy), "--by-set"]) == 0
    assert f"({2 * s['points_right']}/{2 * s['points_seen']})" in capsys.readouterr().out
    calibrated = tmp_path / "none.json"
    calibrated.write_text(json.dumps([dict(f, calibrated=False) for f in frames]))
    assert photoreal_summary.main([str(out), "--calibrated-in", str(calibrated)]) == 0
    assert "fully right 0/0" in capsys.readouterr().out


def test_each_kind_of_miss_is_named():
    kinds = [photoreal_summary.miss_kind(w) for w in (
        [3, ["light", 2], ["dark", 2, 0.9]], [3, [None, 0], ["dark", 1, 0.4]], [3, ["dark", 3], [None, 0, 0.7]],
        [3, ["dark", 3], ["dark", 4, 0.5]], [3, ["dark", 8], ["light", 5, 0.5]], ["bar top", 1, ["dark", 0]])]
    assert kinds == ["colour", "empty read covered", "covered read empty", "count < 6", "count >= 6 and colour",
                     "bar"]
    # the sample reads every place right: a frame with misses is made here, and summed with a clean one
    wrong = [[3, ["light", 2], ["dark", 2, 0.9]], [5, ["dark", 8], ["light", 5, 0.5]], ["bar top", 1, ["dark", 0]]]
    frame = {"points_right": 22, "points_seen": 24, "full": False, "hand": True, "busy": True, "referee": None,
             "wrong": wrong}
    clean = dict(frame, points_right=24, full=True, hand=False, busy=False, referee="identified", wrong=[])
    s = photoreal_summary.summary([frame, clean])
    assert (s["points_right"], s["points_seen"], s["full"]) == (46, 48, 1)
    assert s["misses"] == {"colour": 1, "count >= 6 and colour": 1, "bar": 1}
    assert s["busy_clear"] == (0, 1) and s["busy_hand"] == (1, 1) and s["referee"] == {"identified": 1}
