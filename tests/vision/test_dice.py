"""Dice and cube from the camera: real photos, rendered boards, the rules' reasons to throw again, the CLI, and the
watcher handing the referee dice and cube readings."""

import json
import math
import shutil
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.referee import Referee
from companion.referee.events import OpeningRoll, Reroll, Rolled
from companion.referee.observations import (COCKED, MISPLACED, ON_A_CHECKER, Command, CubePlace, DiceReading,
                                            UserCommand)
from companion.rules import Position
from companion.rules.layout import BoardLayout
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Die, Renderer, Scene
from companion.sim.truth import image_corners, player0_colour
from companion.vision.dice import (_VIEW_MAPS, CLASSES, MODELS, PLACE_PATCH, DiceReader, DieRead, Found, _Find,
                                   crop_on_plane, dihedral_views, one_find_a_die)
from companion.vision.mlp import ModelError
from companion.vision.orientation import Orientation
from companion.vision.photos import HELD_OUT_FOLD, fold_of, photos, read_labels
from companion.vision.plane import Plane, slot_x
from companion.vision.reader import BoardReader, HalfRead, ImageReading, SlotRead
from companion.vision.roll import checker_contact, cube_reading, dice_json, dice_reading, player0_mm
from tests.conftest import SHARED

PHOTOS = SHARED / "data" / "dice_photos"


def _held_out_photos(count: int):
    return [p for p in photos(PHOTOS) if fold_of(p.name) == HELD_OUT_FOLD][:count]


def test_real_held_out_photos_are_read_with_no_invented_dice():
    reader = DiceReader()
    right = total = invented = 0
    for path in _held_out_photos(30):
        image = cv2.imread(str(path))
        labels = read_labels(path.with_suffix(".txt"), image.shape[1], image.shape[0])
        found = reader.read_photo(image)
        invented += max(0, len(found.dice) - len(labels))
        for label in labels:
            x, y = label.centre
            near = [d for d in found.dice if d.box[0] <= x <= d.box[0] + d.box[2] and d.box[1] <= y <= d.box[1] + d.box[3]]
            right += bool(near) and near[0].value == label.value
            total += 1
    assert total > 60
    # measured on these 85 dice: 84 right, none invented since the photo reader (session 16; 82 and 1 before it).
    # benchmarks/dice_bench.py has the whole fold; this guards the level reached
    assert right / total >= 0.96 and invented <= 1, (right, total, invented)


@pytest.mark.parametrize("name", ["five_45.jpg", "dice_49.jpg"])
def test_a_photo_of_five_dice_reads_five(name):
    image = cv2.imread(str(PHOTOS / name))
    labels = read_labels((PHOTOS / name).with_suffix(".txt"), image.shape[1], image.shape[0])
    found = DiceReader().read_photo(image)
    assert len(labels) == 5
    assert sorted(d.value for d in found.dice) == sorted(label.value for label in labels)


@pytest.mark.parametrize("name", ["six_21.jpg", "two_7.jpg", "three_4.jpg", "four_22.jpg", "dice_26.jpg"])
def test_a_speck_far_smaller_than_the_dice_in_a_photo_is_not_a_die(name):
    """Training-fold photos where the reader took a speck, a pip or a key for a die: dice in one photo are one
    size, so a find under half the surest die's size is dropped."""
    image = cv2.imread(str(PHOTOS / name))
    labels = read_labels((PHOTOS / name).with_suffix(".txt"), image.shape[1], image.shape[0])
    found = DiceReader().read_photo(image)
    assert fold_of(name) != HELD_OUT_FOLD
    assert len(found.dice) == len(labels), found.dice
    for die in found.dice:
        x, y = die.box[0] + die.box[2] / 2, die.box[1] + die.box[3] / 2
        assert any(abs(x - label.centre[0]) < die.box[2] / 2 and abs(y - label.centre[1]) < die.box[3] / 2
                   for label in labels), die


@pytest.mark.parametrize("name", ["four_36.jpg", "four_48.jpg", "three_35.jpg", "three_40.jpg"])
def test_dice_touching_in_a_photo_are_each_read(name):
    """Training-fold photos where a die touching another was taken for the same die found twice."""
    image = cv2.imread(str(PHOTOS / name))
    labels = read_labels((PHOTOS / name).with_suffix(".txt"), image.shape[1], image.shape[0])
    found = DiceReader().read_photo(image)
    assert fold_of(name) != HELD_OUT_FOLD
    assert sorted(d.value for d in found.dice) == sorted(label.value for label in labels)


@pytest.mark.parametrize("name", ["three_4.jpg", "two_48.jpg"])
def test_a_side_face_found_as_a_second_die_is_not_a_die(name):
    """Close, oblique dice whose side face, with pips of its own, an eager finder finds as a die below the top
    face: read as a die less surely than the die itself, inside its box, it is that die again."""
    image = cv2.imread(str(PHOTOS / name))
    labels = read_labels((PHOTOS / name).with_suffix(".txt"), image.shape[1], image.shape[0])
    found = DiceReader(photo_threshold=0.15).read_photo(image)  # finds more, as on a scene the finder never saw
    assert fold_of(name) != HELD_OUT_FOLD
    assert sorted(d.value for d in found.dice) == sorted(label.value for label in labels), found.dice


def test_one_find_a_die_keeps_touching_dice_and_drops_a_die_found_again():
    top = DieRead(3, (100, 100, 60, 60), 0.86, False)
    side = DieRead(1, (110, 140, 60, 60), 0.38, False)  # 40 px below, within its box, far less sure
    touching = DieRead(5, (140, 105, 60, 60), 0.80, False)  # 40 px to the right, as sure: another die
    far = DieRead(2, (300, 100, 60, 60), 0.30, False)  # faint but elsewhere
    assert one_find_a_die([side, touching, top, far]) == (top, touching, far)


def _board(dice, *, pose=Pose(tilt=15, roll=3), colour=((245, 245, 245), (20, 20, 20)), cube=(64, "centre"),
           position=None, style=STYLES[0], seed=1, cube_in_tray=False):
    scene = Scene.from_position(position or Position.start(), 0, dice=tuple(dice), roller=0, dice_colour=colour,
                                cube_value=cube[0], cube_place=cube[1], cube_in_tray=cube_in_tray)
    image, label = Renderer(style).render(scene, pose, Effects(noise=3, jpeg=85), np.random.default_rng(seed))
    orientation = Orientation(not pose.from_player1, pose.home_right, player0_colour(style))
    reader = BoardReader(image_corners(label), trays="right" if orientation.tray_on_right() else "left")
    reading = reader.read(image)
    found = DiceReader().read_board(image, reader.plane)
    return found, reading, orientation, label


def _in_half(player, k=0):
    x0, y0, x1, y1 = BoardLayout().dice_area(player)
    return x0 + 40 + 90 * k, (y0 + y1) / 2


def test_rolls_in_the_right_half_are_read():
    rolls = [(6, 1), (3, 5), (2, 2), (4, 6), (5, 2), (1, 4)]
    right = 0
    for seed, values in enumerate(rolls):
        dice = [Die(v, *_in_half(0, k), angle=25.0 * k + 10 * seed) for k, v in enumerate(values)]
        found, reading, orientation, _ = _board(dice, seed=seed)
        roll = dice_reading(found, reading, orientation)
        if roll is not None and roll.valid and sorted(roll.values) == sorted(values):
            right += 1
            assert roll.halves == (0, 0) and roll.misplaced(0, opening=False) is None
            assert roll.misplaced(1, opening=False) == MISPLACED  # player 1's roll in player 0's half
    assert right >= 5, right  # dice_bench measures the rate: 99.33 % of held-out valid rolls (issue 6 wants 99.5 %)


def test_dice_seen_from_player1s_side_lie_in_his_half():
    dice = [Die(5, *_in_half(1, 0), angle=40), Die(3, *_in_half(1, 1), angle=-15)]
    pose = Pose(tilt=20, from_player1=True)
    found, reading, orientation, _ = _board(dice, pose=pose)
    roll = dice_reading(found, reading, orientation)
    assert roll is not None and sorted(roll.values) == [3, 5] and roll.halves == (1, 1)


def test_opening_dice_are_listed_player0s_first():
    found, reading, orientation, _ = _board([Die(2, *_in_half(1)), Die(5, *_in_half(0))])
    roll = dice_reading(found, reading, orientation)
    assert roll is not None and roll.values == (5, 2) and roll.halves == (0, 1)
    assert roll.misplaced(0, opening=True) is None


def test_cocked_dice_are_caught_and_their_flat_partners_are_not():
    """A cocked die of each value, at tilts from 5 to 32 degrees, in either place. Recall on dev-hard frames is
    96 % since session 13 (70 % before; docs/VISION.md), so one frame is no test; every shipped reader so far
    catches 12 of these 12."""
    caught = flat_called = 0
    for k in range(12):
        value = 1 + k % 6
        dice = [Die(value, *_in_half(0, k % 2), cocked=True), Die(7 - value, *_in_half(0, 1 - k % 2))]
        found, reading, orientation, _ = _board(dice, seed=10 + k, pose=Pose(tilt=5 + 2.5 * k, roll=3))
        by_value = {d.value: d for d in found.dice}
        caught += value in by_value and by_value[value].cocked
        flat_called += 7 - value in by_value and by_value[7 - value].cocked
        if value in by_value and by_value[value].cocked:
            assert dice_reading(found, reading, orientation).reason == COCKED
    assert caught >= 10 and flat_called == 0, (caught, flat_called)


def test_dice_are_placed_where_they_lie():
    """Whether a die rests on a checker is judged from where it is found, to the millimetre. Until session 9 the
    finder had learned targets half a plane pixel off (a training bug) and put dice 1.2 mm right of and below where
    they lie in the image, whichever side the camera sat."""
    offsets = []
    for k in range(8):
        player = k % 2
        dice = [Die(1 + k % 6, *_in_half(player, 0), angle=11.0 * k),
                Die(6 - k % 6, *_in_half(player, 1), angle=-7.0 * k)]
        pose = Pose(tilt=8 + 3 * k, roll=-4 + k, from_player1=player == 1)
        found, _, orientation, _ = _board(dice, pose=pose, seed=30 + k)
        for die in dice:
            near = [np.subtract(d.at, player0_mm((die.x, die.y), orientation)) for d in found.dice]  # image order
            near = [o for o in near if np.hypot(*o) < 10]
            if near:
                offsets.append(min(near, key=lambda o: np.hypot(*o)))
    offsets = np.array(offsets)
    assert len(offsets) >= 14
    # the session-8 finder: (+1.4, +1.6); session 9's (-0.5, +0.3), session 13's (+0.2, +0.65) on these 16 dice,
    # whose spread fell from 1.8 to 1.3 mm (the held-out bench: median error 1.17 -> 1.04 mm); session 17's eight
    # looks (`place_die`): (+0.13, -0.07), 1.08 mm from the truth on average (held-out median 1.04 -> 0.75 mm)
    assert np.all(np.abs(offsets.mean(axis=0)) < 1.0), offsets.mean(axis=0)


def test_a_die_on_a_checker_is_void():
    layout = BoardLayout()
    x, y = layout.checker_centre(6, 0, 5)  # on player 0's six point, on the edge checker
    resting, reading, orientation, _ = _board([Die(3, x + 4, y), Die(2, *_in_half(0, 1))])
    assert dice_reading(resting, reading, orientation).reason == ON_A_CHECKER


def _one_stack(slot, count, layered=True):
    """A reading with `count` dark checkers on image slot `slot` and nothing else."""
    points = [SlotRead(None, 0, 0, 0, 1.0)] * 24
    points[slot] = SlotRead("dark", count, count, count, 1.0, layered)
    empty = HalfRead(None, 0, 1.0, 0, 0)
    return ImageReading(tuple(points), (empty, empty), None, {})


@pytest.mark.parametrize("layered", [True, False], ids=["layered", "squeezed"])
def test_a_die_by_a_tall_stack_rests_on_it_only_where_the_stack_reaches(layered):
    """Eight checkers reach 210 mm from the edge in two layers, 220 mm squeezed into one column: a die 218 mm out
    lies on the squeezed stack's outer checker and beside the layered stack. Fifteen in three layers reach 252."""
    assert checker_contact((slot_x(3), 218.0), _one_stack(3, 8, layered)) == (None if layered else ON_A_CHECKER)
    assert checker_contact((slot_x(3) + 30, 218.0), _one_stack(3, 8, layered)) is None  # off the point's line
    assert checker_contact((slot_x(3), 245.0), _one_stack(3, 15, layered)) == (ON_A_CHECKER if layered else None)


def test_a_die_seen_flat_half_over_a_checker_leans_against_it():
    """A flat die's centre is over a checker (on it) or at least 30.5 mm from its centre (beside it). Found between,
    within 26.7 mm, its square reaches over the checker's rim: it leans against it, and rule 003 calls it cocked,
    however flat its top looked to the reader."""
    orientation = Orientation(True, True, "light")
    reading = _one_stack(3, 2)  # checkers 21 and 63 mm from the top edge
    flat = DieRead(5, (400, 200, 20, 20), 0.9, False, at=(400.0, 230.0))
    for along, contact in ((63 + 20.0, ON_A_CHECKER), (63 + 23.0, COCKED), (63 + 26.0, COCKED), (63 + 28.0, None)):
        assert checker_contact((slot_x(3), along), reading) == contact, along
        die = DieRead(3, (100, 20, 20, 20), 0.9, False, at=(slot_x(3), along))
        roll = dice_reading(Found((die, flat)), reading, orientation)
        assert roll.reason == contact and roll.valid is (contact is None), along
        assert dice_json(Found((die,)), reading)[0]["reason"] == contact


def test_a_die_leaning_on_a_checker_is_cocked():
    """Rule 003: a die "leaning on one of its edges against a checker" is cocked; a die on a checker is one lying
    flat on top of it. So a cocked die is the reason wherever it lies, and a flat die on a checker is the checker."""
    orientation = Orientation(True, True, "light")
    leaning = DieRead(3, (100, 20, 20, 20), 0.9, True, at=(slot_x(3) + 3, 25.0))
    on_top = DieRead(3, (100, 20, 20, 20), 0.9, False, at=(slot_x(3) + 3, 25.0))
    flat = DieRead(5, (400, 200, 20, 20), 0.9, False, at=(400.0, 230.0))
    reading = _one_stack(3, 2)
    roll = dice_reading(Found((leaning, flat)), reading, orientation)
    assert (roll.valid, roll.reason) == (False, COCKED)
    assert dice_reading(Found((leaning,)), reading, orientation).reason == COCKED
    assert dice_reading(Found((leaning, flat)), _one_stack(20, 2), orientation).reason == COCKED
    roll = dice_reading(Found((on_top, flat)), reading, orientation)
    assert (roll.valid, roll.reason, sorted(roll.values)) == (False, ON_A_CHECKER, [3, 5])
    assert [d["reason"] for d in dice_json(Found((leaning, on_top)), reading)] == [COCKED, ON_A_CHECKER]


@pytest.mark.parametrize("in_tray", [False, True], ids=["on the bar", "in the tray"])
@pytest.mark.parametrize("cube", [(2, "player0"), (16, "player1"), (64, "centre")])
def test_the_cube_value_and_place(cube, in_tray):
    """On the bar, or in the tray beside the board as rule 003 puts it: the tray's middle, or its owner's half."""
    found, _, orientation, _ = _board([], cube=cube, pose=Pose(tilt=10, from_player1=cube[0] == 16),
                                      cube_in_tray=in_tray)
    read = cube_reading(found, orientation)
    place = {"player0": CubePlace.PLAYER0, "player1": CubePlace.PLAYER1, "centre": CubePlace.CENTRE}.get(
        cube[1], CubePlace.OFFERED)
    assert read is not None and (read.value, read.place) == (cube[0], place)


def test_a_cube_in_the_tray_is_not_counted_as_borne_off_checkers():
    position = Position.from_points({1: 3, 2: 3, 3: 2, 4: 2}, {6: 5, 8: 3, 13: 5, 19: 2})  # player 0 has 5 off
    for place in ("player0", "centre", "player1"):
        found, reading, orientation, label = _board([], cube=(4 if place != "centre" else 64, place),
                                                    position=position, cube_in_tray=True)
        off = reading.to_board_reading(orientation).off
        assert off is not None and [(off[p].low <= label.off[p] <= off[p].high) for p in (0, 1)] == [True, True]
        assert off[0].count == 5 and off[1].count == 0, (place, off)
        assert cube_reading(found, orientation) is not None


@pytest.mark.parametrize("home_right", [True, False])
def test_the_finder_spares_the_margin_away_from_the_trays_and_loses_nothing(home_right):
    pose = Pose(tilt=12, home_right=home_right)
    dice = [Die(4, *_in_half(0, 0)), Die(2, *_in_half(0, 1))]
    scene = Scene.from_position(Position.start(), 0, dice=tuple(dice), roller=0, cube_value=8, cube_place="player1",
                                cube_in_tray=True)
    image, label = Renderer(STYLES[0]).render(scene, pose, Effects(noise=3), np.random.default_rng(3))
    orientation = Orientation(True, home_right, player0_colour(STYLES[0]))
    reader = BoardReader(image_corners(label), trays="right" if orientation.tray_on_right() else "left")
    whole = DiceReader().read_board(image, reader.plane)
    spared = DiceReader().read_board(image, reader.plane, trays=reader.trays)
    assert [d.value for d in spared.dice] == [d.value for d in whole.dice]
    assert sorted(d.value for d in whole.dice) == [2, 4]
    assert spared.cube is not None and cube_reading(spared, orientation).place is CubePlace.PLAYER1


def _die(value, x, confidence=0.9, cocked=False):
    return DieRead(value, (x, 100, 20, 20), confidence, cocked, at=(x / 2, 200.0))


def test_a_cocked_die_voids_the_roll_however_many_dice_are_seen():
    """The other die may lie hidden behind the cocked one, or its flank be found as a third die."""
    orientation = Orientation(True, True, "light")
    assert dice_reading(Found((_die(3, 400, cocked=True),)), None, orientation).reason == COCKED
    three = Found((_die(3, 400, cocked=True), _die(5, 500), _die(2, 520, 0.8)))
    assert dice_reading(three, None, orientation).reason == COCKED
    assert dice_reading(Found((_die(3, 400),)), None, orientation) is None  # one flat die: wait for the other
    # a faint third find is a shadow, whatever it is called: the two dice make a valid roll
    shadow = Found((_die(3, 400), _die(5, 500), _die(1, 700, 0.3, cocked=True)))
    assert dice_reading(shadow, None, orientation).values == (3, 5)


@pytest.mark.parametrize("sure_faces, score, cocked, kept", [
    (True, 0.9, 0.95, True), (True, 0.9, 0.1, False), (False, 0.9, 0.95, True), (False, 0.9, 0.1, True),
    (False, 0.2, 0.95, True), (False, 0.2, 0.1, False)],
    ids=["photo-cocked", "photo-flat", "board-cocked", "board-flat", "board-faint-cocked", "board-faint-flat"])
def test_a_die_whose_faces_split_the_vote_is_kept_on_a_board_unless_faint_and_in_a_photo_only_when_cocked(
        sure_faces, score, cocked, kept):
    """A cocked die shows a side face beside the top one, and a blurred flat die may look like two faces: the
    reader may give each less than half. On a board a roll is two dice and a sure find is kept with the likelier
    face; a faint find of the second look, or any find in a photo, is as often a spot or a key, unless the reader
    sees the slant."""
    probs = np.zeros((1, len(CLASSES)))
    probs[0, [0, 3, 5]] = 0.2, 0.42, 0.38  # none, die3, die5
    found = DiceReader()._assemble([_Find(0, 100.0, 100.0, 12.0, score)], probs, np.array([[cocked, 0.0]]), 4,
                                   sure_faces=sure_faces)
    assert [(d.value, d.cocked) for d in found.dice] == ([(3, cocked > 0.5)] if kept else [])


def test_the_eight_views_of_a_patch_map_back_to_it():
    patch = np.zeros((PLACE_PATCH, PLACE_PATCH), np.float32)
    patch[10, 31] = 1.0  # row 10, column 31: x 31, y 10
    places = set()
    for view, origin, along_x, along_y in zip(dihedral_views(patch), *_VIEW_MAPS):
        y, x = np.argwhere(view == 1.0)[0]
        places.add(tuple(origin + x * along_x + y * along_y))
    assert places == {(31.0, 10.0)}
    assert len({view.tobytes() for view in dihedral_views(np.arange(16.0).reshape(4, 4))}) == 8


def test_dice_beside_checkers_are_placed_nearer_by_eight_looks_than_by_one():
    """Around the outer checker of a five, where thrown dice meet checkers, just outside the on-a-checker line. The
    finder's one look strays there (dev-hard: a median 1.67 mm within 5 mm of the line, against 0.90 by a first
    version of `place_die`; docs/VISION.md); a wrong map back from a view would put dice pixels away. On these 24:
    one look 1.68 mm on average, eight 0.98 (the shipped version)."""
    layout, reader, one, eight = BoardLayout(), DiceReader(), [], []
    for k in range(24):
        point = (6, 13)[k % 2]
        cx, cy = layout.checker_centre(point, 4, 5)
        towards_middle = -1 if point == 6 else 1
        angle = math.radians((0, 45, 90, 135, 180)[k % 5])
        r = 28.0 + 0.25 * k
        die = Die(1 + k % 6, cx + r * math.cos(angle), cy + towards_middle * r * math.sin(angle), angle=17.0 * k)
        scene = Scene.from_position(Position.start(), 0, dice=(die,), roller=0, cube_value=64, cube_place="centre")
        image, label = Renderer(STYLES[k % 4]).render(scene, Pose(tilt=5 + k, roll=-4 + k / 3),
                                                      Effects(noise=3, jpeg=85), np.random.default_rng(70 + k))
        rectified = BoardReader(image_corners(label)).plane.rectify(image)
        truth = np.array(player0_mm((die.x, die.y), Orientation(True, True, "light")))  # image order here

        def error(find):
            return float(np.hypot(*(np.array(Plane.mm(find.x, find.y)) - truth)))

        find = min((f for f in reader._find(rectified, 0.05) if f.kind == 0), key=error)
        one.append(error(find))
        eight.append(error(reader.place_die(rectified, find)))
    assert max(eight) < 4.0 and np.mean(eight) < np.mean(one) - 0.3, (np.round(one, 1), np.round(eight, 1))


def test_only_the_crops_the_reader_is_unsure_of_are_read_in_four_turns():
    reader = DiceReader()
    scene = Scene.from_position(Position.start(), 0, dice=(Die(4, *_in_half(0, 0), angle=30),), roller=0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=15), Effects(noise=3, jpeg=85),
                                              np.random.default_rng(3))
    plane = BoardReader(image_corners(label)).plane
    # a crop centred on the die, one half a die off it and one on a bare point
    x, y = player0_mm(_in_half(0, 0), Orientation(True, True, "light"))
    crops = np.array([crop_on_plane(image, plane, x + dx, y, 19.0) for dx in (0.0, 9.5, 60.0)])
    once, turned = reader.classify(crops), reader.classify(crops, 4)
    unsure = once[0].max(axis=1) < 0.9
    assert unsure.any() and not unsure.all(), once[0].max(axis=1)
    mixed = reader.classify(crops, unsure=0.9)
    assert np.allclose(mixed[0][~unsure], once[0][~unsure]) and np.allclose(mixed[0][unsure], turned[0][unsure])


def test_no_dice_on_the_board_means_picked_up():
    found, reading, orientation, _ = _board([])
    assert dice_reading(found, reading, orientation) == DiceReading(())


def test_the_referee_judges_the_halves():
    ref = Referee()
    events = ref.observe(DiceReading((5, 2), halves=(0, 0)))  # both in one half: not an opening roll
    assert any(isinstance(e, Reroll) and e.reason == MISPLACED for e in events)
    events = ref.observe(DiceReading((5, 2), halves=(0, 1)))
    assert any(isinstance(e, OpeningRoll) and e.winner == 0 for e in events)
    # later, player 1 to roll: dice in player 0's half are thrown again; in his own they count
    later = Referee()
    later.observe(UserCommand(Command.SET_POSITION, player=1, position=Position.start()))
    events = later.observe(DiceReading((3, 3), halves=(0, 0)))
    assert any(isinstance(e, Reroll) and e.reason == MISPLACED for e in events)
    assert not any(isinstance(e, Rolled) for e in events)
    events = later.observe(DiceReading((3, 3), halves=(1, 1)))
    assert any(isinstance(e, Rolled) and e.player == 1 for e in events)


def test_dice_command_prints_json_for_a_photo(tmp_path, capsys):
    path = _held_out_photos(1)[0]
    assert main(["dice", str(path), "--json"]) == 0
    dice = json.loads(capsys.readouterr().out)
    labels = read_labels(path.with_suffix(".txt"), 640, 480)
    assert sorted(d["value"] for d in dice) == sorted(label.value for label in labels)
    for d in dice:
        assert set(d) >= {"value", "box", "valid", "reason"} and len(d["box"]) == 4 and d["valid"] is True
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((480, 640, 3), 128, np.uint8))
    assert main(["dice", str(grey), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    assert main(["dice", str(broken), "--json"]) == 2
    assert "cannot read an image" in capsys.readouterr().err


def test_a_missing_or_corrupt_dice_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="dice_finder.onnx is missing"):
        DiceReader(tmp_path)
    for name in ("dice_finder.onnx", "dice_reader.onnx"):
        (tmp_path / name).write_bytes(b"not an ONNX file")
    with pytest.raises(ModelError, match="dice_finder.onnx cannot be loaded"):
        DiceReader(tmp_path)
    for name in ("dice_finder.onnx", "dice_reader.onnx"):
        shutil.copyfile(MODELS / name, tmp_path / name)
    with pytest.raises(ModelError, match="dice_photo_reader.onnx is missing"):
        DiceReader(tmp_path)


def test_read_json_has_the_dice_and_the_cube(tmp_path, capsys):
    scene = Scene.from_position(Position.start(), 0, dice=(Die(6, *_in_half(0, 0)), Die(1, *_in_half(0, 1))),
                                cube_value=8, cube_place="player1")
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=15, roll=3), Effects(noise=3, jpeg=85),
                                              np.random.default_rng(1))
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in image_corners(label)]
    assert main(["read", str(path), "--corners", *corners, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(d["value"] for d in data["dice"]) == [1, 6] and data["cube"]["value"] == 8


@pytest.mark.parametrize("cocked", [False, True], ids=["roll", "void roll"])
def test_the_watcher_hands_on_board_and_cube_then_the_roll_once_two_looks_agree(cocked):
    """A roll, and a void one alike: one frame neither makes a roll nor calls a re-roll."""
    from companion.referee.observations import BoardReading, CubeReading
    from companion.vision.calibrate import calibrate
    from companion.vision.watch import BoardWatcher

    scene = Scene.from_position(Position.start(), 0)
    renderer = Renderer(STYLES[0], 960, 540)
    pose = Pose(tilt=12)
    start, label = renderer.render(scene, pose, Effects(), np.random.default_rng(0))
    profile = calibrate(start, corners=image_corners(label), markers=False).profile
    rolled = replace(scene, dice=(Die(3, *_in_half(0, 0), cocked=cocked), Die(5, *_in_half(0, 1))), cube_value=2,
                     cube_place="player1")
    rolled_image, _ = renderer.render(rolled, pose, Effects(), np.random.default_rng(0))
    watcher = BoardWatcher(profile, hold=0.2)
    seen, settled_at = [], None
    for i in range(12):
        now = watcher.feed(rolled_image, i * 0.05)
        if now and settled_at is None:
            settled_at = i
            assert [type(o) for o in now] == [BoardReading, CubeReading]  # the roll waits for a second look
        seen += now
    kinds = [type(o) for o in seen]
    assert kinds == [BoardReading, CubeReading, DiceReading], kinds
    assert seen[1].cube == 2 and seen[1].place is CubePlace.PLAYER1
    if cocked:
        assert not seen[2].valid and seen[2].reason == COCKED
    else:
        assert sorted(seen[2].values) == [3, 5]


def test_two_looks_at_a_void_roll_agree_on_why_though_a_value_is_misread(monkeypatch):
    """A void roll keeps its values for the record, but a die misread on one look does not delay the call."""
    from companion.vision import watch
    from companion.vision.calibrate import calibrate

    scene = Scene.from_position(Position.start(), 0)
    image, label = Renderer(STYLES[0], 960, 540).render(scene, Pose(tilt=12), Effects(), np.random.default_rng(0))
    profile = calibrate(image, corners=image_corners(label), markers=False).profile
    looks = iter([DiceReading((3, 5), False, ON_A_CHECKER, halves=(0, 0)),
                  DiceReading((3, 6), False, ON_A_CHECKER, halves=(0, 0))] + [None] * 20)
    monkeypatch.setattr(watch, "dice_reading", lambda *a, **k: next(looks))
    watcher = watch.BoardWatcher(profile, hold=0.2)
    seen = [o for i in range(12) for o in watcher.feed(image, i * 0.05) if isinstance(o, DiceReading)]
    assert len(seen) == 1 and seen[0].reason == ON_A_CHECKER and seen[0].values == (3, 6)
