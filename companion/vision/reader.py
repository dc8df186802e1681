"""Reading the checkers of one board photo: every point, the bar and the trays, with how sure each reading is.

The pipeline, in image order (see `companion.vision.plane`):
1. rectify the playing area to a top-down plane at 2 mm a pixel;
2. the slot model says, for each of the five places along every point and the bar, whether a checker covers it;
   the count is the prefix of covered places that best explains the five answers;
3. a point whose five places are all covered goes to the stack model, which reads the whole strip (a second
   layer, or a long squeezed column) as 5..15; the answer keeps its spread: `low`..`high` is where the evidence
   allows, so a stack the camera cannot count is handed on as a range, not a guess; the layout model says
   whether it is built in layers or as one squeezed column (which says where its outer checkers lie);
4. the colours of the occupied points are split into the lighter and the darker set (two-means), and the colour
   model judges each checker by its look (rims, shading, glare) beside those two colours;
5. the trays' side is the profile's (or found), and each tray half is read at 1 mm a pixel by the tray model;
6. a hand or arm across the board's frame makes the reading `busy`: the referee is not asked.

`BoardReader.read()` gives an `ImageReading`; with an `Orientation` it becomes the referee's `BoardReading`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.referee.observations import BoardReading, SlotReading
from companion.rules import CHECKERS
from companion.rules.layout import FRAME, PLAY_HEIGHT, PLAY_WIDTH, TRAY_WIDTH
from companion.vision.features import place_centres, point_strips, slot_features, slot_patches, strip_features
from companion.vision.mlp import MLP
from companion.vision.orientation import COLOURS, Orientation
from companion.vision.plane import Corners, Plane, slot_is_top, slot_x

MODELS = Path(__file__).with_name("models")
SPREAD = 0.01
"""A count whose probability is at least this stays inside a slot's `low`..`high`."""
DISC = 5
"""Radius, plane pixels (10 mm), of the middle of a checker whose colour is sampled."""


class NotABoard(CompanionError):
    """The image, where the board should be, does not show one."""


@dataclass(frozen=True, slots=True)
class SlotRead:
    colour: str | None
    """'light', 'dark', or None for an empty point."""
    count: int
    low: int
    high: int
    confidence: float
    layered: bool = True
    """How a stack over five is built: a second layer over the gaps (True) or one squeezed column reaching the
    board's middle (False), as the layout model sees it. It says where the outer checkers lie (a die there rests on
    one); five or fewer are one column either way."""

    def to_json(self) -> dict:
        return {"colour": self.colour, "count": self.count, "confidence": round(self.confidence, 4),
                "low": self.low, "high": self.high}


@dataclass(frozen=True, slots=True)
class HalfRead:
    """Checkers in one half of the bar or of a tray: the top or bottom half as the image shows it."""

    colour: str | None
    count: int
    confidence: float
    low: int
    high: int
    """`low`..`high`: the counts the evidence allows, as for a point."""


@dataclass(frozen=True)
class ImageReading:
    points: tuple[SlotRead, ...]
    """Image order: slots 0..11 along the top edge from the top-left, 12..23 along the bottom from the
    bottom-left."""
    bar: tuple[HalfRead, HalfRead]
    """Top half, bottom half."""
    trays: dict[str, tuple[HalfRead, HalfRead]] | None
    """{side: (top half, bottom half)} for the trays' side ('left' or 'right'), or for both sides where the
    reader does not know which it is (the orientation picks it: `to_board_reading`); None when the trays are not
    in the picture."""
    colours: dict[str, tuple[float, float, float]]
    """The mean BGR of each set as seen."""
    busy: str | None = None
    """Why the board cannot be read now (a hand over it), or None."""
    time: float = 0.0
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    board: float = 1.0
    """How surely the corners show a backgammon board (the strip network's board test; 1 from a reader
    without one)."""
    mended: bool = False
    """Whether the reader changed some place so that each set makes fifteen (`checker_sets`; on a busy board, so that
    none reads over fifteen): the referee never accuses on such a reading, which is whole by inference rather than
    as seen."""

    def bar_counts(self) -> dict[str, int]:
        counts = {c: 0 for c in COLOURS}
        for half in self.bar:
            if half.colour is not None:
                counts[half.colour] += half.count
        return counts

    def off_counts(self) -> dict[str, int] | None:
        """Checkers seen borne off, per set: on the trays' side, or where both sides were read, the side holding
        more (the other is a frame or a table)."""
        halves_read = home_halves(self.trays)
        if halves_read is None:
            return None
        counts = {c: 0 for c in COLOURS}
        for halves in halves_read.values():
            for half in halves:
                if half.colour is not None:
                    counts[half.colour] += half.count
        return counts

    def to_json(self) -> dict:
        return {"points": [{"colour": p.colour, "count": p.count, "confidence": round(p.confidence, 4)}
                           for p in self.points],
                "bar": self.bar_counts(), "off": self.off_counts(), "dice": [], "cube": None,
                "busy": self.busy, "board_confidence": round(self.board, 4), "mended": self.mended}

    def to_board_reading(self, orientation: Orientation) -> BoardReading:
        """In the referee's terms: player 0's points, bar and trays."""
        slots: list[SlotReading] = [SlotReading.empty()] * 24
        for slot, read in enumerate(self.points):
            point = orientation.point_of_slot(slot)
            owner = None if read.colour is None else orientation.player_of(read.colour)
            if read.high == 0 or owner is None:
                slots[point - 1] = SlotReading(None, 0, read.confidence)
            else:
                slots[point - 1] = SlotReading(owner, read.count, read.confidence, read.low, read.high)
        bar = [SlotReading.empty(), SlotReading.empty()]
        trays = [SlotReading.empty(), SlotReading.empty()]
        home_tray_read = False
        for where, player, half in self.side_halves(orientation):
            (bar if where == "bar" else trays)[player] = _side_slot(player, half, orientation)
            home_tray_read |= where == "off"
        off = (trays[0], trays[1]) if home_tray_read else None
        return BoardReading(tuple(slots), (bar[0], bar[1]), off, self.time, self.mended)

    def side_halves(self, orientation: Orientation) -> list[tuple[str, int, HalfRead]]:
        """The bar's halves and the home side's tray halves ("bar" or "off", where read), each with the player it
        belongs to by where it lies under `orientation`."""
        halves = [("bar", orientation.bar_owner(top), half) for top, half in zip((True, False), self.bar)]
        home = (self.trays or {}).get("right" if orientation.tray_on_right() else "left")
        if home is not None:
            halves += [("off", orientation.tray_owner(top), half) for top, half in zip((True, False), home)]
        return halves


def home_halves(trays: dict[str, tuple[HalfRead, HalfRead]] | None) -> dict[str, tuple[HalfRead, HalfRead]] | None:
    """`trays` cut to one side: where both sides were read, the side whose halves hold more checkers."""
    if not trays or len(trays) == 1:
        return trays
    side = max(sorted(trays), key=lambda s: sum(half.count for half in trays[s]))
    return {side: trays[side]}


def _side_slot(player: int, half: HalfRead, orientation: Orientation) -> SlotReading:
    """A bar or tray half belongs to `player` by where it is; its colour only says how far to trust it."""
    if half.high == 0:
        return SlotReading.empty(half.confidence)
    if half.count and half.colour is not None and orientation.player_of(half.colour) != player:
        return SlotReading(player, half.count, 0.0, 0, CHECKERS)  # the wrong colour here: it says nothing
    return SlotReading(player, half.count, half.confidence, half.low, half.high)


@lru_cache(maxsize=2)
def _models(folder: str) -> tuple[MLP, ...]:
    return tuple(MLP.load(Path(folder) / f"{name}.npz")
                 for name in ("slots", "stacks", "colours", "trays", "layouts"))


class Laps:
    """Milliseconds per stage of one read: `lap(name)` ends a stage; `timings` holds them by name."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._tick = cv2.getTickCount()

    def __call__(self, name: str) -> None:
        now = cv2.getTickCount()
        self.timings[name] = (now - self._tick) / cv2.getTickFrequency() * 1000
        self._tick = now


class BoardReader:
    """Reads boards placed where `corners` say. Cheap to build; models are loaded once per process."""

    def __init__(self, corners: Corners, *, trays: str | None = None, models: Path = MODELS) -> None:
        """`trays`: 'left' or 'right' when a profile knows the trays' side; None finds it in each image."""
        self.plane = Plane.from_corners(corners)
        (self.slots_model, self.stacks_model, self.colours_model, self.trays_model,
         self.layouts_model) = _models(str(models))
        self.trays = trays

    def read(self, image: np.ndarray, time: float = 0.0, rectified: np.ndarray | None = None) -> ImageReading:
        """`rectified`: `self.plane.rectify(image)`, when the caller made it already (the dice reader shares it)."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 64:
            raise NotABoard("the frame is not a colour image")
        lap = Laps()
        plane = self.plane.rectify(image) if rectified is None else rectified
        lap("rectify")
        busy = _hand_over_frame(plane)
        features = slot_features(slot_patches(plane))
        covered = self.slots_model.probabilities(features)
        lap("slots")
        dists = [_prefix_distribution(covered[s * 5:(s + 1) * 5]) for s in range(24)]
        tall = [s for s in range(24) if dists[s][5] > SPREAD]
        layered = [True] * 24
        if tall:
            strips = strip_features(point_strips(plane)[tall])
            stacks = self.stacks_model.probabilities(strips)
            p_layered = self.layouts_model.probabilities(strips)
            for row, s in enumerate(tall):
                d = np.zeros(16)
                d[:5] = dists[s][:5]
                d[5:] = dists[s][5] * stacks[row]
                dists[s] = d
                layered[s] = bool(p_layered[row] >= 0.5)
        lap("stacks")
        bar_dists = [_prefix_distribution(covered[120 + 5 * h:125 + 5 * h]) for h in (0, 1)]
        lab = cv2.cvtColor(plane, cv2.COLOR_BGR2LAB).astype(np.float32)
        counts = [int(np.argmax(d)) for d in dists] + [int(np.argmax(d)) for d in bar_dists]
        places = covered_places(counts)
        place_lab = place_colours(lab, places)
        by_slot = point_samples(places, place_lab)
        samples = {s: v for s, v in by_slot.items() if s < 24}
        bar_samples = {s - 24: v for s, v in by_slot.items() if s >= 24}
        light_logit = np.zeros(len(features), np.float32)
        if places:
            inputs = colour_inputs(features, places, place_lab, two_colours(list(by_slot.values())))
            light_logit[places] = self.colours_model.logits(inputs)[:, 0]
        p_light = [_model_light(light_logit[s * 5:s * 5 + 5], dists[s]) for s in range(24)]
        bar_light = [_model_light(light_logit[120 + 5 * h:125 + 5 * h], bar_dists[h]) for h in (0, 1)]
        # again with the model's say: it alone tells a board holding one set from two sets
        centres = two_colours(list(by_slot.values()), [(p_light + bar_light)[s] for s in by_slot])
        points = tuple(_slot_read(dists[s], samples.get(s), centres, p_light[s], layered[s]) for s in range(24))
        bar = tuple(_half_read(bar_dists[h], bar_samples.get(h), centres, bar_light[h]) for h in (0, 1))
        lap("colours")
        trays = self._read_trays(image, centres)
        lap("trays")
        bgr = {name: tuple(float(v) for v in cv2.cvtColor(np.uint8([[c]]), cv2.COLOR_LAB2BGR)[0, 0])
               for name, c in centres.items()}
        return ImageReading(points, bar, trays, bgr, busy, time, lap.timings)  # type: ignore[arg-type]

    def point_certainty(self, image: np.ndarray) -> np.ndarray:
        """How sure the slot model is of each point's count (24 values): a cheap measure of how well the board
        fits these corners."""
        covered = self.slots_model.probabilities(slot_features(slot_patches(self.plane.rectify(image))))
        return np.array([_prefix_distribution(covered[s * 5:(s + 1) * 5]).max() for s in range(24)])

    def _read_trays(self, image: np.ndarray, centres: dict[str, np.ndarray]) -> dict | None:
        side = self.trays or tray_side(image, self.plane)
        h, w = image.shape[:2]
        x0, y0, x1, y1 = _tray_rect(side)
        corners = self.plane.to_image_points([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        if not all(0 <= x < w and 0 <= y < h for x, y in corners):
            return None
        top, bottom = tray_halves(image, self.plane, side)
        return {side: (_tray_half(top, centres, self.trays_model), _tray_half(bottom, centres, self.trays_model))}


def tray_halves(image: np.ndarray, plane: Plane, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The two halves of a tray in Lab at 1 mm a pixel, each with its outer end first."""
    lab = _tray_lab(image, plane, side)
    half = int(lab.shape[0] / 2)
    return lab[:half - 5], lab[half + 5:][::-1]


def looks_like_a_board(reader: BoardReader, image: np.ndarray, reading: ImageReading) -> bool:
    """Whether the image, where the corners say, shows a board: the triangles' tips alternate in colour (compared
    with their neighbours, so uneven light does not matter), or, on boards whose two point colours are alike,
    the checkers read come in two sets of a plausible number (a photo of anything else reads as neither)."""
    counts = [p.count for p in reading.points]
    lab = cv2.cvtColor(reader.plane.rectify(image), cv2.COLOR_BGR2LAB).astype(np.float32)
    tips = []
    for slot in range(24):
        cx, cy = Plane.px(slot_x(slot), 168.0 if slot_is_top(slot) else PLAY_HEIGHT - 168.0)
        tips.append(lab[int(cy) - 1:int(cy) + 2, int(cx) - 1:int(cx) + 2].reshape(-1, 3).mean(axis=0))
    next_one, next_two = [], []
    for start in (0, 6, 12, 18):
        for i in range(start, start + 6):
            for step, out in ((1, next_one), (2, next_two)):
                if i + step < start + 6 and counts[i] < 4 and counts[i + step] < 4:  # tips not under checkers
                    out.append(np.linalg.norm(tips[i] - tips[i + step]))
    if next_one and next_two and float(np.median(next_one)) > 1.5 * float(np.median(next_two)) + 4:
        return True
    seen = {c: sum(p.count for p in reading.points if p.colour == c) for c in COLOURS}
    return all(4 <= n <= 15 for n in seen.values()) and 20 <= sum(seen.values()) <= 30


def _tray_lab(image: np.ndarray, plane: Plane, side: str) -> np.ndarray:
    """A tray's strip seen straight down at 1 mm a pixel, in Lab."""
    x0, y0, x1, y1 = _tray_rect(side)
    strip = plane.warp(image, (x0, y0), 1.0, (int(x1 - x0), int(y1 - y0)))
    return cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)


def _prefix_distribution(p: np.ndarray) -> np.ndarray:
    """P(count = c), c = 0..5, from five independent 'covered' probabilities: checkers stand in a row from the
    edge, so only prefixes are possible."""
    p = np.clip(p.astype(np.float64), 1e-6, 1 - 1e-6)
    log_on, log_off = np.log(p), np.log(1 - p)
    scores = np.array([log_on[:c].sum() + log_off[c:].sum() for c in range(6)])
    scores = np.exp(scores - scores.max())
    out = np.zeros(16)
    out[:6] = scores / scores.sum()
    return out


def covered_places(counts: list[int]) -> list[int]:
    """The places (`slot_patches` order) a checker covers, given the 24 points' and 2 bar halves' counts."""
    return [5 * slot + k for slot, count in enumerate(counts) for k in range(min(count, 5))]


def place_colours(lab: np.ndarray, places: list[int]) -> np.ndarray:
    """The median Lab colour of the middle of each place in `places`: (len(places), 3)."""
    centres = place_centres()
    return np.array([_disc(lab, *centres[p][:2]) for p in places], np.float32).reshape(-1, 3)


def point_samples(places: list[int], place_lab: np.ndarray) -> dict[int, np.ndarray]:
    """Each occupied point's colour (slots 0..23; the bar's halves are 24 and 25): the median of the colours of
    the places it covers (`place_lab`, in the order of `places`)."""
    owner = np.array(places, int) // 5
    return {int(slot): np.median(place_lab[owner == slot], axis=0) for slot in np.unique(owner)}


def colour_inputs(features: np.ndarray, places: list[int], place_lab: np.ndarray,
                  context: dict[str, np.ndarray]) -> np.ndarray:
    """The colour model's inputs for `places`: each place's slot features, and its colour less each of the
    board's two checker colours (`two_colours` of its points). Which set a checker belongs to is a question about
    this board: a red checker is the dark set beside white ones and the light set beside black."""
    return np.concatenate([features[places], place_lab - context["light"], place_lab - context["dark"]],
                          axis=1).astype(np.float32)


@lru_cache(maxsize=1)
def _disc_mask() -> np.ndarray:
    yy, xx = np.mgrid[-DISC:DISC + 1, -DISC:DISC + 1]
    return (xx * xx + yy * yy) <= DISC * DISC


def _disc(lab: np.ndarray, cx: float, cy: float) -> np.ndarray:
    x, y = int(round(cx)), int(round(cy))
    piece = lab[y - DISC:y + DISC + 1, x - DISC:x + DISC + 1][_disc_mask()]
    return np.median(piece, axis=0)


ONE_SET = 0.9
"""When the colour model gives every sample of a frame one colour at least this surely, the frame holds one set
(the other is borne off or not on the board): two-means would split it by its light and shade."""


def one_set_colours(centre: np.ndarray, lighter: bool) -> dict[str, np.ndarray]:
    """The sets' colours (Lab) when the checkers seen are one set, of colour `centre`: the other set, unseen, is
    put far lighter or darker, so every checker seen is named the set it is."""
    other = centre + np.array([-100.0 if lighter else 100.0, 0, 0])
    return {"light": centre, "dark": other} if lighter else {"light": other, "dark": centre}


def two_colours(samples: list[np.ndarray], p_light: list[float] | None = None) -> dict[str, np.ndarray]:
    """The lighter and the darker checker colour (Lab) among the samples: two-means, seeded by the extremes.
    `p_light`, the colour model's P(light) for each sample, tells a board holding one set only."""
    if not samples:
        return {"light": np.array([200.0, 128, 128]), "dark": np.array([50.0, 128, 128])}
    data = np.array(samples, np.float64)
    light, dark = data[np.argmax(data[:, 0])], data[np.argmin(data[:, 0])]
    lighter = data.mean(axis=0)[0] > 110  # a set alone is named by its lightness, unless the model says
    one_set = np.linalg.norm(light - dark) < 25
    if p_light is not None and (min(p_light) >= ONE_SET or max(p_light) <= 1 - ONE_SET):
        one_set, lighter = True, min(p_light) >= ONE_SET
    if one_set:
        return one_set_colours(data.mean(axis=0), lighter)
    for _ in range(8):
        near_light = np.linalg.norm(data - light, axis=1) <= np.linalg.norm(data - dark, axis=1)
        light, dark = data[near_light].mean(axis=0), data[~near_light].mean(axis=0)
    return {"light": light, "dark": dark}


def _model_light(logits: np.ndarray, dist: np.ndarray) -> float:
    """The colour model's P(light) over the places a checker covers (its logits add up: independent looks)."""
    count = max(1, min(int(np.argmax(dist)), 5))
    return float(1 / (1 + np.exp(-np.clip(logits[:count].sum(), -30, 30))))


def _colour_of(sample: np.ndarray, centres: dict[str, np.ndarray], p_light: float) -> tuple[str, float]:
    """Colour by the nearer set, checked by the colour model (which sees rims and shading, so glare that makes
    a dark checker look pale does not fool it). When the two disagree, the model decides and the reading is
    marked unsure."""
    d_light = float(np.linalg.norm(sample - centres["light"]))
    d_dark = float(np.linalg.norm(sample - centres["dark"]))
    colour, near, far = ("light", d_light, d_dark) if d_light <= d_dark else ("dark", d_dark, d_light)
    sure = float(np.clip(2 * (far - near) / (far + near + 1e-6), 0, 1))
    model = "light" if p_light >= 0.5 else "dark"
    model_sure = abs(p_light - 0.5) * 2
    if model == colour:
        return colour, max(sure, model_sure) if min(sure, model_sure) > 0.3 else min(sure, model_sure)
    return model, 0.0


def _slot_read(dist: np.ndarray, sample: np.ndarray | None, centres, p_light: float,
               layered: bool = True) -> SlotRead:
    best, low, high = _spread(dist)
    mass = min(1.0, float(dist[low:high + 1].sum()))  # a sum of probabilities may round to just over 1
    if best == 0 and high == 0:
        return SlotRead(None, 0, 0, 0, mass)
    if sample is None:
        return SlotRead(None, 0, 0, high, 0.0)
    colour, sure = _colour_of(sample, centres, p_light)
    if best == 0:  # probably empty, perhaps a checker: the range carries the doubt
        return SlotRead(colour, 0, 0, high, mass * sure)
    return SlotRead(colour, best, low, high, mass * sure, layered)


def _spread(dist: np.ndarray) -> tuple[int, int, int]:
    """The best count of a distribution over counts, and the range of those at least SPREAD likely."""
    best = int(np.argmax(dist))
    likely = np.flatnonzero(dist >= SPREAD)  # in order; a flat distribution has no count that likely
    if not len(likely):
        return best, best, best
    return best, min(int(likely[0]), best), max(int(likely[-1]), best)


def _half_read(dist: np.ndarray, sample: np.ndarray | None, centres, p_light: float) -> HalfRead:
    best, low, high = _spread(dist)
    if best == 0 or sample is None:
        return HalfRead(None, 0, float(dist[0]), 0, high)
    colour, sure = _colour_of(sample, centres, p_light)
    return HalfRead(colour, best, float(dist[best]) * sure, low, high)


TRAY_ROWS = 110
"""Millimetres of a tray half the tray model sees, from the outer end: fifteen checkers on edge take 100."""


def tray_profile(lab: np.ndarray, centres: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
    """One tray half (1 mm a row, outer end first) as the tray model sees it: per row, how far its colour is
    from the empty tray, the lighter and the darker set, scaled by how far the sets are from the empty tray.
    Also the contrast (Lab units) between the empty tray and the nearer checker colour."""
    width = lab.shape[1]
    rows = np.median(lab[:, width // 5: width - width // 5], axis=1)
    empty = np.median(rows[-40:], axis=0)  # the inner end: fifteen checkers never reach it
    rows = rows[:TRAY_ROWS]
    contrast = min(float(np.linalg.norm(empty - centres["light"])), float(np.linalg.norm(empty - centres["dark"])))
    scale = max(contrast, 8.0)
    feats = np.stack([np.linalg.norm(rows - ref, axis=1) / scale
                      for ref in (empty, centres["light"], centres["dark"])], axis=1)
    return feats.ravel().astype(np.float32), contrast


def _tray_half(lab: np.ndarray, centres, model: MLP) -> HalfRead:
    feats, contrast = tray_profile(lab, centres)
    dist = model.probabilities(feats[None, :])[0]
    count, low, high = _spread(dist)
    visible = float(np.clip((contrast - 8) / 16, 0, 1))
    sure = float(dist[count]) * visible
    if not visible:  # checkers on edge the tray's own colour: any count is possible
        low, high = 0, CHECKERS
    if count == 0:
        return HalfRead(None, 0, sure, 0, high)
    rows = feats.reshape(-1, 3)[:int(6 + 6.5 * count)]
    colour = "light" if np.median(rows[:, 1]) < np.median(rows[:, 2]) else "dark"
    return HalfRead(colour, count, sure, low, high)


def tray_side(image: np.ndarray, plane: Plane) -> str:
    """Which side the trays are on: a tray's empty inner end is one colour across its width; the other side's
    strip is part frame, part table."""
    spread = {}
    for side in ("left", "right"):
        lab = _tray_lab(image, plane, side)
        middle = lab[int(PLAY_HEIGHT / 2) - 60:int(PLAY_HEIGHT / 2) - 10]
        columns = np.median(middle, axis=0)
        spread[side] = float(np.linalg.norm(columns.std(axis=0)))
    return min(spread, key=spread.get)  # type: ignore[arg-type]


def _tray_rect(side: str) -> tuple[float, float, float, float]:
    x0 = PLAY_WIDTH + FRAME / 2 if side == "right" else -FRAME / 2 - TRAY_WIDTH
    return (x0, 0.0, x0 + TRAY_WIDTH, PLAY_HEIGHT)


def _hand_over_frame(plane: np.ndarray) -> str | None:
    """An arm reaches over the board's frame from a player's side: a run of the frame band, above or below the
    playing area, far from the band's own colour around it (a running median wider than any arm, so uneven
    light along the frame is not taken for a hand)."""
    x0, _ = Plane.px(-20, 0)
    x1, _ = Plane.px(PLAY_WIDTH + 20, 0)
    _, y_top = Plane.px(0, -18)  # well clear of the checkers' shadows at the edge
    _, y_bottom = Plane.px(0, PLAY_HEIGHT + 8)
    top, bottom = int(y_top), int(y_bottom)
    for name, band in (("top", plane[top:top + 5, int(x0):int(x1)]),
                       ("bottom", plane[bottom:bottom + 5, int(x0):int(x1)])):
        cols = band.astype(np.float32).mean(axis=0)
        ref = np.stack([_running_median(cols[:, c], 81) for c in range(3)], axis=1)
        off = np.linalg.norm(cols - ref, axis=1) > 35
        run = best = 0
        for flag in off:
            run = run + 1 if flag else 0
            best = max(best, run)
        if best >= 14:  # an arm is 30-45 pixels here; a corner marker 12
            return f"a hand over the board ({name} edge)"
    return None


def _running_median(values: np.ndarray, window: int) -> np.ndarray:
    pad = window // 2
    padded = np.pad(values, pad, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, window)
    return np.median(windows, axis=1)


__all__ = ["BoardReader", "looks_like_a_board", "HalfRead", "ImageReading", "NotABoard", "SlotRead"]
