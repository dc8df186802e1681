"""Train the tray network (`companion.vision.trays`) and export it as ONNX.

    python tools/train_trays.py --data /work/data/trays-train.npz --out companion/vision/models/trays.onnx
    python tools/train_trays.py --evaluate companion/vision/models/trays.onnx --data /work/data/trays-dev.npz

The network reads one tray half (`tools/tray_data.py` cuts them) beside the board's two set colours: how many
checkers it holds (0-15) and whether they are the first set given. Piles of five lie flat, so past the first
checker of a pile a count is told by the pile's height, which only a tilted camera shows; the network is asked to
say how sure it is, and the reader trusts it no further. The sets are shown in either order, as for the colour
network, so it learns "which of these two", not "light or dark". Held-out boards (a tenth, by board) say how it
does on boards it was not trained on; `--evaluate` reads a file of other sets' halves with a shipped network.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.strips import beside_sets  # noqa: E402
from companion.vision.trays import COUNTS, TRAY_H, TRAY_W  # noqa: E402
from tools.onnx_state import conv_blocks, one_cycle, strided_stem  # noqa: E402
from tools.onnx_widths import pad_widths  # noqa: E402


class TrayNet(nn.Module):
    """`scale` 2: halves cut at twice the pixels each way, read by a stride-2 first convolution and the same stack
    after it."""

    def __init__(self, scale: int = 1) -> None:
        super().__init__()
        self.features = (conv_blocks((9, 16, 32, 48, 64), pooled=3) if scale == 1
                         else nn.Sequential(*strided_stem(9, 16, scale), *conv_blocks((16, 32, 48, 64), pooled=2)))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * (TRAY_H // 8) * (TRAY_W // 8), 64),
                                  nn.ReLU(inplace=True), nn.Linear(64, COUNTS + 1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.head(self.features(x))
        return out[:, :COUNTS], out[:, COUNTS]


def inputs_of(data, rows: np.ndarray) -> np.ndarray:
    """The network's input for stored rows: each half normalised by its board's look, beside the two set colours."""
    return beside_sets(data["x"][rows], data["light"][rows], data["dark"][rows],
                       (data["mean"][rows], data["std"][rows]))


def report(counts: np.ndarray, first: np.ndarray, y: np.ndarray, colour: np.ndarray, title: str) -> None:
    """Counts right (all halves, and those holding checkers), sure counts right, colours right."""
    p = np.exp(counts - counts.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    best = p.argmax(axis=1)
    held = y > 0
    sure = p.max(axis=1) >= 0.9
    colour_right = ((first > 0) == (colour == 1))[colour >= 0]
    print(f"{title}: counts right {np.mean(best == y):.4f} of {len(y)}; of halves holding checkers "
          f"{np.mean(best[held] == y[held]):.4f} of {held.sum()} "
          f"(within one {np.mean(abs(best[held] - y[held]) <= 1):.3f}); "
          f"sure (0.9) {sure.mean():.3f} of halves, right {np.mean(best[sure] == y[sure]):.4f}; "
          f"empty read holding {np.sum((best > 0) & ~held)}, holding read empty {np.sum((best == 0) & held)}; "
          f"colours right {colour_right.mean() if len(colour_right) else float('nan'):.4f}", flush=True)


def predict(run, data, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts, first = [], []
    for i in range(0, len(rows), 1024):
        c, f = run(inputs_of(data, rows[i:i + 1024]))
        counts.append(c)
        first.append(f)
    return np.concatenate(counts), np.concatenate(first)


def evaluate(path: Path, data_path: str) -> int:
    from companion.vision.network import Network

    network = Network(path)
    data = np.load(data_path)
    rows = np.arange(len(data["y"]))
    counts, first = predict(lambda x: tuple(network.outputs(x)), data, rows)
    report(counts, first, data["y"].astype(np.int64), data["colour"], f"{path.name} on {data_path}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--holding-weight", type=float, default=4.0,
                        help="how many times an epoch a half holding checkers is shown (most hold none)")
    parser.add_argument("--evaluate", type=Path, help="read --data with this exported network, and stop")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parents[1] / "companion/vision/models/trays.onnx")
    args = parser.parse_args()
    if args.evaluate:
        return evaluate(args.evaluate, args.data)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    data = dict(np.load(args.data))
    y, colour, board = data["y"].astype(np.int64), data["colour"].astype(np.int64), data["board"]
    held = board % 10 == 3  # whole boards held out: a board's other frames must not teach its look
    weight = np.where(y > 0, args.holding_weight, 1.0)
    train_rows = np.repeat(np.nonzero(~held)[0], np.round(weight[~held]).astype(int))
    val_rows = np.nonzero(held)[0]
    print(f"{(~held).sum()} training halves ({np.sum(y[~held] > 0)} holding checkers), {held.sum()} held out",
          flush=True)
    shape = tuple(int(v) for v in data["x"].shape[1:3])
    scale = shape[0] // TRAY_H
    if shape != (scale * TRAY_H, scale * TRAY_W):
        raise SystemExit(f"{args.data}: halves of {shape}, not a whole multiple of {(TRAY_H, TRAY_W)}")
    model = TrayNet(scale)
    steps = args.epochs * (len(train_rows) // args.batch)
    opt, sched = one_cycle(model, args.lr, steps)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(train_rows)
        for b in range(len(order) // args.batch):
            rows = np.sort(order[b * args.batch:(b + 1) * args.batch])
            inputs = torch.from_numpy(inputs_of(data, rows))
            first = (colour[rows] == 1).astype(np.float32)
            swap = rng.random(len(rows)) < 0.5  # the two sets in either order: only "which of the two" is learnt
            inputs[swap, 3:6], inputs[swap, 6:9] = inputs[swap, 6:9].clone(), inputs[swap, 3:6].clone()
            first[swap] = 1 - first[swap]
            inputs[:, 3:] += torch.from_numpy(rng.normal(0, 0.1, (len(rows), 6, 1, 1)).astype(np.float32))
            inputs[:, :3] *= torch.from_numpy(rng.uniform(0.8, 1.2, (len(rows), 1, 1, 1)).astype(np.float32))
            inputs[:, :3] += torch.from_numpy(rng.normal(0, 0.15, (len(rows), 3, 1, 1)).astype(np.float32))
            inputs[:, :3] += torch.from_numpy(rng.normal(0, 0.05, (len(rows), 3, *shape)).astype(np.float32))
            counts, first_logit = model(inputs)
            has = torch.from_numpy(colour[rows] >= 0)
            loss = F.cross_entropy(counts, torch.from_numpy(y[rows]))
            if has.any():
                loss = loss + 0.5 * F.binary_cross_entropy_with_logits(first_logit[has], torch.from_numpy(first)[has])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            counts, first = predict(lambda x: tuple(t.numpy() for t in model(torch.from_numpy(x))), data, val_rows)
        report(counts, first, y[val_rows], colour[val_rows],
               f"epoch {epoch + 1}/{args.epochs} ({time.perf_counter() - start:.0f} s), held-out boards")
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 9, *shape), str(args.out), input_names=["halves"],
                      output_names=["counts", "first_set"],
                      dynamic_axes={"halves": {0: "n"}, "counts": {0: "n"}, "first_set": {0: "n"}},
                      opset_version=17, dynamo=False)
    pad_widths(args.out)  # the same function, faster under ONNX Runtime (tools/onnx_widths.py)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
