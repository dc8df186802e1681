"""A PyTorch state rebuilt from a shipped ONNX file, so a network can be fine-tuned from the model the companion
runs (the training runs' `.pt` states are not kept in the repository).

The ONNX export folds each BatchNorm into the convolution before it (a weight scaled, a bias added), so the
rebuilt state gives each convolution the folded weight and its BatchNorm the identity plus the folded bias: the
same function exactly. Fine-tune such a model with its BatchNorm layers in eval mode (`freeze_batch_norm`), or
their batch statistics would replace the folded ones at the first step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn


def conv_blocks(widths: tuple[int, ...], pooled: int) -> nn.Sequential:
    """The networks' feature stack: 3x3 convolution, BatchNorm and ReLU from each width to the next, the first
    `pooled` blocks followed by a 2x2 max-pool (the conv-norm-relu order `state_from_onnx` folds back)."""
    layers: list[nn.Module] = []
    for i in range(len(widths) - 1):
        layers += [nn.Conv2d(widths[i], widths[i + 1], 3, padding=1, bias=False), nn.BatchNorm2d(widths[i + 1]),
                   nn.ReLU(inplace=True)]
        if i < pooled:
            layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


def strided_stem(in_channels: int, out_channels: int, stride: int) -> list[nn.Module]:
    """A first block for inputs cut at `stride` times the pixels: a strided 3x3 convolution, BatchNorm, ReLU and a
    2x2 max-pool, after which the network's usual stack reads features at its usual size."""
    return [nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True), nn.MaxPool2d(2)]


def one_cycle(model: nn.Module, lr: float, steps: int):
    """The strip, colour and tray networks' optimiser and schedule: AdamW under a one-cycle rate peaking at `lr`
    15 % of the way through `steps`."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)


def state_from_onnx(model: nn.Module, path: Path) -> dict[str, torch.Tensor]:
    """`model`'s state dict with every weight taken from `path`, an export of the same architecture."""
    graph = onnx.load(str(path)).graph
    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    state = model.state_dict()
    # the folded convolutions, in graph order; their initialisers lost their names
    folded = [node for node in graph.node if node.op_type == "Conv" and node.input[1].startswith("onnx::")]
    modules = list(model.named_modules())
    # each with the module after it: the BatchNorm folded into it, in these networks' conv-norm-relu blocks
    convs = [(name, m, modules[i + 1] if i + 1 < len(modules) else (None, None))
             for i, (name, m) in enumerate(modules) if isinstance(m, nn.Conv2d)
             and not any(n == f"{name}.weight" or n.endswith(f".{name}.weight") for n in values)]
    if len(folded) != len(convs):
        raise ValueError(f"{path}: {len(folded)} folded convolutions, the model has {len(convs)}")
    for node, (name, conv, (norm_name, norm)) in zip(folded, convs):
        weight = torch.from_numpy(values[node.input[1]].copy())
        bias = torch.from_numpy(values[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(len(weight))
        weight, bias = _unpadded(weight, bias, tuple(conv.weight.shape))
        if tuple(weight.shape) != tuple(conv.weight.shape):
            raise ValueError(f"{path}: {name} is {tuple(weight.shape)}, the model's {tuple(conv.weight.shape)}")
        state[f"{name}.weight"] = weight
        if isinstance(norm, nn.BatchNorm2d):
            if conv.bias is not None:  # its bias is folded into the norm's, with the norm's own
                state[f"{name}.bias"] = torch.zeros_like(bias)
            state[f"{norm_name}.weight"] = torch.ones_like(bias)
            state[f"{norm_name}.bias"] = bias
            state[f"{norm_name}.running_mean"] = torch.zeros_like(bias)
            state[f"{norm_name}.running_var"] = torch.full_like(bias, 1.0 - norm.eps)
        elif conv.bias is not None:
            state[f"{name}.bias"] = bias
    set_by_folding = {f"{n}.{part}" for n, m in modules if isinstance(m, nn.BatchNorm2d)
                      for part in ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")}
    set_by_folding |= {f"{name}.{part}" for name, _, _ in convs for part in ("weight", "bias")}
    for key in state:
        # named initialisers keep the module path, under the wrapper's own prefix if the export wrapped the model
        named = [v for n, v in values.items() if n == key or n.endswith("." + key)]
        if len(named) == 1:
            state[key] = torch.from_numpy(named[0].copy())
        elif key not in set_by_folding:
            raise ValueError(f"{path}: {len(named)} initialisers match the model's {key}")
    return state


def _unpadded(weight: torch.Tensor, bias: torch.Tensor, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """A convolution's weight and bias without the zero channels `pad_widths` added past the model's `shape`."""
    out, into = shape[:2]
    if weight.shape[0] < out or weight.shape[1] < into or not (weight.shape[0] > out or weight.shape[1] > into):
        return weight, bias
    if weight[out:].any() or weight[:, into:].any() or bias[out:].any():
        raise ValueError("a convolution wider than the model's has channels past its width that are not zero")
    return weight[:out, :into].contiguous(), bias[:out].contiguous()


def start_from(model: nn.Module, path: Path, shape: tuple[int, ...]) -> bool:
    """Load `path` into `model`: a `.pt` state as it is, or a shipped `.onnx` file rebuilt and checked against ONNX
    Runtime on input of `shape`. True when it came from ONNX: call `freeze_batch_norm` after each `train()`."""
    if path.suffix != ".onnx":
        model.load_state_dict(torch.load(path))
        return False
    model.load_state_dict(state_from_onnx(model, path))
    print(f"started from {path}: off by {check_against_onnx(model, path, shape):.1g}")
    return True


def freeze_batch_norm(model: nn.Module) -> None:
    """Put the BatchNorm layers in eval mode (call after each `model.train()`)."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()


def check_against_onnx(model: nn.Module, path: Path, shape: tuple[int, ...], tolerance: float = 1e-3) -> float:
    """The largest difference between `model` (in eval mode, first output) and ONNX Runtime running `path` on
    random input of `shape`; raises if it is over `tolerance` (the state was rebuilt wrong)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path))
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    was_training = model.training
    model.eval()
    with torch.no_grad():
        got = model(torch.from_numpy(x))
    model.train(was_training)
    got = (got[0] if isinstance(got, (tuple, list)) else got).numpy()
    worst = float(np.abs(got - expected).max())
    if worst > tolerance:
        raise ValueError(f"the state rebuilt from {path} differs from it by {worst:.3g}")
    return worst
