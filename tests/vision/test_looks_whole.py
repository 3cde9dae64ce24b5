"""A die's whole look (issue 44 item 5, second round): the table that learnt each of its dice (each
kind of die of the byler_d6 photos, `benchmarks/labels/d6_looks.csv`, from its first 3 photos) names
the blue/black swirls whose top face is black by the blue of their sides (the spread of its
plastic, `vision.face.die_looks`, `vision.looks`), which the body's colour alone names black; pips
tell a black die with white pips from a smoke die with red pips; a roster learnt before keeps
reading by the body alone."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.colours_real import LABELS, TRAIN_LABELS, TUNE_LABELS, load_labels
from benchmarks.colours_roster import load_looks, rosters, seen_in
from vision.face import die_looks
from vision.looks import CUT, WHOLE, LearntPalette, Look, look_of
from vision.palette import Palette

#: every look of the 2019-12-08 dice is learnt from (its first 3 of) these
LEARN = ("111246", "111304", "111339", "111352")
#: read: (photo, die, its look, what the body alone names it)
READ = [
    ("111434", 3, "blue-black swirl", "black"),
    ("111751", 8, "blue-black swirl", "black"),
    ("112239", 0, "blue-black swirl", "black"),
]


@pytest.fixture(scope="module")
def learnt(request: pytest.FixtureRequest) -> tuple[LearntPalette, LearntPalette, dict]:  # type: ignore[type-arg]
    real = request.getfixturevalue("real_fixtures")
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    looks = load_looks()
    names = {f"byler_d6/images/IMG_20191208_{n}.jpg" for n in LEARN + tuple(r[0] for r in READ)}
    photos = {p: seen_in(p, labels[p], looks, real) for p in sorted(names)}
    body, whole, _, test = rosters(photos, "by look")
    assert sorted(test) == sorted(f"byler_d6/images/IMG_20191208_{r[0]}.jpg" for r in READ)
    return body, whole, photos


@pytest.mark.parametrize(("photo", "die", "look", "body_says"), READ)
def test_the_whole_look_names_dice_the_body_alone_misnames(
    learnt: tuple[LearntPalette, LearntPalette, dict],
    photo: str,
    die: int,
    look: str,
    body_says: str,  # type: ignore[type-arg]
) -> None:
    body, whole, photos = learnt
    seen = photos[f"byler_d6/images/IMG_20191208_{photo}.jpg"][die]
    assert seen.look == look  # the label by eye
    assert replace(body, light=seen.palette.light).near_two(seen.body) == (body_says, None)  # the first round
    assert replace(whole, light=seen.palette.light).near_two(seen.whole[:WHOLE]) == (seen.colour, None)


def _drawn(body: tuple[int, int, int], pip: tuple[int, int, int]) -> np.ndarray:
    crop = np.full((64, 64, 3), 200, np.uint8)  # grey paper
    crop[14:50, 14:50] = body
    for y, x in ((22, 22), (32, 32), (42, 42)):
        crop[y - 3 : y + 4, x - 3 : x + 4] = pip
    return crop


def test_pips_tell_a_black_die_with_white_pips_from_a_smoke_die_with_red_pips() -> None:
    black, smoke = die_looks([_drawn((30, 30, 30), (235, 235, 235)), _drawn((30, 30, 30), (40, 40, 190))])
    assert np.allclose(black[:3], smoke[:3], atol=2)  # the same body
    assert black[12] > 80 and smoke[14] > 30  # white pips; red pips (b*: 190 red in BGR)
    pal = LearntPalette.of({"black": Look.learn([black]), "red": Look.learn([smoke])})
    assert pal.near_two(die_looks([_drawn((32, 32, 32), (230, 230, 230))])[0]) == ("black", None)
    assert pal.near_two(die_looks([_drawn((32, 32, 32), (45, 45, 185))])[0]) == ("red", None)


def test_a_roster_learnt_before_whole_looks_reads_by_the_body_alone() -> None:
    old = LearntPalette.of(
        {"red": Look.learn([(45.0, 60.0, 40.0)]), "blue": Look.learn([(30.0, 10.0, -50.0)])}
    )
    whole = die_looks([_drawn((40, 40, 190), (235, 235, 235))])[0]
    assert len(whole) == CUT and not old.compares_whole(whole)
    assert old.near_two(whole)[0] == "red"


def test_whole_look_json_round_trip_and_bad_input() -> None:
    row = [20.0, 1.0, -9.0] + [5.0] * 9 + [80.0, 0.0, 0.0]
    look = Look.learn([row])
    assert Look.from_json(look.to_json()) == look and look.whole and look.mean == (20.0, 1.0, -9.0)
    with pytest.raises(ValueError, match=r"dice\[0\]\.look\.labs\[0\]: expected \[L, a, b\]"):
        Look.from_json({"labs": [row[:14]]}, "dice[0].look")
    with pytest.raises(ValueError, match=r"labs\[0\]"):
        Look.from_json({"labs": [[120.0, *row[1:]]]}, "look")


def test_the_crop_is_balanced_as_each_colour_is() -> None:
    pal = Palette.default().balanced((200.0, 220.0, 240.0), (20.0, 22.0, 25.0))
    crop = np.random.default_rng(1).integers(30, 220, (8, 8, 3)).astype(np.uint8)
    import cv2

    lab = cv2.cvtColor(pal.balance_bgr(crop).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    seen = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    want = np.stack([pal.balance_lab(v) for v in seen])
    assert np.abs(lab - want).max() < 1.5  # 8-bit rounding
    assert look_of([crop], pal).shape == (1, CUT)
