"""The fifteen-a-side replay tool (`tools/replay_fifteen.py`): what it records from the photoreal benchmark replays
to exactly the readings the benchmark judged, and a changed constant is replayed, not read back."""

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import replay_fifteen  # noqa: E402

import companion.vision.checker_sets as checker_sets  # noqa: E402

SAMPLE = ROOT / "docs" / "photoreal-sample"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "sample.pkl"
    replay_fifteen.record(["--dir", str(SAMPLE)], out)
    return pickle.loads(out.read_bytes())


def test_the_replay_gives_back_every_reading_the_benchmark_judged(recorded):
    assert len(recorded) == len(list(SAMPLE.glob("*.jpg")))
    assert all(len(f["truth"]) == 26 and f["dists"].shape == (26, 16) for f in recorded)
    for frame in recorded:
        assert [tuple(p) for p in replay_fifteen.replay_frame(frame)] == [tuple(p) for p in frame["read"]]
    right, seen, full = replay_fifteen.score(recorded, [f["read"] for f in recorded])
    assert right == seen and full == len(recorded)  # the sample's eight frames all read right today


def test_a_changed_constant_is_replayed(recorded, monkeypatch):
    # colour chances capped at a coin's toss: the sets are then chosen by the counts alone, and names go astray
    monkeypatch.setattr(checker_sets, "COLOUR_CAP", 0.5)
    right, seen, _ = replay_fifteen.score(recorded, [replay_fifteen.replay_frame(f) for f in recorded])
    assert right < seen


def test_the_colour_distances_are_replayed_not_read_back(recorded, monkeypatch):
    # every stack's colour distance made to speak for the other set, loudly: the replay must weigh them again
    assert any(f["distances"] for f in recorded)
    monkeypatch.setattr(checker_sets, "DISTANCE_WEIGHT", -1.0)
    right, seen, _ = replay_fifteen.score(recorded, [replay_fifteen.replay_frame(f) for f in recorded])
    assert right < seen


def test_the_trays_chances_are_replayed_with_their_holding_word(monkeypatch):
    """A frame with four light checkers borne off, its tray sure of three (as in `test_checker_sets`): replayed with
    half the count's word the strips stand; with the count at its word a checker is put on a stack of two. The
    sample's frames bear nothing off, so this one is made."""
    import companion.vision.strip_reader as strip_reader
    from tests.vision.test_checker_sets import START_PLACES, colours_of, seen_as

    places = list(START_PLACES)
    places[18] = ("light", 1)
    trays = np.full((2, 16), 0.05 / 15)
    trays[0, 3], trays[1, 0] = 0.95, 0.95  # per set, light then dark, before the holding word and the trust
    frame = {"busy": False, "dists": seen_as(places), "trays": trays, "distances": {},
             "light": {s: c for s, c in enumerate(colours_of(places)) if places[s][0]}}
    monkeypatch.setattr(strip_reader, "TRAY_COUNT_WORD", 0.5)
    assert replay_fifteen.replay_frame(frame) == places
    monkeypatch.setattr(strip_reader, "TRAY_COUNT_WORD", 1.0)
    assert replay_fifteen.replay_frame(frame)[0] == ("light", 3)
