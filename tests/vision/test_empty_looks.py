"""Each point's empty look, learnt from a photo of a known position: kept in the profile, matched on later frames,
forgiven at calibration where the network took an empty point for covered, and renewed by confirmed positions."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.referee.observations import BoardReading
from companion.rules import Position
from companion.rules.layout import STANDARD
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Renderer, Scene
from companion.sim.truth import image_corners
from companion.vision.calibrate import CalibrationError, calibrate
from companion.vision.empty_looks import EmptyLooks, EmptyLooksError
from companion.vision.orientation import Orientation
from companion.vision.profile import Profile, ProfileError
from companion.vision.strip_reader import StripReader

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"


def _render(position, *, tilt=10.0, seed=2, light=0.0):
    scene = Scene.from_position(position, 0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=tilt), Effects(noise=3, light=light),
                                              np.random.default_rng(seed))
    return image, image_corners(label)


def _counts(reading):
    return [p.count for p in reading.points]


def test_looks_round_trip_and_a_bad_file_says_so(tmp_path):
    image, corners = _render(Position.start())
    empty = [c == 0 for c in _counts(StripReader(corners).read(image))]
    looks = EmptyLooks.none().learnt(image, corners, STANDARD, empty)
    assert len(looks) == 16 and looks.known.tolist() == empty
    path = tmp_path / "board.empty.npz"
    looks.save(path)
    loaded = EmptyLooks.load(path)
    assert np.array_equal(loaded.strips, looks.strips) and np.array_equal(loaded.known, looks.known)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(EmptyLooksError, match="cannot be read"):
        EmptyLooks.load(path)
    with pytest.raises(ValueError, match="24 points"):
        looks.learnt(image, corners, STANDARD, [True] * 23)


def test_a_profile_keeps_its_looks_beside_it_and_refuses_a_missing_file(tmp_path):
    image, corners = _render(Position.start())
    looks = EmptyLooks.none().learnt(image, corners, STANDARD, [c == 0 for c in _counts(StripReader(corners).read(image))])
    profile = Profile(corners, Orientation(), reader="strips", geometry=STANDARD, empty_looks=looks)
    path = tmp_path / "board.toml"
    profile.save(path)
    assert 'empty_looks = "board.empty.npz"' in path.read_text()
    loaded = Profile.load(path)
    assert loaded.empty_looks is not None and np.array_equal(loaded.empty_looks.known, looks.known)
    assert loaded.board_reader(corners).empty_looks is loaded.empty_looks
    (tmp_path / "board.empty.npz").unlink()
    with pytest.raises(ProfileError, match="empty looks board.empty.npz are missing"):
        Profile.load(path)


def test_a_point_that_still_looks_empty_is_matched_and_one_with_a_checker_is_not():
    """Looks from the start; a later frame (another tilt, lighter, other noise) after two plays: every point
    that gained checkers differs from its empty look, the points still empty match theirs, and the reading is
    the same as without the looks."""
    start, corners = _render(Position.start())
    plain = StripReader(corners)
    empty = [c == 0 for c in _counts(plain.read(start))]
    looks = EmptyLooks.none().learnt(start, corners, STANDARD, empty)
    later_position = Position.start().play("24/18 13/11", 6, 2).position
    later_position = later_position.play("13/7 6/5", 6, 1).position
    later, later_corners = _render(later_position, tilt=14, seed=5, light=0.1)
    truth = _counts(StripReader(later_corners).read(later))
    reader = StripReader(later_corners, empty_looks=looks)
    matched = reader.looking_empty(reader.hidden(later))
    covered_now = [s for s in range(24) if empty[s] and truth[s]]
    still_empty = [s for s in range(24) if empty[s] and not truth[s]]
    assert len(covered_now) >= 3
    assert not matched[covered_now].any()
    assert matched[still_empty].mean() >= 0.8
    assert not matched[[s for s in range(24) if not empty[s]]].any()  # no look, no match
    assert _counts(reader.read(later)) == truth


def test_calibration_forgives_an_empty_point_read_covered_and_learns_its_look():
    """A polished-slate board from the development set (never trained on) whose start the network reads with
    point 23 covered: refused without the looks, calibrated with them, with a warning naming the point; the
    profile reads the start back."""
    path = SAMPLE / "train-00100-00.jpg"
    label = json.loads(path.with_suffix(".json").read_text())
    from tools.strip_data import photoreal_label

    corners, _, orient, _, _ = photoreal_label(label)
    image = cv2.imread(str(path))
    with pytest.raises(CalibrationError, match="not in its starting position"):
        calibrate(image, corners=corners, markers=False, player0=orient.player0_colour, learn_empty=False)
    result = calibrate(image, corners=corners, markers=False, player0=orient.player0_colour)
    assert result.profile.empty_looks is not None and len(result.profile.empty_looks) == 16
    assert "point 23, empty in the position, looked covered" in result.warning
    board = result.profile.board_reader(corners).read(image).to_board_reading(result.profile.orientation)
    start = BoardReading.from_position(Position.start(), 0, trays=False)
    assert [(p.owner, p.count) for p in board.points] == [(p.owner, p.count) for p in start.points]


def test_a_confirmed_position_teaches_the_watcher_its_empty_points():
    """The referee takes the settled board: each point that position leaves empty gets its look from that frame
    (the start's 16 and, after a play, those the play emptied); a board the watcher did not settle on teaches
    nothing."""
    from companion.sources import confirmed_board
    from companion.referee.events import PlayMade
    from companion.vision.watch import BoardWatcher

    start, corners = _render(Position.start())
    profile = calibrate(start, corners=corners, markers=False, reader="strips").profile
    assert profile.empty_looks is not None and len(profile.empty_looks) == 16
    play = Position.start().play("13/7 13/9", 6, 4)  # blots on the 7 and 9 points: 14 points empty
    image, _ = _render(play.position, seed=7)
    watcher = BoardWatcher(profile, hold=0.2, dice=False)
    readings = [o for i in range(10) for o in watcher.feed(image, i * 0.05) if isinstance(o, BoardReading)]
    assert len(readings) == 1
    other = BoardReading.from_position(Position.start(), 0, trays=False)
    assert not watcher.confirm(other)  # not what the board settled as
    assert len(watcher.profile.empty_looks) == 16
    assert confirmed_board(readings[0], [PlayMade(0, play, Position.start())]) is readings[0]
    assert confirmed_board(readings[0], [PlayMade(0, play, Position.start(), legal=False)]) is None
    assert confirmed_board(readings[0], []) is None
    assert watcher.confirm(readings[0])
    looks = watcher.profile.empty_looks
    orientation = watcher.profile.orientation
    empty_now = {s for s in range(24) if readings[0].points[orientation.point_of_slot(s) - 1].count == 0}
    assert set(np.flatnonzero(looks.known)) == set(np.flatnonzero(profile.empty_looks.known)) | empty_now
    assert len(empty_now) == 14 and not np.array_equal(looks.strips, profile.empty_looks.strips)
    assert watcher.profile.empty_looks is looks and watcher._reader.empty_looks is looks
