"""A die's look with the shares of its pixels by hue (issue 44 item 5, third round): the table that
learnt each kind of die of the byler_d6 photos (`benchmarks/labels/d6_looks.csv`, each from its first
3 photos) names the gold/brown marbled dice and the blue/black swirls the second round's whole look
asked about or named black, and asks about a swirl whose top face is black where the whole look
named it black unasked; the shares are soft, so a pastel die near the chroma limit keeps its look."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.colours_real import LABELS, TRAIN_LABELS, TUNE_LABELS, load_labels
from benchmarks.colours_roster import load_looks, rosters, seen_in
from vision.face import HUE_BINS, HUE_CHROMA, LOOK_SIZE, SHARES, die_looks, hue_shares
from vision.looks import HUED, WHOLE, LearntPalette, Look, limits

#: every look of the 2019-12-08 dice is learnt from (its first 3 of) these
LEARN = ("111246", "111304", "111339", "111352")
#: read (train photos): (photo, die, its look, the second round's naming, the hued look's)
READ = [
    # silent before, asked by the third round's share weights, named right since the seventh round's
    # (`vision.looks.SHARE_WEIGHT` 0.4 for all the die's pixels, `BODY_SHARE_WEIGHT` 0.1 for its body's)
    ("111710", 9, "blue-black swirl", ("black", None), ("blue", None)),
    ("111530", 12, "blue-black swirl", ("black", "blue"), ("blue", None)),
    ("111530", 0, "brown", ("black", "brown"), ("brown", None)),
    ("111530", 2, "maroon", ("black", "maroon"), ("maroon", None)),
    ("112942", 3, "brown", ("brown", "black"), ("brown", None)),
]


@pytest.fixture(scope="module")
def learnt(request: pytest.FixtureRequest) -> tuple[LearntPalette, LearntPalette, dict]:  # type: ignore[type-arg]
    real = request.getfixturevalue("real_fixtures")
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    names = {f"byler_d6/images/IMG_20191208_{n}.jpg" for n in LEARN + tuple(r[0] for r in READ)}
    photos = {p: seen_in(p, labels[p], load_looks(), real) for p in sorted(names)}
    _, whole, hued, test = rosters(photos, "by look")
    assert sorted(test) == sorted({f"byler_d6/images/IMG_20191208_{r[0]}.jpg" for r in READ})
    return whole, hued, photos


@pytest.mark.parametrize(("photo", "die", "look", "before", "now"), READ)
def test_the_hued_look_names_or_asks_what_the_whole_look_misnamed(
    learnt: tuple[LearntPalette, LearntPalette, dict],  # type: ignore[type-arg]
    photo: str,
    die: int,
    look: str,
    before: tuple[str, str | None],
    now: tuple[str, str | None],
) -> None:
    whole, hued, photos = learnt
    seen = photos[f"byler_d6/images/IMG_20191208_{photo}.jpg"][die]
    assert seen.look == look and len(seen.whole) == LOOK_SIZE  # the label by eye; the look of this round
    assert replace(whole, light=seen.palette.light).near_two(seen.whole[:WHOLE]) == before
    assert replace(hued, light=seen.palette.light).near_two(seen.whole) == now


def test_hue_shares_are_soft_near_the_chroma_limit() -> None:
    """An ivory die's pixels a little under and a little over the chroma limit count nearly alike
    (a hard limit counted them all grey, then all hued)."""
    under = np.tile([[85.0, 0.0, HUE_CHROMA - 0.2]], (50, 1))
    over = np.tile([[85.0, 0.0, HUE_CHROMA + 0.2]], (50, 1))
    a, b = hue_shares(under), hue_shares(over)
    assert len(a) == SHARES and a.sum() == pytest.approx(1.0) and b.sum() == pytest.approx(1.0)
    assert np.abs(a - b).sum() < 0.25  # a hard limit moved all of them: 2.0
    assert hue_shares(np.zeros((0, 3))).sum() == 0.0


def test_a_black_topped_swirl_keeps_the_blue_of_its_sides() -> None:
    """Drawn: a black top face with red pips over blue sides, beside a smoke die (black, red pips):
    the shares of blue tell them apart, the body's colour does not."""

    def drawn(side: tuple[int, int, int]) -> np.ndarray:
        crop = np.full((64, 64, 3), 200, np.uint8)
        crop[15:49, 15:49] = side
        crop[18:46, 18:46] = (28, 28, 28)
        for y, x in ((24, 24), (32, 32), (40, 40)):
            crop[y - 2 : y + 3, x - 2 : x + 3] = (40, 40, 190)
        return crop

    swirl, smoke = die_looks([drawn((170, 90, 20)), drawn((34, 34, 34))])
    assert swirl.shape == (LOOK_SIZE,) and np.allclose(swirl[:3], smoke[:3], atol=3)  # one body
    blue = [15 + i for i in range(HUE_BINS) if 225 <= i * 360 / HUE_BINS <= 315]  # round -b*: blue
    assert swirl[blue].sum() > 0.2 and smoke[blue].sum() < 0.02


def test_hued_json_round_trip_bad_input_and_older_rosters() -> None:
    row = [20.0, 1.0, -9.0] + [5.0] * 9 + [80.0, 0.0, 0.0] + [0.0] * (HUED - WHOLE)
    row[WHOLE + 11] = 1.0
    look = Look.learn([row])
    assert Look.from_json(look.to_json()) == look and look.whole and look.form(row) == HUED
    with pytest.raises(ValueError, match=r"dice\[0\]\.look\.labs\[0\]: expected .*shares 0\.\.1"):
        Look.from_json({"labs": [row[:WHOLE] + [2.0] * (HUED - WHOLE)]}, "dice[0].look")
    # a roster learnt in the second round (15 numbers a sighting) is read by the whole look
    old = Look.learn([row[:WHOLE]])
    assert old.form(row) == WHOLE and old.distance(np.asarray(row)) == pytest.approx(0.0)
    assert limits(HUED) != limits(WHOLE)
