"""benchmarks/learnt_cuts.py replays the small-die rule with the die cut again (issue 44, read unasked;
tried, not adopted) as the reader reads it with `template.TRIED_CUT_MARGIN`: a recorded die's own cut
sure by the rule on main stays sure; one under TRUST_MARGIN but over CUT_MARGIN is sure only when every
scaled cut reads its face (`reader.cuts_agree`), in milliseconds on a hand-made record (the benchmark
itself cuts real frames again)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from benchmarks.learnt_cuts import CUTS, SCALED, cut_rule
from vision.numbered import template


def _evidence() -> dict[str, Any]:
    return {
        "values": [3, 3, 17, 17, 8, 8],
        "faces": [3, 8, 17],
        "head_evidence": [0.1, 0.1, 0.1],
        "head_value": 9,
        "head_conf": 0.05,
        "weight": 0.02,
        "value": 17,
    }


def _rows(own: list[float], scaled: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Every cut's likeness to the 6 stored crops: `read`'s own cut ``own``, the scaled cuts ``scaled``,
    the others as the own cut; the embedding's the same, 17 nearest by 0.06."""
    mix = np.tile(np.array(own), (len(CUTS), 1))
    for k in SCALED[1:]:
        mix[k] = scaled
    emb = np.tile(np.array([0.80, 0.81, 0.90, 0.88, 0.84, 0.82]), (len(CUTS), 1))
    return mix, emb


def test_a_die_under_the_trust_margin_is_sure_when_its_scaled_cuts_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(template, "CUT_MARGIN", template.TRIED_CUT_MARGIN)
    own = [0.70, 0.72, 0.90, 0.88, 0.84, 0.845]  # 17 by 0.055 over 8, two of its crops alike
    x, ok = cut_rule(_evidence(), *_rows(own, own))
    assert x is not None and x["face"] == 17 and 0.05 <= x["gap"] < 0.07 and ok
    # a scaled cut that finds 8 as near: asked
    _, split = cut_rule(_evidence(), *_rows(own, [0.70, 0.72, 0.86, 0.85, 0.86, 0.85]))
    assert not split
    # under CUT_MARGIN: asked however the cuts agree
    low = [0.70, 0.72, 0.90, 0.89, 0.86, 0.87]
    y, ok_low = cut_rule(_evidence(), *_rows(low, low))
    assert y is not None and y["gap"] < 0.05 and not ok_low
    # sure by the rule before (0.07 clear): sure whatever the scaled cuts say
    clear = [0.70, 0.72, 0.92, 0.90, 0.80, 0.81]
    _, ok_clear = cut_rule(_evidence(), *_rows(clear, [0.70, 0.72, 0.80, 0.80, 0.86, 0.85]))
    assert ok_clear
