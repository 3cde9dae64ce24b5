"""The OCR head's cost (issue 29, session 14): the int8 recogniser built on this machine from the
rapidocr wheel's float file (vision.runtime.int8_model), and the fast head (`OcrHead.fast()`) that
reads it at six turns of one share."""

from __future__ import annotations

import csv
import json
import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.real_photos import real_photos
from training.numbered.real import default_root
from vision.numbered.ocr import ANGLES, FAST, INT8_RANGES, REC_FILE, SHARES, OcrHead, rapidocr_models
from vision.runtime import Int8Unavailable, file_sha256, int8_model

REAL = default_root()
needs_real = real_photos("d20_imac1844/labels.csv")
pytest.importorskip("onnx", reason="building the int8 recogniser needs the onnx package (a dependency)")


@pytest.fixture(scope="module")
def fast() -> OcrHead:
    return OcrHead.fast()


@pytest.fixture(scope="module")
def float_head() -> OcrHead:
    return OcrHead()


@pytest.fixture(scope="module")
def int8_head() -> OcrHead:
    return OcrHead(quantized=True)


def test_the_int8_recogniser_is_built_once_from_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_CACHE_DIR", str(tmp_path / "cache"))
    src = rapidocr_models() / REC_FILE
    built = int8_model(src, INT8_RANGES)
    assert built.parent == tmp_path / "cache" / "models" and built.is_file()
    summed = built.with_name(built.name + ".sha256")
    assert summed.read_text(encoding="utf-8").strip() == file_sha256(built)
    # int8 weights: far smaller than the float file it was made from, and nothing left half-written
    assert built.stat().st_size < 0.75 * src.stat().st_size
    assert sorted(p.name for p in built.parent.iterdir()) == sorted([built.name, summed.name])
    again = int8_model(src, INT8_RANGES)
    assert again == built and again.stat().st_mtime_ns == built.stat().st_mtime_ns
    # a copy whose checksum no longer matches (a torn write, a disk error) is built again
    with built.open("r+b") as f:
        f.seek(1000)
        f.write(b"\x00" * 64)
    assert file_sha256(built) != summed.read_text(encoding="utf-8").strip()
    int8_model(src, INT8_RANGES)
    assert summed.read_text(encoding="utf-8").strip() == file_sha256(built)


def test_ranges_measured_on_another_file_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DICETABLE_CACHE_DIR", str(tmp_path / "cache"))
    spec = json.loads(INT8_RANGES.read_text(encoding="utf-8"))
    other = tmp_path / "ranges.json"
    other.write_text(json.dumps({**spec, "source_sha256": "0" * 64}), encoding="utf-8")
    with pytest.raises(Int8Unavailable, match=rf"{REC_FILE}: its SHA-256 .* is not the file ranges\.json"):
        int8_model(rapidocr_models() / REC_FILE, other)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(Int8Unavailable, match=r"bad\.json: expected the int8 ranges JSON"):
        int8_model(rapidocr_models() / REC_FILE, bad)
    # a head asked for int8 of a file the ranges were not measured on reads the float file, and says so
    monkeypatch.setattr("vision.numbered.ocr.INT8_RANGES", other)
    with caplog.at_level(logging.WARNING, logger="vision.numbered.ocr"):
        head = OcrHead(quantized=True)
    assert not head.quantized and "reading the float recogniser" in caplog.text
    assert not (tmp_path / "cache" / "models").exists()


def test_the_fast_head_reads_six_int8_crops(fast: OcrHead) -> None:
    assert fast.quantized and fast.views == 6 == FAST["angles"]
    assert fast.shares == FAST["shares"]
    assert OcrHead().views == ANGLES * len(SHARES) == 24 and not OcrHead().quantized


def _real_d20() -> list[tuple[np.ndarray, int]]:
    rows = list(csv.DictReader((REAL / "d20_imac1844" / "labels.csv").open(encoding="utf-8")))
    out = []
    for r in rows:
        if r["kind"] == "d20":
            img = cv2.imread(str(REAL / "d20_imac1844" / r["file"]))
            assert img is not None, r["file"]
            out.append((img, int(r["face"])))
    return out


@needs_real
def test_the_int8_recogniser_reads_real_numerals_as_the_float_one(
    float_head: OcrHead, int8_head: OcrHead
) -> None:
    """d20_imac1844's green d20 (every face once, never trained or calibrated on): the int8 copy of
    the recogniser, at the same views, reads the same value as the float one on nearly every face,
    with evidence close to the float's."""
    assert int8_head.quantized and not float_head.quantized
    same = 0
    faces = _real_d20()
    for img, _ in faces:
        h, w = img.shape[:2]
        die = [((w / 2, h / 2), 0.4 * w / SHARES[0], "d20")]
        (a,), (b,) = float_head.read(img, die), int8_head.read(img, die)
        same += a.value == b.value
        assert abs(max(a.evidence) - max(b.evidence)) < 0.35
    assert same >= len(faces) - 2, f"{same} of {len(faces)} read the same"


@needs_real
def test_the_fast_head_reads_real_close_ups_and_is_never_surely_wrong(fast: OcrHead) -> None:
    right = wrong_sure = 0
    faces = _real_d20()
    for img, face in faces:
        h, w = img.shape[:2]
        (got,) = fast.read(img, [((w / 2, h / 2), 0.4 * w / SHARES[0], "d20")])
        right += got.value == face
        wrong_sure += got.value != face and got.confidence >= 0.8
    assert right >= 14, f"{right} of {len(faces)} read right"
    assert wrong_sure == 0
