"""The board's geometry as a value, strips cut by it, the strip reader, and the bar measured from a photo."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.referee.observations import BoardReading
from companion.rules import Position
from companion.rules.layout import STANDARD, BoardGeometry
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Renderer, Scene
from companion.sim.truth import image_corners
from companion.vision.calibrate import known_counts, measure
from companion.vision.geometry import fit_bar
from companion.vision.profile import Profile
from companion.vision.strip_reader import COLOUR_ROWS, FIRST_CHECKER, StripReader, named_like
from companion.vision.strips import (STRIP_H, STRIP_W, Pyramid, StripCutter, StripPlaces, beside_sets, centred,
                                     finer_frames, mm_to_image, network_input, normalisation, strip_frames,
                                     strip_grid, strip_pixels)

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
"""Path-traced frames and their labels, committed (`companion.sim.photoreal`)."""


def test_geometry_places_points_by_its_own_bar():
    wide = STANDARD.with_bar(0.09)
    assert wide.bar_width == pytest.approx(0.09 * STANDARD.play_width)
    assert 12 * wide.point_width + wide.bar_width == pytest.approx(wide.play_width)
    assert wide.checker / wide.point_width == pytest.approx(STANDARD.checker / STANDARD.point_width)
    assert wide.slot_x(6) - wide.slot_x(5) == pytest.approx(wide.point_width + wide.bar_width)
    assert wide.slot_x(0) == pytest.approx(wide.point_width / 2) and wide.slot_x(12) == wide.slot_x(0)
    with pytest.raises(ValueError, match="bar"):
        BoardGeometry(bar_width=300)
    with pytest.raises(ValueError, match="checkers"):
        BoardGeometry(checker=80)


def _board_picture(geometry: BoardGeometry, marks: dict[int, tuple[int, int, int]]):
    """A top-down picture of a plain board with a small disc (5 mm) where the first checker of each marked strip
    stands."""
    scale = 2.0  # pixels a mm
    margin = 40
    w, h = int(geometry.play_width * scale) + 2 * margin, int(geometry.play_height * scale) + 2 * margin
    image = np.full((h, w, 3), 90, np.uint8)
    frames = strip_frames(geometry)
    for strip, colour in marks.items():
        origin, across, along = frames[strip]
        row, col = FIRST_CHECKER
        x, y = origin + (col + 0.5) * across + (row + 0.5) * along
        cv2.circle(image, (int(margin + x * scale), int(margin + y * scale)), int(5 * scale), colour, -1)
    corners = ((margin, margin), (w - margin, margin), (w - margin, h - margin), (margin, h - margin))
    return image, corners


def test_strips_are_cut_where_the_geometry_puts_each_point():
    """A disc drawn at each strip's first-checker place of a wide-bar board shows at that place in its strip, and
    a cutter that assumes the standard bar misses the discs beside the bar."""
    wide = STANDARD.with_bar(0.10)
    marks = {0: (255, 0, 0), 6: (0, 255, 0), 17: (0, 0, 255), 24: (255, 255, 0), 25: (0, 255, 255)}
    image, corners = _board_picture(wide, marks)
    strips = StripCutter(corners, wide).cut(image)
    assert strips.shape == (26, STRIP_H, STRIP_W, 3)
    row, col = FIRST_CHECKER
    for strip, colour in marks.items():
        assert np.abs(strips[strip, row, col].astype(int) - colour).max() < 30, strip
    assert np.abs(strips[1, row, col].astype(int) - 90).max() < 5  # an unmarked point is bare board
    wrong = StripCutter(corners, STANDARD).cut(image)  # the simulator's bar: the point beside it is 8 mm off
    assert np.abs(wrong[6, row, col].astype(int) - marks[6]).max() > 60


def test_strip_pixels_are_the_homography_of_the_strip_grid():
    """The cutter's maps, mixed from three vectors per strip, are where OpenCV's own perspective transform puts
    every strip pixel's mm place, for a tilted placement and a bar of another width."""
    corners = ((300.5, 100.2), (1000.1, 140.3), (1150.7, 690.9), (180.3, 610.4))
    for geometry in (STANDARD, STANDARD.with_bar(0.095)):
        frames = strip_frames(geometry)
        h = mm_to_image(corners, geometry)
        expected = cv2.perspectiveTransform(strip_grid(frames).reshape(-1, 1, 2), h).reshape(-1, STRIP_H, STRIP_W, 2)
        assert np.abs(strip_pixels(frames, h) - expected).max() < 1e-3


def _render(position, *, tilt=10.0, style=STYLES[0], seed=2):
    scene = Scene.from_position(position, 0)
    image, label = Renderer(style).render(scene, Pose(tilt=tilt), Effects(noise=3), np.random.default_rng(seed))
    return image, image_corners(label)


def test_strip_reader_reads_the_starting_position():
    image, corners = _render(Position.start())
    reading = StripReader(corners, trays="right").read(image)
    assert [p.count for p in reading.points] == [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2] * 2
    assert [p.colour for p in reading.points if p.count] == ["light", "dark", "dark", "light",
                                                             "dark", "light", "light", "dark"]
    assert reading.board > 0.9 and all(h.count == 0 for h in reading.bar)


def test_a_profile_whose_colours_went_stale_gives_way_to_the_frames_own():
    """A profile whose light set was learnt under a dim lamp (near the dark set's colour) reads more than 15 dark
    checkers on a well-lit start: the frame's own two sets are then tried, named as the profile names them; where
    asked (`frame_colours=False`, as calibration reads its own photo back) the profile's colours are kept. Before
    session 36 they were the only ones tried, and two stacks of five swapped sets; until session 39 they still did
    with the profile's colours alone, where the counts made fifteen renamed them on the colour network's word
    against their nearer set's (`colour_chances`)."""
    image, corners = _render(Position.start())
    fresh = StripReader(corners, trays="right").read(image)
    dark = np.array(fresh.colours["dark"])
    stale = {"light": tuple(dark * 1.2 + 5), "dark": tuple(dark)}
    as_seen = [(p.colour, p.count) for p in fresh.points]
    reading = StripReader(corners, trays="right", colours=stale).read(image)
    assert [(p.colour, p.count) for p in reading.points] == as_seen
    assert np.allclose(reading.colours["light"], fresh.colours["light"], atol=3)  # the frame's own
    alone = StripReader(corners, trays="right", colours=stale, frame_colours=False).read(image)
    assert np.allclose(alone.colours["light"], stale["light"], atol=3)
    assert [(p.colour, p.count) for p in alone.points] == as_seen


def test_a_profile_that_calls_the_lighter_set_dark_keeps_its_names_when_its_colours_go_stale():
    """Both of the profile's colours near the dark set, the lighter of them called dark (player 0's set, say): the
    frame's own guess, named by lightness, is renamed so that the set the profile calls dark is still dark."""
    image, corners = _render(Position.start())
    fresh = StripReader(corners, trays="right").read(image)
    dark = np.array(fresh.colours["dark"])
    stale = {"light": tuple(dark), "dark": tuple(dark + 3)}
    other = {"light": "dark", "dark": "light"}
    reading = StripReader(corners, trays="right", colours=stale).read(image)
    assert [(p.colour, p.count) for p in reading.points] == [(other.get(p.colour), p.count) for p in fresh.points]


def test_a_guess_is_named_as_the_profile_names_its_sets():
    """A guess names its sets by lightness; a profile may call the lighter set dark (player 0's, say, under the
    calibration photo's light): the guess takes the profile's names, the pairing nearer both. A guess that saw one
    set only (no sample nearer the other centre), and made the other up far off, is named by the set it saw."""
    known = {"light": np.array([90.0, 150, 140]), "dark": np.array([120.0, 110, 115])}  # 'light' is the darker
    guess = {"light": np.array([170.0, 112, 118]), "dark": np.array([100.0, 155, 138])}
    named = named_like(guess, known)
    assert named["light"] is guess["dark"] and named["dark"] is guess["light"]
    assert named_like(named, known) is named
    known = {"light": np.array([200.0, 128, 128]), "dark": np.array([100.0, 128, 128])}
    one_set = {"light": np.array([120.0, 128, 128]), "dark": np.array([20.0, 128, 128])}  # the dark set, seen pale
    assert named_like(one_set, known, [one_set["light"] + 2])["dark"] is one_set["light"]
    assert named_like(one_set, known)["light"] is one_set["light"]  # both centres counted, the made-up one decides


def test_each_strip_is_read_as_cut_and_mirrored_and_the_answers_averaged():
    """A network that sees a strip as 3 one way and 4 the other way round: the reader's answer is half each, and
    the offsets, the other way across when mirrored, agree."""
    scene = Scene.from_position(Position.start(), 0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=0.0), Effects(), np.random.default_rng(0))
    reader = StripReader(image_corners(label))
    strips = reader.cutter.cut(image)
    asymmetric = strips.copy()
    asymmetric[:, :, : STRIP_W // 2] = 0  # the left half dark: its mirror is another picture

    class OneSided:
        def outputs(self, x):
            left_dark = x[:, :, :, 0].mean(axis=(1, 2)) < x[:, :, :, -1].mean(axis=(1, 2))
            logits = np.full((len(x), 17), -20.0, np.float32)
            logits[left_dark, 3] = logits[~left_dark, 4] = 20.0
            offsets = np.where(left_dark, 0.1, -0.1).astype(np.float32)
            return logits, offsets, np.zeros((len(x), 96), np.float32)

    reader.network = OneSided()
    p, offsets = reader.look(image, asymmetric)
    assert np.allclose(p[:, 3], 0.5) and np.allclose(p[:, 4], 0.5)
    assert np.allclose(offsets, 0.1)


def test_only_the_doubtful_strips_are_read_again_from_nudged_corners_and_averaged():
    """A strip the network doubts (a 5 at 0.6) is cut again with the corners a little in and a little out, and the
    three answers averaged, both cuts in one run; strips it is sure of are not cut again. Strips cut by their
    frames alone match the same strips cut with all 26."""

    image, corners = _render(Position.start())
    reader = StripReader(corners)
    strips = reader.cutter.cut(image)
    assert np.array_equal(StripCutter(corners, STANDARD, strip_frames()[[3, 17]]).cut(image), strips[[3, 17]])
    run, looked_again = reader._run, []

    def sure_of_five(strips, norm):
        looked_again.append(len(strips))
        p, offsets, hidden = run(strips, norm)
        return np.tile(np.eye(p.shape[1])[5], (len(p), 1)), offsets, hidden

    norm = normalisation(strips)
    p = run(strips, norm)[0]
    p[0] = 0.0
    p[0, 5], p[0, 4] = 0.6, 0.4
    before = p.copy()
    reader._run = sure_of_five
    reader._read_doubtful_again(image, p, norm)
    assert looked_again == [2]  # strip 0 cut twice, read in one run
    assert np.isclose(p[0, 5], (0.6 + 1 + 1) / 3) and np.isclose(p[0, 4], 0.4 / 3)
    assert np.array_equal(p[1:], before[1:])


def test_kept_strip_places_and_a_shared_pyramid_cut_exactly_as_cutters_of_their_own():
    """The doubtful strips' second cuts take their image places from those the reader keeps (`StripPlaces`), and every
    cut of a read halves the frame once: the strips are the same bytes as cutters made for them alone would cut."""
    image, corners = _render(Position.start())
    big = cv2.resize(image, None, fx=1.6, fy=1.6)  # a board this large is halved before it is cut
    big_corners = tuple((1.6 * x, 1.6 * y) for x, y in corners)
    pyramid = Pyramid(big)
    whole, places = StripCutter(big_corners, STANDARD), StripPlaces(big_corners, STANDARD)
    assert whole._maps[2] >= 1
    some = np.array([3, 17, 24])
    own = StripCutter(big_corners, STANDARD, strip_frames()[some])
    assert np.array_equal(places.cutter(some).cut(pyramid), own.cut(big))
    assert np.array_equal(whole.cut(pyramid)[some], own.cut(pyramid))
    assert pyramid.level(1) is pyramid.level(1) and pyramid.level(0) is big
    more = np.array([17, 5, 24, 9])  # some kept, some new, in another order
    own = StripCutter(big_corners, STANDARD, strip_frames()[more])
    assert np.array_equal(places.cutter(more).cut(big), own.cut(big))
    # a steep view: the near points span twice the far ones' pixels, so three near strips alone are halved once more
    # than all 26 (halving a few strips as all 26 would be halved cost session 29 a tenth of a point)
    steep = ((222.5, 20.0), (627.5, 20.0), (830.0, 632.0), (20.0, 632.0))
    near = np.array([12, 13, 14])
    places = StripPlaces(steep, STANDARD)
    places.cutter(np.arange(26))  # every strip's place kept first
    own = StripCutter(steep, STANDARD, strip_frames()[near])
    assert own._maps[2] != StripCutter(steep, STANDARD)._maps[2]
    assert np.array_equal(places.cutter(near).cut(pyramid), own.cut(big))


def test_a_finer_cut_shows_the_same_places_at_twice_the_pixels():
    """The colour crops cut at twice the pixels (`finer_frames`) show what the strips' first rows show: halved back
    they are the same picture. And they show more: bands one fine pixel wide, which a strip pixel averages away."""
    wide = STANDARD.with_bar(0.10)
    image, corners = _board_picture(wide, {0: (255, 0, 0), 6: (0, 255, 0), 17: (0, 0, 255)})
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    big_corners = tuple((2 * x + 0.5, 2 * y + 0.5) for x, y in corners)

    def cuts(picture):
        coarse = StripCutter(big_corners, wide).cut(picture)[:, :COLOUR_ROWS]
        fine = StripCutter(big_corners, wide, finer_frames(strip_frames(wide), 2),
                           size=(2 * COLOUR_ROWS, 2 * STRIP_W)).cut(picture)
        return coarse.astype(float), fine.astype(float)

    coarse, fine = cuts(big)
    assert fine.shape == (26, 2 * COLOUR_ROWS, 2 * STRIP_W, 3)
    halved = np.stack([cv2.resize(f, (STRIP_W, COLOUR_ROWS), interpolation=cv2.INTER_AREA) for f in fine])
    assert np.abs(halved - coarse).mean() < 6
    row, col = FIRST_CHECKER
    for strip, colour in {0: (255, 0, 0), 6: (0, 255, 0), 17: (0, 0, 255)}.items():  # each disc where it was cut
        assert np.abs(halved[strip, row, col] - colour).max() < 30, strip
    # vertical bands, each as wide as a fine pixel (4 image pixels a mm here)
    band = 4.0 * wide.point_width * 1.25 / (2 * STRIP_W)
    x = np.arange(big.shape[1])
    striped = big.copy()
    striped[:, (np.floor(x / band) % 2).astype(bool)] = 230
    coarse, fine = cuts(striped)
    assert fine[3].std(axis=1).mean() > 1.5 * coarse[3].std(axis=1).mean()  # across: about twice


def test_the_colour_network_is_given_its_crops_at_its_own_scale():
    """The reader cuts the colour crops at the size the colour network takes, whatever its scale, and each crop
    beside the two sets' colours as flat planes."""
    image, corners = _render(Position.start())
    reader = StripReader(corners, STANDARD)
    strips = reader.cutter.cut(image)
    crops = reader.colour_crops(Pyramid(image), strips)
    assert crops.shape[1:3] == tuple(reader.colour_network.input_shape[2:4])
    assert crops.shape[1] in (COLOUR_ROWS, 2 * COLOUR_ROWS)
    light, dark = np.array([230.0, 128, 128]), np.array([40.0, 128, 128])
    x = beside_sets(crops[:3], light, dark, normalisation(strips))
    assert x.shape == (3, 9, *crops.shape[1:3])
    assert np.ptp(x[:, 3:], axis=(2, 3)).max() == 0 and x[0, 3, 0, 0] > x[0, 6, 0, 0]
    assert reader.colour_network(x).shape == (3,)


def test_a_colour_network_at_twice_the_pixels_is_given_finer_crops_and_the_board_is_read(tmp_path):
    """The finer path end to end: a stand-in colour network taking 112x48 crops (the mean of its input, an ONNX file
    made here), beside the shipped models; the reader cuts its crops at that size and reads the board."""
    import shutil

    import onnx
    from onnx import TensorProto, helper

    from companion.vision.reader import MODELS

    for model in MODELS.iterdir():
        shutil.copy(model, tmp_path / model.name)
    crops = helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 9, 2 * COLOUR_ROWS, 2 * STRIP_W])
    first = helper.make_tensor_value_info("first_set", TensorProto.FLOAT, ["n"])
    mean = helper.make_node("ReduceMean", ["crops"], ["first_set"], axes=[1, 2, 3], keepdims=0)
    graph = helper.make_graph([mean], "stand-in", [crops], [first])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "strip_colours.onnx")
    image, corners = _render(Position.start())
    reader = StripReader(corners, STANDARD, models=tmp_path)
    assert reader.colour_crops(Pyramid(image), reader.cutter.cut(image)).shape == (26, 2 * COLOUR_ROWS, 2 * STRIP_W, 3)
    reading = reader.read(image)
    assert sum(read.count for read in reading.points) == 30  # counts are the strip network's: all 30 checkers


def test_strips_are_centred_per_channel_as_the_networks_learnt_them():
    rng = np.random.default_rng(0)
    strips = rng.integers(0, 256, (5, STRIP_H, STRIP_W, 3), dtype=np.uint8)
    mean, std = normalisation(strips)
    plain = ((strips.astype(np.float32) - mean) / np.float32(std)).transpose(0, 3, 1, 2)
    assert np.array_equal(network_input(strips, (mean, std)), plain)
    both = network_input(strips, (mean, std), mirrored=True)
    assert np.array_equal(both[:5], plain) and np.array_equal(both[5:], plain[..., ::-1])
    means, stds = rng.uniform(0, 255, (5, 3)).astype(np.float32), np.arange(1, 6, dtype=np.float32)  # per item
    own = ((strips.astype(np.float32) - means[:, None, None]) / stds[:, None, None, None]).transpose(0, 3, 1, 2)
    assert np.array_equal(centred(strips, means, stds), own)


def test_the_second_look_reads_the_doubtful_strips_from_nudged_corners_and_keeps_only_their_places():
    """A doubtful strip is read again cut from the corners NUDGE px in and out along the diagonals (as cutters made
    for it alone cut it), the three answers averaged; the reader keeps where those strips lie, a later frame reads
    them exactly alike, and a strip never doubted is never placed."""
    from companion.vision.strip_reader import NUDGE

    image, corners = _render(Position.start())
    reader = StripReader(corners)
    strips = reader.cutter.cut(image)
    norm = normalisation(strips)
    p = reader._run(strips, norm)[0]
    doubtful = np.array([2, 19])
    p[doubtful] = np.full(p.shape[1], 1 / p.shape[1])  # two strips made doubtful
    first, second = p.copy(), p.copy()
    reader._read_doubtful_again(image, first, norm)
    reader._read_doubtful_again(Pyramid(image), second, norm)
    assert all(set(places._pixels) == {2, 19} for places in reader._nudged)
    assert np.array_equal(first, second)
    at = np.asarray(corners, np.float64)
    out = (at - at.mean(axis=0)) / np.linalg.norm(at - at.mean(axis=0), axis=1, keepdims=True)
    again = [reader._run(StripCutter(tuple(map(tuple, at + k * NUDGE * out)), STANDARD, strip_frames()[doubtful])
                         .cut(image), norm)[0] for k in (-1, 1)]
    assert np.array_equal(first[doubtful], (p[doubtful] + again[0] + again[1]) / 3)


def test_the_board_test_tells_a_board_from_noise():
    image, corners = _render(Position.start())
    noise = np.random.default_rng(0).integers(0, 255, image.shape, dtype=np.uint8)
    assert StripReader(corners).read(image).board > 0.9
    assert StripReader(corners).read(noise).board < 0.1


def _widen_bar(image: np.ndarray, corners, extra_mm: float):
    """The same board seen from above with its bar made `extra_mm` wider: the picture is rectified, the bar's
    middle column repeated, and the new board's corners returned with its true geometry."""
    scale = 2.0
    mm = np.array([[0, 0], [STANDARD.play_width, 0], [STANDARD.play_width, STANDARD.play_height],
                   [0, STANDARD.play_height]], np.float32) * scale
    h = cv2.getPerspectiveTransform(np.array(corners, np.float32), mm)
    top = cv2.warpPerspective(image, h, (int(STANDARD.play_width * scale), int(STANDARD.play_height * scale)))
    middle = int(STANDARD.bar_x() * scale)
    insert = np.repeat(top[:, middle:middle + 1], int(extra_mm * scale), axis=1)
    wide = np.concatenate([top[:, :middle], insert, top[:, middle:]], axis=1)
    margin = 30
    framed = cv2.copyMakeBorder(wide, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=(40, 60, 90))
    hh, ww = wide.shape[:2]
    corners = ((margin, margin), (margin + ww, margin), (margin + ww, margin + hh), (margin, margin + hh))
    geometry = BoardGeometry(STANDARD.play_width + extra_mm, STANDARD.play_height, STANDARD.bar_width + extra_mm,
                             STANDARD.point_length, STANDARD.checker)
    return framed, corners, geometry


def test_the_bar_is_measured_from_the_picture():
    """A board whose bar is 10 % of its width (not the simulator's 6.9 %): the bar is measured within 1 % of the
    width from the photo alone, and from the starting position at calibration."""
    image, corners = _render(Position.start().play("24/18 13/11", 6, 2).position, tilt=0)
    wide, wide_corners, truth = _widen_bar(image, corners, 22.0)
    fraction = truth.bar_width / truth.play_width
    found = fit_bar(wide, wide_corners, base=BoardGeometry(play_width=truth.play_width))
    assert abs(found.bar_width / found.play_width - fraction) < 0.01
    start, start_corners = _render(Position.start(), tilt=0)
    wide, wide_corners, truth = _widen_bar(start, start_corners, 22.0)
    measured = measure(wide, wide_corners, BoardReading.from_position(Position.start(), 0, trays=False))
    assert abs(measured.bar_width / measured.play_width - fraction) < 0.01
    reading = StripReader(wide_corners, measured).read(wide)
    assert [p.count for p in reading.points] == [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2] * 2


def test_known_counts_of_the_start_are_its_two_mirror_images():
    patterns = known_counts(BoardReading.from_position(Position.start(), 0, trays=False))
    assert sorted(p[:12] for p in patterns) == [[2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 5],
                                                [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2]]
    assert all(p[24:] == [0, 0] for p in patterns)


def test_profile_keeps_the_reader_and_geometry(tmp_path):
    from companion.vision.orientation import Orientation

    geometry = STANDARD.with_bar(0.085)
    profile = Profile(((1, 2), (3, 4), (5, 6), (7, 8)), Orientation(), reader="strips", geometry=geometry,
                      colours={"light": (230.0, 231.0, 232.0), "dark": (20.0, 21.0, 22.0)})
    path = tmp_path / "p.toml"
    profile.save(path)
    loaded = Profile.load(path)
    assert loaded.reader == "strips" and isinstance(loaded.board_reader(loaded.corners), StripReader)
    assert loaded.geometry.bar_width == pytest.approx(geometry.bar_width, abs=0.01)
    path.write_text(path.read_text().replace('reader = "strips"', 'reader = "magic"'))
    with pytest.raises(Exception, match="reader"):
        Profile.load(path)


def test_calibration_adapts_the_last_layer_and_the_profile_keeps_it(tmp_path):
    """The adapted layer reads the calibration photo at least as surely as the shipped one, stays near it, and
    is saved beside the profile (a profile naming a missing layer is refused)."""
    from companion.vision.adapt import shipped_head
    from companion.vision.calibrate import calibrate
    from companion.vision.profile import ProfileError
    from companion.vision.reader import MODELS

    image, corners = _render(Position.start(), tilt=15, style=STYLES[2])
    assert calibrate(image, corners=corners, markers=False).profile.head is None  # adapting is asked for
    result = calibrate(image, corners=corners, markers=False, adapt=True)
    profile = result.profile
    assert profile.head is not None
    shipped = shipped_head(MODELS)
    assert 0 < np.abs(profile.head[0] - shipped[0]).max() < 1.0
    truth = [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2] * 2
    adapted = profile.board_reader(corners).probabilities(image)
    plain = StripReader(corners, profile.geometry).probabilities(image)
    assert adapted[np.arange(24), truth].mean() >= plain[np.arange(24), truth].mean() - 1e-6
    path = tmp_path / "board.toml"
    profile.save(path)
    loaded = Profile.load(path)
    assert np.allclose(loaded.head[0], profile.head[0]) and (tmp_path / "board.head.npz").exists()
    (tmp_path / "board.head.npz").unlink()
    with pytest.raises(ProfileError, match="head.npz"):
        Profile.load(path)


def test_corner_keypoints_map_between_pixels_and_cells_and_peak_between_cells():
    from companion.vision.keypoints import from_cells, peaks, to_cells

    points = np.array([[0.0, 0.0], [639.5, 359.0], [1279.0, 719.0], [333.3, 222.2]])
    assert np.allclose(from_cells(to_cells(points, (1280, 720)), (1280, 720)), points)
    heat = np.full((2, 36, 64), -20.0)
    heat[0, 10, 20] = heat[0, 10, 21] = 5.0  # two equal cells: the corner lies between them
    heat[1, 30, 5] = 5.0
    cells, mass = peaks(heat)
    assert np.allclose(cells, [[20.5, 10.0], [5.0, 30.0]], atol=1e-3)
    assert np.all(mass > 0.99)


def test_the_corner_network_finds_the_playing_area_on_frames_it_never_saw():
    """Held-out frames of the flat renderer (the corner network learnt from development seeds only): each corner
    within a few pixels, as the strips need; `playing_area` keeps a guess at least as good."""
    from companion.sim import frame
    from companion.sim.truth import image_corners
    from companion.vision.keypoints import find_corners
    from companion.vision.locate import playing_area

    worst, chosen = [], []
    for index in range(24):  # 8 frames' medians moved by a pixel from one network to an equal one
        image, label = frame("heldout", 300 + index, 960, 540)
        truth = np.array(image_corners(label))
        corners, sure = find_corners(image)
        worst.append(np.linalg.norm(np.array(corners) - truth, axis=1).max())
        chosen.append(np.linalg.norm(np.array(playing_area(image)) - truth, axis=1).max())
    assert np.median(worst) < 5.0, worst  # session 34's network 4.91, session 35's 4.54 (its worst corner)
    assert np.median(chosen) < 4.0, chosen  # 3.84 and 3.80: what the reader is given


def test_the_strip_reader_reads_the_committed_photoreal_sample():
    """Path-traced frames (docs/photoreal-sample), another process than the flat renderer, read at their labels'
    corners with the bar measured from the photo: 95 % of points when the sample was committed; under 90 % means
    the reader has lost its transfer to real-looking boards."""
    from companion.vision.strip_reader import GIVEN_LEAST
    from tools.strip_data import photoreal_label

    right = seen = 0
    for path in sorted(SAMPLE.glob("*.jpg")):
        label = json.loads(path.with_suffix(".json").read_text())
        corners, _, orient, _, _ = photoreal_label(label)
        image = cv2.imread(str(path))
        reading = StripReader(corners, fit_bar(image, corners)).read(image)
        assert reading.board >= GIVEN_LEAST, path.name  # a real board whose corners are given is never refused
        for slot, read in enumerate(reading.points):
            point = orient.point_of_slot(slot)
            if point in label.get("occluded", ()):
                continue
            owner, count = label["points"][point - 1]
            seen += 1
            right += read.count == count and (count == 0 or read.colour == orient.colour_of(owner))
    assert seen >= 140
    assert right / seen >= 0.90, (right, seen)


def test_a_hand_over_the_points_of_the_photoreal_sample_is_busy_and_a_clear_board_is_not():
    """The learned hand test on the committed sample: the frame whose hand hides nine points reads busy, none of
    the five frames without a hand does (the models before session 22's fine-tuning called a ten-checker stack
    of train-00013-03 a hand). Not asserted: heldout-00003-02, whose hand hides six points the network calls
    "not a point" with 0.45-0.53 at most, on the threshold (busy with the bar measured 8.87 % of the width, not
    with 9.03 %; the true bar is 9.21 %)."""
    from tools.strip_data import photoreal_label

    said = {}
    for path in sorted(SAMPLE.glob("*.jpg")):
        if path.stem == "train-00100-00":
            continue  # the slate board kept for the empty looks' test: uncalibrated, its veins read as covered
        label = json.loads(path.with_suffix(".json").read_text())
        corners = photoreal_label(label)[0]
        image = cv2.imread(str(path))
        said[path.stem] = (label["hand"], len(label.get("occluded", ())),
                           bool(StripReader(corners, fit_bar(image, corners)).read(image).busy))
    assert said["heldout-00004-03"] == (True, 9, True)
    clear = [name for name, (hand, _, _) in said.items() if not hand]
    assert len(clear) == 5 and not any(said[name][2] for name in clear), said


def test_calibration_measures_the_checkers_and_points_of_a_photoreal_board():
    """The committed sample's starting-position frame of a development board (never trained on): the checkers'
    diameter and the points' length measured within a few % of the truth (this board's checkers happen to be
    near the simulator's proportion; its points are not, and the measured length is nearer than the assumed)."""
    from companion.rules.layout import STANDARD
    from companion.vision.calibrate import calibrate
    from tools.strip_data import photoreal_label

    path = SAMPLE / "train-00010-00.jpg"
    label = json.loads(path.with_suffix(".json").read_text())
    corners, truth, orient, _, _ = photoreal_label(label)
    result = calibrate(cv2.imread(str(path)), corners=corners, markers=False, player0=orient.player0_colour)
    g = result.profile.geometry
    checker, true_checker = g.checker / g.point_width, truth.checker / truth.point_width
    length, true_length = g.point_length / g.play_height, truth.point_length / truth.play_height
    assert abs(checker - true_checker) < 0.03, (checker, true_checker)
    assert abs(length - true_length) < 0.015, (length, true_length)
    assert abs(length - true_length) < abs(STANDARD.point_length / STANDARD.play_height - true_length)


def test_calibration_puts_the_trays_beside_the_home_boards_the_start_places():
    """On this photoreal start the picture's own tray test (the flat renderer's) says left; the trays lie beside
    the home boards, on the right, and the profile says so."""
    from companion.vision.calibrate import calibrate
    from companion.vision.plane import Plane
    from companion.vision.reader import tray_side
    from tools.strip_data import photoreal_label

    path = SAMPLE / "train-00010-00.jpg"
    corners, _, orient, _, _ = photoreal_label(json.loads(path.with_suffix(".json").read_text()))
    image = cv2.imread(str(path))
    assert orient.tray_on_right() and tray_side(image, Plane.from_corners(corners)) == "left"
    assert calibrate(image, corners=corners, markers=False, player0=orient.player0_colour).profile.trays == "right"


def test_read_gives_no_position_id_for_a_board_it_is_unsure_is_there(tmp_path, capsys, monkeypatch):
    """The starting position (flat renderer) read through its own profile names its Position ID; the same
    reading with the board confidence of a guess (under 0.5: corners that may not be on the board) names none,
    since an ID names a position exactly. (Before session 23's networks, a profile used on another board's photo
    gave such a guess; they read that photo at 0.52: the board test passes many moved corners, docs/VISION.md.)"""
    from dataclasses import replace

    from companion.cli import main

    image, corners = _render(Position.start())
    photo, profile = tmp_path / "start.png", tmp_path / "board.toml"
    cv2.imwrite(str(photo), image)
    given = [f"{x:.0f},{y:.0f}" for x, y in corners]
    assert main(["calibrate", "--image", str(photo), "--corners", *given, "--out", str(profile)]) == 0
    capsys.readouterr()
    assert main(["read", str(photo), "--profile", str(profile)]) == 0
    assert "Position ID: 4HPwATDgc/ABMA" in capsys.readouterr().out
    read = StripReader.read
    monkeypatch.setattr(StripReader, "read", lambda self, *a, **k: replace(read(self, *a, **k), board=0.3))
    assert main(["read", str(photo), "--profile", str(profile)]) == 1
    out = capsys.readouterr().out
    assert "no Position ID: the reading is too unsure" in out and "XGID" not in out


def test_a_profiles_colours_give_way_to_the_frames_own_where_the_colour_network_agrees_with_those_more(monkeypatch):
    """With a profile, the frame's own two colours are weighed against the profile's by how many points the colour
    network names otherwise than the nearer colour (`disagreements`), the profile's kept on a tie; without the
    frame's colours (calibration's own check) the profile's stand."""
    from companion.vision import strip_reader
    from companion.vision.strip_reader import disagreements
    from tools.strip_data import photoreal_label

    centres = {"light": np.array([220.0, 128, 128]), "dark": np.array([40.0, 128, 128])}
    samples = {0: np.array([210.0, 128, 128]), 5: np.array([50.0, 130, 126]), 24: np.array([45.0, 128, 128])}
    assert disagreements(samples, centres, {0: 0.9, 5: 0.1, 24: 0.9}) == 0  # the bar's half is not a point
    assert disagreements(samples, centres, {0: 0.2, 5: 0.8, 24: 0.1}) == 2

    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    label = json.loads((sample / "train-00011-01.json").read_text())
    corners, geometry, _, _, _ = photoreal_label(label)
    image = cv2.imread(str(sample / "train-00011-01.jpg"))
    own = StripReader(corners, geometry).read(image).colours
    profile = {"light": tuple(min(255.0, v + 12) for v in own["light"]), "dark": own["dark"]}
    for profile_says, frame_says, frame_colours, taken in ((3, 1, True, "frame"), (1, 3, True, "profile"),
                                                           (2, 2, True, "profile"), (3, 1, False, "profile")):
        def said(samples, centres, p_light, profile_says=profile_says, frame_says=frame_says):
            is_profile = abs(float(centres["light"][0]) - float(reader.known_colours["light"][0])) < 1e-9
            return profile_says if is_profile else frame_says

        reader = StripReader(corners, geometry, colours=profile, frame_colours=frame_colours)
        monkeypatch.setattr(strip_reader, "disagreements", said)
        light = reader.read(image).colours["light"]
        near_profile = max(abs(a - b) for a, b in zip(light, profile["light"])) < 2
        assert near_profile == (taken == "profile"), (profile_says, frame_says, frame_colours, light)


@pytest.mark.parametrize("said, taken", [
    ({"profile": (1, 1), "frame": (1, 1), "fallback": (1, 0)}, "profile"),  # a fallback wins on a lower surplus only
    ({"profile": (2, 0), "frame": (1, 1), "fallback": (1, 0)}, "frame"),
    ({"profile": (1, 2), "frame": (1, 1), "fallback": (1, 0)}, "frame"),
    ({"profile": (2, 1), "frame": (2, 1), "fallback": (1, 0)}, "fallback"),
    ({"profile": (0, 1), "frame": (0, 0), "fallback": (0, 0)}, "frame"),
    ({"profile": (0, 0), "frame": (0, 0), "fallback": (0, 0)}, "profile"),
    ({"profile": (0, 1), "frame": (1, 0), "fallback": (0, 0)}, "profile"),  # no fallback once a guess has none
])
def test_the_sets_colours_are_chosen_by_surplus_then_by_disagreements(monkeypatch, said, taken):
    """(surplus, disagreements) of each guess -> the guess read: the lowest surplus first, then the fewest
    disagreements between the profile's colours and the frame's own, the earlier on a tie; the fallback split
    (`two_sets`) is tried only while every guess has a surplus, and taken on a lower one only."""
    from companion.vision import strip_reader
    from tools.strip_data import photoreal_label

    sample = Path(__file__).resolve().parents[2] / "docs" / "photoreal-sample"
    label = json.loads((sample / "train-00011-01.json").read_text())
    corners, geometry, _, _, _ = photoreal_label(label)
    image = cv2.imread(str(sample / "train-00011-01.jpg"))
    lab = {"frame": 200.0, "fallback": 180.0}

    def sets(light):
        return {"light": np.array([light, 128, 128]), "dark": np.array([40.0, 128, 128])}

    monkeypatch.setattr(strip_reader, "two_colours", lambda samples: sets(lab["frame"]))
    monkeypatch.setattr(strip_reader, "two_sets", lambda samples, weight: sets(lab["fallback"]))
    reader = StripReader(corners, geometry, colours={"light": (240.0, 240.0, 240.0), "dark": (30.0, 30.0, 30.0)})

    def guess(centres):
        light = float(centres["light"][0])
        return next((name for name, value in lab.items() if abs(light - value) < 1e-6), "profile")

    current, tried = [], []
    colours = StripReader._colours

    def watched(self, strips, norm, dists, is_point, samples, centres):
        current.append(guess(centres))
        tried.append(current[-1])
        return colours(self, strips, norm, dists, is_point, samples, centres)

    monkeypatch.setattr(StripReader, "_colours", watched)
    monkeypatch.setattr(strip_reader, "too_many", lambda stacks: said[current[-1]][0])
    monkeypatch.setattr(strip_reader, "disagreements", lambda samples, centres, p_light: said[guess(centres)][1])
    chosen = reader.read(image).colours["light"]
    expected = {name: cv2.cvtColor(np.uint8([[[value, 128, 128]]]), cv2.COLOR_LAB2BGR)[0, 0]
                for name, value in lab.items()}
    expected["profile"] = np.array([240.0, 240.0, 240.0])
    assert max(abs(a - b) for a, b in zip(chosen, expected[taken])) < 2, (tried, chosen)
    # the fallback only while every guess so far has a surplus; the frame's own only where the profile's may be beaten
    assert ("fallback" in tried) == (said["profile"][0] > 0 and said["frame"][0] > 0), tried
    assert ("frame" in tried) == (said["profile"][0] > 0 or said["profile"][1] > 0), tried
