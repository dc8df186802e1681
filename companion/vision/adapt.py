"""Adapting the strip network to one board from one photo of a known position, as chesscog adapts its piece
classifier to a chess set: only the last layer moves, pulled towards the shipped one.

The photo is cut many times with jittered strip frames (what the network was trained on) and each cut's last hidden
layer is kept; the last layer is then fitted to the known counts by gradient descent on the cross-entropy, plus a
penalty on its distance from the shipped layer, so that counts the photo does not show (the start shows 0, 2, 3
and 5) stay as they were learnt.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

Head = tuple[np.ndarray, np.ndarray]
"""The last layer: weights (hidden, classes) and bias (classes)."""

PULL = 0.05
"""How strongly the adapted layer is held to the shipped one (per weight, squared)."""


def shipped_head(models: Path) -> Head:
    with np.load(models / "strips_head.npz") as data:
        return data["weights"].astype(np.float64), data["bias"].astype(np.float64)


def adapt_head(hidden: np.ndarray, labels: np.ndarray, head: Head, *, pull: float = PULL, steps: int = 300,
               rate: float = 0.5) -> Head:
    """The last layer fitted to `labels` (class per row of `hidden`), starting from and held to `head`."""
    w0, b0 = head
    w, b = w0.copy(), b0.copy()
    x = hidden.astype(np.float64)
    onehot = np.eye(w0.shape[1])[labels]
    for _ in range(steps):
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        grad = (p - onehot) / len(x)
        w -= rate * (x.T @ grad + pull * (w - w0))
        b -= rate * (grad.sum(axis=0) + pull * (b - b0))
    return w, b


__all__ = ["Head", "PULL", "adapt_head", "shipped_head"]
