"""Issue 46 item 1: the pip reader's second look by a value net (vision.value_net, opt-in:
``DiceReader(value_net=PATH)``; training/d6/real_value.py makes one from real photos).  Tiny ONNX
nets written here stand in for a trained one (no training in tests): the hook mixes the nets'
softmaxes, calibrates a reading's confidence through its settings' knots, and refuses bad settings
naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from training.dataset import load_byler, read_image
from vision.crops import Pyramid
from vision.reader import DiceReader
from vision.value_net import ValueNet


def tiny_net(path: Path, bias: list[float]) -> Path:
    """Nx3x64x64 -> Nx7 logits: the channels' means times zero plus `bias` (a fixed verdict)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 64, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 7])
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 7], [0.0] * 21)
    b = helper.make_tensor("b", TensorProto.FLOAT, [7], bias)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("Gemm", ["m", "w", "b"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "tiny", [x], [y], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def test_the_mix_and_the_calibration(tmp_path: Path) -> None:
    net = ValueNet(tiny_net(tmp_path / "v.onnx", [0.0] * 7))
    p = np.array([[0.05, 0.05, 0.1, 0.6, 0.1, 0.05, 0.05]], np.float32)
    q = np.array([[0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.94]], np.float32)
    assert np.allclose(ValueNet(net.net.path, weight=0.0).mix(p, q), p, atol=1e-6)
    assert np.allclose(ValueNet(net.net.path, weight=1.0).mix(p, q), q, atol=1e-6)
    assert net.calibrated(0.9) == pytest.approx(0.9)  # no settings: as read
    (tmp_path / "v.json").write_text(json.dumps({"weight": 0.5, "knots": [[0, 0], [0.95, 0.8], [1, 1]]}))
    cal = ValueNet(tmp_path / "v.onnx")
    assert cal.calibrated(0.95) == pytest.approx(0.8)
    assert cal.calibrated(0.9) < 0.8 <= cal.calibrated(0.96)


def test_bad_settings_are_refused_naming_the_file(tmp_path: Path) -> None:
    tiny_net(tmp_path / "v.onnx", [0.0] * 7)
    (tmp_path / "v.json").write_text(json.dumps({"knots": [[0, 0], [0.9, 0.8], [0.5, 1]]}))
    with pytest.raises(ValueError, match=r"v\.json"):
        ValueNet(tmp_path / "v.onnx")
    (tmp_path / "v.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"v\.json"):
        ValueNet(tmp_path / "v.onnx")


def test_the_reader_takes_the_nets_second_look(real_fixtures: Path, tmp_path: Path) -> None:
    item = next(i for i in load_byler(real_fixtures) if i.path.name == "IMG_20191208_111246.jpg")
    img = read_image(item.path)
    plain = DiceReader(value_net=None).read(img)
    assert plain
    # a net sure every box shows a 6: mixed in at weight 1, every die read is a 6
    six = DiceReader(value_net=tiny_net(tmp_path / "six.onnx", [0, 0, 0, 0, 0, 0, 20.0]))
    assert six.value_net is not None
    six.value_net.weight = 1.0
    assert {r.value for r in six.read(img)} == {6}
    # a net sure nothing is a die: every candidate rejected as not a die
    none = DiceReader(value_net=tiny_net(tmp_path / "none.onnx", [20.0, 0, 0, 0, 0, 0, 0]))
    assert none.value_net is not None
    none.value_net.weight = 1.0
    assert none.read(img) == []
    # the net reads the whole die's box cut 64 px
    assert none.value_net.probs(Pyramid(img), []).shape == (0, 7)
