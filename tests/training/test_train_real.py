"""The real-d6 crop sampler of training/numbered/train_real.py, on small synthetic photos (no torch)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from training.dataset import LabelledDie, LabelledImage, is_held_out
from training.numbered.det_samples import LOWRES_SIDES, lower_resolution, maybe_lower_resolution
from training.numbered.train_real import (
    RealPhoto,
    clear_of_dice,
    load_real,
    negative_centre,
    real_sample,
    to_real,
    tune_part,
)
from vision.numbered.crop import CROP, MARGIN
from vision.numbered.labels import INDEX

BACK = (40, 90, 140)  # background colour (BGR) of the synthetic photos
DIE = (230, 230, 230)


def _photo(boxes: list[tuple[int, int, int, int]], values: list[int], size: int = 400) -> RealPhoto:
    """A plain photo with a uniform square 'die' in each box, and its labels."""
    img = np.empty((size, size, 3), np.uint8)
    img[:] = BACK
    for x0, y0, x1, y1 in boxes:
        img[y0:y1, x0:x1] = DIE
    dice = tuple(
        LabelledDie(v, (float(b[0]), float(b[1]), float(b[2]), float(b[3])))
        for b, v in zip(boxes, values, strict=True)
    )
    return to_real(LabelledImage(Path("synthetic.jpg"), dice), img)


def test_to_real_takes_box_centre_and_sides() -> None:
    p = _photo([(100, 120, 200, 180)], [5])
    (d,) = p.dice
    assert (d.cx, d.cy, d.w, d.h, d.side, d.value) == (150.0, 150.0, 100.0, 60.0, 100.0, 5)
    assert p.negatives and p.name == "synthetic.jpg"


def test_a_crop_of_one_die_is_the_whole_image_and_gives_no_negatives() -> None:
    img = np.full((30, 50, 3), 200, np.uint8)
    p = to_real(LabelledImage(Path("one.jpg"), (LabelledDie(3, (0.0, 0.0, 0.0, 0.0)),)), img, whole_die=True)
    (d,) = p.dice
    assert (d.cx, d.cy, d.w, d.h) == (25.0, 15.0, 50.0, 30.0)
    assert not p.negatives
    with pytest.raises(ValueError, match="'not a die'"):
        real_sample([p], np.random.default_rng(0), positive=0.0)


@pytest.mark.parametrize(
    ("box", "value", "match"),
    [((10.0, 10.0, 10.0, 40.0), 2, "box .* is empty"), ((10.0, 10.0, 40.0, 40.0), 7, "not a d6 value")],
)
def test_bad_labels_are_refused(box: tuple[float, float, float, float], value: int, match: str) -> None:
    img = np.zeros((64, 64, 3), np.uint8)
    with pytest.raises(ValueError, match=match):
        to_real(LabelledImage(Path("bad.jpg"), (LabelledDie(value, box),)), img)


def test_no_photos_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one real photo"):
        real_sample([], np.random.default_rng(0))


@pytest.mark.parametrize("seed", range(20))
def test_a_die_crop_lies_on_the_die_and_is_labelled_d6_value(seed: int) -> None:
    # Centred exactly (jitter 0) the crop, at most 0.65 x 1.05 of the box's side and turned any
    # way, reaches 0.48 of the side from the centre: all die.
    p = _photo([(50, 50, 150, 150), (250, 250, 350, 350)], [4, 6])
    crop, label = real_sample([p], np.random.default_rng(seed), jitter=0.0, positive=1.0)
    assert crop.shape == (CROP, CROP, 3) and crop.dtype == np.uint8
    assert label in (INDEX[("d6", 4)], INDEX[("d6", 6)])
    assert (crop == np.array(DIE, np.uint8)).all()


def test_every_die_and_value_is_drawn() -> None:
    p = _photo([(50, 50, 150, 150), (250, 250, 350, 350)], [4, 6])
    rng = np.random.default_rng(1)
    labels = {real_sample([p], rng, jitter=0.0, positive=1.0)[1] for _ in range(60)}
    assert labels == {INDEX[("d6", 4)], INDEX[("d6", 6)]}


@pytest.mark.parametrize("seed", range(20))
def test_a_negative_crop_is_centred_clear_of_every_die(seed: int) -> None:
    p = _photo([(50, 50, 150, 150), (250, 250, 350, 350)], [1, 2])
    crop, label = real_sample([p], np.random.default_rng(seed), positive=0.0)
    assert label == 0 and crop.shape == (CROP, CROP, 3)
    # the crop's centre (between pixels 23 and 24) is at least 10 px off any die: background
    assert (
        crop[CROP // 2 - 1 : CROP // 2 + 1, CROP // 2 - 1 : CROP // 2 + 1] == np.array(BACK, np.uint8)
    ).all()


def test_negative_centres_keep_out_of_grown_boxes() -> None:
    p = _photo([(50, 50, 150, 150), (250, 250, 350, 350)], [1, 2])
    rng = np.random.default_rng(3)
    for _ in range(200):
        c = negative_centre(p, p.dice[int(rng.integers(2))], rng)
        assert c is not None
        x, y = c
        assert 0 <= x < 400 and 0 <= y < 400
        for x0, x1 in ((50, 150), (250, 350)):
            # outside the box grown by 10 px (0.1 of its side) on some axis
            assert not (x0 - 10 < x < x1 + 10 and x0 - 10 < y < x1 + 10)
    assert clear_of_dice(p, 100.0, 161.0) and not clear_of_dice(p, 100.0, 159.0)
    # diagonally off a corner: 0.6 of the side from the centre, yet inside the box
    assert not clear_of_dice(p, 100 + 0.6 * 100 / math.sqrt(2), 100 + 0.6 * 100 / math.sqrt(2))


def test_a_photo_full_of_dice_gives_no_negative() -> None:
    p = _photo([(0, 0, 400, 400)], [3])
    assert negative_centre(p, p.dice[0], np.random.default_rng(0)) is None
    with pytest.raises(ValueError, match="no photo has room"):
        real_sample([p], np.random.default_rng(0), positive=0.0)


def _fake_root(root: Path, names: list[str]) -> None:
    (root / "byler_d6" / "images").mkdir(parents=True)
    (root / "byler_d6" / "labels").mkdir(parents=True)
    img = np.full((640, 640, 3), 120, np.uint8)
    for n in names:
        cv2.imwrite(str(root / "byler_d6" / "images" / f"{n}.jpg"), img)
        (root / "byler_d6" / "labels" / f"{n}.txt").write_text("2 0.5 0.5 0.1 0.1\n")


def test_held_out_photos_are_never_loaded(tmp_path: Path) -> None:
    names = [f"p{i}" for i in range(30)]
    _fake_root(tmp_path, names)
    train = {f"{n}.jpg" for n in names if not is_held_out(f"{n}.jpg")}
    tune = {n for n in train if tune_part(n)}
    assert 0 < len(train) < 30 and 0 < len(tune) < len(train)  # the names exercise every part
    got = {p: {x.name for x in load_real(tmp_path, p)} for p in ("train", "fit", "tune")}
    assert got == {"train": train, "fit": train - tune, "tune": tune}
    (d,) = load_real(tmp_path, "tune")[0].dice
    assert (d.cx, d.cy, d.w, d.value) == (320.0, 320.0, 64.0, 3)


def test_bad_part_and_missing_root_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="part: expected"):
        load_real(tmp_path, "heldout")
    with pytest.raises(FileNotFoundError, match="no byler_d6 folder"):
        load_real(tmp_path / "nowhere")


def _checkerboard() -> np.ndarray:
    """A CROP x CROP BGR 1-px checkerboard of 0 and 255."""
    return (np.indices((CROP, CROP)).sum(0) % 2 * 255).astype(np.uint8)[..., None].repeat(3, 2)


@pytest.mark.parametrize("side", [LOWRES_SIDES[0], 20, LOWRES_SIDES[1]])
def test_lower_resolution_keeps_the_shape_and_removes_fine_detail(side: int) -> None:
    board = _checkerboard()
    out = lower_resolution(board, side)
    assert out.shape == (CROP, CROP, 3) and out.dtype == np.uint8
    # 1-px detail cannot survive a 16-23 px side: the board averages to mid grey
    assert float(board.std()) > 120 and float(out.std()) < 20
    assert abs(float(out.mean()) - 127.5) < 10


def test_lower_resolution_keeps_coarse_shapes() -> None:
    # a 16-px block (a numeral's stroke is larger than a pixel) stays where it was, edges softened
    img = np.zeros((CROP, CROP, 3), np.uint8)
    img[16:32, 16:32] = 255
    out = lower_resolution(img, 16).astype(int)
    assert (out[20:28, 20:28] >= 200).all() and (out[:10] <= 30).all() and (out[:, 40:] <= 30).all()
    assert np.abs(out - img.astype(int)).max() > 30  # but the edges are not the original's


def test_lowres_sides_mean_dice_of_25_to_35_px_at_video_scale() -> None:
    lo, hi = (s / MARGIN for s in LOWRES_SIDES)
    assert 24 <= lo < 26 and 34 < hi <= 36


@pytest.mark.parametrize("side", [0, CROP + 1])
def test_lower_resolution_refuses_a_bad_side(side: int) -> None:
    with pytest.raises(ValueError, match="side: expected"):
        lower_resolution(_checkerboard(), side)


def test_maybe_lower_resolution_share_zero_draws_nothing() -> None:
    board = _checkerboard()
    rng, ref = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(20):
        assert maybe_lower_resolution(board, rng, 0.0) is board
    assert rng.random() == ref.random()  # the generator was not advanced


def test_maybe_lower_resolution_follows_the_share_and_is_seeded() -> None:
    board = _checkerboard()

    def run(seed: int, share: float) -> list[bool]:
        rng = np.random.default_rng(seed)
        return [float(maybe_lower_resolution(board, rng, share).std()) < 20 for _ in range(400)]

    assert all(run(0, 1.0))
    got = run(1, 0.25)
    assert 70 <= sum(got) <= 130  # about a quarter lowered
    assert got == run(1, 0.25)
