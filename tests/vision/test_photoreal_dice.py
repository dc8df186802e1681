"""`benchmarks/photoreal_dice.py`: what a roll's reading is called, and the totals it prints are its frames'."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import photoreal_dice  # noqa: E402

SAMPLE = ROOT / "docs" / "photoreal-sample"


def test_a_roll_is_right_only_with_the_values_thrown_and_no_more():
    judge = photoreal_dice.judge
    assert judge([3, 1], [1, 3]) == "right"
    assert judge([3, 1], [1, 3, 5]) == "invented"
    assert judge([3, 1], [3]) == "missed"
    assert judge([3, 1], [3, 2]) == "misread"
    assert judge([4, 4], [4]) == "missed"


def test_the_totals_are_the_frames_read(tmp_path, capsys):
    out = tmp_path / "dice.json"
    assert photoreal_dice.main(["--dir", str(SAMPLE), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    labelled = [p for p in SAMPLE.glob("*.json") if json.loads(p.read_text()).get("dice")]
    assert len(rows) == len(labelled) > 0
    assert all(r["board_kind"] == photoreal_dice.judge(r["thrown"], r["board"]) for r in rows)
    printed = capsys.readouterr().out
    board_line = next(line for line in printed.splitlines() if line.startswith("all") and " board " in line)
    for kind in photoreal_dice.KINDS:
        assert f"{kind} {sum(r['board_kind'] == kind for r in rows):4d}" in board_line


def test_a_folder_without_frames_is_refused(tmp_path):
    import pytest

    with pytest.raises(SystemExit):
        photoreal_dice.main(["--dir", str(tmp_path)])
