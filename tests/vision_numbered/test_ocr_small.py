"""The OCR head weighs a small learnt die (issue 44 item 4): a roster's die of ~60 px, under the head's own
floor (`ocr.MIN_SIDE`), is read with the head's evidence from `ocr.LEARNT_MIN_SIDE`, its crop magnified
first (`ocr.MAGNIFY`); a die no set knows keeps the classifier's reading at that size, as before (the
renders' small dice, tests/vision_numbered/test_numbered_scenes.py).  Figures:
benchmarks/ocr_small.py, benchmarks/learnt_cli_small.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tests.real_photos import REAL as SHARED_REAL
from tests.real_photos import real_photos
from vision.numbered import ocr, trust
from vision.numbered.learnt import LearntReading
from vision.numbered.ocr import VALUES as OCR_VALUES
from vision.numbered.reader import LEARNT_OCR_SURE, UNCONFIRMED, NumberedReader, learnt_with_ocr
from vision.reading import DieReading

FACES = (3, 9, 14, 17)
SURE = 0.8


def _small(likes: dict[int, float], confidence: float, side: float = 60.0) -> LearntReading:
    """A roster die of a ``side`` px box as the reader gives it before the head weighs it: its nearest
    face as sure as the set alone says (``confidence``, `learnt_verdict`)."""
    nearest = max(likes, key=lambda f: likes[f])
    raw = {"nearest": float(nearest), "support": 2.0, "entry_gap": 0.05, "clf_value": -1.0}
    h = side / 2
    return LearntReading(
        kind="d20",
        value=nearest,
        center=(400.0, 300.0),
        quad=((400 - h, 300 - h), (400 + h, 300 - h), (400 + h, 300 + h), (400 - h, 300 + h)),
        confidence=confidence,
        colour="blue",
        dice_set="blue-d20",
        faces=FACES,
        likenesses=tuple(likes.get(f, 0.6) for f in FACES),
        evidence=tuple(raw.items()),
        calibrated=True,
    )


def _head(value: int, p: float) -> list[float]:
    values = OCR_VALUES["d20"]
    return [p if v == value else (1 - p) / (len(values) - 1) for v in values]


def test_a_60px_learnt_die_is_weighed_by_the_head_and_an_unknown_one_is_not() -> None:
    reader = NumberedReader.__new__(NumberedReader)  # the floor alone: no nets loaded
    reader.ocr, reader.learnt_ocr = object(), 0.08  # type: ignore[assignment]
    assert ocr.LEARNT_MIN_SIDE < 60 < ocr.MIN_SIDE
    assert reader.weighs_learnt("d20", 60.0)  # the code before: only from MIN_SIDE (100 px)
    assert not reader.weighs_learnt("d20", ocr.LEARNT_MIN_SIDE - 1)
    # a die no set knows, as small: the head does not re-read it (the classifier's value stays)
    plain = DieReading(
        kind="d20",
        value=5,
        center=(400.0, 300.0),
        quad=_small({3: 0.9}, 0.5).quad,
        confidence=0.9,
        colour="blue",
    )
    assert ocr._head_dice([plain], ocr.OCR_KINDS) == ([], [])


def test_the_heads_evidence_chooses_among_the_taught_faces_and_agreement_makes_it_sure() -> None:
    assert not trust.used("alone")  # the fitted small-die rule did not beat the rule before on train
    # the set cannot tell 9 from 14 at 60 px; the head reads 14: the face is 14, asked
    close = _small({9: 0.86, 14: 0.85}, UNCONFIRMED)
    chosen = learnt_with_ocr(close, 14, 0.6, _head(14, 0.6), small=True)
    assert chosen.value == 14 and chosen.confidence <= UNCONFIRMED
    assert dict(chosen.evidence)["small"] == 1.0
    # the set's nearest face and the head agree, the head at least LEARNT_OCR_SURE: sure (its likeness)
    agreed = learnt_with_ocr(
        _small({9: 0.9, 14: 0.8}, UNCONFIRMED), 9, LEARNT_OCR_SURE, _head(9, 0.5), small=True
    )
    assert agreed.value == 9 and agreed.confidence >= SURE
    # the head agreeing but unsure: as sure as the set alone said (here asked)
    weak = learnt_with_ocr(
        _small({9: 0.9, 14: 0.8}, UNCONFIRMED), 9, LEARNT_OCR_SURE - 0.05, _head(9, 0.3), small=True
    )
    assert weak.confidence <= UNCONFIRMED
    # a set sure on its own keeps its face's confidence; a rival die stays asked whatever the head says
    trusted = learnt_with_ocr(_small({9: 0.95, 14: 0.7}, 0.9), 9, 0.1, _head(9, 0.1), small=True)
    assert trusted.confidence == 0.9
    rival = replace(_small({9: 0.95, 14: 0.7}, UNCONFIRMED), rival="red-d20")
    assert learnt_with_ocr(rival, 9, 0.95, _head(9, 0.95), small=True).confidence <= UNCONFIRMED


def test_a_small_dies_evidence_is_read_by_the_small_die_rule() -> None:
    big = trust.evidence(0.9, 0.1, 3, 0.1, True, head=True, head_agrees=True, head_conf=0.9)
    small = trust.evidence(0.9, 0.1, 3, 0.1, True, head=True, head_agrees=True, head_conf=0.9, small=True)
    assert trust.regime(big) == "head" and trust.regime(small) == "alone"


LURIG = SHARED_REAL / "d20_lurig"
needs_real = real_photos("d20_lurig/labels.csv")


@needs_real
def test_the_head_magnifies_a_small_die_before_it_cuts_its_crops() -> None:
    import cv2

    head = ocr.OcrHead(angles=4, shares=(0.3,))
    photo = cv2.imread(str(LURIG / "images" / sorted(p.name for p in (LURIG / "images").iterdir())[0]))
    assert photo is not None
    small = cv2.resize(photo, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    centre = (small.shape[1] / 2, small.shape[0] / 2)
    side = 0.5 * small.shape[0]
    assert side < ocr.MIN_SIDE
    as_cut = head.crops(small, centre, side)
    magnified = head.small_crops(small, centre, side)
    assert magnified.shape == as_cut.shape
    assert not np.array_equal(magnified, as_cut)  # cubic from the magnified die, not bilinear from the frame
    # a die at the head's own size is cut as before
    big = cv2.resize(photo, None, fx=1.0, fy=1.0)
    c_big, s_big = (big.shape[1] / 2, big.shape[0] / 2), 0.5 * big.shape[0]
    assert s_big >= ocr.MIN_SIDE
    assert np.array_equal(head.small_crops(big, c_big, s_big), head.crops(big, c_big, s_big))


class _FakeHead:
    """The head's reading of every die: 14 fairly sure, 9 a little (in `ocr.VALUES` order)."""

    def read(
        self, image: np.ndarray, dice: list[tuple[tuple[float, float], float, str]]
    ) -> list[ocr.OcrValue]:
        ev = [0.6 if v == 14 else 0.1 if v == 9 else 0.01 for v in OCR_VALUES["d20"]]
        return [ocr.OcrValue("d20", 14, 0.6, tuple(ev), (0.6, 0.0, 0.17, 0.5)) for _ in dice]


def test_a_small_dies_evidence_weighs_less_than_a_large_ones() -> None:
    reader = NumberedReader.__new__(NumberedReader)
    reader.ocr, reader.learnt_ocr = _FakeHead(), 0.08  # type: ignore[assignment]
    image = np.zeros((600, 800, 3), np.uint8)
    likes = {9: 0.9, 14: 0.85}
    # a 60 px die: the set's clearly nearest face stands against a middling reading of another
    assert ocr.LEARNT_SMALL_WEIGHT is not None and ocr.LEARNT_SMALL_WEIGHT < 0.08
    small = reader.learnt_ocr_readings(image, [_small(likes, UNCONFIRMED, side=60.0)])[0]
    assert small.value == 9
    # a die the head reads at its own size: the head's evidence as before (LEARNT_OCR)
    large = reader.learnt_ocr_readings(image, [_small(likes, UNCONFIRMED, side=150.0)])[0]
    assert large.value == 14
