"""The dice models' training code, where a mistake would not fail loudly but teach the models something wrong."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_TOOL = Path(__file__).resolve().parents[2] / "tools/train_dice.py"
_spec = importlib.util.spec_from_file_location("train_dice", _TOOL)
train_dice = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_dice)


@pytest.mark.parametrize("turns", range(4))
@pytest.mark.parametrize("flip", [False, True])
def test_a_turned_patch_keeps_its_objects_on_their_pixels(turns, flip):
    # the finder learns centres from these: a target half a pixel off moves every find the same way
    patch = np.zeros((train_dice.PATCH, train_dice.PATCH, 3), np.uint8)
    patch[37, 90] = 255  # row 37, column 90
    turned, objects = train_dice._turn(patch, [(0, 90.0, 37.0, 10.0)], turns, flip)
    ys, xs = np.nonzero(turned[..., 0])
    assert (xs[0], ys[0]) == pytest.approx(objects[0][1:3])


def test_finder_placed_crops_are_centred_on_the_find_and_carry_the_label():
    # seen from the side a die is found below its top face: the photo reader must learn it from there too
    image = np.zeros((400, 400, 3), np.uint8)
    image[227:234, 197:204] = 255  # the find, 30 px below the label's centre
    objects = [(1, 200.0, 200.0, 100.0)]
    finds = [(200.0, 230.0, 100.0), (330.0, 330.0, 100.0), (205.0, 205.0, 20.0)]  # the die; far off; pip-sized
    crops, classes = train_dice.finder_placed_crops(image, objects, finds, np.random.default_rng(0), copies=4)
    assert classes == [1] * 4
    middle = (train_dice.PHOTO_CROP - 1) / 2
    for crop in crops:
        ys, xs = np.nonzero(crop[..., 0] > 128)
        assert crop.shape == (train_dice.PHOTO_CROP, train_dice.PHOTO_CROP, 3)
        assert abs(xs.mean() - middle) < 3 and abs(ys.mean() - middle) < 3


def test_near_misses_lie_beside_a_die_and_never_on_one():
    # labelled "nothing": a crop centred on any die would teach the photo reader that a die is not one
    image = np.zeros((400, 600, 3), np.uint8)
    objects = [(3, 200.0, 200.0, 60.0), (5, 255.0, 200.0, 60.0)]  # two touching dice
    image[185:216, 185:216] = 255
    image[185:216, 240:271] = 255
    rng = np.random.default_rng(0)
    crops = train_dice.near_misses(image, objects, rng, copies=40)
    assert 0 < len(crops) < 80  # the ones that would have fallen on the other die are left out
    middle = train_dice.PHOTO_CROP // 2
    for crop in crops:
        assert crop.shape == (train_dice.PHOTO_CROP, train_dice.PHOTO_CROP, 3)
        assert crop[middle - 2:middle + 3, middle - 2:middle + 3].max() == 0  # no die at the middle


def test_camera_jitter_keeps_the_batch_shape_and_type():
    x = (np.random.default_rng(1).random((16, 64, 64, 3)) * 255).astype(np.uint8)
    out = train_dice.camera_jitter(x, np.random.default_rng(2))
    assert out.shape == x.shape and out.dtype == np.uint8
