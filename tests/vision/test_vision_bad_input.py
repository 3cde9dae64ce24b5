"""Bad frames get a clear ValueError or a clear (empty) result, never a crash."""

from __future__ import annotations

import numpy as np
import pytest

from vision import read_dice, read_die_crop


@pytest.mark.parametrize(
    ("image", "words"),
    [
        (np.zeros((0, 0, 3), np.uint8), "non-empty"),
        (np.zeros((0, 640, 3), np.uint8), "non-empty"),
        (np.zeros((480, 640), np.uint8), "3 colour channels"),
        (np.zeros((480, 640, 4), np.uint8), "3 colour channels"),
        (np.zeros((480, 640, 3), np.uint16), "uint8"),
        (np.zeros((480, 640, 3), np.float32), "uint8"),
        ([[0, 0, 0]], "numpy array"),
    ],
)
def test_rejected_with_what_was_expected(image: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        read_dice(image)  # type: ignore[arg-type]


def test_crop_reader_validates_too() -> None:
    with pytest.raises(ValueError, match="crop: expected 3 colour channels"):
        read_die_crop(np.zeros((40, 40), np.uint8))


def test_tiny_and_black_frames_read_no_dice() -> None:
    assert read_dice(np.zeros((1, 1, 3), np.uint8)) == []
    assert read_dice(np.zeros((480, 640, 3), np.uint8)) == []
    assert read_dice(np.full((480, 640, 3), 255, np.uint8)) == []


def test_random_noise_does_not_crash() -> None:
    noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    got = read_dice(noise)
    assert len(got) <= 2
    assert all(0.0 <= r.confidence <= 1.0 and 1 <= r.value <= 6 for r in got)


def test_non_contiguous_view_is_accepted() -> None:
    img = np.zeros((480, 640, 3), np.uint8)[:, ::2]
    assert read_dice(img) == []


@pytest.mark.slow
def test_huge_frame_is_read() -> None:
    from hardware.drawn import draw_die

    img = np.full((8000, 8000, 3), 90, np.uint8)
    draw_die(img, (4000, 4000), 600, 4, body_bgr=(235, 235, 235), pip_bgr=(20, 20, 20))
    assert [r.value for r in read_dice(img)] == [4]


def test_larger_than_limit_is_refused() -> None:
    img = np.zeros((1, 13000, 3), np.uint8)
    with pytest.raises(ValueError, match="at most"):
        read_dice(img)
