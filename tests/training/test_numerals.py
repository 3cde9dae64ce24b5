"""The synthetic d20 top faces the numeral head is trained on (training/numbered/numerals.py)."""

from __future__ import annotations

import numpy as np
import pytest

from training.numbered.numerals import fonts, numeral_mask, numeral_patch

HERSHEY = fonts(truetype=False)


def test_patches_are_seeded_and_sized() -> None:
    a = numeral_patch(6, np.random.default_rng(3), 64, HERSHEY)
    b = numeral_patch(6, np.random.default_rng(3), 64, HERSHEY)
    c = numeral_patch(6, np.random.default_rng(4), 64, HERSHEY)
    assert a.shape == (64, 64, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_six_and_nine_carry_their_mark() -> None:
    f = HERSHEY[0]
    plain, lined, dotted = numeral_mask(f, 6, ""), numeral_mask(f, 6, "line"), numeral_mask(f, 6, "dot")
    assert lined.shape[0] > plain.shape[0] and dotted.shape[1] > plain.shape[1]
    assert numeral_mask(f, 8, "line").shape == numeral_mask(f, 8, "").shape  # only 6 and 9


def test_bad_values_are_refused() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="1-20"):
        numeral_patch(21, rng)
    with pytest.raises(ValueError, match="at least 16"):
        numeral_patch(5, rng, 8)
