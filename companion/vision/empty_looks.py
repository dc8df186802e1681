"""What each point of one board looks like with no checker on it, learnt from photos of known positions: a point
that still looks so is empty, whatever the network makes of its veins, grain or glare.

The strip network counts checkers on boards like those it learnt. On a board unlike them, a point of polished
stone or inlaid wood may look to it like a checker: most of what it read wrong on the held-out designs
(docs/VISION.md). But on one board a point's own empty look changes less from frame to frame than a checker
changes it. Calibration keeps each empty point's strip (the starting position leaves 16 of the 24 empty);
positions confirmed during play add the others and renew the looks. A read compares each point's strip with its
empty look in the network's own terms (its last hidden layer, as a cosine), not pixel by pixel: a lamp moved or
the camera nudged changes pixels more than what the network makes of them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.errors import CompanionError
from companion.files import npz_bytes, write_atomically
from companion.rules.layout import BoardGeometry
from companion.vision.plane import Corners
from companion.vision.strips import STRIP_H, STRIP_W, StripCutter, normalisation

POINTS = 24
EMPTY_LIKE = 0.85
"""The cosine between a point's hidden layer now and when it was empty, at or above which it is read empty.
Looks from each board's start, frames 1-5, the network of session 23: on development boards 10-14 no covered
point reached 0.82, 211 of 231 empty ones reached 0.85; on the stone and figured-wood development boards 100-105,
3 of the 9 empty points the network read covered are mended and 1 covered point it had right is read empty (with
session 22's network, which had not learnt those designs: 25 of 45 mended, 2 broken; docs/VISION.md)."""


SURE_LIKE = 0.95
"""The cosine from which a match is sure: the empty points that reach their look on the development boards
mostly do so above it (median 0.94)."""


class EmptyLooksError(CompanionError):
    """A saved set of empty looks cannot be read."""


LOOKS = 2
"""Looks kept per point: the first (calibration's, or the first confirmed) and the newest from a confirmed
position. The first stays: a confirmed frame may have had a die on the point or another light; the newest follows
the evening's light and a nudged camera."""


@dataclass(frozen=True, eq=False)
class EmptyLooks:
    """Each point's strips (image order, as `companion.vision.strips` cuts them) from photos where it was empty,
    and how each photo was normalised; `known[s, k]` says whether point `s` has look `k` (0 the first, 1 the
    newest)."""

    strips: np.ndarray
    """(24, LOOKS, STRIP_H, STRIP_W, 3) uint8; zeros where not known."""
    norms: np.ndarray
    """(24, LOOKS, 4) float32: the mean BGR and spread of the photo each strip was cut from
    (`strips.normalisation`, over all of its 26 strips, as a read normalises)."""
    known: np.ndarray
    """(24, LOOKS) bool."""

    def __post_init__(self) -> None:
        if (self.strips.shape != (POINTS, LOOKS, STRIP_H, STRIP_W, 3) or self.strips.dtype != np.uint8
                or self.norms.shape != (POINTS, LOOKS, 4) or self.known.shape != (POINTS, LOOKS)):
            raise EmptyLooksError(f"empty looks are {LOOKS} strips of {STRIP_H}x{STRIP_W} pixels for each of the "
                                  "24 points, with their normalisation")
        if not np.all(self.norms[self.known][:, 3] > 0):
            raise EmptyLooksError("an empty look's spread must be positive")

    @classmethod
    def none(cls) -> EmptyLooks:
        return cls(np.zeros((POINTS, LOOKS, STRIP_H, STRIP_W, 3), np.uint8), np.zeros((POINTS, LOOKS, 4), np.float32),
                   np.zeros((POINTS, LOOKS), bool))

    def __len__(self) -> int:
        """How many points have a look."""
        return int(self.known.any(axis=1).sum())

    @property
    def points(self) -> np.ndarray:
        """(24,) bool: the points with a look."""
        return self.known.any(axis=1)

    def learnt(self, image: np.ndarray, corners: Corners, geometry: BoardGeometry,
               empty: Sequence[bool]) -> EmptyLooks:
        """These looks, with the points `empty` says are empty in `image` (image order) seen in it: a point's
        first look if it has none, else its newest."""
        empty = np.asarray(empty, bool)
        if empty.shape != (POINTS,):
            raise ValueError("say for each of the 24 points whether it is empty")
        cut = StripCutter(corners, geometry).cut(image)
        norm = np.append(*normalisation(cut)).astype(np.float32)
        strips, norms, known = self.strips.copy(), self.norms.copy(), self.known.copy()
        for point in np.flatnonzero(empty):
            k = 1 if known[point, 0] else 0
            strips[point, k], norms[point, k], known[point, k] = cut[point], norm, True
        return EmptyLooks(strips, norms, known)

    def network_input(self) -> tuple[np.ndarray, np.ndarray]:
        """The known looks' points and strips as the strip network takes them, each normalised as the photo it
        came from (`strips.network_input` normalises a whole board by one photo's look)."""
        points, looks = np.nonzero(self.known)
        norms = self.norms[points, looks]
        x = (self.strips[points, looks].astype(np.float32) - norms[:, None, None, :3]) / norms[:, None, None, 3:]
        return points, x.transpose(0, 3, 1, 2)

    def save(self, path: Path) -> None:
        """Written whole or not at all (`files.write_atomically`; a `CompanionError` says what failed)."""
        write_atomically(path, npz_bytes(compressed=True, strips=self.strips, norms=self.norms, known=self.known))

    @classmethod
    def load(cls, path: Path) -> EmptyLooks:
        try:
            with np.load(path) as data:
                return cls(data["strips"], data["norms"].astype(np.float32), data["known"].astype(bool))
        except FileNotFoundError:
            raise EmptyLooksError(f"the empty looks {Path(path).name} are missing") from None
        except (OSError, KeyError, ValueError, TypeError, AttributeError, EOFError, zipfile.BadZipFile,
                EmptyLooksError) as exc:
            raise EmptyLooksError(f"the empty looks {Path(path).name} cannot be read ({exc})") from None


def empty_sureness(cosine: np.ndarray) -> np.ndarray:
    """How sure a point matched to its empty look is empty: 0 at `EMPTY_LIKE`, 1 from `SURE_LIKE` on. A match
    near the threshold is the reader's best guess but not a fact the referee leans on."""
    return np.clip((cosine - EMPTY_LIKE) / (SURE_LIKE - EMPTY_LIKE), 0.0, 1.0)


def similarity(now: np.ndarray, then: np.ndarray) -> np.ndarray:
    """Row by row, the cosine between two sets of hidden layers."""
    norms = np.linalg.norm(now, axis=1) * np.linalg.norm(then, axis=1)
    return (now * then).sum(axis=1) / np.maximum(norms, 1e-9)


__all__ = ["EMPTY_LIKE", "LOOKS", "SURE_LIKE", "EmptyLooks", "EmptyLooksError", "empty_sureness", "similarity"]
