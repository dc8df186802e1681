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
    seen_by_player0 = Position.start().play("24/18 13/11", 6, 2).position.swap()
    moved, _ = _photo(tmp_path, seen_by_player0, "moved.png", tilt=12)
    assert main(["read", str(moved), "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    assert f"Position ID: {seen_by_player0.position_id()}" in out
    assert "XGID=" in out


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
