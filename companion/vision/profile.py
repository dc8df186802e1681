"""A board profile: what calibration learned about one board under one camera, saved as TOML.

    version = 1
    localisation = "markers"        # or "corners" (fixed camera, corners as calibrated) or "auto"
    frame_size = [1280, 720]
    corners = [[x, y], [x, y], [x, y], [x, y]]     # playing area: top-left, top-right, bottom-right, bottom-left
    marker_corners = [[u, v], ...]                 # the same corners in the markers' frame (markers only)
    player0_at_bottom = true
    home_right = true
    player0_colour = "light"
    trays = "right"
    reader = "strips"                              # or "classic": the simulator's board, read by its own models
    empty_looks = "NAME.empty.npz"                 # each point's look when empty (strips reader; file beside this)
    patterned = true                               # the board's pattern looked like a hand when calibrated
    [colours]                                      # mean BGR of each set, as seen when calibrated
    light = [235.0, 240.0, 245.0]
    dark = [25.0, 25.0, 30.0]
    [geometry]                                     # this board's measurements, mm (strips reader)
    play_width = 580.0
    play_height = 440.0
    bar_width = 52.2
    point_length = 180.0
    checker = 41.1

Profiles live in the user's config folder unless a path is given.
"""

from __future__ import annotations

import os
import tomllib
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from companion.errors import CompanionError
from companion.files import npz_bytes, write_atomically
from companion.rules.layout import BoardGeometry
from companion.vision.empty_looks import EmptyLooks, EmptyLooksError
from companion.vision.markers import MarkerFrame, MarkersNotFound
from companion.vision.orientation import Orientation
from companion.vision.plane import Corners

if TYPE_CHECKING:
    from companion.referee.observations import BoardReading
    from companion.vision.reader import BoardReader, ImageReading
    from companion.vision.strip_reader import StripReader

LOCALISATIONS = ("markers", "corners", "auto")
READERS = ("strips", "classic")
"""How a profile's board is read: by the strip network with the board's measured geometry, or by the classic
reader made for the simulator's board (what old profiles and the simulator's films use)."""


class ProfileError(CompanionError):
    """A profile file that is missing, unreadable or incomplete."""


def _frame_size(value) -> tuple[int, int] | None:
    if value is None:
        return None
    width, height = (int(v) for v in value)
    return width, height


def default_profile_path() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "backgammon-companion" / "board.toml"


@dataclass(frozen=True)
class Profile:
    corners: Corners
    orientation: Orientation
    localisation: str = "corners"
    marker_corners: tuple[tuple[float, float], ...] | None = None
    frame_size: tuple[int, int] | None = None
    """The size of the pictures calibration saw (width, height); None in a profile written without it."""
    trays: str = "right"
    colours: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    flat_dice: bool = False
    """The dice and cube are painted on the board, as the simulator draws them, not standing on it: their places
    need no correction for the camera's view (`companion.vision.camera`)."""
    reader: str = "classic"
    geometry: BoardGeometry | None = None
    """The board's measurements as calibration found them (None: the simulator's board)."""
    head: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False)
    """The strip network's last layer as calibration adapted it to this board's look (saved beside the TOML file
    as NAME.head.npz)."""
    empty_looks: EmptyLooks | None = field(default=None, compare=False)
    """What this board's points look like empty, from the calibration photo and confirmed positions (saved beside
    the TOML file as NAME.empty.npz)."""
    patterned: bool = False
    """The board's own pattern (tiles, veins) looked like something over a point to the strip network on the
    calibration photo: only a plainer hand makes a frame busy (`strip_reader.covered_points`)."""

    def __post_init__(self) -> None:
        if self.reader not in READERS:
            raise ProfileError(f"reader is one of {', '.join(READERS)}, not {self.reader!r}")
        if self.localisation not in LOCALISATIONS:
            raise ProfileError(f"localisation is one of {', '.join(LOCALISATIONS)}, not {self.localisation!r}")
        if self.trays not in ("left", "right"):
            raise ProfileError(f"trays are on the 'left' or 'right', not {self.trays!r}")
        if self.localisation == "markers" and self.marker_corners is None:
            raise ProfileError("a marker profile needs marker_corners: run companion calibrate again")
        if self.patterned and self.reader != "strips":
            raise ProfileError("patterned goes with the strips reader: the classic reader has its own busy test")

    def size_warning(self, image: np.ndarray) -> str | None:
        """Why the profile's own corners may not fit `image`: it was calibrated on pictures of another size (another
        camera, or the same at another setting), so they are another picture's pixels. None when the sizes agree,
        when no size was stored, or when the corners are found in each picture (markers, the network)."""
        height, width = image.shape[:2]
        if self.localisation != "corners" or self.frame_size is None or (width, height) == tuple(self.frame_size):
            return None
        return (f"this picture is {width}x{height} pixels but the profile was calibrated on "
                f"{self.frame_size[0]}x{self.frame_size[1]}: calibrate on this camera's pictures")

    def locate(self, image: np.ndarray) -> tuple[Corners, str | None]:
        """The playing area's corners in `image`, and a warning when the profile's own were used instead."""
        if self.localisation == "markers" and self.marker_corners is not None:
            try:
                return MarkerFrame(self.marker_corners).locate(image), None
            except MarkersNotFound as exc:
                return self.corners, f"{exc}; using the calibrated corners"
        if self.localisation == "auto":
            from companion.vision.locate import BoardNotFound, playing_area

            try:
                return playing_area(image), None
            except BoardNotFound as exc:
                return self.corners, f"{exc}; using the calibrated corners"
        return self.corners, None

    def confirmed(self, image: np.ndarray, reader: StripReader | BoardReader, settled: ImageReading,
                  accepted: BoardReading) -> Profile | None:
        """This profile with what a confirmed position shows learnt from the frame it was read on, or None when it
        shows nothing to learn. `reader` read `image` as `settled` (an `ImageReading`); the referee then took the
        position `accepted` (a `BoardReading`, a play it accepted). When `settled` agrees with it on every point
        read surely, the look of each point that both leave empty, and that the reading was sure of, is learnt
        (`companion.vision.empty_looks`): the profile's looks come from one photo, and the light and the camera
        change over a match. Only sure empty points: the referee matches the sure points alone, so a point it took
        as made may have read an unsure 0."""
        from companion.referee.observations import CONFIDENT
        from companion.vision.strip_reader import StripReader

        if self.reader != "strips" or not isinstance(reader, StripReader):
            return None
        seen = settled.to_board_reading(self.orientation).points
        if any(read.confidence >= CONFIDENT and (read.owner, read.count) != (taken.owner, taken.count)
               for read, taken in zip(seen, accepted.points)):
            return None  # the board has moved on since (or the referee took another reading): nothing to learn
        empty = []
        for slot in range(24):
            point = self.orientation.point_of_slot(slot) - 1
            read, taken = seen[point], accepted.points[point]
            empty.append(taken.count == 0 and read.count == 0 and read.high <= 0 and read.confidence >= CONFIDENT)
        if not any(empty):
            return None
        looks = (self.empty_looks or EmptyLooks.none()).learnt(image, reader.corners, reader.geometry, empty)
        return replace(self, empty_looks=looks)

    def board_reader(self, corners: Corners, *, frame_colours: bool = True):
        """The reader this profile's board is read with, at `corners` (the profile's own, or where the camera
        sees the board now): what calibration learnt (geometry, colours) is kept when the camera moves.
        `frame_colours=False`: the profile's colours alone, never the frame's own (`StripReader`)."""
        if self.reader == "strips":
            from companion.rules.layout import STANDARD
            from companion.vision.strip_reader import StripReader

            return StripReader(corners, self.geometry or STANDARD, trays=self.trays, colours=self.colours or None,
                               head=self.head, empty_looks=self.empty_looks, patterned=self.patterned,
                               frame_colours=frame_colours, orientation=self.orientation)
        from companion.vision.reader import BoardReader

        return BoardReader(corners, trays=self.trays)

    def to_toml(self, head_file: str | None = None, empty_file: str | None = None) -> str:
        def pairs(points) -> str:
            return "[" + ", ".join(f"[{x:.2f}, {y:.2f}]" for x, y in points) + "]"

        lines = ["# Backgammon Companion board profile (written by companion calibrate)", "version = 1",
                 f'localisation = "{self.localisation}"']
        if self.frame_size is not None:
            lines.append(f"frame_size = [{self.frame_size[0]}, {self.frame_size[1]}]")
        lines.append(f"corners = {pairs(self.corners)}")
        if self.marker_corners is not None:
            lines.append("marker_corners = [" + ", ".join(f"[{x:.6f}, {y:.6f}]" for x, y in self.marker_corners) + "]")
        o = self.orientation
        lines += [f"player0_at_bottom = {str(o.player0_at_bottom).lower()}", f"home_right = {str(o.home_right).lower()}",
                  f'player0_colour = "{o.player0_colour}"', f'trays = "{self.trays}"']
        lines.append(f'reader = "{self.reader}"')
        if head_file:
            lines.append(f'head = "{head_file}"')
        if empty_file:
            lines.append(f'empty_looks = "{empty_file}"')
        if self.flat_dice:
            lines.append("flat_dice = true")
        if self.patterned:
            lines.append("patterned = true")
        if self.colours:
            lines.append("")
            lines.append("[colours]")
            for name, bgr in self.colours.items():
                lines.append(f"{name} = [{bgr[0]:.1f}, {bgr[1]:.1f}, {bgr[2]:.1f}]")
        if self.geometry is not None:
            g = self.geometry
            lines += ["", "[geometry]", f"play_width = {g.play_width:.2f}", f"play_height = {g.play_height:.2f}",
                      f"bar_width = {g.bar_width:.2f}", f"point_length = {g.point_length:.2f}",
                      f"checker = {g.checker:.2f}"]
        return "\n".join(lines) + "\n"

    def save(self, path: Path) -> None:
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProfileError(f"cannot make the folder for {path}: {exc.strerror}") from None
        # the files beside it first, so that a profile never names one that is not there
        if self.head is not None:
            write_atomically(_beside(path, "head"), npz_bytes(weights=self.head[0], bias=self.head[1]))
        if self.empty_looks is not None:
            self.empty_looks.save(_beside(path, "empty"))
        write_atomically(path, self.to_toml(head_file=_beside(path, "head").name if self.head is not None else None,
                                            empty_file=_beside(path, "empty").name if self.empty_looks is not None
                                            else None))

    @classmethod
    def load(cls, path: Path) -> Profile:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ProfileError(f"no board profile at {path}: run companion calibrate first") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ProfileError(f"cannot read the board profile {path}: {exc}") from None
        try:
            if data.get("version", 1) != 1:
                raise ValueError(f"version {data.get('version')!r}: this companion reads version 1")
            corners = tuple((float(x), float(y)) for x, y in data["corners"])
            if len(corners) != 4:
                raise ValueError("four corners are needed")
            markers = data.get("marker_corners")
            orientation = Orientation(_boolean(data.get("player0_at_bottom", True), "player0_at_bottom"),
                                      _boolean(data.get("home_right", True), "home_right"),
                                      str(data.get("player0_colour", "light")))
            return cls(corners, orientation, str(data.get("localisation", "corners")),  # type: ignore[arg-type]
                       tuple((float(x), float(y)) for x, y in markers) if markers else None,
                       _frame_size(data.get("frame_size")),
                       str(data.get("trays", "right")),
                       _colours(data.get("colours", {})),
                       _boolean(data.get("flat_dice", False), "flat_dice"), str(data.get("reader", "classic")),
                       _geometry(data.get("geometry")), _load_head(path, data.get("head")),
                       _load_empty_looks(path, data.get("empty_looks")),
                       _boolean(data.get("patterned", False), "patterned"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"the board profile {path} is incomplete or wrong ({exc}): run companion calibrate "
                               "again") from None


def _colours(table) -> dict[str, tuple[float, float, float]]:
    """The sets' colours, each three channels of 0-255 (a hand-edited profile is checked, not trusted)."""
    if not isinstance(table, dict):
        raise ValueError("colours must be a table of the two sets' colours")
    colours = {}
    for name, bgr in table.items():
        if name not in ("light", "dark"):
            raise ValueError(f"colours has {name!r}: the sets are light and dark")
        if not isinstance(bgr, list) or len(bgr) != 3:
            raise ValueError(f"the colour of the {name} set is three numbers (blue, green, red)")
        values = tuple(float(v) for v in bgr)
        if not all(0 <= v <= 255 for v in values):
            raise ValueError(f"the colour of the {name} set has channels outside 0-255")
        colours[name] = values
    return colours


def _beside(profile: Path, kind: str) -> Path:
    """Where a profile's file of `kind` ('head', 'empty') is saved: beside it, NAME.KIND.npz."""
    return profile.with_name(f"{profile.stem}.{kind}.npz")


def _load_empty_looks(profile: Path, name) -> EmptyLooks | None:
    if name is None:
        return None
    try:
        return EmptyLooks.load(profile.with_name(str(name)))
    except EmptyLooksError as exc:
        raise ValueError(str(exc)) from None


def _load_head(profile: Path, name) -> tuple[np.ndarray, np.ndarray] | None:
    if name is None:
        return None
    path = profile.with_name(str(name))
    try:
        with np.load(path) as data:
            return data["weights"].astype(np.float64), data["bias"].astype(np.float64)
    except FileNotFoundError:
        raise ValueError(f"the adapted layer {path.name} it names is missing") from None
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"the adapted layer {path.name} cannot be read ({exc})") from None


def _geometry(table) -> BoardGeometry | None:
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ValueError("geometry is a table of measurements in mm")
    return BoardGeometry(**{k: float(v) for k, v in table.items()})  # ValueError/TypeError say what is wrong


def _boolean(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} is true or false, not {value!r}")
    return value


__all__ = ["LOCALISATIONS", "READERS", "Profile", "ProfileError", "default_profile_path"]
