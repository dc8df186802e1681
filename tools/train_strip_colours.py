"""Train the strip colour network (`companion.vision.strip_reader`) and export it as ONNX.

    python tools/train_strip_colours.py --data /work/data/strips-sim3.npz [FILE:K ...] \
        --out companion/vision/models/strip_colours.onnx

Which set a point's checkers belong to is a question about this board: a red checker is the dark set beside white
ones and the light set beside black, and glare makes a dark checker pale. The network sees the first checkers of a
strip (as `checker_crop` cuts them) beside the board's two set colours (as the reader finds them: two-means of the
checkers' middles, or the profile's), and says whether the checkers belong to the first of the two. Each example
is shown with the two sets in either order, so it can only learn "which of these two", not "light or dark"; and
half of them lit unevenly (`uneven_light`), the reference colours unchanged, so that lightness alone does not
decide. `--finishes` also shows crops as other sets and finishes would look (`other_finishes`); the shipped network
was fine-tuned with it in session 32 (docs/VISION.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.layout import STANDARD  # noqa: E402
from tools.onnx_state import conv_blocks, freeze_batch_norm, one_cycle, start_from, strided_stem  # noqa: E402
from tools.onnx_widths import pad_widths  # noqa: E402
from companion.vision.reader import two_colours  # noqa: E402
from companion.vision.strip_reader import COLOUR_ROWS, checker_colours  # noqa: E402
from companion.vision.strips import STRIP_W, beside_sets, normalisation  # noqa: E402
from tools.strip_data import true_dists  # noqa: E402


class ColourNet(nn.Module):
    """`scale` 1: crops of the strips' own pixels. 2: crops cut at twice the pixels each way, read by a stride-2
    first convolution (the finer detail seen once, at little more cost) and the same stack after it."""

    def __init__(self, scale: int = 1) -> None:
        super().__init__()
        self.features = (conv_blocks((9, 16, 24, 32), pooled=3) if scale == 1
                         else nn.Sequential(*strided_stem(9, 16, scale), *conv_blocks((16, 24, 32), pooled=2)))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * (COLOUR_ROWS // 8) * (STRIP_W // 8), 32),
                                  nn.ReLU(inplace=True), nn.Linear(32, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))[:, 0]


def uneven_light(n: int, rng: np.random.Generator, size: tuple[int, int] = (COLOUR_ROWS, STRIP_W)) -> np.ndarray:
    """Light that falls unevenly on half the crops, in the crops' normalised units: a brighter or darker point as a
    whole, a ramp across it, and on some a soft bright spot. The reference colours stay the board's own, so a dark
    checker under a lamp must be told by more than its lightness. (n, 1, *size)."""
    rows = np.linspace(-1, 1, size[0], dtype=np.float32)[None, None, :, None]
    cols = np.linspace(-1, 1, size[1], dtype=np.float32)[None, None, None, :]

    def draw(low, high):
        return rng.uniform(low, high, (n, 1, 1, 1)).astype(np.float32)
    light = draw(-0.6, 0.6) + draw(-0.5, 0.5) * rows + draw(-0.25, 0.25) * cols
    spot = (draw(0, 1.5) * (rng.random((n, 1, 1, 1)) < 0.4)
            * np.exp(-((rows - draw(-1, 1)) ** 2 + (cols - draw(-1, 1)) ** 2) / (2 * draw(0.15, 0.5) ** 2)))
    return ((light + spot) * (rng.random((n, 1, 1, 1)) < 0.5)).astype(np.float32)


def other_finishes(inputs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Checker sets and finishes the training designs do not have, on half the crops: the crop and both reference
    colours mixed by one random colour matrix (other pairs of sets, the choice still "which of these two"), and on
    some a pattern over the crop alone (veins or bands at a random angle, width and spacing, as veined, pearly or
    patterned checkers show; the references, medians of checkers' middles, do not show it)."""
    n, height, width = len(inputs), inputs.shape[2], inputs.shape[3]
    out = inputs.copy()
    mixed = rng.random(n) < 0.5
    mix = np.eye(3, dtype=np.float32)[None] + rng.normal(0, 0.25, (n, 3, 3)).astype(np.float32)
    for k in (0, 3, 6):
        out[mixed, k:k + 3] = np.einsum("nij,njhw->nihw", mix[mixed], inputs[mixed, k:k + 3])
    rows = np.linspace(-1, 1, height, dtype=np.float32)[None, :, None]
    cols = np.linspace(-1, 1, width, dtype=np.float32)[None, None, :] * width / height
    patterned = np.nonzero(rng.random(n) < 0.3)[0]
    if len(patterned):
        m = len(patterned)
        angle = rng.uniform(0, np.pi, (m, 1, 1)).astype(np.float32)
        along = rows * np.cos(angle) + cols * np.sin(angle)
        wobble = 0.15 * np.sin(rng.uniform(2, 8, (m, 1, 1)) * (rows * np.sin(angle) - cols * np.cos(angle)))
        wave = np.sin(rng.uniform(6, 40, (m, 1, 1)) * (along + wobble) + rng.uniform(0, 2 * np.pi, (m, 1, 1)))
        sharp = np.sign(wave) * np.abs(wave) ** rng.uniform(0.3, 3, (m, 1, 1))  # thin veins or broad bands
        tint = rng.normal(0, 1, (m, 3, 1, 1)).astype(np.float32)
        out[patterned, :3] += (rng.uniform(0.1, 0.6, (m, 1, 1, 1)) * tint * sharp[:, None]).astype(np.float32)
    return out


def true_samples(x: np.ndarray, y: np.ndarray, rows: np.ndarray) -> dict[int, np.ndarray]:
    """The checker colour samples (Lab) of one group's strips `rows`, taken where the true counts put checkers
    (a strip labelled "not a point" as empty)."""
    return checker_colours(x[rows], true_dists(y[rows]), STANDARD)


def references(x: np.ndarray, y: np.ndarray, group: np.ndarray) -> dict[int, dict[str, np.ndarray]]:
    """Per group, the two sets' colours (Lab) as the reader finds them, from the true counts."""
    out = {}
    for g in np.unique(group):
        out[int(g)] = two_colours(list(true_samples(x, y, np.nonzero(group == g)[0]).values()))
    return out


def measured_references(x: np.ndarray, y: np.ndarray, group: np.ndarray, colour: np.ndarray) -> dict[int, dict]:
    """Per group, each set's colour (Lab) as calibration measures it on a known position: the median over the
    strips the set covers (`calibrate.measured_colours`; here the bar's halves too), named by the true sets, not by
    a split."""
    out = {}
    for g in np.unique(group[colour >= 0]):
        rows = np.nonzero(group == g)[0]
        samples = true_samples(x, y, rows)
        sets = {name: [lab for s, lab in samples.items() if colour[rows[s]] == value]
                for name, value in (("light", 1), ("dark", 0))}
        if all(sets.values()):
            out[int(g)] = {name: np.median(np.array(labs), axis=0) for name, labs in sets.items()}
    return out


def calibration_references(board: np.ndarray, frame: np.ndarray, group: np.ndarray, measured: dict[int, dict],
                           share: float, rng: np.random.Generator) -> dict[int, dict]:
    """For `share` of the groups of frames after the first, the set colours measured on one cut of their board's
    frame 0 (the starting position): what a profile calibrated on that photo hands the reader under another frame's
    camera and light."""
    firsts = np.unique(group, return_index=True)[1]
    starts: dict[int, list[int]] = {}
    for g, row in zip(group[firsts], firsts):
        if board[row] >= 0 and frame[row] == 0 and int(g) in measured:
            starts.setdefault(int(board[row]), []).append(int(g))
    out = {}
    for g, row in zip(group[firsts], firsts):
        donors = starts.get(int(board[row]), []) if frame[row] > 0 else []
        if donors and rng.random() < share:
            out[int(g)] = measured[donors[int(rng.integers(len(donors)))]]
    return out


@dataclass
class Crops:
    """Colour examples kept as the reader cuts them (uint8), with what turns each into the network's input: its
    group's look (`normalisation`) and the two sets' colours (Lab). Inputs are made a batch at a time, as the reader
    makes them (`beside_sets`): at twice the pixels, all of them made at once would not fit the machine's 24 GB."""

    crops: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    light: np.ndarray
    dark: np.ndarray
    label: np.ndarray
    repeats: np.ndarray

    def inputs(self, rows: np.ndarray) -> np.ndarray:
        return beside_sets(self.crops[rows], self.light[rows], self.dark[rows], (self.mean[rows], self.std[rows]))


def load(specs: list[str], other_share: float = 0.0, scale: int = 1) -> Crops:
    """Every file's crops once, with how many times an epoch each is shown (`FILE:K`): repeats are rows drawn again,
    not copies (three copies of the photoreal crops beside the rest took more than the machine's 24 GB). `scale` 2
    takes the crops `strip_data.py --colour-scale 2` cut at twice the pixels."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in ("crops", "mean", "std", "light", "dark", "label",
                                                                "repeats")}
    calibrated_groups = 0
    for spec in specs:
        path, _, repeat = spec.partition(":")
        data = np.load(path)
        x, y, group, colour = data["x"], data["y"].astype(np.int64), data["group"], data["colour"]
        if scale > 1 and "crops" not in data.files:
            raise SystemExit(f"{path} holds no crops at scale {scale}: make it with strip_data.py --colour-scale")
        crops = data["crops"] if scale > 1 else x[:, :COLOUR_ROWS]
        if crops.shape[1] != scale * COLOUR_ROWS:
            raise SystemExit(f"{path}: crops of {crops.shape[1]} rows, not {scale * COLOUR_ROWS}")
        keep = colour >= 0
        by_group = references(x, y, group)
        calibrated = {}
        if other_share and "board" in data.files:
            calibrated = calibration_references(data["board"], data["frame"], group,
                                                measured_references(x, y, group, colour), other_share,
                                                np.random.default_rng(len(x)))
            by_group.update(calibrated)
        if other_share:
            said = (f"{len(calibrated)} of {len(np.unique(group[keep]))} groups with their board's frame-0 colours"
                    if "board" in data.files else "no boards recorded (the flat renderer's, or made before "
                    "strip_data kept them): the frames' own colours only")
            print(f"{path}: {said}", flush=True)
        calibrated_groups += len(calibrated)
        # each group's strips normalised by the group's own look, as the reader does
        rows_kept = np.nonzero(keep)[0]
        mean = np.empty((len(rows_kept), 3), np.float32)
        std = np.empty(len(rows_kept), np.float32)
        light = np.empty((len(rows_kept), 3), np.float64)
        dark = np.empty((len(rows_kept), 3), np.float64)
        out_rows = np.cumsum(keep) - 1
        for g in np.unique(group[keep]):
            rows = np.nonzero(group == g)[0]
            pick = out_rows[rows[keep[rows]]]
            m, sd = normalisation(x[rows])
            centres = by_group[int(g)]
            mean[pick], std[pick] = m, sd
            light[pick], dark[pick] = centres["light"], centres["dark"]
        for name, value in (("crops", crops[rows_kept]), ("mean", mean), ("std", std), ("light", light), ("dark", dark),
                            ("label", colour[keep].astype(np.float32)),
                            ("repeats", np.full(len(rows_kept), int(repeat or 1)))):
            parts[name].append(value)
        print(f"{path}: {len(rows_kept)} strips with checkers x {repeat or 1}", flush=True)
    if other_share and not calibrated_groups:
        raise SystemExit("--other-frames: no file records its strips' boards and frames (make them again with "
                         "tools/strip_data.py)")
    return Crops(**{name: np.concatenate(value) for name, value in parts.items()})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init", type=Path, help="a .pt state or a shipped .onnx file to start from (fine-tuning)")
    parser.add_argument("--other-frames", type=float, default=0.0,
                        help="share of the frames after the first (of files that record their boards) shown with "
                             "the set colours measured on their board's frame 0, as a calibrated profile gives them")
    parser.add_argument("--finishes", action="store_true",
                        help="other sets' colours on half the crops, a pattern on 30 %% (`other_finishes`)")
    parser.add_argument("--scale", type=int, default=1, choices=(1, 2),
                        help="2: crops cut at twice the pixels each way (files made with --colour-scale 2)")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parents[1] / "companion/vision/models/strip_colours.onnx")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)  # before training: a missing folder lost a finished run
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    data = load(args.data, args.other_frames, args.scale)
    y, repeats = data.label, data.repeats
    held = np.zeros(len(y), bool)
    held[::10] = True  # a tenth of the crops held out, each once (a repeated crop is never on both sides)
    train_rows = np.repeat(np.nonzero(~held)[0], repeats[~held])
    val_rows = np.nonzero(held)[0]
    model = ColourNet(args.scale)
    shape = (9, args.scale * COLOUR_ROWS, args.scale * STRIP_W)
    frozen = args.init is not None and start_from(model, args.init, (8, *shape))
    steps = args.epochs * (len(train_rows) // args.batch)
    opt, sched = one_cycle(model, args.lr, steps)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        if frozen:
            freeze_batch_norm(model)
        order = rng.permutation(train_rows)
        for b in range(len(order) // args.batch):
            rows = np.sort(order[b * args.batch:(b + 1) * args.batch])
            inputs = torch.from_numpy(data.inputs(rows))
            target = y[rows].copy()
            swap = rng.random(len(rows)) < 0.5  # the two sets in either order: only "which of the two" is learnt
            inputs[swap, 3:6], inputs[swap, 6:9] = inputs[swap, 6:9].clone(), inputs[swap, 3:6].clone()
            target[swap] = 1 - target[swap]
            inputs[:, 3:] += torch.from_numpy(rng.normal(0, 0.1, (len(rows), 6, 1, 1)).astype(np.float32))
            inputs[:, :3] *= torch.from_numpy(rng.uniform(0.8, 1.2, (len(rows), 1, 1, 1)).astype(np.float32))
            inputs[:, :3] += torch.from_numpy(uneven_light(len(rows), rng, shape[1:]))
            if args.finishes:
                inputs = torch.from_numpy(other_finishes(inputs.numpy(), rng))
            flip = torch.from_numpy(rng.random(len(rows)) < 0.5)
            inputs[flip] = inputs[flip].flip(3)
            loss = F.binary_cross_entropy_with_logits(model(inputs), torch.from_numpy(target))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            right = sum(int(((model(torch.from_numpy(data.inputs(val_rows[i:i + 2048]))) > 0).numpy()
                             == (y[val_rows[i:i + 2048]] > 0.5)).sum()) for i in range(0, len(val_rows), 2048))
        print(f"epoch {epoch + 1}/{args.epochs}: validation {right / len(val_rows):.5f} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, *shape), str(args.out), input_names=["crops"],
                      output_names=["first_set"], dynamic_axes={"crops": {0: "n"}, "first_set": {0: "n"}},
                      opset_version=17, dynamo=False)
    pad_widths(args.out)  # the same function, faster under ONNX Runtime (tools/onnx_widths.py)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
