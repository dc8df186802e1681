"""`benchmarks/photoreal_dice.py`: the plane it reads on is the strip reader's, and a roll is judged as the
referee would get it."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tools"))
import photoreal_dice  # noqa: E402
from strip_data import photoreal_label  # noqa: E402

from companion.vision.dice import DieRead, Found  # noqa: E402

SAMPLE = ROOT / "docs" / "photoreal-sample"


def _label(name: str) -> dict:
    return json.loads((SAMPLE / name).read_text())


def test_the_corners_and_sides_are_those_the_board_reader_is_given():
    for name in ("train-00012-02.json", "train-00010-00.json"):  # one seen from player 1's side, one not
        label = _label(name)
        corners, _, orient, _, _ = photoreal_label(label)
        assert photoreal_dice.image_corners(label) == tuple(corners)
        assert photoreal_dice.orientation(label) == orient


def _die(value: int, x: float, y: float, cocked: bool = False, confidence: float = 0.9) -> DieRead:
    return DieRead(value, (int(x - 8), int(y - 8), 16, 16), confidence, cocked, (100.0, 100.0))


def test_a_roll_is_judged_as_the_referee_would_get_it():
    orient = photoreal_dice.orientation(_label("train-00010-00.json"))
    thrown, places = [3, 1], [[452.1, 258.6], [487.9, 239.8]]
    judge = photoreal_dice.judge
    assert judge(thrown, places, Found((_die(3, 452, 259), _die(1, 488, 240))), orient) == "right"
    assert judge(thrown, places, Found((_die(1, 452, 259), _die(3, 488, 240))), orient) == "right"  # values, not order
    assert judge(thrown, places, Found((_die(3, 452, 259), _die(1, 300, 100))), orient) == "misread"  # a pip elsewhere
    assert judge(thrown, places, Found((_die(3, 452, 259), _die(2, 488, 240))), orient) == "misread"
    assert judge(thrown, places, Found((_die(3, 452, 259), _die(1, 488, 240, cocked=True))), orient) == "void"
    assert judge(thrown, places, Found((_die(3, 452, 259),)), orient) == "unclear"
    three = Found((_die(3, 452, 259), _die(1, 488, 240), _die(5, 200, 200)))
    assert judge(thrown, places, three, orient) == "unclear"
    # a die thrown cocked: right only when the reading calls the roll void for it
    second = [False, True]
    cocked_call = Found((_die(3, 452, 259), _die(1, 488, 240, cocked=True)))
    assert judge(thrown, places, cocked_call, orient, second) == "right"
    assert judge(thrown, places, Found((_die(3, 452, 259), _die(1, 488, 240))), orient, second) == "misread"
    wrong_die = Found((_die(3, 452, 259, cocked=True), _die(1, 488, 240)))  # the flat one called cocked
    assert judge(thrown, places, wrong_die, orient, second) == "misread"
    elsewhere = Found((_die(3, 452, 259), _die(1, 488, 240), _die(5, 200, 200, cocked=True, confidence=0.9)))
    assert judge(thrown, places, elsewhere, orient, second) == "misread"
    assert judge(thrown, places, cocked_call, orient, [False, False]) == "void"
    # a third die far less sure than the two best is dropped by the roll's own filter
    faint = Found((_die(3, 452, 259), _die(1, 488, 240), _die(5, 200, 200, confidence=0.2)))
    assert judge(thrown, places, faint, orient) == "right"


def test_the_sample_is_read_without_its_hand_frames(tmp_path, capsys):
    out = tmp_path / "dice.json"
    assert photoreal_dice.main(["--dir", str(SAMPLE), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    labels = {p.with_suffix(".jpg").name: json.loads(p.read_text()) for p in SAMPLE.glob("*.json")}
    clear = [name for name, label in labels.items() if not label.get("hand")]
    assert sorted(r["name"] for r in rows) == sorted(clear)
    assert all(r["thrown"] == sorted(labels[r["name"]]["dice"]) for r in rows)
    printed = capsys.readouterr().out
    assert f"frames with a hand left out: {len(labels) - len(clear)}" in printed
    totals = next(line for line in printed.splitlines() if line.startswith("all"))
    for kind in photoreal_dice.KINDS:
        assert f"{kind} {sum(r['kind'] == kind for r in rows):4d}" in totals


def test_a_folder_without_frames_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        photoreal_dice.main(["--dir", str(tmp_path)])


def test_the_label_s_cocked_dice_reach_the_judgement(tmp_path, monkeypatch):
    name = "train-00010-00"
    label = _label(name + ".json") | {"dice_cocked": [False, True]}
    (tmp_path / (name + ".json")).write_text(json.dumps(label))
    (tmp_path / (name + ".jpg")).write_bytes((SAMPLE / (name + ".jpg")).read_bytes())
    seen = []
    monkeypatch.setattr(photoreal_dice, "judge", lambda *args: seen.append(args[4]) or "misread")
    out = tmp_path / "dice.json"
    assert photoreal_dice.main(["--dir", str(tmp_path), "--json", str(out)]) == 0
    assert seen == [[False, True]]
    assert json.loads(out.read_text())[0]["cocked_thrown"] is True


def test_models_name_the_folder_the_dice_reader_loads(tmp_path, monkeypatch):
    loaded = []

    class Reader(photoreal_dice.DiceReader):
        def __init__(self, models):
            loaded.append(models)
            super().__init__()

    monkeypatch.setattr(photoreal_dice, "DiceReader", Reader)
    assert photoreal_dice.main(["--dir", str(SAMPLE), "--models", str(tmp_path)]) == 0
    assert loaded == [tmp_path]
    assert photoreal_dice.main(["--dir", str(SAMPLE)]) == 0
    assert loaded[1] == photoreal_dice.MODELS
