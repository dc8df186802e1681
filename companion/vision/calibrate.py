"""Calibration: one frame of the board set up for a game becomes a `Profile`.

The playing area is found by the markers (with the corners given once, or found), by corners given by hand, or
from the board alone. The checkers of a known position (the starting position unless told otherwise) then say
everything else: how wide this board's bar is (so where its points lie), its two sets' colours, which set is
lighter, which side each player sits on, and where each home board is. The profile is checked by reading the
position back through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product

import numpy as np

from companion.errors import CompanionError
from companion.referee.observations import BoardReading
from companion.rules import Position
from companion.vision.empty_looks import EmptyLooks
from companion.vision.markers import IDS, MarkerFrame, find_markers
from companion.vision.orientation import COLOURS, Orientation
from companion.vision.plane import Corners, Plane
from companion.rules.layout import BoardGeometry
from companion.vision.profile import READERS, Profile
from companion.vision.reader import BoardReader, ImageReading, tray_side


class CalibrationError(CompanionError):
    """The frame does not show a board in its starting position where it was looked for."""


class PositionNotRead(CalibrationError):
    """The photo does not read as the known position: what `trust` overrides when the user vouches for it."""


@dataclass(frozen=True)
class Calibration:
    profile: Profile
    reading: ImageReading
    how: str
    """How the playing area was found, in words."""
    warning: str | None = None
    """What the user should know: what the profile still reads wrong on its own photo (a checker or two whose colour
    glare washed out, or, calibrated on the user's word, the points it reads otherwise), empty points forgiven, a
    patterned board."""
    vouched: bool = False
    """Calibrated on the user's word (`trust`): the photo alone did not show the position."""


def start_orientations(reading: ImageReading) -> list[Orientation]:
    """Every orientation under which `reading` is the starting position (none, or two mirror images: the start
    looks the same with the players and their colours swapped)."""
    return orientations_of(reading, BoardReading.from_position(Position.start(), 0, trays=False))


def _strip_counts(board: BoardReading, o: Orientation) -> list[int]:
    counts = [board.points[o.point_of_slot(s) - 1].count for s in range(24)]
    return counts + [board.bar[o.bar_owner(top)].count for top in (True, False)]


def _looks_swapped(board: BoardReading, o: Orientation, mirror: Orientation) -> bool:
    """Whether `board` seen under `mirror` shows the same counts as under `o`, each in the other set's colour."""
    for s in range(24):
        a, b = board.points[o.point_of_slot(s) - 1], board.points[mirror.point_of_slot(s) - 1]
        if a.count != b.count or (a.count and a.owner == b.owner):  # (o and mirror name player 0's colour alike)
            return False
    return _strip_counts(board, o)[24:] == _strip_counts(board, mirror)[24:]


def known_counts(board: BoardReading) -> list[list[int]]:
    """The checkers per strip (points in image order, then the bar's top and bottom halves) that `board` shows, for
    each way round the camera may see it, colours aside: what the board's measurements are fitted to."""
    patterns = []
    for bottom, home_right in product((True, False), (True, False)):
        o = Orientation(bottom, home_right)
        counts = [board.points[o.point_of_slot(s) - 1].count for s in range(24)]
        counts += [board.bar[o.bar_owner(top)].count for top in (True, False)]
        if counts not in patterns:
            patterns.append(counts)
    return patterns


def measure(image: np.ndarray, corners: Corners, board: BoardReading) -> BoardGeometry:
    """This board's geometry, fitted so that the strips read `board` (a known position) best."""
    from companion.vision.geometry import fit_bar, score
    from companion.vision.strip_reader import StripReader

    fits = []
    for counts in known_counts(board):
        geometry = fit_bar(image, corners, counts=counts)
        fits.append((score(StripReader(corners, geometry).probabilities(image), counts), geometry))
    return max(fits, key=lambda fit: fit[0])[1]


def calibrate(image: np.ndarray, *, corners: Corners | None = None, player0: str | None = None,
              markers: bool | None = None, reader: str = "strips", position: BoardReading | None = None,
              labels: Sequence[tuple[str | None, int]] | None = None,
              geometry: BoardGeometry | None = None, adapt: bool = False, learn_empty: bool = True,
              trust: bool = False) -> Calibration:
    """`player0`: 'light' or 'dark' when known; otherwise player 0 is whoever sits at the bottom of the picture.
    `markers`: None uses them when all four are in the frame. `reader`: 'strips' measures the board and reads it
    with the strip network, 'classic' assumes the simulator's board. `position`: what the board shows (player 0's
    side as given), the starting position by default. `labels`: instead, each point's colour and count in image
    order, as `companion read --json` lists them (a reading the user corrected); player 0 then sits at the bottom.
    `geometry`: the board's measurements when known (else measured). `adapt`: fit the strip network's last layer to
    this board's look (`companion.vision.adapt`); off by default: on the photoreal development boards it read
    fewer points right than the shipped layer (docs/VISION.md, session 22). `learn_empty`: keep the look of each
    point the position leaves empty (`companion.vision.empty_looks`; strips reader): a point the network took for
    covered on this photo is then forgiven, and read empty while it looks so. `trust`: the board is set up as
    `position` says whatever the photo reads (strips reader, not with `labels`): where the reading does not show
    it, the way round is the one under which most points read their counts (`trusted_orientations`), and a
    profile that does not read the position back is kept, the points it reads otherwise said as a warning, as long
    as it reads near enough (`near_enough`); no point the photo reads covered is then learnt as empty."""
    if reader not in READERS:
        raise CalibrationError(f"the reader is one of {', '.join(READERS)}, not {reader!r}")
    if trust and (reader != "strips" or labels is not None):
        raise CalibrationError("calibrating on the user's word goes with the strips reader and a known position "
                               "(labels are the user's word already)")
    target = position or BoardReading.from_position(Position.start(), 0, trays=False)
    found = find_markers(image)
    use_markers = len(found) == len(IDS) if markers is None else markers
    if markers and len(found) < len(IDS):
        raise CalibrationError(f"only {len(found)} of the 4 corner markers are in the frame")
    if corners is not None:
        how = "corners given"
    else:
        from companion.vision.locate import playing_area

        corners = playing_area(image)
        how = "found from the board"
    localisation = "markers" if use_markers else "corners"
    marker_corners = MarkerFrame.learn(image, corners).corners if use_markers else None
    if use_markers:
        how += ", followed by the markers"
    side = tray_side(image, Plane.from_corners(corners))
    if labels is not None:
        return _calibrate_on_labels(image, corners, labels, side, player0 or "light", how,
                                    (localisation, marker_corners), geometry, adapt, learn_empty)
    if reader == "strips":
        from companion.vision.strip_reader import StripReader

        geometry = geometry or measure(image, corners, target)
        reading = StripReader(corners, geometry, trays=side).read(image)
    else:
        geometry = None
        reading = BoardReader(corners, trays=side).read(image)
    if reading.busy and reader != "strips":
        raise CalibrationError(f"{reading.busy}: calibrate with nothing over the board")
    # the strip network may take a pattern or a shadow for something over the board: the profile reading the
    # position back (below) is the test that matters, and says what covered the board if it fails
    covered = f" ({reading.busy}?)" if reading.busy else ""
    choices = orientations_of(reading, target)
    if not choices and reader == "strips":
        # every count right but some colours wrong before this board's sets are measured: the way round from the
        # counts; the profile must then read the position back (`differences`)
        choices = likeliest_orientations(reading, target)
    if not choices and reader == "strips" and learn_empty:
        # some points the position leaves empty read covered (veins, grain, glare): the way round from the
        # points it puts checkers on; those empty points' looks are then learnt from this photo
        choices = likeliest_orientations(reading, target, forgive_empty=EMPTY_FORGIVEN)
    if not choices and reader == "strips":
        # a stack whose count the reading itself doubted (its range allows the position's count): the way round
        # from the rest; the profile reading the position back decides
        choices = likeliest_orientations(reading, target, forgive_empty=EMPTY_FORGIVEN if learn_empty else 0,
                                         forgive_doubted=DOUBTED_FORGIVEN)
    what = "its starting position" if position is None else "the position given"
    trusted = []
    if not choices and trust:
        choices = trusted_orientations(reading, target)
        if not choices:
            raise CalibrationError(f"even taken as set up, the board does not read near enough to {what} "
                                   f"({_describe(reading)}){covered}, or two ways round read alike: check the "
                                   "corners and the position")
        trusted = [f"the photo reads it otherwise ({_describe(reading)})"]
    if not choices:
        raise PositionNotRead(f"the board is not in {what} as read ({_describe(reading)}){covered}: "
                              "set it up, light it evenly and try again")
    if player0 is not None:
        choices = [o for o in choices if o.player0_colour == player0]
        if not choices:
            raise CalibrationError(f"player 0 cannot have the {player0} checkers in the position given")
    else:
        choices = [o for o in choices if o.player0_at_bottom] or choices
    orientation = choices[0]
    h, w = image.shape[:2]
    head = None
    if reader == "strips" and adapt:
        counts = [target.points[orientation.point_of_slot(s) - 1].count for s in range(24)]
        counts += [target.bar[orientation.bar_owner(top)].count for top in (True, False)]
        head = adapted_head(image, corners, geometry, counts)
    colours = dict(reading.colours)
    if reader == "strips":
        geometry = measured_sizes(image, corners, geometry, orientation, target)
    measured = measured_colours(image, corners, geometry, orientation, target) if reader == "strips" else None
    if measured is not None:
        colours, lighter = measured
        if player0 is None:
            orientation = replace(orientation, player0_colour=lighter)
        elif lighter != player0:
            # player 0's set is the other one: the board lies the other way round, if the position looks the same
            # that way (the start does); else the user's word names the sets
            mirror = Orientation(not orientation.player0_at_bottom, not orientation.home_right, player0)
            if _looks_swapped(target, orientation, mirror):
                orientation = mirror
                colours, _ = measured_colours(image, corners, geometry, orientation, target) or (colours, None)
            else:
                colours = {"light": colours["dark"], "dark": colours["light"]}
    # the trays lie beside the home boards, which the known position has just placed (the picture's own tray test
    # guessed right on 29 of 41 photoreal starting frames)
    side = "right" if orientation.tray_on_right() else "left"
    looks_said, patterned = [], False
    chances = None
    if reader == "strips":
        chances = photo_chances(image, corners, geometry, head)
        patterned = looks_patterned(chances)

    def profile_learning(empty_if_read_so: bool) -> tuple[Profile, list[str]]:
        """The profile, with the looks of the points `target` leaves empty (`empty_if_read_so`: only those the photo
        reads empty too, as when the user's word is all that says they are)."""
        looks, said = None, []
        if reader == "strips" and learn_empty:
            empty = [target.points[orientation.point_of_slot(s) - 1].count == 0
                     and not (empty_if_read_so and reading.points[s].count) for s in range(24)]
            looks, said = learn_empty_looks(image, corners, geometry, empty, reading,
                                            lambda s: f"point {orientation.point_of_slot(s)}", chances, patterned)
        return Profile(corners, orientation, localisation, marker_corners, (w, h), side, colours, reader=reader,
                       geometry=geometry, head=head, empty_looks=looks, patterned=patterned), said

    profile, looks_said = profile_learning(bool(trusted))
    counts_wrong, colours_wrong, doubted = read_back(profile, image, target)
    unread = bool(counts_wrong) or len(colours_wrong) > COLOURS_FORGIVEN or len(doubted) > DOUBTED_FORGIVEN
    if unread and not trust:
        raise PositionNotRead(f"the profile does not read the position back: "
                              f"{', '.join(counts_wrong + doubted + colours_wrong)}{covered}")
    warnings, vouched = list(trusted), bool(trusted)
    if unread:  # told the board is set up so: kept, and what it reads otherwise said
        if not trusted:  # a point forgiven for reading covered may hold the checkers a stack misses: not learnt
            profile, looks_said = profile_learning(True)
            counts_wrong, colours_wrong, doubted = read_back(profile, image, target)
        otherwise = sorted(counts_wrong + doubted + colours_wrong, key=_number)
        if not near_enough([_number(name) for name in counts_wrong + doubted], target):
            raise CalibrationError(f"even taken as set up, the profile reads {_listed(otherwise)} otherwise than "
                                   f"{what}{covered}: check the corners and the position")
        if otherwise:
            warnings.append(f"on this photo the profile reads {_listed(otherwise)} otherwise than {what}")
            vouched = True
        counts_wrong, colours_wrong, doubted = [], [], []
    if doubted:  # the reading's own range holds the position's count: a doubted stack, said, not refused
        warnings.append(f"on this photo the profile doubts the count of {_listed(doubted)} (its best guess is "
                        "another, its range holds the position's): make sure the position is set up as given")
    if colours_wrong:  # glare on one stack is no reason to refuse a board whose every count reads right
        warnings.append(f"on this photo the profile reads the colour of {', '.join(colours_wrong)} wrong "
                        "(glare or shade on that stack?); the counts all read right")
    if profile.patterned:
        warnings.append(PATTERNED_SAID)
    return Calibration(profile, reading, how, "; ".join(warnings + looks_said) or None, vouched=vouched)


def learn_empty_looks(image: np.ndarray, corners: Corners, geometry: BoardGeometry, empty: Sequence[bool],
                      reading: ImageReading, name, chances: np.ndarray, patterned: bool = False
                      ) -> tuple[EmptyLooks, list[str]]:
    """The looks of the points `empty` says are empty (image order), and what to tell the user of them. A point
    the network calls "not a point" (a hand, a sleeve; `chances`, its `photo_chances` on this photo) gets no look:
    it would teach a hand as that point's empty look, and hide the next hand there; confirmed positions give it one
    later. On a `patterned` board such points are its pattern's, and said so. `name(slot)` names a point."""
    from companion.vision.strip_reader import COVERED_LEAST, NOT_A_POINT

    covered = chances[:24, NOT_A_POINT] >= COVERED_LEAST
    learn = [e and not c for e, c in zip(empty, covered)]
    said = []
    looked_covered = [name(s) for s in range(24) if learn[s] and reading.points[s].count]
    if looked_covered:
        one = len(looked_covered) == 1
        said.append(f"{_listed(looked_covered)}, empty in the position, looked covered to the network on this "
                    f"photo; {'its' if one else 'their'} empty look is learnt from it: make sure "
                    f"{'it is' if one else 'they are'} empty")
    hidden = [name(s) for s in range(24) if empty[s] and covered[s]]
    if hidden and patterned:
        said.append(f"{_listed(hidden)} looked covered with nothing over the board (its pattern): no empty look is "
                    "learnt there yet")
    elif hidden:
        said.append(f"something seemed to lie over {_listed(hidden)} (a hand?): no empty look is learnt there yet")
    return EmptyLooks.none().learnt(image, corners, geometry, learn), said


PATTERNED_POINTS = 2
"""Points of the calibration photo (nothing over the board) that the strip network must take for covered before the
board counts as patterned: one can be a shadow or corners a little off (several plain development boards' starts
read one point over 0.5, one of them only with its corners 2 px off); tiles and veins show at several."""
PATTERNED_SAID = ("the board's pattern looks like something over its points to the reader: a hand pauses the "
                  "reading only where it plainly covers two neighbouring points")


def photo_chances(image: np.ndarray, corners: Corners, geometry: BoardGeometry, head=None) -> np.ndarray:
    """The strip network's chances (26 strips, counts and "not a point") on the calibration photo, with the
    profile's adapted last layer if it has one: what the empty looks and the pattern test are judged on, once."""
    from companion.vision.strip_reader import StripReader

    return StripReader(corners, geometry, head=head).probabilities(image)


def looks_patterned(chances: np.ndarray) -> bool:
    """Whether `PATTERNED_POINTS` points or more of the calibration photo look covered to the strip network
    (`chances`, `photo_chances`; over `strip_reader.COVERED_LEAST`, as `covered_points` counts them) with no plain
    hand among them: the board's own pattern (tiles, veins) looks like a hand, and only a plainer hand makes its
    frames busy. A plain hand on the photo (two neighbouring points surely covered) tells nothing of the pattern:
    the board is then taken as plain, so that the next hand is not missed."""
    from companion.vision.strip_reader import COVERED_LEAST, NOT_A_POINT, covered_points

    covered = int((chances[:24, NOT_A_POINT] > COVERED_LEAST).sum())
    return covered >= PATTERNED_POINTS and covered_points(chances, patterned=True) is None


def measured_colours(image: np.ndarray, corners: Corners, geometry: BoardGeometry, orientation: Orientation,
                     target: BoardReading) -> tuple[dict[str, tuple[float, float, float]], str] | None:
    """Each set's colour (BGR) on this board, from the checkers the known position puts where (better than telling
    two sets apart in a reading that may have some wrong), and which of them player 0's is: the lighter set is
    "light" by what the photo shows, whatever a glare-struck reading said."""
    import cv2

    from companion.vision.strip_reader import StripReader, checker_colours

    reader = StripReader(corners, geometry)
    strips = reader.cutter.cut(image)
    dists = np.zeros((26, 16))
    owners: dict[int, int] = {}
    for s in range(24):
        point = target.points[orientation.point_of_slot(s) - 1]
        dists[s, min(point.count, 15)] = 1.0
        if point.count:
            owners[s] = point.owner
    dists[24:, 0] = 1.0
    samples = checker_colours(strips, dists, geometry)
    centres = []
    for player in (0, 1):
        lab = [samples[s] for s, owner in owners.items() if owner == player and s in samples]
        if not lab:
            return None
        centres.append(np.clip(np.median(np.array(lab), axis=0), 0, 255).astype(np.uint8))
    player0 = "light" if centres[0][0] >= centres[1][0] else "dark"
    bgr = [tuple(float(v) for v in cv2.cvtColor(c.reshape(1, 1, 3), cv2.COLOR_LAB2BGR)[0, 0]) for c in centres]
    other = "dark" if player0 == "light" else "light"
    return {player0: bgr[0], other: bgr[1]}, player0


def measured_sizes(image: np.ndarray, corners: Corners, geometry: BoardGeometry, orientation: Orientation,
                   target: BoardReading) -> BoardGeometry:
    """`geometry` with this board's checker diameter and point length measured on the known position."""
    import cv2

    from companion.vision.geometry import measure_checkers_and_points

    first = measured_colours(image, corners, geometry, orientation, target)
    if first is None:
        return geometry
    colours, player0 = first
    other = "dark" if player0 == "light" else "light"
    lab = [cv2.cvtColor(np.uint8([[colours[name]]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
           for name in (player0, other)]  # player 0's set, player 1's
    counts = _strip_counts(target, orientation)
    checker_lab = []
    for s in range(24):
        point = target.points[orientation.point_of_slot(s) - 1]
        checker_lab.append(lab[point.owner] if point.count else np.zeros(3, np.float32))
    return measure_checkers_and_points(image, corners, geometry, counts, checker_lab)


CUTS = 16
"""Jittered cuts of the calibration photo that the last layer is adapted on."""


def adapted_head(image: np.ndarray, corners: Corners, geometry: BoardGeometry, counts: Sequence[int]):
    """The strip network's last layer fitted to this board: the photo cut `CUTS` times with jittered frames, as
    in training, each strip labelled with its known count (-1 unknown)."""
    from companion.vision.adapt import adapt_head, shipped_head
    from companion.vision.reader import MODELS
    from companion.vision.strip_reader import StripReader
    from companion.vision.strips import jittered_frames

    rng = np.random.default_rng(0)
    reader = StripReader(corners, geometry)
    known = np.array(counts) >= 0
    hidden = np.concatenate([reader.hidden(image, jittered_frames(geometry, rng))[known] for _ in range(CUTS)])
    labels = np.tile(np.array(counts)[known], CUTS)
    return adapt_head(hidden, labels, shipped_head(MODELS))


def _calibrate_on_labels(image, corners, labels, side: str, player0: str, how: str, localisation,
                         geometry: BoardGeometry | None, adapt: bool, learn_empty: bool) -> Calibration:
    """Calibration on a photo whose points the user labelled (image order): the board is measured on them and must
    read back as labelled."""
    from companion.vision.geometry import fit_bar
    from companion.vision.strip_reader import StripReader

    if len(labels) != 24:
        raise CalibrationError(f"labels give the 24 points in image order, not {len(labels)}")
    counts = [int(count) for _, count in labels] + [-1, -1]
    geometry = geometry or fit_bar(image, corners, counts=counts)
    reading = StripReader(corners, geometry, trays=side).read(image)
    # up to EMPTY_FORGIVEN empty points read covered are forgiven when their empty looks are learnt (below)
    forgiven = [slot for slot, ((_, count), read) in enumerate(zip(labels, reading.points))
                if learn_empty and count == 0 and read.count]
    wrong = [f"slot {slot}" for slot, ((colour, count), read) in enumerate(zip(labels, reading.points))
             if (read.count != count and slot not in forgiven) or (count and read.colour != colour)]
    if len(forgiven) > EMPTY_FORGIVEN:
        wrong += [f"slot {slot}" for slot in forgiven]
    if wrong:
        raise CalibrationError(f"the board does not read as labelled at {', '.join(wrong)}: check the labels and "
                               "the corners")
    # player 0 sits at the bottom; the trays are on his home side
    orientation = Orientation(True, side == "right", player0)
    h, w = image.shape[:2]
    looks, said = None, []
    head = adapted_head(image, corners, geometry, counts) if adapt else None
    chances = photo_chances(image, corners, geometry, head)
    patterned = looks_patterned(chances)
    if learn_empty:
        looks, said = learn_empty_looks(image, corners, geometry, [c == 0 for c in counts[:24]], reading,
                                        lambda s: f"slot {s}", chances, patterned)
    profile = Profile(corners, orientation, localisation[0], localisation[1], (w, h), side, dict(reading.colours),
                      reader="strips", geometry=geometry, head=head, empty_looks=looks, patterned=patterned)
    said += [PATTERNED_SAID] if profile.patterned else []
    return Calibration(profile, reading, how + ", measured on the labels", "; ".join(said) or None)


def orientations_of(reading: ImageReading, target: BoardReading) -> list[Orientation]:
    """Every orientation under which `reading` shows `target`'s points."""
    found = []
    for bottom, home_right, colour in product((True, False), (True, False), COLOURS):
        orientation = Orientation(bottom, home_right, colour)
        board = reading.to_board_reading(orientation)
        if all(a.owner == b.owner and a.count == b.count for a, b in zip(board.points, target.points)):
            found.append(orientation)
    return found


def likeliest_orientations(reading: ImageReading, target: BoardReading, *,
                           forgive_empty: int = 0, forgive_doubted: int = 0) -> list[Orientation]:
    """The orientations under which `reading` counts every point's checkers as `target` has them, whatever their
    colours, the best first by how many colours agree: the counts say which way round the board lies, calibration
    then measures the sets' colours on the known position. A count surely wrong is refused: a checker missing, on
    the bar or borne off changes a single point's. `forgive_empty`: except on at most this many points
    `target` leaves empty (their empty looks are learnt from the photo; the points it puts checkers on still say
    the way round). `forgive_doubted`: and on at most this many points `target` covers whose count the reading's
    own range (low..high) allows, though its best guess is another: a stack it doubted, not a checker missing (a
    checker truly missing reads surely one short, and is still refused)."""
    scored = []
    for bottom, home_right, colour in product((True, False), (True, False), COLOURS):
        orientation = Orientation(bottom, home_right, colour)
        board = reading.to_board_reading(orientation)
        missed = [(a, b) for a, b in zip(board.points, target.points) if a.count != b.count]
        empty_missed = [b for a, b in missed if not b.count]  # an empty point read covered
        doubted = [b for a, b in missed if b.count and a.low <= b.count <= a.high]
        if len(empty_missed) + len(doubted) < len(missed) or len(empty_missed) > forgive_empty \
                or len(doubted) > forgive_doubted:
            continue  # (the bar is not compared: a cube or a die lies there as often as a checker)
        both = sum(a.owner == b.owner for a, b in zip(board.points, target.points) if a.count)
        scored.append((both, orientation))
    scored.sort(key=lambda t: -t[0])
    return [o for _, o in scored]


def trusted_orientations(reading: ImageReading, target: BoardReading) -> list[Orientation]:
    """For a board the user says is set up as `target`: the orientations under which the most points read with
    `target`'s counts, and near enough (`near_enough`), the best first by how many colours agree; none when
    orientations that put `target`'s stacks on other points read as many right (the photo does not say which way
    round the board lies). Every count is weighed alike, sure or not: a user's word replaces the proof
    `likeliest_orientations` asks of the photo, not the photo's evidence of the way round."""
    scored = []
    for bottom, home_right, colour in product((True, False), (True, False), COLOURS):
        orientation = Orientation(bottom, home_right, colour)
        board = reading.to_board_reading(orientation)
        wrong = [i + 1 for i, (a, b) in enumerate(zip(board.points, target.points)) if a.count != b.count]
        both = sum(a.owner == b.owner for a, b in zip(board.points, target.points) if a.count and b.count)
        layout = tuple(target.points[orientation.point_of_slot(s) - 1].count for s in range(24))
        scored.append((24 - len(wrong), both, layout, orientation, near_enough(wrong, target)))
    most = max(right for right, *_ in scored)
    best = [t for t in scored if t[0] == most]
    if not best[0][4] or len({layout for _, _, layout, *_ in best}) > 1:
        return []
    best.sort(key=lambda t: -t[1])
    return [t[3] for t in best]


def near_enough(wrong: Sequence[int], target: BoardReading) -> bool:
    """Whether a board whose points `wrong` (1-24) read another count than `target` may still be `target` as a user
    says: at most `TRUSTED_STACKS` of its stacks and `EMPTY_FORGIVEN` of its empty points. Further off, the corners
    or the position are likelier wrong than the reading (a set missing leaves half the stacks wrong)."""
    stacks = sum(1 for point in target.points if point.count)
    stacks_wrong = sum(1 for point in wrong if target.points[point - 1].count)
    return stacks_wrong <= TRUSTED_STACKS * stacks and len(wrong) - stacks_wrong <= EMPTY_FORGIVEN


TRUSTED_STACKS = 3 / 8
"""The share of a vouched-for position's stacks that may read another count (three of the start's eight)."""
EMPTY_FORGIVEN = 8
"""Points the known position leaves empty that calibration forgives for reading covered, learning their empty look:
more, and the photo is more likely not that position (or the corners are wrong)."""
DOUBTED_FORGIVEN = 1
"""Stacks of the known position whose count the reading doubted (its range holds the position's count, its best
guess is another) that calibration says and does not refuse: one, as a glare-struck or grout-crossed stack; more,
and the photo is likelier not that position."""
COLOURS_FORGIVEN = 2
"""Points whose colour alone a new profile may read wrong on its own photo: said as a warning, not refused."""


def read_back(profile: Profile, image: np.ndarray,
              target: BoardReading | None = None) -> tuple[list[str], list[str], list[str]]:
    """The points `profile` reads from `image` with another count than `target` (the starting position by
    default) that its range does not allow, those with the right count but the other colour, and those whose best
    guess is another count than `target`'s though its range (low..high) holds it. Read with the profile's colours
    alone: the photo they were measured on must read back by them, not by the frame's own guesses."""
    corners, _ = profile.locate(image)
    reading = profile.board_reader(corners, frame_colours=False).read(image)
    board = reading.to_board_reading(profile.orientation)
    start = target or BoardReading.from_position(Position.start(), 0, trays=False)
    counts, colours, doubted = [], [], []
    for i, (a, b) in enumerate(zip(board.points, start.points)):
        if a.count != b.count:
            (doubted if b.count and a.low <= b.count <= a.high else counts).append(f"point {i + 1}")
        elif a.count and a.owner != b.owner:
            colours.append(f"point {i + 1}")
    return counts, colours, doubted


def differences(profile: Profile, image: np.ndarray, target: BoardReading | None = None) -> tuple[list[str], list[str]]:
    """The points `profile` reads from `image` with another count than `target` (the starting position by
    default), and those with the right count but the other colour."""
    counts, colours, doubted = read_back(profile, image, target)
    return sorted(counts + doubted, key=_number), colours


def verify(profile: Profile, image: np.ndarray, target: BoardReading | None = None) -> str | None:
    """None when `profile` reads `target` (the starting position by default) from `image`; else what differs."""
    counts, colours = differences(profile, image, target)
    wrong = sorted(counts + colours, key=_number)
    return ", ".join(wrong) if wrong else None


def _number(name: str) -> int:
    return int(name.split()[1])


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _describe(reading: ImageReading) -> str:
    """Which points the photo reads as holding checkers, named by where they are in the picture (the 12 of each edge
    counted from its left, as `read` prints them): a director checks those on the board."""
    occupied = [f"{'top' if s < 12 else 'bottom'} {s % 12 + 1}: {p.count} {p.colour}"
                for s, p in enumerate(reading.points) if p.count]
    return (f"{len(occupied)} points hold checkers, counted from the picture's left: " + ", ".join(occupied[:10])
            + ("..." if len(occupied) > 10 else ""))


__all__ = ["CUTS", "DOUBTED_FORGIVEN", "EMPTY_FORGIVEN", "PATTERNED_POINTS", "TRUSTED_STACKS", "Calibration",
           "CalibrationError", "PositionNotRead",
           "adapted_head", "calibrate", "differences", "known_counts", "learn_empty_looks", "likeliest_orientations",
           "looks_patterned", "measure", "measured_colours", "measured_sizes", "orientations_of", "photo_chances",
           "near_enough", "read_back", "start_orientations", "trusted_orientations", "verify"]
