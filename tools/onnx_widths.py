"""The shipped networks' convolutions widened to ONNX Runtime's block: the same function, run faster.

    python tools/onnx_widths.py MODEL.onnx...      # pad in place (the training tools do it on export)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


PADDED_WIDTH = 16
"""ONNX Runtime's blocked convolutions (NCHWc: 16 channels a block with AVX-512, 8 with AVX2) keep a network in
their layout only where each width is a multiple of the block: a 12- or 24-wide layer is reordered to the plain
layout and back around its max-pool."""


def pad_widths(path: Path, multiple: int = PADDED_WIDTH) -> None:
    """Widen, in place, each convolution of the ONNX file `path` whose output feeds the next convolution to a multiple
    of `multiple` channels: zero filters and zero bias (a ReLU and a max-pool of zeros are zeros), read by zero weights
    in the next. The same function, to float rounding; the strip network read a board's 52 strips in 4.5 ms against
    5.3 on one core (docs/VISION.md, session 40). `tools.onnx_state.state_from_onnx` takes the padding off again.
    Left alone: a convolution whose output (or a ReLU's or max-pool's after it) the graph hands out or another node
    reads, or whose weights another node shares; recorded shapes of the widened tensors are dropped."""
    model = onnx.load(str(path))
    graph = model.graph
    values = {i.name: i for i in graph.initializer}
    outputs = {o.name for o in graph.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    def next_conv(node):
        """The one convolution this one's output reaches through ReLUs and max-pools alone, and the tensors on the
        way; None where the way branches, leaves the graph or passes anything else."""
        way = []
        while True:
            tensor = node.output[0]
            after = consumers.get(tensor, [])
            if tensor in outputs or len(after) != 1:
                return None, way
            way.append(tensor)
            node = after[0]
            if node.op_type == "Conv":
                return node, way
            if node.op_type not in ("Relu", "MaxPool"):
                return None, way

    def own(name: str) -> bool:  # an initialiser only this node reads: widening it changes no other node
        return name in values and len(consumers.get(name, [])) == 1

    widened: set[str] = set()
    for node in [n for n in graph.node if n.op_type == "Conv"]:
        after, way = next_conv(node)
        if (after is None or len(node.input) < 3 or not all(own(name) for name in (*node.input[1:3], after.input[1]))
                or _group(node) != 1 or _group(after) != 1):
            continue
        weight = numpy_helper.to_array(values[node.input[1]])
        extra = -(-weight.shape[0] // multiple) * multiple - weight.shape[0]
        if not extra:
            continue
        bias = numpy_helper.to_array(values[node.input[2]])
        weight = np.concatenate([weight, np.zeros((extra, *weight.shape[1:]), weight.dtype)])
        bias = np.concatenate([bias, np.zeros(extra, bias.dtype)])
        values[node.input[1]].CopyFrom(numpy_helper.from_array(weight, node.input[1]))
        values[node.input[2]].CopyFrom(numpy_helper.from_array(bias, node.input[2]))
        reader = numpy_helper.to_array(values[after.input[1]])
        reader = np.concatenate([reader, np.zeros((reader.shape[0], extra, *reader.shape[2:]), reader.dtype)], axis=1)
        values[after.input[1]].CopyFrom(numpy_helper.from_array(reader, after.input[1]))
        widened.update(way)
    kept = [info for info in graph.value_info if info.name not in widened]  # shapes recorded before: now wrong
    del graph.value_info[:]
    graph.value_info.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _group(node) -> int:
    return next((onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == "group"), 1)


def conv_widths(path: Path) -> list[tuple[int, int]]:
    """Each convolution's (output, input) channels, in graph order."""
    model = onnx.load(str(path))
    values = {i.name: i for i in model.graph.initializer}
    return [tuple(values[node.input[1]].dims[:2]) for node in model.graph.node if node.op_type == "Conv"]


if __name__ == "__main__":
    for name in sys.argv[1:]:
        pad_widths(Path(name))
        print(f"{name}: convolutions {conv_widths(Path(name))}")
