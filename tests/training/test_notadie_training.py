"""training/d6/notadie.py teaches the net on the input the reader gives it (vision.verifier)."""

from __future__ import annotations

import numpy as np
import pytest

from training.d6.notadie import RECIPES, Miner, calib_photo
from vision.crops import MARGIN, Pyramid, crop_die
from vision.verifier import context_crops, net_input


class _Box:
    center, w, h, score = (61.0, 52.0), 18.0, 22.0, 0.9


def _image() -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (120, 140, 3), dtype=np.uint8)


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_an_unjittered_example_is_the_readers_own_input(recipe: str) -> None:
    torch = pytest.importorskip("torch")
    from training.d6.notadie import to_input

    img = _image()
    pyr = Pyramid(img)
    b = _Box()
    miner = Miner.__new__(Miner)
    miner.recipe = RECIPES[recipe]
    side = miner.recipe.crop
    ex = miner.pair(pyr, b.center, b.w, b.h, False)
    assert ex.shape == (side, 2 * side, 3)
    crop = context_crops(pyr, [b], side, MARGIN)  # as vision.verifier.NetVerifier.judge makes it
    if side == 32:  # the classifier's own crop, which the reader hands the net
        np.testing.assert_array_equal(crop[0], crop_die(pyr, b.center, b.w * MARGIN, b.h * MARGIN))
    want = net_input(crop, context_crops(pyr, [b], side))
    got = to_input(torch.from_numpy(ex[None])).numpy()
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_the_calibration_part_is_a_fifth_of_the_photos_by_name() -> None:
    names = [f"photo_{i}.jpg" for i in range(2000)]
    share = sum(map(calib_photo, names)) / len(names)
    assert 0.17 < share < 0.23
    assert calib_photo("photo_7.jpg") == calib_photo("photo_7.jpg")
