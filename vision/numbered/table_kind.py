"""A numbered die's kind from what the table knows, and its value read at that one kind (issue 43 item
5, "kind at a table").

At a table of several kinds (Die-angler: d6, d10, d20) the generic kind classifier is unsure of a real
die's kind (~0.17 on the held-out real d20s) and a numeral several kinds have (1-10: a d10's or a
d20's) says nothing of it, so every such die is asked (`ocr.joint`).  A table knows more than the
classifier: its dice (the roster: each die's kind and size in mm), their sizes in the frame (a board
calibration gives a die's footprint in mm), their outlines.  When that settles a die's kind, the die is
read again at that one kind (`at_kind`: the classifier's likeliest value of the kind and the OCR head's
reading of that kind's numerals, `ocr._opinion`'s rule, no share of the kind to pay) and the kind's
numeral alone decides how sure it is.  A kind nothing settles stays as `joint` read it: asked.

Routes:

* **the table's dice** (`controller.kind_at_table.TableKinds`): the roster's kinds; one numbered kind
  left settles the die.  (Its size in mm from a board calibration: measured, not used: see there.)
* **outline** (`outline_kind`, `vision.numbered.outline`): a d20 seen from above is near-round, a d6
  square.  Measured only, not used by the table (benchmarks/table_stills.py, RESULTS): on the real d20s
  a round outline is found for most d20s of a plain tray, but on the rendered stills a d10's outline
  passes the d20 rule 12 % of the time (a d20's 33 %), so at a table with d10 and d20 the outline
  would settle d10s as d20s (`outline_kind`'s ``guard``), and at a table without d10 the table's
  dice settle a d20 already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from vision.numbered.labels import CLASSES, KIND_SLICES
from vision.numbered.ocr import MIN_SIDE, VALUES, OcrHead, _opinion, kind_probs
from vision.numbered.outline import Outline
from vision.reading import DieReading

#: the outline of a d20 seen from above (`outline_kind`), chosen on the TRAIN set-ups (d20_lurig's
#: d20_color and d20_off-angle, laid in the still as the benchmark lays them): round at least ROUND_D20,
#: its least rectangle at most ASPECT_D20 long for its width, filling FILL_D20 of it
ROUND_D20 = 0.91
ASPECT_D20 = 1.12
FILL_D20 = (0.72, 0.86)

KindOf = Callable[[np.ndarray, DieReading], "str | None"]


def side_px(r: DieReading) -> float:
    """A reading's side in pixels: the larger extent of its quad."""
    q = np.asarray(r.quad, np.float64).reshape(-1, 2)
    return float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))


def outline_kind(o: Outline | None, kinds: Sequence[str], guard: bool = True) -> str | None:
    """The kind a die's outline settles at a table of ``kinds``: "d20" for a round outline (ROUND_D20,
    ASPECT_D20, FILL_D20) at a table without d10 or d10p (their outlines are as often round: see the
    module's doc; ``guard`` False: at any table, as the benchmark measures it), None otherwise (an outline
    cut by the crop's edge says nothing)."""
    if o is None or o.cut or "d20" not in kinds or (guard and {"d10", "d10p"} & set(kinds)):
        return None
    import cv2

    (_, _), (rw, rh), _ = cv2.minAreaRect(o.hull)
    aspect = max(rw, rh) / max(min(rw, rh), 1e-6)
    if o.round >= ROUND_D20 and aspect <= ASPECT_D20 and FILL_D20[0] <= o.fill <= FILL_D20[1]:
        return "d20"
    return None


#: at a settled kind (`at_kind`) the classifier and the head reading one value are as sure as one or
#: the other is right (1 - (1 - q) (1 - h)); the head's value alone, where they differ, is as sure as
#: the head when it is at least HEAD_SURE.  Chosen on the TRAIN set-ups (d20_lurig's d20_color and
#: d20_off-angle, every 2nd photo laid in a still and read as a Die-angler table whose roster settles
#: the d20: 202 dice): agreeing at 0.8 or more and the head alone at 0.75 or more, 60 read unasked, 0
#: wrong (the head's wrong values reach 0.70; agreement counted as the surer of the two, the rule of
#: `ocr.second_opinion`: 33 unasked)
HEAD_SURE = 0.75


def at_kind(
    classifier: object, head: OcrHead | None, image: np.ndarray, r: DieReading, kind: str
) -> DieReading:
    """``r`` read again as ``kind``, its kind settled by the table: the classifier's likeliest value of
    that kind (``q``: its share of the kind's probability) and the OCR head's reading of the kind's
    numerals (``h``).  The same value: sure 1 - (1 - q) (1 - h); the head's value where it is at least
    HEAD_SURE; else asked with both values, as `ocr.second_opinion` asks.  A die under the head's
    MIN_SIDE, or without a head, is given the kind and the classifier's value, no surer than it was."""
    side = side_px(r)
    p = kind_probs(classifier, image, [r], [0], [side])[0]  # type: ignore[arg-type]
    s = KIND_SLICES[kind]
    j = s.start + int(np.argmax(p[s]))
    value, sure = CLASSES[j][1], float(p[j]) / max(float(p[s].sum()), 1e-9)
    if head is None or kind not in VALUES or side < MIN_SIDE:
        return replace(r, kind=kind, value=value, confidence=min(sure, r.confidence))
    got = head.read_kinds(image, [(r.center, side)], (kind,))[0][kind]
    if got.value == value:
        return _plain(r, kind, value, 1 - (1 - sure) * (1 - got.confidence))
    if got.confidence >= HEAD_SURE:
        return _plain(r, kind, got.value, got.confidence)
    return _opinion(r, kind, value, sure, got)


def _plain(r: DieReading, kind: str, value: int, confidence: float) -> DieReading:
    return DieReading(
        kind=kind,
        value=value,
        center=r.center,
        quad=r.quad,
        confidence=confidence,
        colour=r.colour,
        cocked=r.cocked,
        colour_near=r.colour_near,
        box=r.box,
        look=r.look,
    )


def settle(
    kind_of: KindOf, reader: object, image: np.ndarray, readings: list[DieReading], kinds: Sequence[str]
) -> list[DieReading]:
    """``readings`` (the numbered reader's, of ``image``) with each numbered die whose kind ``kind_of``
    settles from the table's knowledge read again at that kind (`at_kind`; ``reader``: the
    `NumberedReader`, its classifier and OCR head); a die it does not settle, a d6, a learnt set's
    die and a kind the table does not read stay as they were read.  `NumberedDice` reads this way
    with a ``kind_of`` (`controller.kind_at_table`)."""
    out = []
    for r in readings:
        kind = None
        if r.kind in VALUES and getattr(r, "dice_set", None) is None:
            kind = kind_of(image, r)
        if kind is not None and kind in kinds and kind in KIND_SLICES and kind != "d6":
            r = at_kind(reader, getattr(reader, "ocr", None), image, r, kind)
        out.append(r)
    return out


def by_outline(kinds: Sequence[str], guard: bool = True) -> KindOf:
    """The outline route as a `NumberedDice` ``kind_of`` (`outline_kind` of the die's outline)."""
    from vision.numbered.outline import outline

    def kind_of(image: np.ndarray, r: DieReading) -> str | None:
        return outline_kind(outline(image, r.center, side_px(r)), kinds, guard)

    return kind_of
