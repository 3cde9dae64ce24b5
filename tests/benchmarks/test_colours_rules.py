"""Issue 44 item 5, eighth round: the rim of a swirl (`benchmarks.colours_rules.rim_shares`, on
`vision.face.die_mask`) and the ask rules the spread margin was chosen among."""

from __future__ import annotations

import numpy as np

from benchmarks.colours_rules import RULES, entry, rim_shares
from vision.face import die_cut, die_mask


def _die(rim_bgr: tuple[int, int, int] | None) -> np.ndarray:
    """A 64 px crop: a dark die (40 px) on light grey, a neighbour's corner at the top left, and a
    2 px rim of ``rim_bgr`` along the die's right side."""
    crop = np.full((64, 64, 3), 200, np.uint8)
    crop[12:52, 12:52] = (30, 30, 30)
    crop[:6, :6] = (30, 30, 160)  # a red neighbour's corner, beyond the die's box
    if rim_bgr is not None:
        crop[12:52, 50:52] = rim_bgr
    return crop


def test_the_die_mask_is_what_the_cut_keeps_and_the_rim_counts_only_a_blue_rim() -> None:
    crop = _die((160, 60, 20))  # a blue rim (BGR)
    found = die_mask(crop)
    assert found is not None
    mask, _ = found
    assert mask[30, 30] == 1 and mask[2, 2] == 0  # the die, not the neighbour's corner
    cut = die_cut(crop)
    assert np.array_equal(cut[mask > 0], crop[mask > 0]) and not np.array_equal(cut[:6, :6], crop[:6, :6])
    blue = rim_shares(crop)
    assert all(x > 0.05 for x in blue)
    assert rim_shares(_die(None)) == [0.0] * len(blue)


def test_the_rules_name_by_the_nearest_and_the_adopted_one_asks_within_half_the_colours_spread() -> None:
    def look(x: float, chroma: float = 0.0) -> np.ndarray:
        v = np.zeros(15)
        v[0], v[2] = 20.0 + x, -chroma
        return v

    ent = {"black": entry("black", [look(0.0), look(40.0)]), "blue": entry("blue", [look(30.0, 30.0)])}
    assert ent["black"].spread is not None and ent["blue"].spread is None
    by_colour, rule = RULES["hueless colour, margin under 0.5 x its colour's spread"]
    table = RULES["the table's ratio alone (the seventh round)"][1]
    assert by_colour
    ds = [(12.0, "black"), (14.0, "blue")]  # a margin of 2, under half black's spread; ratio 0.86
    assert table(ent, ds, 0.0) == ("black", False)
    assert rule(ent, ds, 0.0) == ("black", True)
    assert rule(ent, [(2.0, "black"), (14.0, "blue")], 0.0) == ("black", False)
