"""Pixels to numbered dice: a small detector finds dice of every kind, a second net finds the face
pointing up, a classifier names kind and value.

The networks run on the CPU (vision.runtime: onnxruntime, or OpenCV's dnn module)
from ONNX files in vision/models/ (numbered_detector.onnx, numbered_topface.onnx,
numbered_classifier.onnx; trained by training/numbered/train.py on rendered dice, see
training/numbered/MODELS.md).

Any frame size: the detector sees the frame resized to about 480x360 (the
table at the scale it was trained on) and finds each die's outline box (and a first
guess at its top face, too coarse to tell a d20's top face from its neighbours).  A still
larger than a video frame is looked at a second time, finer, where the table's smallest die
is as big as the detector was trained on (`NumberedReader.spotted`, issue 44 item 2: a 60 px
die of a 4608x2592 still is 7 px in the usual input).  The
top-face net (vision/numbered/topface.py) then looks at each die's box cut from the
frame at full resolution and finds the top face's centre and the die's size, all dice
in one batch; the classifier's crop is cut there, at full resolution too.  So a
high-resolution still (a Pi Camera 3 takes 3456x2592 over the same field of view as
its 1280x960 video) gives the classifier numerals 2.7 times as many pixels tall.
With the nadir-aware top-face net (numbered_topface_nadir.onnx) the net is told where each
die is seen from the point below the camera: given by the caller (`read(..., nadir=)`, from
the board pose) or fitted to the other dice of the frame.

The classifier sees a CROP x CROP crop centred on the face pointing up (the pretrained-backbone
classifier, numbered_backbone.onnx, read with `backbone=True` when its file is in the models folder:
the same square cut BACKBONE_CROP x BACKBONE_CROP) and answers one of 47 classes: not a die, d6 1-6, d10 0-9,
percentile d10 00-90, d20 1-20.  The kind is the kind with the most probability summed over its values;
the value is that kind's most likely value.  With `value_head=True` (opt-in, issue 20), a die read as
a d20 takes its value from the numeral head (vision/numbered/numeral.py, numbered_numeral.onnx).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.face import body_labs, face_quad
from vision.image_check import check_bgr
from vision.numbered import die_head, trust
from vision.numbered.crop import BACKBONE_CROP, CROP, MARGIN, crop_die
from vision.numbered.die_crop import die_crop, die_cut, empty_of, face_crop, one_a_die, top_centre
from vision.numbered.die_head import DieHead
from vision.numbered.embed import EMBEDDER_FILE, SMALL_SIDE, TURNS, Embedder, at_scales
from vision.numbered.labels import CLASSES, KIND_SLICES, KINDS, VALUES, parse_kinds
from vision.numbered.learnt import MARGIN as LEARNT_MARGIN
from vision.numbered.learnt import Learnt, LearntReading, LearntSets, Match
from vision.numbered.notadie import NOTADIE_FILE, NotADieNet
from vision.numbered.numeral import NUMERAL_CROP, NUMERAL_FILE, NumeralHead, with_values
from vision.numbered.template import contradicted
from vision.numbered.topface import (
    TOP,
    TOP_MARGIN,
    TOP_NADIR_FILE,
    nadir_fits,
    nadir_ray,
    peaks,
    ray,
    view_planes,
)
from vision.palette import Palette
from vision.reader import suppress
from vision.reading import DieReading, Rejected, box_quad
from vision.runtime import Model, blob, softmax, softmax_turned
from vision.where import Box, WhereStep, screen

MODELS = Path(__file__).resolve().parent.parent / "models"
# The top-face net (vision/numbered/topface.py).  Used when its file is in the models folder: a
# folder of older models without it reads with the detector's own top-face estimate.
TOP_FACE_FILE = "numbered_topface.onnx"
# The classifier fine-tuned from an ImageNet-pretrained EfficientNet-Lite0 (issue 20, item 3;
# training/numbered/train_backbone.py).  Read instead of numbered_classifier.onnx when its file is in
# the models folder and `backbone` is True.  Not the default: it reads real held-out d20 kinds far
# better but rendered d10, d10p and d20 values worse (MODELS.md, "Issue 20 item 3").
BACKBONE_FILE = "numbered_backbone.onnx"
CLASSIFIER_FILE = "numbered_classifier.onnx"
STRIDE = 4
# Pixels the detector sees, whatever the frame's size: 480x360 of a 4:3 frame (480x352 after rounding
# to the detector's 16 px).  Session 4's detector was trained at 512x384; reading at 480x360 costs
# 0.8 ms less a video frame and reads the validation windows as well (MODELS.md, session 6).  Session
# 2's detector was trained at 640x480: pass det_area=640 * 480 to read with it.
DET_AREA = 480 * 360
REFINE = 64  # side of the patch round each die for the detector's second, finer look
# Mean absolute difference (grey levels) between the frame's pixels under a crop and their
# sigma-1 blur, at the frame's own resolution.  Rendered TRAIN dice stay under 25 (video
# frames, 99th percentile 19; stills under 15: JPEG, sensor noise, numerals and edges
# included); pixel noise is above 50.  A crop above this is noise the detector fired on.
NOISE_LEVEL = 35.0
# A nadir fitted to the other dice (NumberedReader.nadirs) less sure than this (its spread, over f)
# leaves the die to the older top-face net: chosen on the validation windows (MODELS.md, session 4).
MAX_SPREAD = 0.3
# How a frame is shrunk for the detector: "halve" (by area while twice as big or more, then
# linearly: `_shrink`) or "area" (one INTER_AREA resize, as the detectors were trained).
SHRINKS = ("halve", "area")
# Detector peaks from DET_THRESHOLD up are read; a peak weaker than SURE_PEAK is a die only when the
# classifier is at least WEAK_FLOOR sure of it (`readings`).  On the validation frames (MODELS.md,
# session 5; 890 dice) this finds 6 of the 9 dice a 0.3 threshold missed, for 2 more false readings;
# on the real byler_d6 train photos merged d6 read right and false readings are unchanged.
DET_THRESHOLD = 0.1
SURE_PEAK = 0.3
WEAK_FLOOR = 0.7
# A crop read upright less surely than this (its top class's probability) is read again turned the
# other quarter turns (`classify`).  Session 5 chose 0.9; at 0.7 the validation windows read the same
# dice right with a quarter fewer classifier passes (MODELS.md, session 6).
SURE = 0.7
# Unknown is not a die (issue 20): at a table that names its kinds (any subset short of all four),
# a reading the classifier gives less than this (its value's probability, after `verdict` keeps the
# table's kinds) is dropped, not asked about.  Reading every kind, it stays asked: on the renders the
# floor cost 1.6 points of kind accuracy (MODELS.md, issue 20).  On the real
# photos (benchmarks/RESULTS.md, issue 20) the numbered reader's readings on cloth, wood, card and
# trays are almost all under it; the table asks a person about readings from it up to its
# confidence_threshold (0.8).
DIE_FLOOR = 0.5
# Kinds whose crops are read at every quarter turn even when the upright view is sure (`classify`): a
# d20's numeral read surely from one view only is often a neighbouring face's numeral (a 7 of the
# 17 beside it, the 6 next to an 11); averaged over the four turns it is no longer sure, so the
# table asks (issue 29's contract: wrong readings at or above the asking threshold at most 1 in 200
# on every real set).  Chosen on the d20_lurig TRAIN set-ups (benchmarks/RESULTS.md, issue 32).
EVERY_TURN = ("d20",)
# The OCR head beside the classifier on every d10, d10p and d20 (issue 29; `ocr`, vision/numbered/ocr.py
# `second_opinion`): the same value is as sure as the surer of the two, another value asked with both as
# candidates, the head's first.  The default since session 13: on every real held-out d20 set it reads
# more values right than the classifier alone and no more surely wrong (benchmarks/RESULTS.md, "Issue
# 29: the OCR head by default"); about 45 ms a die more on one core (a die of 100 px or more).  False:
# the classifier alone.
OCR: bool | str = "second"
# Which OCR head (issue 29, session 14, `ocr_head`): "full" (`OcrHead()`: 24 float crops a die, about
# 43 ms on one core) or "fast" (`OcrHead.fast()`: 6 int8 crops, about 8.5 ms, fewer values right:
# benchmarks/RESULTS.md, "the OCR head's cost").  `[vision] ocr_head` chooses it for a table.
OCR_HEADS = ("full", "fast")
# Kinds narrow, never hide (issue 29 item 3): at a table that names fewer than every kind, a die that
# reading every kind keeps, and that the table's kinds or DIE_FLOOR would drop, is read as the table's
# kind and asked ("relabel", `narrowed`); "drop" reads as before (a d20 table found 1 of 32 d20s of a
# webcam set that reading every kind found 28 of: benchmarks/vision_numbered_kinds.py).
NARROWS = ("relabel", "drop")


@dataclass(frozen=True)
class Found:
    """A detector peak: the top face's centre, the outline box (centre and size) in frame pixels,
    and the peak's score."""

    center: tuple[float, float]
    w: float
    h: float
    score: float
    box_center: tuple[float, float]


@dataclass(frozen=True)
class Verdict:
    """The classifier's answer for one crop."""

    kind: str  # "none" when it is not a die
    value: int
    confidence: float
    kind_confidence: float


#: the confidence of a learnt face the classifier does not confirm: under any asking threshold,
#: so a person confirms it (a wrong learnt face is then never scored unasked)
UNCONFIRMED = 0.5


#: a learnt face is sure without the classifier's agreement when at least TRUST_SUPPORT stored crops
#: of it are alike and the nearest beats every other face's by TRUST_MARGIN (`Match.trusted`): the
#: referee's answers teach the table faces its classifier misreads (issue 29 item 5).  Chosen on the
#: d20_lurig TRAIN set-ups' replayed sessions (benchmarks/vision_numbered_referee.py).
TRUST_SUPPORT = 3
TRUST_MARGIN = 0.05


def learnt_verdict(
    kind: str,
    match: Match,
    classifier: Verdict,
    support: int | None = TRUST_SUPPORT,
    margin: float = TRUST_MARGIN,
) -> Verdict:
    """A die a learnt set knows: its face, sure (its likeness) when the classifier reads the same
    kind and value, or when the set alone is sure of it (`Match.trusted` at `support` and `margin`;
    `support` None: never); otherwise asked (UNCONFIRMED), with the learnt face as the guess.  A die
    two of a roster's dice are as alike to (`Match.rival`, issue 44 item 4) is asked."""
    agrees = classifier.kind == kind and classifier.value == match.value and match.margin >= margin
    trusted = support is not None and match.trusted(support, margin)
    sure = (agrees or trusted) and not match.rival  # two of a roster's dice as alike: which is it?
    confidence = match.likeness if sure else min(match.likeness, UNCONFIRMED)
    if match.calibrated and not match.rival and trust.used("alone"):  # how sure, from the evidence
        same = classifier.kind == kind and classifier.value == match.value
        ev = trust.evidence(match.likeness, match.margin, match.support, match.entry_gap, same)
        confidence = trust.confidence(ev)
    return Verdict(kind, match.value, confidence, match.likeness)


#: A die a learnt set knows, read with the OCR head's evidence too (issue 29: the set says which faces
#: this die has and how they look, the head which numeral it sees): its face is the set's face f with
#: the most likeness(f) + LEARNT_OCR * ln(evidence(f) + EVIDENCE_FLOOR) (`learnt_face`), and a die at
#: least MATCH alike to the set is the set's even when no face is MARGIN nearer than the others (the
#: head tells them apart).  Why (benchmarks/vision_numbered_learnt.py, d20_lurig at the table's scale):
#: on wood the nearest stored crop is often another face's (of a die of the same colour, or the same
#: die later in its clip, turned and nearer the camera), and the head reads the right numeral of many
#: of them.  Chosen on the TRAIN set-ups (d20_color, d20_off-angle; 4 crops a face from each clip's
#: first third, its last third read): weights 0.02 / 0.04 / 0.08 / 0.12 / 0.16 read 116 / 121 / 123
#: / 123 / 122 of 132 (the nearest face alone: 109).  None: the set alone, as before.
LEARNT_OCR: float | None = 0.08
EVIDENCE_FLOOR = 1e-3
#: ... and the face is sure (its likeness) only when the head reads it too at least this sure and it
#: is the set's nearest face (or the set is trusted, `Match.trusted`, and the head reads no other
#: value that sure): the classifier's agreement no longer makes it sure, as the set's likeness is the
#: classifier's own features (`embed`), not a second opinion.  On the TRAIN set-ups' within-clip
#: reading 0.2 let 2 of 132 wrong readings through, 0.3 none; a set learnt on d20_color reading
#: d20_off-angle's frames (another die) was read surely wrong 6 times of 114 with the classifier's
#: agreement still sure (0 with the head's).  0.4 keeps a margin.
LEARNT_OCR_SURE = 0.4
#: a die this alike to a stored crop of one face (and to no other face's) is the very picture taught
#: (a learn frame read back): its face is the one taught, whatever the head reads (issue 44 item 2: a
#: set read on its own learn frames read 1.0-alike crops as the head's numeral).  Set before any figure,
#: not tuned (benchmarks/learn_readback.py measures the later rolls too).
SAME = 0.97


def learnt_face(
    faces: Sequence[int], likenesses: Sequence[float], evidence: Sequence[float], weight: float = 0.08
) -> int:
    """The face of a learnt set's die given its likeness to each face of the set and the OCR head's
    evidence for each (aligned with `faces`), the evidence's log weighted `weight` (LEARNT_OCR)."""
    like = np.asarray(likenesses, np.float64)
    if len(like) and float(like.max()) >= SAME and int(np.count_nonzero(like >= SAME)) == 1:
        return int(faces[int(np.argmax(like))])  # the very picture taught: the face it was taught as
    w = weight
    score = like + w * np.log(np.asarray(evidence, np.float64) + EVIDENCE_FLOOR)
    return int(faces[int(np.argmax(score))])


def learnt_with_ocr(
    r: LearntReading,
    head_value: int,
    head_confidence: float,
    evidence: Sequence[float],
    weight: float = 0.08,
    small: bool = False,
) -> LearntReading:
    """A learnt set's reading `r` (its `faces` and `likenesses`) weighed with the OCR head's reading
    (its value, calibrated confidence and evidence for each of the kind's values, in `ocr.VALUES`
    order): the face `learnt_face` gives.  Sure (its likeness) when it is the set's nearest face and
    the head reads it at least LEARNT_OCR_SURE sure; as sure as `r` when `r` is a trusted set's
    (`LearntReading.trusted`), the nearest face, and the head reads no other value that sure; else
    asked (at most UNCONFIRMED), whatever the classifier said (see LEARNT_OCR_SURE).  ``small``: the
    die's box is under the head's own floor (`ocr.MIN_SIDE`, read from `ocr.LEARNT_MIN_SIDE`): its
    confidence is the small-die rule's (`trust`'s "alone") where that rule is used, else sure (its
    likeness) when it is the set's nearest face and the head reads it at least LEARNT_OCR_SURE sure,
    the set's own (`learnt_verdict`) for the nearest face otherwise, and asked for any other."""
    from vision.numbered.ocr import VALUES as OCR_VALUES

    values = OCR_VALUES[r.kind]
    ev = [evidence[values.index(f)] if f in values else 0.0 for f in r.faces]
    face = learnt_face(r.faces, r.likenesses, ev, weight)
    like = r.likenesses[r.faces.index(face)]
    head_sure = head_confidence >= LEARNT_OCR_SURE
    if r.evidence:  # a roster's die: what the head read, for its calibrated confidence (`trust`)
        raw = {**dict(r.evidence), "head": 1.0, "head_value": float(head_value)}
        raw["head_conf"] = float(head_confidence)
        raw["small"] = float(small)
        r = replace(r, evidence=tuple(raw.items()))
    if r.calibrated and r.evidence and trust.used("alone" if small else "head"):
        calibrated = trust.confidence(trust.features(r.faces, r.likenesses, dict(r.evidence), face))
        confidence = min(r.confidence, UNCONFIRMED) if r.rival else calibrated
    elif small and face == r.value and head_value == face and head_sure and not r.rival:
        confidence = max(r.confidence, like)  # the set's nearest face, and the head reads it too
    elif (
        small
        and face == r.value
        and not r.rival
        and cuts_agree(r.faces, face, r.likenesses, r.cuts, ev, weight)
    ):
        confidence = max(r.confidence, like)  # the die cut again reads the face at every cut
    elif small:  # else as sure as the set alone says (`learnt_verdict`), its nearest face only,
        # unless the embedding and the head contradict the pixels (`template.contradicted`)
        against = contradicted(r.embedding_gap, ev[r.faces.index(face)])
        confidence = r.confidence if face == r.value and not against else min(r.confidence, UNCONFIRMED)
    elif r.rival:  # two of a roster's dice as alike (issue 44 item 4): asked, whatever the head reads
        confidence = min(r.confidence, UNCONFIRMED)
    elif face == r.value and head_value == face and head_sure:
        confidence = max(r.confidence, like)
    elif (
        r.trusted
        and face == r.value
        and not head_sure
        and not contradicted(r.embedding_gap, ev[r.faces.index(face)])
    ):
        confidence = r.confidence
    else:
        confidence = min(r.confidence, UNCONFIRMED)
    return replace(r, value=face, confidence=max(0.0, min(1.0, confidence)))


def with_die_head(
    r: LearntReading, evidence: Sequence[float], views: np.ndarray | None, head: DieHead
) -> LearntReading | None:
    """A learnt set's reading `r` weighed by the set's own reader on the OCR recogniser's features
    (issue 44, `vision.numbered.die_head`): its face the best `die_head.score` of the set's faces (the
    set's likeness, the head's evidence for each, in `ocr.VALUES` order, and the die's views' likeness
    to each face's taught rolls), sure (`die_head.SURE`) when that beats the runner-up by
    `die_head.SURE_MARGIN`, else asked; a die two of a roster's dice are as alike to is asked.  None
    when the die has no views the reader can compare (the head gave none, or of another shape): read
    as before."""
    from vision.numbered.ocr import VALUES as OCR_VALUES

    _, shares, turns, width = head.views.shape
    if views is None or not r.faces or views.shape != (shares * turns, width):
        return None
    values = OCR_VALUES[r.kind]
    ev = [evidence[values.index(f)] if f in values else 0.0 for f in r.faces]
    scores = die_head.score(r.faces, r.likenesses, ev, head.likeness(views[None], r.faces)[0])
    best, margin = die_head.pick(scores)
    face = int(r.faces[best])
    like = np.asarray(r.likenesses, np.float64)
    if len(like) and float(like.max()) >= SAME and int(np.count_nonzero(like >= SAME)) == 1:
        face = int(r.faces[int(np.argmax(like))])  # the very picture taught: the face it was taught as
        margin = float("inf")
    if r.rival:  # two of a roster's dice as alike (issue 44 item 4): asked, whatever it reads
        confidence = min(r.confidence, UNCONFIRMED)
    else:
        confidence = die_head.SURE if margin >= die_head.SURE_MARGIN else min(r.confidence, UNCONFIRMED)
    return replace(r, value=face, confidence=confidence)


def cuts_agree(
    faces: Sequence[int],
    value: int,
    likenesses: Sequence[float],
    cuts: Sequence[Sequence[float]],
    evidence: Sequence[float],
    weight: float = 0.08,
) -> bool:
    """Whether a learnt die cut again (``cuts``: its likeness to each of `faces` at each further cut,
    `Match.cuts`; ``likenesses``: at its own cut) reads `value` at every cut by
    `template.CUT_HEAD_MARGIN` over every other face, each cut's likenesses weighed with the OCR head's
    evidence (aligned with `faces`) as `learnt_face` weighs them."""
    from vision.numbered import template

    if len(cuts) == 0 or value not in faces or len(faces) < 2:
        return False
    if any(len(row) != len(faces) for row in (likenesses, evidence, *cuts)):
        return False
    rows = np.asarray([likenesses, *cuts], np.float64)
    score = rows + weight * np.log(np.asarray(evidence, np.float64) + EVIDENCE_FLOOR)
    i = list(faces).index(value)
    others = np.delete(score, i, axis=1)
    return bool((score[:, i] - others.max(1) >= template.CUT_HEAD_MARGIN).all())


def narrowed(p: np.ndarray, kinds: tuple[str, ...]) -> Verdict:
    """A die of another kind (or unsure whether a die) read as one of the table's `kinds` (issue 29
    item 3, kinds narrow, never hide): the likeliest of their values, never surer than UNCONFIRMED
    (the table asks: the classifier did not read it as one of them)."""
    v = verdict(p, 2.0, kinds)  # a rejection threshold over 1: never "none" while a kind has any probability
    if v.kind == "none":
        return Verdict(kinds[0], VALUES[kinds[0]][0], 0.0, 0.0)
    return replace(v, confidence=min(v.confidence, UNCONFIRMED))


def verdict(p: np.ndarray, reject: float = 0.5, kinds: tuple[str, ...] = KINDS) -> Verdict:
    """Kind by summed probability, then that kind's most likely value.

    `kinds`: the kinds the table's game uses.  The probabilities of "not a die" and of those kinds
    are renormalised to one (the classifier's belief given that no other kind is on the table), so a
    patch of wood the classifier finds d6-like is "not a die" at a table of d20s, not a weak d20."""
    if kinds != KINDS:
        keep = np.zeros_like(p)
        keep[0] = p[0]
        for k in kinds:
            keep[KIND_SLICES[k]] = p[KIND_SLICES[k]]
        p = keep / max(float(keep.sum()), 1e-12)
    kind_p = {k: float(p[s].sum()) for k, s in KIND_SLICES.items() if k in kinds}
    if float(p[0]) >= reject or max(kind_p.values()) < 1e-6:
        return Verdict("none", 0, float(p[0]), float(p[0]))
    kind = max(kind_p, key=lambda k: kind_p[k])
    s = KIND_SLICES[kind]
    i = s.start + int(np.argmax(p[s]))
    return Verdict(kind, CLASSES[i][1], float(p[i]), kind_p[kind])


class NumberedReader:
    """Reads d6, d10, percentile d10 and d20 dice. Thread-safe (the nets are guarded by a lock).

    `refine`: look a second time round each die at twice the scale (`refine()`).  On the
    TRAIN-generator validation windows it halves the median error of the top face's centre
    (0.084 -> 0.040 of the box) but not the tail (90th percentile 0.22 -> 0.24, the peak on
    a neighbouring face), and numbered values read right (with an earlier classifier) moved
    by noise-sized amounts (77.2 -> 78.7 %, 334 dice; 78 -> 83 % and 84 -> 84 % on 64 and 76
    dice of larger video and still windows), so it is off by default.

    `verify`: the not-a-die net's second opinion on every reading (vision.numbered.notadie; issue 20
    item 5): None (the default) when numbered_notadie.onnx is in the models folder, True to require
    it, False to read without it.  On the real held-out photos it removes most phantoms and keeps the
    dice (benchmarks/RESULTS.md, "Issue 20 item 5").

    `narrow`: at a table of fewer than every kind, what becomes of a die the table's kinds (or
    DIE_FLOOR) would drop that reading every kind keeps: "relabel" (the default, issue 29 item 3)
    reads it as the table's kind and asks (`narrowed`); "drop" drops it, as before.

    `joint_kind`: with the OCR head, at a table of more than one kind a die's kind is read with its
    numeral (`ocr.joint`, the default); False keeps the classifier's kind (as before issue 29 session 14).
    """

    #: `locate_nadir` fits the nadir once when every die weighs nothing in the fit (its further
    #: passes would give the very same nadirs and net outputs); False: every pass, as before issue 46
    #: (benchmarks/vision_d6_budget.py times both)
    skip_weightless: bool = True
    #: a learnt set learns and matches each die's own crop, centred, scaled and turned on its outline
    #: (`vision.numbered.die_crop`, issue 44 item 2); False: the classifier's crop round the top face
    #: as before (benchmarks/learn_readback.py measures both)
    die_centred: bool = False
    #: a still whose dice are small is read where they are as big as the detector was trained on
    #: (`detect_scale`, issue 44 item 2); False: the detector at its fixed input size, as before
    fine_stills: bool = True
    #: a still read by a table that knows no die size is read again with the finer look sized for its
    #: smallest die read, when that die is under GROW_UNDER px in the FINE_AREA look (`self_sized`);
    #: tried in session 21 and off (benchmarks/small_stills.py, RESULTS "a table that knows no die
    #: size"): a 60 px die's reading is boxed 44-46 px there, as small as a 40 px die's, so a 60 px die
    #: was read again too, and a train still got a sure wrong value; held out, 3 more values right of
    #: 96 stills at 40 px.  False: the FINE_AREA look alone
    fine_self_sized: bool = False
    #: a usual peak the coarse look alone confirms as a large die (a table that knows no size and has
    #: no empty table) is one only when what its box holds is not mostly the table (`box_filled` at
    #: least FILLED; a table with its empty table reads as before).  False: any such peak, as in
    #: session 21 (a small die's box, 5-9 times its side, then swallowed the die and read as a sure d6
    #: "1", the die its one pip: benchmarks/small_stills.py, RESULTS "sure phantoms of a table that
    #: knows no size")
    coarse_filled: bool = True
    #: where the camera looks from, for a numbered die seen obliquely (issue 44): an object whose
    #: ``view(width, height)`` gives the `vision.oblique.View` of a frame (`vision.oblique.Tilt`, from
    #: ``[vision] camera_tilt_deg``), or None (as before).  A d20 (the learnt set's kind, or the table's
    #: only kind; a taught reading's kind) is then cut on its top face for the learning step, `read`'s
    #: match and the classifier and OCR head alike (`top_view_of`, `die_crop.top_cut`)
    top_view: Any = None

    def __init__(
        self,
        detector: Path | None = None,
        classifier: Path | None = None,
        det_area: int = DET_AREA,
        top_face: Path | None = None,
        models: Path | None = None,
        det_threshold: float = DET_THRESHOLD,
        reject_threshold: float = 0.5,
        turns: int = 4,
        refine: bool = False,
        top_face_nadir: Path | None = None,
        estimate_nadir: bool = True,
        nadir_passes: int = 2,
        max_spread: float | None = MAX_SPREAD,
        shrink: str = "halve",
        sure: float | None = SURE,
        sure_peak: float = SURE_PEAK,
        weak_floor: float = WEAK_FLOOR,
        second_look: bool = True,
        copy_stills: bool = True,
        die_floor: float = DIE_FLOOR,
        backbone: bool = False,
        verify: bool | None = None,
        value_head: bool | Path = False,
        numeral_turns: int = 4,
        ocr: bool | str = OCR,
        narrow: str = "relabel",
        trust_support: int | None = TRUST_SUPPORT,
        trust_margin: float = TRUST_MARGIN,
        every_turn: tuple[str, ...] = EVERY_TURN,
        joint_kind: bool = True,
        learnt_ocr: float | None = LEARNT_OCR,
        ocr_head: str = "full",
    ) -> None:
        if sure is not None and not 0.0 <= sure <= 1.0:
            raise ValueError(f"sure: expected a probability in [0, 1] or None, got {sure!r}")
        for name, v in (
            ("det_threshold", det_threshold),
            ("sure_peak", sure_peak),
            ("weak_floor", weak_floor),
            ("die_floor", die_floor),
        ):
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name}: expected a probability in [0, 1], got {v!r}")
        self.sure = sure
        #: kinds read at every turn however sure the upright view (EVERY_TURN; () as before issue 32)
        self.every_turn = parse_kinds(every_turn) if every_turn else ()
        if narrow not in NARROWS:
            raise ValueError(f"narrow: expected one of {', '.join(NARROWS)}, got {narrow!r}")
        self.narrow = narrow
        # a learnt face sure without the classifier (learnt_verdict; None: never, as before issue 29)
        self.trust_support, self.trust_margin = trust_support, trust_margin
        if learnt_ocr is not None and not 0.0 <= learnt_ocr <= 10.0:
            raise ValueError(f"learnt_ocr: expected a weight in [0, 10] or None, got {learnt_ocr!r}")
        #: the OCR head's evidence weighed with a learnt set's likeness (LEARNT_OCR; None: the set alone)
        self.learnt_ocr = learnt_ocr
        if turns not in (1, 2, 4):
            raise ValueError(f"turns: expected 1, 2 or 4 (quarter turns averaged per die), got {turns!r}")
        if shrink not in SHRINKS:
            raise ValueError(f"shrink: expected one of {', '.join(SHRINKS)}, got {shrink!r}")
        self.shrink = shrink
        if det_area < 256:
            raise ValueError(f"det_area: expected at least 256 pixels for the detector, got {det_area!r}")
        folder = models or MODELS
        self._det = Model(detector or folder / "numbered_detector.onnx")
        if classifier is None:
            classifier = folder / CLASSIFIER_FILE
            if backbone and (folder / BACKBONE_FILE).is_file():
                classifier = folder / BACKBONE_FILE
        self._cls = Model(classifier)
        self.classifier_file = classifier.name
        # The classifier's input side: the backbone's file reads larger crops of the same square.
        self.crop_side = BACKBONE_CROP if classifier.name == BACKBONE_FILE else CROP
        top = top_face or folder / TOP_FACE_FILE
        if top_face is not None and not top_face.is_file():
            raise FileNotFoundError(
                f"top_face: {top_face} is missing (expected the top-face net's ONNX file)"
            )
        self._top = Model(top) if top.is_file() else None
        # The numeral value head for d20 values (opt-in: True reads the models folder's file).
        self._numeral: NumeralHead | None = None
        if value_head is not False:
            head = folder / NUMERAL_FILE if value_head is True else Path(value_head)
            self._numeral = NumeralHead(head, numeral_turns)
        top_n = top_face_nadir or folder / TOP_NADIR_FILE
        if top_face_nadir is not None and not top_face_nadir.is_file():
            raise FileNotFoundError(
                f"top_face_nadir: {top_face_nadir} is missing "
                "(expected the nadir-aware top-face net's ONNX file)"
            )
        self._top_nadir = Model(top_n) if top_n.is_file() else None
        # Unknown is not a die (issue 20, item 5): the not-a-die net's second opinion on each reading.
        # None: when its file is in the models folder; True: required; False: off.
        notadie = folder / NOTADIE_FILE
        if verify and not notadie.is_file():
            raise FileNotFoundError(
                f"verify: {notadie} is missing (expected the numbered not-a-die net's ONNX file, "
                "made by training/numbered/notadie.py)"
            )
        self.notadie = NotADieNet(notadie) if verify is not False and notadie.is_file() else None
        self._embedder_path = folder / EMBEDDER_FILE
        self._embedder: Embedder | None = None  # loaded when a learnt set is first used
        self.estimate_nadir = estimate_nadir
        if nadir_passes not in (1, 2, 3):
            raise ValueError(f"nadir_passes: expected 1, 2 or 3 (fits of the nadir), got {nadir_passes!r}")
        self.nadir_passes = nadir_passes
        self.max_spread = max_spread
        self.det_area = det_area
        self.det_threshold = det_threshold
        self.sure_peak = sure_peak
        self.weak_floor = weak_floor
        self.die_floor = die_floor
        # issue 29: the OCR head (vision/numbered/ocr.py) on d10, d10p and d20 values: "second" (OCR, the
        # default) beside the classifier; True the head's values alone, its confidence the kind floor's
        # too (the classifier's value probability is not the value's); False the classifier alone
        self.ocr = None
        if ocr not in (False, True, "second"):
            raise ValueError(f"ocr: expected False, True or 'second', got {ocr!r}")
        if ocr_head not in OCR_HEADS:
            raise ValueError(f"ocr_head: expected one of {', '.join(OCR_HEADS)}, got {ocr_head!r}")
        #: "second": the head a second opinion on the classifier's value (ocr.second_opinion)
        self.ocr_mode = "second" if ocr == "second" else "value"
        if ocr:
            from vision.numbered.ocr import OcrHead

            # "fast": OcrHead.fast(), within 10 ms a die on one core at a cost in values read right
            self.ocr = OcrHead.fast() if ocr_head == "fast" else OcrHead()
            if self.ocr_mode == "value":
                self.die_floor = 0.0
        #: with the head, at a table of more than one kind the kind read with the numeral (`ocr.joint`,
        #: issue 29 session 14); False: the classifier's kind, as before
        self.joint_kind = joint_kind
        self.reject_threshold = reject_threshold
        self.turns = turns
        self.refine_dice = refine
        # combined.second_look after reading (session 7; False reads as session 6 did)
        self.second_look = second_look
        # a still read through its still_copies (session 7; False: the still read whole)
        self.copy_stills = copy_stills

    def detect(
        self, image: np.ndarray, det_area: float | None = None, shrunk: np.ndarray | None = None
    ) -> list[Found]:
        """Every die's top-face centre and outline box (frame pixels), strongest first after NMS.

        `det_area`: the pixels the detector sees of this image (default: `self.det_area`); a
        window cut from a larger frame gets its share of the frame's.  `shrunk`: a smaller copy of
        `image` (say a still's video-size copy the pip reader read), shrunk from instead of it when
        still at least as big as the detector's input: the same input for a fraction of the work."""
        h, w = image.shape[:2]
        s = math.sqrt((det_area or self.det_area) / (w * h))
        dw, dh = max(16, round(w * s / 16) * 16), max(16, round(h * s / 16) * 16)
        sx, sy = dw / w, dh / h
        src = image
        if shrunk is not None and shrunk.ndim == 3 and shrunk.shape[1] >= dw and shrunk.shape[0] >= dh:
            src = shrunk
        small = (
            _shrink(src, dw, dh)
            if self.shrink == "halve"
            else cv2.resize(src, (dw, dh), interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR)
        )
        out = self._det(blob(small[None]))[0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= self.det_threshold)
        found = [
            _found(out, heat, int(y), int(x), sx, sy, (0.0, 0.0))
            for y, x in zip(*np.nonzero(peaks), strict=True)
        ]
        found = suppress(found)
        return self.refine(image, found, 2.0 * s) if self.refine_dice else found

    def refine(self, image: np.ndarray, found: list[Found], s: float) -> list[Found]:
        """Look again round each die with the frame at scale `s` (twice the first pass): the
        detector's cells are then half as big in the frame, and so is its error on the top
        face's centre, where the classifier's crop is centred."""
        if not found:
            return found
        side = REFINE / s  # frame pixels under a REFINE x REFINE patch
        blobs = []
        for f in found:
            m = np.array([[s, 0.0, REFINE / 2 - s * f.center[0]], [0.0, s, REFINE / 2 - s * f.center[1]]])
            r = int(side / 2) + 2
            x0, y0 = max(0, int(f.center[0]) - r), max(0, int(f.center[1]) - r)
            roi = image[y0 : int(f.center[1]) + r + 1, x0 : int(f.center[0]) + r + 1]
            if roi.size == 0:  # a centre off the frame: warp from the whole frame
                roi, x0, y0 = image, 0, 0
            if s < 0.7:  # shrink with INTER_AREA first: no aliasing
                small = cv2.resize(roi, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
                kx, ky = small.shape[1] / roi.shape[1], small.shape[0] / roi.shape[0]
                # resize maps x to (x + 0.5) * k - 0.5; the die's centre goes to the patch's centre
                m = np.array(
                    [
                        [1.0, 0.0, REFINE / 2 - ((f.center[0] - x0 + 0.5) * kx - 0.5)],
                        [0.0, 1.0, REFINE / 2 - ((f.center[1] - y0 + 0.5) * ky - 0.5)],
                    ]
                )
                roi = small
            else:
                m[:, 2] += m[:, :2] @ np.array([x0, y0], np.float64)
            blobs.append(
                cv2.warpAffine(
                    roi, m, (REFINE, REFINE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
                )
            )
        batch = np.stack(blobs).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
        outs = self._det(batch)
        g = REFINE // STRIDE
        yy, xx = np.mgrid[0:g, 0:g]
        near = np.hypot(xx + 0.5 - g / 2, yy + 0.5 - g / 2)
        refined = []
        for f, out in zip(found, outs, strict=True):
            heat = 1.0 / (1.0 + np.exp(-out[0]))
            # The peak nearest the patch's centre (the first pass's guess), within a third of the die.
            cand = np.where(near <= max(1.5, 0.33 * max(f.w, f.h) * s / STRIDE), heat, 0.0)
            y, x = np.unravel_index(int(np.argmax(cand)), cand.shape)
            if cand[y, x] < 0.5 * self.det_threshold:
                refined.append(f)
                continue
            origin = (f.center[0] - REFINE / 2 / s, f.center[1] - REFINE / 2 / s)
            fine = _found(out, heat, int(y), int(x), s, s, origin)
            refined.append(Found(fine.center, f.w, f.h, f.score, fine.box_center))
        return refined

    @property
    def has_top_face(self) -> bool:
        """Whether the top-face net re-centres each die (its file was found)."""
        return self._top is not None

    @property
    def has_nadir_net(self) -> bool:
        """Whether the nadir-aware top-face net is loaded (its file was found)."""
        return self._top_nadir is not None

    def nadirs(
        self, found: list[Found], view: tuple[float, float, int, int] | None, shape: tuple[int, ...]
    ) -> list[tuple[float, float, float]]:
        """For each die, the nadir (frame pixels) fitted to the OTHER dice's top faces and the fit's
        spread (topface.nadir_fit): a die whose top face was misfound must not tilt its own nadir
        that way, or the net would only confirm the wrong face.  A lone die gets the frame's centre
        (spread topface.TILT_SIGMA)."""
        ox, oy, fw, fh = view or (0.0, 0.0, shape[1], shape[0])
        boxes = np.array([(f.box_center[0] + ox, f.box_center[1] + oy) for f in found]).reshape(-1, 2)
        tops = np.array([(f.center[0] + ox, f.center[1] + oy) for f in found]).reshape(-1, 2)
        sides = np.array([max(f.w, f.h) for f in found])
        scores = np.array([f.score for f in found])
        loo = np.tile(scores, (len(found), 1))
        np.fill_diagonal(loo, 0.0)
        return [
            (float(x), float(y), float(sp))
            for x, y, sp in nadir_fits(boxes, tops, sides, loo, int(fw), int(fh))
        ]

    def locate(
        self,
        image: np.ndarray,
        found: list[Found],
        view: tuple[float, float, int, int] | None = None,
        nadir: tuple[float, float] | None = None,
    ) -> list[Found]:
        """Each die's top-face centre found again by the top-face net, which sees the die's outline
        box cut from the frame at full resolution (one batch for all dice); unchanged without it.

        `view`: when `image` is a window of a larger frame, the window's top-left corner and the
        frame's width and height (the net is told where in the frame each die is).
        `nadir`: the point below the camera in frame pixels (topface.nadir_from_pose of the
        calibration's board pose), for the nadir-aware net when its file is there; without it that
        net is given the nadir fitted to the dice (`estimate_nadir`), or the older net is used."""
        return self.locate_nadir(image, found, view, nadir)[0]

    def locate_nadir(
        self,
        image: np.ndarray,
        found: list[Found],
        view: tuple[float, float, int, int] | None = None,
        nadir: tuple[float, float] | None = None,
    ) -> tuple[list[Found], list[tuple[float, float] | None] | None]:
        """`locate`, and the nadir the nadir-aware net was given for each die (None when that net
        was not used).

        Fitted nadirs (`nadirs`) are fitted to the detector's top faces, then (`nadir_passes` 2)
        again to the net's, which are closer, and the net run once more with them.  A die whose
        fitted nadir's spread is over `max_spread` is read by the older net (None in the list)."""
        if (self._top is None and self._top_nadir is None) or not found:
            return found, None
        ox, oy, fw, fh = view or (0.0, 0.0, image.shape[1], image.shape[0])
        boxes = [(f.box_center[0] + ox, f.box_center[1] + oy) for f in found]
        sides = [max(f.w, f.h) * TOP_MARGIN for f in found]
        crops = [_cut(image, f.box_center, side, TOP) for f, side in zip(found, sides, strict=True)]
        pixels = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
        out = list(found)

        def run(net: Model, rays: np.ndarray, idx: list[int]) -> None:
            if not idx:
                return
            xy, size = peaks(net(np.concatenate([pixels[idx], view_planes(rays[idx])], axis=1)))
            for i, (x, y), z in zip(idx, xy, size, strict=True):
                f, k = found[i], sides[i] / TOP
                c = (f.box_center[0] + (x - TOP / 2) * k, f.box_center[1] + (y - TOP / 2) * k)
                out[i] = Found(c, f.w * z, f.h * z, f.score, f.box_center)

        every = list(range(len(found)))
        centre_rays = np.array([ray(x, y, fw, fh) for x, y in boxes])
        use_nadir = nadir is not None or self.estimate_nadir or self._top is None
        if self._top_nadir is None or not use_nadir:
            assert self._top is not None  # one of the two nets is loaded (checked above)
            run(self._top, centre_rays, every)
            return out, None
        net = self._top_nadir
        if nadir is not None or not self.estimate_nadir:  # given, or the frame's centre stands for it
            n = nadir or (fw / 2, fh / 2)
            run(net, np.array([nadir_ray(x, y, n, fw, fh) for x, y in boxes]), every)
            return out, [n] * len(found)
        fits = self.nadirs(found, view, image.shape)
        for p in range(self.nadir_passes):
            if p and self.skip_weightless and not any(f.score > 0 for f in found):
                # every die weighs nothing in the fit (the pip reader's dice checked by
                # combined.d6_shares): the nadirs are the priors' whatever the top faces, so a
                # further pass would run the nets on the very same input again (issue 46)
                break
            if p:  # the net's top faces, on the detector's boxes (the net's own size is not the box's)
                fits = self.nadirs(
                    [replace(f, center=o.center) for f, o in zip(found, out, strict=True)], view, image.shape
                )
            # a die whose nadir is too unsure is read by the older net (rays from the centre), if there
            sure = [
                self._top is None or self.max_spread is None or sp <= self.max_spread for _, _, sp in fits
            ]
            rays = np.array(
                [nadir_ray(x, y, (nx, ny), fw, fh) for (x, y), (nx, ny, _) in zip(boxes, fits, strict=True)]
            )
            run(net, rays, [i for i in every if sure[i]])
            if self._top is not None:
                run(self._top, centre_rays, [i for i in every if not sure[i]])
        return out, [(nx, ny) if ok else None for (nx, ny, _), ok in zip(fits, sure, strict=True)]

    def classify(self, crops: list[np.ndarray], kinds: tuple[str, ...] | None = None) -> np.ndarray:
        """Softmax over the 47 classes for each square BGR crop (`crops`; resized to the classifier's
        `crop_side` when cut another size), averaged over quarter turns.

        A numeral can lie at any angle.  Each crop is read upright; those read less surely than
        `sure` are read again at 1 .. `turns`-1 quarter turns and the readings averaged (with
        `sure` None, every crop at `turns` evenly spaced turns).  On the validation windows reading
        the unsure crops 4 ways reads as well as reading every crop 4 ways (MODELS.md, session 5).
        With the table's `kinds` given, a crop read surely upright as one of `every_turn`'s kinds
        (`verdict` at those kinds) is read at the other turns too (EVERY_TURN).
        """
        if not crops:
            return np.zeros((0, len(CLASSES)), np.float32)
        x = np.stack(sized(crops, self.crop_side))
        p = softmax_turned(self._cls, x, self.turns, self.sure)
        if kinds is None or not self.every_turn or self.sure is None or self.turns <= 1:
            return p
        once = [
            i
            for i, q in enumerate(p)
            if q.max() >= self.sure and verdict(q, self.reject_threshold, kinds).kind in self.every_turn
        ]
        if once:  # as softmax_turned reads the unsure crops: the other turns, averaged with the upright
            ks = range(1, self.turns)
            q = softmax(self._cls(blob(np.concatenate([np.rot90(x[once], k, axes=(1, 2)) for k in ks]))))
            p[once] = (p[once] + q.reshape(len(ks), len(once), -1).sum(0)) / (len(ks) + 1)
        return p

    @property
    def numeral_file(self) -> str | None:
        """The numeral value head's file name when it is on (`value_head`), else None."""
        return self._numeral.file if self._numeral is not None else None

    def numeral_values(
        self, image: np.ndarray, found: list[Found], probs: np.ndarray, kinds: tuple[str, ...] = KINDS
    ) -> np.ndarray:
        """The classifier's softmax (`probs`, one row per die of `found`) with the d20 values of the
        dice it reads as d20s (of `kinds`) taken from the numeral head; unchanged with the head off.
        The head reads the middle `share` of the classifier's square, cut NUMERAL_CROP px."""
        if self._numeral is None or "d20" not in kinds:
            return probs
        rows = [i for i, p in enumerate(probs) if verdict(p, self.reject_threshold, kinds).kind == "d20"]
        if not rows:
            return probs
        share = self._numeral.share
        crops = [
            _cut(image, found[i].center, max(found[i].w, found[i].h) * MARGIN * share, NUMERAL_CROP)
            for i in rows
        ]
        return with_values(probs, self._numeral.faces(crops), rows)

    def embedder(self) -> Embedder:
        """The embedding net learnt sets are made and read with (loaded on first use)."""
        if self._embedder is None:
            self._embedder = Embedder(self._embedder_path)
        return self._embedder

    def top_faces(self, image: np.ndarray, kinds: tuple[str, ...] = KINDS) -> list[tuple[Found, np.ndarray]]:
        """Every die-like thing in a BGR uint8 frame and its crop (as `read` cuts it, a still from its
        first halving; centres in the frame's pixels), for `dicetable learn-dice` to learn from.
        Kept: what the classifier calls a die of `kinds` or is unsure of, not what it calls no die."""
        image = check_bgr(image)
        if min(image.shape[:2]) < 16:
            return []
        copies = still_copies(image) if self.copy_stills else Copies(image, 1.0, None)
        found = self.locate(copies.work, self.detect(copies.work, shrunk=copies.video))
        crops = self.crops(copies.work, found)
        probs = self.classify(crops)
        k = copies.k
        out = []
        for f, c, p in zip(found, sized(crops, CROP), probs, strict=True):
            if verdict(p, self.reject_threshold, parse_kinds(kinds)).kind == "none":
                continue
            centre = (f.center[0] * k, f.center[1] * k)
            out.append((replace(f, center=centre, w=f.w * k, h=f.h * k), c))
        return out

    def top_view_of(self, image: np.ndarray, kind: str | None, empty: np.ndarray | None) -> Any:
        """The `vision.oblique.View` of `image` (its size) that a die of `kind` is cut on its top
        face by (`top_view`), or None: no view, a kind whose solid it does not know, or no empty table
        (`empty`, at `image`'s size) to find the die's outline against: the die's own contour takes in
        its shadow, and on the renders a table without its empty table then read more dice surely
        wrong (silent 5 -> 7 per 200) and found phantoms (benchmarks/RESULTS.md, "the top face of an
        oblique d20")."""
        from vision.oblique import RESTING_HEIGHT

        if self.top_view is None or kind not in RESTING_HEIGHT:
            return None
        if empty is None or empty.shape[:2] != image.shape[:2]:
            return None
        return self.top_view.view(int(image.shape[1]), int(image.shape[0]))

    def crops_of(
        self,
        image: np.ndarray,
        readings: Sequence[Any],
        crop: str | None = None,
        empty: np.ndarray | None = None,
        where: Sequence[WhereStep] = (),
        at_peak: bool = True,
        kind: str | None = None,
    ) -> list[np.ndarray]:
        """The CROP x CROP crop of each of a frame's readings (`DieReading`s or their JSON form, as
        `read` gave them: centre on the top face, quad the die's box): what a learnt set learns
        (`dicetable learn-dice`, the referee's answers) and what the table shows with a question.
        ``crop``: "box", round the top face as `read` cuts it for the classifier (a still from its
        first halving); "die", centred, scaled and turned on the die's outline from the frame itself
        as `read_at` cuts it for a set of such crops (`die_crop`; ``empty``: the empty table at the
        frame's size, the outline what changed from it); "face", round the top face scaled on that
        outline, from the frame itself (`face_crop`: for grouping crops by face); None: as
        `die_centred` says.  Each is cut where `read` finds the die: at the detector's peak
        (`peaks`, screened by ``where``, the frame's where-steps) whose box holds the reading's centre,
        when one does (the learning step may have the die from the pip reader's box, `read` from the
        detector's: issue 44 item 2); ``at_peak`` False: at the reading's own box.  ``kind``: the kind the
        die is cut as (a learnt set's, as `read_at` cuts it: a d20 seen obliquely on its top face); None:
        each reading's own (at 60 px the classifier calls most of a real tilted d20's readings d6 or
        d10, and a set taught from their crops was cut otherwise than `read` cuts it: issue 44)."""
        image = check_bgr(image)
        copies = still_copies(image) if self.copy_stills else Copies(image, 1.0, None)
        k = copies.k
        out = []
        peaks = self.peaks(image, where) if readings and at_peak else []
        for r in readings:
            center = r["center"] if isinstance(r, dict) else r.center
            quad = np.asarray(r["quad"] if isinstance(r, dict) else r.quad, np.float64).reshape(-1, 2)
            side = max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 4.0)
            box = (float(quad[:, 0].mean()), float(quad[:, 1].mean()))
            c = (float(center[0]), float(center[1]))
            f = holding(peaks, c)
            if f is not None:  # the die where `read` finds it: its top face, its box
                c, box, side = f.center, f.box_center, max(f.w, f.h)
            shape = kind or str(r.get("kind") if isinstance(r, dict) else getattr(r, "kind", ""))
            seen = self.top_view_of(image, shape, empty)  # a d20 seen obliquely: its top face (issue 44)
            c = top_centre(image, box, side, seen, empty, shape) or c
            if crop == "die" or (crop is None and self.die_centred):
                out.append(die_crop(image, box, side, empty, view=seen, kind=shape))
            elif crop == "face":  # round the top face, scaled on the die, from the frame's own pixels
                out.append(face_crop(image, c, box, side, empty, view=seen, kind=shape))
            else:
                out.append(_cut(copies.work, (c[0] / k, c[1] / k), side / k * MARGIN, CROP))
        return out

    def peaks(self, image: np.ndarray, where: Sequence[WhereStep] = ()) -> list[Found]:
        """The detector's peaks in a frame as `read` finds, screens and locates them (no board's
        nadir), in the frame's pixels: where `crops_of` cuts a die `read` would find."""
        image = check_bgr(image)
        if min(image.shape[:2]) < 16:
            return []
        copies = still_copies(image) if self.copy_stills else Copies(image, 1.0, None)
        found, copies = self.spotted(image, copies, where)
        k = copies.k
        if where:
            found = screened(image, found, k, where)
        return [
            Found(
                (f.center[0] * k, f.center[1] * k),
                f.w * k,
                f.h * k,
                f.score,
                (f.box_center[0] * k, f.box_center[1] * k),
            )
            for f in self.locate(copies.work, found)
        ]

    def spotted(
        self, image: np.ndarray, copies: Copies, where: Sequence[WhereStep] = (), side: float | None = None
    ) -> tuple[list[Found], Copies]:
        """The detector's peaks in a frame (`image`, as `copies`), in the pixels of the copy they are
        read in (the `Copies` given back: its `work` and `k`).

        A frame larger than a video frame (a still) whose dice may be small is looked at twice
        (issue 44 item 2; `fine_stills`): a 60 px die in a 4608x2592 still is 7 px in the detector's
        usual ~480x360 input, too small to be found or sized (its box there is 4 times too big).  The
        second, finer look puts the smallest die the table expects at TARGET_SIDE px in the detector's
        input (`detect_scale`; the table's knowledge, `die_side`: the where steps' die size, from
        `[vision] die_size_px` or the board's pose and the dice's sizes in mm); when the table knows
        no size, the finer look reads FINE_AREA pixels of the still.  A table whose dice the usual
        look sees at their size reads with it alone.  The two looks' peaks are merged (`finer`): the
        usual look's, and the finer look's small dice it could not see or size.  (One look at the
        finer scale alone was tried: the rendered stills' larger dice, 77-160 px, were then 22-45 px
        in the detector's input, over its trained sizes, and 372 of 381 found fell to 272.)  A die
        under SMALL_WORK px in the still's first halving is read (top face, classifier, learnt
        crops) in the still itself.  `side`: the smallest die's box side in the still when the table
        knows no size but its dice read in the FINE_AREA look told it (`self_sized`); None: the
        where steps' (`die_side`)."""
        if not self.fine_stills or copies.video is None:
            return self.detect(copies.work, shrunk=copies.video), copies
        h, w = image.shape[:2]
        side = die_side(where, w, h) if side is None else side
        if side is None:
            s: float | None = math.sqrt(min(FINE_AREA, w * h) / (w * h))
        else:
            s = self.detect_scale(w, h, side)
        usual = self.detect(copies.work, shrunk=copies.video)
        if s is None:  # the usual look sees the table's dice at their size
            return usual, copies
        fine = self.detect(copies.work, det_area=s * s * w * h, shrunk=copies.video)
        coarse: list[Found] = []
        filled: Callable[[Found], bool] | None = None
        if side is None:  # no size known: a large die is confirmed where it is at the trained size
            coarse = self.detect(copies.work, det_area=self.det_area * COARSE**2, shrunk=copies.video)
            if self.coarse_filled and not knows_empty(where):  # where its box holds more than the table
                work = copies.work
                filled = lambda u: box_filled(work, u) >= FILLED  # noqa: E731
        found = finer(usual, fine, math.sqrt(self.det_area / (w * h)) * copies.k, coarse, filled)
        extra = [f for f in found if f not in usual]
        if not extra:
            return found, copies
        small = min(max(f.w, f.h) for f in extra) * copies.k
        src = copies if small / copies.k >= SMALL_WORK else Copies(image, 1.0, copies.video)
        if src.k != copies.k:
            found = [_rescaled(f, copies.k / src.k) for f in found]
        return found, src

    def self_sized(
        self, image: np.ndarray, copies: Copies, got: Sequence[DieReading], where: Sequence[WhereStep] = ()
    ) -> float | None:
        """The smallest die's box side (the still's pixels) to read a still again with, when the table
        knows no size (`die_side` None: its finer look read FINE_AREA pixels) and the smallest die it
        read there (`got`: its readings' outlines) was under GROW_UNDER px in that look (a 40 px die of
        a 4608x2592 still is 14 px in 1600x900, its box ~51 px before its top face is located; a 60 px
        die 21 px: read once, as before); None when the still is not read again (`fine_self_sized`)."""
        if not (self.fine_stills and self.fine_self_sized) or copies.video is None or not got:
            return None
        h, w = image.shape[:2]
        if die_side(where, w, h) is not None:
            return None
        s = math.sqrt(min(FINE_AREA, w * h) / (w * h))
        sides = []
        for r in got:
            q = np.asarray(r.quad, np.float64).reshape(-1, 2)
            sides.append(float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1]))))
        side = min(sides)
        if side * s >= GROW_UNDER:
            return None
        grown = self.detect_scale(w, h, side)
        return side if grown is not None and grown > s * 1.05 else None

    def detect_scale(self, w: int, h: int, side: float) -> float | None:
        """The scale (detector input over the frame's pixels) at which a die whose box is `side` px
        in a `w` x `h` frame is TARGET_SIDE px in the detector's input, its input at most MAX_DET_AREA
        pixels; None when the usual input (`det_area`) shows it FINE_SEEN px or more (the detector's
        trained sizes: the usual input's video dice of 30-60 px are 11-23 px).  The input grows past
        FINE_AREA only for a die FINE_AREA would show under GROW_UNDER px."""
        usual = math.sqrt(self.det_area / (w * h))
        if side * usual >= FINE_SEEN:
            return None
        s = min(TARGET_SIDE / side, math.sqrt(FINE_AREA / (w * h)), 1.0)
        if side * s < GROW_UNDER:  # FINE_AREA leaves the die too small: look finer, to MAX_DET_AREA
            s = min(TARGET_SIDE / side, math.sqrt(MAX_DET_AREA / (w * h)), 1.0)
        return s if s > usual * 1.05 else None

    def learnt_matches(
        self,
        crops: list[np.ndarray],
        learnt: Learnt,
        margin: float = LEARNT_MARGIN,
        die_crops: list[np.ndarray] | None = None,
        image: np.ndarray | None = None,
        found: Sequence[Found] | None = None,
        scale: float = 1.0,
    ) -> list[Match | None]:
        """The learnt set's face for each crop, or None where the set does not know it (`margin`: by
        how much its nearest face must beat every other's, `DiceSet.match`).  ``die_crops``: each die
        cut on its outline too (`die_crop`), for a set learnt with those (`DiceSet.crop`).  ``image``
        and ``found``: the frame and the dice the crops were cut from, to cut each small die's crop at
        the embedder's SCALES too (`embed.at_scales`, issue 44 item 4: a box under SMALL_SIDE pixels
        of the frame as taken, `scale` times larger than ``image``); else the crops as given."""
        if not crops:
            return []
        embed = self.embedder().embed
        if image is not None and found is not None:

            def cut(scale: float) -> list[np.ndarray]:
                if scale == 1.0:
                    return sized(crops, CROP)
                return [_cut(image, f.center, max(f.w, f.h) * MARGIN * scale, CROP) for f in found]

            small = [max(f.w, f.h) * scale < SMALL_SIDE for f in found]
            turned = {"box": at_scales(self.embedder(), cut, TURNS, small)}
        else:
            turned = {"box": embed(sized(crops, CROP), TURNS)}
        if die_crops is not None:
            turned["die"] = embed(sized(die_crops, CROP), TURNS)
            sets = learnt.sets if isinstance(learnt, LearntSets) else (learnt,)
            if found is not None and any(s.pixels is not None for s in sets):
                # a small die of a set that keeps pixels: its templates too (`vision.numbered.template`)
                from vision.numbered import template

                turned["pixels"] = template.turned(sized(die_crops, CROP))
                turned["small"] = np.array([max(f.w, f.h) * scale < SMALL_SIDE for f in found])
        return learnt.match(turned, margin)

    def cut_again(
        self,
        image: np.ndarray,
        k: float,
        found: Sequence[Found],
        outlines: Sequence[Any],
        matches: list[Match | None],
        learnt: Learnt,
    ) -> list[Match | None]:
        """``matches`` with each small die's template match that `Match.cut_again` names cut again from
        ``image`` (the frame its own crop was cut from, ``k`` times `found`'s frame) at
        `template.CUT_SCALES` times its crop's side, on the outline it was cut on (``outlines``: the
        settled outline, or None: the box's square), and its likeness to each face of its set at each
        such cut kept (`Match.cuts`, weighed with the OCR head's evidence by `cuts_agree`)."""
        from vision.numbered import template
        from vision.numbered.die_crop import PAD

        sets = learnt.sets if isinstance(learnt, LearntSets) else (learnt,)
        out = list(matches)
        for i, (f, o, m) in enumerate(zip(found, outlines, matches, strict=True)):
            if m is None or not m.cut_again:
                continue
            dice = next((s for s in sets if s.name == m.set_name), None)
            if dice is None or dice.pixels is None or dice.crop != "die":
                continue
            if o is None:  # the box's square, as `die_cut` cut it
                centre, side, angle = (f.box_center[0] * k, f.box_center[1] * k), max(f.w, f.h) * k, 0.0
            else:
                centre, side, angle = o
            crops = [crop_die([image], centre, side * PAD * s, angle, out=CROP) for s in template.CUT_SCALES]
            small = np.ones(len(crops), bool)
            turned = {
                "die": self.embedder().embed(crops, TURNS),
                "pixels": template.turned(crops),
                "small": small,
            }
            rows = dice.per_face(turned)
            out[i] = replace(m, cuts=tuple(tuple(float(x) for x in row) for row in rows))
        return out

    def weighs_learnt(self, kind: str, side: float) -> bool:
        """Whether a learnt set's die of `kind` whose box is `side` pixels of the frame the OCR head
        reads is read with the head's evidence too (LEARNT_OCR, `learnt_with_ocr`)."""
        from vision.numbered.ocr import LEARNT_MIN_SIDE, OCR_KINDS

        live = self.ocr is not None and self.learnt_ocr is not None
        return live and kind in OCR_KINDS and side >= LEARNT_MIN_SIDE

    def crops(self, image: np.ndarray, found: list[Found]) -> list[np.ndarray]:
        """Each die's crop, centred on its top face, cut from the frame at full resolution
        (`crop_side` x `crop_side`: the classifier's input)."""
        return [_cut(image, f.center, max(f.w, f.h) * MARGIN, self.crop_side) for f in found]

    def read(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        nadir: tuple[float, float] | None = None,
        quads: bool = True,
        copies: Copies | None = None,
        kinds: tuple[str, ...] = KINDS,
        learnt: Learnt | None = None,
        where: Sequence[WhereStep] = (),
        rejected: list[Rejected] | None = None,
        side: float | None = None,
    ) -> list[DieReading]:
        """Every die in a BGR uint8 frame: kind, value, centre, outline, confidence, colour.

        `nadir`: the point below the camera, frame pixels, when the camera's pose is known
        (topface.nadir_from_pose); see `locate`.  `quads`: False gives every die its outline box as
        its quad (a d6's top face is found later, by `with_face_quad`, for the d6 that are kept).
        `copies`: the frame's `still_copies`, made here when not given (with `copy_stills`; without,
        a still is read whole as in session 6).  `kinds`: the kinds the game uses (`verdict`); a die
        read as another kind is not one of the table's dice.  `learnt`: the table's learnt set of
        dice (`read_at`).  `where`: the vision.where steps a die must pass, judged on the detector's
        boxes in the frame's pixels before a die is read; each box a step stops is added to
        `rejected` (when given) with the step and why.  A still of a table that knows no die size
        whose smallest die read is small is read again, its finer look sized for it (`self_sized`;
        `side`: that size, as `spotted` takes it)."""
        image = check_bgr(image)
        kinds = parse_kinds(kinds)
        if min(image.shape[:2]) < 16:
            return []
        if nadir is not None:
            nadir = _check_nadir(nadir)
        if copies is None:
            copies = still_copies(image) if self.copy_stills else Copies(image, 1.0, None)
        given, asked = copies, nadir
        stopped: list[Rejected] = []
        found, copies = self.spotted(image, copies, where, side)
        k = copies.k
        if nadir is not None and k != 1.0:
            nadir = (nadir[0] / k, nadir[1] / k)
        work = copies.work
        if where:
            found = screened(image, found, k, where, stopped)
        got = self.read_at(
            work,
            found,
            palette,
            nadir,
            quads,
            kinds=kinds,
            learnt=learnt,
            ocr=False,
            scale=k,
            full=image,
            empty=empty_of(where) if learnt is not None else None,
        )
        got = got if k == 1.0 else [scaled(r, k) for r in got]
        grown = None if side is not None else self.self_sized(image, given, got, where)
        if grown is not None:  # read again, the finer look sized for the smallest die read
            return self.read(image, palette, asked, quads, given, kinds, learnt, where, rejected, grown)
        if rejected is not None:
            rejected += stopped
        # the OCR head reads the frame itself, not its first halving: a still's numerals at full size
        return self.with_ocr(image, got, kinds, learnt)

    def read_at(
        self,
        image: np.ndarray,
        found: list[Found],
        palette: Palette | None = None,
        nadir: tuple[float, float] | None = None,
        quads: bool = True,
        view: tuple[float, float, int, int] | None = None,
        kinds: tuple[str, ...] = KINDS,
        learnt: Learnt | None = None,
        ocr: bool = True,
        scale: float = 1.0,
        full: np.ndarray | None = None,
        empty: np.ndarray | None = None,
    ) -> list[DieReading]:
        """`read` of the dice at `found` (a checked frame's detector peaks, or boxes another reader
        found): each top face located, its crop classified, the dice kept (`readings`).  `view`: as
        `locate`'s, for a window of a larger frame.  `learnt`: a learnt set of the table's dice: a die
        it knows (`DiceSet.match`) is read as its face, a `LearntReading`; the others as before.
        `ocr`: False leaves the OCR head out (`with_ocr`: `read` runs it on the frame itself, `scale`
        times larger than `image`).  `full`: that frame itself, the die's own crop cut from it (as
        `crops_of` cuts it, `die_crop`); `empty`: the empty table at its size (the die's outline)."""
        found = self.locate(image, found, view, nadir)
        src, k = (full, scale) if full is not None else (image, 1.0)
        shape = learnt.kind if learnt is not None else (kinds[0] if len(kinds) == 1 else None)
        seen = self.top_view_of(src, shape, empty)
        if seen is not None:  # a d20 seen obliquely: its top face from its outline (issue 44)
            cut = getattr(self.ocr, "rectify", None)
            found = [self.on_top(src, f, k, seen, empty, str(shape), cut) for f in found]
        crops = self.crops(image, found)
        probs = self.numeral_values(image, found, self.classify(crops, kinds), kinds)
        matches = None
        if learnt is not None:
            # with the head's evidence a die need not be MARGIN nearer one face (`candidates`)
            margin = 0.0 if self.ocr is not None and self.learnt_ocr is not None else LEARNT_MARGIN
            die = self.die_centred or "die" in learnt.crops
            own = None
            outlines: list[Any] = []
            if die:
                cut = [
                    die_cut(
                        src,
                        (f.box_center[0] * k, f.box_center[1] * k),
                        max(f.w, f.h) * k,
                        empty,
                        view=seen,
                        kind=str(shape),
                    )
                    for f in found
                ]
                own, outlines = [c for c, _ in cut], [o for _, o in cut]
            if self.die_centred and own is not None:  # every set on the die's own crop (the opt-in)
                matches = self.learnt_matches(own, learnt, margin)
            else:  # each set on the crop it was learnt with (`DiceSet.crop`, issue 44 item 2)
                matches = self.learnt_matches(crops, learnt, margin, own, image, found, scale)
            if outlines:  # two peaks on one die's outline: the die once, as the set knows it best
                keep = one_a_die(outlines, matches)
                found, probs = [found[i] for i in keep], probs[keep]
                matches = [matches[i] for i in keep]
                outlines = [outlines[i] for i in keep]
            if outlines and any(m is not None and m.cut_again for m in matches):
                src, k = (full, scale) if full is not None else (image, 1.0)
                matches = self.cut_again(src, k, found, outlines, matches, learnt)
        got = self.readings(image, found, probs, palette, quads, kinds, learnt, matches, scale)
        return self.with_ocr(image, got, kinds, learnt) if ocr else got

    @staticmethod
    def on_top(
        src: np.ndarray,
        f: Found,
        k: float,
        view: Any,
        empty: np.ndarray | None,
        kind: str,
        rectify: Any = None,
    ) -> Found:
        """`f` (in pixels of `src` / `k`) with its top face's centre from its outline and `view`
        (`die_crop.top_centre`, in `src`'s pixels), as it was where none is found; the outline
        remembered for the OCR head's cut (`rectify`: its `die_crop.TopFaces`) of `src`."""
        from vision.numbered.die_crop import TopFaces, settle
        from vision.oblique import resting_top

        found = settle(src, (f.box_center[0] * k, f.box_center[1] * k), max(f.w, f.h) * k, empty)
        top = None if found is None else resting_top(view, found[0], found[1], kind, MARGIN)
        if top is None or found is None:
            return f
        c = (top[0][0] / k, top[0][1] / k)
        if isinstance(rectify, TopFaces):  # the OCR head's cut of this die (the frame it reads)
            rectify.remember(src, (c[0] * k, c[1] * k), found)
        return replace(f, center=c)

    def with_ocr(
        self,
        image: np.ndarray,
        readings: list[DieReading],
        kinds: tuple[str, ...] = KINDS,
        learnt: Learnt | None = None,
    ) -> list[DieReading]:
        """`readings` of `image` (its pixels) with the OCR head's reading of each d10, d10p and d20
        (`ocr`: beside the classifier, `ocr.second_opinion`, or alone, `ocr.reread`); a learnt set's
        die weighed with the head's evidence (`learnt_with_ocr`, LEARNT_OCR); as they are without the
        head."""
        if self.ocr is None:
            return readings
        from vision.numbered.ocr import reread, second_opinion

        readings = self.learnt_ocr_readings(image, readings, learnt)
        read = second_opinion if self.ocr_mode == "second" else reread
        return read(self, self.ocr, image, readings, kinds, joint_kind=self.joint_kind)[0]

    def learnt_ocr_readings(
        self, image: np.ndarray, readings: list[DieReading], learnt: Learnt | None = None
    ) -> list[DieReading]:
        """`readings` with each learnt set's die the head reads (`weighs_learnt`) weighed with the
        head's evidence (`learnt_with_ocr`), all in one batch of the head; with the camera's view
        stated (`top_view`), a die of a set of ``learnt`` that keeps its taught rolls' head views
        (`DiceSet.die_head`) weighed by them too (`with_die_head`)."""
        if self.ocr is None or self.learnt_ocr is None:
            return readings
        idx, dice = [], []
        for i, r in enumerate(readings):
            if not isinstance(r, LearntReading) or not r.faces:
                continue
            q = np.asarray(r.quad, np.float64).reshape(-1, 2)
            side = float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))
            if self.weighs_learnt(r.kind, side):
                idx.append(i)
                dice.append((r.center, side, r.kind))
        if not idx:
            return readings
        from vision.numbered import ocr

        out = list(readings)
        sets = (
            {s.name: s for s in (learnt.sets if isinstance(learnt, LearntSets) else (learnt,))}
            if learnt
            else {}
        )
        for i, d, v in zip(idx, dice, self.ocr.read(image, dice), strict=True):
            r = readings[i]
            assert isinstance(r, LearntReading)
            own = sets.get(r.dice_set)
            # only where the camera's view is stated (the top face warped alike at `see` and here): on
            # the REAL proxy without a view d20_off-angle read 93.6 -> 70.9 % with it (benchmarks/RESULTS.md)
            viewed = self.top_view is not None
            mine = own.die_head if own is not None and viewed and die_head.enabled() else None
            got = with_die_head(r, v.evidence, v.views, mine) if mine is not None else None
            if got is not None:
                out[i] = got
                continue
            small = d[1] < ocr.MIN_SIDE
            w = ocr.LEARNT_SMALL_WEIGHT if small and ocr.LEARNT_SMALL_WEIGHT is not None else self.learnt_ocr
            out[i] = learnt_with_ocr(r, v.value, v.confidence, v.evidence, w, small)
        return out

    def readings(
        self,
        image: np.ndarray,
        found: list[Found],
        probs: np.ndarray,
        palette: Palette | None = None,
        quads: bool = True,
        kinds: tuple[str, ...] = KINDS,
        learnt: Learnt | None = None,
        matches: list[Match | None] | None = None,
        scale: float = 1.0,
    ) -> list[DieReading]:
        """The dice among the detector's peaks, given the classifier's softmax for each (`quads`,
        `kinds`: as `read`).  With fewer than every kind, a reading under `die_floor` is not a die
        (DIE_FLOOR).  `learnt`, `matches`: a learnt set and its face for each peak (None where it does
        not know the die): a die it knows is that face of the set's kind, whatever the classifier says
        (`scale`: the frame the OCR head reads / `image`, `candidates`)."""
        palette = palette or Palette.default()
        kept = self.verified(image, self.candidates(image, found, probs, kinds, learnt, matches, scale))
        by_peak = {id(f): m for f, m in zip(found, matches or [None] * len(found), strict=True)}
        by_probs = {id(f): p for f, p in zip(found, probs, strict=True)}
        # The body colours of all the dice kept, in one batch.
        bodies = [_body(image, f.box_center, max(f.w, f.h)) for f, _, _ in kept]
        # a palette of learnt looks names a die by its look at its detector's box, as the d6 reader does
        boxes = [box_quad(f.box_center, f.w, f.h) for f, _, _ in kept]
        looks = palette.looks_at(image, boxes, bodies) if kept else None
        out = []
        for i, ((f, v, known), lab) in enumerate(zip(kept, body_labs(bodies), strict=True)):
            r = replace(_reading(image, f, v, lab, palette, quads, known or None), box=boxes[i])
            if looks is not None:
                r = replace(r, colour=looks[i][0], colour_near=looks[i][1], look=looks[i][2])
            m = by_peak.get(id(f))
            if isinstance(r, LearntReading) and m is not None:
                support = self.trust_support
                trusted = support is not None and m.trusted(support, self.trust_margin)
                r = replace(
                    r, faces=m.faces, likenesses=m.likenesses, trusted=trusted, rival=m.rival, cuts=m.cuts
                )
                if m.template:  # the embedding's own view, for `template.contradicted`
                    r = replace(r, embedding_gap=m.embedding_gap)
                if m.calibrated or trust.RECORD:  # a roster's die: its evidence (`trust.features`)
                    c = verdict(by_probs[id(f)], self.reject_threshold, kinds)
                    raw = {
                        "nearest": float(m.value),
                        "support": float(m.support),
                        "entry_gap": m.entry_gap,
                        "clf_value": float(c.value if c.kind == r.kind else -1),
                    }
                    r = replace(r, evidence=tuple(raw.items()), calibrated=m.calibrated)
            out.append(r)
        out.sort(key=lambda r: (r.center[1], r.center[0]))
        return out

    def candidates(
        self,
        image: np.ndarray,
        found: list[Found],
        probs: np.ndarray,
        kinds: tuple[str, ...] = KINDS,
        learnt: Learnt | None = None,
        matches: list[Match | None] | None = None,
        scale: float = 1.0,
    ) -> list[tuple[Found, Verdict, str]]:
        """The peaks `readings` reads as dice, before the not-a-die net: each with its verdict and
        whether the learnt set knows it.  A match no MARGIN nearer one face than the others is the
        set's only where the OCR head will weigh it (`weighs_learnt`, the die's box `scale` times
        larger in the head's frame), or where the set read it by its pixels too (`Match.template`: its
        nearest face, asked, also under the head's `ocr.LEARNT_MIN_SIDE`; on the train set-ups at ~60
        px such a face was right 13 and 7 times of 17 and 11, where the classifier reads such a die
        mostly wrong: `vision.numbered.template`); else the die is read as the set did not know it."""
        matches = matches if matches is not None else [None] * len(found)
        kept: list[tuple[Found, Verdict, str]] = []
        for f, p, m in zip(found, probs, matches, strict=True):
            kind = m.kind or (learnt.kind if learnt is not None else "") if m is not None else ""
            unclear = m is not None and not m.clear and not m.template
            if unclear and not self.weighs_learnt(kind, max(f.w, f.h) * scale):
                m = None
            if learnt is not None and m is not None:
                classifier = verdict(p, self.reject_threshold, kinds)
                v = learnt_verdict(
                    m.kind or learnt.kind, m, classifier, self.trust_support, self.trust_margin
                )
            else:
                v = verdict(p, self.reject_threshold, kinds)
                if not self._kept(f, v, kinds):
                    if kinds == KINDS or self.narrow != "relabel":
                        continue
                    # kinds narrow, never hide: a die reading every kind keeps is the table's kind
                    v_all = verdict(p, self.reject_threshold, KINDS)
                    if not self._kept(f, v_all, KINDS):
                        continue
                    v = narrowed(p, kinds)
            if _noise(image, f.center, max(f.w, f.h) * MARGIN) > NOISE_LEVEL:
                continue
            kept.append((f, v, "" if m is None else m.set_name or (learnt.name if learnt else "")))
        return kept

    def _kept(self, f: Found, v: Verdict, kinds: tuple[str, ...]) -> bool:
        """Whether a peak read `v` (reading `kinds`) is a die: not "none", at least `die_floor` sure
        at a table that names fewer than every kind, and a weak peak only when the classifier is
        `weak_floor` sure."""
        if v.kind == "none" or (kinds != KINDS and v.confidence < self.die_floor):
            return False
        return not (f.score < self.sure_peak and v.confidence < self.weak_floor)

    def verified(
        self, image: np.ndarray, kept: list[tuple[Found, Verdict, str]]
    ) -> list[tuple[Found, Verdict, str]]:
        """`candidates` after the not-a-die net (when loaded): a reading it scores under its threshold
        is dropped, one under its doubt level is read no surer than that score (the table asks).  A die
        the learnt set knows is the set's, not judged."""
        judge = [i for i, (_, _, known) in enumerate(kept) if not known]
        if self.notadie is None or not judge:
            return kept
        net = self.notadie
        p = net.judge(image, [kept[i][0] for i in judge])
        score = dict(zip(judge, p.tolist(), strict=True))
        out = []
        for i, (f, v, known) in enumerate(kept):
            s = score.get(i)
            if s is not None and s < net.threshold:
                continue
            if s is not None and s < net.doubt and v.confidence > s:
                v = replace(v, confidence=s)
            out.append((f, v, known))
        return out


VIDEO_AREA = 1280 * 960  # a video frame's pixels (the pip-d6 reader was trained on that scale)
# A still's small dice (`NumberedReader.spotted`, issue 44 item 2).  TARGET_SIDE: a die's box side in
# the detector's input, for the smallest die the table expects, in the finer look (a video frame's
# 30-60 px dice are 11-23 px in the usual 480x360 input); MAX_DET_AREA: the most pixels the finer look
# reads when the table knows its dice's size (2880x1620 of a 4608x2592 still: a 40 px die is 25 px
# there; ~110 ms on one core here, against ~40 ms at session 19's 1600x900, where a 40 px die was 14
# px and a 60 px die 21); FINE_AREA: its pixels when the table knows no size (a 60 px die of
# a 4608x2592 still is 21 px there); FINE_SEEN: a box this many px or more in the usual look's input
# is the usual look's to find (and a table whose smallest die is that big reads with it alone);
# SMALL_WORK: a die under this many px in the still's first halving is read in the still itself.
# Chosen on the train set-ups d20_off-angle and d20_color (benchmarks/small_stills.py: FINE_AREA
# 1280x720 found d20_color's 60 px die in 7 of 16 stills, 1600x900 and 1920x1080 in 13; TARGET_SIDE 18
# with the die's size known 6 of 16, 24 13 of 16).
TARGET_SIDE = 24.0
MAX_DET_AREA = 2880 * 1620
FINE_AREA = 1600 * 900
FINE_SEEN = 12.0
# GROW_UNDER (session 20): the finer look reads past FINE_AREA, up to MAX_DET_AREA, only for a die
# that FINE_AREA would show under this many px (a 40 px die of a 4608x2592 still is 14 px there, a
# 60 px die 21).  The look grown for every known size was measured (benchmarks/small_stills.py
# --learnt, RESULTS "a 40 px die in a full still"): at 60 px, size known, no learnt set, it read a
# d20_off-angle (train) die once surely wrong in 24 stills where the 1600x900 look read none (and
# held-out values, seen after, fell 40 -> 38 on top and 28 -> 27 on wood of 40 with a taught die); so
# a 60 px die keeps the 1600x900 look measured there, and a 40 px die the grown look (train:
# d20_color's die found 7 -> 10 of 12).
GROW_UNDER = 16.0
SMALL_WORK = 64.0
# The finer look's peaks beside dice both looks see at their size (`finer`): kept from this share of
# their median size up (a table's dice are 14-19 mm, `calibration.diceset`).  Set on the rendered
# stills (tests/fixtures/numbered_still, the pip and numbered dice 77-160 px): without it, 7 more false
# readings of 43 stills (printed numerals of 44-54 px), all asked; with it none, no die lost.
SMALLER = 0.5
# The third, coarser look's scale against the usual one (`finer`'s `coarse`), when the table knows no
# size: a large die there is at the detector's trained size.  Added after the large dice of
# benchmarks.table_stills (held-out photos, 300-440 px in the still) on wood were lost to the finer
# look's peaks on their numerals (26 -> 15 of 39 right); with it 26 of 39 as before, at a cost in small
# dice found (the coarse look boxes some 60 px dice as big as the usual look: d20_off-angle 24 -> 16
# of 24, d20_color 18 -> 14).  A table that knows its dice are small does not look coarser.
COARSE = 0.5
# A usual peak the coarse look alone confirms is a large die only when at least this share of its box
# is not the table round it (`box_filled`; `NumberedReader.coarse_filled`).  The coarse look boxes a
# lone small die (40-60 px in a 4608x2592 still) about as big as the usual look does, 5-9 times its
# side, so the usual box was taken for a large die, the finer look's peak on the die inside it for
# its numeral, and the box read as a sure d6 "1".  On the train set-up d20_off-angle at 40 px such
# boxes held 1.3-2.9 % of anything but the table; the held-out large dice the coarse look alone
# confirms (benchmarks.table_stills' photos, 300-440 px) 19-85 %.  A die a third of its box's side
# fills about 11 %.
FILLED = 0.1


def die_side(where: Sequence[WhereStep], w: int, h: int) -> float | None:
    """The smallest box side (frame pixels) the where steps expect a die to have in a `w` x `h`
    frame: a die-size step's (`DieSize`: `[vision] die_size_px`, or the board's die through its pose)
    or the empty table's finder's when it was given one, over a 5 x 5 grid of the frame; None when
    no step knows it."""
    from vision.empty_diff import EmptyDiff
    from vision.where import DieSize

    sides = []
    for step in where:
        expected = step.expected if isinstance(step, DieSize | EmptyDiff) else None
        if expected is None:
            continue
        least = step.smallest if isinstance(step, DieSize) else 1.0  # the set's smallest die
        for fy in (0.1, 0.3, 0.5, 0.7, 0.9):
            for fx in (0.1, 0.3, 0.5, 0.7, 0.9):
                v = least * float(expected(fx * w, fy * h))
                if math.isfinite(v) and v > 0:
                    sides.append(v)
    return min(sides) if sides else None


def knows_empty(where: Sequence[WhereStep]) -> bool:
    """Whether the where steps hold the table's empty table (its step, or its finder's)."""
    from vision.empty_diff import EmptyDiff
    from vision.where import EmptyTable

    return any(isinstance(step, EmptyTable | EmptyDiff) for step in where)


def finer(
    usual: Sequence[Found],
    fine: Sequence[Found],
    s_usual: float,
    coarse: Sequence[Found] = (),
    filled: Callable[[Found], bool] | None = None,
) -> list[Found]:
    """A still's peaks: the usual look's (`usual`, at `s_usual` of the frame the peaks are in) and
    the small dice of the finer look (`fine`): boxes under FINE_SEEN px in the usual look's input,
    which it cannot size.  The usual look peaks on such a die with a box several times too big; a
    usual peak the finer look sees too (a peak near its centre, of its size: a large die) keeps its
    box and the small peaks in it are its numerals or edges; one it does not see is the small die
    in its box, which takes its place.  `coarse`: a third look, coarser than the usual one, where a
    large die is at the detector's trained size; a usual peak it sees (near its centre, of its
    size) keeps its box too, when ``filled`` (given) says its box holds a die of its size, not a
    small die on the table (`box_filled`).  Beside dice both looks see at their size, a finer peak
    under SMALLER of their median size is no die of the table's (a board's printed numeral), and a
    usual peak within SMALLER of their size keeps its box (a die the finer look sees in parts)."""
    small = [f for f in fine if max(f.w, f.h) * s_usual < FINE_SEEN]

    def inside(f: Found, u: Found) -> bool:
        return abs(f.center[0] - u.box_center[0]) <= u.w / 2 and abs(f.center[1] - u.box_center[1]) <= u.h / 2

    def near(u: Found, looks: Sequence[Found]) -> bool:
        side = max(u.w, u.h)
        return any(
            math.dist(f.box_center, u.box_center) <= 0.25 * side and 0.6 <= max(f.w, f.h) / side <= 1.6
            for f in looks
        )

    def seen(u: Found) -> bool:
        return near(u, fine) or (near(u, coarse) and (filled is None or filled(u)))

    confirmed = [u for u in usual if seen(u)]
    if confirmed:  # a table's dice are of a size: beside dice seen at theirs, a far smaller peak is print
        most = float(np.median([max(u.w, u.h) for u in confirmed]))
        small = [f for f in small if max(f.w, f.h) >= SMALLER * most]
        # and a peak of their size is a die the finer look sees in parts
        confirmed += [
            u for u in usual if u not in confirmed and SMALLER <= max(u.w, u.h) / most <= 1 / SMALLER
        ]
    extra = [f for f in small if not any(inside(f, u) for u in confirmed)]
    return [u for u in usual if u in confirmed or not any(inside(f, u) for f in extra)] + extra


def box_filled(image: np.ndarray, f: Found) -> float:
    """The share of peak ``f``'s box (``image``'s pixels) that is not the table round it: pixels
    inside the box's rim (its outer 8 %) further from the rim's median colour, in any channel, than
    24 levels or 4 times the rim's own median spread (1.0 for a box too small to judge)."""
    h, w = image.shape[:2]
    (cx, cy), bw, bh = f.box_center, f.w, f.h
    x0, x1 = int(max(0.0, cx - bw / 2)), int(min(w, cx + bw / 2))
    y0, y1 = int(max(0.0, cy - bh / 2)), int(min(h, cy + bh / 2))
    crop = image[y0:y1, x0:x1].astype(np.float32)
    b = max(2, int(0.08 * min(crop.shape[:2])))
    if min(crop.shape[:2]) <= 2 * b + 2:
        return 1.0
    rim = np.concatenate(
        [
            crop[:b].reshape(-1, 3),
            crop[-b:].reshape(-1, 3),
            crop[:, :b].reshape(-1, 3),
            crop[:, -b:].reshape(-1, 3),
        ]
    )
    table = np.median(rim, 0)
    spread = float(np.median(np.abs(rim - table).max(1)))
    inside = np.abs(crop[b:-b, b:-b] - table).max(2)
    return float((inside > max(24.0, 4.0 * spread)).mean())


def _rescaled(f: Found, k: float) -> Found:
    """A peak in the pixels of a copy `k` times larger."""
    return Found(
        (f.center[0] * k, f.center[1] * k),
        f.w * k,
        f.h * k,
        f.score,
        (f.box_center[0] * k, f.box_center[1] * k),
    )


def video_copy(image_bgr: np.ndarray) -> np.ndarray | None:
    """A frame larger than a video frame shrunk to the video frame's size; None for a frame that is
    not (under 4/3 of its sides).

    Halved by area while twice as big or more, then resized linearly (`still_copies`): 4.1 ms for a
    3456x2592 still on one core, against 26.7 ms for one INTER_AREA resize.  On the validation
    windows of stills the pip reader and the numbered detector read the same from either copy
    (MODELS.md, session 7)."""
    return still_copies(image_bgr).video


@dataclass(frozen=True)
class Copies:
    """A frame as the readers read it.  `work`: what the numbered reader reads (a still's first
    halving by area when the still is at least twice a video frame's width, else the frame itself);
    `k`: the frame's width over `work`'s (readings are scaled back by it); `video`: the frame at a
    video frame's size, for the pip-d6 reader and the numbered detector (None for a frame that is
    not larger than one: `video_copy`)."""

    work: np.ndarray
    k: float
    video: np.ndarray | None


def still_copies(image_bgr: np.ndarray) -> Copies:
    """`Copies` of a frame, made in one pass: the halvings that make the video-size copy
    (`video_copy`) give the numbered reader its `work` image.

    A 3456x2592 still is read at 1728x1296: its dice are still at least as big as at the video
    frame's size, and cutting their crops costs less (MODELS.md, session 7: on the validation stills
    the same dice are read right as at full size)."""
    h, w = image_bgr.shape[:2]
    s = math.sqrt(VIDEO_AREA / (w * h))
    if s >= 0.75:
        return Copies(image_bgr, 1.0, None)
    halves: list[np.ndarray] = []
    video = _shrink(image_bgr, round(w * s), round(h * s), halves)
    work = halves[0] if halves else image_bgr
    return Copies(work, w / work.shape[1], video)


def scaled(r: DieReading, k: float) -> DieReading:
    """A reading of a copy of a frame `k` times smaller, in the frame's pixels."""
    return replace(
        r,
        center=(r.center[0] * k, r.center[1] * k),
        quad=tuple((x * k, y * k) for x, y in r.quad),  # type: ignore[arg-type]
        box=None if r.box is None else tuple((x * k, y * k) for x, y in r.box),  # type: ignore[arg-type]
    )


def _shrink(image: np.ndarray, dw: int, dh: int, halves: list[np.ndarray] | None = None) -> np.ndarray:
    """`image` resized to dw x dh for the detector: halved by area while it is twice as big or more,
    then the rest linearly (reads the same dice as one INTER_AREA resize on the validation windows,
    which takes 3.1 ms for 1280x960 -> 512x384 on one core, against 0.7 ms this way).  Each halving
    is appended to `halves` when given."""
    h, w = image.shape[:2]
    while w >= 2 * dw and h >= 2 * dh:
        h, w = h // 2, w // 2
        image = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        if halves is not None:
            halves.append(image)
    return image if (w, h) == (dw, dh) else cv2.resize(image, (dw, dh), interpolation=cv2.INTER_LINEAR)


def holding(peaks: Sequence[Found], center: tuple[float, float]) -> Found | None:
    """The peak (`NumberedReader.peaks`) whose box holds a reading's top-face centre, the nearest of
    them; None when no box holds it."""
    inside = [
        (math.dist(f.box_center, center), i)
        for i, f in enumerate(peaks)
        if abs(f.box_center[0] - center[0]) <= f.w / 2 and abs(f.box_center[1] - center[1]) <= f.h / 2
    ]
    return peaks[min(inside)[1]] if inside else None


def screened(
    image: np.ndarray,
    found: list[Found],
    k: float,
    where: Sequence[WhereStep],
    rejected: list[Rejected] | None = None,
) -> list[Found]:
    """The detector's peaks (found in a copy of `image` shrunk by `k`) that pass the where steps,
    judged on their boxes in `image`'s pixels; those stopped are added to `rejected` when given."""
    boxes = [Box((f.box_center[0] * k, f.box_center[1] * k), f.w * k, f.h * k) for f in found]
    passed, stopped = screen(image, boxes, where)
    if rejected is not None:
        rejected += [Rejected(boxes[i].center, boxes[i].w, boxes[i].h, step, why) for i, step, why in stopped]
    return [found[i] for i in passed]


def _check_nadir(nadir: object) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in nadir)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise ValueError(f"nadir: expected two numbers (x, y frame pixels), got {nadir!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"nadir: expected finite frame pixels, got {nadir!r}")
    return x, y


def _found(
    out: np.ndarray, heat: np.ndarray, y: int, x: int, sx: float, sy: float, origin: tuple[float, float]
) -> Found:
    """The die at detector cell (y, x) of output `out` (7 x H x W) of an input scaled by (sx, sy)
    from the frame, whose top-left corner is frame point `origin`."""
    bw = math.exp(float(np.clip(out[1, y, x], -3, 6))) * STRIDE / sx
    bh = math.exp(float(np.clip(out[2, y, x], -3, 6))) * STRIDE / sy
    # Sub-cell centres: the top face's (the crop's centre) and the outline box's.
    tx = origin[0] + (x + 0.5 + float(np.clip(out[3, y, x], -2, 2))) * STRIDE / sx
    ty = origin[1] + (y + 0.5 + float(np.clip(out[4, y, x], -2, 2))) * STRIDE / sy
    bx = origin[0] + (x + 0.5 + float(np.clip(out[5, y, x], -4, 4))) * STRIDE / sx
    by = origin[1] + (y + 0.5 + float(np.clip(out[6, y, x], -4, 4))) * STRIDE / sy
    return Found((tx, ty), bw, bh, float(heat[y, x]), (bx, by))


def sized(crops: list[np.ndarray], side: int) -> list[np.ndarray]:
    """Square crops at `side` x `side` (INTER_AREA down, linear up); crops of that side as they are.
    The embedder and learnt sets keep CROP-sized crops whichever classifier cut them."""
    out = []
    for c in crops:
        if c.shape[0] != side or c.shape[1] != side:
            shrink = c.shape[0] > side
            c = cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
        out.append(c)
    return out


def _cut(image: np.ndarray, center: tuple[float, float], side: float, out: int = CROP) -> np.ndarray:
    """`crop_die` of the frame round `center` (`out` x `out`), working on the few pixels round it only."""
    r = int(side * 0.75) + 4  # the crop square turned any way, and a little more
    x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
    roi = image[y0 : max(0, int(center[1]) + r + 1), x0 : max(0, int(center[0]) + r + 1)]
    if roi.size == 0:
        roi, x0, y0 = image, 0, 0
    return crop_die([roi], (center[0] - x0, center[1] - y0), side, out=out)


# The body's colour is read from the middle of a square this size (times the box) round the
# box's centre: mostly body, not the top face's numeral the classifier's crop is centred on.
COLOUR_MARGIN = 0.8


def _body(image: np.ndarray, box_center: tuple[float, float], side: float) -> np.ndarray:
    """The middle of a die's outline box, for its body's colour (`body_labs` reads the middle of it)."""
    m = CROP // 6
    return _cut(image, box_center, side * COLOUR_MARGIN)[m:-m, m:-m]


def _reading(
    image: np.ndarray,
    f: Found,
    v: Verdict,
    lab: np.ndarray,
    palette: Palette,
    quads: bool = True,
    learnt: str | None = None,
) -> DieReading:
    """The reading of one die kept, given its body's Lab colour: a d6's quad is its top face (with
    `quads`), else the die's outline box.  `learnt`: the name of the learnt set that read it."""
    quad: tuple[tuple[float, float], ...]
    shape = face_quad(image, f.box_center, f.w, f.h, lab) if quads and v.kind == "d6" else None
    if shape is not None:
        quad = tuple((float(x), float(y)) for x, y in shape[0])
    else:
        quad = box_quad(f.box_center, f.w, f.h)
    # The classifier's probability alone: scaling it down by a weak detector peak (score / 0.5, up to
    # session 4) asked about more right readings and caught no more wrong ones, on the validation
    # windows and the real train photos (MODELS.md, session 5); session 4's detector peaks lower.
    conf = max(0.0, min(1.0, v.confidence))
    fields: dict[str, Any] = {
        "kind": v.kind,
        "value": v.value,
        "center": f.center,
        "quad": quad,
        "confidence": conf,
        "colour": palette.nearest_lab(lab)[0],
    }
    return DieReading(**fields) if learnt is None else LearntReading(**fields, dice_set=learnt)


def with_face_quad(image: np.ndarray, r: DieReading) -> DieReading:
    """A d6 reading read with `quads` False, its quad (the outline box) replaced by its top face
    when that can be found; other readings unchanged."""
    if r.kind != "d6":
        return r
    q = np.asarray(r.quad, np.float64)
    center = (float(q[:, 0].mean()), float(q[:, 1].mean()))
    w, h = float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1]))
    lab = body_labs([_body(image, center, max(w, h))])[0]
    shape = face_quad(image, center, w, h, lab)
    if shape is None:
        return r
    quad = tuple((float(x), float(y)) for x, y in shape[0])
    return replace(r, quad=quad)  # type: ignore[arg-type]


def _noise(image: np.ndarray, center: tuple[float, float], side: float) -> float:
    """Pixel-level roughness of the frame in the square of `side` round `center` (see NOISE_LEVEL)."""
    h = max(2, int(side / 2))
    x, y = int(center[0]), int(center[1])
    p = image[max(0, y - h) : max(0, y + h), max(0, x - h) : max(0, x + h)].astype(np.float32)
    if min(p.shape[:2]) < 3:
        return 0.0
    return float(np.mean(np.abs(p - cv2.GaussianBlur(p, (0, 0), 1.0))))


_default: NumberedReader | None = None
_default_lock = threading.Lock()


def default_reader() -> NumberedReader:
    global _default
    with _default_lock:
        if _default is None:
            _default = NumberedReader()
        return _default


def read_numbered(
    image_bgr: np.ndarray,
    palette: Palette | None = None,
    nadir: tuple[float, float] | None = None,
    kinds: tuple[str, ...] = KINDS,
    learnt: Learnt | None = None,
    where: Sequence[WhereStep] = (),
    rejected: list[Rejected] | None = None,
) -> list[DieReading]:
    """Every d6, d10, percentile d10 and d20 in a BGR uint8 frame (d10p values 0, 10, ... 90).

    `nadir`: the point below the camera (frame pixels) when the camera's pose is known; `kinds`:
    the kinds the game uses (others are not looked for); `learnt`: the table's learnt set of dice;
    `where`, `rejected`: as `NumberedReader.read`'s."""
    return default_reader().read(
        image_bgr, palette, nadir, kinds=kinds, learnt=learnt, where=where, rejected=rejected
    )
