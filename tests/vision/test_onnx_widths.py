"""The networks' convolutions widened to ONNX Runtime's block (`tools/onnx_widths.py`): the same function."""

import shutil

import numpy as np
import onnxruntime

from companion.vision.reader import MODELS
from tools.onnx_widths import PADDED_WIDTH, conv_widths, pad_widths


def _run(path, x):
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})


def test_padding_a_network_widens_its_inner_convolutions_and_keeps_its_answers(tmp_path):
    original = MODELS / "trays.onnx"
    narrow = tmp_path / "narrow.onnx"
    shutil.copy(original, narrow)
    pad_widths(narrow, multiple=24)  # 16, 32, 48, 64 wide: 16 and 32 widen to 24 and 48, 48 is one already
    widths = conv_widths(narrow)
    assert [out for out, _ in widths[:-1]] == [24, 48, 48]
    assert [into for _, into in widths[1:]] == [24, 48, 48]  # each next convolution reads the new channels
    assert widths[-1][0] == conv_widths(original)[-1][0]  # the last feeds the head: left as it is
    x = np.random.default_rng(0).normal(size=(4, 9, 84, 48)).astype(np.float32)
    for padded, plain in zip(_run(narrow, x), _run(original, x)):
        assert np.allclose(padded, plain, atol=1e-4)


def test_the_strip_network_ships_padded_to_the_runtime_block():
    """A network trained again is padded on export; one shipped without it would read a board about 0.8 ms slower."""
    widths = conv_widths(MODELS / "strips.onnx")
    assert all(out % PADDED_WIDTH == 0 for out, _ in widths[:-1])


def _two_convolutions(path, relu_is_an_output: bool):
    """Conv (3 -> 12) -> ReLU -> Conv (12 -> 8), the ReLU's output also the graph's when asked."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array(rng.normal(size=shape).astype(np.float32), name)
             for name, shape in (("w1", (12, 3, 3, 3)), ("b1", (12,)), ("w2", (8, 12, 3, 3)), ("b2", (8,)))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["y"], pads=[1, 1, 1, 1])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 10, 10])]
    if relu_is_an_output:
        outputs.append(helper.make_tensor_value_info("r1", TensorProto.FLOAT, [1, 12, 10, 10]))
    graph = helper.make_graph(nodes, "two", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
                              outputs, inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_a_convolution_whose_output_leaves_the_graph_keeps_its_width(tmp_path):
    x = np.random.default_rng(0).normal(size=(1, 3, 10, 10)).astype(np.float32)
    for relu_is_an_output, first_width in ((False, 16), (True, 12)):
        path = tmp_path / f"two-{relu_is_an_output}.onnx"
        _two_convolutions(path, relu_is_an_output)
        before = _run(path, x)
        pad_widths(path)
        assert conv_widths(path)[0][0] == first_width  # what the graph hands out keeps its shape
        for padded, plain in zip(_run(path, x), before):
            assert padded.shape == plain.shape and np.allclose(padded, plain, atol=1e-4)


def test_weights_another_convolution_shares_are_left_alone(tmp_path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array(rng.normal(size=shape).astype(np.float32), name)
             for name, shape in (("w1", (12, 3, 3, 3)), ("b1", (12,)), ("w2", (12, 12, 3, 3)), ("b2", (12,)))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),  # the first's weights
             helper.make_node("Conv", ["x", "w1", "b1"], ["c1b"], pads=[1, 1, 1, 1]),  # shared with this one
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["y"], pads=[1, 1, 1, 1])]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 12, 10, 10]) for name in ("y", "c1b")]
    graph = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
                              outputs, inits)
    path = tmp_path / "shared.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    pad_widths(path)
    assert conv_widths(path) == [(12, 3), (12, 3), (12, 12)]
