"""A small learnt die cut again before the sure rule (issue 44, read unasked; tried, not adopted: off as
shipped, `template.CUT_MARGIN` None, the benchmarks set `TRIED_CUT_MARGIN`): a template match of a
trusted set whose margin is CUT_MARGIN or more but under TRUST_MARGIN is cut again at CUT_SCALES, and
read surely only when its face beats every other by CUT_HEAD_MARGIN at every cut, the OCR head's
evidence weighed in (`reader.cuts_agree`); asked otherwise, as before."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.numbered import template
from vision.numbered.learnt import DiceSet, LearntReading, Match
from vision.numbered.ocr import VALUES as OCR_VALUES
from vision.numbered.reader import UNCONFIRMED, Found, NumberedReader, cuts_agree, learnt_with_ocr

SURE = 0.8


@pytest.fixture(autouse=True)
def _tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tried rule on, as the benchmarks turn it on."""
    monkeypatch.setattr(template, "CUT_MARGIN", template.TRIED_CUT_MARGIN)


def _reading(likes: tuple[float, float], cuts: tuple[tuple[float, float], ...]) -> LearntReading:
    """A small die a trusted set reads as 5 (17 its nearest other face), not sure by its margin."""
    return LearntReading(
        kind="d20",
        value=5 if likes[0] >= likes[1] else 17,
        center=(400.0, 300.0),
        quad=((370.0, 270.0), (430.0, 270.0), (430.0, 330.0), (370.0, 330.0)),
        confidence=UNCONFIRMED,
        colour="blue",
        dice_set="blue-d20",
        faces=(5, 17),
        likenesses=likes,
        cuts=cuts,
    )


def _flat() -> list[float]:
    """The OCR head reading nothing of a 60 px die: the same small evidence for every value."""
    values = OCR_VALUES["d20"]
    return [1.0 / len(values)] * len(values)


def test_a_die_cut_again_is_sure_only_when_every_cut_reads_its_face() -> None:
    # margin 0.055 (under TRUST_MARGIN): asked before; both further cuts read 5 clearly too
    agreed = learnt_with_ocr(
        _reading((0.88, 0.825), ((0.87, 0.83), (0.89, 0.84))), 6, 0.01, _flat(), 0.02, True
    )
    assert agreed.value == 5 and agreed.confidence >= SURE
    # one further cut finds 17 as near: asked, its face kept
    split = learnt_with_ocr(
        _reading((0.88, 0.825), ((0.87, 0.83), (0.85, 0.845))), 6, 0.01, _flat(), 0.02, True
    )
    assert split.value == 5 and split.confidence < SURE
    # not cut again (no cuts): the rule before, asked
    alone = learnt_with_ocr(_reading((0.88, 0.825), ()), 6, 0.01, _flat(), 0.02, True)
    assert alone.value == 5 and alone.confidence < SURE
    # a die whose box the head reads (not small) keeps the large die's rule
    big = learnt_with_ocr(
        _reading((0.88, 0.825), ((0.87, 0.83), (0.89, 0.84))), 6, 0.01, _flat(), 0.08, False
    )
    assert big.confidence < SURE
    # two of a roster's dice as alike: asked, however the cuts agree
    rival = replace(_reading((0.88, 0.825), ((0.87, 0.83), (0.89, 0.84))), rival="bob-d20")
    assert learnt_with_ocr(rival, 6, 0.01, _flat(), 0.02, True).confidence < SURE


def test_the_heads_evidence_weighs_in_at_every_cut() -> None:
    likes, cuts = (0.88, 0.83), ((0.87, 0.84), (0.89, 0.85))  # 5 by 0.03-0.05 at every cut
    assert cuts_agree((5, 17), 5, likes, cuts, [0.1, 0.1], 0.02)
    # the head favouring 17 ten to one: 0.02 x ln(10) = 0.046 off 5's lead at every cut
    assert not cuts_agree((5, 17), 5, likes, cuts, [0.01, 0.1], 0.02)
    assert not cuts_agree((5, 17), 5, likes, (), [0.1, 0.1], 0.02)  # no further cut
    assert not cuts_agree((5, 17), 5, likes, ((0.87, 0.84, 0.5),), [0.1, 0.1], 0.02)  # misshapen


@pytest.mark.parametrize(
    ("support", "margin", "gap", "taught", "cut"),
    [
        (2, 0.06, 0.0, 4, True),
        (2, template.TRIED_CUT_MARGIN, 0.0, 4, True),
        (1, 0.06, 0.03, 4, True),  # one crop alike, the embedding agreeing (as `trusted`)
        (1, 0.06, 0.01, 4, False),
        (1, 0.06, 0.03, 1, False),  # a face taught from one roll
        (2, template.TRUST_MARGIN, 0.0, 4, False),  # sure already (`trusted`)
        (2, 0.045, 0.0, 4, False),  # under CUT_MARGIN
        (0, 0.06, 0.03, 4, False),
    ],
)
def test_which_matches_are_cut_again(support: int, margin: float, gap: float, taught: int, cut: bool) -> None:
    assert template.cut_again(support, margin, gap, taught) is cut


def test_the_shipped_rule_cuts_nothing_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # CUT_MARGIN as shipped: None, the tried rule not adopted
    assert template.CUT_MARGIN is None
    assert not template.cut_again(2, 0.06, 0.03, 4)


def _die(text: str) -> np.ndarray:
    img = np.full((48, 48, 3), 40, np.uint8)
    cv2.circle(img, (24, 24), 21, (200, 190, 180), -1)
    cv2.putText(img, text, (12, 33), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    return img


def test_the_reader_cuts_a_named_match_again_at_each_scale(reader: NumberedReader) -> None:
    """`NumberedReader.cut_again` keeps, for the match `Match.cut_again` names, the die's likeness to
    each face of its set at each of CUT_SCALES, cut on its outline from the frame; other matches as
    they were."""
    crops = [_die("5"), _die("17")]
    embed = reader.embedder().embed(crops, 1)[:, 0]
    pixels = np.stack([template.pixels_of(c) for c in crops])
    dice = DiceSet(
        "blue-d20", "d20", "blue", "net", np.array([5, 17]), embed, trust=True, crop="die", pixels=pixels
    )
    frame = np.full((200, 200, 3), 40, np.uint8)
    frame[76:124, 76:124] = crops[0]
    outline = ((100.0, 100.0), 42.0 / 1.1 * 48 / 42, 0.0)  # the crop's side: the drawn square
    named = Match(5, 0.9, 0.06, "d20", "blue-d20", 2, True, (5, 17), (0.9, 0.84), template=True, taught=1)
    named = replace(named, taught=2)
    assert named.cut_again
    plain = replace(named, margin=0.2)  # sure by its margin: not cut again
    assert not plain.cut_again
    found = Found((100.0, 100.0), 48.0, 48.0, 0.9, (100.0, 100.0))
    got = reader.cut_again(frame, 1.0, [found, found], [outline, None], [named, plain], dice)
    assert got[1] == plain and got[1].cuts == ()
    assert got[0] is not None and len(got[0].cuts) == len(template.CUT_SCALES)
    assert all(len(row) == 2 for row in got[0].cuts)
    assert all(row[0] > row[1] for row in got[0].cuts)  # the drawn 5 is nearer 5 at each scale
