"""Tray halves cut beside the playing area by the board's own geometry, read by the tray network, and handed to the
referee on the home boards' side."""

import json
from pathlib import Path

import cv2
import numpy as np

from companion.rules import Position
from companion.rules.layout import STANDARD
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Renderer, Scene
from companion.sim.truth import image_corners
from companion.vision.orientation import Orientation
from companion.vision.reader import HalfRead, ImageReading, SlotRead, home_halves
from companion.vision.strip_reader import StripReader
from companion.vision.trays import BEFORE, HALVES, PX_PER_POINT, TRAY_H, TRAY_W, tray_cutter, tray_frames

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"


def _top_down(geometry, marks):
    """A top-down picture, 1 px a mm, the playing area 150 px in from the left and 100 from the top; a disc of
    each colour at each (x, y) mm of `marks`."""
    image = np.full((700, 1000, 3), 90, np.uint8)
    x0, y0 = 150, 100
    for (x, y), colour in marks:
        cv2.circle(image, (int(x0 + x), int(y0 + y)), 12, colour, -1)
    corners = ((x0, y0), (x0 + geometry.play_width, y0), (x0 + geometry.play_width, y0 + geometry.play_height),
               (x0, y0 + geometry.play_height))
    return image, corners


def test_each_half_runs_out_from_the_middle_and_away_from_the_playing_area():
    g = STANDARD
    pw, middle = g.point_width, g.play_height / 2
    red, blue = (0, 0, 255), (255, 0, 0)
    # red beside the right edge, 1.5 point widths out, 2 below the middle; blue left, 1 out, 3 above
    image, corners = _top_down(g, [((g.play_width + 1.5 * pw, middle + 2 * pw), red),
                                   ((-1.0 * pw, middle - 3 * pw), blue)])
    halves = tray_cutter(corners, g).cut(image)
    assert halves.shape == (4, TRAY_H, TRAY_W, 3)
    found = {}
    for k, half in enumerate(halves):
        for name, colour in (("red", red), ("blue", blue)):
            mask = np.all(np.abs(half.astype(int) - colour) < 60, axis=2)
            if mask.sum() > 20:
                rows, cols = np.nonzero(mask)
                found[name] = (HALVES[k], rows.mean() / PX_PER_POINT, cols.mean() / PX_PER_POINT)
    side, along, across = found["red"]
    assert side == ("right", False) and abs(along - (2 + BEFORE)) < 0.15 and abs(across - 1.5) < 0.15
    side, along, across = found["blue"]
    assert side == ("left", True) and abs(along - (3 + BEFORE)) < 0.15 and abs(across - 1.0) < 0.15


def test_halves_cut_at_twice_the_pixels_show_the_same_places():
    g = STANDARD
    image, corners = _top_down(g, [((g.play_width + 1.5 * g.point_width, g.play_height / 2 + 2 * g.point_width),
                                    (0, 0, 255))])
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    big_corners = tuple((2 * x + 0.5, 2 * y + 0.5) for x, y in corners)
    coarse, fine = tray_cutter(big_corners, g).cut(big), tray_cutter(big_corners, g, scale=2).cut(big)
    assert fine.shape == (4, 2 * TRAY_H, 2 * TRAY_W, 3)
    halved = np.stack([cv2.resize(f, (TRAY_W, TRAY_H), interpolation=cv2.INTER_AREA) for f in fine])
    assert np.abs(halved.astype(int) - coarse.astype(int)).mean() < 4

    def disc(half):  # where the red disc lies in a half, in its pixels
        rows, cols = np.nonzero(np.all(np.abs(half.astype(int) - (0, 0, 255)) < 80, axis=2))
        return np.array([rows.mean(), cols.mean()])

    k = HALVES.index(("right", False))
    assert np.abs(disc(halved[k]) - disc(coarse[k])).max() < 0.6  # the same place, to a coarse pixel


def test_halves_are_sized_by_the_boards_point_width():
    small = STANDARD.with_bar(0.1)
    wide, narrow = tray_frames(STANDARD), tray_frames(small)
    ratio = np.linalg.norm(narrow[:, 1], axis=1) / np.linalg.norm(wide[:, 1], axis=1)
    assert np.allclose(ratio, small.point_width / STANDARD.point_width)


def _render(position):
    scene = Scene.from_position(position, 0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=10.0), Effects(noise=3), np.random.default_rng(2))
    return image, image_corners(label)


def test_a_measured_board_has_both_sides_read_unless_the_profile_names_one():
    """The picture alone tells the trays' side badly on photoreal boards; the orientation knows it, so a reader
    without a profile reads both sides and leaves the choice to it. The simulator's standard board keeps its own
    tray model, on the side asked."""
    image, corners = _render(Position.start())
    measured = STANDARD.with_bar(0.09)
    assert set(StripReader(corners, measured).read(image).trays) == {"left", "right"}
    assert set(StripReader(corners, measured, trays="left").read(image).trays) == {"left"}
    assert set(StripReader(corners, trays="right").read(image).trays) == {"right"}


def _reading(trays):
    empty = SlotRead(None, 0, 0, 0, 1.0)
    none = HalfRead(None, 0, 1.0, 0, 0)
    return ImageReading(tuple([empty] * 24), (none, none), trays, {})


def test_the_home_side_goes_to_the_referee_and_the_fuller_side_to_the_json():
    three_light = HalfRead("light", 3, 0.95, 3, 3)
    one_dark = HalfRead("dark", 1, 0.9, 1, 1)
    none = HalfRead(None, 0, 0.99, 0, 0)
    reading = _reading({"left": (none, one_dark), "right": (three_light, none)})
    assert home_halves(reading.trays) == {"right": (three_light, none)}
    assert reading.off_counts() == {"light": 3, "dark": 0}
    # player 0 at the bottom, home on his right: the right side's bottom half is his, the top half his opponent's
    off = reading.to_board_reading(Orientation(True, True, "dark")).off
    assert (off[0].count, off[1].count) == (0, 3)
    off = reading.to_board_reading(Orientation(True, False, "dark")).off  # home on the left
    assert (off[0].count, off[1].count) == (1, 0)


def test_the_tray_network_reads_the_committed_photoreal_sample_and_is_never_sure():
    """The sample's frames (three with checkers borne off, 14, 2 and 4; two of those held-out boards never trained
    on), each player's tray as the referee gets it: when committed, every tray holding checkers was read as holding
    some (12, 3 and 2 of them) and every empty one empty. No tray reading is sure enough for the referee to infer
    or accuse on (`TRAYS_SURE_AT_MOST`): the network reads a pile's count too roughly."""
    from companion.referee.observations import CONFIDENT
    from companion.vision.geometry import fit_bar
    from tools.strip_data import photoreal_label

    seen = []
    for path in sorted(SAMPLE.glob("*.jpg")):
        label = json.loads(path.with_suffix(".json").read_text())
        corners, _, orient, _, _ = photoreal_label(label)
        image = cv2.imread(str(path))
        off = StripReader(corners, fit_bar(image, corners)).read(image).to_board_reading(orient).off
        for player, slot in enumerate(off):
            seen.append((label["off"][player], slot.count))
            assert slot.confidence < CONFIDENT
    assert len(seen) == 16
    assert all((true > 0) == (read > 0) for true, read in seen), seen
    assert sum(true == read for true, read in seen) >= 13, seen


def test_trays_cut_off_by_the_pictures_edge_are_not_read():
    """A photo cropped 15 px beside the playing area shows no trays: a half cut past the edge would read the
    repeated edge as an empty tray and make the board's counts fifteen by inventing the checkers borne off (the
    sample frame has four)."""
    from companion.vision.geometry import fit_bar
    from tools.strip_data import photoreal_label

    path = SAMPLE / "train-00013-03.jpg"
    label = json.loads(path.with_suffix(".json").read_text())
    corners, _, orient, _, _ = photoreal_label(label)
    image = cv2.imread(str(path))
    assert StripReader(corners, fit_bar(image, corners)).read(image).trays is not None
    xs = [x for x, _ in corners]
    left, right = max(0, int(min(xs)) - 15), int(max(xs)) + 15
    cropped = np.ascontiguousarray(image[:, left:right])
    moved = tuple((x - left, y) for x, y in corners)
    reading = StripReader(moved, fit_bar(cropped, moved)).read(cropped)
    assert reading.trays is None and reading.to_board_reading(orient).off is None
    assert reading.off_counts() is None


def test_with_the_profiles_orientation_a_bar_or_tray_half_holds_the_set_its_place_says(monkeypatch):
    """A player's checkers wait on the bar in the half towards the points he enters on and are borne off into the
    tray half on his side: with the orientation known (a profile's), that half's set is its owner's whatever the
    networks make of the checkers' colour (here told the other colour), as the referee takes them. (The counts are
    not made fifteen here: that would mend the bar's colour from the points' on this frame.)"""
    from companion.vision import strip_reader
    from companion.vision.profile import Profile
    from tools.strip_data import photoreal_label

    monkeypatch.setattr(strip_reader, "_at_most_fifteen", lambda points, bar, *_: (points, bar))
    monkeypatch.setattr(strip_reader, "_fifteen_a_side", lambda points, bar, *_: (points, bar))

    class Flipped:
        """The tray network with its say on the colour turned round."""

        def __init__(self, network):
            self.network = network

        def outputs(self, x):
            counts, first = self.network.outputs(x)
            return [counts, -first]

    for name, kind in (("train-00013-03", "off"), ("train-00012-02", "bar")):
        label = json.loads((SAMPLE / f"{name}.json").read_text())
        corners, geometry, orient, _, _ = photoreal_label(label)
        image = cv2.imread(str(SAMPLE / f"{name}.jpg"))
        colours = {}
        for placed in (None, orient):
            reader = StripReader(corners, geometry, trays="right" if orient.tray_on_right() else "left",
                                 orientation=placed)
            colour_network = reader.colour_network

            def bar_flipped(x, network=colour_network):
                out = network(x).copy()
                out[-1] = -out[-1]  # the strips holding checkers go in order: the bar's (24, 25) last
                return out

            reader.colour_network = bar_flipped
            reader.tray_network = Flipped(reader.tray_network)
            reading = reader.read(image)
            halves = reading.bar if kind == "bar" else next(iter(reading.trays.values()))
            owners = ([orient.bar_owner(top) for top in (True, False)] if kind == "bar"
                      else [orient.tray_owner(top) for top in (True, False)])
            colours[placed is not None] = {orient.colour_of(owner): half.colour
                                           for owner, half in zip(owners, halves) if half.count}
        assert colours[True] and all(read == owner for owner, read in colours[True].items()), (name, colours)
        profile = Profile(corners, orient, reader="strips", geometry=geometry)
        assert profile.board_reader(corners).orientation == orient  # a profile's reader knows its orientation
        assert colours[False] and all(read != owner for owner, read in colours[False].items()), (name, colours)


def test_the_counts_made_fifteen_see_each_bar_half_as_its_owners_held_checkers_or_not(monkeypatch):
    """With the orientation known, both bar halves go to the counts made fifteen as their owners' sets, the empty
    half too (the counts may put a checker there), and not as a toss-up."""
    from companion.vision import strip_reader
    from tools.strip_data import photoreal_label

    label = json.loads((SAMPLE / "train-00012-02.json").read_text())
    corners, geometry, orient, _, _ = photoreal_label(label)
    seen = []
    making = strip_reader.counts_making_fifteen

    def watched(dists, light, off=None):
        seen.append(list(light))
        return making(dists, light, off)

    monkeypatch.setattr(strip_reader, "counts_making_fifteen", watched)
    image = cv2.imread(str(SAMPLE / "train-00012-02.jpg"))
    StripReader(corners, geometry, orientation=orient).read(image)
    owners = [1.0 if orient.colour_of(orient.bar_owner(top)) == "light" else 0.0 for top in (True, False)]
    assert seen[-1][24:26] == owners and label["bar"].count(0) == 1  # one half holds checkers, one does not
