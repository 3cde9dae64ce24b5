"""The OCR head's last projection refitted for small dice (issue 44 item 4; `ocr.SMALL_HEAD`, made by
training/numbered/ocr_small_head.py): a die under the head's own floor (`ocr.MIN_SIDE`) is read with it,
a larger die exactly as before, and a refit that does not fit the installed recogniser is refused by
name.  Figures: benchmarks/ocr_small.py."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from tests.real_photos import REAL as SHARED_REAL
from tests.real_photos import real_photos
from vision.numbered import ocr

REAL = SHARED_REAL / "d20_lurig"
needs_real = real_photos("d20_lurig/labels.csv")


def test_the_refit_ships_for_the_wheels_recogniser() -> None:
    assert ocr.SMALL_HEAD is not None and ocr.SMALL_HEAD.is_file()
    spec = json.loads(ocr.SMALL_HEAD.read_text(encoding="utf-8"))
    assert "d20_top" not in spec["trained_on"] and "d20_wood" not in spec["trained_on"]
    head = ocr.OcrHead(angles=2, shares=(0.3,))
    assert head.small is not None  # the code before read every die with the wheel's projection
    assert ocr.OcrHead.fast().small is None  # the int8 head keeps the wheel's


def test_a_refit_with_no_move_reads_as_the_wheels() -> None:
    rng = np.random.default_rng(0)
    steps = rng.random((3, 6, 15)).astype(np.float32)
    steps /= steps.sum(-1, keepdims=True)
    n = steps.shape[-1] - 1
    still = ocr.SmallHead(np.zeros((120, n), np.float32), np.zeros(n, np.float32), ocr.CALIBRATION, None)  # type: ignore[arg-type]
    np.testing.assert_allclose(
        still.adjust(steps, rng.random((3, 6, 120)).astype(np.float32)), steps, rtol=1e-5
    )
    # a move of the blank's logit by ln 2 doubles its odds against the rest of the step
    bias = np.zeros(n, np.float32)
    bias[0] = np.log(2.0)
    moved = ocr.SmallHead(np.zeros((120, n), np.float32), bias, ocr.CALIBRATION, None).adjust(  # type: ignore[arg-type]
        steps, np.zeros((3, 6, 120), np.float32)
    )
    odds = moved[..., 0] / (1 - moved[..., 0])
    np.testing.assert_allclose(odds, 2 * steps[..., 0] / (1 - steps[..., 0]), rtol=1e-4)


def test_a_refit_that_does_not_fit_is_refused_by_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert ocr.SMALL_HEAD is not None
    spec = json.loads(ocr.SMALL_HEAD.read_text(encoding="utf-8"))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**spec, "source_sha256": "0" * 64}), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**spec, "delta": [[0.0] * 3]}), encoding="utf-8")
    rec = ocr.rapidocr_models() / ocr.REC_FILE
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"not the file other\.json was fitted on"):
        ocr.SmallHead.load(other, rec)
    with pytest.raises(ocr.SmallHeadUnavailable, match=r"bad\.json: expected delta 120 x 14"):
        ocr.SmallHead.load(bad, rec)
    with caplog.at_level(logging.WARNING, logger="vision.numbered.ocr"):
        head = ocr.OcrHead(angles=2, shares=(0.3,), small_head=tmp_path / "missing.json")
    assert head.small is None and "missing.json" in caplog.text  # read as before, and said so


@needs_real
def test_a_small_die_is_read_with_the_refit_and_a_large_one_as_before() -> None:
    import cv2

    photo = cv2.imread(str(REAL / "images" / sorted(p.name for p in (REAL / "images").iterdir())[0]))
    assert photo is not None
    tuned = ocr.OcrHead(angles=4, shares=(0.3,))
    wheel = ocr.OcrHead(angles=4, shares=(0.3,), small_head=None)
    small = cv2.resize(photo, None, fx=0.1, fy=0.1, interpolation=cv2.INTER_AREA)
    big = cv2.resize(photo, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    dice = [((im.shape[1] / 2, im.shape[0] / 2), 0.5 * im.shape[0], "d20") for im in (small, big)]
    assert dice[0][1] < ocr.MIN_SIDE <= dice[1][1]
    t_small, w_small = tuned.read(small, dice[:1])[0], wheel.read(small, dice[:1])[0]
    assert t_small.evidence != w_small.evidence
    assert tuned.read(big, dice[1:]) == wheel.read(big, dice[1:])
