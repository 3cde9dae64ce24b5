"""A numbered die's kind read with its numeral at a table of more than one kind (issue 29, session 14;
vision/numbered/ocr.py `joint`): 11-19 only on a d20, "00" and 30-90 only on a percentile d10, 0 only
on a d10; a numeral several kinds have is never sure of its kind."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tests.real_photos import real_photos
from training.numbered.real import default_root
from vision.numbered import NumberedDice
from vision.numbered.labels import CLASSES, INDEX, KINDS
from vision.numbered.ocr import (
    DISAGREED,
    CandidateReading,
    OcrHead,
    joint,
    joint_kinds,
    second_opinion,
)
from vision.numbered.reader import NumberedReader
from vision.numbered.scale import AnyScale
from vision.reading import DieReading, box_quad

REAL = default_root()
LURIG = REAL / "d20_lurig" / "images"
needs_real = real_photos("d20_lurig/images")


@pytest.fixture(scope="module")
def head() -> OcrHead:
    return OcrHead()


class Fixed:
    """A classifier that gives every crop the same probabilities (`joint` reads its kind from them)."""

    crop_side = 64

    def __init__(self, **probs: float) -> None:
        self.p = np.zeros(len(CLASSES), np.float32)
        for name, v in probs.items():
            kind, value = name.split("_")
            self.p[INDEX[(kind, int(value))]] = v
        self.p[0] = max(0.0, 1.0 - float(self.p.sum()))

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        return np.stack([self.p] * len(crops))


def _drawn(text: str, angle: float = 0.0) -> np.ndarray:
    img = np.full((200, 200, 3), 215, np.uint8)
    x = 70 if len(text) == 2 else 85
    cv2.putText(img, text, (x, 118), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (30, 30, 30), 4)
    m = cv2.getRotationMatrix2D((100, 100), angle, 1.0)
    return cv2.warpAffine(img, m, (200, 200), borderMode=cv2.BORDER_REPLICATE)


def _die(kind: str, value: int, confidence: float) -> DieReading:
    quad = box_quad((100.0, 100.0), 200.0, 200.0)
    return DieReading(
        kind=kind, value=value, center=(100.0, 100.0), quad=quad, confidence=confidence, colour="white"
    )


def test_the_joint_kinds_of_a_table() -> None:
    """Kinds narrow, never hide: a table of one kind (`--kinds d20`) or of pip d6 alone reads as before."""
    assert joint_kinds(KINDS) == ("d10", "d10p", "d20", "d6")
    assert joint_kinds(("d6", "d10", "d20")) == ("d10", "d20", "d6")  # Die-angler
    assert joint_kinds(("d10", "d20")) == ("d10", "d20")
    assert joint_kinds(("d6", "d20")) == ("d20", "d6")
    assert joint_kinds(("d20",)) == ()
    assert joint_kinds(("d10",)) == ()  # Dice Fighter
    assert joint_kinds(("d6",)) == ()


def test_a_numeral_only_a_d20_has_makes_the_die_a_d20(head: OcrHead) -> None:
    """The classifier calls the die a d10 (0.9 of its probability); its face reads "17": a d20's 17,
    about as sure as the head's reading (the numeral is no other kind's).  The classifier's kind alone
    read a d10."""
    cls = Fixed(d10_7=0.9, d20_17=0.06)
    img = _drawn("17", 40.0)
    (got,), (v,) = second_opinion(cls, head, img, [_die("d10", 7, 0.9)], kinds=KINDS)
    assert (got.kind, got.value) == ("d20", 17) and v is not None and v.kind == "d20"
    assert got.confidence >= 0.7 * v.confidence > 0.0  # less the other kinds' evidence (a "1" of it)
    (before,), _ = second_opinion(cls, head, img, [_die("d10", 7, 0.9)], kinds=KINDS, joint_kind=False)
    assert before.kind == "d10"


@pytest.mark.parametrize(("text", "kind", "value"), [("70", "d10p", 70), ("00", "d10p", 0), ("0", "d10", 0)])
def test_a_percentile_or_a_d10_numeral_makes_the_die_its_kind(
    head: OcrHead, text: str, kind: str, value: int
) -> None:
    cls = Fixed(d20_7=0.7, d10_7=0.1, d10p_70=0.1)
    (got,), _ = second_opinion(cls, head, _drawn(text, 20.0), [_die("d20", 7, 0.7)], kinds=KINDS)
    assert (got.kind, got.value) == (kind, value)


def test_a_numeral_two_kinds_have_is_never_sure_of_its_kind(head: OcrHead) -> None:
    """A "3" is a d10's or a d20's: the classifier sure of a d10 (as it was of a real d20's neighbour
    numeral on d20_top) keeps the kind, but the die is asked; before, it was as sure as the classifier."""
    cls = Fixed(d10_3=0.97)
    die = _die("d10", 3, 0.97)
    (got,), _ = second_opinion(cls, head, _drawn("3"), [die], kinds=KINDS)
    assert (got.kind, got.value) == ("d10", 3)
    assert got.confidence <= 0.5 < 0.8
    (before,), _ = second_opinion(cls, head, _drawn("3"), [die], kinds=KINDS, joint_kind=False)
    assert (before.value, before.confidence) == (3, 0.97)  # the silent error the joint reading removes
    # a d20 table: one kind, the numeral cannot be another kind's; read as before
    cls20 = Fixed(d20_3=0.97)
    (d20,), _ = second_opinion(cls20, head, _drawn("3"), [_die("d20", 3, 0.97)], kinds=("d20",))
    assert (d20.kind, d20.value) == ("d20", 3) and d20.confidence >= 0.97


def test_a_d6_of_the_numbered_reader_is_read_as_the_kind_its_numeral_says(head: OcrHead) -> None:
    """A d20 the classifier calls a d6 (the most common kind error on real d20s), if not surely: its
    "13" is a d20's.  A face of pips stays the reader's d6, untouched (the recogniser reads pips as
    digits: a d6's evidence is its best single digit, `PIP_EVIDENCE`)."""
    cls = Fixed(d6_5=0.3, d20_13=0.2)
    (got,), _ = second_opinion(cls, head, _drawn("13", 100.0), [_die("d6", 5, 0.3)], kinds=KINDS)
    assert (got.kind, got.value) == ("d20", 13)
    pips = np.full((200, 200, 3), 215, np.uint8)
    for x, y in ((60, 60), (100, 100), (140, 140)):
        cv2.circle(pips, (x, y), 14, (30, 30, 30), -1)
    d6 = _die("d6", 3, 0.9)
    assert joint(Fixed(d6_3=0.9), head, pips, [d6], kinds=KINDS)[0] == [d6]
    # at a table of d20 alone a d6 reading is not the head's to read
    assert second_opinion(cls, head, _drawn("13"), [_die("d6", 5, 0.3)], kinds=("d20",))[0][0].kind == "d6"


def test_a_disagreement_in_the_joint_kind_is_asked_with_both_values(head: OcrHead) -> None:
    """The classifier's likeliest value of the joint kind is the other candidate."""
    cls = Fixed(d10p_50=0.5, d20_4=0.2)
    (got,), _ = second_opinion(cls, head, _drawn("15", 30.0), [_die("d10p", 50, 0.5)], kinds=KINDS)
    assert isinstance(got, CandidateReading) and got.kind == "d20"
    assert got.candidates == (15, 4) and got.confidence <= DISAGREED


def _centre_die(dice: list[DieReading], img: np.ndarray) -> DieReading:
    c = (img.shape[1] / 2, img.shape[0] / 2)
    die = min(dice, key=lambda r: math.dist(r.center, c))
    assert math.dist(die.center, c) < 0.3 * img.shape[1], "no die near the middle"
    return die


@needs_real
@pytest.mark.parametrize(
    ("name", "face", "classifiers"),
    [("f15_d20_color_0779.jpg", 15, "d10p"), ("f13_d20_color_0487.jpg", 13, "d6")],
)
def test_a_real_d20_whose_kind_the_classifier_gets_wrong_is_read_by_its_numeral(
    name: str, face: int, classifiers: str
) -> None:
    """d20_lurig TRAIN photos read as `dicetable read --numbered` reads a photo (every kind, any scale):
    the classifier calls the d20 a percentile d10 / a d6; its numeral is a d20's, and the die is read as
    the d20 it is (asked: the classifier did not read it so)."""
    img = cv2.imread(str(LURIG / name))
    assert img is not None, name
    as_before = AnyScale(NumberedDice(KINDS, reader=NumberedReader(joint_kind=False)))
    before = _centre_die(as_before.read(img), img)
    assert before.kind == classifiers
    got = _centre_die(AnyScale(NumberedDice(KINDS)).read(img), img)
    assert (got.kind, got.value) == ("d20", face)


@needs_real
def test_a_neighbour_faces_numeral_is_no_longer_a_sure_d10() -> None:
    """The silent error of d20_top (held out) read with every kind at any scale: a d20's 1 read at zoom 2
    as a d10 7 at 0.90 (the 7 of a neighbour face).  A 7 is a d10's or a d20's: now asked."""
    path = LURIG / "f01_d20_top_0506.jpg"
    img = cv2.imread(str(path))
    assert img is not None, path
    before = AnyScale(NumberedDice(KINDS, reader=NumberedReader(joint_kind=False))).read(img)
    assert any(r.confidence >= 0.8 and (r.kind, r.value) != ("d20", 1) for r in before)
    got = AnyScale(NumberedDice(KINDS)).read(img)
    assert not any(r.confidence >= 0.8 and (r.kind, r.value) != ("d20", 1) for r in got), got


def test_a_table_of_d20_alone_reads_as_before(monkeypatch: pytest.MonkeyPatch, head: OcrHead) -> None:
    """`--kinds d20`: the joint reading never runs (kinds narrow, never hide)."""
    import vision.numbered.ocr as ocr

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("joint ran at a table of one kind")

    monkeypatch.setattr(ocr, "joint", boom)
    cls = Fixed(d20_17=0.5)
    (got,), _ = second_opinion(cls, head, _drawn("17"), [_die("d20", 17, 0.5)], kinds=("d20",))
    assert (got.kind, got.value) == ("d20", 17)


def test_the_reader_takes_joint_kind() -> None:
    assert NumberedReader().joint_kind is True
    assert NumberedReader(joint_kind=False).joint_kind is False


@pytest.mark.skipif(not (REAL / "d6_gray_tomitomi3").is_dir(), reason="the shared real pip d6 are absent")
@pytest.mark.parametrize(("name", "face"), [("d6_f2_00090.png", 2), ("d6_f3_00080.png", 3)])
def test_a_real_pip_d6_at_a_die_angler_table_is_read_as_before(name: str, face: int) -> None:
    """Real pip d6 close-ups (d6_gray_tomitomi3) at Die-angler's table (d6, d10, d20): the recogniser
    reads their pips as a single digit at 0.92-0.98, which a d10 or a d20 has too; the die stays the
    pip reader's d6, as sure as before (with a d6's evidence a constant, the numbered reader's d6 was
    read as a d10, and the pip reading beside it asked)."""
    img = cv2.imread(str(REAL / "d6_gray_tomitomi3" / "images" / name))
    assert img is not None, name
    kinds = ("d6", "d10", "d20")
    before = _centre_die(
        AnyScale(NumberedDice(kinds, reader=NumberedReader(joint_kind=False))).read(img), img
    )
    got = _centre_die(AnyScale(NumberedDice(kinds)).read(img), img)
    assert (got.kind, got.value) == ("d6", face)
    assert got.confidence == before.confidence >= 0.8
