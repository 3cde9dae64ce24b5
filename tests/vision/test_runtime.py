"""The ONNX runtime seam: onnxruntime by default, OpenCV's dnn module as the fallback, same answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from vision_helpers import draw_row

from vision.reader import MODELS, DiceReader
from vision.runtime import Model
from vision.synth import felt


def test_both_backends_give_the_same_readings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxruntime")
    table = felt(480, 640, (60, 110, 40), np.random.default_rng(3))
    draw_row(table, [1, 4, 6, 2])
    fast = DiceReader()
    monkeypatch.setenv("DICETABLE_ONNX_BACKEND", "cv2")
    slow = DiceReader()
    assert Model(MODELS / "d6_classifier.onnx").backend == "cv2.dnn"
    a = sorted(fast.read(table), key=lambda r: r.center[0])
    b = sorted(slow.read(table), key=lambda r: r.center[0])
    assert [r.value for r in a] == [r.value for r in b] == [1, 4, 6, 2]
    for x, y in zip(a, b, strict=True):
        assert x.center == pytest.approx(y.center, abs=0.5)
        assert x.confidence == pytest.approx(y.confidence, abs=0.02)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nothing\.onnx is missing"):
        Model(tmp_path / "nothing.onnx")
