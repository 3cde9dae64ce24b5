"""Bad frames get a clear ValueError naming what was expected, or an empty result; never a crash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.numbered.reader import NumberedReader


@pytest.mark.parametrize(
    ("image", "words"),
    [
        (np.zeros((0, 0, 3), np.uint8), "non-empty"),
        (np.zeros((0, 640, 3), np.uint8), "non-empty"),
        (np.zeros((480, 640), np.uint8), "3 colour channels"),
        (np.zeros((480, 640, 4), np.uint8), "3 colour channels"),
        (np.zeros((480, 640, 3), np.uint16), "uint8"),
        (np.full((480, 640, 3), np.nan, np.float32), "uint8"),
        ("frame.jpg", "numpy array"),
        (None, "numpy array"),
    ],
)
def test_rejected_with_what_was_expected(reader: NumberedReader, image: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        reader.read(image)  # type: ignore[arg-type]


def test_tiny_blank_and_saturated_frames_read_no_dice(reader: NumberedReader) -> None:
    assert reader.read(np.zeros((1, 1, 3), np.uint8)) == []
    assert reader.read(np.zeros((15, 900, 3), np.uint8)) == []
    assert reader.read(np.zeros((480, 640, 3), np.uint8)) == []
    assert reader.read(np.full((480, 640, 3), 255, np.uint8)) == []


def test_noise_reads_at_most_a_stray_die_with_legal_values(reader: NumberedReader) -> None:
    noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    got = reader.read(noise)
    assert len(got) <= 2
    ranges = {"d6": range(1, 7), "d10": range(10), "d10p": range(0, 100, 10), "d20": range(1, 21)}
    assert all(r.value in ranges[r.kind] and 0.0 <= r.confidence <= 1.0 for r in got)


def test_odd_sizes_and_views_are_read(reader: NumberedReader) -> None:
    for h, w in ((17, 17), (333, 101), (101, 333)):
        assert reader.read(np.full((h, w, 3), 128, np.uint8)) == []
    view = np.zeros((480, 1280, 3), np.uint8)[:, ::2]  # not contiguous
    assert reader.read(view) == []


def test_missing_model_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.onnx"):
        NumberedReader(detector=tmp_path / "nope.onnx")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"turns": 3}, "turns"),
        ({"det_area": 10}, "det_area"),
        ({"sure": 1.5}, "sure"),
        ({"det_threshold": -0.1}, "det_threshold"),
        ({"weak_floor": 2}, "weak_floor"),
    ],
)
def test_bad_settings_are_named(kwargs: dict[str, int], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        NumberedReader(**kwargs)  # type: ignore[arg-type]


def test_missing_top_face_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"top_face.*nope\.onnx"):
        NumberedReader(top_face=tmp_path / "nope.onnx")


def test_a_models_folder_without_the_top_face_net_reads_without_it(tmp_path: Path) -> None:
    from vision.numbered.reader import MODELS

    for name in ("numbered_detector.onnx", "numbered_classifier.onnx"):
        (tmp_path / name).write_bytes((MODELS / name).read_bytes())
    assert not NumberedReader(models=tmp_path).has_top_face
    assert NumberedReader().has_top_face
