"""The session-4 numbered detector's training examples (training/numbered/det_samples.py, torch-free),
its arguments, and the committed net it made."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from training.numbered.det_samples import det_sample, draw_scale, parse_args
from vision.numbered.reader import MODELS
from vision.runtime import Model


def _window(
    cx: float, cy: float, side: float, top: tuple[float, float]
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A grey 384-px window with one bright square die and its truth (top face off the box's centre)."""
    img = np.full((384, 384, 3), 90, np.uint8)
    x0, y0, x1, y1 = cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2
    img[int(y0) : int(y1), int(x0) : int(x1)] = 230
    return img, [{"box_px": [x0, y0, x1, y1], "center_px": list(top), "kind": "d6", "value": 1}]


@pytest.mark.parametrize("seed", range(6))
def test_target_lands_on_the_die_in_the_patch(seed: int) -> None:
    win = _window(192.0, 192.0, 60.0, (200.0, 185.0))
    rng = np.random.default_rng(seed)
    patch, tgt = det_sample([win], rng, factor=0.4)
    assert patch.shape == (128, 128, 3) and tgt.shape == (8, 32, 32)
    ys, xs = np.nonzero(tgt[0] == 1.0)
    assert len(ys) == 1, "one die, one peak cell"
    y, x = int(ys[0]), int(xs[0])
    # the top face's and box's centres, patch pixels, from the cell and its offsets
    tx, ty = (x + 0.5 + tgt[3, y, x]) * 4, (y + 0.5 + tgt[4, y, x]) * 4
    bx, by = (x + 0.5 + tgt[5, y, x]) * 4, (y + 0.5 + tgt[6, y, x]) * 4
    w, h = math.exp(tgt[1, y, x]) * 4, math.exp(tgt[2, y, x]) * 4
    # photometric changes may dim, shuffle or invert colours: compare with the background (the
    # patch corner farthest from the die)
    corner = max(((0, 0), (0, 127), (127, 0), (127, 127)), key=lambda c: math.hypot(c[1] - bx, c[0] - by))
    bg = patch[corner].astype(float)
    die = patch[int(by), int(bx)].astype(float)
    assert np.abs(die - bg).mean() > 30, "the box's centre is on the die"
    assert np.abs(patch[int(ty), int(tx)] - die).mean() < np.abs(patch[int(ty), int(tx)] - bg).mean()
    # the box at the patch's scale: 60 px times 0.33-0.6 (or up to 1.1 now and then)
    assert 60 * 0.3 < w < 60 * 1.15 and abs(w - h) < 1.0
    # the top face lies 8 px right and 7 px up of the box's centre in the window, turned by quarter turns
    d = math.hypot(tx - bx, ty - by) / w
    assert d == pytest.approx(math.hypot(8, 7) / 60, abs=0.02)


def test_scale_is_drawn_round_the_factor() -> None:
    rng = np.random.default_rng(0)
    s = np.array([draw_scale(rng, 0.4) for _ in range(2000)])
    assert s.min() >= 0.32 and s.max() <= 1.1
    assert 0.35 < float(np.median(s)) < 0.55


def test_bad_factor_is_named() -> None:
    with pytest.raises(ValueError, match="det factor"):
        draw_scale(np.random.default_rng(0), 2.0)


def test_the_committed_detector_outputs_seven_maps_at_stride_4() -> None:
    out = Model(MODELS / "numbered_detector.onnx")(np.zeros((1, 3, 96, 128), np.float32))
    assert out.shape == (1, 7, 24, 32)
    # nothing on a black frame: the heat stays low everywhere
    assert float((1 / (1 + np.exp(-out[0, 0]))).max()) < 0.3


def test_bad_arguments_exit_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--steps", "0", "--out", "/nonexistent/never-written"])
    assert "positive counts" in capsys.readouterr().err
    assert parse_args(["--out", "/tmp/x"]).det_factor == pytest.approx(0.4)
