"""A small learnt die's face the set alone would read surely is asked when the embedding alone finds
another face nearer and the OCR head does not back the face (issue 44, `template.contradicted`): held
out, d20_wood without its empty table read face 3 as 7 surely this way 6 times (benchmarks/RESULTS.md)."""

from __future__ import annotations

import numpy as np

from vision.numbered import template
from vision.numbered.learnt import LearntReading
from vision.numbered.ocr import VALUES as OCR_VALUES
from vision.numbered.reader import UNCONFIRMED, learnt_with_ocr

BOX = ((0.0, 0.0), (60.0, 0.0), (60.0, 60.0), (0.0, 60.0))


def _evidence(**by_value: float) -> list[float]:
    ev = np.full(len(OCR_VALUES["d20"]), 0.001)
    for v, e in by_value.items():
        ev[OCR_VALUES["d20"].index(int(v[1:]))] = e
    return list(ev)


def _reading(embedding_gap: float | None) -> LearntReading:
    """One of the six: a trusted set's template match, its nearest face 7, sure by the set alone."""
    return LearntReading(
        kind="d20",
        value=7,
        center=(30.0, 30.0),
        quad=BOX,
        confidence=0.82,
        colour="orange",
        dice_set="wood",
        faces=(3, 7, 17),
        likenesses=(0.68, 0.82, 0.66),
        trusted=True,
        embedding_gap=embedding_gap,
    )


def test_the_rule() -> None:
    assert template.contradicted(-0.07, 0.0) and template.contradicted(-0.009, 0.016)
    assert not template.contradicted(0.0, 0.0)  # the embedding does not find another face nearer
    assert not template.contradicted(-0.07, template.HEAD_FLOOR)  # the head backs the face
    assert not template.contradicted(None, 0.0)  # not a template read: not measured


def test_a_small_die_the_embedding_and_the_head_contradict_is_asked() -> None:
    head_elsewhere = _evidence(v19=0.6, v7=0.0)
    # the six wood readings: the head read 19 (or 17, 4, 3), gave 7 nothing; the embedding found 3 nearer
    out = learnt_with_ocr(_reading(-0.098), 19, 0.66, head_elsewhere, 0.08, True)
    assert (out.value, out.confidence) == (7, UNCONFIRMED)
    # also when the die is not under the head's floor (a trusted set's own word)
    assert learnt_with_ocr(_reading(-0.098), 19, 0.2, head_elsewhere, 0.08, False).confidence == UNCONFIRMED
    # the same reading with the embedding agreeing, or the head giving 7 some evidence, or no template
    # read: sure by the set alone, as before
    assert learnt_with_ocr(_reading(0.03), 19, 0.66, head_elsewhere, 0.08, True).confidence == 0.82
    backed = _evidence(v19=0.3, v7=0.05)
    assert learnt_with_ocr(_reading(-0.098), 19, 0.3, backed, 0.08, True).confidence == 0.82
    assert learnt_with_ocr(_reading(None), 19, 0.66, head_elsewhere, 0.08, True).confidence == 0.82
    was = template.AGAINST_GAP
    template.AGAINST_GAP = None  # the rule before
    try:
        assert learnt_with_ocr(_reading(-0.098), 19, 0.66, head_elsewhere, 0.08, True).confidence == 0.82
    finally:
        template.AGAINST_GAP = was
