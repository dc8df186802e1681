"""The renderer: labels say exactly what was drawn, a seed gives the same frame, the sets differ as documented,
and a game film's labels follow the game."""

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.rules import Position
from companion.rules.layout import BoardLayout
from companion.sim import DEV, HELDOUT, STYLES, Effects, Pose, Renderer, Scene, frame, sample
from companion.sim.render import Die, Hand, checker_centres, dice_validity, leans_on_checker
from companion.sim.sets import DEV_HARD, DEV_VIVID
from companion.sim.styles import vivid_checkers
from companion.sim.truth import luminance
from companion.sim.video import GameFilm, self_play, turns_from_events, write_film
from tests.conftest import MATCHES as MATCHES_DIR


def _inside(poly, x, y) -> bool:
    return cv2.pointPolygonTest(np.array(poly, np.float32), (float(x), float(y)), False) >= 0


def _point_polygon(renderer, h, layout, point):
    x0, y0, x1, y1 = layout.point_rect(point)
    top = layout.is_top(point)
    # the column a stack may occupy: the triangle's width, from the edge to the middle of the board
    y_edge, y_far = (0.0, 220.0) if top else (440.0, 220.0)
    return renderer.project(h, layout, [(x0, y_edge), (x1, y_edge), (x1, y_far), (x0, y_far)])


@pytest.mark.parametrize("name", ["dev", "heldout"])
def test_checker_centres_fall_inside_their_labelled_points_and_counts_add_up(name):
    for index in range(40):
        style, scene, pose, effects, rng = sample({"dev": DEV, "heldout": HELDOUT}[name], index)
        renderer = Renderer(style, 640, 360)
        image, label = renderer.render(scene, pose, effects, rng)
        layout = BoardLayout(pose.home_right)
        h = renderer.homography(pose, layout)
        for side in (0, 1):
            on_board = sum(c for o, c in label.points if o == side)
            assert on_board + label.bar[side] + label.off[side] == 15
        for point, centres in label.checker_centres.items():
            owner, count = label.points[point - 1]
            assert len(centres) == count
            poly = _point_polygon(renderer, h, layout, point)
            assert all(_inside(poly, x, y) for x, y in centres), (name, index, point)
        assert all(0 <= x <= 640 and 0 <= y <= 360 for x, y in label.corners)


def test_the_checkers_drawn_are_where_the_label_says():
    """Sample the frame itself: a labelled checker centre shows the checker's colour, an empty point does not."""
    style = STYLES[0]
    renderer = Renderer(style, 1280, 720)
    scene = Scene.from_position(Position.start(), 0)
    image, label = renderer.render(scene, Pose(tilt=20, roll=5), Effects(), np.random.default_rng(0))
    for point, centres in label.checker_centres.items():
        owner = label.points[point - 1][0]
        want = np.array(style.checkers[owner], float)
        for x, y in centres[:1]:  # the edge checker is never covered by another
            got = image[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3].reshape(-1, 3).mean(axis=0)
            assert np.abs(got - want).max() < 70, (point, got, want)


def test_a_seed_gives_the_same_frame_byte_for_byte():
    a, la = frame("heldout", 7)
    b, lb = frame("heldout", 7)
    c, _ = frame("heldout", 8)
    assert np.array_equal(a, b) and la.to_json() == lb.to_json()
    assert not np.array_equal(a, c)


def test_the_held_out_set_is_wider_and_uses_a_style_dev_never_shows():
    dev_styles = {sample(DEV, i)[0].name for i in range(200)}
    held = {sample(HELDOUT, i)[0].name for i in range(200)}
    assert "blue-marine" not in dev_styles and "blue-marine" in held
    assert any(name.startswith("random-") for name in held)
    assert max(sample(HELDOUT, i)[2].tilt for i in range(200)) > 30 >= max(sample(DEV, i)[2].tilt for i in range(200))


def test_vivid_checkers_change_only_the_checkers_and_keep_the_sets_apart():
    """Training sets give random styles real sets' colours (red, blue, a red beside black...) from a generator of
    their own: every other draw of a frame, and every frame of a set without them, stays as it was."""
    vivid = replace(DEV_HARD, vivid=1.0)
    changed = 0
    for i in range(40):
        plain, coloured = sample(DEV_HARD, i), sample(vivid, i)
        assert plain[1:4] == coloured[1:4]  # scene, pose, effects
        assert replace(coloured[0], checkers=plain[0].checkers) == plain[0]
        changed += plain[0].checkers != coloured[0].checkers
    assert changed == sum(sample(DEV_HARD, i)[0].name.startswith("random") for i in range(40)) > 5
    rng = np.random.default_rng(3)
    for _ in range(200):
        lab = [cv2.cvtColor(np.float32([[c]]) / 255, cv2.COLOR_BGR2Lab)[0, 0, 0] for c in vivid_checkers(rng)]
        assert max(lab) - min(lab) >= 24.5 and min(lab) <= 55.5
    assert len({luminance(c[0]) > luminance(c[1]) for c in (vivid_checkers(rng) for _ in range(20))}) == 2


def test_dice_validity_labels():
    layout = BoardLayout()
    base = Scene.from_position(Position.start(), 0, roller=0)
    x0, y0, x1, y1 = layout.dice_area(0)
    good = (Die(3, x0 + 30, (y0 + y1) / 2), Die(5, x0 + 90, (y0 + y1) / 2))
    assert dice_validity(replace(base, dice=good), layout) == (True, None)
    cocked = (good[0], Die(5, good[1].x, good[1].y, cocked=True))
    assert dice_validity(replace(base, dice=cocked), layout)[1] == "a die is cocked"
    ox0, oy0, ox1, oy1 = layout.dice_area(1)
    wrong = (good[0], Die(5, (ox0 + ox1) / 2, (oy0 + oy1) / 2))
    assert "right-hand half" in dice_validity(replace(base, dice=wrong), layout)[1]
    x, y = layout.checker_centre(6, 0, 5)
    on = (good[0], Die(5, x, y))
    assert "on a checker" in dice_validity(replace(base, dice=on), layout)[1]


def test_a_die_half_over_a_checker_leans_against_it():
    """A flat die cannot overlap a checker's disc unless its middle is over it (then it rests on it): it leans,
    and rule 003 calls that cocked. The die's square counts, turned as it is drawn."""
    layout = BoardLayout()
    base = Scene.from_position(Position.start(), 0, roller=0)
    x, y = layout.checker_centre(6, 4, 5)  # the tip of the 6-point's stack, towards the middle of the board
    toward = -1 if y > 220 else 1
    beside = Die(5, x, y + toward * 28.0)  # edge 18.5 mm from the checker's centre: over its 21 mm rim
    clear = Die(5, x, y + toward * 31.0)
    corner = Die(5, x, y + toward * 32.0, angle=45.0)  # a corner reaches 13.4 mm: over the rim
    centres = checker_centres(base, layout)
    for die, leans in ((beside, True), (clear, False), (corner, True), (Die(5, x, y + toward * 10.0), False)):
        assert leans_on_checker(die, centres) is leans, die
    assert dice_validity(replace(base, dice=(beside,)), layout)[1] == "a die is cocked"
    assert dice_validity(replace(base, dice=(clear,), roller=None), layout) == (True, None)
    assert "on a checker" in dice_validity(replace(base, dice=(Die(5, x, y + toward * 10.0),)), layout)[1]


@pytest.mark.parametrize("spec", [DEV, DEV_HARD, DEV_VIVID, HELDOUT], ids=lambda s: s.name)
def test_the_sets_lay_no_die_flat_over_a_checker(spec):
    """Every thrown die the sets show flat lies clear of the checkers, or on one: none half over a rim."""
    leaning = 0
    for index in range(400):
        _, scene, pose, _, _ = sample(spec, index)
        centres = checker_centres(scene, BoardLayout(pose.home_right))
        for die in scene.dice:
            assert die.cocked or not leans_on_checker(die, centres), (spec.name, index)
            leaning += die.cocked and leans_on_checker(die, centres)
    assert leaning > 0  # the rule is exercised: some throws land against a checker


def test_a_hand_over_the_board_marks_the_points_it_covers():
    renderer = Renderer(STYLES[1], 640, 360)
    layout = BoardLayout()
    x0, y0, x1, y1 = layout.point_rect(8)
    scene = Scene.from_position(Position.start(), 0, hand=Hand((x0 + x1) / 2, (y0 + y1) / 2, 0))
    _, label = renderer.render(scene, Pose(), Effects(), np.random.default_rng(1))
    assert 8 in label.occluded and 20 not in label.occluded and label.hand


def test_a_hand_over_a_die_marks_it_hidden_and_only_it():
    renderer = Renderer(STYLES[1], 640, 360)
    layout = BoardLayout()
    x0, y0, x1, y1 = layout.dice_area(0)
    covered, clear = Die(3, x1 - 20, (y0 + y1) / 2), Die(5, x0 + 30, (y0 + y1) / 2)
    scene = replace(Scene.from_position(Position.start(), 0, hand=Hand(covered.x, covered.y, 0)),
                    dice=(covered, clear), roller=0)
    _, label = renderer.render(scene, Pose(), Effects(), np.random.default_rng(1))
    assert label.dice_hidden == [True, False] and not label.cube_hidden
    _, bare = renderer.render(replace(scene, hand=None), Pose(), Effects(), np.random.default_rng(1))
    assert bare.dice_hidden == [False, False] and bare.bar_hidden == bare.off_hidden == [False, False]
    x0, y0, x1, y1 = layout.tray_rect(0)
    _, tray = renderer.render(replace(scene, hand=Hand((x0 + x1) / 2, (y0 + y1) / 2, 0)), Pose(), Effects(),
                              np.random.default_rng(1))
    assert tray.off_hidden == [True, False]


@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 200.0])
def test_a_turned_die_is_drawn_whole_where_it_lies(angle):
    """A die turned any way shows its whole face and every pip, centred on its labelled place."""
    renderer = Renderer(STYLES[1], 1280, 720)  # green felt: a white die stands out
    layout = BoardLayout()
    x0, y0, x1, y1 = layout.dice_area(0)
    die = Die(5, (x0 + x1) / 2, (y0 + y1) / 2, angle)
    scene = replace(Scene.from_position(Position.start(), 0), dice=(die,), roller=0)
    image, _ = renderer.render(scene, Pose(), Effects(), np.random.default_rng(0))
    h = renderer.homography(Pose(), layout)
    (cx, cy), (left, _), (right, _) = renderer.project(h, layout, [(die.x, die.y), (die.x - 9.5, die.y),
                                                                   (die.x + 9.5, die.y)])
    r = 30
    patch = image[int(round(cy)) - r:int(round(cy)) + r, int(round(cx)) - r:int(round(cx)) + r]
    body = cv2.morphologyEx((patch.min(axis=2) > 170).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    _, _, stats, centroids = cv2.connectedComponentsWithStats(body)
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    assert stats[biggest, cv2.CC_STAT_AREA] == pytest.approx((right - left) ** 2, rel=0.2)
    assert np.hypot(*(centroids[biggest] - (r - 0.5))) < 2.0
    pips = (patch.max(axis=2) < 90).astype(np.uint8) * body
    assert cv2.connectedComponents(pips)[0] - 1 == die.value


def test_a_self_play_film_follows_the_game(tmp_path):
    rng = np.random.default_rng(4)
    turns = self_play(rng)[:4]
    film = GameFilm(STYLES[2], Pose(tilt=15), Effects(noise=3), fps=15, width=480, height=270, seed=4)
    frames = write_film(film.film(turns), tmp_path / "film", 15)
    labels = [json.loads(line) for line in (tmp_path / "film" / "labels.jsonl").read_text().splitlines()]
    assert len(labels) == frames == len(list((tmp_path / "film").glob("*.jpg")))
    assert {"rolling", "reaching", "moving", "pause", "pickup"} <= {l["phase"] for l in labels}
    # every still frame shows a legal board: 15 a side, checker in hand counted while moving
    for l in labels:
        for side in (0, 1):
            total = sum(c for o, c in l["points"] if o == side) + l["bar"][side] + l["off"][side]
            assert total in (15, 14) and (l["still"] is False or total == 15)
    # the last still frame is the position after the fourth play
    final = Scene.from_position(turns[3].play.position, 1 - turns[3].player)
    last = [l for l in labels if l["still"]][-1]
    assert [tuple(p) for p in last["points"]] == list(final.points)


def test_a_recorded_match_becomes_turns():
    from companion.record.recorder import load_any
    from tests.conftest import MATCHES

    loaded, _ = load_any(MATCHES / "gbf__test.mat")
    games = turns_from_events(loaded.referee.events)
    assert len(games) == 7
    assert games[0][-1].cube == "double-pass" and [t.cube for t in games[1]].index("double-take") == 11
    doubled = games[1][11]
    assert doubled.before == games[1][10].play.position  # the board as the doubler's turn began, his side
    assert sum(1 for t in games[0] if t.play is not None) == 30


def test_mp4_output(tmp_path):
    turns = self_play(np.random.default_rng(2))[:1]
    film = GameFilm(STYLES[0], Pose(), Effects(), fps=20, width=320, height=180)
    n = write_film(film.film(turns), tmp_path / "g.mp4", 20)
    capture = cv2.VideoCapture(str(tmp_path / "g.mp4"))
    assert capture.isOpened() and int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == n


def test_render_and_film_commands(tmp_path):
    from companion.cli import main

    assert main(["render", "--set", "heldout", "--count", "3", "--width", "320", "--height", "180",
                 "--out", str(tmp_path / "frames"), "--contact-sheet", str(tmp_path / "sheet.jpg")]) == 0
    labels = [json.loads(line) for line in (tmp_path / "frames" / "labels.jsonl").read_text().splitlines()]
    assert [l["index"] for l in labels] == [0, 1, 2] and (tmp_path / "sheet.jpg").exists()
    assert main(["film", "--turns", "2", "--width", "320", "--height", "180", "--out", str(tmp_path / "film")]) == 0
    assert (tmp_path / "film" / "labels.jsonl").exists()
    assert main(["film", "--match", str(MATCHES_DIR / "gbf__test.mat"), "--game", "9", "--out", str(tmp_path / "x")]) == 2


def test_a_scene_gives_back_the_position_it_was_drawn_from():
    from companion.sim.render import random_position

    rng = np.random.default_rng(5)
    for _ in range(50):
        position, mover = random_position(rng)
        scene = Scene.from_position(position, mover)
        assert scene.position(mover) == position
        assert scene.position(1 - mover) == position.swap()
