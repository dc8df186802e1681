"""Four ArUco markers on the board's corners: a printable sheet, and finding them in a frame.

Markers 0, 1, 2, 3 (OpenCV's 4x4_50 dictionary) go on the board's frame at the top-left, top-right,
bottom-right and bottom-left corners of the playing area, as the camera sees them. Calibration stores the
playing area's corners in the markers' own frame of reference, so wherever the board is nudged, the corners
follow the markers: `MarkerFrame.corners(image)`.

The sheet is written as PNG and as a one-page PDF at true size (A4); the PDF is a few lines of hand-written
PDF around the PNG's pixels, which keeps a PDF library out of the dependencies for one file.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.files import write_atomically
from companion.vision.plane import Corners

DICTIONARY = cv2.aruco.DICT_4X4_50
IDS = (0, 1, 2, 3)
NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
A4 = (210.0, 297.0)
SHEET_DPI = 300
MARKER_MM = 40.0


class MarkersNotFound(CompanionError):
    """Fewer than four of the corner markers are in the frame."""


def _dictionary():
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    return cv2.aruco.generateImageMarker(_dictionary(), marker_id, pixels)


def sheet(dpi: int = SHEET_DPI) -> np.ndarray:
    """An A4 page, grey, with the four markers (40 mm), their names and cutting lines."""
    mm = dpi / 25.4
    page = np.full((int(A4[1] * mm), int(A4[0] * mm)), 255, np.uint8)
    side = int(MARKER_MM * mm)
    for i, (marker_id, name) in enumerate(zip(IDS, NAMES)):
        col, row = i % 2, i // 2
        x, y = int((25 + col * 95) * mm), int((40 + row * 110) * mm)
        page[y:y + side, x:x + side] = marker_image(marker_id, side)
        cut = int(8 * mm)
        cv2.rectangle(page, (x - cut, y - cut), (x + side + cut, y + side + cut), 160, max(1, dpi // 150))
        cv2.putText(page, f"{marker_id}: {name}", (x - cut, y + side + cut + int(7 * mm)), cv2.FONT_HERSHEY_SIMPLEX,
                    dpi / 220, 0, max(1, dpi // 150), cv2.LINE_AA)
    lines = ["Backgammon Companion: corner markers. Print at 100% (no scaling).",
             "Cut out; stick each on the board's frame at its corner of the playing area,",
             "as the camera sees the board. Keep them flat and uncovered. Then run: companion calibrate"]
    for n, text in enumerate(lines):
        cv2.putText(page, text, (int(15 * mm), int((15 + n * 7) * mm)), cv2.FONT_HERSHEY_SIMPLEX, dpi / 330, 0,
                    max(1, dpi // 200), cv2.LINE_AA)
    return page


def pdf_of(gray: np.ndarray, width_mm: float, height_mm: float) -> bytes:
    """A one-page PDF showing a grey image at the given physical size."""
    h, w = gray.shape
    pts = (width_mm / 25.4 * 72, height_mm / 25.4 * 72)
    data = zlib.compress(gray.tobytes(), 9)
    content = f"q {pts[0]:.2f} 0 0 {pts[1]:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pts[0]:.2f} {pts[1]:.2f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_sheet(out: Path, dpi: int = SHEET_DPI) -> list[Path]:
    """`out` with .pdf and .png suffixes (whichever suffix `out` has is replaced)."""
    page = sheet(dpi)
    out = Path(out)
    pdf, png = out.with_suffix(".pdf"), out.with_suffix(".png")
    ok, encoded = cv2.imencode(".png", page)
    if not ok:
        raise CompanionError("could not encode the marker sheet")
    write_atomically(png, encoded.tobytes())
    write_atomically(pdf, pdf_of(page, *A4))
    return [pdf, png]


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Centres of the corner markers found, by id."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _ = _detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        if int(marker_id) in IDS and int(marker_id) not in found:
            found[int(marker_id)] = quad.reshape(4, 2).mean(axis=0)
    return found


@lru_cache(maxsize=1)
def _detector():
    """Built once: the watcher looks for the markers every time the board settles."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(_dictionary(), params)


_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


@dataclass(frozen=True)
class MarkerFrame:
    """The playing area's corners in the markers' frame of reference (the unit square on their centres)."""

    corners: tuple[tuple[float, float], ...]

    @classmethod
    def learn(cls, image: np.ndarray, corners: Corners) -> MarkerFrame:
        to_unit = cv2.getPerspectiveTransform(_centres(image), _UNIT)
        pts = cv2.perspectiveTransform(np.array(corners, np.float64).reshape(-1, 1, 2), to_unit).reshape(-1, 2)
        return cls(tuple((float(x), float(y)) for x, y in pts))

    def locate(self, image: np.ndarray) -> Corners:
        """The playing area's corners in this frame, wherever the markers now are."""
        to_image = cv2.getPerspectiveTransform(_UNIT, _centres(image))
        pts = cv2.perspectiveTransform(np.array(self.corners, np.float64).reshape(-1, 1, 2), to_image).reshape(-1, 2)
        return tuple((float(x), float(y)) for x, y in pts)  # type: ignore[return-value]


def _centres(image: np.ndarray) -> np.ndarray:
    found = find_markers(image)
    missing = [NAMES[i] for i in IDS if i not in found]
    if missing:
        raise MarkersNotFound(f"corner markers not found: {', '.join(missing)} (are they covered, or out of the picture?)")
    return np.array([found[i] for i in IDS], np.float32)


__all__ = ["IDS", "MarkerFrame", "MarkersNotFound", "NAMES", "find_markers", "marker_image", "pdf_of", "sheet",
           "write_sheet"]
