"""An ONNX network run by ONNX Runtime: what the dice finder and readers are.

ONNX Runtime, not OpenCV's DNN module, runs them: on this project's 2-core machine, one thread each, over 200
development frames it ran the finder on a board's plane in a median 1.35 ms against OpenCV 5.0's 3.07 ms, and the
reader on a frame's finds in 0.71 ms against 1.28 ms, their outputs 3e-5 apart at most
(`benchmarks/dice_bench.py --runtimes 200 --set dev` prints both side by side). One thread: the board read, the
dice read and the engine share two cores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime

from companion.vision.mlp import ModelError


class Network:
    """One ONNX file, loaded once: `network(x)` is its first output for the float32 NCHW batch `x`."""

    def __init__(self, path: Path) -> None:
        if not path.exists():
            raise ModelError(f"the model {path} is missing (train it with tools/train_dice.py)")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: it warns about nothing we can act on
        try:
            self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # ONNX Runtime raises its own untyped errors for a bad file
            raise ModelError(f"the model {path} cannot be loaded: {error}") from error
        self.input = self.session.get_inputs()[0].name
        self.input_shape = tuple(self.session.get_inputs()[0].shape)
        """The input's dimensions as the file declares them (a name, not a number, where they vary)."""

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input: np.ascontiguousarray(x, np.float32)})[0]

    def outputs(self, x: np.ndarray) -> list[np.ndarray]:
        """Every output of the network, in the file's order."""
        return self.session.run(None, {self.input: np.ascontiguousarray(x, np.float32)})


__all__ = ["Network"]
