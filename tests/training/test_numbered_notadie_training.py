"""training/numbered/notadie.py teaches the numbered not-a-die net on the input the reader gives it
(vision.numbered.notadie) and labels the reader's own candidates."""

from __future__ import annotations

import numpy as np
import pytest

from training.numbered.notadie import POSITIVE, SOURCES, Miner, render_window, texture, threshold_for
from vision.numbered.notadie import SIDE, net_input, pairs
from vision.numbered.reader import Found


def test_the_threshold_keeps_all_but_the_share_of_each_positive_source() -> None:
    src = np.array(
        [SOURCES.index("render die")] * 4 + [SOURCES.index("real d6")] * 2 + [SOURCES.index("texture")]
    )
    s = np.array([0.2, 0.5, 0.6, 0.9, 0.4, 0.8, 0.99])
    assert threshold_for(s, src, 0.0) == pytest.approx(0.2 - 1e-6)
    assert threshold_for(s, src, 0.25) == pytest.approx(0.4 - 1e-6)  # real d6's lowest: 0.4
    assert set(POSITIVE) <= set(SOURCES)


def test_a_render_window_tells_whole_dice_from_dice_its_edge_cuts() -> None:
    img, inside, cut, area = render_window(1)
    assert img.shape == (384, 384, 3) and 0 < area < 480 * 360
    for b in inside:
        assert 0 <= b[0] < b[2] <= 384 and 0 <= b[1] < b[3] <= 384
    for b in cut:
        assert b[0] < 0 or b[1] < 0 or b[2] > 384 or b[3] > 384


def test_the_reader_finds_the_dice_of_a_render_and_the_miner_labels_them_dice() -> None:
    m = Miner(np.random.default_rng(0))
    img, inside, cut, area = render_window(1)
    m.photo(img, inside, True, "render die", "render off-die", det_area=area, dont_care=cut)
    data = m.arrays()
    assert data["x"].shape[1:] == (SIDE, 2 * SIDE, 3)
    assert (data["src"] == SOURCES.index("render die")).sum() >= max(1, len(inside) - 1)
    assert set(data["y"][data["src"] == SOURCES.index("render die")]) == {1}


def test_an_unjittered_example_is_the_readers_own_input() -> None:
    torch = pytest.importorskip("torch")
    from training.numbered.notadie import to_input

    img = np.random.default_rng(3).integers(0, 256, (120, 140, 3), dtype=np.uint8)
    ex = pairs(img, [Found((60.0, 50.0), 18.0, 22.0, 0.9, (61.0, 52.0))])
    got = to_input(torch.from_numpy(ex)).numpy()
    np.testing.assert_allclose(got, net_input(ex), atol=1e-6)


def test_drawn_surfaces_are_seeded() -> None:
    a = texture(np.random.default_rng(5), 120, 160)
    b = texture(np.random.default_rng(5), 120, 160)
    assert a.shape == (120, 160, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, b)
