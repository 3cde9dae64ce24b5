"""Palettes: loading from a dict, clear errors, nearest colour."""

from __future__ import annotations

import pytest

from vision import DieReading, Palette


def test_default_names_the_game_colours() -> None:
    p = Palette.default()
    for name in ["red", "blue", "green", "purple", "yellow", "white", "black"]:
        assert name in p.lab
    assert p.nearest((30, 30, 180)) == "red"
    assert p.nearest((20, 210, 240)) == "yellow"
    assert p.nearest((250, 250, 250)) == "white"
    assert p.nearest((10, 10, 10)) == "black"


def test_round_trip_through_dict() -> None:
    p = Palette.from_dict({"teal": {"bgr": [128, 128, 0]}, "ink": {"lab": [10, 0, 0]}})
    q = Palette.from_dict(p.to_dict())
    assert set(q.lab) == {"teal", "ink"}
    assert q.nearest((130, 120, 5)) == "teal"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({}, "non-empty mapping"),
        ({"red": [1, 2]}, "'red'.*three numbers"),
        ({"red": {"bgr": [0, 0, 300]}}, "'red'.*0..255"),
        ({"red": "crimson"}, "'red'"),
        ([1, 2, 3], "mapping"),
    ],
)
def test_bad_palette_names_the_entry(data: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Palette.from_dict(data)  # type: ignore[arg-type]


def test_reading_json_is_the_cli_contract() -> None:
    r = DieReading(
        value=3, center=(10.04, 20.0), quad=((0, 0), (1, 0), (1, 1), (0, 1)), confidence=0.98765, colour="red"
    )
    assert r.to_json() == {
        "kind": "d6",
        "value": 3,
        "center": [10.0, 20.0],
        "quad": [[0, 0], [1, 0], [1, 1], [0, 1]],
        "confidence": 0.988,
        "colour": "red",
        "cocked": False,
    }
