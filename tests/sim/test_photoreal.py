"""The photoreal renderer's parts that run without Blender: what a board and a frame are made of, the camera's
lens, and the labels (which points a hand hides, which colour player 0 plays)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.rules.layout import BoardGeometry
from companion.sim.photoreal import post
from companion.sim.photoreal.__main__ import main as render_main
from companion.sim.photoreal.spec import HELDOUT_DESIGNS, TRAIN_DESIGNS, board_spec, frame_spec
from companion.vision.orientation import Orientation


def test_a_board_is_the_same_from_its_seed_and_boards_differ():
    assert board_spec("train", 3) == board_spec("train", 3)
    assert frame_spec(board_spec("train", 3), 2) == frame_spec(board_spec("train", 3), 2)
    assert board_spec("train", 3)["geometry"] != board_spec("train", 4)["geometry"]
    assert board_spec("train", 3)["geometry"] != board_spec("heldout", 3)["geometry"]


def test_held_out_designs_share_no_material_or_checker_with_training():
    def kinds(designs, attr):
        return {k for d in designs for k in getattr(d, attr)}

    for attr in ("field", "checker_models", "finishes"):
        assert not kinds(TRAIN_DESIGNS, attr) & kinds(HELDOUT_DESIGNS, attr), attr
    assert not {d.name for d in TRAIN_DESIGNS} & {d.name for d in HELDOUT_DESIGNS}


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_boards_are_backgammon_boards_in_the_stated_ranges(split):
    for number in range(40):
        board = board_spec(split, number)
        g = board["geometry"]
        geometry = BoardGeometry(g["play_width"], g["play_height"], g["bar_width"], g["point_length"],
                                 g["checker_diameter"])  # validates the proportions
        assert 0.05 <= g["bar_width"] / g["play_width"] <= 0.10
        assert 0.35 <= g["point_length"] / g["play_height"] <= 0.45
        assert 0.80 <= g["checker_diameter"] / geometry.point_width <= 0.98


def test_frames_hold_fifteen_checkers_each_and_frame_zero_is_the_start():
    board = board_spec("train", 1)
    start = frame_spec(board, 0)
    assert start["hand"] is None
    assert sorted(c for o, c in start["points"] if o == 0) == [2, 3, 5, 5]
    for k in range(60):
        frame = frame_spec(board, k)
        for player in (0, 1):
            on_points = sum(c for o, c in frame["points"] if o == player)
            assert on_points + frame["bar"][player] + frame["off"][player] == 15


def test_a_steady_board_sees_every_frame_by_its_start_s_camera_and_lamps():
    """`steady`: frames after the start keep the start's camera, lamps and table, and are otherwise the frames
    they are without it (positions, hands, noise); the start itself is the same either way."""
    board = board_spec("heldout", 68)
    start = frame_spec(board, 0)
    assert frame_spec(board, 0, steady=True) == start
    for k in range(1, 6):
        moving, steady = frame_spec(board, k), frame_spec(board, k, steady=True)
        assert {key: steady[key] for key in ("camera", "lights", "table")} == \
            {key: start[key] for key in ("camera", "lights", "table")}
        assert {key: value for key, value in steady.items() if key not in ("camera", "lights", "table")} == \
            {key: value for key, value in moving.items() if key not in ("camera", "lights", "table")}
        assert moving["camera"] != start["camera"]


def test_a_point_s_ground_lies_where_the_reader_looks_for_that_point():
    """The label's idea of where point p lies (and so which points a hand hides) agrees with the reader's
    `Orientation` for player 0 at the bottom, with his home board on either side."""
    for home_right in (True, False):
        board = board_spec("train", 0) | {"home_right": home_right}
        g = board["geometry"]
        geometry = BoardGeometry(g["play_width"], g["play_height"], g["bar_width"], g["point_length"],
                                 g["checker_diameter"])
        orient = Orientation(True, home_right, "light")
        frame = {"points": [[0, 1]] * 24}
        for slot in range(24):
            point = orient.point_of_slot(slot)
            ground = post._point_ground(board, point, frame)
            assert np.isclose(ground[:, 0].mean(), geometry.slot_x(slot))
            top = slot < 12
            assert (ground[:, 1].min() == 0.0) if top else (ground[:, 1].max() == g["play_height"])


def test_the_lens_moves_labels_as_it_moves_the_image():
    lens = post.Lens(960, 540, 20.0, -0.2)
    assert lens.zoom > 1  # a barrel lens is zoomed so its corners still show the scene
    image = np.zeros((540, 960), np.float32)
    for x, y in ((100, 50), (700, 400), (480, 270), (900, 60)):
        image[:] = 0
        image[y - 2:y + 3, x - 2:x + 3] = 1
        ys, xs = np.nonzero(lens.warp(image) > 0.3)
        assert np.allclose((xs.mean(), ys.mean()), lens.distort([[x, y]])[0], atol=0.6)
    assert np.allclose(post.Lens(960, 540, 35.0, 0.0).distort([[10.0, 20.0]]), [[10.0, 20.0]])


def _raw_frame(tmp_path, board, frame, hand):
    """A stand-in for Blender's output: a plain image, the corners of a top-down camera, perhaps a hand."""
    g = board["geometry"]
    scale = 1.4
    corners = [[20, 20], [20 + g["play_width"] * scale, 20], [20 + g["play_width"] * scale,
               20 + g["play_height"] * scale], [20, 20 + g["play_height"] * scale]]
    h, w = int(g["play_height"] * scale) + 40, int(g["play_width"] * scale) + 40
    cv2.imwrite(str(tmp_path / "raw.png"), np.full((h, w, 3), 30000, np.uint16))
    raw = {"corners": corners, "hand_outline": hand, "dice_px": [[50, 50], [60, 60]], "camera": {},
           "render_seconds": 1.0, "width": w, "height": h}
    (tmp_path / "raw.raw.json").write_text(json.dumps(raw))
    return corners


def test_a_hand_hides_the_points_under_it_and_only_those(tmp_path):
    board = board_spec("train", 2) | {"home_right": True, "from_player1": False}
    frame = frame_spec(board, 0) | {"camera": {"focal": 50.0, "distortion": 0.0, "tilt": 0.0}}
    frame["effects"] |= {"motion": 0.0, "defocus": 0.0, "noise": 0.0}
    corners = _raw_frame(tmp_path, board, frame, [])
    (x0, y0), (x1, y1) = corners[0], corners[2]
    # a hand over the bottom-right corner of the playing area: player 0's 1 and 2 points (home on the right)
    pw = (x1 - x0) * board["geometry"]["point_width"] / board["geometry"]["play_width"]
    hand = [[[x1 - 1.6 * pw, y1 - 60], [x1 + 30, y1 - 60], [x1 + 30, y1 + 30], [x1 - 1.6 * pw, y1 + 30]]]
    corners = _raw_frame(tmp_path, board, frame, hand)
    label = post.develop(board, frame, tmp_path / "raw.png", tmp_path / "frame.jpg")
    assert label["hand"] and label["occluded"] == [1, 2]
    assert json.loads((tmp_path / "frame.json").read_text()) == label
    assert cv2.imread(str(tmp_path / "frame.jpg")) is not None
    assert np.allclose(label["corners"], corners, atol=0.01)
    _raw_frame(tmp_path, board, frame, [])
    assert post.develop(board, frame, tmp_path / "raw.png", tmp_path / "frame.jpg")["occluded"] == []


def _straight_frame(tmp_path):
    """Board 2's frame 0 seen straight on through an undistorted lens, its raw render faked: what `label_for` takes."""
    board = board_spec("train", 2)
    frame = frame_spec(board, 0) | {"camera": {"focal": 50.0, "distortion": 0.0, "tilt": 0.0}}
    _raw_frame(tmp_path, board, frame, [])
    raw = json.loads((tmp_path / "raw.raw.json").read_text())
    lens = post.Lens(raw["width"], raw["height"], 50.0, 0.0)
    return board, frame, raw, lens


def test_player_zero_s_colour_is_the_lighter_set_s_name_whatever_the_spec_calls_it(tmp_path):
    board, frame, raw, lens = _straight_frame(tmp_path)
    swapped = board | {"checkers": board["checkers"] | {"colours": board["checkers"]["colours"][::-1]}}
    first = post.label_for(board, frame, raw, lens, None)["colours"]["player0_colour"]
    second = post.label_for(swapped, frame, raw, lens, None)["colours"]["player0_colour"]
    assert {first, second} == {"light", "dark"}


def test_the_command_refuses_bad_options_and_says_when_blender_is_missing(tmp_path, capsys):
    with pytest.raises(SystemExit) as bad:
        render_main(["--split", "train", "--out", str(tmp_path), "--size", "big"])
    assert bad.value.code == 2
    assert render_main(["--split", "train", "--boards", "1", "--frames", "1", "--out", str(tmp_path),
                        "--blender-python", "false"]) == 1
    assert "Blender failed" in capsys.readouterr().err


def test_each_range_of_training_boards_keeps_its_designs():
    """A board's number fixes its design: ranges added later draw from more designs, and change no board before."""
    from companion.sim.photoreal.spec import (FIRST_ALL_TRAIN_BOARD, FIRST_MIXED_TRAIN_BOARD, FIRST_STONE_TRAIN_BOARD,
                                              FIRST_TALL_TRAIN_BOARD,
                                              FIRST_TILED_TRAIN_BOARD, FIRST_WIDER_TRAIN_BOARD, STONE_DESIGNS,
                                              WIDER_DESIGNS)

    def designs(boards):
        return {board_spec("train", b)["design"] for b in boards}

    assert designs(range(FIRST_WIDER_TRAIN_BOARD, FIRST_STONE_TRAIN_BOARD)) == set(WIDER_DESIGNS)
    assert designs(range(FIRST_STONE_TRAIN_BOARD, FIRST_ALL_TRAIN_BOARD)) == set(STONE_DESIGNS)
    assert designs(range(FIRST_ALL_TRAIN_BOARD, FIRST_TILED_TRAIN_BOARD)) == set(WIDER_DESIGNS + STONE_DESIGNS)
    assert designs(range(FIRST_TILED_TRAIN_BOARD, FIRST_TALL_TRAIN_BOARD)) == {"tiled-swirl"}
    assert designs(range(FIRST_TALL_TRAIN_BOARD, FIRST_TALL_TRAIN_BOARD + 18)) == set(
        WIDER_DESIGNS + STONE_DESIGNS + ("tiled-swirl",))
    assert designs(range(FIRST_MIXED_TRAIN_BOARD, FIRST_MIXED_TRAIN_BOARD + 18)) == set(
        WIDER_DESIGNS + STONE_DESIGNS + ("tiled-swirl",))
    # as the development boards were rendered (their labels say so)
    assert [board_spec("train", b)["design"] for b in (10, 13, 100, 101)] == [
        "lacquer-tournament", "club-leather", "slate-polished", "burl-veneer"]


def test_each_range_of_held_out_boards_keeps_its_designs():
    """Held-out boards 8-99 are the first three designs and 100-999 the mosaic, as they were read; from 1000 the
    first three come again, for fresh draws after 8-99 were used up."""
    from companion.sim.photoreal.spec import (FIRST_HELDOUT_DESIGNS, FIRST_MOSAIC_HELDOUT_BOARD,
                                              FIRST_THREE_AGAIN_HELDOUT_BOARD)

    def designs(boards):
        return {board_spec("heldout", b)["design"] for b in boards}

    assert designs(range(FIRST_MOSAIC_HELDOUT_BOARD - 6, FIRST_MOSAIC_HELDOUT_BOARD)) == set(FIRST_HELDOUT_DESIGNS)
    assert designs(range(FIRST_MOSAIC_HELDOUT_BOARD, FIRST_MOSAIC_HELDOUT_BOARD + 3)) == {"mosaic-glass"}
    assert designs(range(FIRST_THREE_AGAIN_HELDOUT_BOARD - 3, FIRST_THREE_AGAIN_HELDOUT_BOARD)) == {"mosaic-glass"}
    assert designs(range(FIRST_THREE_AGAIN_HELDOUT_BOARD, FIRST_THREE_AGAIN_HELDOUT_BOARD + 6)) == set(
        FIRST_HELDOUT_DESIGNS)
    # as the read draws were rendered (session 32's fresh draw, boards 86-91 and mosaic 166-171)
    assert [board_spec("heldout", b)["design"] for b in (86, 87, 88, 166)] == [
        "inlaid-parquet", "marble-brass", "cork-travel", "mosaic-glass"]


def test_tall_stack_boards_show_tall_stacks_more_often():
    """Boards `FIRST_TALL_TRAIN_BOARD` to `FIRST_MIXED_TRAIN_BOARD` are for the counts of tall stacks, rare in
    games' positions; the boards after them have the usual share again."""
    from companion.sim.photoreal.spec import FIRST_MIXED_TRAIN_BOARD, FIRST_TALL_TRAIN_BOARD

    def share(boards):
        frames = [frame_spec(board_spec("train", b), k) for b in boards for k in range(1, 6)]
        return sum(max(count for _, count in frame["points"]) >= 6 for frame in frames) / len(frames)

    before, tall = share(range(200, 220)), share(range(FIRST_TALL_TRAIN_BOARD, FIRST_TALL_TRAIN_BOARD + 20))
    after = share(range(FIRST_MIXED_TRAIN_BOARD, FIRST_MIXED_TRAIN_BOARD + 20))
    assert tall > 0.5 > max(before, after)


def test_tower_boards_show_tall_stacks_and_stack_them_as_towers_more_often():
    """From `FIRST_TOWER_TRAIN_BOARD`, tall stacks come as often as on the tall-stack boards and are stacked as
    towers twice as often; held-out boards keep the usual shares."""
    from companion.sim.photoreal.spec import FIRST_MIXED_TRAIN_BOARD, FIRST_TOWER_TRAIN_BOARD

    def shares(split, boards):
        frames = [frame_spec(board_spec(split, b), k) for b in boards for k in range(1, 6)]
        tall = [f for f in frames if max(count for _, count in f["points"]) >= 6]
        towers = sum(f["stacking"]["style"] == "tower" for f in frames)
        return len(tall) / len(frames), towers / len(frames)

    tall, towers = shares("train", range(FIRST_TOWER_TRAIN_BOARD, FIRST_TOWER_TRAIN_BOARD + 40))
    usual_tall, usual_towers = shares("train", range(FIRST_MIXED_TRAIN_BOARD, FIRST_MIXED_TRAIN_BOARD + 40))
    held_tall, held_towers = shares("heldout", range(68, 108))
    assert tall > 0.5 > max(usual_tall, held_tall)
    assert towers > 0.4 and max(usual_towers, held_towers) < 0.35


def test_surface_boards_draw_checker_surfaces_apart_from_the_held_out_finishes():
    """From `FIRST_SURFACE_TRAIN_BOARD`, each checker set gets a surface from continuous ranges, never one of the
    held-out finishes' physics; the boards before and the held-out boards keep their named finishes, unchanged."""
    from companion.sim.photoreal.spec import FIRST_SURFACE_TRAIN_BOARD, HELDOUT_DESIGNS

    before = board_spec("train", FIRST_SURFACE_TRAIN_BOARD - 1)["checkers"]
    assert "surfaces" not in before and before["finish"] == "glossy"  # as board 541 was rendered
    held = {f for d in HELDOUT_DESIGNS for f in d.finishes}
    assert not any("surfaces" in board_spec("heldout", b)["checkers"] for b in range(80, 100))
    surfaces = [s for b in range(FIRST_SURFACE_TRAIN_BOARD, FIRST_SURFACE_TRAIN_BOARD + 60)
                for s in board_spec("train", b)["checkers"]["surfaces"]]
    assert {board_spec("train", b)["checkers"]["finish"] for b in range(FIRST_SURFACE_TRAIN_BOARD,
                                                                       FIRST_SURFACE_TRAIN_BOARD + 60)} == {"surface"}
    # what a surface may set (`blender_scene.surface_material` builds exactly these): no metal, glass, thin film
    assert all(set(s) == {"roughness", "coat", "coat_roughness", "sheen", "subsurface", "pattern", "scale",
                          "distortion", "shade"} for s in surfaces)
    assert {s["pattern"] for s in surfaces} == {"none", "rings", "bands", "chips"}  # no noise veins (marble, pearl)
    assert held == {"marble", "metal", "pearl", "translucent"}  # the finishes the surfaces above keep clear of
    assert len({s["roughness"] for s in surfaces}) > 40  # continuous, not a handful of finishes
    assert max(s["subsurface"] for s in surfaces) <= 0.3  # milky, not translucent


def test_metallic_boards_make_some_sets_metallic_and_keep_every_earlier_board():
    """From `FIRST_METALLIC_TRAIN_BOARD` some checker sets are metallic (a surface's one added key); the surface
    boards before keep exactly their surfaces, and a metallic board's other draws are those it had without it."""
    from companion.sim.photoreal import spec

    first = spec.FIRST_METALLIC_TRAIN_BOARD
    assert not any("metallic" in s for b in range(spec.FIRST_SURFACE_TRAIN_BOARD, first)
                   for s in board_spec("train", b)["checkers"]["surfaces"])
    sets = [s for b in range(first, first + 40) for s in board_spec("train", b)["checkers"]["surfaces"]]
    metallic = [s for s in sets if "metallic" in s]
    assert 0.25 < len(metallic) / len(sets) < 0.6
    assert all(0.75 <= s["metallic"] <= 1.0 and 0.12 <= s["roughness"] <= 0.45 for s in metallic)
    assert all(set(s) - {"metallic"} == {"roughness", "coat", "coat_roughness", "sheen", "subsurface", "pattern",
                                         "scale", "distortion", "shade"} for s in sets)
    # the metallic draw comes from its own stream: without it the board is the one it would have been
    original = spec._metallic
    try:
        spec._metallic = lambda rng, surfaces: surfaces
        plain = board_spec("train", first + 1)
    finally:
        spec._metallic = original
    drawn = board_spec("train", first + 1)
    assert {k: v for k, v in drawn.items() if k != "checkers"} == {k: v for k, v in plain.items() if k != "checkers"}
    assert [{k: v for k, v in s.items() if k not in ("metallic", "roughness")} for s in drawn["checkers"]["surfaces"]] \
        == [{k: v for k, v in s.items() if k not in ("metallic", "roughness")} for s in plain["checkers"]["surfaces"]]


def test_cocked_dice_boards_lean_some_dice_and_keep_every_earlier_frame():
    """From `FIRST_COCKED_TRAIN_BOARD` a frame after the first may throw a die cocked (its own stream: the frame's
    other draws are what they were); earlier boards, frame 0 and held-out boards throw flat dice, as rendered."""
    from companion.sim.photoreal import spec

    first = spec.FIRST_COCKED_TRAIN_BOARD
    assert not any("dice_lean" in frame_spec(board_spec("train", b), f) for b in (first - 2, first - 1)
                   for f in range(6))
    assert not any("dice_lean" in frame_spec(board_spec("heldout", b), f) for b in (1006, 184) for f in range(6))
    leans = []
    for b in range(first, first + 20):
        board = board_spec("train", b)
        assert "dice_lean" not in frame_spec(board, 0)  # the calibration photo
        for f in range(1, 6):
            leans += frame_spec(board, f)["dice_lean"]
    cocked = [lean for lean in leans if lean]
    assert len(leans) == 200 and 0.15 < len(cocked) / len(leans) < 0.35
    assert all(set(lean) == {"tilt"} and 14 <= lean["tilt"] <= 38 for lean in cocked)
    original = spec._cocked_dice
    try:
        spec._cocked_dice = lambda rng: [None, None]
        plain = frame_spec(board_spec("train", first), 2)
    finally:
        spec._cocked_dice = original
    drawn = frame_spec(board_spec("train", first), 2)
    assert {k: v for k, v in drawn.items() if k != "dice_lean"} == {k: v for k, v in plain.items() if k != "dice_lean"}


def test_the_label_says_which_dice_were_thrown_cocked(tmp_path):
    board, frame, raw, lens = _straight_frame(tmp_path)
    assert post.label_for(board, frame, raw, lens, None)["dice_cocked"] == [False, False]
    leaning = frame | {"dice_lean": [None, {"tilt": 20.0}]}
    assert post.label_for(board, leaning, raw, lens, None)["dice_cocked"] == [False, True]


def test_printed_boards_are_their_own_design_with_discs_and_flakes_that_no_held_out_board_has():
    """From `FIRST_PRINTED_TRAIN_BOARD` the boards are the printed-dots design (dotted and tartan prints) and their
    checker surfaces may be an inset disc or metal flakes; every board before keeps the four patterns it had, and
    no held-out board draws a surface at all."""
    from companion.sim.photoreal import spec

    first = spec.FIRST_PRINTED_TRAIN_BOARD
    assert {board_spec("train", b)["design"] for b in range(first, first + 12)} == {"printed-dots"}
    assert "printed-dots" not in {board_spec("train", b)["design"] for b in range(first - 60, first)}
    kinds = {m["kind"] for b in range(first, first + 40) for m in
             [board_spec("train", b)["materials"]["field"], *board_spec("train", b)["materials"]["points"]]}
    assert {"dots", "plaid"} <= kinds and not {"dots", "plaid"} & {k for d in HELDOUT_DESIGNS for k in d.field + d.points}
    surfaces = [s for b in range(first, first + 40) for s in board_spec("train", b)["checkers"]["surfaces"]]
    assert {s["pattern"] for s in surfaces} == set(spec.PATTERNS_FROM_PRINTED)
    discs = [s for s in surfaces if s["pattern"] == "disc"]
    assert all(0.3 <= s["disc"] <= 0.8 and (s["shade"] < 0.85 or s["shade"] > 1.15) for s in discs)
    assert all("disc" not in s for s in surfaces if s["pattern"] != "disc")
    before = [s for b in range(first - 40, first) for s in board_spec("train", b)["checkers"]["surfaces"]]
    assert {s["pattern"] for s in before} == set(spec.PATTERNS) and not any("disc" in s for s in before)
