"""The fixed train / held-out rule, and the classic baseline the benchmark compares with."""

from __future__ import annotations

import numpy as np
from vision_helpers import draw_row

from hardware.drawn import felt
from training.baseline import cluster, read_dice_classic
from training.dataset import is_held_out


def test_split_is_a_fixed_function_of_the_name() -> None:
    names = [f"IMG_{i:04d}.jpg" for i in range(2000)]
    held = [n for n in names if is_held_out(n)]
    assert 0.15 < len(held) / len(names) < 0.25
    assert is_held_out("IMG_20191208_111228.jpg") == is_held_out("IMG_20191208_111228.jpg")
    # The committed rule: sha1(name)[:8] % 5 == 0. These two were worked out by hand.
    import hashlib

    for n in ("a.jpg", "IMG_20191209_095617.jpg"):
        assert is_held_out(n) == (int(hashlib.sha1(n.encode()).hexdigest()[:8], 16) % 5 == 0)


def test_cluster_groups_close_points() -> None:
    pts = np.array([[0, 0], [5, 0], [100, 100], [104, 100], [300, 0]], float)
    sizes = sorted(len(g) for g in cluster(pts, 10))
    assert sizes == [1, 2, 2]


def test_classic_reads_clean_separate_dice() -> None:
    img = felt(480, 640, (60, 110, 40))
    draw_row(img, [1, 3, 5], size=60, gap=2.5)
    got = sorted(read_dice_classic(img), key=lambda r: r[0][0])
    assert [v for _, v in got] == [1, 3, 5]
