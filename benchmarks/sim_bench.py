"""Renderer speed: frames per second at 1280x720 on one core, for the development and held-out sets and for
a game film, beside the one operation every frame needs (warping the board plane into the frame).

    python benchmarks/sim_bench.py [--frames 150]

Target: at least 30 frames per second, so the demo can render on the fly.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.layout import BoardLayout  # noqa: E402
from companion.sim import STYLES, Effects, Pose, Renderer, Scene, frame  # noqa: E402
from companion.sim.video import GameFilm, self_play  # noqa: E402
from companion.rules import Position  # noqa: E402


def _report(name: str, times: list[float]) -> None:
    median = statistics.median(times)
    worst = max(times)
    print(f"{name:<40} {1 / median:7.1f} fps (median {median * 1000:6.2f} ms, worst {worst * 1000:6.2f} ms, "
          f"mean {len(times) / sum(times):6.1f} fps over {len(times)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.frames

    renderer = Renderer(STYLES[0])
    layout = BoardLayout()
    plane = renderer.draw_plane(Scene.from_position(Position.start(), 0), layout)
    h = renderer.homography(Pose(tilt=25, roll=5), layout)
    out = np.zeros((720, 1280, 3), np.uint8)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        cv2.warpPerspective(plane, h, (1280, 720), dst=out, borderMode=cv2.BORDER_TRANSPARENT)
        times.append(time.perf_counter() - t)
    _report("reference: warpPerspective alone", times)

    for name in ("dev", "heldout"):
        cache: dict = {}
        frame(name, 0, renderers=cache)
        times = []
        for i in range(n):
            t = time.perf_counter()
            frame(name, 1000 + i, renderers=cache)
            times.append(time.perf_counter() - t)
        _report(f"{name} set frame (scene + render + label)", times)

    film = GameFilm(STYLES[3], Pose(tilt=25, roll=4), Effects(light=0.25, temperature=0.3, noise=5, blur=0.8, jpeg=80),
                    fps=20, seed=3)
    frames = film.film(self_play(np.random.default_rng(3))[:20])
    times = []
    for _ in range(n):
        t = time.perf_counter()
        if next(frames, None) is None:
            break
        times.append(time.perf_counter() - t)
    _report("game film frame (hand, dice, JPEG)", times)


if __name__ == "__main__":
    main()
