"""The OCR recogniser's last block fine-tuned for small dice (issue 44; `ocr.SmallBody`, made by
training/numbered/ocr_small_body.py, read by benchmarks/ocr_small.py's "small body"): the wheel's graph
with a file's tensors patched in at load, read for a die under `ocr.MIN_SIDE` only; a file that does not
fit the installed recogniser is refused by name and the head falls back to the refitted rows.  None
ships (`ocr.SMALL_BODY` None: held out it read fewer right, RESULTS.md)."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.numbered import ocr
from vision.runtime import file_sha256

REC = ocr.rapidocr_models() / ocr.REC_FILE


def _wheels_body(path: Path, blank_shift: float = 0.0) -> Path:
    """A body file holding the wheel's own tensors (the blank's logit moved by `blank_shift`)."""
    import onnx
    from onnx import numpy_helper

    init = {i.name: i for i in onnx.load(str(REC)).graph.initializer}
    arrays = {n: numpy_helper.to_array(init[n]) for n in ocr.SMALL_BODY_TENSORS}
    cols = ocr.OcrHead(angles=1, shares=(0.3,), small_head=None)._cols
    w, b = (numpy_helper.to_array(init[n]) for n in ocr.PROJECTION)
    kept_b = b[cols].copy()
    kept_b[0] += blank_shift
    np.savez(
        path,
        source_sha256=np.array(file_sha256(REC)),
        calibration=np.asarray(ocr.CALIBRATION),
        columns=cols,
        kept_w=w[:, cols],
        kept_b=kept_b,
        **arrays,  # type: ignore[arg-type]
    )
    return path


def _numeral() -> np.ndarray:
    image = np.full((400, 400, 3), 200, np.uint8)
    cv2.putText(image, "17", (150, 230), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 8, cv2.LINE_AA)
    return np.clip(image + np.random.default_rng(1).normal(0, 6, image.shape), 0, 255).astype(np.uint8)


SMALL_DIE = [((200.0, 200.0), 80.0, "d20")]
LARGE_DIE = [((200.0, 200.0), 300.0, "d20")]


def test_none_ships_and_the_wheels_own_tensors_read_as_the_wheel(tmp_path: Path) -> None:
    assert ocr.SMALL_BODY is None  # held out it read fewer right than the refitted rows
    assert ocr.OcrHead(angles=2, shares=(0.3,)).body is None
    image = _numeral()
    same = ocr.OcrHead(angles=4, shares=(0.3,), small_head=None, small_body=_wheels_body(tmp_path / "w.npz"))
    wheel = ocr.OcrHead(angles=4, shares=(0.3,), small_head=None)
    assert same.body is not None
    np.testing.assert_allclose(
        same.read(image, SMALL_DIE)[0].evidence,
        wheel.read(image, SMALL_DIE)[0].evidence,
        rtol=1e-4,
        atol=1e-7,
    )


def test_a_small_die_is_read_with_the_body_and_a_large_one_as_before(tmp_path: Path) -> None:
    image = _numeral()
    body = ocr.OcrHead(angles=4, shares=(0.3,), small_body=_wheels_body(tmp_path / "b.npz", 3.0))
    wheel = ocr.OcrHead(angles=4, shares=(0.3,), small_head=None)
    assert body.body is not None and body.small is None  # the body supersedes the refitted rows
    assert SMALL_DIE[0][1] < ocr.MIN_SIDE <= LARGE_DIE[0][1]
    b, w = body.read(image, SMALL_DIE)[0], wheel.read(image, SMALL_DIE)[0]
    assert max(b.evidence) < max(w.evidence)  # the blank made likelier: every numeral less so
    assert body.read(image, LARGE_DIE) == wheel.read(image, LARGE_DIE)
    both = body.read(image, SMALL_DIE + LARGE_DIE)  # one batch: each die read as it is alone
    np.testing.assert_allclose(both[0].evidence, b.evidence, rtol=1e-4, atol=1e-7)
    assert both[1] == wheel.read(image, LARGE_DIE)[0]


def test_a_body_that_does_not_fit_is_refused_by_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = _wheels_body(tmp_path / "good.npz")
    with np.load(good) as z:
        spec = {k: z[k] for k in z.files}
    cols = spec["columns"]
    other = tmp_path / "other.npz"
    np.savez(other, **{**spec, "source_sha256": np.array("0" * 64)})  # type: ignore[arg-type]
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"not the file other\.npz was tuned on"):
        ocr.SmallBody.load(other, REC, cols)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **{**spec, "kept_w": np.zeros((3, 3), np.float32)})  # type: ignore[arg-type]
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"bad\.npz: expected kept_w 120 x 14"):
        ocr.SmallBody.load(bad, REC, cols)
    short = tmp_path / "short.npz"
    np.savez(short, **{k: v for k, v in spec.items() if k != "linear_5.w_0"})  # type: ignore[arg-type]
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"short\.npz: expected the small body's \.npz"):
        ocr.SmallBody.load(short, REC, cols)
    shape = tmp_path / "shape.npz"
    np.savez(shape, **{**spec, "linear_5.w_0": np.zeros((120, 3), np.float32)})  # type: ignore[arg-type]
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"linear_5\.w_0 is \(120, 120\)"):
        ocr.SmallBody.load(shape, REC, cols)
    with caplog.at_level(logging.WARNING, logger="vision.numbered.ocr"):
        head = ocr.OcrHead(angles=2, shares=(0.3,), small_body=tmp_path / "missing.npz")
    assert head.body is None and "missing.npz" in caplog.text  # said so by name
    assert head.small is not None  # and a small die is read with the refitted rows, as before
