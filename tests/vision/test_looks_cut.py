"""A die's look of its crop cut to the die (issue 44 item 5, fourth round: `vision.face.die_cut`): a
neighbour's corner in the crop no longer counts in the die's look.  On the real byler_d6 train photos of
2019-12-08 (each kind of die learnt from its first 3 of them, `benchmarks/labels/d6_looks.csv`), a smoke die
with a blue swirl's corner in its crop, or a yellow die's, was asked about by the third round's look
and is named black now; a look learnt in the third round is still read as it was learnt."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.looks as vl
from benchmarks.colours_real import LABELS, TRAIN_LABELS, TUNE_LABELS, load_labels
from benchmarks.colours_roster import load_looks, rosters_cut, seen_in
from vision.face import HUE_BINS, LOOK_SIZE, die_cut, die_looks
from vision.looks import CUT, HUED, LearntPalette, Look

#: (photo, die, its look, the third round's naming, the fourth's)
READ = [
    ("112404", 24, "smoke", ("black", "blue"), ("black", None)),  # a blue swirl's corner in its crop
    ("113004", 3, "smoke", ("black", "maroon"), ("black", None)),  # a yellow die's corner
]


@pytest.fixture(scope="module")
def learnt(request: pytest.FixtureRequest) -> tuple[LearntPalette, LearntPalette, dict]:  # type: ignore[type-arg]
    real = request.getfixturevalue("real_fixtures")
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    held = load_labels(LABELS)
    names = sorted(p for p in labels if "IMG_20191208_" in p and p not in held)  # the train photos
    photos = {p: seen_in(p, labels[p], load_looks(), real) for p in names}
    _, _, hued, cut, test = rosters_cut(photos, "by look")
    assert {f"byler_d6/images/IMG_20191208_{r[0]}.jpg" for r in READ} <= set(test)
    return hued, cut, photos


@pytest.mark.parametrize(("photo", "die", "look", "before", "now"), READ)
def test_the_cut_look_names_a_die_whose_crop_holds_a_neighbours_corner(
    learnt: tuple[LearntPalette, LearntPalette, dict],  # type: ignore[type-arg]
    photo: str,
    die: int,
    look: str,
    before: tuple[str, str | None],
    now: tuple[str, str | None],
) -> None:
    hued, cut, photos = learnt
    seen = photos[f"byler_d6/images/IMG_20191208_{photo}.jpg"][die]
    assert seen.look == look and len(seen.whole) == CUT == LOOK_SIZE == 2 * HUED
    with pytest.MonkeyPatch.context() as mp:  # the third and fourth rounds' share weights, every share 0.3
        mp.setattr(vl, "HUED_WEIGHTS", np.concatenate([vl.WHOLE_WEIGHTS, np.full(HUED - vl.WHOLE, 30.0)]))
        mp.setattr(vl, "ASK_RATIO_HUED", 0.9)
        assert replace(hued, light=seen.palette.light).near_two(seen.whole[:HUED]) == before
        assert replace(cut, light=seen.palette.light).near_two(seen.whole) == now
    assert replace(cut, light=seen.palette.light).near_two(seen.whole) == now  # the seventh round's too


def _drawn(neighbour: bool) -> np.ndarray:
    """A dark die with red pips in the middle of its crop (its box the middle 1 / 1.2), grey table round
    it; with a blue die's corner in the crop's corner, touching the die's box."""
    crop = np.full((64, 64, 3), 200, np.uint8)
    crop[12:52, 12:52] = (30, 30, 30)
    for y, x in ((22, 22), (32, 32), (42, 42)):
        crop[y - 3 : y + 4, x - 3 : x + 4] = (40, 40, 190)
    if neighbour:
        crop[46:64, 46:64] = (170, 90, 20)
    return crop


def test_die_cut_paints_what_lies_beyond_the_die_the_tables_colour() -> None:
    alone, beside = _drawn(False), _drawn(True)
    cut = die_cut(beside)
    assert np.array_equal(cut[:58, :58], beside[:58, :58])  # the die and its box kept
    assert (cut[60:, 60:] == 200).all()  # the neighbour beyond the die's box painted the table's grey
    blue = [15 + i for i in range(HUE_BINS) if 225 <= i * 360 / HUE_BINS <= 315]  # round -b*: blue
    a, b = die_looks([alone, beside])
    assert b[blue].sum() > a[blue].sum() + 0.02  # the crop as it is: the neighbour's blue counts
    assert b[HUED:][blue].sum() < b[blue].sum()  # cut: less of it
    white = np.full((64, 64, 3), 235, np.uint8)
    white[30:34, 30:34] = 20  # a white die on white paper: its pip alone differs, not cut
    assert np.array_equal(die_cut(white), white)


def test_a_third_round_roster_is_read_as_it_was_learnt() -> None:
    new = die_looks([_drawn(True)])[0]
    old = Look.learn([new[:HUED]])  # a sighting of the third round: the crop as it is
    assert old.form(new) == HUED and old.distance(new) < 1.0  # (kept to 2 decimals)
    now = Look.learn([new])
    assert now.form(new) == CUT and Look.from_json(now.to_json()) == now
    bad = list(now.labs[0])
    bad[HUED + 20] = 3.0  # a share of the cut look beyond 0..1
    with pytest.raises(ValueError, match=r"dice\[0\]\.look\.labs\[0\]: expected .*90 numbers"):
        Look.from_json({"labs": [bad]}, "dice[0].look")
