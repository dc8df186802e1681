"""Reading the checkers with the strip network: one learned look at each point, sized by the board's geometry.

Each point (and each half of the bar) is cut from the camera image as a strip measured in point widths
(`companion.vision.strips`), so the network sees every board alike whatever its millimetres; it gives the
probability of each count 0..15 and of "not a point at all". The board test is the mean of that last output over
the 24 points: learned from strips cut where no board is, so an empty board is a board and a table is not.
Colours are the sets the profile learnt from the starting position, else (or where those name more than 15 of a set,
the light having changed) the two sets found among the first checkers of each occupied point (split by the lightest
and darkest, or, where that names more than 15 of a set, by `checker_sets.two_sets`), named as the profile names
its sets when there is one (`named_like`); a colour network names each stack's set beside them, and no set may read
over 15 (`checker_sets`). The trays of a measured board are cut by its own geometry and read by the tray network
(`companion.vision.trays`). Last, the counts and sets of all places are chosen together so that each set makes 15
with its borne-off checkers (`checker_sets.counts_making_fifteen`: the trays' word on whether a set has borne off
some, and half their count's, `holding_then_count`; each stack's colour weighed as the renaming weighs it,
`colour_chances`); where a hand hides some, so that the checkers not seen are borne off or under the hand
(`hidden_or_off`), and no set reads over 15.

A hand over the board is the same output: a few points (the rest plainly points) that are "not a point" are
covered by something, and the reading is `busy` (the photoreal training strips a hand hides are labelled "not a
point"): one point surely so, or two neighbours that both may be (`covered_points`); on a board whose own pattern
looked covered at calibration (`patterned`), two neighbours both surely so. A test of the frame's colour
(the simulator reader's) fired on real frames' own grain, height and tall stacks. Only the 24 points are tested: a
hand over the bar or a tray alone is not seen.

It gives the same `ImageReading` as `companion.vision.reader.BoardReader`, which it replaces where the board is not
the simulator's (the simulator's trays and the dice still use the plane of `companion.vision.plane`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.layout import STANDARD, BoardGeometry
from companion.vision.adapt import Head
from companion.vision.checker_sets import (FLIPPED_CONFIDENCE, ColourEvidence, Stack, counts_making_fifteen, flip,
                                           off_prior, stacks_to_flip, too_many, two_sets)
from companion.vision.empty_looks import EMPTY_LIKE, EmptyLooks, empty_sureness, similarity
from companion.vision.mlp import MLP
from companion.vision.network import Network
from companion.vision.orientation import Orientation
from companion.vision.plane import Corners, Plane
from companion.vision.reader import (MODELS, HalfRead, ImageReading, Laps, NotABoard, SlotRead, _spread, _tray_half,
                                     _tray_rect, home_halves, tray_halves, tray_side, two_colours)
from companion.vision.strips import (BAR_BOTTOM, BAR_TOP, BEFORE, PX_PER_POINT, STRIP_W, Pyramid, StripCutter,
                                     StripPlaces, beside_sets, finer_frames, mm_to_image, network_input,
                                     normalisation, strip_frames)
from companion.vision.trays import BEFORE as TRAY_BEFORE
from companion.vision.trays import HALVES, TRAY_H, tray_cutter, tray_frames
from companion.vision.trays import PX_PER_POINT as TRAY_PX_PER_POINT

NOT_A_POINT = 16
BOARD_LEAST = 0.5
"""Below this board confidence (the mean chance over the 24 points that each is a point) the corners do not show a
board: what a board found without corners must reach."""
GIVEN_LEAST = 0.05
"""Where a user gave the corners, only a picture this unlike a board (noise, a wall) is refused: a real board,
however unlike the boards the network learnt, is read, with its low confidence said."""
FIRST_CHECKER = (int(round((BEFORE + 0.45) * PX_PER_POINT)), STRIP_W // 2)
"""Where in a strip the first checker's middle lies (row, column) on the simulator's board."""
COLOUR_ROWS = 56
"""The rows of a strip the colour network sees: its first two or three checkers."""
COVERED_LEAST = 0.5
"""A point whose "not a point" chance is over this, on a board whose other points are points, may be covered: it
is counted as covered when the board is busy, and no empty look is learnt there at calibration."""
HAND_SURE = 0.95
"""A point at least this surely "not a point" is a hand's, alone."""
NEIGHBOURS_LEAST = 0.35
"""Two neighbouring points each over this likely "not a point" are a hand's (a hand spans points; facing points
across the board are no neighbours: counting them added false alarms on patterned boards and caught no hand more)."""
DOUBTFUL = 0.9
"""A strip whose likeliest answer has less than this is read again from two more cuts (`NUDGE`)."""
NUDGE = 2.5
"""Pixels by which the extra cuts' corners lie in from and out from the given ones, along the diagonals: on some
boards the reading turned on 2 px of the corners. 1.5 until session 40, when 2.5 read 13-46 more points on each
path of 44 photoreal development sets (960x540), at no cost in time; 3.0 and 3.5 read more on most paths but a
board then refused calibration (docs/VISION.md)."""
COVERED_MOST = 12
"""More points than this unlike points: the corners are wrong or it is no board (the board confidence says so),
not a hand."""
PATTERN_HAND = 0.85
"""On a patterned board a hand is two neighbouring points each at least this likely "not a point": a single sure
point or two half-likely ones are what its pattern shows on clear frames."""


@lru_cache(maxsize=4)
def _network(path: str) -> Network:
    return Network(Path(path))


@lru_cache(maxsize=2)
def _tray_model(path: str) -> MLP:
    return MLP.load(Path(path))


class StripReader:
    """Reads boards placed where `corners` say, measured as `geometry` says. Models are loaded once per process."""

    def __init__(self, corners: Corners, geometry: BoardGeometry = STANDARD, *, trays: str | None = None,
                 colours: dict[str, tuple[float, float, float]] | None = None, head: Head | None = None,
                 empty_looks: EmptyLooks | None = None, patterned: bool = False, frame_colours: bool = True,
                 orientation: Orientation | None = None, models: Path = MODELS) -> None:
        """`trays`: the trays' side, the profile's; None reads both sides of a measured board (the orientation
        picks one) or guesses the side of the simulator's board (`tray_side`).
        `colours`: each set's BGR as calibration saw it (the profile's), tried first; None finds them per image.
        `head`: the network's last layer as calibration adapted it to this board (`companion.vision.adapt`).
        `empty_looks`: what this board's points look like empty (`companion.vision.empty_looks`).
        `patterned`: the board's pattern looked like something over a point on the calibration photo
        (`calibrate.looks_patterned`): only a plainer hand makes it busy (`covered_points`).
        `frame_colours`: with `colours`, whether this frame's own two sets are tried after them when they name more
        than 15 of a set, or where the colour network disagrees with the nearer of the profile's on a point
        (`disagreements`) (False: the profile's colours alone, as calibration checks that they read its photo back).
        `orientation`: the profile's: whose checkers each bar and tray half holds is then told by its place (as the
        referee takes them, `ImageReading.to_board_reading`), not by their colour (`PLACE_SAYS_OWNER`; the counts
        made fifteen a side cap it as any colour's chance, `checker_sets.COLOUR_CAP`)."""
        self.corners, self.geometry, self.trays, self.head = corners, geometry, trays, head
        self.patterned = patterned
        self.plane = Plane.from_corners(corners)
        self.cutter = StripCutter(corners, geometry)
        self.network = _network(str(models / "strips.onnx"))
        self.colour_network = _network(str(models / "strip_colours.onnx"))
        # the colour network may see its crops finer than the strips: cut from the same frames, at its own scale
        scale = int(self.colour_network.input_shape[2]) // COLOUR_ROWS
        self.colour_cutter = None if scale == 1 else StripCutter(
            corners, geometry, finer_frames(strip_frames(geometry), scale), size=(scale * COLOUR_ROWS, scale * STRIP_W))
        # the simulator's standard board has its trays read by the tray model it learnt; a measured one by the network
        self.measured = geometry != STANDARD
        self.trays_model = None if self.measured else _tray_model(str(models / "trays.npz"))
        self.tray_network = _network(str(models / "trays.onnx")) if self.measured else None
        self.tray_cutter = (tray_cutter(corners, geometry, scale=int(self.tray_network.input_shape[2]) // TRAY_H)
                            if self.tray_network is not None else None)
        self._tray_corners = tray_corners(corners, geometry) if self.measured else None
        self.known_colours = None if not colours else {
            name: cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)
            for name, bgr in colours.items()}
        self.frame_colours = frame_colours
        self.orientation = orientation
        self.empty_looks = empty_looks
        self._nudged: tuple[StripPlaces, ...] | None = None  # the second look's image places (`_nudged_cutters`)
        self._look_points, self._look_hidden = np.zeros(0, int), np.zeros((0, 0))
        if empty_looks is not None and len(empty_looks):
            self._look_points, x = empty_looks.network_input()
            self._look_hidden = self.network.outputs(x)[2].astype(np.float64)

    def look(self, image: np.ndarray, strips: np.ndarray | None = None,
             norm: tuple[np.ndarray, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The network's answer for the 26 strips: probabilities (26, 17), counts 0..15 then "not a point", and
        how far each strip's point lies from the strip's middle, across it, in point widths (26)."""
        p, offsets, _ = self._run(self.cutter.cut(image) if strips is None else strips, norm)
        return p, offsets

    def _run(self, strips: np.ndarray, norm: tuple[np.ndarray, float] | None) -> tuple[np.ndarray, ...]:
        """`look`'s answer, and the last hidden layer of the strips as cut (what empty looks and an adapted head
        were learnt from; the head is applied to the mirrored strips too)."""
        n = len(strips)
        # each strip is read as cut and mirrored (the network learnt both), and the two answers averaged: a
        # steadier count where one look alone wavers (94.60 -> 95.33 % of points on the photoreal development
        # sets; the colour network read so did worse, 95.18 %)
        logits, offsets, hidden = self.network.outputs(network_input(strips, norm, mirrored=True))
        if self.head is not None:
            logits = hidden.astype(np.float64) @ self.head[0] + self.head[1]
        logits = logits.astype(np.float64)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        # a mirrored strip's offset is the other way across
        return ((p[:n] + p[n:]) / 2, (offsets[:n] - offsets[n:]).astype(np.float64) / 2,
                hidden[:n].astype(np.float64))

    def _read_doubtful_again(self, image: np.ndarray | Pyramid, p: np.ndarray, norm: tuple[np.ndarray, float]
                             ) -> None:
        """Averages into `p` the answers for the doubtful strips cut from corners `NUDGE` px in and out: the
        answer that holds as the corners move a little. Only the doubtful strips are cut and read, both cuts in one
        run, so a clear board costs nothing."""
        doubtful = np.nonzero(p.max(axis=1) < DOUBTFUL)[0]
        if not len(doubtful):
            return
        strips = np.concatenate([cutter.cut(image) for cutter in self._nudged_cutters(doubtful)])
        again = self._run(strips, norm)[0]
        n = len(doubtful)
        p[doubtful] = (p[doubtful] + again[:n] + again[n:]) / 3

    def _nudged_cutters(self, strips: np.ndarray) -> list[StripCutter]:
        """Cutters of `strips` from the corners `NUDGE` px in and out. Where each strip's pixels lie from those corners
        is kept by the reader (`StripPlaces`) and worked out only for a strip not cut so before: the same cuts as
        cutters made afresh, for less (NUDGE is taken the first time)."""
        if self._nudged is None:
            corners = np.asarray(self.corners, np.float64)
            out = corners - corners.mean(axis=0)
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
            self._nudged = tuple(StripPlaces(tuple(map(tuple, corners + k * NUDGE * out)), self.geometry)
                                 for k in (-1, 1))
        return [places.cutter(strips) for places in self._nudged]

    def colour_crops(self, image: np.ndarray | Pyramid, strips: np.ndarray) -> np.ndarray:
        """What the colour network sees of each of the 26 strips: its first `COLOUR_ROWS` rows, cut again at the
        network's scale where that is finer."""
        if self.colour_cutter is None:
            return strips[:, :COLOUR_ROWS]
        return self.colour_cutter.cut(image)

    def empty_likeness(self, hidden: np.ndarray) -> np.ndarray:
        """For each point (24, image order), the cosine between its hidden layer and the nearest of its empty
        looks' (0 for a point with none): at or over `EMPTY_LIKE`, it looks as it did empty."""
        out = np.zeros(24)
        if len(self._look_points):
            cosine = similarity(hidden[self._look_points], self._look_hidden)
            np.maximum.at(out, self._look_points, cosine)
        return out

    def probabilities(self, image: np.ndarray) -> np.ndarray:
        return self.look(image)[0]

    def hidden(self, image: np.ndarray, frames: np.ndarray | None = None) -> np.ndarray:
        """The network's last hidden layer for the 26 strips, cut by this reader's frames or by `frames`."""
        cutter = self.cutter if frames is None else StripCutter(self.corners, self.geometry, frames)
        return self.network.outputs(network_input(cutter.cut(image)))[2]

    def point_certainty(self, image: np.ndarray) -> np.ndarray:
        """How sure the network is of each point's count (24 values): how well the board fits these corners."""
        p = self.probabilities(image)[:24]
        return p[:, :NOT_A_POINT].max(axis=1)

    def read(self, image: np.ndarray, time: float = 0.0, rectified: np.ndarray | None = None) -> ImageReading:
        """`rectified`: taken for the readers' common interface (the watcher rectifies once for the dice too);
        this reader cuts its strips from the camera image itself."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 64:
            raise NotABoard("the frame is not a colour image")
        lap = Laps()
        pyramid = Pyramid(image)  # every cut below is from this frame, most from the same halving
        strips = self.cutter.cut(pyramid)
        norm = normalisation(strips)
        p, _, hidden = self._run(strips, norm)
        self._read_doubtful_again(pyramid, p, norm)
        likeness = self.empty_likeness(hidden)
        # still as it looked empty: a point, and empty, whatever its grain made the network think (a point the
        # network reads empty anyway keeps its own answer and confidence)
        empty = (likeness >= EMPTY_LIKE) & (p[:24].argmax(axis=1) != 0)
        if empty.any():
            p[:24][empty] = np.eye(p.shape[1])[0]
        lap("strips")
        board = float(1.0 - p[:24, NOT_A_POINT].mean())
        counts = p[:, :NOT_A_POINT] + 1e-12  # a strip that is surely no point still gets a (flat) distribution
        dists = counts / counts.sum(axis=1, keepdims=True)
        is_point = 1.0 - p[:, NOT_A_POINT]  # a strip unlike any point: whatever it reads is unsure
        samples = checker_colours(strips, dists, self.geometry)
        sure = empty_sureness(likeness)  # a match near the line overruling the network is a guess, not a fact
        # the two sets' colours: the profile's first, then this frame's by `two_colours`, then by `two_sets`, each
        # tried only when those before it name more than 15 checkers of a set (`two_sets` splits better past glare
        # and mirroring metal, worse on plain boards). A profile's colours go stale as the light changes; a guess
        # then keeps the profile's word on which set is which. With a profile, this frame's `two_colours` are
        # weighed against its colours anyway, and taken where the colour network agrees with them on more stacks
        # (`disagreements`): glass checkers take the colour of what lies under them, and a lamp moves.
        guesses = [lambda: two_colours(list(samples.values())),
                   lambda: two_sets(list(samples.values()), LIGHTNESS_WEIGHT)]
        if self.known_colours:
            known = self.known_colours
            seen = list(samples.values())
            guesses = [lambda: known] + ([lambda guess=guess: named_like(guess(), known, seen) for guess in guesses]
                                         if self.frame_colours else [])
        crops = self.colour_crops(pyramid, strips)
        best = None
        weigh = bool(self.known_colours) and self.frame_colours  # the profile's colours against this frame's
        for k, guess in enumerate(guesses):
            if k >= 2 and best is not None and best[0][0] == 0:
                break  # the fallbacks are for a surplus only
            centres = guess()
            points, bar, p_light = self._colours(crops, norm, dists, is_point, samples, centres)
            points = tuple(replace(read, confidence=read.confidence * float(sure[s])) if empty[s] else read
                           for s, read in enumerate(points))
            surplus = too_many(Stack(read.colour, read.count) for read in (*points, *bar))
            # a fallback (`two_sets`) takes the place of the best so far on a lower surplus only, as before
            key = (surplus, disagreements(samples, centres, p_light) if weigh and k < 2 else math.inf)
            if best is None or key < best[0]:
                best = (key, centres, points, bar, p_light)
            if surplus == 0 and not (weigh and k == 0 and key[1]):  # none to beat: the profile's stand on a tie
                break
        _, centres, points, bar, p_light = best
        lap("colours")
        # the tray model learnt the simulator's board, cut by its standard plane; a board measured otherwise has
        # its trays cut by its own geometry and read by the tray network (every tray the model read as holding
        # checkers on the photoreal development boards was wrong)
        trays, off = (self._read_measured_trays(pyramid, norm, centres) if self.measured
                      else (self._read_trays(image, centres), None))
        lap("trays")
        # the tray network's counts are never sure: they make the counts fifteen below, but take no room here
        evidence = colour_evidence(samples, centres, p_light)  # one weighing for both rules below
        points, bar = _at_most_fifteen(points, bar, None if self.measured else trays, evidence)
        busy = covered_points(p, patterned=self.patterned)
        # on a busy board the seen checkers need not make fifteen: those not seen may be under the hand
        made = _fifteen_a_side(points, bar, dists, colour_chances(evidence),
                               off if busy is None else hidden_or_off(off))
        mended = made != (points, bar)
        points, bar = made
        lap("fifteen")
        bgr = {name: tuple(float(v) for v in cv2.cvtColor(np.uint8([[np.clip(c, 0, 255)]]), cv2.COLOR_LAB2BGR)[0, 0])
               for name, c in centres.items()}
        return ImageReading(points, bar, trays, bgr, busy, time, lap.timings, board,  # type: ignore[arg-type]
                            mended)

    def _colours(self, crops, norm, dists, is_point, samples, centres) -> tuple[tuple, tuple, dict[int, float]]:
        """Points and bar halves read with the two sets' colours `centres`, and the colour network's P(light) of
        the colour `crops` (`colour_crops`)."""
        p_light = {}
        if samples:
            which = np.array(sorted(samples))
            logits = self.colour_network(beside_sets(crops[which], centres["light"], centres["dark"], norm))
            chances = 1 / (1 + np.exp(-np.clip(logits.astype(np.float64), -30, 30)))
            p_light = dict(zip(which.tolist(), chances.tolist()))
        if self.orientation is not None:
            # both halves, seen holding checkers or not: the counts made fifteen may put some there
            for strip, top in ((BAR_TOP, True), (BAR_BOTTOM, False)):
                p_light[strip] = placed_light(self.orientation, self.orientation.bar_owner(top))
        # a profile's colours are the network's reference sets; they no longer overrule it (since session 23's
        # colour network, overruling lost points on every photoreal development set, as the light changes)
        points = tuple(_slot(dists[s], samples.get(s), centres, is_point[s], p_light.get(s)) for s in range(24))
        bar = tuple(_half(dists[24 + h], samples.get(24 + h), centres, is_point[24 + h], p_light.get(24 + h))
                    for h in (0, 1))
        return points, bar, p_light

    def _read_trays(self, image: np.ndarray, centres: dict[str, np.ndarray]) -> dict | None:
        side = self.trays or tray_side(image, self.plane)
        h, w = image.shape[:2]
        x0, y0, x1, y1 = _tray_rect(side)
        corners = self.plane.to_image_points([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        if not all(0 <= x < w and 0 <= y < h for x, y in corners):
            return None
        top, bottom = tray_halves(image, self.plane, side)
        return {side: (_tray_half(top, centres, self.trays_model), _tray_half(bottom, centres, self.trays_model))}

    def _read_measured_trays(self, image: Pyramid, norm: tuple[np.ndarray, float], centres: dict[str, np.ndarray]
                             ) -> tuple[dict[str, tuple[HalfRead, HalfRead]] | None, np.ndarray | None]:
        """Both sides' tray halves read by the tray network, or the profile's side only, and how likely each count
        borne off is per set (`off_chances`); (None, None) where the trays are not in the picture. Without a
        profile the side is left to whoever knows the orientation (`ImageReading.to_board_reading`): from the
        picture alone (`tray_side`) it was right on about two photoreal frames in three. The counts are made
        fifteen with the side `home_halves` names, as `read --json` reports it."""
        h, w = image.level(0).shape[:2]
        inner = self._tray_corners
        in_picture = {side for side in ("left", "right")
                      if all(np.all((inner[k] >= 0) & (inner[k] < (w, h))) for k, (s, _) in enumerate(HALVES)
                             if s == side)}
        wanted = {self.trays} if self.trays else {"left", "right"}
        if not wanted & in_picture:
            return None, None  # a half cut past the picture's edge would read its repeated edge as an empty tray
        counts, first = self.tray_network.outputs(beside_sets(self.tray_cutter.cut(image), centres["light"],
                                                              centres["dark"], norm))
        e = np.exp(counts.astype(np.float64) - counts.max(axis=1, keepdims=True))
        dists = e / e.sum(axis=1, keepdims=True)
        p_light = 1 / (1 + np.exp(-np.clip(first.astype(np.float64), -30, 30)))
        if self.orientation is not None:
            p_light = np.array([placed_light(self.orientation, self.orientation.tray_owner(top)) for _, top in HALVES])
        found: dict[str, list[HalfRead]] = {}
        for k, (side, _) in enumerate(HALVES):
            count, low, high = _spread(dists[k])
            colour = None if count == 0 else "light" if p_light[k] >= 0.5 else "dark"
            sure = min(float(dists[k, count]), TRAYS_SURE_AT_MOST)
            found.setdefault(side, []).append(HalfRead(colour, count, sure, low, high))
        sides = {side: (halves[0], halves[1]) for side, halves in found.items() if side in wanted & in_picture}
        home = home_halves(sides)
        assert home is not None
        rows = [k for k, (side, _) in enumerate(HALVES) if side in home]
        return sides, off_chances(dists[rows], p_light[rows])


PLACE_SAYS_OWNER = 1.0
"""How sure a bar or tray half's place makes its set, where the orientation is known: a player's checkers wait on
the bar in the half towards the points he enters on and are borne off into the tray half on his side."""


def placed_light(orientation: Orientation, player: int) -> float:
    """The chance that `player`'s half of the bar or the trays holds the light set, by its place alone."""
    return PLACE_SAYS_OWNER if orientation.colour_of(player) == "light" else 1.0 - PLACE_SAYS_OWNER


def checker_colours(strips: np.ndarray, dists: np.ndarray, geometry: BoardGeometry) -> dict[int, np.ndarray]:
    """Each strip's checker colour (Lab) where it probably holds checkers: the median over the middles of the
    checkers of its first column (glare that washes one checker out rarely washes them all)."""
    diameter = geometry.checker / geometry.point_width * PX_PER_POINT
    col = STRIP_W // 2
    owners, windows = [], []
    for s in np.nonzero(dists[:, 0] < 0.5)[0]:
        for k in range(int(min(5, max(1, np.argmax(dists[s]))))):
            row = int(round(BEFORE * PX_PER_POINT + (k + 0.5) * diameter))
            if row + 4 > strips.shape[1]:
                break
            owners.append(int(s))
            windows.append(strips[s, row - 3:row + 4, col - 3:col + 4])
    if not windows:
        return {}
    lab = cv2.cvtColor(np.concatenate(windows, axis=0), cv2.COLOR_BGR2LAB).reshape(len(windows), -1, 3)
    middles = np.median(lab.astype(np.float32), axis=1)
    owner = np.array(owners)
    return {s: np.median(middles[owner == s], axis=0).astype(np.float64) for s in np.unique(owner).tolist()}


LIGHTNESS_WEIGHT = 0.5
"""Lightness counts half in telling the sets apart: glare and shade change a checker's lightness, rarely its hue."""


def named_like(centres: dict[str, np.ndarray], known: dict[str, np.ndarray],
               samples: Sequence[np.ndarray] = ()) -> dict[str, np.ndarray]:
    """`centres` named the other way round when that puts the pair nearer the `known` sets of their names (Lab,
    lightness weighed as in `_set_distances`): a guess made by lightness alone may call a profile's light set dark.
    When no sample (`samples`, the checkers' colours the guess was made from) lies nearer one centre than the
    other, the guess saw one set only and made the other up (`one_set_colours`): the set it saw is named alone,
    by the nearer known set."""
    seen = {name: 0 for name in centres}
    for sample in samples:
        d_light, d_dark = _set_distances(sample, centres)
        seen["light" if d_light <= d_dark else "dark"] += 1
    names = [name for name, count in seen.items() if count] if len(samples) else ["light", "dark"]
    kept = sum(_set_distances(centres[name], known)[name == "dark"] for name in names)
    swapped = sum(_set_distances(centres[name], known)[name == "light"] for name in names)
    return centres if kept <= swapped else {"light": centres["dark"], "dark": centres["light"]}


def _set_distances(sample: np.ndarray, centres: dict[str, np.ndarray]) -> tuple[float, float]:
    """A colour sample's distances (Lab, lightness weighed by `LIGHTNESS_WEIGHT`) to the light and the dark set."""
    to_light, to_dark = (sample - centres["light"]) * _WEIGHTS, (sample - centres["dark"]) * _WEIGHTS
    # np.linalg.norm's own sum, without its checks: a few microseconds, some fifty times a frame
    return math.sqrt(to_light.dot(to_light)), math.sqrt(to_dark.dot(to_dark))


_WEIGHTS = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])


def disagreements(samples: dict[int, np.ndarray], centres: dict[str, np.ndarray], p_light: dict[int, float]) -> int:
    """The points whose checkers' colour is nearer one of the two sets `centres` while the colour network, given
    those centres, names the other: fewer with the references that fit the frame. Weighing a profile's colours
    against the frame's own by it read 0.13 points more, calibrated, on 20 photoreal development sets as drawn, and
    0.04 on 16 steady ones (0.08 mounted; docs/VISION.md, session 38)."""
    out = 0
    for s, sample in samples.items():
        if s < 24 and s in p_light:
            d_light, d_dark = _set_distances(sample, centres)
            out += (d_light <= d_dark) != (p_light[s] >= 0.5)
    return out


def _colour(sample: np.ndarray, centres: dict[str, np.ndarray], p_light: float | None) -> tuple[str, float]:
    """Light or dark, and how sure: by the nearer set's colour, checked by the colour network (which sees rims,
    shading and glare). When the two disagree the network decides and the reading is marked unsure."""
    d_light, d_dark = _set_distances(sample, centres)
    colour, near, far = ("light", d_light, d_dark) if d_light <= d_dark else ("dark", d_dark, d_light)
    sure = min(max(2 * (far - near) / (far + near + 1e-6), 0.0), 1.0)
    if p_light is None:
        return colour, sure
    model, model_sure = ("light" if p_light >= 0.5 else "dark"), abs(p_light - 0.5) * 2
    if model == colour:
        return colour, max(sure, model_sure)
    return model, 0.0 if sure > 0.3 else model_sure * (1 - sure)


def colour_evidence(samples: dict[int, np.ndarray], centres: dict[str, np.ndarray],
                    p_light: dict[int, float]) -> list[ColourEvidence]:
    """Each of the 26 places' colour evidence: the colour network's P(light) and its colour sample's distances to
    the two sets `centres`; what `_at_most_fifteen` renames by and `colour_chances` gives the counts."""
    return [ColourEvidence(p_light.get(s), *(_set_distances(samples[s], centres) if s in samples else ()))
            for s in range(26)]


def colour_chances(evidence: Sequence[ColourEvidence]) -> dict[int, float]:
    """Each place's chance that its checkers are the light set, for the counts made fifteen, where the colour
    network read it: on a point, the network's word weighed with the nearer set's (`ColourEvidence.chance_of_light`,
    as `_at_most_fifteen` weighs a renaming); a bar half keeps its own chance (its place's word, with a profile)."""
    return {s: (e.chance_of_light() if s < 24 and e.to_light is not None else e.p_light)
            for s, e in enumerate(evidence) if e.p_light is not None}


def _at_most_fifteen(points, bar, trays, evidence: Sequence[ColourEvidence]):
    """The reading with no set over 15 checkers (`checker_sets`): stacks whose colour evidence (`colour_evidence`)
    is weakest are named the other set when one set reads too many. Bar halves count but keep their set (their place
    says whose they are); checkers seen in the trays take room from the set that would receive the flipped stacks."""
    stacks = [Stack(read.colour, read.count, read.low) for read in points]
    stacks += [Stack(half.colour, half.count, half.low, may_flip=False) for half in bar]
    off = {"light": 0, "dark": 0}
    for halves in (trays or {}).values():
        for half in halves:
            if half.colour in off:
                off[half.colour] += half.count
    flipped = set(stacks_to_flip(stacks, evidence, off))
    if not flipped:
        return points, bar
    return tuple(flip(read) if s in flipped else read for s, read in enumerate(points)), bar


TRAY_INNER = 2.5
"""Point widths of a tray half, out from the playing area, that must lie in the picture (from the board's middle to
nine tenths of the way to its edge) for it to be read: the frame and the tray of most builds (the cut reaches 4)."""


def tray_corners(corners, geometry: BoardGeometry) -> np.ndarray:
    """Where the inner part of each tray half (`TRAY_INNER`) lies in the image: (4, 4, 2)."""
    frames = tray_frames(geometry)
    h = mm_to_image(corners, geometry)
    out = np.empty((len(frames), 4, 2))
    length = (TRAY_BEFORE + 0.45 * geometry.play_height / geometry.point_width) * TRAY_PX_PER_POINT
    for k, (origin, across, along) in enumerate(frames):
        wide, long = across * TRAY_INNER * TRAY_PX_PER_POINT, along * length
        mm = np.array([origin, origin + wide, origin + wide + long, origin + long])
        out[k] = cv2.perspectiveTransform(mm[None].astype(np.float64), h)[0]
    return out


TRAYS_SURE_AT_MOST = 0.5
"""A tray half read by the tray network is never sure (the referee's line is 0.8): a twentieth of its sure readings
on the development boards were wrong, and they kept the referee from plays the points told. Its counts still
make each set fifteen (`off_chances`) and are reported."""
TRAYS_TRUSTED = 0.8
"""How far the counts are made fifteen by the trays' chances (`holding_then_count`'s); the rest by `off_prior` (a
tray network wrong surely must not move a point's count on its own)."""


def off_chances(dists: np.ndarray, p_light: np.ndarray) -> np.ndarray:
    """P(k borne off), k = 0..15, for the light and the dark set, from the two halves of the trays' side (`dists`
    2x16, `p_light` each half's chance that its checkers are the light set): the halves are the two sets', which is
    which told by the halves that hold checkers."""
    holding = 1.0 - dists[:, 0]
    weight = float(holding.sum())
    first_light = 0.5 if weight < 1e-6 else float((holding[0] * p_light[0] + holding[1] * (1 - p_light[1])) / weight)
    light = first_light * dists[0] + (1 - first_light) * dists[1]
    dark = first_light * dists[1] + (1 - first_light) * dists[0]
    return trusted_trays(np.vstack([light, dark]))


def trusted_trays(per_set: np.ndarray) -> np.ndarray:
    """The trays' chances per set (2x16) as the counts made fifteen take them: their word on whether a set has borne
    off, half of it on how many (`holding_then_count`), trusted `TRAYS_TRUSTED` against `off_prior`."""
    return TRAYS_TRUSTED * holding_then_count(per_set) + (1 - TRAYS_TRUSTED) * off_prior()[None, :]


TRAY_COUNT_WORD = 0.5
"""How far the tray network's count is taken once it says a set has borne off; the rest is any count alike. On the
photoreal development boards (40 sets, uncalibrated, frames without a hand) a set with checkers borne off had its
tray read as holding some 191 times in 284 and with the right count 38 times; of 1,784 with none, 1,762 were read
empty: whether a tray holds checkers it tells better than how many. 0.5 read 0.07 points more than 1.0 (the count
at its word) uncalibrated, 0.06 calibrated and 0.05 at a mounted camera's corners (docs/VISION.md, session 39)."""


def holding_then_count(off: np.ndarray) -> np.ndarray:
    """Each row's P(k borne off) with its chance of none kept and, given some, its counts weighed by
    `TRAY_COUNT_WORD` against any count 1..15 alike: the board's own shortfall then says how many. Keeping half the
    count's word still tells three borne off from two where a strip half-allows a lone checker to be two (the
    false accusation of session 29)."""
    some = off[:, 1:]
    total = some.sum(axis=1, keepdims=True)
    given_some = np.where(total > 1e-12, some / np.maximum(total, 1e-12), 1.0 / some.shape[1])  # no word: alike
    given_some = TRAY_COUNT_WORD * given_some + (1 - TRAY_COUNT_WORD) / given_some.shape[1]
    return np.hstack([off[:, :1], (1 - off[:, :1]) * given_some])


HIDDEN_ANY = 0.75
"""On a busy board, how much of a set's checkers not seen is "any number, under the hand" rather than borne off
as the trays or `off_prior` say. On the busy frames of the 16 photoreal development sets (corners given,
uncalibrated; 171 frames), 0.75 read 17 more points right and 13 more frames fully right than leaving the counts
as seen; 0.7-0.9 within 5 points of it; forcing fifteen as on a clear board read 22 points fewer than leaving
them (calibrated, 6 sets: 0.75 +7 points, 0.85-0.9 +11-12)."""


def hidden_or_off(off: np.ndarray | None) -> np.ndarray:
    """P(k of a set not seen), k = 0..15, light and dark, on a board a hand covers in part: the borne-off chances
    (`off`, else `off_prior`) mixed with any number equally likely (`HIDDEN_ANY`)."""
    borne = np.vstack([off_prior(), off_prior()]) if off is None else np.asarray(off, np.float64)
    return (1 - HIDDEN_ANY) * borne + HIDDEN_ANY / borne.shape[1]


def _fifteen_a_side(points, bar, dists, chances, off=None):
    """The reading with the counts that together make fifteen a set, the borne-off ones included
    (`checker_sets.counts_making_fifteen`; on a busy board `off` is `hidden_or_off`'s, so at most fifteen); a place
    so changed is less sure: the whole board chose its count. The colour chances (`colour_chances`: every place
    holding checkers has one) are the evidence `_at_most_fifteen` weighed, so a stack it renamed may be renamed
    back, and a stack whose network and nearer set disagree (read by the network, `_colour`) may be renamed on
    their weighed word though the totals do not ask it, marking the board mended (naming it so in `_colour` as
    well read fewer points; docs/VISION.md, session 39); a bar half may change set too, and the referee then takes
    it as unsure."""
    places = (*points, *bar)
    best = counts_making_fifteen(dists, [chances.get(s, 0.5) for s in range(len(places))], off)
    out = []
    for read, (colour, count) in zip(places, best):
        if (read.colour if read.count else None, read.count) == (colour, count):
            out.append(read)
            continue
        out.append(replace(read, colour=colour, count=count, low=min(read.low, count),
                           high=max(read.high, count), confidence=read.confidence * FLIPPED_CONFIDENCE))
    return tuple(out[:24]), tuple(out[24:])


def _slot(dist: np.ndarray, sample: np.ndarray | None, centres, is_point: float,
          p_light: float | None) -> SlotRead:
    best, low, high = _spread(dist)
    mass = min(1.0, float(dist[low:high + 1].sum())) * is_point
    if high == 0:
        return SlotRead(None, 0, 0, 0, mass)
    if sample is None:
        return SlotRead(None, 0, 0, high, float(dist[0]))
    colour, sure = _colour(sample, centres, p_light)
    return SlotRead(colour, best, low, high, float(mass * min(1.0, 1.5 * sure)))


def _half(dist: np.ndarray, sample: np.ndarray | None, centres, is_point: float,
          p_light: float | None) -> HalfRead:
    best, low, high = _spread(dist)
    if best == 0 or sample is None:
        return HalfRead(None, 0, float(dist[0]) * is_point, 0, high)
    colour, sure = _colour(sample, centres, p_light)
    return HalfRead(colour, best, float(dist[best] * min(1.0, 1.5 * sure) * is_point), low, high)


def covered_points(p: np.ndarray, patterned: bool = False) -> str | None:
    """What `busy` says when something lies over a few points and the rest are points; None when nothing covers
    the board. `p`: the network's probabilities for the 26 strips. A hand shows as one point surely "not a point"
    or as neighbours that both look it: a patterned board (tiles and grout, veined marble) reads a scattered point
    or two as half-likely "not a point", and taking those for a hand kept its frames from the referee. On a board
    calibration found `patterned`, even a sure point or two half-likely neighbours are its pattern's: only two
    neighbours both surely covered (`PATTERN_HAND`) are a hand."""
    not_a_point = p[:24, NOT_A_POINT]
    covered = int((not_a_point > COVERED_LEAST).sum())
    if not 0 < covered <= COVERED_MOST:
        return None
    if patterned:
        if not _neighbours(np.nonzero(not_a_point >= PATTERN_HAND)[0]):
            return None
    elif not_a_point.max() < HAND_SURE and not _neighbours(np.nonzero(not_a_point > NEIGHBOURS_LEAST)[0]):
        return None
    return f"a hand or something over the board ({covered} point{'s' if covered > 1 else ''} covered)"


def _neighbours(slots: np.ndarray) -> bool:
    """Whether two of the image slots are side by side along one edge (across the bar counts: a hand spans it)."""
    taken = set(slots.tolist())
    return any(s + 1 in taken and (s < 12) == (s + 1 < 12) for s in taken)


__all__ = ["BOARD_LEAST", "COLOUR_ROWS", "FIRST_CHECKER", "GIVEN_LEAST", "HIDDEN_ANY", "PATTERN_HAND",
           "TRAYS_SURE_AT_MOST", "TRAYS_TRUSTED", "TRAY_COUNT_WORD", "StripReader", "checker_colours",
           "colour_chances", "colour_evidence", "covered_points", "hidden_or_off",
           "holding_then_count", "off_chances", "trusted_trays"]
