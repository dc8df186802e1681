"""The photoreal benchmark's referee measure: a frame of a real match's play is judged by the referee's inference
from the position before and the dice, and a reading that shows another position is never called identified."""

import sys
from dataclasses import dataclass
from pathlib import Path

from companion.record.audit import audit_match
from companion.record.jellyfish import read_match_file
from companion.referee.observations import BoardReading, SlotReading
from companion.rules import Position
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
        assert photoreal_bench.referee_judgement(_Read(truth), None, label, plays) in ("identified", "asks")
        assert photoreal_bench.referee_judgement(_Read(truth, busy="a hand"), None, label, plays) is None


def test_a_reading_of_another_position_is_never_identified():
    plays, labels = _plays_and_labels()
    for label, trace in labels:
        truth = BoardReading.from_position(Position.from_position_id(trace.after), trace.player)
        # a checker surely seen on an empty point the play did not reach
        empty = next(i for i, slot in enumerate(truth.points) if slot.count == 0)
        moved = truth.with_point(empty, SlotReading(0, 1, confidence=1.0))
        assert photoreal_bench.referee_judgement(_Read(moved), None, label, plays) in ("waits", "wrong")
        assert photoreal_bench.referee_judgement(_Read(moved), None, label, plays) != "identified"
