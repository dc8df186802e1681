"""Vision: frames from a camera, video or folder, stillness gating, and (being built) calibration and board
reading. Imports rules (the board's geometry), OpenCV and NumPy; nothing above it."""

from companion.vision.capture import CaptureError, Frame, Status, open_source
from companion.vision.motion import Motion, StillnessGate

__all__ = ["CaptureError", "Frame", "Motion", "Status", "StillnessGate", "open_source"]
