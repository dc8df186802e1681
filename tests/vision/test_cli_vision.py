"""`companion read`, `markers` and `calibrate` from the command line: outputs and exit statuses."""

import json

import cv2
import numpy as np

from companion.cli import main
from companion.rules import Position
from companion.sim import STYLES, Effects, Pose
from companion.sim.render import Renderer, Scene
from companion.sim.truth import image_corners


def _photo(tmp_path, position=None, name="board.png", **pose):
    scene = Scene.from_position(position or Position.start(), 0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(**pose), Effects(noise=3), np.random.default_rng(2))
    path = tmp_path / name
    cv2.imwrite(str(path), image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in image_corners(label)]
    return path, corners


def test_read_json_lists_points_in_image_order(tmp_path, capsys):
    path, corners = _photo(tmp_path, tilt=12)
    assert main(["read", str(path), "--corners", *corners, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # top edge from the top-left: player 0's 13..24; bottom edge from the bottom-left: his 12..1
    assert [p["count"] for p in data["points"]] == [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2] * 2
    assert [p["colour"] for p in data["points"] if p["count"]] == ["light", "dark", "dark", "light",
                                                                   "dark", "light", "light", "dark"]
    assert all(0 <= p["confidence"] <= 1 for p in data["points"])


def test_calibrate_then_read_prints_ids(tmp_path, capsys):
    path, corners = _photo(tmp_path, tilt=12)
    profile = tmp_path / "board.toml"
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--out", str(profile)]) == 0
    assert "verified" in capsys.readouterr().out
    # calibrated again (a director with several boards): the profile before is kept beside it, and said so
    first = profile.read_text()
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--out", str(profile)]) == 0
    assert f"is kept as {tmp_path / 'board.earlier.toml'}" in capsys.readouterr().out
    assert (tmp_path / "board.earlier.toml").read_text() == first
    # a picture of another size than the profile's: refused, saying that first (it said only "where the corners say")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(path)), None, fx=0.5, fy=0.5))
    assert main(["read", str(small), "--profile", str(profile)]) == 2
    assert "the profile was calibrated on" in capsys.readouterr().err
    seen_by_player0 = Position.start().play("24/18 13/11", 6, 2).position.swap()
    moved, _ = _photo(tmp_path, seen_by_player0, "moved.png", tilt=12)
    assert main(["read", str(moved), "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    assert f"Position ID: {seen_by_player0.position_id()}" in out
    assert "XGID=" in out
    assert main(["read", str(moved), "--profile", str(profile), "--json"]) == 0  # a script gets them too
    ids = json.loads(capsys.readouterr().out)["ids"]
    assert ids["position_id"] == seen_by_player0.position_id() and ids["xgid"] in out and ids["on_roll"] == 0


def test_read_without_a_profile_gives_the_ids_the_way_round_the_user_says(tmp_path, capsys):
    """`companion read` gave no Position ID without a profile. Player 0 sits at the bottom of the picture; his
    colour and his home board's side are the user's to say (light, on his right, unless told)."""
    seen_by_player0 = Position.start().play("24/18 13/11", 6, 2).position.swap()
    moved, corners = _photo(tmp_path, seen_by_player0, "moved.png", tilt=12)
    ids = {}
    for player0 in ("light", "dark"):
        for home in ("right", "left"):
            assert main(["read", str(moved), "--corners", *corners, "--player0", player0, "--home", home]) == 0
            out = capsys.readouterr().out
            assert f"player 0: {player0}, at the bottom of the picture, home board on his {home}" in out
            ids[player0, home] = out.split("Position ID: ")[1].split()[0]
    assert ids["light", "right"] == seen_by_player0.position_id()  # the renderer's way round: light at the bottom
    assert len(set(ids.values())) == 4  # each way round is another position
    assert main(["read", str(moved), "--corners", *corners]) == 0
    assert f"Position ID: {ids['light', 'right']}" in capsys.readouterr().out  # the usual way round, unless told
    start, corners = _photo(tmp_path, tilt=12)
    profile = tmp_path / "board.toml"
    assert main(["calibrate", "--image", str(start), "--corners", *corners, "--out", str(profile)]) == 0
    capsys.readouterr()
    assert main(["read", str(moved), "--profile", str(profile), "--player0", "dark"]) == 2
    assert "the profile knows" in capsys.readouterr().err
    assert main(["read", str(moved), "--corners", *corners, "--json", "--home", "left"]) == 2
    assert "--json gives them with a profile only" in capsys.readouterr().err


def test_read_without_a_profile_takes_player_0s_colour_from_the_checkers_on_the_bar(tmp_path, capsys):
    """A new user read a photo whose bottom player had the dark checkers: read put the light checker on the bar in
    the light player's count (16 checkers) and gave no Position ID. The bar's halves are each player's by where they
    lie: their checkers' colour says which colour sits at the bottom."""
    from dataclasses import replace

    from companion.sim import STYLES

    light, dark = STYLES[0].checkers
    dark_at_the_bottom = replace(STYLES[0], checkers=(dark, light))
    hit = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 25: 1})  # a light one on the bar
    scene = Scene.from_position(hit, 0)
    image, label = Renderer(dark_at_the_bottom).render(scene, Pose(tilt=12), Effects(noise=3),
                                                       np.random.default_rng(2))
    path = tmp_path / "dark.png"
    cv2.imwrite(str(path), image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in image_corners(label)]
    assert main(["read", str(path), "--corners", *corners]) == 0
    out = capsys.readouterr().out
    assert "player 0: dark as the bar and trays show, at the bottom" in out
    assert f"Position ID: {hit.position_id()}" in out
    assert main(["read", str(path), "--corners", *corners, "--player0", "light"]) == 1  # told the wrong way round
    out = capsys.readouterr().out
    assert "not a position (on the board, player 0 (light) has 14 checkers and player 1 (dark) 16, with 0 and 0" in out


def test_read_puts_the_roll_and_the_cube_it_sees_in_the_ids(tmp_path, capsys):
    """A new user's photo showed 33 and the cube at 32, and read's XGID said neither. The roller is the player in
    whose right-hand half the dice lie: the IDs are then from his side."""
    from companion.rules.layout import BoardLayout
    from companion.rules.xgid import parse_xgid
    from companion.sim.render import Die

    x0, y0, x1, y1 = BoardLayout().dice_area(1)  # player 1's right-hand half
    position = Position.start().play("13/11 6/5", 2, 1).position  # player 0's, player 0 has played
    scene = Scene.from_position(position, 0, dice=(Die(5, x0 + 40, y0 + 30), Die(2, x1 - 40, y1 - 30)), roller=1,
                                cube_value=2, cube_place="player0")
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=12), Effects(noise=3), np.random.default_rng(2))
    path = tmp_path / "roll.png"
    cv2.imwrite(str(path), image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in image_corners(label)]
    assert main(["read", str(path), "--corners", *corners, "--flat-dice"]) == 0
    out = capsys.readouterr().out
    assert "player 1 (dark) on roll, 52 to play:" in out or "player 1 (dark) on roll, 25 to play:" in out
    assert f"Position ID: {position.swap().position_id()}" in out
    xgid = parse_xgid(next(line for line in out.splitlines() if line.startswith("XGID=")))
    assert xgid.position == position.swap() and xgid.turn == 0 and sorted((xgid.dice.die1, xgid.dice.die2)) == [2, 5]
    assert (xgid.match.cube, xgid.match.cube_owner) == (2, 1)  # player 0's, the XGID's bottom player


def test_flat_dice_are_read_where_painted_and_standing_ones_where_they_stand(tmp_path, capsys):
    """`--flat-dice` (rendered frames) leaves the dice where the finder marks them; without it, on a board seen 30
    degrees off overhead, each die is moved towards the camera, by millimetres; a flat profile says the same."""
    from companion.rules.layout import BoardLayout
    from companion.sim.render import Die

    layout = BoardLayout()
    x0, y0, x1, y1 = layout.dice_area(0)
    scene = Scene.from_position(Position.start(), 0, dice=(Die(2, x0 + 40, y0 + 30), Die(6, x1 - 40, y1 - 30)),
                                roller=0)
    image, label = Renderer(STYLES[0]).render(scene, Pose(tilt=30), Effects(noise=3), np.random.default_rng(2))
    path = tmp_path / "roll.png"
    cv2.imwrite(str(path), image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in image_corners(label)]
    dice = {}
    for flat in (["--flat-dice"], []):
        assert main(["read", str(path), "--corners", *corners, "--json", *flat]) == 0
        dice[bool(flat)] = sorted(json.loads(capsys.readouterr().out)["dice"], key=lambda d: d["value"])
    assert [d["value"] for d in dice[True]] == [2, 6]
    assert [d["box"] for d in dice[True]] == [d["box"] for d in dice[False]]  # the picture's boxes stay
    for painted, standing in zip(dice[True], dice[False]):
        assert 2.0 < np.hypot(*np.subtract(painted["at"], standing["at"])) < 20.0
    start, start_label = Renderer(STYLES[0]).render(Scene.from_position(Position.start(), 0), Pose(tilt=30),
                                                    Effects(noise=3), np.random.default_rng(2))
    cv2.imwrite(str(tmp_path / "start.png"), start)
    profile = tmp_path / "flat.toml"
    assert main(["calibrate", "--image", str(tmp_path / "start.png"), "--corners", *corners, "--out", str(profile),
                 "--flat-dice"]) == 0
    assert "flat_dice = true" in profile.read_text()


def test_unreadable_and_non_board_images_exit_2(tmp_path, capsys):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    assert main(["read", str(broken), "--corners", "1,1", "100,1", "100,100", "1,100"]) == 2
    assert "cannot read an image" in capsys.readouterr().err
    assert main(["read", str(tmp_path / "missing.png")]) == 2
    capsys.readouterr()
    noise = tmp_path / "noise.png"
    cv2.imwrite(str(noise), np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8))
    assert main(["read", str(noise), "--corners", "100,100", "1100,100", "1100,650", "100,650"]) == 2
    assert "does not show a backgammon board" in capsys.readouterr().err
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((720, 1280, 3), 128, np.uint8))
    assert main(["read", str(grey)]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["read", str(grey), "--corners", "1,1", "2,2", "3,3", "4,4"]) == 2
    assert "--corners" in capsys.readouterr().err


def test_markers_command_writes_pdf_and_png(tmp_path, capsys):
    assert main(["markers", "--out", str(tmp_path / "sheet.pdf")]) == 0
    assert (tmp_path / "sheet.pdf").stat().st_size > 1000 and (tmp_path / "sheet.png").exists()


def test_calibrate_refuses_a_board_in_play(tmp_path, capsys):
    position = Position.start().play("13/7 8/7", 6, 1).position
    path, corners = _photo(tmp_path, position.swap(), tilt=10)
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--out", str(tmp_path / "p.toml")]) == 2
    assert "starting position" in capsys.readouterr().err
    assert not (tmp_path / "p.toml").exists()


def test_read_json_says_where_the_board_is_and_how_it_is_measured(tmp_path, capsys):
    path, corners = _photo(tmp_path, tilt=12)
    assert main(["read", str(path), "--corners", *corners, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert np.allclose(data["corners"], [[float(v) for v in c.split(",")] for c in corners], atol=0.1)
    assert 0.03 < data["geometry"]["bar_width"] / data["geometry"]["play_width"] < 0.12
    assert data["board_confidence"] > 0.9
    assert data["mended"] is False  # a clean start needs no count inferred


def test_calibrate_on_a_position_given_or_on_labels(tmp_path, capsys):
    """A photo of a game in progress calibrates with --position (its XGID) or with --labels (a reading the user
    saved); a wrong XGID is refused and writes no profile."""
    position = Position.start().play("24/18 13/11", 6, 2).position.swap()
    path, corners = _photo(tmp_path, position, tilt=12)
    from companion.rules.match import MatchState
    from companion.rules.xgid import BOTTOM, XgidState, format_xgid

    xgid = format_xgid(XgidState(position, MatchState(), BOTTOM))
    profile = tmp_path / "pos.toml"
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--position", xgid,
                 "--out", str(profile)]) == 0
    assert "the position given reads back" in capsys.readouterr().out
    assert 'reader = "strips"' in profile.read_text() and "[geometry]" in profile.read_text()
    wrong = format_xgid(XgidState(Position.start(), MatchState(), BOTTOM))
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--position", wrong,
                 "--out", str(tmp_path / "wrong.toml")]) == 2
    assert not (tmp_path / "wrong.toml").exists()
    capsys.readouterr()
    assert main(["read", str(path), "--corners", *corners, "--json"]) == 0
    labels = tmp_path / "reading.json"
    labels.write_text(capsys.readouterr().out)
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--labels", str(labels),
                 "--out", str(tmp_path / "labels.toml")]) == 0
    broken = tmp_path / "broken.json"
    broken.write_text('{"points": [{"colour": "light", "count": 99}]}')
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--labels", str(broken),
                 "--out", str(tmp_path / "b.toml")]) == 2
    assert "--labels" in capsys.readouterr().err


def test_corners_given_with_a_profile_keep_what_it_learnt(tmp_path, capsys):
    """A camera that moved: --corners with --profile reads at the new corners with the profile's geometry."""
    start, corners = _photo(tmp_path, tilt=5)
    profile = tmp_path / "board.toml"
    assert main(["calibrate", "--image", str(start), "--corners", *corners, "--out", str(profile)]) == 0
    capsys.readouterr()
    moved, moved_corners = _photo(tmp_path, name="moved.png", tilt=20, roll=8)
    assert main(["read", str(moved), "--profile", str(profile), "--corners", *moved_corners, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["count"] for p in data["points"]] == [5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2] * 2
    saved = float(next(line.split("=")[1] for line in profile.read_text().splitlines()
                        if line.startswith("bar_width")))
    assert abs(data["geometry"]["bar_width"] - saved) < 0.01


def test_corners_given_in_another_order_are_read_as_the_picture_shows_them(tmp_path, capsys):
    """A new user gave the corners anticlockwise: read warned the board was mirrored, then printed its mirrored
    Position ID with exit status 0; given from the bottom-right, it read the board turned round, the other player on
    roll. Whose side is whose is not the corners' to say: they are read in the picture's order, and the warning says
    so with the corners used."""
    seen_by_player0 = Position.start().play("24/18 13/11", 6, 2).position.swap()
    path, (tl, tr, br, bl) = _photo(tmp_path, seen_by_player0, tilt=12)
    assert main(["read", str(path), "--corners", tl, tr, br, bl]) == 0
    right = capsys.readouterr()
    assert "warning" not in right.err
    for slip, why in (((tl, bl, br, tr), "anticlockwise"), ((tr, tl, bl, br), "anticlockwise"),
                      ((br, bl, tl, tr), "not the top-left")):
        assert main(["read", str(path), "--corners", *slip]) == 0
        said = capsys.readouterr()
        assert said.out == right.out and why in said.err and "read as the picture shows them instead" in said.err


def test_corners_given_another_way_round_than_the_picture_are_warned_of():
    from companion.vision.plane import corner_order_warning

    tl, tr, br, bl = (233, 124), (589, 91), (622, 392), (254, 427)
    assert corner_order_warning([tl, tr, br, bl]) is None
    assert "turned round" in corner_order_warning([br, bl, tl, tr])
    assert "mirrored" in corner_order_warning([tr, tl, bl, br])
    assert "mirrored" in corner_order_warning([tl, bl, br, tr])


def test_corners_outside_the_picture_are_said_to_be_so(tmp_path, capsys):
    """A new user gave corners from a larger picture: calibrate said the board was not at its start, read read on."""
    path, corners = _photo(tmp_path, tilt=12)
    far = [f"{2 * float(c.split(',')[0]):.1f},{c.split(',')[1]}" for c in corners]
    assert main(["read", str(path), "--corners", *far]) == 2
    assert main(["calibrate", "--image", str(path), "--corners", *far, "--out", str(tmp_path / "p.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("lies outside the picture") == 2 and not (tmp_path / "p.toml").exists()


def test_a_profile_of_pictures_of_another_size_is_warned_of(tmp_path, capsys):
    path, corners = _photo(tmp_path, tilt=12)
    profile = tmp_path / "board.toml"
    assert main(["calibrate", "--image", str(path), "--corners", *corners, "--out", str(profile)]) == 0
    image = cv2.imread(str(path))
    bigger = tmp_path / "bigger.png"
    cv2.imwrite(str(bigger), cv2.resize(image, None, fx=1.5, fy=1.5))
    capsys.readouterr()
    main(["read", str(bigger), "--profile", str(profile)])
    height, width = image.shape[:2]
    assert f"but the profile was calibrated on {width}x{height}" in capsys.readouterr().err
    main(["read", str(path), "--profile", str(profile)])
    assert "calibrated on" not in capsys.readouterr().err
    unsized = tmp_path / "unsized.toml"  # written without the size: no size to warn of
    unsized.write_text("".join(line for line in profile.read_text().splitlines(keepends=True)
                               if not line.startswith("frame_size")))
    (tmp_path / "unsized.empty.npz").write_bytes((tmp_path / "board.empty.npz").read_bytes())
    main(["read", str(bigger), "--profile", str(unsized)])
    assert "calibrated on" not in capsys.readouterr().err
