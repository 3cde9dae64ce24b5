"""The numbered reader's top-face net finds each die's top face again (`NumberedReader.locate`): for
dice that weigh nothing in the nadir's fit (the pip reader's dice the not-a-d6 check looks at,
vision.numbered.combined.d6_shares) a second pass would run the net on the very same input, so it
runs once, with the very same outcome (issue 46 item 4: the default pip reader's budget)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.numbered.reader import Found, NumberedReader

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "tests" / "fixtures" / "numbered" / "scene_0002.jpg"


class Counted:
    def __init__(self, net: Any) -> None:
        self.net, self.calls = net, 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        return np.asarray(self.net(x))


def located(
    reader: NumberedReader, img: np.ndarray, found: list[Found], every: bool
) -> tuple[list[Found], int]:
    """`locate`'s outcome and how many times it ran a top-face net (either: a die whose fitted
    nadir is too unsure is read by the older one)."""
    reader.skip_weightless = not every
    nets = {"_top": reader._top, "_top_nadir": reader._top_nadir}
    counted = {k: Counted(v) for k, v in nets.items() if v is not None}
    for k, c in counted.items():
        setattr(reader, k, c)
    try:
        out = reader.locate(img, found)
    finally:
        for k, v in nets.items():
            setattr(reader, k, v)
    return out, sum(c.calls for c in counted.values())


def test_weightless_dice_are_located_in_one_pass_with_the_same_outcome() -> None:
    reader = NumberedReader()
    if not reader.has_nadir_net or not reader.estimate_nadir or reader.nadir_passes < 2:
        pytest.skip("the nadir-aware top-face net is not loaded, or fits the nadir once anyway")
    img = cv2.imread(str(SCENE))
    h, w = img.shape[:2]
    spots = [(0.3 * w, 0.4 * h), (0.6 * w, 0.5 * h), (0.45 * w, 0.7 * h)]
    weightless = [Found(c, 60.0, 60.0, 0.0, c) for c in spots]
    once, n_once = located(reader, img, weightless, every=False)
    every, n_every = located(reader, img, weightless, every=True)
    assert once == every
    assert n_once < n_every  # main ran the net on every pass
    # dice with a score weigh in the fit: every pass runs, as before
    weighed = [Found(c, 60.0, 60.0, 0.9, c) for c in spots]
    a, n_a = located(reader, img, weighed, every=False)
    b, n_b = located(reader, img, weighed, every=True)
    assert a == b and n_a == n_b
