"""Makes docs/sim_contact_sheet.jpg: frames of the development set, the held-out set and a game film.

    python docs/make_contact_sheet.py
"""

import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.sim import STYLES, Effects, Pose, frame  # noqa: E402
from companion.sim.video import GameFilm, self_play  # noqa: E402

TILE = (320, 180)


def tile(image: np.ndarray, caption: str) -> np.ndarray:
    small = cv2.resize(image, TILE, interpolation=cv2.INTER_AREA)
    cv2.rectangle(small, (0, 0), (TILE[0], 16), (0, 0, 0), -1)
    cv2.putText(small, caption, (4, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
    return small


def main() -> None:
    tiles = [tile(frame("dev", i)[0], f"dev {i}") for i in (0, 1, 2, 3, 5, 8, 13, 21)]
    tiles += [tile(frame("heldout", i)[0], f"held-out {i}") for i in (0, 1, 2, 3, 5, 8, 13, 21)]
    film = GameFilm(STYLES[1], Pose(tilt=30, roll=-6), Effects(light=0.3, noise=4, jpeg=80), fps=20, seed=5)
    frames = list(film.film(self_play(np.random.default_rng(5))[:2]))
    picks = [i for i, (_, _, phase) in enumerate(frames) if phase in ("rolling", "moving")]
    for i in (picks[3], picks[len(picks) // 2], picks[-4], len(frames) - 1):
        image, _, phase = frames[i]
        tiles.append(tile(image, f"film: {phase}"))
    rows = [np.hstack(tiles[i:i + 4]) for i in range(0, len(tiles), 4)]
    out = ROOT / "docs" / "sim_contact_sheet.jpg"
    cv2.imwrite(str(out), np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, 82])
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
