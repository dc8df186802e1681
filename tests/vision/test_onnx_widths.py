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
    pad_widths(narrow, multiple=24)  # 16, 32, 48, 64 wide: every inner width changes at 24
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
