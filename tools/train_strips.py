"""Train the strip network (`companion.vision.strips`, read by `companion.vision.strip_reader`) and export it as ONNX.

    python tools/train_strips.py --data /work/data/strips-sim.npz [/work/data/strips-photoreal.npz:3] \
        --out companion/vision/models/strips.onnx

Each data file comes from `tools/strip_data.py`; `FILE:K` repeats a file's groups K times an epoch (the photoreal
frames are few and worth more than the flat renderer's). The network sees one strip (a point or half the bar, its
edge up, measured in point widths) and says how many checkers stand on it, 0..15, or that it is not a point at all
(class 16: what the board test averages). PyTorch (the `train` extra) on the CPU; the companion runs the ONNX
file with ONNX Runtime.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.strips import STRIP_H, STRIP_W  # noqa: E402
from tools.onnx_state import conv_blocks, freeze_batch_norm, one_cycle, start_from  # noqa: E402
from tools.onnx_widths import pad_widths  # noqa: E402

CLASSES = 17
TALL = slice(6, 16)
"""The classes of six checkers and more, which `--tall` shows more often."""


class StripNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = conv_blocks((3, 12, 24, 32, 48), pooled=3)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(48 * (STRIP_H // 8) * (STRIP_W // 8), 96),
                                  nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(96, CLASSES))
        self.offset = nn.Linear(96, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.head[:3](self.features(x))
        return self.head[4](self.head[3](hidden)), self.offset(hidden)[:, 0]


def tall_prior(tall: int) -> torch.Tensor:
    """What to add to the logits in the training loss when stacks of six and more are shown `tall` times an epoch:
    log `tall` on their classes (the logit-adjusted loss, Menon et al. 2021). The repeats then teach their looks and
    the network itself keeps their frequency as `--data` (with its `FILE:K` repeats) weighs them, so the exported
    logits need no correction and a later fine-tune starts from them as they are. Without it, `--tall 3` tripled
    the tall classes' odds against the others: fine-tuned so, the strip network read counts of one to five on its
    validation strips of boards 0-118 right 98.1 % of the time, 98.8 % with it (the network it started from
    99.1 %); on metal boards 642-681, 95.1 % and 97.3 % (96.7 %; docs/VISION.md, session 41)."""
    prior = torch.zeros(CLASSES)
    prior[TALL] = math.log(tall)
    return prior


class Exported(nn.Module):
    """What the ONNX file holds: the logits, how far off its middle each strip is cut (point widths across), and
    the last hidden layer."""

    def __init__(self, net: StripNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        hidden = self.net.head[:3](self.net.features(x))
        return self.net.head[4](hidden), self.net.offset(hidden)[:, 0], hidden


def group_stats(x: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per strip, its group's mean colour and spread, as `strips.network_input` works them out per frame."""
    groups = np.unique(group)
    mean = np.zeros((len(x), 3), np.float32)
    std = np.zeros(len(x), np.float32)
    for g in groups:
        rows = np.nonzero(group == g)[0]
        pix = x[rows].reshape(-1, 3).astype(np.float32)
        mean[rows] = pix.mean(axis=0)
        std[rows] = pix.std(axis=0).mean() + 8.0
    return mean, std


def load(specs: list[str]):
    xs, ys, os, means, stds, groups, offset = [], [], [], [], [], [], 0
    for spec in specs:
        path, _, repeat = spec.partition(":")
        data = np.load(path)
        x, y, group = data["x"], data["y"].astype(np.int64), data["group"]
        o = data["offset"] if "offset" in data else np.full(len(y), np.nan, np.float32)
        mean, std = group_stats(x, group)
        for _ in range(int(repeat or 1)):
            xs.append(x); ys.append(y); os.append(o); means.append(mean); stds.append(std)
            groups.append(group + offset)
        offset += int(group.max()) + 1
        print(f"{path}: {len(x)} strips x {repeat or 1}", flush=True)
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(os), np.concatenate(means),
            np.concatenate(stds), np.concatenate(groups))


def batch_input(x, mean, std, rng: np.random.Generator | None, augment: bool):
    """The batch as the network takes it, and which strips were mirrored (their offsets change sign)."""
    t = torch.from_numpy(x).float()  # (n, H, W, 3)
    if augment:
        n = len(x)
        gain = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1)).astype(np.float32))
        tint = torch.from_numpy(rng.uniform(0.9, 1.1, (n, 1, 1, 3)).astype(np.float32))
        t = t * gain * tint
    t = (t - torch.from_numpy(mean)[:, None, None, :]) / torch.from_numpy(std)[:, None, None, None]
    t = t.permute(0, 3, 1, 2).contiguous()
    if augment:
        n = len(x)
        flip = torch.from_numpy(rng.random(n) < 0.5)  # the caller negates these strips' offsets
        t[flip] = t[flip].flip(3)
        blur = torch.from_numpy(rng.random(n) < 0.3)
        if blur.any():
            t[blur] = F.avg_pool2d(t[blur], 3, 1, 1, count_include_pad=False)
        t = t + torch.randn_like(t) * torch.from_numpy(rng.uniform(0, 0.15, (n, 1, 1, 1)).astype(np.float32))
        t = t + torch.from_numpy(rng.normal(0, 0.15, (n, 3, 1, 1)).astype(np.float32))
        return t, flip.numpy()
    return t, np.zeros(len(x), bool)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--init", type=Path, help="a .pt state or a shipped .onnx file to start from (fine-tuning; "
                        "from ONNX, the BatchNorm layers stay frozen)")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parents[1] / "companion/vision/models/strips.onnx")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--teacher", type=Path,
                        help="a shipped .onnx strip network whose answers the new one keeps close to on every "
                             "training strip (learning without forgetting: the data it learnt from may be gone)")
    parser.add_argument("--distill", type=float, default=1.0, help="with --teacher: the weight of keeping close")
    parser.add_argument("--where-right", action="store_true",
                        help="with --teacher: keep close only on the strips the teacher reads right (its misses "
                             "on new boards are learnt from the labels alone)")
    parser.add_argument("--tall", type=int, default=1,
                        help="show strips of 6 checkers and more this many times an epoch (they are rare in games); "
                             "the loss is adjusted for it (`tall_prior`), so their frequency stays as --data weighs it")
    args = parser.parse_args()
    if args.tall < 1:
        parser.error("--tall is how many times an epoch shows a tall strip: 1 or more")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, offsets, mean, std, group = load(args.data)
    held = np.isin(group, np.unique(group)[::10])  # every tenth group for validation
    train_rows, val_rows = np.nonzero(~held)[0], np.nonzero(held)[0]
    tall = train_rows[(y[train_rows] >= TALL.start) & (y[train_rows] < TALL.stop)]
    train_rows = np.concatenate([train_rows] + [tall] * (args.tall - 1))
    model = StripNet()
    frozen = args.init is not None and start_from(model, args.init, (8, 3, STRIP_H, STRIP_W))
    steps = args.epochs * (len(train_rows) // args.batch)
    opt, sched = one_cycle(model, args.lr, steps)
    prior = tall_prior(args.tall)
    teacher = Teacher(args.teacher, args.where_right) if args.teacher else None
    start, step = time.perf_counter(), 0
    for epoch in range(args.epochs):
        model.train()
        if frozen:
            freeze_batch_norm(model)
        order = rng.permutation(train_rows)
        total = 0.0
        for b in range(len(order) // args.batch):
            rows = np.sort(order[b * args.batch:(b + 1) * args.batch])
            inputs, flipped = batch_input(x[rows], mean[rows], std[rows], rng, True)
            logits, off = model(inputs)
            target = np.where(flipped, -offsets[rows], offsets[rows])
            known = torch.from_numpy(~np.isnan(target))
            loss = F.cross_entropy(logits + prior, torch.from_numpy(y[rows]))
            if teacher is not None:
                loss = loss + args.distill * teacher.divergence(inputs, logits, torch.from_numpy(y[rows]))
            if known.any():
                # offsets in point widths are ~0.1: weighted so the offset head's error counts like a few % of
                # the count loss
                loss = loss + 10 * F.smooth_l1_loss(off[known], torch.from_numpy(np.nan_to_num(target))[known],
                                                    beta=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += float(loss.detach())
        acc, off_err = evaluate(model, x, y, offsets, mean, std, val_rows)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / max(1, len(order) // args.batch):.4f}, "
              f"validation {acc:.5f}, offset error median {off_err:.4f} point widths "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out.with_suffix(".pt"))
    model.eval()
    torch.onnx.export(Exported(model), torch.zeros(1, 3, STRIP_H, STRIP_W), str(args.out), input_names=["strips"],
                      output_names=["logits", "offset", "hidden"],
                      dynamic_axes={"strips": {0: "n"}, "logits": {0: "n"}, "offset": {0: "n"}, "hidden": {0: "n"}},
                      opset_version=17, dynamo=False)
    pad_widths(args.out)  # the same function, faster under ONNX Runtime (tools/onnx_widths.py)
    head = model.head[4]
    np.savez(args.out.with_name("strips_head.npz"), weights=head.weight.detach().numpy().T.copy(),
             bias=head.bias.detach().numpy().copy())
    print(f"saved {args.out} and its last layer (strips_head.npz, what calibration adapts)")
    return 0


class Teacher:
    """An earlier network's answers as soft targets (Li and Hoiem, "Learning without Forgetting", 2017): a
    fine-tune on new boards then keeps what the earlier network read right on strips like the old training data,
    which this machine no longer has."""

    TEMPERATURE = 2.0

    def __init__(self, path: Path, where_right: bool = False) -> None:
        import onnxruntime as ort

        self.where_right = where_right
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def divergence(self, inputs: torch.Tensor, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """KL(teacher || student) at `TEMPERATURE`, scaled by its square (Hinton et al.) so its gradients weigh
        as the labels' do; with `where_right`, on the strips whose label is the teacher's likeliest answer only."""
        t = self.TEMPERATURE
        taught = torch.from_numpy(self.session.run(["logits"], {"strips": inputs.numpy()})[0])
        each = F.kl_div(F.log_softmax(logits / t, dim=1), F.log_softmax(taught / t, dim=1), log_target=True,
                        reduction="none").sum(dim=1) * t * t
        if self.where_right:
            each = each * (taught.argmax(dim=1) == labels).float()
        return each.mean()


def evaluate(model, x, y, offsets, mean, std, rows) -> tuple[float, float]:
    """Count accuracy, and the median error of the offsets, on `rows`."""
    model.eval()
    right, errors = 0, []
    with torch.no_grad():
        for b in range(0, len(rows), 1024):
            r = rows[b:b + 1024]
            logits, off = model(batch_input(x[r], mean[r], std[r], None, False)[0])
            right += int((logits.argmax(1).numpy() == y[r]).sum())
            known = ~np.isnan(offsets[r])
            errors.extend(np.abs(off.numpy()[known] - offsets[r][known]).tolist())
    return right / max(1, len(rows)), float(np.median(errors)) if errors else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
