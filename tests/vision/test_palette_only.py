"""A palette cut down to the colours a game's dice come in."""

from __future__ import annotations

from vision.palette import Palette


def test_only_keeps_the_named_colours_and_their_weighting() -> None:
    p = Palette.default()
    q = p.only(["Red", "blue", "white", "magenta"])
    assert sorted(q.lab) == ["blue", "red", "white"]
    assert q.lab["red"] == p.lab["red"] and q.lightness_weight == p.lightness_weight
    assert p.nearest((30, 120, 235)) == "orange"
    assert q.nearest((30, 120, 235)) == "red"


def test_only_with_no_known_colour_keeps_the_whole_palette() -> None:
    p = Palette.default()
    assert p.only(["magenta"]) is p
    assert p.only([]) is p
