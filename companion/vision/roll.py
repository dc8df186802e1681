"""From dice and cube found on a board to the referee's `DiceReading` and `CubeReading`.

What the picture alone can say about a roll: a die is cocked, or rests on a checker (rules 000 and 003: the roll is
thrown again), and whose right-hand half each die lies in. Whether that half is the right one depends on whose
turn it is, which the referee knows: it gets the halves (`DiceReading.halves`) and judges them. The cube's place on
the board (which end of the bar, or out in a half while offered) gives its owner.
"""

from __future__ import annotations

import math

from companion.referee.observations import COCKED, ON_A_CHECKER, CubePlace, CubeReading, DiceReading
from companion.rules.layout import CHECKER, PLAY_HEIGHT, PLAY_WIDTH, POINT_WIDTH, BoardLayout, column_along
from companion.vision.dice import Found
from companion.vision.orientation import Orientation
from companion.vision.plane import slot_is_top, slot_x
from companion.vision.reader import ImageReading

ON_CHECKER = CHECKER / 2 + 19.0 * 0.3
"""A die's centre this close to a checker's (mm) touches it: on it, or leaning against it. Flat beside a checker a
19 mm die's centre is at least 30.5 mm from the checker's."""
TRAY_MIDDLE = 20.0
"""A cube in the tray whose centre is nearer its middle than this (mm) is nobody's: a 26 mm cube reaching into
both halves."""


def player0_mm(at: tuple[float, float], orientation: Orientation) -> tuple[float, float]:
    """Image-order playing-area mm to the mm of player 0's chair (the layout's)."""
    x, y = at
    return (x, y) if orientation.player0_at_bottom else (PLAY_WIDTH - x, PLAY_HEIGHT - y)


def checker_contact(at: tuple[float, float], reading: ImageReading) -> str | None:
    """How a die centred at `at` (image-order mm) meets the checkers the reading shows on the points (each where
    the stack's layout, layered or squeezed as read, puts it): ON_A_CHECKER when its middle is over one (it lies on
    it), COCKED when it reaches over a checker's rim from beside (no die lies flat there: it leans against the
    checker, which rule 003 calls cocked), None when it is clear."""
    x, y = at
    nearest = math.inf
    for slot, point in enumerate(reading.points):
        if not point.count or abs(x - slot_x(slot)) > POINT_WIDTH / 2 + 5:
            continue
        for index in range(point.count):
            along = column_along(index, point.count, layered=point.layered)
            cy = along if slot_is_top(slot) else PLAY_HEIGHT - along
            nearest = min(nearest, math.hypot(x - slot_x(slot), y - cy))
    if nearest < CHECKER / 2:
        return ON_A_CHECKER
    return COCKED if nearest < ON_CHECKER else None


def dice_reading(found: Found, reading: ImageReading | None, orientation: Orientation,
                 time: float = 0.0) -> DiceReading | None:
    """The roll the board shows, or None while it is unclear (one die seen, or more than two). Two dice in
    different halves are listed player 0's first (the opening roll's order). A cocked die voids the roll however
    many dice are seen: the other may be hidden by it, or be its flank found again."""
    dice = found.dice
    if not dice:
        return DiceReading((), time=time)
    if len(dice) > 2:  # a third find far less sure than the two best is a shadow of one of them
        ranked = sorted(dice, key=lambda d: -d.confidence)
        if ranked[2].confidence <= 0.5 * ranked[1].confidence:
            dice = tuple(sorted(ranked[:2], key=lambda d: d.box[0]))
    if any(d.cocked for d in dice):
        # rule 003: a die "leaning on one of its edges against a checker" is cocked; "on a checker" is one lying on top
        return DiceReading((), False, COCKED, time=time)
    if len(dice) != 2:
        return None
    contacts = {checker_contact(d.at, reading) for d in dice if reading is not None and d.at is not None}
    if COCKED in contacts:  # seen flat, yet half over a checker's rim: it leans, however flat its top looked
        return DiceReading((), False, COCKED, time=time)
    places = [player0_mm(d.at, orientation) if d.at is not None else None for d in dice]
    halves = tuple(BoardLayout.right_half_owner(*p) if p is not None else None for p in places)
    values = tuple(d.value for d in dice)
    if halves == (1, 0):
        values, halves = values[::-1], halves[::-1]
    if ON_A_CHECKER in contacts:
        # the values go with it: if the table plays the roll anyway, the referee records what was played
        return DiceReading(values, False, ON_A_CHECKER, halves=halves, time=time)  # type: ignore[arg-type]
    return DiceReading(values, halves=halves, time=time)  # type: ignore[arg-type]


def cube_reading(found: Found, orientation: Orientation, time: float = 0.0) -> CubeReading | None:
    """The cube as it lies: on the bar at player 0's end, player 1's end or the middle; in the tray beside the
    board, in its middle or one player's half; out in a half while it is being offered. None when no cube is
    seen."""
    cube = found.cube
    if cube is None or cube.at is None:
        return None
    x, y = player0_mm(cube.at, orientation)
    if BoardLayout.right_half_owner(x, min(max(y, 0.0), PLAY_HEIGHT)) is not None:
        place = CubePlace.OFFERED
    elif not 0.0 <= x <= PLAY_WIDTH:  # in the tray (rule 003): its middle, or its owner's half
        middle = abs(y - PLAY_HEIGHT / 2) < TRAY_MIDDLE
        place = CubePlace.CENTRE if middle else CubePlace.PLAYER0 if y > PLAY_HEIGHT / 2 else CubePlace.PLAYER1
    elif y > PLAY_HEIGHT * 0.7:
        place = CubePlace.PLAYER0
    elif y < PLAY_HEIGHT * 0.3:
        place = CubePlace.PLAYER1
    else:
        place = CubePlace.CENTRE
    return CubeReading(cube.value, place, cube.confidence, time=time)


def dice_json(found: Found, reading: ImageReading | None = None) -> list[dict]:
    """`companion dice --json`: each die's value, box, and whether the picture alone makes the roll void (which
    half is right depends on whose roll it is, which a photo does not say)."""
    out = []
    for die in found.dice:
        contact = checker_contact(die.at, reading) if reading is not None and die.at is not None else None
        reason = COCKED if die.cocked else contact  # as `dice_reading` gives them
        entry = {"value": die.value, "box": list(die.box), "valid": reason is None, "reason": reason,
                 "confidence": round(die.confidence, 4)}
        if die.at is not None:  # where it stands on the playing area, mm from its top-left corner in image order
            entry["at"] = [round(die.at[0], 1), round(die.at[1], 1)]
        out.append(entry)
    return out


def cube_json(found: Found, orientation: Orientation | None = None) -> dict | None:
    """The cube's value and box; with an orientation, its place and owner."""
    if found.cube is None:
        return None
    out: dict = {"value": found.cube.value, "box": list(found.cube.box), "confidence": round(found.cube.confidence, 4)}
    if orientation is not None:
        cube = cube_reading(found, orientation)
        if cube is not None:
            out["place"], out["owner"] = cube.place.value, cube.place.owner
    return out


__all__ = ["checker_contact", "cube_json", "cube_reading", "dice_json", "dice_reading", "player0_mm"]
