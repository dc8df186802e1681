"""Train the corner keypoint network (`companion.vision.keypoints`) and export it to ONNX.

    python tools/train_corners.py --sim 4000 [--photoreal DIR...] --out companion/vision/models/corners.onnx

Frames: the flat renderer's development sets (dev, dev-hard, dev-vivid: never the held-out seeds) and, when
given, photoreal frames of the *training* designs (`DIR/train`; the held-out designs are never read here).
Augmented hard: scale, turn, shift, mirror, colour, blur, noise. Photoreal training boards 10-14, and every tenth
board from 600 on, are kept out of training to measure on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.keypoints import INPUT, from_cells, peaks, to_cells  # noqa: E402
from tools.onnx_state import freeze_batch_norm, start_from  # noqa: E402

STORE = (320, 180)
"""Frames are kept at this size (a margin over `INPUT` for the augmentation's scaling)."""


def sim_frame(index: int):
    from companion.sim import frame
    from companion.sim.truth import image_corners

    name = ("dev", "dev-hard", "dev-vivid")[index % 3]
    image, label = frame(name, index // 3 + 20_000, *STORE)
    return image, np.array(image_corners(label), np.float32)


DEV_BOARDS = range(10, 15)
"""Photoreal training-design boards kept to measure on (`benchmarks/photoreal_bench.py` reads them too)."""
FIRST_TENTH_VAL_BOARD = 600
"""From this board on every tenth one (its number ending in 9) is kept to measure on: boards 10-14 were lost with
a machine's data, and the boards rendered since have their own."""


def is_validation_board(board: int) -> bool:
    return board in DEV_BOARDS or (board >= FIRST_TENTH_VAL_BOARD and board % 10 == 9)


def photoreal_frames(roots: list[Path]):
    train, val = [], []
    for path in sorted(p for root in roots for p in (root / "train").glob("*.jpg")):
        label = json.loads(path.with_suffix(".json").read_text())
        image = cv2.imread(str(path))
        corners = [tuple(p) for p in label["corners"]]
        if label["pose"]["from_player1"]:
            corners = corners[2:] + corners[:2]
        scale = np.array([STORE[0] / image.shape[1], STORE[1] / image.shape[0]])
        small = cv2.resize(image, STORE, interpolation=cv2.INTER_AREA)
        item = (small, ((np.array(corners) + 0.5) * scale - 0.5).astype(np.float32))
        (val if is_validation_board(int(label["board_id"].rsplit("-", 1)[1])) else train).append(item)
    return train, val


def augment(image, corners, rng):
    """A random view of a stored frame at `INPUT` size, its corners moved with it (image order kept)."""
    h, w = image.shape[:2]
    base = INPUT[0] / w
    scale = base * rng.uniform(0.8, 1.2)
    angle = rng.uniform(-8, 8)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[0, 2] += INPUT[0] / 2 - w / 2 + rng.uniform(-0.1, 0.1) * INPUT[0]
    m[1, 2] += INPUT[1] / 2 - h / 2 + rng.uniform(-0.1, 0.1) * INPUT[1]
    out = cv2.warpAffine(image, m, INPUT, borderMode=cv2.BORDER_REFLECT if rng.random() < 0.5 else cv2.BORDER_REPLICATE)
    pts = np.c_[corners, np.ones(4)] @ m.T
    if rng.random() < 0.5:  # a mirror image: the left corners become the right ones
        out = out[:, ::-1]
        pts[:, 0] = INPUT[0] - 1 - pts[:, 0]
        pts = pts[[1, 0, 3, 2]]
    out = out.astype(np.float32)
    out = out * rng.uniform(0.6, 1.4, 3) + rng.uniform(-40, 40)
    if rng.random() < 0.15:
        out[:] = out.mean(axis=2, keepdims=True)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.5))
    out = out + rng.normal(0, rng.uniform(0, 8), out.shape)
    out = np.clip(out, 0, 255)
    mean, std = cv2.meanStdDev(out)
    out = (out - mean.reshape(1, 1, 3)) / (std.reshape(1, 1, 3) + 1.0)
    return out.transpose(2, 0, 1).astype(np.float32), to_cells(pts, INPUT).astype(np.float32)


def build_model():
    import torch
    from torch import nn

    def block(i, o, s=1, d=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, s, d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class CornerNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.s2 = nn.Sequential(block(3, 16, 2), block(16, 16))
            self.s4 = nn.Sequential(block(16, 32, 2), block(32, 32))
            self.s8 = nn.Sequential(block(32, 48, 2), block(48, 48))
            self.s16 = nn.Sequential(block(48, 64, 2), block(64, 64), block(64, 64, d=2))
            self.up8 = block(64 + 48, 48)
            self.up4 = block(48 + 32, 32)
            self.head = nn.Conv2d(32, 4, 1)

        def forward(self, x):
            s4 = self.s4(self.s2(x))
            s8 = self.s8(s4)
            s16 = self.s16(s8)
            u8 = self.up8(torch.cat([nn.functional.interpolate(s16, size=s8.shape[2:], mode="bilinear"), s8], 1))
            u4 = self.up4(torch.cat([nn.functional.interpolate(u8, size=s4.shape[2:], mode="bilinear"), s4], 1))
            return self.head(u4)

    return CornerNet()


def loss_fn(logits, target):
    """Cross-entropy against a Gaussian of one cell about each corner, plus the soft-argmax's distance."""
    import torch

    b, k, h, w = logits.shape
    ys = torch.arange(h, dtype=torch.float32).view(1, 1, h, 1)
    xs = torch.arange(w, dtype=torch.float32).view(1, 1, 1, w)
    tx, ty = target[..., 0].view(b, k, 1, 1), target[..., 1].view(b, k, 1, 1)
    g = torch.exp(-((xs - tx) ** 2 + (ys - ty) ** 2) / 2.0)
    g = g / g.sum(dim=(2, 3), keepdim=True).clamp_min(1e-6)
    logp = torch.log_softmax(logits.view(b, k, -1), dim=2).view(b, k, h, w)
    ce = -(g * logp).sum(dim=(2, 3)).mean()
    p = logp.exp()
    px, py = (p * xs).sum(dim=(2, 3)), (p * ys).sum(dim=(2, 3))
    l1 = ((px - target[..., 0]).abs() + (py - target[..., 1]).abs()).mean()
    return ce + 0.2 * l1


def errors(model, items, rng):
    """Median and 95th-percentile corner error, pixels of a 1280-wide frame, on un-augmented views."""
    import torch

    out = []
    model.eval()
    with torch.no_grad():
        for image, corners in items:
            x, _ = augment_plain(image, corners)
            heat = model(torch.from_numpy(x[None]))[0].numpy()
            cells, _ = peaks(heat)
            found = from_cells(cells, STORE)
            out.extend(np.linalg.norm(found - corners, axis=1) * 1280 / STORE[0])
    model.train()
    return float(np.median(out)), float(np.percentile(out, 95))


def augment_plain(image, corners):
    small = cv2.resize(image, INPUT, interpolation=cv2.INTER_AREA).astype(np.float32)
    mean, std = cv2.meanStdDev(small)
    small = (small - mean.reshape(1, 1, 3)) / (std.reshape(1, 1, 3) + 1.0)
    return small.transpose(2, 0, 1).astype(np.float32), None


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", type=int, default=4000)
    parser.add_argument("--photoreal", type=Path, nargs="+", help="folders of photoreal training boards")
    parser.add_argument("--photoreal-weight", type=int, default=6, help="times each photoreal frame is shown")
    parser.add_argument("--steps", type=int, default=2500)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", type=Path, help="a .pt state or a shipped .onnx file to start from (fine-tuning; "
                        "from ONNX, the BatchNorm layers stay frozen)")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)  # before training: a missing folder lost a finished run
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    started = time.time()
    with ProcessPoolExecutor(2) as pool:
        sim = list(pool.map(sim_frame, range(args.sim), chunksize=32))
    sim_val = sim[-200:]
    sim = sim[:-200]
    real, real_val = photoreal_frames(args.photoreal) if args.photoreal else ([], [])
    pool_items = sim + real * args.photoreal_weight
    print(f"{len(sim)} sim frames, {len(real)} photoreal (+{len(real_val)} to measure on) "
          f"in {time.time() - started:.0f} s", flush=True)
    model = build_model()
    frozen = args.init is not None and start_from(model, args.init, (1, 3, INPUT[1], INPUT[0]))  # (batch fixed: 1)
    opt = torch.optim.AdamW(model.parameters(), args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.steps, pct_start=0.1)
    for step in range(args.steps):
        if frozen:
            freeze_batch_norm(model)  # (`errors` puts the model back in train mode)
        idx = rng.integers(len(pool_items), size=args.batch)
        xs, ts = zip(*(augment(*pool_items[i], rng) for i in idx))
        logits = model(torch.from_numpy(np.stack(xs)))
        loss = loss_fn(logits, torch.from_numpy(np.stack(ts)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 250 == 0 or step == args.steps - 1:
            figures = f"sim val {errors(model, sim_val[:60], rng)}"
            if real_val:
                figures += f", photoreal val {errors(model, real_val, rng)}"
            print(f"step {step} loss {loss.item():.3f} {figures} ({time.time() - started:.0f} s)", flush=True)
    print(f"final: sim val (median, p95 px at 1280 wide) {errors(model, sim_val, rng)}"
          + (f", photoreal val {errors(model, real_val, rng)}" if real_val else ""), flush=True)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 3, INPUT[1], INPUT[0]), str(args.out), input_names=["image"],
                      output_names=["heatmaps"], opset_version=17, dynamo=False)
    torch.save(model.state_dict(), args.out.with_suffix(".pt"))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
