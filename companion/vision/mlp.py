"""A small multilayer perceptron in NumPy: what the checker models are. Inference only; the weights are trained by
`tools/train_reader.py` on rendered development frames and shipped in `companion/vision/models/`.

A hand-written forward pass of two matrix products is faster here than any framework's call overhead, and
keeps PyTorch and ONNX out of the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.errors import CompanionError


class ModelError(CompanionError):
    """A model file that is missing or does not fit the features."""


@dataclass(frozen=True)
class MLP:
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]

    def logits(self, x: np.ndarray) -> np.ndarray:
        if x.shape[1] != self.mean.shape[0]:
            raise ModelError(f"the model takes {self.mean.shape[0]} features, not {x.shape[1]}")
        h = (x - self.mean) * self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                np.maximum(h, 0, out=h)
        return h

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Softmax over the classes (one column: the sigmoid of the single logit)."""
        z = self.logits(x).astype(np.float64)
        if z.shape[1] == 1:
            return 1.0 / (1.0 + np.exp(-z[:, 0]))
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        arrays = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path) -> MLP:
        try:
            data = np.load(path)
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the model {path}: {exc}") from None
        layers = []
        i = 0
        while f"w{i}" in data:
            layers.append((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)))
            i += 1
        return cls(data["mean"].astype(np.float32), data["scale"].astype(np.float32), tuple(layers))


__all__ = ["MLP", "ModelError"]
