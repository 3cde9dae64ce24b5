"""Die colours from the table's learnt dice (vision.looks, issue 44 item 5): real byler_d6 dice the
palette names wrong are named right from looks learnt on 3 other photos; a die between two learnt
looks, or far from all, is asked; the roster keeps each die's look."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.colours_real import LABELS, NOT_DICE, TRAIN_LABELS, TUNE_LABELS, by_box, load_labels
from benchmarks.harness import imread
from vision.looks import LearntPalette, Look
from vision.palette import Palette

#: the 3 photos the colours are learnt from (the first of the set, by name, that show every colour)
LEARN = ("IMG_20191208_111246.jpg", "IMG_20191208_111304.jpg", "IMG_20191208_111352.jpg")


def _seen(real: Path, photo: str) -> list[tuple[str, np.ndarray, Palette]]:
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    dice = labels[f"byler_d6/images/{photo}"]
    image = imread(real / "byler_d6" / "images" / photo)
    pal = Palette.known({d["colour"] for d in dice} | set(NOT_DICE)).balanced_by_frame(image)
    labs = dict(by_box(image, dice))
    return [(d["colour"], labs[i], pal) for i, d in enumerate(dice)]


@pytest.fixture(scope="module")
def learnt(request: pytest.FixtureRequest) -> LearntPalette:
    real = request.getfixturevalue("real_fixtures")
    rows: dict[str, list[np.ndarray]] = {}
    for photo in LEARN:
        for colour, lab, pal in _seen(real, photo):
            rows.setdefault(colour, []).append(pal.balance_lab(lab))
    return LearntPalette.of({c: Look.learn(v) for c, v in rows.items()})


@pytest.mark.parametrize(
    ("photo", "die", "truth", "palette_says"),
    [
        # black dice with white pips, which the palette names maroon
        ("IMG_20191208_112353.jpg", 0, "black", "maroon"),
        ("IMG_20191208_113004.jpg", 3, "black", "maroon"),
        # an ivory (pastel) die the palette names yellow
        ("IMG_20191208_112340.jpg", 11, "white", "yellow"),
    ],
)
def test_learnt_look_names_real_dice_the_palette_misnames(
    real_fixtures: Path, learnt: LearntPalette, photo: str, die: int, truth: str, palette_says: str
) -> None:
    colour, lab, pal = _seen(real_fixtures, photo)[die]
    assert colour == truth  # the label by eye
    assert pal.near_two(lab)[0] == palette_says  # today's palette, the colours in play
    assert replace(learnt, light=pal.light).near_two(lab) == (truth, None)


def test_a_die_between_two_learnt_looks_is_asked() -> None:
    red, maroon = Look.learn([(45.0, 60.0, 40.0), (47.0, 58.0, 42.0)]), Look.learn([(30.0, 40.0, 20.0)])
    pal = LearntPalette.of({"red": red, "maroon": maroon})
    assert pal.near_two(np.array([46.0, 59.0, 41.0])) == ("red", None)
    name, near = pal.near_two(np.array([37.5, 50.0, 30.0]))  # half way
    assert {name, near} == {"red", "maroon"}


def test_a_die_far_from_every_learnt_look_is_asked() -> None:
    pal = LearntPalette.of(
        {"red": Look.learn([(45.0, 60.0, 40.0)]), "blue": Look.learn([(30.0, 10.0, -50.0)])}
    )
    assert pal.near_two(np.array([90.0, -5.0, 80.0]))[1] is not None  # a yellow die nobody taught


def test_look_json_round_trip_and_bad_input() -> None:
    look = Look.learn([(20.0, 1.0, -9.0), (22.0, 2.0, -7.0)])
    back = Look.from_json(look.to_json())
    assert back == look and back.to_json()["seen"] == 2
    with pytest.raises(ValueError, match=r"dice\[0\].look.labs\[1\]: expected \[L, a, b\]"):
        Look.from_json({"labs": [[20, 1, -9], [20, "x", 1]]}, "dice[0].look")
    with pytest.raises(ValueError, match="at least one sighting"):
        Look.learn([])
