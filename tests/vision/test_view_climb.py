"""The tilted reader's view search (issue 46 item 4): ``view_search="climb"`` reads every direction at
every other tilt, then climbs through neighbours, instead of reading the dice under every view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from vision.oblique import TILTS, TOWARDS, neighbours
from vision.reader import DiceReader, climb


def landscape(peak: int) -> np.ndarray:
    """A sureness per view falling with the steps (tilt, direction) from view `peak`."""
    t0, a0 = divmod(peak, len(TOWARDS))
    out = []
    for i in range(len(TILTS) * len(TOWARDS)):
        t, a = divmod(i, len(TOWARDS))
        da = min((a - a0) % len(TOWARDS), (a0 - a) % len(TOWARDS))
        out.append(-float(abs(t - t0) + da))
    return np.array(out)


@pytest.mark.parametrize("peak", [0, 7, 13, 20, 27, 39])
def test_climb_finds_the_surest_view_reading_fewer(peak: int) -> None:
    truth = landscape(peak)
    scores = np.full(len(truth), -np.inf)
    read: list[int] = []

    def under(idx: Sequence[int]) -> None:
        for i in idx:
            if scores[i] == -np.inf:
                read.append(i)
                scores[i] = truth[i]

    best = climb(under, scores, len(TILTS), len(TOWARDS))
    assert best == peak
    assert set(neighbours(best)) <= set(read)  # its neighbours were read on the way
    assert len(read) < len(truth)  # 'every' reads all 40
    assert best == int(np.argmax(scores))  # the surest of all it read


def test_the_tilted_reader_climbs() -> None:
    assert DiceReader(estimate_view=True).view_search == "climb"


def test_view_search_is_checked() -> None:
    with pytest.raises(ValueError, match="view_search: expected 'every' or 'climb'"):
        DiceReader(estimate_view=True, view_search="all")  # type: ignore[arg-type]
