"""The per-die reader on the OCR recogniser's features (issue 44, `vision.numbered.die_head`): a die
read later is its taught roll's face whatever turn it lies at; faces never taught score -1; bad
features are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from vision.numbered.die_head import DieHead, pooled

SHARES, TURNS, STEPS, D = 2, 12, 6, 16


def roll(rng: np.random.Generator, base: np.ndarray, shift: int = 0, noise: float = 0.05) -> np.ndarray:
    """One die's head views (SHARES*TURNS x STEPS x D): ``base`` (SHARES x TURNS x D) with its turns
    moved ``shift`` places (the die turned on the table), each step a little noisy."""
    views = np.roll(base, shift, axis=1).reshape(SHARES * TURNS, 1, D)
    return np.asarray(views + noise * rng.standard_normal((SHARES * TURNS, STEPS, D)), np.float32)


def test_a_turned_die_reads_as_its_taught_face_and_untaught_faces_score_minus_one() -> None:
    rng = np.random.default_rng(0)
    looks = {f: rng.standard_normal((SHARES, TURNS, D)) for f in (3, 7, 12)}
    taught = [f for f in looks for _ in range(2)]
    head = DieHead.fit(taught, pooled(np.stack([roll(rng, looks[f]) for f in taught])))
    assert head.faces == [3, 7, 12]
    later = np.stack([roll(rng, looks[f], shift=s) for f, s in ((7, 5), (12, 11), (3, 3))])
    got = head.likeness(pooled(later), faces=[3, 7, 12, 20])
    assert got.shape == (3, 4)
    assert [[3, 7, 12][i] for i in got[:, :3].argmax(1)] == [7, 12, 3]
    assert (got[:, 3] == -1).all()


def test_bad_features_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="views a multiple of 2"):
        DieHead.fit([1], np.zeros((1, 5, D), np.float32))
    with pytest.raises(ValueError, match="1 faces for 2 rolls"):
        DieHead.fit([1], np.zeros((2, SHARES * TURNS, D), np.float32))
    with pytest.raises(ValueError, match="N x views x steps x features"):
        pooled(np.zeros((SHARES * TURNS, STEPS, D), np.float32))
