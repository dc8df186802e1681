"""The labelled real dice photos (`../shared/data/dice_photos/`, YOLO format) and their fixed split.

Training and measuring must never share a photo: `fold_of` puts each photo in one of four folds by a hash of
its name (stable across machines and runs). Fold 0 is held out: the shipped models never see it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

FOLDS = 4
HELD_OUT_FOLD = 0


@dataclass(frozen=True, slots=True)
class LabelledDie:
    value: int
    box: tuple[float, float, float, float]
    """x, y, width, height in image pixels."""

    @property
    def centre(self) -> tuple[float, float]:
        return self.box[0] + self.box[2] / 2, self.box[1] + self.box[3] / 2


def fold_of(name: str) -> int:
    return zlib.crc32(Path(name).stem.encode()) % FOLDS


def read_labels(path: Path, width: int, height: int) -> list[LabelledDie]:
    """One YOLO label file: `CLASS CX CY W H` per line, class 0..5 for faces 1..6, fractions of the image."""
    dice = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 5:
            raise ValueError(f"{path}:{number}: a label is CLASS CX CY W H, not {line!r}")
        cls, cx, cy, w, h = int(parts[0]), *(float(v) for v in parts[1:])
        if not 0 <= cls <= 5:
            raise ValueError(f"{path}:{number}: class {cls} is not a face (0..5)")
        dice.append(LabelledDie(cls + 1, ((cx - w / 2) * width, (cy - h / 2) * height, w * width, h * height)))
    return dice


def photos(folder: Path) -> list[Path]:
    """The labelled photos of a folder, by name."""
    return sorted(p for p in folder.glob("*.jpg") if p.with_suffix(".txt").exists())


__all__ = ["FOLDS", "HELD_OUT_FOLD", "LabelledDie", "fold_of", "photos", "read_labels"]
