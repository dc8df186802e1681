"""The synthetic board renderer: labelled camera frames and whole-game videos, for the demo, tests and the
vision benchmarks (nobody here has a camera, and no labelled photos of boards exist).

>>> from companion.sim import frame
>>> image, label = frame("dev", 0)
>>> image.shape, sum(c for o, c in label.points if o == 0) + label.bar[0] + label.off[0]
((720, 1280, 3), 15)
"""

from companion.sim.render import Die, Effects, FrameLabel, Hand, Pose, Renderer, Scene
from companion.sim.sets import DEV, HELDOUT, frame, sample
from companion.sim.styles import STYLES, Style

__all__ = ["DEV", "HELDOUT", "STYLES", "Die", "Effects", "FrameLabel", "Hand", "Pose", "Renderer", "Scene", "Style",
           "frame", "sample"]
