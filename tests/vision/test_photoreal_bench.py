"""The photoreal benchmark's referee measure: a frame of a real match's play is judged by the referee's inference
from the position before and the dice, and a reading that shows another position is never called identified."""

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from companion.record.audit import audit_match
from companion.record.jellyfish import read_match_file
from companion.referee.observations import BoardReading, SlotReading
from companion.rules import Position, Roll
from companion.sim.render import Scene
from tests.conftest import match_files

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import photoreal_bench  # noqa: E402


@dataclass
class _Read:
    """Stands for an ImageReading: what the referee is handed."""

    board: BoardReading
    busy: str | None = None

    def to_board_reading(self, orientation) -> BoardReading:
        return self.board


def _plays_and_labels(count: int = 12):
    traces = [t for t in audit_match(read_match_file(match_files()[0]), trace=True).trace if t.before != t.after]
    plays = {(t.after, t.player): (t.before, tuple(t.dice)) for t in traces}
    labels = []
    for t in traces[:count]:
        scene = Scene.from_position(Position.from_position_id(t.after), t.player)
        labels.append(({"points": [list(p) for p in scene.points], "bar": list(scene.bar), "off": list(scene.off),
                        "roller": t.player}, t))
    return plays, labels


def test_a_true_reading_is_identified_a_busy_one_not_handed_on():
    plays, labels = _plays_and_labels()
    for label, trace in labels:
        assert photoreal_bench.label_position(label) == (trace.after, trace.player)
        truth = BoardReading.from_position(Position.from_position_id(trace.after), trace.player)
        assert photoreal_bench.referee_judgement(_Read(truth), None, label, plays) == "identified"
        assert photoreal_bench.referee_judgement(_Read(truth, busy="a hand"), None, label, plays) is None


def test_another_plays_result_is_wrong_and_a_reading_of_no_whole_position_waits():
    plays, labels = _plays_and_labels()
    wrong = 0
    for label, trace in labels:
        before = Position.from_position_id(trace.before)
        truth = Position.from_position_id(trace.after).swap()
        others = [p for p in before.legal_plays(Roll(*trace.dice)) if p.position != truth]
        if others:  # the reading shows another legal play's result, surely
            shown = BoardReading.from_position(others[0].position.swap(), trace.player)
            assert photoreal_bench.referee_judgement(_Read(shown), None, label, plays) == "wrong"
            wrong += 1
        # a checker surely seen on an empty point: 16 of a side, no whole position, so the referee asks (a pattern
        # taken for a checker is likelier than a checker added); whole positions that accuse are the next test's
        exact = BoardReading.from_position(Position.from_position_id(trace.after), trace.player)
        empty = next(i for i, slot in enumerate(exact.points) if slot.count == 0)
        extra = exact.with_point(empty, SlotReading(0, 1, confidence=1.0))
        assert photoreal_bench.referee_judgement(_Read(extra), None, label, plays) == "waits"
        unsure = extra.with_point(empty, SlotReading(0, 1, confidence=0.1))
        assert photoreal_bench.referee_judgement(_Read(unsure), None, label, plays) in ("waits", "identified")
    assert wrong >= 5


def test_a_whole_position_no_play_reaches_accuses_only_where_read_surely():
    """The benchmark judges as the referee ends a turn: a valid position no legal play of the dice reaches is an
    accusation when every slot that differs from the nearest legal play was read surely, and waits otherwise."""
    plays, labels = _plays_and_labels()
    judged = 0
    for label, trace in labels:
        exact = BoardReading.from_position(Position.from_position_id(trace.after), trace.player)
        # one of the mover's checkers on the next point along from where the play put it, still 15 a side
        for index, slot in enumerate(exact.points):
            step = 1 if trace.player == 0 else -1
            if slot.owner == trace.player and slot.count and 0 <= index + step < 24 and not exact.points[index + step].count:
                shifted = exact.with_point(index, SlotReading(trace.player, slot.count - 1) if slot.count > 1
                                           else SlotReading.empty())
                shifted = shifted.with_point(index + step, SlotReading(trace.player, 1))
                break
        else:
            continue
        verdict = photoreal_bench.referee_judgement(_Read(shifted), None, label, plays)
        if verdict in ("identified", "asks"):  # another legal play reaches it: nothing to accuse
            continue
        assert verdict == "accuses"
        unsure = shifted.with_point(index + step, SlotReading(trace.player, 1, confidence=0.5))
        assert photoreal_bench.referee_judgement(_Read(unsure), None, label, plays) in ("waits", "identified", "asks")
        judged += 1
    assert judged >= 3


def test_a_read_is_noted_beside_the_frames_it_read(tmp_path, monkeypatch, capsys):
    """Each run notes its read in the set's folder, so that a fresh draw read once is known to be read
    (`tools/photoreal_sets.py list --root`)."""
    from tools.photoreal_sets import reads

    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    for suffix in (".jpg", ".json"):
        shutil.copy(sample / f"heldout-00002-01{suffix}", tmp_path)
    monkeypatch.setattr(sys, "argv", ["photoreal_bench.py", "--dir", str(tmp_path)])
    assert photoreal_bench.main() == 0
    assert photoreal_bench.main() == 0
    noted = reads(tmp_path)
    assert [(r["mode"], r["frames"]) for r in noted] == [("uncalibrated corners given strips jitter 2", 1)] * 2
    assert "points right" in capsys.readouterr().out
    # the committed sample is no draw: reading it leaves the repository as it was
    monkeypatch.setattr(photoreal_bench, "SAMPLE", tmp_path)
    assert photoreal_bench.main() == 0
    assert len(reads(tmp_path)) == 2
    # a folder the bench cannot write in: the results stand, the read is said not noted
    monkeypatch.setattr(photoreal_bench, "SAMPLE", tmp_path / "elsewhere")
    def read_only(*_):
        raise PermissionError("read-only")

    monkeypatch.setattr(photoreal_bench, "record_read", read_only)
    assert photoreal_bench.main() == 0
    assert "was not noted" in capsys.readouterr().err


def test_calibration_parts_reads_the_same_frames_with_every_variant(tmp_path, monkeypatch, capsys):
    """`benchmarks/calibration_parts.py` on a set of two boards: one whose start calibrates, and a later frame (here
    the same photo again) read by every variant, each nearly right on the start it was calibrated on; one whose
    "start" is a game in play, which does not calibrate and is left out of every variant alike."""
    import calibration_parts

    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    board = tmp_path / "two-boards"
    board.mkdir()
    start = json.loads((sample / "train-00010-00.json").read_text())
    in_play = json.loads((sample / "heldout-00002-01.json").read_text())
    for stem, source, label in (("train-00010-00", "train-00010-00", start),
                                ("train-00010-01", "train-00010-00", {**start, "frame_index": 1}),
                                ("heldout-00002-00", "heldout-00002-01", {**in_play, "frame_index": 0}),
                                ("heldout-00002-01", "heldout-00002-01", in_play)):
        shutil.copy(sample / f"{source}.jpg", board / f"{stem}.jpg")
        (board / f"{stem}.json").write_text(json.dumps(label))
    monkeypatch.setattr(sys, "argv", ["calibration_parts.py", "--root", str(tmp_path), "two-boards"])
    assert calibration_parts.main() == 0
    out = capsys.readouterr().out
    assert any(line.startswith("board heldout-00002 ") and "calibration failed" in line for line in out.splitlines())
    rows = [line for line in out.splitlines() if line.startswith("all")]
    names = [name for name, _ in calibration_parts.variants(*_one_variant_input(sample))]
    assert [row.split("points right")[0].split(None, 1)[1].strip() for row in rows] == names
    assert len({row.split("% of")[1].split()[0] for row in rows}) == 1  # the same points read by every variant
    assert all(row.endswith("of 1") for row in rows)  # and the same one frame
    for row in rows:
        assert float(row.split("points right")[1].split("%")[0]) >= 90.0, row


def _one_variant_input(sample: Path):
    """A calibrated profile, its corners and its photo: what `calibration_parts.variants` takes."""
    import cv2

    from companion.vision.calibrate import calibrate
    from tools.strip_data import photoreal_label

    label = json.loads((sample / "train-00010-00.json").read_text())
    corners, _, orient, _, _ = photoreal_label(label)
    image = cv2.imread(str(sample / "train-00010-00.jpg"))
    profile = calibrate(image, corners=corners, markers=False, player0=orient.player0_colour).profile
    return profile, corners, image


def _one_board(tmp_path: Path, later: list[dict]) -> Path:
    """A board's folder: its start (the sample's starting position) and later frames of the same photo, each
    label changed by the dict given for it."""
    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    start = json.loads((sample / "train-00010-00.json").read_text())
    board = tmp_path / "board"
    board.mkdir()
    for k, change in enumerate([{}] + later):
        shutil.copy(sample / "train-00010-00.jpg", board / f"train-00010-0{k}.jpg")
        (board / f"train-00010-0{k}.json").write_text(json.dumps({**start, "frame_index": k, **change}))
    return board


def test_mounted_reads_later_frames_at_the_profiles_corners(tmp_path, monkeypatch):
    """`--mounted`: a camera mounted once, so a later frame is read where calibration saw the board, whatever
    corners that frame's label would give it (here 40 px off, where the frame reads badly)."""
    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    corners = json.loads((sample / "train-00010-00.json").read_text())["corners"]
    board = _one_board(tmp_path, [{"corners": [[x + 40, y] for x, y in corners]}])
    right = {}
    for mounted in (False, True):
        out = tmp_path / f"{mounted}.json"
        monkeypatch.setattr(sys, "argv", ["photoreal_bench.py", "--dir", str(board), "--calibrate", "--json",
                                          str(out)] + (["--mounted"] if mounted else []))
        assert photoreal_bench.main() == 0
        [frame] = json.loads(out.read_text())
        assert frame["calibrated"]
        right[mounted] = frame["points_right"] / frame["points_seen"]
    assert right[True] >= 0.9 > right[False]


def test_confirmed_frames_teach_the_profile_the_next_frame_is_read_by(tmp_path, monkeypatch, capsys):
    """`--confirm`: a frame whose play the referee identifies teaches its board's profile (`Profile.confirmed`)
    before the board's next frame is read; a frame it does not identify teaches nothing."""
    from companion.vision.profile import Profile

    board = _one_board(tmp_path, [{}, {}, {}])
    said = iter(["identified", "waits", "identified"])
    monkeypatch.setattr(photoreal_bench, "referee_judgement", lambda *_: next(said))
    looks_read_by = []
    board_reader = Profile.board_reader

    def watched(self, corners, **how):
        looks_read_by.append(self.empty_looks)
        return board_reader(self, corners, **how)

    monkeypatch.setattr(Profile, "board_reader", watched)
    out = tmp_path / "out.json"
    monkeypatch.setattr(sys, "argv", ["photoreal_bench.py", "--dir", str(board), "--calibrate", "--confirm",
                                      "--json", str(out)])
    assert photoreal_bench.main() == 0
    assert [frame.get("taught") for frame in json.loads(out.read_text())] == [True, None, True]
    assert "frames that taught their profile: 2 of 2 identified" in capsys.readouterr().out
    first, second, third = looks_read_by[-3:]  # the three later frames' readers (calibration built its own before)
    assert not first.known[:, 1].any() and second.known[:, 1].any()  # the start's looks alone, then one taught
    assert third is second  # the frame the referee did not identify taught nothing


def test_the_true_board_is_the_labels_position_from_player_0s_side():
    """What the referee accepts when it identifies a frame's play: each point's owner and count as the label has
    them (player 0's numbering), whichever player moved."""
    _, labels = _plays_and_labels(24)
    assert {trace.player for _, trace in labels} == {0, 1}
    for label, _ in labels:
        board = photoreal_bench.true_board(label)
        assert [(p.owner, p.count) if p.count else (-1, 0) for p in board.points] == [tuple(p) for p in
                                                                                      label["points"]]
        assert [half.count for half in board.bar] == list(label["bar"])


def test_a_frame_is_read_at_the_same_corners_calibrated_or_not(tmp_path, monkeypatch):
    """The starts' corners are drawn on a generator of their own and a start left out still takes its draw, so a set
    read calibrated meets each later frame where the uncalibrated read met it (a clean comparison of the two)."""
    from companion.vision.strip_reader import StripReader

    board = _one_board(tmp_path, [{}, {}])
    met = {}
    read = StripReader.read

    def watched(self, image, *args, **kwargs):
        met.setdefault(calibrated, []).append(tuple((round(x, 6), round(y, 6)) for x, y in self.corners))
        return read(self, image, *args, **kwargs)

    monkeypatch.setattr(StripReader, "read", watched)
    for calibrated in (False, True):
        out = tmp_path / f"{calibrated}.json"
        monkeypatch.setattr(sys, "argv", ["photoreal_bench.py", "--dir", str(board), "--json", str(out)]
                            + (["--calibrate"] if calibrated else []))
        assert photoreal_bench.main() == 0
    later = met[False][1:]  # the uncalibrated read's frames after the start
    assert len(later) == 2 and met[True][-2:] == later
