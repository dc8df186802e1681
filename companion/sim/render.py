"""Rendering a camera frame of a board, with exact labels of what was drawn.

The board is drawn top-down on its own plane (board style cached, checkers, dice and cube pasted as sprites),
then seen through a camera (a homography: tilt, roll, distance, which side), then a hand or arm may cover
part of it, and the frame gets uneven light, colour temperature, glare, sensor noise, blur and JPEG loss.
Everything random comes from the `numpy` generator passed in, so a seed gives the same frame, byte for byte.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from companion.referee.observations import COCKED, MISPLACED, ON_A_CHECKER
from companion.rules import BAR, OFF, Position
from companion.rules.layout import CHECKER, PLAY_HEIGHT, PLAY_WIDTH, BoardLayout
from companion.sim.styles import Style, checker_sprite, cube_sprite, die_sprite

PX = 1.6
"""Board-plane pixels per millimetre."""
DIE = 19.0
"""A die's edge, mm."""
CUBE = 26.0


@dataclass(frozen=True, slots=True)
class Die:
    value: int
    x: float
    y: float
    """Centre on the board plane, mm."""
    angle: float = 0.0
    cocked: bool = False
    """Leaning on its edge: the top face seen foreshortened, with a side showing."""


@dataclass(frozen=True, slots=True)
class Hand:
    """An arm reaching in from the `side` of the frame (0 bottom, 1 top) to a point on the board (mm)."""

    x: float
    y: float
    side: int = 0
    holding: int | None = None
    """The owner of a checker held in the hand, if any."""
    skin: tuple[int, int, int] | None = None
    """BGR; None for a random one (a film keeps one arm for all its frames)."""
    width: float | None = None
    """The arm's width as a fraction of the frame's; None for random."""


@dataclass(frozen=True, slots=True)
class Scene:
    """What lies on the board, in player 0's numbering: `points[i]` is (owner, count) on player 0's point i+1."""

    points: tuple[tuple[int, int], ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    dice: tuple[Die, ...] = ()
    roller: int | None = None
    cube_value: int = 64
    cube_place: str = "centre"
    cube_in_tray: bool = False
    """Whether the cube waits in the tray (rule 003) rather than on the bar, while nobody is offering it."""
    layered: bool = True
    hand: Hand | None = None
    markers: bool = False
    """ArUco corner markers (ids 0-3) stuck on the frame by the playing area's corners."""
    dice_colour: tuple[tuple[int, int, int], tuple[int, int, int]] = ((245, 245, 245), (20, 20, 20))
    """The dice's body and pips, BGR: dark pips on light dice or light pips on dark ones."""

    @classmethod
    def from_position(cls, position: Position, mover: int, **kw) -> Scene:
        zero, one = (position.player, position.opponent) if mover == 0 else (position.opponent, position.player)
        points = []
        for point in range(1, 25):
            if zero[point]:
                points.append((0, zero[point]))
            elif one[25 - point]:
                points.append((1, one[25 - point]))
            else:
                points.append((-1, 0))
        return cls(tuple(points), (zero[BAR], one[BAR]), (zero[OFF], one[OFF]), **kw)

    def position(self, mover: int) -> Position:
        """The position drawn, from the side of player `mover` (the inverse of `from_position`)."""
        sides = [[0] * 26, [0] * 26]
        for index, (owner, count) in enumerate(self.points):
            if count:
                sides[owner][index + 1 if owner == 0 else 24 - index] = count
        for player in (0, 1):
            sides[player][BAR], sides[player][OFF] = self.bar[player], self.off[player]
        return Position(tuple(sides[mover]), tuple(sides[1 - mover]))

    def counts(self) -> tuple[int, int]:
        """Checkers of each player drawn on the board, the bar and the trays (plus one held in a hand)."""
        total = [self.bar[0] + self.off[0], self.bar[1] + self.off[1]]
        for owner, count in self.points:
            if count:
                total[owner] += count
        if self.hand is not None and self.hand.holding is not None:
            total[self.hand.holding] += 1
        return total[0], total[1]


@dataclass(frozen=True, slots=True)
class Pose:
    tilt: float = 0.0
    """Degrees from overhead."""
    roll: float = 0.0
    """Degrees the board is turned in the frame."""
    scale: float = 0.8
    """The board's width over the frame's, seen overhead."""
    shift: tuple[float, float] = (0.0, 0.0)
    """Offset of the board's centre, as fractions of the frame."""
    from_player1: bool = False
    """The camera stands on player 1's side (the board appears upside down)."""
    home_right: bool = True


@dataclass(frozen=True, slots=True)
class Effects:
    light: float = 0.0
    """How uneven the light is (0 even, 0.5 strong)."""
    temperature: float = 0.0
    """-1 cold (blue) .. 1 warm (orange)."""
    glare: float = 0.0
    noise: float = 0.0
    """Sensor noise, grey levels (standard deviation)."""
    blur: float = 0.0
    """Gaussian blur sigma, pixels."""
    jpeg: int | None = None
    """JPEG quality, or None for none."""
    scene_seed: int | None = None
    """Fixes the light field and the glare's place (a film's room does not flicker); None: drawn per frame."""


@dataclass
class FrameLabel:
    """The truth about a frame. Points in player 0's numbering; owner -1 for an empty point."""

    points: list[tuple[int, int]]
    bar: tuple[int, int]
    off: tuple[int, int]
    dice: list[int]
    dice_at: list[tuple[float, float]]
    """Each die's centre on the playing area, mm from its top-left corner as seen from player 0's chair."""
    cube_at: tuple[float, float]
    dice_valid: bool
    dice_reason: str | None
    roller: int | None
    cube_value: int
    cube_place: str
    corners: list[tuple[float, float]]
    """The playing area's corners in the frame, pixels: top-left, top-right, bottom-right, bottom-left (as
    seen from player 0's chair)."""
    occluded: list[int]
    pose: dict
    style: str
    checker_centres: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    """Per point, the centres of its checkers in the frame, pixels (the renderer's own)."""
    hand: bool = False
    dice_hidden: list[bool] = field(default_factory=list)
    """Per die, whether the hand covers part of it (nobody can read it; the live path waits for the hand)."""
    cube_hidden: bool = False
    bar_hidden: list[bool] = field(default_factory=lambda: [False, False])
    """Per player, whether the hand covers where his checkers on the bar lie."""
    off_hidden: list[bool] = field(default_factory=lambda: [False, False])
    """Per player, whether the hand covers part of his tray."""
    still: bool = True
    time: float = 0.0

    def to_json(self) -> dict:
        data = asdict(self)
        data["checker_centres"] = {str(k): v for k, v in self.checker_centres.items()}
        return data


class Renderer:
    """Renders frames of one board style at one frame size. Cheap to keep: the board and noise are cached."""

    def __init__(self, style: Style, width: int = 1280, height: int = 720) -> None:
        self.style, self.width, self.height = style, width, height
        self._boards: dict[bool, np.ndarray] = {}
        self._noise_pos, self._noise_neg, grain, self._glare = _frame_textures(width, height)
        table = np.empty((height, width, 3), np.uint8)
        table[:] = style.table
        cv2.multiply(table, grain, dst=table, scale=1 / 128.0)
        self._table = table

    # -- the board plane ------------------------------------------------------------------------------

    def _board(self, layout: BoardLayout) -> np.ndarray:
        board = self._boards.get(layout.home_right)
        if board is None:
            board = self._boards[layout.home_right] = _draw_board(self.style, layout)
        return board

    def _origin(self, layout: BoardLayout) -> tuple[float, float]:
        left, top, _, _ = layout.outline()
        return left, top

    def _to_plane(self, layout: BoardLayout, x: float, y: float) -> tuple[int, int]:
        ox, oy = self._origin(layout)
        return int(round((x - ox) * PX)), int(round((y - oy) * PX))

    def draw_plane(self, scene: Scene, layout: BoardLayout) -> np.ndarray:
        plane = self._board(layout).copy()
        radius = int(CHECKER / 2 * PX)
        sprites = [checker_sprite(c, radius) for c in self.style.checkers]
        for index, (owner, count) in enumerate(scene.points):
            for i in range(count):
                x, y = layout.checker_centre(index + 1, i, count, layered=scene.layered)
                _paste(plane, sprites[owner], *self._to_plane(layout, x, y))
        for player in (0, 1):
            for i in range(scene.bar[player]):
                x, y = layout.bar_centre(player, i)
                _paste(plane, sprites[player], *self._to_plane(layout, x, y))
            x0, y0, x1, y1 = layout.tray_rect(player)
            for i in range(scene.off[player]):  # borne-off checkers lie on their edge, side by side
                yy = (y1 - 6 - i * 6.5) if player == 0 else (y0 + 6 + i * 6.5)
                a, b = self._to_plane(layout, x0 + 4, yy - 2.6)
                c, d = self._to_plane(layout, x1 - 4, yy + 2.6)
                colour = self.style.checkers[player]
                cv2.rectangle(plane, (a, b), (c, d), colour, -1)
                cv2.rectangle(plane, (a, b), (c, d), tuple(int(v * 0.5) for v in colour), 1)
        if scene.markers:
            self._draw_markers(plane, layout)
        cx, cy = layout.cube_centre(scene.cube_place, scene.cube_in_tray)
        _paste_square(plane, cube_sprite(scene.cube_value, int(CUBE * PX)), *self._to_plane(layout, cx, cy), 0.0)
        for die in scene.dice:
            sprite = die_sprite(die.value, int(DIE * PX), *scene.dice_colour)
            if die.cocked:
                sprite = _cocked(sprite, die_sprite(7 - die.value if die.value != 1 else 3, int(DIE * PX),
                                                     *scene.dice_colour))
            _paste_square(plane, sprite, *self._to_plane(layout, die.x, die.y), die.angle)
        return plane

    def _draw_markers(self, plane: np.ndarray, layout: BoardLayout) -> None:
        """White squares of 24 mm on the frame's corners, each holding an 18 mm marker (as cut from the sheet).
        Ids go top-left, top-right, bottom-right, bottom-left from player 0's chair."""
        side, inner = int(24 * PX), int(18 * PX)
        corners = BoardLayout.playing_area()
        for marker_id, (x, y) in enumerate(corners):
            dx = -12.5 if x == 0 else 12.5
            dy = -12.5 if y == 0 else 12.5
            cx, cy = self._to_plane(layout, x + dx, y + dy)
            x0, y0 = cx - side // 2, cy - side // 2
            cv2.rectangle(plane, (x0, y0), (x0 + side, y0 + side), (250, 250, 250), -1)
            code = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                                 marker_id, inner)
            m0, n0 = cx - inner // 2, cy - inner // 2
            region = plane[n0:n0 + inner, m0:m0 + inner]
            region[:] = cv2.cvtColor(code, cv2.COLOR_GRAY2BGR)[:region.shape[0], :region.shape[1]]

    # -- the camera -----------------------------------------------------------------------------------

    def homography(self, pose: Pose, layout: BoardLayout) -> np.ndarray:
        """Board-plane pixels to frame pixels."""
        left, top, right, bottom = layout.outline()
        cx, cy = (left + right) / 2, (top + bottom) / 2
        plane_to_world = np.array([[1 / PX, 0, left - cx], [0, 1 / PX, top - cy], [0, 0, 1]])
        distance = 1000.0
        tilt, roll = math.radians(pose.tilt), math.radians(pose.roll + (180 if pose.from_player1 else 0))
        rx = np.array([[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)], [0, math.sin(tilt), math.cos(tilt)]])
        rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]])
        r = rz @ rx
        scale = pose.scale
        for _ in range(20):
            f = scale * self.width * distance / (right - left)
            k = np.array([[f, 0, self.width / 2 + pose.shift[0] * self.width],
                          [0, f, self.height / 2 + pose.shift[1] * self.height], [0, 0, 1]])
            h = k @ np.column_stack([r[:, 0], r[:, 1], [0, 0, distance]]) @ plane_to_world
            h = h / h[2, 2]
            corners = self.project(h, layout, [(left, top), (right, top), (right, bottom), (left, bottom)])
            if all(4 <= x <= self.width - 4 and 4 <= y <= self.height - 4 for x, y in corners):
                return h
            scale *= 0.92  # the whole board must stay in the frame
        return h

    def project(self, h: np.ndarray, layout: BoardLayout, points_mm) -> list[tuple[float, float]]:
        ox, oy = self._origin(layout)
        pts = np.array([[(x - ox) * PX, (y - oy) * PX] for x, y in points_mm], np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, h).reshape(-1, 2)
        return [(float(x), float(y)) for x, y in out]

    # -- a whole frame --------------------------------------------------------------------------------

    def render(self, scene: Scene, pose: Pose, effects: Effects, rng: np.random.Generator) -> tuple[np.ndarray, FrameLabel]:
        layout = BoardLayout(pose.home_right)
        plane = self.draw_plane(scene, layout)
        h = self.homography(pose, layout)
        frame = self._table.copy()
        cv2.warpPerspective(plane, h, (self.width, self.height), dst=frame, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        mask = None
        if scene.hand is not None:
            mask = self._draw_hand(frame, scene.hand, h, layout, rng)
        self._apply_effects(frame, effects, rng)
        if effects.jpeg is not None:
            ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(effects.jpeg)])
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return frame, self.label(scene, pose, h, layout, mask)

    def label(self, scene: Scene, pose: Pose, h: np.ndarray, layout: BoardLayout, mask) -> FrameLabel:
        centres: dict[int, list[tuple[float, float]]] = {}
        occluded = []
        for index, (owner, count) in enumerate(scene.points):
            point = index + 1
            if count:
                spots = [layout.checker_centre(point, i, count, layered=scene.layered) for i in range(count)]
                centres[point] = self.project(h, layout, spots)
            x0, y0, x1, y1 = layout.point_rect(point)
            if self._covered(mask, h, layout, [((x0 + x1) / 2, y0 + (y1 - y0) * t) for t in (0.15, 0.5, 0.85)]):
                occluded.append(point)
        valid, reason = dice_validity(scene, layout)
        corners = self.project(h, layout, BoardLayout.playing_area())
        dice_hidden = [self._covered(mask, h, layout, _square(d.x, d.y, DIE)) for d in scene.dice]
        cube_at = layout.cube_centre(scene.cube_place, scene.cube_in_tray)
        cube_hidden = self._covered(mask, h, layout, _square(*cube_at, CUBE))
        bar_hidden = [self._covered(mask, h, layout, [layout.bar_centre(p, i) for i in range(4)]) for p in (0, 1)]
        off_hidden = []
        for p in (0, 1):
            x0, y0, x1, y1 = layout.tray_rect(p)
            off_hidden.append(self._covered(mask, h, layout, [((x0 + x1) / 2, y0 + (y1 - y0) * t)
                                                             for t in (0.05, 0.3, 0.5, 0.7, 0.95)]))
        return FrameLabel(
            points=list(scene.points), bar=scene.bar, off=scene.off, dice=[d.value for d in scene.dice],
            dice_at=[(d.x, d.y) for d in scene.dice], cube_at=cube_at,
            dice_valid=valid, dice_reason=reason, roller=scene.roller, cube_value=scene.cube_value,
            cube_place=scene.cube_place, corners=corners, occluded=occluded, pose=asdict(pose),
            style=self.style.name, checker_centres=centres, hand=scene.hand is not None, dice_hidden=dice_hidden,
            cube_hidden=cube_hidden, bar_hidden=bar_hidden, off_hidden=off_hidden)

    def _covered(self, mask, h: np.ndarray, layout: BoardLayout, spots_mm) -> bool:
        """Whether the hand covers any of these spots (mm)."""
        if mask is None:
            return False
        spots = self.project(h, layout, spots_mm)
        return any(0 <= int(v) < self.height and 0 <= int(u) < self.width and mask[int(v), int(u)] for u, v in spots)

    def _draw_hand(self, frame: np.ndarray, hand: Hand, h: np.ndarray, layout: BoardLayout,
                   rng: np.random.Generator) -> np.ndarray:
        # the arm comes from the player's side of the table, wherever the camera stands
        elbow_y = PLAY_HEIGHT + 350 if hand.side == 0 else -350
        (tx, ty), (ex, ey) = self.project(h, layout, [(hand.x, hand.y),
                                                      (hand.x + rng.uniform(-150, 150), elbow_y)])
        mask = np.zeros((self.height, self.width), np.uint8)
        width = int(self.width * (hand.width if hand.width is not None else rng.uniform(0.06, 0.09)))
        cv2.line(mask, (int(ex), int(ey)), (int(tx), int(ty)), 255, width)
        axes = (int(width * 0.75), int(width * 0.95))
        angle = math.degrees(math.atan2(ty - ey, tx - ex)) + 90
        cv2.ellipse(mask, (int(tx), int(ty)), axes, angle, 0, 360, 255, -1)
        skin = np.array(hand.skin if hand.skin is not None else
                        [rng.uniform(60, 140), rng.uniform(100, 170), rng.uniform(150, 230)], np.float32)
        x, y, w, h_ = cv2.boundingRect(mask)
        if w and h_:
            # rounded shading: the mask blurred at an eighth of the size, only where the arm is
            sub = mask[y:y + h_, x:x + w]
            small = cv2.resize(sub, (max(1, w // 8), max(1, h_ // 8)), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), max(0.5, width / 40))
            shade = cv2.resize(small, (w, h_), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
            region = sub > 0
            roi = frame[y:y + h_, x:x + w]
            roi[region] = np.clip(skin * (0.55 + 0.45 * shade[region, None]), 0, 255).astype(np.uint8)
        if hand.holding is not None:
            sprite, alpha = checker_sprite(self.style.checkers[hand.holding], int(width * 0.45))
            _paste(frame, (sprite, alpha), int(tx), int(ty))
        return mask

    def _apply_effects(self, frame: np.ndarray, effects: Effects, rng: np.random.Generator) -> None:
        room = rng if effects.scene_seed is None else np.random.default_rng(effects.scene_seed)
        if effects.light or effects.temperature:
            low = room.uniform(1 - effects.light, 1 + effects.light * 0.4, (4, 6)).astype(np.float32)
            t = effects.temperature
            gains = np.stack([low * (1 - 0.18 * t), low, low * (1 + 0.18 * t)], axis=-1)
            gain = cv2.resize(np.clip(gains * 128, 0, 255).astype(np.uint8), (self.width, self.height),
                              interpolation=cv2.INTER_LINEAR)
            cv2.multiply(frame, gain, dst=frame, scale=1 / 128.0)
        if effects.glare > 0:
            size = int(self.width * room.uniform(0.1, 0.3))
            blob = cv2.resize(self._glare, (size, size))
            blob = (blob.astype(np.float32) * effects.glare).astype(np.uint8)
            x, y = int(room.uniform(0, self.width - size)), int(room.uniform(0, self.height - size))
            roi = frame[y:y + size, x:x + size]
            cv2.add(roi, cv2.merge([blob, blob, blob]), dst=roi)
        if effects.noise > 0:
            dx, dy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
            times = max(1, int(round(effects.noise / 4)))
            for _ in range(times):
                cv2.add(frame, self._noise_pos[dy:dy + self.height, dx:dx + self.width], dst=frame)
                cv2.subtract(frame, self._noise_neg[dy:dy + self.height, dx:dx + self.width], dst=frame)
        if effects.blur > 0.3:
            cv2.GaussianBlur(frame, (0, 0), effects.blur, dst=frame)


@lru_cache(maxsize=4)
def _frame_textures(width: int, height: int):
    """Sensor noise (split into what it adds and subtracts), the table's grain and a glare blob: the same for
    every renderer of a size, so a new style costs only its board."""
    rng = np.random.default_rng(0x5EED)
    noise = rng.normal(0, 4, (height + 64, width + 64, 3)).astype(np.float32)
    pos, neg = np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8)
    grain = rng.normal(0, 1, (height // 8 + 1, width // 8 + 1)).astype(np.float32)
    grain = cv2.resize(grain, (width, height), interpolation=cv2.INTER_LINEAR)
    grain = np.clip(128 * (1 + 0.06 * grain), 0, 255).astype(np.uint8)
    blob = np.zeros((129, 129), np.float32)
    cv2.circle(blob, (64, 64), 40, 1.0, -1)
    glare = (cv2.GaussianBlur(blob, (0, 0), 18) * 255).astype(np.uint8)
    return pos, neg, cv2.merge([grain, grain, grain]), glare


def dice_validity(scene: Scene, layout: BoardLayout) -> tuple[bool, str | None]:
    """Whether the dice as they lie make a valid roll, and if not why: flat, on the board's surface, in the
    roller's right-hand half, not on a checker (rules 000 and 003). A die leaning against a checker is cocked."""
    if not scene.dice:
        return True, None
    centres = checker_centres(scene, layout)
    if any(d.cocked or leans_on_checker(d, centres) for d in scene.dice):
        return False, COCKED
    if any(math.hypot(d.x - x, d.y - y) < CHECKER / 2 for d in scene.dice for x, y in centres):
        return False, ON_A_CHECKER
    if scene.roller is not None:
        if any(layout.right_half_owner(d.x, d.y) != scene.roller for d in scene.dice):
            return False, MISPLACED
    return True, None


def checker_centres(scene: Scene, layout: BoardLayout) -> list[tuple[float, float]]:
    """Where every checker on a point lies (mm)."""
    return [layout.checker_centre(index + 1, i, count, layered=scene.layered)
            for index, (_, count) in enumerate(scene.points) for i in range(count)]


def leans_on_checker(die: Die, centres: list[tuple[float, float]]) -> bool:
    """Whether a die thrown to its place would lean against one of the checkers at `centres`: its square reaches
    over a checker's disc while its middle is over none. No die lies flat there (it would stand on the checker's
    rim); it rests on an edge against the checker, which rule 003 calls cocked. A die whose middle is over a
    checker rests on it."""
    if any(math.hypot(die.x - x, die.y - y) < CHECKER / 2 for x, y in centres):
        return False
    turn = math.radians(die.angle)
    cos, sin = math.cos(turn), math.sin(turn)
    for x, y in centres:
        dx, dy = x - die.x, y - die.y
        u, v = abs(dx * cos - dy * sin), abs(dx * sin + dy * cos)  # in the die's own axes, as `_paste_square` turns it
        if math.hypot(max(u - DIE / 2, 0.0), max(v - DIE / 2, 0.0)) < CHECKER / 2:
            return True
    return False


def _cocked(top: np.ndarray, side: np.ndarray) -> np.ndarray:
    """A die leaning on its edge: its top face foreshortened, and one side seen at a slant, darker."""
    size = top.shape[0]
    face = cv2.resize(top, (size, int(size * 0.7)), interpolation=cv2.INTER_AREA)
    flank = cv2.resize(side, (size, int(size * 0.45)), interpolation=cv2.INTER_AREA)
    return np.vstack([face, (flank * 0.7).astype(np.uint8)])


def _square(x: float, y: float, size: float) -> list[tuple[float, float]]:
    """The centre and corners of an upright square of `size` mm (enough to tell whether a hand covers part)."""
    r = size / 2
    return [(x, y), (x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]


def _paste(dst: np.ndarray, sprite: tuple[np.ndarray, np.ndarray], cx: int, cy: int) -> None:
    img, alpha = sprite
    hh, ww = alpha.shape
    x0, y0 = cx - ww // 2, cy - hh // 2
    x1, y1 = x0 + ww, y0 + hh
    sx0, sy0 = max(0, -x0), max(0, -y0)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(dst.shape[1], x1), min(dst.shape[0], y1)
    if x1 <= x0 or y1 <= y0:
        return
    a = alpha[sy0:sy0 + y1 - y0, sx0:sx0 + x1 - x0, None]
    region = dst[y0:y1, x0:x1]
    region[:] = (region * (1 - a) + img[sy0:sy0 + y1 - y0, sx0:sx0 + x1 - x0] * a).astype(np.uint8)


def _paste_square(dst: np.ndarray, sprite: np.ndarray, cx: int, cy: int, angle: float) -> None:
    """Paste a die or the cube turned by `angle` degrees, with a soft shadow."""
    hh, ww = sprite.shape[:2]
    side = int(math.hypot(hh, ww)) + 6
    canvas = np.zeros((side, side, 3), np.uint8)
    alpha = np.zeros((side, side), np.float32)
    m = cv2.getRotationMatrix2D((ww / 2, hh / 2), angle, 1.0)  # about the sprite's own centre, then centred
    m[:, 2] += [(side - ww) / 2, (side - hh) / 2]
    cv2.warpAffine(sprite, m, (side, side), dst=canvas, flags=cv2.INTER_LINEAR)
    body = cv2.warpAffine(np.ones((hh, ww), np.float32), m, (side, side), flags=cv2.INTER_LINEAR)
    shadow = cv2.GaussianBlur(np.roll(np.roll(body, 3, 0), 3, 1) * 0.45, (0, 0), 1.5)
    alpha = np.maximum(body, shadow * (1 - body))
    _paste(dst, (canvas.astype(np.float32) * body[..., None], alpha), cx, cy)


def _draw_board(style: Style, layout: BoardLayout) -> np.ndarray:
    left, top, right, bottom = layout.outline()
    w, h = int((right - left) * PX), int((bottom - top) * PX)
    board = np.empty((h, w, 3), np.uint8)
    board[:] = style.frame

    def px(x: float, y: float) -> tuple[int, int]:
        return int(round((x - left) * PX)), int(round((y - top) * PX))

    cv2.rectangle(board, px(0, 0), px(PLAY_WIDTH, PLAY_HEIGHT), style.field, -1)
    bar0, bar1 = (270.0, 310.0)
    cv2.rectangle(board, px(bar0, 0), px(bar1, PLAY_HEIGHT), style.frame, -1)
    for player in (0, 1):
        x0, y0, x1, y1 = layout.tray_rect(player)
        cv2.rectangle(board, px(x0, y0), px(x1, y1), tuple(int(c * 0.7) for c in style.frame), -1)
    for point in range(1, 25):
        x0, y0, x1, y1 = layout.point_rect(point)
        colour = style.point_dark if point % 2 else style.point_light
        tip = (x0 + x1) / 2, (y1 if layout.is_top(point) else y0)
        base = [(x0, y0), (x1, y0)] if layout.is_top(point) else [(x0, y1), (x1, y1)]
        triangle = np.array([px(*base[0]), px(*base[1]), px(*tip)], np.int32)
        cv2.fillConvexPoly(board, triangle, colour, cv2.LINE_AA)
    if style.texture:
        rng = np.random.default_rng(zlib.crc32(style.name.encode()))  # not hash(): it changes per process
        grain = rng.normal(0, 1, (h // 3 + 1, w // 24 + 1)).astype(np.float32)
        grain = np.clip(128 * (1 + style.texture * grain), 0, 255).astype(np.uint8)
        grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
        cv2.multiply(board, cv2.merge([grain, grain, grain]), dst=board, scale=1 / 128.0)
    return board


def random_position(rng: np.random.Generator) -> tuple[Position, int]:
    """A position from a game of random legal plays, and who is to move in it."""
    from companion.rules import Roll

    position, mover = Position.start(), 0
    for _ in range(int(rng.integers(0, 60))):
        roll = Roll(int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = position.legal_plays(roll)
        position = plays[int(rng.integers(len(plays)))].position
        mover = 1 - mover
        if position.is_game_over():
            break
    if position.is_game_over():
        return Position.start(), 0
    return position, mover


__all__ = ["Die", "Effects", "FrameLabel", "Hand", "PX", "Pose", "Renderer", "Scene", "checker_centres",
           "dice_validity", "leans_on_checker", "random_position"]
