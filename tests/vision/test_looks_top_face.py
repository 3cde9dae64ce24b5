"""A die's look takes the larger group of its pixels for its body (issue 44 item 5, seventh round:
`vision.face.LOOK_TOP_FACE`).  On the real byler_d6 photo of 2019-12-08 11:15:48 the pip reader's box of
a black die with white pips lies on the die's upper half, so the crop the table names it from
(`vision.crops.look_crop`) is cut tight round its top pip; issue 45's top-face rule took that pip, which
fills the crop's centre, for the die's face, and the table named the black die white, unasked (the
one black die `benchmarks/colours_roster.py` named wrong from the reader's crop)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.face as face
from benchmarks.colours_real import LABELS, TRAIN_LABELS, TUNE_LABELS, load_labels
from benchmarks.colours_roster import load_looks, seen_in
from benchmarks.harness import imread
from vision.crops import look_crop
from vision.looks import HUED, LearntPalette, Look, look_of, pooled

PHOTO = "byler_d6/images/IMG_20191208_111548.jpg"
#: the pip reader's box of die 16 (a black die with white pips) in PHOTO, as `vision.read_dice` found it
#: (`DieReading.box`): the die's upper half
BOX = [(259.75, 121.25), (285.70, 121.25), (285.70, 147.84), (259.75, 147.84)]
#: the kinds of die the roster learns here, each from the first 3 photos (by name) that show it
KINDS = ("black opaque", "smoke", "white", "ivory")


@pytest.fixture(scope="module")
def learnt(request: pytest.FixtureRequest) -> tuple[LearntPalette, np.ndarray]:
    real = request.getfixturevalue("real_fixtures")
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    looks = load_looks()
    learn: dict[str, list[str]] = {}
    for photo in sorted(p for p in labels if p.startswith("byler_d6/")):
        for kind in {looks.get((photo, i)) for i in range(len(labels[photo]))} & set(KINDS):
            if len(learn.setdefault(kind, [])) < 3:
                learn[kind].append(photo)
    assert PHOTO not in {p for ps in learn.values() for p in ps}  # read on a photo that taught none
    assert looks[(PHOTO, 16)] == "black opaque" and labels[PHOTO][16]["colour"] == "black"
    return _learn(real, labels, looks, learn), imread(real / PHOTO)


def _learn(real, labels, looks, learn) -> LearntPalette:  # type: ignore[no-untyped-def]
    rows = []
    for kind, photos in learn.items():
        for photo in photos:
            rows += [
                (s.colour, Look.learn([s.whole]))
                for s in seen_in(photo, labels[photo], looks, real)
                if s.look == kind
            ]
    return LearntPalette.of(pooled(rows))


def _named(image: np.ndarray, palette: LearntPalette) -> tuple[np.ndarray, tuple[str, str | None]]:
    """The die's look at BOX (as the reader names it: `LearntPalette.describe_at`), and its name."""
    pal = palette.balanced_by_frame(image)
    look = look_of([look_crop(image, BOX)], pal)[0]
    return look, pal.near_two(look)


def test_a_black_die_whose_crop_is_tight_round_its_top_pip_is_named_black(
    learnt: tuple[LearntPalette, np.ndarray],
) -> None:
    palette, image = learnt
    look, named = _named(image, palette)
    assert look[HUED] < 40.0  # the cut look's body: black
    assert named == ("black", None)


def test_with_the_top_face_rule_the_pip_was_its_body_and_it_was_named_white(
    learnt: tuple[LearntPalette, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    palette, image = learnt
    monkeypatch.setattr(face, "LOOK_TOP_FACE", True)
    look, named = _named(image, palette)
    assert look[HUED] > 80.0  # the pip
    assert named[0] == "white"
