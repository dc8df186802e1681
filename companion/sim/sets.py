"""The two image sets the vision work uses: a development set to tune on, and a held-out set to measure on.

They differ in seeds and in range: the held-out set adds the style the development set never shows, random
styles, steeper tilts, more roll, harsher light and more hands. A third set, `dev-hard` (seeds from 400 000), has
the held-out ranges with the development styles, to develop against harsh frames without seeing held-out ones;
`dev-vivid` (seeds from 300 000) the same with random styles whose checkers are coloured as real sets are.
`frame(name, index)` is deterministic.

| | development | held-out |
|---|---|---|
| seeds | 0 .. 999 999 | 1 000 000 and up |
| styles | classic, tournament-felt, dark-leather, wood | all five, and a random style one frame in three |
| tilt / roll | 0-30 / up to 10 degrees | 0-40 / up to 15 degrees |
| light, glare | up to 0.3, 0.4 | up to 0.5, 0.8 |
| noise, blur, JPEG | 0-8, 0-1.2 px, q 60-95 | 0-12, 0-2 px, q 40-95 |
| hands, stacks | 20 % of frames; layered stacks 70 % | 35 %; layered 50 % |
| dice | white, ivory, red, black, blue sets | any colour: light dice with dark pips or dark with light |
| cube | on the bar or in the tray, half each | the same |
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.rules.layout import CHECKER, BoardLayout
from companion.sim.render import (DIE, Die, Effects, FrameLabel, Hand, Pose, Renderer, Scene, checker_centres,
                                  leans_on_checker, random_position)
from companion.sim.styles import DEV_STYLES, STYLES, Style, random_style, vivid_checkers


@dataclass(frozen=True, slots=True)
class SetSpec:
    name: str
    seed_base: int
    styles: tuple[Style, ...]
    random_styles: float
    tilt: float
    roll: float
    light: float
    glare: float
    noise: float
    blur: float
    jpeg_low: int
    hands: float
    layered: float
    bad_dice: float
    """How often the dice lie invalidly (cocked, on a checker, in the wrong half)."""
    vivid: float = 0.0
    """How often a random style's checkers are `vivid_checkers`: 0 leaves a set as it was (its own generator)."""


DEV = SetSpec("dev", 0, DEV_STYLES, 0.0, 30, 10, 0.3, 0.4, 8, 1.2, 60, 0.2, 0.7, 0.15)
HELDOUT = SetSpec("heldout", 1_000_000, STYLES, 1 / 3, 40, 15, 0.5, 0.8, 12, 2.0, 40, 0.35, 0.5, 0.2)
DEV_HARD = SetSpec("dev-hard", 400_000, DEV_STYLES, 1 / 3, 40, 15, 0.5, 0.8, 12, 2.0, 40, 0.35, 0.5, 0.2)
"""The held-out set's ranges on development seeds and styles: what is tuned on to reach the held-out's harshness,
without the held-out's frames or its unseen style."""
DEV_VIVID = replace(DEV_HARD, name="dev-vivid", seed_base=300_000, random_styles=1.0, vivid=1.0)
"""Random styles whose checkers are `vivid_checkers` (red, blue, green sets...), on development seeds: checker
colours like real sets' to develop against, without the held-out set's unseen style."""
SETS = {"dev": DEV, "dev-hard": DEV_HARD, "dev-vivid": DEV_VIVID, "heldout": HELDOUT}


def sample(spec: SetSpec, index: int) -> tuple[Style, Scene, Pose, Effects, np.random.Generator]:
    """Everything frame `index` of a set is made of."""
    rng = np.random.default_rng(spec.seed_base + index)
    style = random_style(rng) if rng.random() < spec.random_styles else spec.styles[int(rng.integers(len(spec.styles)))]
    own = np.random.default_rng([spec.seed_base + index, 10])  # its own generator: every other draw stays as it was
    if style.name.startswith("random") and own.random() < spec.vivid:
        style = replace(style, checkers=vivid_checkers(own))
    position, mover = random_position(rng)
    pose = Pose(tilt=float(rng.uniform(0, spec.tilt)), roll=float(rng.uniform(-spec.roll, spec.roll)),
                scale=float(rng.uniform(0.7, 0.95)), shift=(float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.05, 0.05))),
                from_player1=bool(rng.random() < 0.3), home_right=bool(rng.random() < 0.7))
    layout = BoardLayout(pose.home_right)
    scene = Scene.from_position(position, mover, layered=bool(rng.random() < spec.layered), roller=mover)
    scene = _with_dice_and_cube(scene, layout, spec, rng)
    # a generator of its own, so the dice's colour leaves every other draw of the frame as it was
    scene = replace(scene, dice_colour=dice_colour(spec, np.random.default_rng([spec.seed_base + index, 6])))
    # likewise where the cube waits: in the tray (rule 003) in half the frames, on the bar in the rest
    scene = replace(scene, cube_in_tray=bool(np.random.default_rng([spec.seed_base + index, 8]).random() < 0.5))
    if rng.random() < spec.hands:
        point = int(rng.integers(1, 25))
        x0, y0, x1, y1 = layout.point_rect(point)
        scene = replace(scene, hand=Hand((x0 + x1) / 2, (y0 + y1) / 2, side=int(rng.integers(0, 2))))
    effects = Effects(light=float(rng.uniform(0, spec.light)), temperature=float(rng.uniform(-1, 1)),
                      glare=float(rng.uniform(0, spec.glare)) if rng.random() < 0.5 else 0.0,
                      noise=float(rng.uniform(0, spec.noise)), blur=float(rng.uniform(0, spec.blur)),
                      jpeg=int(rng.integers(spec.jpeg_low, 96)) if rng.random() < 0.8 else None)
    return style, scene, pose, effects, rng


DEV_DICE = (((245, 245, 245), (20, 20, 20)), ((215, 235, 245), (30, 30, 30)), ((40, 40, 170), (240, 240, 240)),
            ((30, 30, 30), (235, 235, 235)), ((140, 60, 20), (245, 245, 245)))


def dice_colour(spec: SetSpec, rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Body and pips. Development: half plain white, the rest from a few common sets; held-out: any colour."""
    if spec.name == "dev":
        return DEV_DICE[0] if rng.random() < 0.5 else DEV_DICE[int(rng.integers(1, len(DEV_DICE)))]
    if rng.random() < 0.5:
        body, pips = rng.integers(170, 256, 3), rng.integers(0, 60, 3)
    else:
        body, pips = rng.integers(0, 110, 3), rng.integers(200, 256, 3)
    return tuple(int(v) for v in body), tuple(int(v) for v in pips)  # type: ignore[return-value]


def _with_dice_and_cube(scene: Scene, layout: BoardLayout, spec: SetSpec, rng: np.random.Generator) -> Scene:
    cube_value = int(2 ** int(rng.integers(0, 7)))
    cube_value = 64 if cube_value == 1 else cube_value  # no cube shows 1: it starts at 64, in the middle
    place = "centre" if cube_value == 64 else ("player0", "player1")[int(rng.integers(0, 2))]
    if rng.random() < 0.2:
        return replace(scene, cube_value=cube_value, cube_place=place, dice=())
    roller = scene.roller or 0
    x0, y0, x1, y1 = layout.dice_area(roller)
    values = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    spots = []
    for value in values:
        for _ in range(20):  # apart from each other
            x, y = float(rng.uniform(x0 + DIE, x1 - DIE)), float(rng.uniform(y0 + DIE / 2, y1 - DIE / 2))
            if all(np.hypot(x - a.x, y - a.y) > DIE * 1.6 for a in spots):
                break
        spots.append(Die(value, x, y, float(rng.uniform(0, 360))))
    if rng.random() < spec.bad_dice:
        kind = int(rng.integers(0, 3))
        first = spots[0]
        if kind == 0:
            spots[0] = Die(first.value, first.x, first.y, first.angle, cocked=True)
        elif kind == 1:  # in the other half
            ox0, oy0, ox1, oy1 = layout.dice_area(1 - roller)
            spots[0] = Die(first.value, (ox0 + ox1) / 2, (oy0 + oy1) / 2, first.angle)
        else:  # on a checker, if there is one near the dice area
            occupied = [(i + 1, c) for i, (o, c) in enumerate(scene.points) if c]
            point, count = occupied[int(rng.integers(len(occupied)))]
            x, y = layout.checker_centre(point, 0, count, layered=scene.layered)
            spots[0] = Die(first.value, x + CHECKER * 0.1, y, first.angle)
    # where a thrown die lands half over a checker it cannot lie flat: it leans against it, cocked
    centres = checker_centres(scene, layout)
    spots = [replace(d, cocked=True) if leans_on_checker(d, centres) else d for d in spots]
    return replace(scene, dice=tuple(spots), cube_value=cube_value, cube_place=place)


def frame(name: str, index: int, width: int = 1280, height: int = 720,
          renderers: dict | None = None) -> tuple[np.ndarray, FrameLabel]:
    """Frame `index` of set `name` ("dev" or "heldout") and its label. `renderers` keeps the named styles'
    renderers between calls; a random style is drawn once, so its renderer is not kept (kept, they grew a
    3,000-frame `dev-hard` run past 4 GB)."""
    spec = SETS[name]
    style, scene, pose, effects, rng = sample(spec, index)
    cache = renderers if renderers is not None else {}
    key = (style, width, height)
    renderer = cache.get(key)
    if renderer is None:
        renderer = Renderer(style, width, height)
        if not style.name.startswith("random"):
            cache[key] = renderer
    return renderer.render(scene, pose, effects, rng)


__all__ = ["DEV", "DEV_HARD", "DEV_VIVID", "HELDOUT", "SETS", "SetSpec", "frame", "sample"]
