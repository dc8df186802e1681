"""What a photoreal board and its frames are made of, drawn from a seed: geometry, materials, checker models,
stacking, positions, camera, lights, props and camera effects. Pure Python and JSON: the Blender worker
(`blender_scene.py`) builds exactly this, so a frame is reproducible from its seed and the spec can be tested
without Blender.

Designs come in two families that share nothing: `TRAIN_DESIGNS` (what the reader may learn from) and
`HELDOUT_DESIGNS` (materials, checker models and finishes never used in training, and the extremes of the
geometry ranges), so a measurement on held-out boards says how the reader does on boards it has never seen. One
exception, said where it is made: training boards from `FIRST_METALLIC_TRAIN_BOARD` give some checker sets a
metallic surface, so metal is no longer an unseen finish (glass, pearl and marble still are).
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from companion.rules import Position
from companion.sim.render import Scene, random_position

MATCHES = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "matches"


@dataclass(frozen=True, slots=True)
class Design:
    """A family of boards: the materials each part may be made of, the checkers' models and finishes, and the
    ranges of the board's proportions."""

    name: str
    field: tuple[str, ...]
    points: tuple[str, ...]
    frame: tuple[str, ...]
    checker_models: tuple[str, ...]
    finishes: tuple[str, ...]
    bar: tuple[float, float]
    """The bar's share of the playing area's width."""
    point_length: tuple[float, float]
    """A point's share of the playing area's height."""
    checker: tuple[float, float]
    """A checker's diameter as a share of a point's width."""
    frame_height: tuple[float, float] = (8.0, 22.0)
    """mm the frame stands over the playing surface (0: a roll-up mat)."""
    same_colour: float = 0.0
    """How often one checker set has the colour of one set of points."""


TRAIN_DESIGNS = (
    Design("walnut-felt", ("felt",), ("felt",), ("wood",), ("flat", "grooved"), ("matte", "glossy"),
           (0.055, 0.09), (0.37, 0.44), (0.82, 0.95)),
    Design("club-leather", ("leather",), ("leather", "felt"), ("wood", "leather"), ("grooved", "flat"),
           ("glossy", "matte"), (0.06, 0.09), (0.36, 0.43), (0.84, 0.95)),
    Design("lacquer-tournament", ("lacquer",), ("lacquer",), ("lacquer", "wood"), ("flat", "grooved"),
           ("glossy",), (0.055, 0.085), (0.38, 0.44), (0.85, 0.95)),
    Design("roll-up-vinyl", ("vinyl",), ("vinyl",), ("vinyl",), ("flat",), ("matte", "glossy"),
           (0.06, 0.09), (0.37, 0.43), (0.83, 0.94), frame_height=(0.0, 3.0)),
    # textured fields and points (woven, brushed, printed motifs, speckles), so an empty point with a pattern on
    # it is not a checker to the reader; checkers turned from wood or domed; the whole geometry ranges
    Design("linen-painted", ("linen", "suede"), ("linen", "patterned", "suede"), ("wood", "leather"),
           ("domed", "flat", "stepped"), ("satin", "wood", "matte"), (0.05, 0.10), (0.35, 0.45), (0.80, 0.98),
           same_colour=0.35),
    Design("speckled-acrylic", ("speckled", "patterned"), ("speckled", "lacquer", "patterned"),
           ("lacquer", "vinyl"), ("stepped", "grooved", "domed"), ("glossy", "satin"), (0.05, 0.10),
           (0.35, 0.45), (0.80, 0.98), frame_height=(2.0, 22.0), same_colour=0.35),
    # polished veined stone and figured wood on the field and the points, granite checkers: an empty point with
    # veins, glare or strong grain on it is not a checker (kinds of their own: the held-out marble and inlays stay
    # unseen)
    Design("slate-polished", ("slate", "burl"), ("slate", "veneer", "lacquer"), ("wood", "lacquer"),
           ("flat", "stepped", "grooved"), ("stone", "glossy", "satin"), (0.05, 0.10), (0.35, 0.45), (0.80, 0.98),
           same_colour=0.35),
    Design("burl-veneer", ("burl", "veneer"), ("veneer", "burl", "slate"), ("wood",), ("domed", "grooved", "flat"),
           ("satin", "wood", "stone"), (0.05, 0.10), (0.35, 0.45), (0.80, 0.98), frame_height=(2.0, 22.0),
           same_colour=0.5),
    # square tiles in mortar (a brick print, not the held-out mosaic's irregular cells) on the field and the points,
    # checkers of swirled resin: outlined shapes the size of a checker on an empty point are not checkers, and a
    # checker of two mixed shades is one set's
    Design("tiled-swirl", ("tiles", "speckled"), ("tiles", "patterned", "lacquer"), ("wood", "lacquer"),
           ("grooved", "domed", "flat", "stepped"), ("swirl", "glossy", "satin"), (0.05, 0.10), (0.35, 0.45),
           (0.80, 0.98), frame_height=(2.0, 22.0), same_colour=0.35),
    # prints with round motifs (polka dots from pinheads to a checker's size, in grids or scattered) and tartans on
    # the field and the points; checkers with an inset disc on top or flecked with metal (`PATTERNS_FROM_PRINTED`):
    # a round shape on an empty point is not a checker, and a checker's top need not be one shade
    Design("printed-dots", ("dots", "plaid"), ("dots", "plaid", "felt", "lacquer"), ("wood", "leather", "vinyl"),
           ("flat", "domed", "grooved", "stepped"), ("satin", "glossy"), (0.05, 0.10), (0.35, 0.45), (0.80, 0.98),
           frame_height=(0.0, 22.0), same_colour=0.35),
)
FIRST_WIDER_TRAIN_BOARD = 40
"""Training boards before this were rendered when only the first four designs existed; they keep them, so every
board rendered is reproducible from its number."""
FIRST_DESIGNS = ("walnut-felt", "club-leather", "lacquer-tournament", "roll-up-vinyl")
WIDER_DESIGNS = FIRST_DESIGNS + ("linen-painted", "speckled-acrylic")
STONE_DESIGNS = ("slate-polished", "burl-veneer")
FIRST_STONE_TRAIN_BOARD = 100
"""Training boards from this one are the stone and figured-wood designs alone (boards 40-99 keep the six before
them), so every board rendered is reproducible from its number."""
FIRST_ALL_TRAIN_BOARD = 200
"""Training boards from this one are drawn from all eight training designs (boards 100-199 keep stone and wood)."""
FIRST_TILED_TRAIN_BOARD = 248
"""Training boards from this one are the tiled design alone (boards 200-247 keep the eight before it)."""
ALL_BUT_TILED = WIDER_DESIGNS + STONE_DESIGNS
FIRST_TALL_TRAIN_BOARD = 296
"""Training boards from this one are drawn from all nine training designs, and most of their frames show tall
stacks (`TALL_SHARE`): stacks of six and more were 1.5 % of the training strips and most of the development
boards' miscounts (boards 248-295 keep the tiled design and the usual share)."""
FIRST_MIXED_TRAIN_BOARD = 332
"""Training boards from this one to `FIRST_TOWER_TRAIN_BOARD` are drawn from all nine training designs with the
usual share of tall stacks (boards 296-331 keep `TALL_SHARE`): more boards of every design, as each earlier range
of them read the development boards better."""
FIRST_TOWER_TRAIN_BOARD = 432
"""Training boards from this one are drawn from all nine training designs, show tall stacks as often as
`TALL_SHARE` and stack them as towers twice as often (`TOWER_STACKING`): a stack doubled up on its first five
checkers looks like five from above, and only its height tells it at a tilt; the development boards' towers of six
and more read right 16 times in 76 (boards 332-431 keep the usual shares)."""
FIRST_SURFACE_TRAIN_BOARD = 542
"""Training boards from this one give each checker set a surface drawn from continuous ranges (`_checker_surface`)
instead of one of the design's named finishes: colour misses on the held-out boards sit on finishes no training
design has, and a network that has seen many surfaces should lean less on any one (boards 432-541 keep theirs)."""
FIRST_METALLIC_TRAIN_BOARD = 642
"""Training boards from this one may give a checker set a metallic surface (`_metallic`): the held-out brass
checkers were read empty on 14 of 65 missed points of session 33's fresh draw, and no training surface before was
metallic. Metal thereby stops being a held-out finish (glass, pearl and marble stay unseen); boards 542-641 keep
their surfaces."""
METALLIC_SHARE = 0.4
"""The share of a metallic board's checker sets whose surface is metallic."""
FIRST_COCKED_TRAIN_BOARD = 682
"""Training boards from this one may throw a die cocked (`_cocked_dice`): tilted onto an edge as a die leaning on a
checker or the frame shows it (the die is placed alone). Every photoreal die lay flat before, and a dice reader
fine-tuned on those frames stopped calling the flat renderer's cocked dice cocked (docs/VISION.md, session 34);
boards 0-681 keep their dice flat."""
COCKED_SHARE = 0.25
"""The share of a cocked-dice board's dice thrown cocked on its frames after the first (frame 0 throws none)."""
FIRST_PRINTED_TRAIN_BOARD = 800
"""Training boards from this one are the printed-dots design alone, and their checker surfaces may also be inset
discs or metal flecks (`PATTERNS_FROM_PRINTED`): the held-out draws' misses are colours on finishes and empty points
on patterns no training design had (boards 737-799 keep the nine designs before it; 737-789 are development
boards, never trained on)."""
PATTERNS = ("none", "rings", "bands", "chips")
PATTERNS_FROM_PRINTED = PATTERNS + ("disc", "flakes")
"""A checker surface's patterns: from `FIRST_PRINTED_TRAIN_BOARD` also an inset disc of another shade on the top
(a turned or printed centre) and metal flakes in the resin (glitter)."""
PATTERN_ODDS = {PATTERNS: (0.4, 0.2, 0.25, 0.15), PATTERNS_FROM_PRINTED: (0.2, 0.1, 0.15, 0.1, 0.25, 0.2)}
"""How often each pattern of each set is drawn."""
TOWER_STACKING = (0.25, 0.5, 0.25)
"""Layered, tower and column stacking's shares on the tower boards (0.5, 0.25, 0.25 elsewhere)."""
TALL_SHARE = 0.6
"""The share of a tall-stack board's frames (after the first) whose position is `_tall_stacks`' (0.2 elsewhere)."""
HELDOUT_DESIGNS = (
    Design("marble-brass", ("marble",), ("marble", "lacquer"), ("metal",), ("rimmed",), ("marble", "metal"),
           (0.05, 0.10), (0.35, 0.45), (0.80, 0.98)),
    Design("cork-travel", ("cork",), ("printed",), ("wood",), ("ringed", "rimmed"), ("pearl",),
           (0.05, 0.10), (0.35, 0.45), (0.80, 0.98), frame_height=(4.0, 10.0)),
    Design("inlaid-parquet", ("wood",), ("inlaid",), ("wood",), ("ringed",), ("pearl", "marble"),
           (0.05, 0.10), (0.35, 0.45), (0.80, 0.98), same_colour=0.5),
    # a look no training design resembles (added in session 23, after two training designs were chosen for being
    # like the first three): tiles set in grout on the field and the points, crazed enamel, glass checkers with
    # eight sides
    Design("mosaic-glass", ("mosaic",), ("mosaic", "enamel"), ("metal", "wood"), ("faceted",), ("translucent",),
           (0.05, 0.10), (0.35, 0.45), (0.80, 0.98)),
)
FIRST_HELDOUT_DESIGNS = ("marble-brass", "cork-travel", "inlaid-parquet")
FIRST_MOSAIC_HELDOUT_BOARD = 100
"""Held-out boards from this one to `FIRST_THREE_AGAIN_HELDOUT_BOARD` are the mosaic design alone; those before
keep the first three."""
FIRST_THREE_AGAIN_HELDOUT_BOARD = 1000
"""Held-out boards from this one are the first three designs again: boards 8-99 were all drawn by session 33, and
each fresh draw needs boards nobody has read (the mosaic keeps 100-999)."""
DESIGNS = {d.name: d for d in TRAIN_DESIGNS + HELDOUT_DESIGNS}
SPLITS = {"train": TRAIN_DESIGNS, "heldout": HELDOUT_DESIGNS}
SEED_BASE = {"train": 0, "heldout": 5_000_000}
"""Held-out boards draw from seeds no training board uses."""

# Checker sets as clubs have them: (light, dark) in sRGB 0..1.
CHECKER_SETS = (
    ((0.93, 0.91, 0.85), (0.08, 0.08, 0.08)), ((0.95, 0.95, 0.95), (0.55, 0.06, 0.06)),
    ((0.90, 0.84, 0.68), (0.30, 0.17, 0.09)), ((0.85, 0.85, 0.88), (0.10, 0.15, 0.40)),
    ((0.92, 0.80, 0.30), (0.10, 0.30, 0.15)), ((0.95, 0.93, 0.90), (0.35, 0.35, 0.37)),
    ((0.90, 0.55, 0.20), (0.20, 0.12, 0.30)), ((0.75, 0.12, 0.12), (0.12, 0.12, 0.12)),
)


def _colour(rng: np.random.Generator, value: tuple[float, float], saturation: tuple[float, float]) -> list[float]:
    r, g, b = colorsys.hsv_to_rgb(float(rng.random()), float(rng.uniform(*saturation)), float(rng.uniform(*value)))
    return [round(r, 4), round(g, 4), round(b, 4)]


def _material(kind: str, rng: np.random.Generator, light: bool | None = None) -> dict[str, Any]:
    """A material of one kind, its colours drawn as such materials come (woods brown, felts any colour)."""
    value = (0.15, 0.45) if light is False else (0.55, 0.95) if light else (0.2, 0.8)
    if kind in ("wood", "inlaid", "burl", "veneer"):
        hue = float(rng.uniform(0.04, 0.10))
        v = float(rng.uniform(*((0.15, 0.4) if light is False else (0.55, 0.85) if light else (0.2, 0.75))))
        base = colorsys.hsv_to_rgb(hue, float(rng.uniform(0.35, 0.7)), v)
        grain = colorsys.hsv_to_rgb(hue, float(rng.uniform(0.4, 0.8)), v * float(rng.uniform(0.55, 0.8)))
        colours = [list(base), list(grain)]
    elif kind == "cork":
        colours = [list(colorsys.hsv_to_rgb(0.08, 0.45, float(rng.uniform(0.5, 0.7)))),
                   list(colorsys.hsv_to_rgb(0.07, 0.6, float(rng.uniform(0.25, 0.4))))]
    elif kind == "slate":  # a stone ground and veins that stand out of it, lighter on dark stone
        c = _colour(rng, value, (0.0, 0.3))
        colours = [c, [min(1.0, x + 0.45) if _luminance(c) < 0.5 else x * 0.35 for x in c]]
    elif kind in ("mosaic", "enamel", "tiles"):  # tiles of two near shades; enamel and its cracks' darker line
        c = _colour(rng, value, (0.1, 0.8))
        colours = [c, [min(1.0, max(0.0, x * float(rng.uniform(0.6, 0.85)))) for x in c]]
    elif kind == "marble":
        c = _colour(rng, value, (0.0, 0.25))
        colours = [c, [min(1.0, x * 0.4 + (0.55 if light is False else 0.0)) for x in c]]
    elif kind == "metal":
        colours = [[0.85, 0.65, 0.3] if rng.random() < 0.6 else [0.8, 0.8, 0.82]] * 2
    elif kind in ("linen", "suede", "patterned"):  # a second colour near the first: weave, nap or motif
        c = _colour(rng, value, (0.05, 0.8))
        shift = float(rng.uniform(0.1, 0.3)) * (1 if _luminance(c) < 0.5 else -1)
        colours = [c, [min(1.0, max(0.0, x + shift)) for x in c]]
    elif kind == "dots":  # a ground and dots of any other colour, often a strong contrast
        c = _colour(rng, value, (0.0, 0.85))
        colours = [c, _colour(rng, (0.05, 0.4) if _luminance(c) > 0.5 else (0.6, 0.98), (0.0, 0.9))
                   if rng.random() < 0.6 else _colour(rng, (0.05, 0.95), (0.0, 0.9))]
    elif kind == "plaid":  # a ground and the stripes crossing it
        c = _colour(rng, value, (0.1, 0.85))
        colours = [c, _colour(rng, (0.05, 0.95), (0.0, 0.9))]
    elif kind == "speckled":  # chips of one or two other colours in a ground
        colours = [_colour(rng, value, (0.0, 0.5)), _colour(rng, (0.05, 0.95), (0.0, 0.9))]
    else:
        c = _colour(rng, value, (0.1, 0.85))
        colours = [c, c]
    roughness = {"felt": 0.95, "leather": 0.5, "lacquer": 0.06, "vinyl": 0.35, "marble": 0.12, "cork": 0.85,
                 "metal": 0.3, "wood": 0.45, "inlaid": 0.3, "printed": 0.5, "linen": 0.9, "suede": 0.8,
                 "patterned": 0.45, "speckled": 0.25, "slate": 0.1, "burl": 0.35, "veneer": 0.35,
                 "mosaic": 0.3, "enamel": 0.08, "tiles": 0.25, "dots": 0.45, "plaid": 0.85}[kind]
    return {"kind": kind, "colours": [[round(x, 4) for x in c] for c in colours],
            "roughness": round(roughness * float(rng.uniform(0.8, 1.2)), 3),
            "scale": round(float(rng.uniform(0.6, 1.6)), 3)}


def _any_checker_colours(rng: np.random.Generator, light: list[float], dark: list[float]):
    """A third of boards get a checker set of any two colours, one light and one dark, beyond the usual sets."""
    if rng.random() < 0.35:
        light = _colour(rng, (0.65, 0.98), (0.0, 0.9))
        dark = _colour(rng, (0.05, 0.4), (0.0, 0.9))
    return light, dark


def _checker_surface(rng: np.random.Generator, patterns: tuple[str, ...] = PATTERNS) -> dict[str, Any]:
    """A checker set's surface from continuous ranges: roughness, clear coat, sheen, a little subsurface, and a
    grain (rings), a band (straight or swirled) or chips pattern of a lighter or darker shade (and with
    `PATTERNS_FROM_PRINTED` an inset disc or metal flakes). Never transmissive, thin-film or noise-veined: the
    held-out finishes (glass, pearl, marble) stay unseen; metallic only from `FIRST_METALLIC_TRAIN_BOARD`
    (`_metallic`)."""
    pattern = str(rng.choice(list(patterns), p=list(PATTERN_ODDS[patterns])))
    extra: dict[str, Any] = {}
    if pattern == "disc":  # the disc's share of the radius; its shade from near to a strong contrast (it replaces
        # the shade drawn below, still drawn so that the rest of the surface is what boards 800-839 were rendered with)
        extra = {"disc": round(float(rng.uniform(0.3, 0.8)), 3),
                 "shade": round(float(rng.uniform(0.3, 0.85) if rng.random() < 0.5 else rng.uniform(1.15, 1.8)), 3)}
    return {
        "roughness": round(float(rng.uniform(0.04, 0.65)), 3),
        "coat": round(float(rng.uniform(0.2, 1.0)) if rng.random() < 0.6 else 0.0, 3),
        "coat_roughness": round(float(rng.uniform(0.02, 0.3)), 3),
        "sheen": round(float(rng.uniform(0.1, 0.6)) if rng.random() < 0.35 else 0.0, 3),
        "subsurface": round(float(rng.uniform(0.05, 0.3)) if rng.random() < 0.3 else 0.0, 3),
        "pattern": pattern,
        "scale": round(float(rng.uniform(150, 400) if pattern == "chips" else rng.uniform(10, 60)), 1),
        "distortion": round(float(rng.uniform(0, 20)), 2),
        "shade": round(float(rng.uniform(0.55, 0.85) if rng.random() < 0.5 else rng.uniform(1.15, 1.4)), 3),
    } | extra


def _metallic(rng: np.random.Generator, surfaces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The two sets' surfaces, each made metallic (`METALLIC_SHARE`) with a metal's own roughness: a conductor
    tinted by the set's colour, reflecting the room rather than showing a colour of its own."""
    out = []
    for surface in surfaces:
        if rng.random() < METALLIC_SHARE:
            surface = {**surface, "metallic": round(float(rng.uniform(0.75, 1.0)), 3),
                       "roughness": round(float(rng.uniform(0.12, 0.45)), 3)}
        out.append(surface)
    return out


def _cocked_dice(rng: np.random.Generator) -> list[dict[str, float] | None]:
    """Each of the two dice: None (flat), or how it leans: `tilt` degrees onto one of its bottom edges."""
    return [{"tilt": round(float(rng.uniform(14, 38)), 1)} if rng.random() < COCKED_SHARE else None
            for _ in range(2)]


def _luminance(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def board_spec(split: str, board: int) -> dict[str, Any]:
    """Everything a board of `split` is made of; the same `(split, board)` gives the same board."""
    rng = np.random.default_rng([SEED_BASE[split] + board, 1])
    designs = SPLITS[split]
    # by name: a design added later changes no board rendered before it
    if split == "train" and board >= FIRST_PRINTED_TRAIN_BOARD:
        names = ("printed-dots",)
    elif split == "train":
        names = (FIRST_DESIGNS if board < FIRST_WIDER_TRAIN_BOARD else WIDER_DESIGNS if board < FIRST_STONE_TRAIN_BOARD
                 else STONE_DESIGNS if board < FIRST_ALL_TRAIN_BOARD
                 else ALL_BUT_TILED if board < FIRST_TILED_TRAIN_BOARD
                 else ("tiled-swirl",) if board < FIRST_TALL_TRAIN_BOARD else ALL_BUT_TILED + ("tiled-swirl",))
    else:
        mosaic = FIRST_MOSAIC_HELDOUT_BOARD <= board < FIRST_THREE_AGAIN_HELDOUT_BOARD
        names = ("mosaic-glass",) if mosaic else FIRST_HELDOUT_DESIGNS
    designs = tuple(d for d in designs if d.name in names)
    design = designs[board % len(designs)]
    play_width = float(rng.uniform(440, 620))
    play_height = play_width * float(rng.uniform(0.72, 0.88))
    bar_width = play_width * float(rng.uniform(*design.bar))
    point_width = (play_width - bar_width) / 12
    field = _material(str(rng.choice(design.field)), rng)
    field_light = _luminance(field["colours"][0]) > 0.5
    point_kind = str(rng.choice(design.points))
    # the two point colours contrast with the field (most boards) or only a little (inlaid woods)
    points = [_material(point_kind, rng, light=not field_light), _material(point_kind, rng, light=field_light)]
    light, dark = CHECKER_SETS[int(rng.integers(len(CHECKER_SETS)))]
    light = [min(1.0, max(0.0, x + float(rng.normal(0, 0.03)))) for x in light]
    dark = [min(1.0, max(0.0, x + float(rng.normal(0, 0.03)))) for x in dark]
    if rng.random() < design.same_colour:  # one set wears the colour of one set of points
        if rng.random() < 0.5:
            light = list(max(points, key=lambda m: _luminance(m["colours"][0]))["colours"][0])
        else:
            dark = list(min(points, key=lambda m: _luminance(m["colours"][0]))["colours"][0])
    if split == "train" and board >= FIRST_WIDER_TRAIN_BOARD:
        light, dark = _any_checker_colours(np.random.default_rng([SEED_BASE[split] + board, 3]), light, dark)
    finish = str(rng.choice(design.finishes))
    surfaces = None
    if split == "train" and board >= FIRST_SURFACE_TRAIN_BOARD:  # a stream of its own: the draws above are kept
        surface_rng = np.random.default_rng([SEED_BASE[split] + board, 4])
        patterns = PATTERNS_FROM_PRINTED if board >= FIRST_PRINTED_TRAIN_BOARD else PATTERNS
        first = _checker_surface(surface_rng, patterns)
        surfaces = [first, first if surface_rng.random() < 0.6 else _checker_surface(surface_rng, patterns)]
        finish = "surface"
        if board >= FIRST_METALLIC_TRAIN_BOARD:  # its own stream again: the surfaces drawn above are kept
            surfaces = _metallic(np.random.default_rng([SEED_BASE[split] + board, 5]), surfaces)
    diameter = point_width * float(rng.uniform(*design.checker))
    return {
        "split": split, "board_id": f"{split}-{board:05d}", "design": design.name,
        "geometry": {
            "play_width": round(play_width, 2), "play_height": round(play_height, 2),
            "bar_width": round(bar_width, 2), "point_width": round(point_width, 3),
            "point_length": round(play_height * float(rng.uniform(*design.point_length)), 2),
            "point_base": round(float(rng.uniform(0.86, 1.0)), 3),
            "checker_diameter": round(diameter, 2),
            "checker_thickness": round(diameter * float(rng.uniform(0.17, 0.27)), 2),
            "frame_width": round(float(rng.uniform(18, 55)), 1),
            "frame_height": round(float(rng.uniform(*design.frame_height)), 1),
            "bar_height": round(float(rng.uniform(0, 1)) * float(rng.uniform(*design.frame_height)), 1),
            "tray_width": round(float(rng.uniform(0, 1) < 0.7) * float(rng.uniform(45, 70)), 1),
            "edge_margin": round(float(rng.uniform(0, 0.12)) * diameter, 2),
        },
        "materials": {"field": field, "points": points, "frame": _material(str(rng.choice(design.frame)), rng),
                      "bar": None if rng.random() < 0.6 else _material(str(rng.choice(design.frame)), rng)},
        "checkers": {"model": str(rng.choice(design.checker_models)), "finish": finish,
                     "colours": [[round(x, 4) for x in light], [round(x, 4) for x in dark]],
                     "bevel": round(float(rng.uniform(0.05, 0.25)), 3),
                     **({"surfaces": surfaces} if surfaces else {})},
        "dice": {"colour": _colour(rng, (0.05, 0.95), (0.0, 0.8)), "size": round(float(rng.uniform(14, 19)), 1)},
        "from_player1": bool(rng.random() < 0.3), "home_right": bool(rng.random() < 0.7),
        "player0_light": bool(rng.random() < 0.5),
    }


@lru_cache(maxsize=1)
def match_plays() -> tuple:
    """Every play of the real matches, replayed (`companion.record.audit.PlayTrace`: the dice, and the Position
    IDs before and after, from the mover's side)."""
    from companion.record.audit import audit_match
    from companion.record.jellyfish import read_match_file

    out = []
    for path in sorted(MATCHES.glob("*.mat")) + sorted(MATCHES.glob("*.txt")):
        try:
            report = audit_match(read_match_file(path), trace=True)
        except Exception:  # a file the importer refuses gives no positions; the others still do
            continue
        out.extend(report.trace or ())
    return tuple(out)


@lru_cache(maxsize=1)
def match_positions() -> tuple[tuple[str, int], ...]:
    """(Position ID, mover) after every play of the real matches: positions people reached."""
    return tuple((t.after, t.player) for t in match_plays())


def _tall_stacks(rng: np.random.Generator) -> tuple[Position, int]:
    """A legal position with tall stacks, checkers on the bar and borne off: what games rarely show."""
    counts = [[0] * 26, [0] * 26]
    for player in (0, 1):
        left = 15
        off = int(rng.integers(0, 8)) if rng.random() < 0.4 else 0
        bar = int(rng.integers(1, 4)) if rng.random() < 0.3 else 0
        counts[player][0], counts[player][25] = off, bar
        left -= off + bar
        while left:
            point = int(rng.integers(1, 25))
            if counts[1 - player][25 - point]:
                continue
            take = min(left, int(rng.integers(1, 16)))
            counts[player][point] += take
            left -= take
    try:
        return Position(tuple(counts[0]), tuple(counts[1])), 0
    except Exception:  # a bar checker with a closed board or the like: take a game's position instead
        return random_position(rng)


def frame_spec(board: dict[str, Any], frame: int, steady: bool = False) -> dict[str, Any]:
    """Frame `frame` of a board: the position, how it is stacked, the camera, lights, props and effects.
    Frame 0 is the starting position, taken as a user takes a calibration photo (no hand, modest tilt).
    `steady`: every frame seen by frame 0's camera, under its lamps, on its table, as at a club where the camera is
    mounted once and calibrated; the rest of each frame (position, hand, webcam noise) as without."""
    if steady and frame > 0:
        first = frame_spec(board, 0)
        return frame_spec(board, frame) | {key: first[key] for key in ("camera", "lights", "table")}
    number = int(board["board_id"].rsplit("-", 1)[1])
    rng = np.random.default_rng([SEED_BASE[board["split"]] + number, 2, frame])
    if frame == 0:
        position, mover = Position.start(), 0
    else:
        source = rng.random()
        # games' positions, random ones, tall stacks: 0.5, 0.3, 0.2 (tall-stack boards: shrunk to make room)
        tall = (TALL_SHARE if board["split"] == "train" and (FIRST_TALL_TRAIN_BOARD <= number < FIRST_MIXED_TRAIN_BOARD
                                                             or number >= FIRST_TOWER_TRAIN_BOARD) else 0.2)
        positions = match_positions()
        if source < 0.5 * (1 - tall) / 0.8 and positions:
            pid, mover = positions[int(rng.integers(len(positions)))]
            position = Position.from_position_id(pid)
        elif source < 1 - tall:
            position, mover = random_position(rng)
        else:
            position, mover = _tall_stacks(rng)
    scene = Scene.from_position(position, mover)
    calibration = frame == 0
    tilt = float(rng.uniform(0, 20) if calibration else rng.uniform(0, 45))
    towers = board["split"] == "train" and number >= FIRST_TOWER_TRAIN_BOARD
    stacking = TOWER_STACKING if towers else (0.5, 0.25, 0.25)  # (one draw either way: later draws are kept)
    focal = float(rng.uniform(24, 40) if calibration else rng.choice([rng.uniform(18, 26), rng.uniform(26, 50)]))
    return {
        "frame_index": frame,
        "points": [list(p) for p in scene.points], "bar": list(scene.bar), "off": list(scene.off),
        "stacking": {"style": str(rng.choice(["layered", "tower", "column"], p=list(stacking))),
                     "sloppy": round(float(rng.uniform(0, 0.09)), 3), "gap": round(float(rng.uniform(1.0, 1.06)), 3),
                     "seed": int(rng.integers(1 << 30))},
        "dice": [int(rng.integers(1, 7)), int(rng.integers(1, 7))], "roller": int(mover),
        "cube": {"value": int(rng.choice([1, 2, 4, 8, 16, 32, 64])),
                 "place": str(rng.choice(["bar", "side"]))},
        "camera": {"tilt": round(tilt, 2), "azimuth": round(float(rng.uniform(-12, 12)), 2),
                   "roll": round(float(rng.uniform(-5, 5)), 2), "focal": round(focal, 2),
                   "fill": round(float(rng.uniform(0.68, 0.92)), 3),
                   "shift": [round(float(rng.uniform(-0.05, 0.05)), 3), round(float(rng.uniform(-0.05, 0.05)), 3)],
                   "distortion": round(float(rng.uniform(-0.22, -0.04)) if focal < 26
                                       else float(rng.uniform(-0.04, 0.02)), 4)},
        "lights": _lights(rng),
        "table": _material(str(rng.choice(["wood", "felt", "vinyl", "marble"])), rng),
        "props": [p for p in ("cup", "clock", "sheet", "spare") if rng.random() < 0.35],
        "hand": None if calibration or rng.random() > 0.25 else {
            "side": str(rng.choice(["near", "far", "left", "right"])), "reach": round(float(rng.uniform(0.1, 0.55)), 3),
            "along": round(float(rng.uniform(0.15, 0.85)), 3), "height": round(float(rng.uniform(25, 90)), 1),
            "skin": [round(x, 4) for x in colorsys.hsv_to_rgb(
                float(rng.uniform(0.02, 0.1)), float(rng.uniform(0.25, 0.6)), float(rng.uniform(0.3, 0.9)))]},
        "effects": {"noise": round(float(rng.uniform(0, 9)), 2),
                    "motion": round(float(rng.uniform(0, 7)) if rng.random() < 0.2 else 0.0, 2),
                    "motion_angle": round(float(rng.uniform(0, 180)), 1),
                    "defocus": round(float(rng.uniform(0.5, 2.2)) if rng.random() < 0.3 else 0.0, 2),
                    "jpeg": int(rng.integers(45, 96)), "gain": round(float(rng.uniform(0.8, 1.15)), 3)},
        # its own stream: every draw above is what it was before cocked dice
        **({"dice_lean": _cocked_dice(np.random.default_rng([SEED_BASE["train"] + number, 6, frame]))}
           if board["split"] == "train" and number >= FIRST_COCKED_TRAIN_BOARD and frame > 0 else {}),
    }


def _lights(rng: np.random.Generator) -> list[dict[str, Any]]:
    """A room's light: lamps overhead, perhaps a window low to one side, perhaps a coloured lamp."""
    lights = []
    for _ in range(int(rng.integers(1, 4))):
        kelvin = float(rng.uniform(2700, 6500))
        lights.append({"kind": "lamp", "azimuth": round(float(rng.uniform(0, 360)), 1),
                       "elevation": round(float(rng.uniform(35, 88)), 1),
                       "distance": round(float(rng.uniform(0.8, 2.2)), 2),
                       "size": round(float(rng.uniform(0.05, 0.8)), 3), "power": round(float(rng.uniform(150, 900)), 1),
                       "colour": _kelvin(kelvin)})
    if rng.random() < 0.4:
        lights.append({"kind": "window", "azimuth": round(float(rng.uniform(0, 360)), 1),
                       "elevation": round(float(rng.uniform(10, 40)), 1), "distance": 2.5, "size": 1.5,
                       "power": round(float(rng.uniform(400, 2000)), 1),
                       "colour": _kelvin(float(rng.uniform(5500, 8000)))})
    if rng.random() < 0.15:
        lights.append({"kind": "lamp", "azimuth": round(float(rng.uniform(0, 360)), 1), "elevation": 50.0,
                       "distance": 1.5, "size": 0.3, "power": round(float(rng.uniform(40, 150)), 1),
                       "colour": _colour(rng, (0.9, 1.0), (0.4, 0.8))})
    return lights


def _kelvin(k: float) -> list[float]:
    """An incandescent-to-daylight white as RGB (Tanner Helland's fit, normalised)."""
    t = k / 100
    r = 1.0 if t <= 66 else min(1.0, 1.2929 * (t - 60) ** -0.1332)
    g = 0.3901 * math.log(t) - 0.6318 if t <= 66 else 1.1299 * (t - 60) ** -0.0755
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.5432 * math.log(t - 10) - 1.1962)
    return [round(min(1.0, max(0.0, x)), 4) for x in (r, g, b)]


__all__ = ["DESIGNS", "Design", "HELDOUT_DESIGNS", "SPLITS", "TRAIN_DESIGNS", "board_spec", "frame_spec",
           "match_plays", "match_positions"]
