"""The camera's pose from the board's homography, and dice placed where they stand (`companion.vision.camera`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.rules.layout import PLAY_HEIGHT, PLAY_WIDTH, BoardLayout
from companion.sim import STYLES, Pose
from companion.sim.pinhole import Pinhole, seen_at
from companion.sim.render import Renderer
from companion.vision.camera import DEFAULT_FOCAL, DIE_SIZE, MARK_HEIGHT, Camera
from companion.vision.dice import CubeRead, DieRead, Found
from companion.vision.plane import Plane
from companion.vision.profile import Profile, ProfileError


def _camera(tilt: float, turn: float, height: float, focal: float):
    """The board-to-image plane, the projection of any 3-D point and the centre of a `Pinhole` camera."""
    camera = Pinhole(tilt, turn, height, focal)
    return camera.plane(), camera.project, camera.centre


@pytest.mark.parametrize("tilt, turn", [(20, 0), (30, 7), (40, -4)])
def test_a_tilted_board_tells_the_focal_length_and_where_the_camera_is(tilt, turn):
    plane, _, centre = _camera(tilt, turn, 600.0, 1000.0)
    camera = Camera.from_plane(plane, (1280, 720))
    assert camera.focal_known and camera.focal == pytest.approx(1000.0, rel=1e-3)
    assert camera.centre == pytest.approx((centre[0], centre[1], -centre[2]), abs=0.5)
    assert camera.tilt == pytest.approx(tilt, abs=0.05)


@pytest.mark.parametrize("tilt", [0, 5])
def test_seen_from_overhead_the_focal_length_is_a_webcam_s(tilt):
    """Square-on, or nearly (under `LEAST_TILT`), the corners cannot tell the focal length."""
    plane, _, _ = _camera(tilt, 0, 600.0, 1000.0)
    camera = Camera.from_plane(plane, (1280, 720))
    assert not camera.focal_known and camera.focal == DEFAULT_FOCAL * 1280
    if tilt:
        return
    assert camera.centre[:2] == pytest.approx((PLAY_WIDTH / 2, PLAY_HEIGHT / 2), abs=0.5)
    assert camera.centre[2] == pytest.approx(600.0 * DEFAULT_FOCAL * 1280 / 1000.0, rel=1e-3)


@pytest.mark.parametrize("where", [(60.0, 40.0), (520.0, 400.0), (300.0, 225.0)])
def test_a_die_s_top_is_seen_away_from_the_camera_and_placed_back_where_it_stands(where):
    """From 600 mm up, 40 degrees off overhead, a die's top appears mm away from where it stands; the camera worked
    out from the board's corners alone puts it back."""
    plane, project, _ = _camera(40, 5, 600.0, 900.0)
    height = MARK_HEIGHT * DIE_SIZE
    seen = seen_at(plane, project((where[0], where[1], -height)))
    assert math.dist(seen, where) > 4.0  # what goes uncorrected
    camera = Camera.from_plane(plane, (1280, 720))
    assert camera.standing(seen, height) == pytest.approx(where, abs=0.05)
    assert camera.standing(seen, 0.0) == pytest.approx(seen)


def test_the_renderer_s_camera_is_found_where_the_renderer_put_it():
    """The simulator's camera stands 1,000 mm from the board's middle: its height follows the tilt."""
    renderer = Renderer(STYLES[0], 1280, 720)
    for tilt in (15, 25, 40):
        pose = Pose(tilt=tilt, roll=4)
        layout = BoardLayout(pose.home_right)
        h = renderer.homography(pose, layout)
        corners = renderer.project(h, layout, BoardLayout.playing_area())
        camera = Camera.from_plane(Plane.from_corners(tuple(corners)), (1280, 720))
        assert camera.focal_known
        assert camera.centre[2] == pytest.approx(1000.0 * math.cos(math.radians(tilt)), rel=1e-3)


def test_stand_moves_dice_and_cube_and_keeps_the_rest():
    plane, _, _ = _camera(30, 0, 600.0, 1000.0)
    camera = Camera.from_plane(plane, (1280, 720))
    die = DieRead(4, (1, 2, 3, 4), 0.9, False, at=(500.0, 60.0))
    unplaced = DieRead(2, (5, 6, 7, 8), 0.8, True)
    cube = CubeRead(8, (9, 9, 9, 9), 0.7, at=(290.0, 30.0))
    stood = camera.stand(Found((die, unplaced), cube))
    assert stood.dice[1] == unplaced
    assert (stood.dice[0].value, stood.dice[0].box, stood.dice[0].cocked) == (4, (1, 2, 3, 4), False)
    assert stood.dice[0].at == pytest.approx(camera.standing(die.at, MARK_HEIGHT * DIE_SIZE))
    assert math.dist(stood.dice[0].at, die.at) > 3.0 and math.dist(stood.cube.at, cube.at) > 3.0


def test_a_profile_says_whether_its_dice_are_painted_flat(tmp_path):
    from companion.vision.orientation import Orientation

    profile = Profile(((1.5, 2), (100, 2), (100, 80), (1, 80)), Orientation(True, True, "light"), "corners",
                      flat_dice=True)
    path = tmp_path / "board.toml"
    profile.save(path)
    assert Profile.load(path) == profile
    path.write_text(profile.to_toml().replace("flat_dice = true", ""))
    assert Profile.load(path).flat_dice is False  # a real board's, and every profile written before
    path.write_text(profile.to_toml().replace("flat_dice = true", 'flat_dice = "yes"'))
    with pytest.raises(ProfileError, match="flat_dice"):
        Profile.load(path)


def test_the_watcher_places_standing_dice_and_leaves_painted_ones():
    """A live profile's dice stand on the board; the simulator's (`flat_dice`) are painted on it."""
    from dataclasses import replace

    from companion.rules import Position
    from companion.sim import Effects
    from companion.sim.render import Die, Scene
    from companion.sim.truth import image_corners
    from companion.vision.calibrate import calibrate
    from companion.vision.watch import BoardWatcher

    renderer, pose = Renderer(STYLES[0], 960, 540), Pose(tilt=25)
    scene = Scene.from_position(Position.start(), 0)
    start, label = renderer.render(scene, pose, Effects(), np.random.default_rng(0))
    profile = calibrate(start, corners=image_corners(label), markers=False).profile
    layout = BoardLayout(pose.home_right)
    x0, y0, x1, y1 = layout.dice_area(0)
    rolled = replace(scene, dice=(Die(3, x0 + 40, (y0 + y1) / 2), Die(5, x1 - 40, (y0 + y1) / 2)))
    image, _ = renderer.render(rolled, pose, Effects(), np.random.default_rng(0))
    places = {}
    for flat in (True, False):
        watcher = BoardWatcher(replace(profile, flat_dice=flat), hold=0.2)
        for i in range(6):
            watcher.feed(image, i * 0.05)
        places[flat] = sorted(d.at for d in watcher.status.found.dice)
    assert len(places[True]) == len(places[False]) == 2
    assert all(2.0 < math.dist(a, b) < 20.0 for a, b in zip(places[True], places[False]))
