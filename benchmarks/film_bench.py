"""Whole rendered games through vision and the referee: how many plays are identified, and whether a wrong
one is ever accepted silently.

    python benchmarks/film_bench.py [--films 4] [--turns 0] [--width 960] [--dice camera|labels] [--why]

Each film is a self-played game (random legal plays) in a held-out style and camera pose. Frames go through
the stillness gate, the board reader with the profile's corners and the dice-and-cube reader; the referee gets
each settled board, then the dice when they change. `--dice labels` takes the dice from the film's labels
instead, to measure the board reader alone.

Identified: for the turn's position and player, the referee announced exactly the play that was made (its last
word, if it revised). Wrong: it announced another play for that turn.
Unidentified plays are counted with what the referee said instead (NeedsAttention is the honest answer to a
doubtful read; an IllegalPlay for a legal play is a false alarm).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.referee import Referee  # noqa: E402
from companion.referee.events import IllegalPlay, NeedsAttention, PlayMade  # noqa: E402
from companion.sim import STYLES, Effects, Pose  # noqa: E402
from companion.sim.truth import image_corners, player0_colour  # noqa: E402
from companion.sim.video import GameFilm, self_play  # noqa: E402
from companion.vision.orientation import Orientation  # noqa: E402
from companion.vision.profile import Profile  # noqa: E402
from companion.sources import FilmObserver  # noqa: E402


def run_film(seed: int, width: int, height: int, max_turns: int, dice_from_labels: bool = False,
             why: bool = False) -> dict:
    rng = np.random.default_rng(2_000_000 + seed)  # held-out seeds
    style = STYLES[int(rng.integers(len(STYLES)))]
    pose = Pose(tilt=float(rng.uniform(0, 35)), roll=float(rng.uniform(-10, 10)), scale=float(rng.uniform(0.75, 0.9)),
                from_player1=bool(rng.random() < 0.3), home_right=bool(rng.random() < 0.7))
    effects = Effects(light=float(rng.uniform(0, 0.3)), temperature=float(rng.uniform(-1, 1)),
                      noise=float(rng.uniform(0, 6)), blur=float(rng.uniform(0, 1.0)), jpeg=85)
    turns = self_play(rng)
    if max_turns:
        turns = turns[:max_turns]
    film = GameFilm(style, pose, effects, fps=20, width=width, height=height, seed=seed)
    orientation = Orientation(not pose.from_player1, pose.home_right, player0_colour(style))
    trays = "right" if orientation.tray_on_right() else "left"
    observer = FilmObserver(turns[0].player,
                            lambda image, label: Profile(image_corners(label), orientation, "corners", trays=trays,
                                                            flat_dice=True),
                            dice_from_labels=dice_from_labels)
    referee = Referee()
    made: dict[tuple, object] = {}
    said: Counter = Counter()
    rolls = {(t.player, t.before): t.play.roll for t in turns if t.play is not None}
    for observation in observer.observations(film.film(turns)):
        for event in referee.observe(observation):
            said[type(event).__name__] += 1
            if why and isinstance(event, (IllegalPlay, NeedsAttention)):
                before = getattr(event, "before", None)
                actual = rolls.get((getattr(event, "player", None), before))
                print(f"  film {seed}, {observation.time:.1f} s: {event.text()}"
                      + (f" [rolled {actual}]" if actual is not None else ""), flush=True)
            if isinstance(event, PlayMade):  # a revised play replaces the one announced for the same turn
                made[(event.player, event.before)] = event.play.position
    truth = {(t.player, t.before): t.play.position for t in turns if t.play is not None}
    identified = sum(1 for key, after in truth.items() if made.get(key) == after)
    wrong = sum(1 for key, after in made.items() if key in truth and truth[key] != after)
    status = observer.watcher.status if observer.watcher else None
    return {"style": style.name, "tilt": round(pose.tilt), "plays": len(truth), "identified": identified,
            "wrong": wrong, "frames": status.frames if status else 0, "readings": status.readings if status else 0,
            "said": said}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--films", type=int, default=4)
    parser.add_argument("--turns", type=int, default=0, help="only the first N turns of each game (0: all)")
    parser.add_argument("--width", type=int, default=960)
    parser.add_argument("--dice", choices=("camera", "labels"), default="camera",
                        help="read the dice from the pixels (default) or take them from the film's labels")
    parser.add_argument("--why", action="store_true", help="print each IllegalPlay and NeedsAttention, with the roll")
    args = parser.parse_args()
    height = args.width * 9 // 16
    totals = Counter()
    start = time.perf_counter()
    for seed in range(args.films):
        r = run_film(seed, args.width, height, args.turns, args.dice == "labels", args.why)
        totals.update({k: r[k] for k in ("plays", "identified", "wrong", "frames", "readings")})
        attention, illegal = r["said"].get("NeedsAttention", 0), r["said"].get("IllegalPlay", 0)
        print(f"film {seed}: {r['style']}, tilt {r['tilt']}: {r['identified']}/{r['plays']} plays identified, "
              f"{r['wrong']} wrong; {r['readings']} readings of {r['frames']} frames; "
              f"NeedsAttention {attention}, IllegalPlay {illegal}", flush=True)
    plays = max(1, totals["plays"])
    print(f"film_bench: {args.films} films at {args.width}x{height}, {totals['plays']} plays: identified "
          f"{totals['identified']} ({100 * totals['identified'] / plays:.2f}%) [target >= 99.9%], accepted wrongly "
          f"{totals['wrong']} [target 0]; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
