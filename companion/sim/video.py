"""Whole-game videos: dice thrown and settling, a hand reaching in and moving checkers one by one, the dice
picked up, the cube turned, pauses; every frame labelled (what lies on the board, the dice, the hand, and
whether the board is still).

Turns come from a recorded match (the referee's `PlayMade`, `DoubleOffered`, `Taken`, `Passed` events) or
from self-play with a `choose(position, roll)` function (random legal plays by default; the CLI passes the
engine's best play). Written as MP4 (OpenCV) or as a folder of JPEGs, with `labels.jsonl` beside it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.rules import BAR, OFF, Play, Position, Roll
from companion.rules.layout import BoardLayout
from companion.sim.render import DIE, Die, Effects, FrameLabel, Hand, Pose, Renderer, Scene, dice_validity
from companion.sim.styles import Style


@dataclass(frozen=True, slots=True)
class Turn:
    player: int
    before: Position
    """From the mover's side."""
    play: Play | None = None
    cube: str | None = None
    """None, or "double-take", "double-pass" (the player doubles; the other answers)."""


def turns_from_events(events) -> list[list[Turn]]:
    """Games of turns from the referee's events (a recorded match replayed)."""
    from companion.referee.events import DoubleOffered, GameStarted, Passed, PlayMade, Taken

    games: list[list[Turn]] = []
    pending: DoubleOffered | None = None
    for event in events:
        if isinstance(event, GameStarted):
            games.append([])
        elif isinstance(event, PlayMade) and games:
            if event.revised and games[-1] and games[-1][-1].play is not None:
                games[-1].pop()
            games[-1].append(Turn(event.player, event.before, event.play))
        elif isinstance(event, DoubleOffered):
            pending = event
        elif isinstance(event, (Taken, Passed)) and pending is not None and games:
            previous = next((t for t in reversed(games[-1]) if t.play is not None), None)
            # the board when the doubler's turn began: the last play's result, from his side
            before = previous.play.position if previous is not None and previous.player != pending.player else (
                previous.play.position.swap() if previous is not None else Position.start())
            games[-1].append(Turn(pending.player, before, None,
                                  "double-take" if isinstance(event, Taken) else "double-pass"))
            pending = None
    return [g for g in games if g]


def self_play(rng: np.random.Generator, choose: Callable[[Position, Roll], Play] | None = None,
              max_turns: int = 200) -> list[Turn]:
    """One game of self-play (random legal plays unless `choose` says otherwise)."""
    position, player, turns = Position.start(), 0, []
    while not position.is_game_over() and len(turns) < max_turns:
        roll = Roll(int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        if not turns and roll.is_double:
            continue  # the opening roll is never a double
        plays = position.legal_plays(roll)
        play = choose(position, roll) if choose else plays[int(rng.integers(len(plays)))]
        turns.append(Turn(player, position, play))
        position, player = play.position, 1 - player
    return turns


class GameFilm:
    """Turns into frames. One camera pose and light per film; noise changes per frame."""

    def __init__(self, style: Style, pose: Pose, effects: Effects, *, fps: int = 20, width: int = 1280,
                 height: int = 720, seed: int = 0) -> None:
        if not 15 <= fps <= 30:
            raise CompanionError(f"a game video is 15 to 30 frames a second, not {fps}")
        self.renderer = Renderer(style, width, height)
        if effects.scene_seed is None:
            effects = replace(effects, scene_seed=seed)  # one room, one light, for the whole film
        self.pose, self.effects, self.fps = pose, effects, fps
        self.layout = BoardLayout(pose.home_right)
        self.rng = np.random.default_rng(seed)
        self.time = 0.0
        self._cube = (64, "centre")
        self._skin = (float(self.rng.uniform(60, 140)), float(self.rng.uniform(100, 170)), float(self.rng.uniform(150, 230)))
        self._arm = float(self.rng.uniform(0.06, 0.09))

    # -- timing -------------------------------------------------------------------------------------

    def _frames(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps)))

    def _shot(self, scene: Scene, still: bool, phase: str) -> tuple[np.ndarray, FrameLabel, str]:
        scene = replace(scene, cube_value=self._cube[0], cube_place=self._cube[1])
        image, label = self.renderer.render(scene, self.pose, self.effects, self.rng)
        label.still, label.time = still, round(self.time, 4)
        self.time += 1 / self.fps
        return image, label, phase

    # -- a game -------------------------------------------------------------------------------------

    def film(self, turns: Sequence[Turn]) -> Iterator[tuple[np.ndarray, FrameLabel, str]]:
        """Frames of a game: (image, label, phase)."""
        if not turns:
            return
        first = turns[0]
        scene = Scene.from_position(first.before, first.player)
        yield from self._pause(scene, 0.6)
        opening = True
        for turn in turns:
            scene = Scene.from_position(turn.before, turn.player)
            if turn.cube:
                yield from self._cube_action(scene, turn)
                if turn.cube == "double-pass":
                    return
                continue
            assert turn.play is not None
            dice = yield from self._throw(scene, turn, opening)
            scene = replace(scene, dice=dice, roller=None if opening else turn.player)
            opening = False
            yield from self._pause(scene, 0.5)
            scene = yield from self._move_checkers(scene, turn)
            yield from self._pick_up_dice(scene, turn.player)
            after = turn.play.position  # from the opponent's side
            scene = Scene.from_position(after, 1 - turn.player)
            yield from self._pause(scene, 0.4)

    def _pause(self, scene: Scene, seconds: float):
        for _ in range(self._frames(seconds)):
            yield self._shot(scene, True, "pause")

    def _throw(self, scene: Scene, turn: Turn, opening: bool = False):
        """The dice fly in from the roller's side, tumble and settle in his right-hand half. The opening roll: each
        player throws one die into his own right-hand half, and the higher one moves first."""
        assert turn.play is not None
        roll = turn.play.roll
        if opening:
            throwers = (turn.player, 1 - turn.player)
            values = (max(roll.die1, roll.die2), min(roll.die1, roll.die2))
        else:
            throwers, values = (turn.player, turn.player), (roll.die1, roll.die2)
        rest: list[Die] = []
        for thrower, value in zip(throwers, values):
            x0, y0, x1, y1 = self.layout.dice_area(thrower)
            for _ in range(40):  # the roll stands: apart from the other die, neither on a checker nor leaning on one
                x, y = float(self.rng.uniform(x0 + DIE, x1 - DIE)), float(self.rng.uniform(y0 + DIE / 2, y1 - DIE / 2))
                die = Die(value, x, y, float(self.rng.uniform(0, 360)))
                if all(math.hypot(x - d.x, y - d.y) > DIE * 1.6 for d in rest) and \
                        dice_validity(replace(scene, dice=(die,), roller=None), self.layout)[0]:
                    break
            rest.append(die)
        starts = [y1 + 60 if thrower == 0 else y0 - 60 for thrower in throwers]
        frames = self._frames(0.6)
        for i in range(frames):
            t = (i + 1) / frames
            ease = 1 - (1 - t) ** 3
            flying = tuple(Die(int(self.rng.integers(1, 7)) if t < 0.8 else d.value, d.x,
                               start_y + (d.y - start_y) * ease, d.angle + 400 * (1 - ease))
                           for d, start_y in zip(rest, starts))
            yield self._shot(replace(scene, dice=flying, roller=None if opening else turn.player), False, "rolling")
        return tuple(rest)

    def _hand_path(self, scene: Scene, start: tuple[float, float], end: tuple[float, float], seconds: float,
                   side: int, holding: int | None, phase: str):
        frames = self._frames(seconds)
        for i in range(frames):
            t = (i + 1) / frames
            x, y = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
            yield self._shot(replace(scene, hand=Hand(x, y, side, holding, self._skin, self._arm)), False, phase)

    def _edge(self, side: int, near: tuple[float, float]) -> tuple[float, float]:
        return near[0], (520.0 if side == 0 else -80.0)

    def _move_checkers(self, scene: Scene, turn: Turn):
        """Each single-die move: reach for the checker, carry it, put it down (a blot hit goes to the bar)."""
        assert turn.play is not None
        side = turn.player  # the mover's arm comes from his side of the board
        board = _Board(scene, turn.player)
        hand_at = self._edge(side, (300.0, 220.0))
        for source, dest, hit in turn.play.moves:
            src_xy = board.top_of(source, self.layout)
            yield from self._hand_path(board.scene, hand_at, src_xy, 0.3, side, None, "reaching")
            board.take(source)
            dst_xy = board.landing(dest, self.layout)
            yield from self._hand_path(board.scene, src_xy, dst_xy, 0.4, side, turn.player, "moving")
            board.put(dest, hit)
            hand_at = dst_xy
        yield from self._hand_path(board.scene, hand_at, self._edge(side, hand_at), 0.3, side, None, "withdrawing")
        return board.scene

    def _pick_up_dice(self, scene: Scene, player: int):
        if not scene.dice:
            return
        target = (scene.dice[0].x, scene.dice[0].y)
        yield from self._hand_path(scene, self._edge(player, target), target, 0.3, player, None, "pickup")
        yield from self._hand_path(replace(scene, dice=()), target, self._edge(player, target), 0.2, player, None,
                                   "pickup")

    def _cube_action(self, scene: Scene, turn: Turn):
        value = 2 if self._cube[0] == 64 else self._cube[0] * 2
        self._cube = (value, f"offered{turn.player}")
        yield from self._pause(scene, 0.6)
        if turn.cube == "double-take":
            self._cube = (value, f"player{1 - turn.player}")
            yield from self._pause(scene, 0.6)


class _Board:
    """The checkers while a play is being made, in the scene's terms (player 0's numbering)."""

    def __init__(self, scene: Scene, mover: int) -> None:
        self.scene, self.mover = scene, mover

    def _index(self, point: int) -> int:
        """Scene index of the mover's own point number."""
        return (point - 1) if self.mover == 0 else (24 - point)

    def top_of(self, point: int, layout: BoardLayout) -> tuple[float, float]:
        if point == BAR:
            return layout.bar_centre(self.mover, max(0, self.scene.bar[self.mover] - 1))
        index = self._index(point)
        count = self.scene.points[index][1]
        return layout.checker_centre(index + 1, max(0, count - 1), count, layered=self.scene.layered)

    def landing(self, point: int, layout: BoardLayout) -> tuple[float, float]:
        if point == OFF:
            x0, y0, x1, y1 = layout.tray_rect(self.mover)
            return (x0 + x1) / 2, (y0 + y1) / 2
        index = self._index(point)
        owner, count = self.scene.points[index]
        mine = count if owner == self.mover else 0
        return layout.checker_centre(index + 1, mine, mine + 1, layered=self.scene.layered)

    def take(self, point: int) -> None:
        if point == BAR:
            bar = list(self.scene.bar)
            bar[self.mover] -= 1
            self.scene = replace(self.scene, bar=(bar[0], bar[1]))
            return
        points = list(self.scene.points)
        owner, count = points[self._index(point)]
        points[self._index(point)] = (owner, count - 1) if count > 1 else (-1, 0)
        self.scene = replace(self.scene, points=tuple(points))

    def put(self, point: int, hit: bool) -> None:
        if point == OFF:
            off = list(self.scene.off)
            off[self.mover] += 1
            self.scene = replace(self.scene, off=(off[0], off[1]))
            return
        points, bar = list(self.scene.points), list(self.scene.bar)
        owner, count = points[self._index(point)]
        if owner == 1 - self.mover and count == 1:  # a blot: it goes to the bar
            bar[1 - self.mover] += 1
            owner, count = -1, 0
        points[self._index(point)] = (self.mover, (count if owner == self.mover else 0) + 1)
        self.scene = replace(self.scene, points=tuple(points), bar=(bar[0], bar[1]))


def film_labels_path(out: Path) -> Path:
    """Where `write_film` puts a film's labels: `NAME.labels.jsonl` beside an MP4, `labels.jsonl` in a folder."""
    out = Path(out)
    return out.with_suffix(".labels.jsonl") if out.suffix.lower() == ".mp4" else out / "labels.jsonl"


def write_film(frames: Iterator[tuple[np.ndarray, FrameLabel, str]], out: Path, fps: int) -> int:
    """MP4 when `out` ends in .mp4, else a folder of JPEGs; labels go beside them (`film_labels_path`)."""
    out = Path(out)
    video = None
    labels_path = film_labels_path(out)
    (out.parent if out.suffix.lower() == ".mp4" else out).mkdir(parents=True, exist_ok=True)
    count = 0
    with open(labels_path, "w", encoding="utf-8") as labels:
        for image, label, phase in frames:
            if out.suffix.lower() == ".mp4":
                if video is None:
                    h, w = image.shape[:2]
                    video = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
                    if not video.isOpened():
                        raise CompanionError(f"OpenCV cannot write {out}: try a folder of JPEGs instead")
                video.write(image)
            else:
                cv2.imwrite(str(out / f"{count:06d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            labels.write(json.dumps({"frame": count, "phase": phase, **label.to_json()}) + "\n")
            count += 1
    if video is not None:
        video.release()
    return count


__all__ = ["GameFilm", "Turn", "self_play", "turns_from_events", "write_film"]
