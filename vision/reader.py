"""Pixels to dice: a small learned detector finds dice, a small classifier reads each top face.

Both networks run on the CPU through OpenCV's dnn module from ONNX files shipped
in vision/models/ (trained by training/d6/train.py; see vision/models/README.md).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import cv2
import numpy as np

from vision.confidence_view import ViewConfidence
from vision.confidence_view import default as view_confidence_default
from vision.crops import CROP, MARGIN, Pyramid, crop_die
from vision.face import body_colour_labs, body_labs, face_quad
from vision.image_check import check_bgr
from vision.oblique import (
    CROP_F_SIDE,
    SIZE_AGREE,
    TILTS,
    View,
    best_view,
    crop_top,
    guess_matrix,
    hypotheses,
    needs_rectifying,
    neighbours,
    size_tilt,
    top_quad,
)
from vision.palette import Palette
from vision.pipcheck import Judged, found_again
from vision.reading import DieReading, Examined, Reader, Rejected, box_quad
from vision.runtime import Model, blob, softmax_turned
from vision.value_net import NAME as VALUE_NET
from vision.value_net import ValueNet
from vision.verifier import Box as VerifiedBox
from vision.verifier import NetVerifier, Verifier
from vision.verifier import load as load_verifier
from vision.where import Box, WhereStep, screen

MODELS = Path(__file__).resolve().parent / "models"
STRIDE = 4
# Two or more fine detections inside a coarse one that the classifier reads as a die at least this
# surely are dice side by side, not parts of one big die (its pips, read as "not a die"): the coarse
# box does not replace them.  On the byler_d6 TRAIN photos the coarse box had merged touching dice
# (1104 -> 1111 of 1117 read right, every labelled die found); drawn big dice and the rendered boards
# merge as before (benchmarks/RESULTS.md, session 6).
APART_SURE = 0.3
#: the detector score given to a box a where step proposes (it counts as a sure peak: the reading's
#: confidence is the classifier's)
PROPOSED_SCORE = 0.5
#: the confidence at most of a candidate the empty table insists on (something lies there) that the
#: classifier or the verifier calls "not a die": under any asking threshold, so the table asks
ASKED = 0.3
#: a proposed box's reading this close (box sides) to another reading is that die read again
APART = 0.9
#: ... unless this share of its middle is skin-coloured (a hand or a finger reaching in: no die)
SKIN_SHARE = 0.5
#: a proposed piece rejected as "not a die" with no die read within this many box sides lies alone:
#: it is kept as a question (vision.empty_diff.EmptyDiff.ask_alone)
ALONE = 1.5
#: the classifier for warped top faces (training/d6/oblique.py)
OBLIQUE_CLASSIFIER = "d6_classifier_oblique.onnx"
#: Issue 35: the confidence of a reading the reader knows it cannot be sure of, below the table's
#: asking threshold (0.8) so the table asks: a die cut by the frame's edge (half a face can show a
#: 3 where a 6 lies), and, under a view estimated from the dice, a die whose reading changes from
#: the estimated view to one next to it or that lies against another reading (a side face read as
#: a die, a die cocked against another)
UNSURE = 0.5
#: a die's box reaching this share of its side (at least EDGE_PX pixels) from the frame's edge is
#: cut by the edge
EDGE_SHARE, EDGE_PX = 0.04, 2.0
#: under an estimated view, readings whose centres lie closer than this many sides (the smaller
#: die's) are one die read twice or dice against each other (touching dice lie a side apart)
CLOSE = 1.3
#: under an estimated view, a die seen this steeply (degrees off vertical) shows too little of its
#: top face to be sure of (on the tuning renders every sure error left was a die seen 60-69 degrees
#: off vertical)
STEEP = 55.0
#: ... and a die smaller than this many pixels a side shows too few pixels of its top face (the
#: steeply seen dice the estimate misses are the far ones, the smallest in the frame)
SMALL_PX = 36.0
#: how `DiceReader.estimate` searches the views ("every": all of vision.oblique.hypotheses, as before
#: issue 46; "climb": every other tilt first, then uphill through neighbours, `climb`: on the real
#: photos it read as many dice right, byler_d6 held-out the very same, in two thirds of the time:
#: benchmarks/vision_d6_budget.py)
VIEW_SEARCH: Literal["every", "climb"] = "climb"


@dataclass(frozen=True)
class Candidate:
    """A detector peak: centre, box size in source pixels, and peak score."""

    center: tuple[float, float]
    w: float
    h: float
    score: float
    #: a box a where step proposed (>= 0: the spot it stands for; several boxes may try one spot)
    group: int = -1


#: the name --explain gives the classifier's own "not a die" verdict
CLASSIFIER_STEP = "classifier"
#: ... and the verifier's (vision.verifier)
VERIFIER_STEP = "verifier"


def _load(name: str, path: Path | None) -> Model:
    return Model(path or MODELS / name)


class DiceReader(Reader):
    """Reads pip d6 dice. Thread-safe (each model guards itself with a lock)."""

    def __init__(
        self,
        detector: Path | None = None,
        classifier: Path | None = None,
        det_long_side: tuple[int, int] = (352, 640),
        det_threshold: float = 0.30,
        reject_threshold: float = 0.20,
        rotations: int = 4,
        sure: float = 0.9,
        suppress_radius: float = 0.45,
        apart_sure: float = APART_SURE,
        where: Sequence[WhereStep] = (),
        verifier: Verifier | NetVerifier | Literal["default", "net", "logistic"] | None = "default",
        shrink: Literal["halve", "area"] = "area",
        view: View | None = None,
        rectify: bool = True,
        estimate_view: bool = False,
        oblique_classifier: Path | Literal["default"] | None = "default",
        oblique_verifier: Verifier | Literal["logistic"] | None = None,
        doubt: bool = True,
        tilts: tuple[float, ...] = TILTS,
        pip_check: Judged | None = None,
        symbol_dice: bool = True,
        value_net: Path | Literal["default"] | None = "default",
        view_search: Literal["every", "climb"] = VIEW_SEARCH,
        view_confidence: ViewConfidence | Literal["default"] | None = None,
    ) -> None:
        self._det = _load("d6_detector.onnx", detector)
        self._cls = _load("d6_classifier.onnx", classifier)
        # top faces warped from oblique views (vision.oblique) are read by the classifier fine-tuned
        # on them (training/d6/oblique.py), when there is one; None: by the box crops' classifier
        if oblique_classifier == "default":
            shipped = MODELS / OBLIQUE_CLASSIFIER
            oblique_classifier = shipped if classifier is None and shipped.is_file() else None
        self._cls_oblique = _load(OBLIQUE_CLASSIFIER, oblique_classifier) if oblique_classifier else self._cls
        # issue 46: a second look at each box-read die by the net fine-tuned on real photos seen
        # from any angle (vision.value_net); None: the box classifier alone (as before)
        if value_net == "default":
            shipped = MODELS / VALUE_NET
            value_net = shipped if classifier is None and shipped.is_file() else None
        self.value_net = ValueNet(value_net) if value_net else None
        self.det_long_side = det_long_side
        self.det_threshold = det_threshold
        self.shrink = shrink  # how a frame is shrunk for the detector (_shrink)
        self.reject_threshold = reject_threshold
        # Each crop is read upright; one read less surely than `sure` is read again at the other
        # quarter turns (up to `rotations` views) and the views averaged (above 1: every crop).
        # Session 6: 4 views under 0.9 (was 2 under 0.97) reads 1115 of 1117 byler TRAIN dice right
        # instead of 1111, re-reading fewer crops (12.3 against 14.6 ms a photo, same run).
        self.rotations = rotations
        self.sure = sure
        # peaks closer than this many box sides to a stronger one are dropped (a die partly hidden
        # under another lies about half a side from it)
        self.suppress_radius = suppress_radius
        self.apart_sure = apart_sure  # see coarse_wins
        # "a die can only be where a die can be" (vision.where): the steps this reader applies to
        # every frame before reading it; read(..., where=...) overrides them for one frame
        self.where: tuple[WhereStep, ...] = tuple(where)
        # a second opinion on each reading: is it a die at all (vision.verifier; None: off;
        # "default" and "net": the not-a-die net, "logistic": issue 19's first verifier)
        if isinstance(verifier, str):
            verifier = load_verifier("net" if verifier == "default" else verifier)
        self.verifier = verifier
        # dice read by their warped top face (a view given) judged by this verifier too ("logistic":
        # part 1's; None, the default: the net alone; benchmarks/vision_oblique.py compares them)
        self.oblique_verifier = Verifier.load() if oblique_verifier == "logistic" else oblique_verifier
        # where the camera looks from (vision.oblique: from a calibration, or estimated); with
        # `rectify` each die seen obliquely is cut by its top face seen from straight above
        self.view = view
        self.rectify = rectify
        # with no view given: estimate the camera's tilt from the dice of each frame (estimate_view),
        # trying these tilts (vision.oblique.hypotheses)
        self.estimate_view = estimate_view
        self.tilts = tuple(tilts)
        if view_search not in ("every", "climb"):
            raise ValueError(f"view_search: expected 'every' or 'climb', got {view_search!r}")
        self.view_search = view_search  # how the views are searched (`estimate`)
        # issue 35: what the reader knows it cannot be sure of is read below the asking threshold (a
        # die cut by the frame's edge; under an estimated view, a reading that changes with the view
        # next to it, a die seen steeply or small, dice against each other); off: as before
        self.doubt = doubt
        # issue 46: a face read surely looked at again for marks that are not pips (a skull, a logo,
        # a word: vision.pipcheck.Judged); one that shows them is read no surer than UNSURE.  None
        # (the default): off, its cost on real pips is above its gain (benchmarks/RESULTS.md)
        self.pip_check = pip_check
        # ... and a candidate called "not a die" that shows a die's square top face of one colour,
        # the size of the dice read, is a die all the same (a symbol on its top face), read no surer
        # than ASKED (vision.pipcheck.found_again); off: dropped as before
        self.symbol_dice = symbol_dice
        # issue 46 item 2: each reading's confidence mapped by how obliquely its die is seen (the
        # view's angle at it, else the photo's top faces' aspect: vision.confidence_view); None: raw
        self.view_confidence = view_confidence_default() if view_confidence == "default" else view_confidence

    # -- stage 1: where are the dice

    def detect(
        self,
        image: np.ndarray,
        scale: float | None = None,
        shrunk: dict[tuple[int, int], np.ndarray] | None = None,
    ) -> list[Candidate]:
        """Detector peaks at `scale`; `shrunk` keeps the shrunk frames of one image between scales."""
        h, w = image.shape[:2]
        s = scale if scale is not None else self.scale_for(h, w)
        dw, dh = max(16, round(w * s / 16) * 16), max(16, round(h * s / 16) * 16)
        sx, sy = dw / w, dh / h
        small = _shrink(image, dw, dh, shrunk if shrunk is not None else {}, self.shrink)
        out = self._det(blob(small[None]))[0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= self.det_threshold)
        found = []
        for y, x in zip(*np.nonzero(peaks), strict=True):
            bw = math.exp(float(out[1, y, x])) * STRIDE / sx
            bh = math.exp(float(out[2, y, x])) * STRIDE / sy
            found.append(
                Candidate(
                    (float((x + 0.5) * STRIDE / sx), float((y + 0.5) * STRIDE / sy)),
                    bw,
                    bh,
                    float(heat[y, x]),
                )
            )
        return suppress(found, self.suppress_radius)

    def scale_for(self, h: int, w: int) -> float:
        """Detector scale: half size, long side kept within det_long_side (min, max), never enlarged."""
        lo, hi = self.det_long_side
        return min(1.0, min(max(max(h, w) / 2, lo), hi) / max(h, w))

    def find(self, image: np.ndarray, pyr: Pyramid | None = None) -> list[Candidate]:
        """Detect at the working scale, then at a half and a quarter of it for dice too big for it.

        A big die seen at too fine a scale can look like several small ones (its pips); a coarser
        detection that holds two or more finer ones replaces them when the classifier reads the
        coarse box as a die more surely than it reads the fine ones and no two of those read as
        dice (`coarse_wins`: two dice side by side, or dice on busy board art, are never merged
        that way). Coarse detections count only when the die is big at that scale, so small
        touching dice are never merged.  `pyr`: the image's Pyramid, when the caller has one.
        """
        h, w = image.shape[:2]
        s = self.scale_for(h, w)
        shrunk: dict[tuple[int, int], np.ndarray] = {}
        found = self.detect(image, s, shrunk)

        def verify(groups: list[tuple[Candidate, list[Candidate]]]) -> list[bool]:
            """For each (coarse box, fine boxes inside it): is the coarse box the surer die?"""
            nonlocal pyr
            pyr = pyr or Pyramid(image)
            boxes = [b for c, inner in groups for b in (c, *inner)]
            p = self.classify([crop_die(pyr, b.center, b.w * MARGIN, b.h * MARGIN) for b in boxes], 1)
            sure = np.where(p[:, 0] >= self.reject_threshold, 0.0, p[:, 1:].max(1))
            out, i = [], 0
            for _, inner in groups:
                out.append(coarse_wins(float(sure[i]), sure[i + 1 : i + 1 + len(inner)], self.apart_sure))
                i += 1 + len(inner)
            return out

        for k in (2, 4):
            if max(h, w) * s / k < 96:
                break
            coarse = [c for c in self.detect(image, s / k, shrunk) if max(c.w, c.h) * s / k >= 12]
            found = _merge(found, coarse, s * 2 / k, verify, self.suppress_radius)
        return found

    # -- stage 2: what does each top face show

    def classify(
        self, crops: list[np.ndarray], rotations: int | None = None, warped: bool = False
    ) -> np.ndarray:
        """Softmax over (not a die, 1..6) for each CROP x CROP BGR crop.

        Each crop is read upright; those read less surely than `sure` are read again turned by
        quarter turns (up to `rotations` views in all) and the views' probabilities averaged.
        `warped`: the crops are top faces warped by vision.oblique (read by the oblique classifier).
        """
        if not crops:
            return np.zeros((0, 7), np.float32)
        turns = max(1, min(4, self.rotations if rotations is None else rotations))
        model = self._cls_oblique if warped else self._cls
        return softmax_turned(model, np.stack(crops), turns, self.sure)

    def warps(self, c: Candidate, view: View | None) -> bool:
        """Whether candidate `c` is cut by its top face (vision.oblique) rather than its box."""
        return self.rectify and view is not None and needs_rectifying(view, c.center)

    def crop(self, pyr: Pyramid, c: Candidate, view: View | None) -> np.ndarray:
        """The classifier's crop of candidate `c`: its top face seen from straight above when
        `view` says the die is seen obliquely (vision.oblique) and rectifying is on, else its box."""
        if view is not None and self.warps(c, view):
            return crop_top(pyr, top_quad(view, c.center, c.w, c.h))
        return crop_die(pyr, c.center, c.w * MARGIN, c.h * MARGIN)

    def classify_candidates(
        self, pyr: Pyramid, cands: Sequence[Candidate], view: View | None, rotations: int | None = None
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Each candidate's crop and its softmax (box crops and warped top faces each by their own
        classifier)."""
        crops = [self.crop(pyr, c, view) for c in cands]
        probs = np.zeros((len(cands), 7), np.float32)
        for warped in (False, True):
            idx = [i for i, c in enumerate(cands) if self.warps(c, view) == warped]
            if idx:
                probs[idx] = self.classify([crops[i] for i in idx], rotations, warped)
        return crops, probs

    def second_look(
        self, pyr: Pyramid, cands: Sequence[Candidate], probs: np.ndarray, view: View | None
    ) -> np.ndarray:
        """The softmax of each box-read candidate mixed with the value net's (vision.value_net; a
        top face warped from `view` keeps the oblique classifier's)."""
        if self.value_net is None or not len(cands):
            return probs
        idx = [i for i, c in enumerate(cands) if not self.warps(c, view)]
        if idx:
            probs = probs.copy()
            probs[idx] = self.value_net.mix(probs[idx], self.value_net.probs(pyr, [cands[i] for i in idx]))
        return probs

    def estimated_view(
        self, image: np.ndarray, pyr: Pyramid, cands: Sequence[Candidate], f_side: float | None = None
    ) -> View | None:
        """The camera's tilt estimated from the dice themselves: the view (vision.oblique.hypotheses)
        under which the candidates read as dice surest, or None (straight down) when none reads
        them GAIN surer than straight down does."""
        return self.estimate(image, pyr, cands, f_side)[0]

    def estimate(
        self, image: np.ndarray, pyr: Pyramid, cands: Sequence[Candidate], f_side: float | None = None
    ) -> tuple[View | None, np.ndarray]:
        """``estimated_view``'s view and the softmax of every candidate under each plausible view
        (views x candidates x 7): the best hypothesis and its neighbours (vision.oblique.neighbours),
        and straight down when that is the view taken.  When the dice's sizes tell a tilt more than
        SIZE_AGREE degrees off the view's (vision.oblique.size_tilt), every plausible softmax is
        held to UNSURE: the view is in doubt, so is every reading under it."""
        if not cands:
            return None, np.zeros((0, 0, 7), np.float32)
        h, w = image.shape[:2]
        views = hypotheses(w, h, None if f_side is None else guess_matrix(w, h, f_side), self.tilts)

        def sureness(p: np.ndarray) -> np.ndarray:
            return np.asarray(np.log(np.maximum(p[..., 1:].max(-1), 1e-6)).reshape(-1, len(cands)).mean(1))

        straight = self.classify_candidates(pyr, cands, None, 1)[1]
        warped = np.zeros((len(views), len(cands), 7), np.float32)
        scores = np.full(len(views), -np.inf)

        def under(idx: Sequence[int]) -> None:
            """Every candidate's softmax under the views `idx` not yet read (one batch)."""
            new = [i for i in dict.fromkeys(idx) if scores[i] == -np.inf]
            if new:
                crops = [crop_top(pyr, top_quad(views[i], c.center, c.w, c.h)) for i in new for c in cands]
                warped[new] = self.classify(crops, 1, True).reshape(len(new), len(cands), 7)
                scores[new] = sureness(warped[new])

        if self.view_search == "climb":
            best = climb(under, scores, len(self.tilts), len(views) // max(1, len(self.tilts)))
        else:
            under(range(len(views)))
            best = int(np.argmax(scores))
        view = best_view([float(s) for s in scores], views, float(sureness(straight)[0]))
        near = neighbours(best, len(self.tilts))
        under(near)
        plausible = warped[near]
        if view is None:
            plausible = np.concatenate([straight[None], plausible])
        told = size_tilt(
            np.array([c.center for c in cands]),
            np.array([math.sqrt(c.w * c.h) for c in cands]),
            views[0].camera_matrix,
        )
        if told is not None and abs(told - (0.0 if view is None else view.tilt_deg)) > SIZE_AGREE:
            plausible = np.minimum(plausible, UNSURE)
        return view, plausible

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined:
        """The dice read, and every candidate rejected with the step that rejected it: the
        vision.where steps in order, then the classifier ("not a die").  `view` (default: the
        reader's own): where the camera looks from, so oblique dice are read by their top face."""
        image = check_bgr(image)
        if min(image.shape[:2]) < 8:
            return Examined([], [])
        palette = palette or Palette.default()
        pyr = Pyramid(image)  # its halvings serve find's checks and the crops alike
        cands = self.find(image, pyr)
        steps = tuple(self.where if where is None else where)
        kept, rejected = self._judge(image, pyr, cands, steps, view)
        for step in steps:
            # a step that knows where something lies (vision.where.BoardLook) proposes boxes where
            # no die was read; every step, the classifier and the verifier judge them as any
            propose = getattr(step, "propose", None)
            if propose is not None:
                boxes = propose(image, [Box(k[0].center, k[0].w, k[0].h) for k in kept])
                cands = [Candidate(b.center, b.w, b.h, PROPOSED_SCORE, b.group) for b in boxes]
                insist = bool(getattr(step, "insist", False))
                more, why = self._judge(image, pyr, cands, steps, view, insist)
                if getattr(step, "ask_alone", False) and not insist:
                    more, why = self._ask_alone(image, pyr, cands, kept, more, why, steps, view)
                kept += more
                rejected += why
                # the blobs of change it proposed nothing in (an arm, a sheet, over its limit): said
                name = str(getattr(step, "name", "proposed"))
                rejected += [Rejected((x, y), d, d, name, w) for x, y, d, w in getattr(step, "dropped", ())]
        kept, dropped = _one_per_place(kept)
        again: tuple[int, ...] = ()
        if self.symbol_dice and kept:
            steps_ = (CLASSIFIER_STEP, VERIFIER_STEP)
            found, rejected = found_again(
                pyr, [(k[0].center, k[0].w, k[0].h) for k in kept], rejected, steps_
            )
            again = tuple(range(len(kept), len(kept) + len(found)))
            kept += [_asked(pyr, r) for r in found]
        rejected += [
            Rejected(k[0].center, k[0].w, k[0].h, "proposed", "the same die as a surer reading", k[1], k[2])
            for k in dropped
        ]
        readings = _finish(image, [k[:4] for k in kept], palette)
        order = sorted(range(len(readings)), key=lambda i: (readings[i].center[1], readings[i].center[0]))
        readings = [readings[i] for i in order]  # top to bottom, then left to right
        again = tuple(n for n, i in enumerate(order) if i in again)
        if self.view_confidence is not None:
            readings = self.view_confidence.apply(readings, self.view if view is None else view)
        return Examined(readings, rejected, again)

    def _judge(
        self,
        image: np.ndarray,
        pyr: Pyramid,
        cands: list[Candidate],
        steps: tuple[WhereStep, ...],
        view: View | None = None,
        insist: bool = False,
    ) -> tuple[list[tuple[Candidate, int, float, np.ndarray, np.ndarray]], list[Rejected]]:
        """The candidates read as dice (candidate, value, confidence, crop, probabilities) and those
        rejected: by the where steps in order, the classifier ("not a die"), the verifier; `view`:
        where the camera looks from (default: the reader's own, or estimated).  ``insist``: the
        candidates are known to be something lying there (vision.empty_diff): one the classifier or
        the verifier calls "not a die" is kept, read no surer than ASKED (so the table asks)."""
        passed, stopped = screen(image, [Box(c.center, c.w, c.h) for c in cands], steps)
        rejected = [Rejected(cands[i].center, cands[i].w, cands[i].h, step, why) for i, step, why in stopped]
        cands = [cands[i] for i in passed]
        seen_from = self.view if view is None else view
        plausible: np.ndarray | None = None  # each die's softmax under the views it may be seen from
        if seen_from is None and self.estimate_view and self.rectify and cands:
            seen_from, plausible = self.estimate(image, pyr, cands)
            if not self.doubt:
                plausible = None
        crops, probs = self.classify_candidates(pyr, cands, seen_from)
        probs = self.second_look(pyr, cands, probs, seen_from)
        kept = []
        for i, (c, p, crop) in enumerate(zip(cands, probs, crops, strict=True)):
            value = int(np.argmax(p[1:])) + 1
            conf = float(p[value]) * min(1.0, c.score / 0.5)
            if self.value_net is not None and not self.warps(c, seen_from):
                conf = self.value_net.calibrated(conf)
            if plausible is not None:  # read no surer than under the least sure plausible view
                conf = min(conf, float(plausible[:, i, value].min()))
                steep = seen_from is not None and seen_from.view_deg(*c.center) >= STEEP
                if steep or math.sqrt(c.w * c.h) < SMALL_PX:
                    conf = min(conf, UNSURE)
            if self.doubt and cut_by_edge(c, image.shape[1], image.shape[0]):
                conf = min(conf, UNSURE)
            if self.pip_check is not None and not self.pip_check.pips(pyr, c.center, c.w, c.h, value, conf):
                conf = min(conf, UNSURE)
            if p[0] >= self.reject_threshold and insist:
                conf = min(conf, ASKED)
            elif p[0] >= self.reject_threshold:
                why = f"read as not a die ({p[0]:.2f} >= {self.reject_threshold:g})"
                rejected.append(Rejected(c.center, c.w, c.h, CLASSIFIER_STEP, why, value, conf))
                continue
            kept.append((c, value, conf, crop, p))
        if self.verifier is not None and kept:
            kept = self._second_opinion(self.verifier, pyr, kept, rejected, insist)
        if self.oblique_verifier is not None and seen_from is not None and kept:
            # a die read by its warped top face (a view given) judged by the oblique verifier too: on
            # oblique renders part 1's logistic one drops the second reading of a steeply seen die's
            # side that the net keeps, but on the board scenes it drops real dice as well
            # (benchmarks/RESULTS.md, issue 19 deliverable 2 on session 10's main): off by default
            warped = [self.warps(k[0], seen_from) for k in kept]
            if any(warped):
                slanted = [k for k, w in zip(kept, warped, strict=True) if w]
                kept = [k for k, w in zip(kept, warped, strict=True) if not w]
                kept += self._second_opinion(self.oblique_verifier, pyr, slanted, rejected)
        if plausible is not None:
            kept = _apart(kept)
        return kept, rejected

    def _ask_alone(
        self,
        image: np.ndarray,
        pyr: Pyramid,
        cands: list[Candidate],
        kept: list[tuple[Candidate, int, float, np.ndarray, np.ndarray]],
        more: list[tuple[Candidate, int, float, np.ndarray, np.ndarray]],
        why: list[Rejected],
        steps: tuple[WhereStep, ...],
        view: View | None,
    ) -> tuple[list[tuple[Candidate, int, float, np.ndarray, np.ndarray]], list[Rejected]]:
        """A proposed piece the classifier or the verifier calls "not a die" is kept as a question
        (read no surer than ASKED) when it lies alone: no die read within ALONE box sides of it, so
        nothing explains the change there; one beside a die read is that die's sides or shadow, and
        its rejection says so (issue 30: nothing the empty table finds is dropped without a word)."""
        read = [k[0] for k in kept + more]
        lone: list[Candidate] = []
        out: list[Rejected] = []
        for r in why:
            if r.step not in (CLASSIFIER_STEP, VERIFIER_STEP):
                out.append(r)
                continue
            near = [
                c
                for c in read
                if math.hypot(c.center[0] - r.center[0], c.center[1] - r.center[1]) < ALONE * min(r.w, c.w)
            ]
            if near:
                c = min(near, key=lambda c: math.hypot(c.center[0] - r.center[0], c.center[1] - r.center[1]))
                beside = (
                    f"; beside the die read at ({c.center[0]:.0f}, {c.center[1]:.0f}): its sides or shadow"
                )
                out.append(dataclasses.replace(r, why=r.why + beside))
                continue
            if _skin_share(image, r.center, r.w) >= SKIN_SHARE:
                out.append(dataclasses.replace(r, why=r.why + "; skin-coloured: a hand or a finger"))
                continue
            lone += [c for c in cands if c.center == r.center]
        if not lone:
            return more, out
        asked, still = self._judge(image, pyr, lone, steps, view, True)
        return more + asked, out + still

    @staticmethod
    def _second_opinion(
        v: Verifier | NetVerifier,
        pyr: Pyramid,
        kept: list[tuple[Candidate, int, float, np.ndarray, np.ndarray]],
        rejected: list[Rejected],
        insist: bool = False,
    ) -> list[tuple[Candidate, int, float, np.ndarray, np.ndarray]]:
        """The readings verifier `v` takes for dice (those it rejects added to `rejected`); a reading
        it doubts is read no surer than its score, so the table asks about it.  ``insist``: one it
        rejects is kept, read no surer than ASKED."""
        sure = v.judge(
            pyr, [k[0] for k in kept], np.stack([k[4] for k in kept]), np.stack([k[3] for k in kept])
        )
        if insist:
            return [
                (k[0], k[1], k[2] if s >= v.threshold else min(k[2], ASKED), k[3], k[4])
                for k, s in zip(kept, sure, strict=True)
            ]
        for k, s in zip(kept, sure, strict=True):
            if s < v.threshold:
                why = f"does not look like a die ({s:.3f} < {v.threshold:.3f})"
                rejected.append(Rejected(k[0].center, k[0].w, k[0].h, VERIFIER_STEP, why, k[1], k[2]))
        return [
            (k[0], k[1], min(k[2], float(s)) if s < v.doubt else k[2], k[3], k[4])
            for k, s in zip(kept, sure, strict=True)
            if s >= v.threshold
        ]

    def read_crop(self, crop_bgr: np.ndarray, palette: Palette | None = None) -> DieReading:
        """Read an image that shows one die filling it (e.g. a crop another detector made)."""
        crop_bgr = check_bgr(crop_bgr, "crop")
        h, w = crop_bgr.shape[:2]
        pyr = Pyramid(crop_bgr)
        c = crop_die(pyr, (w / 2, h / 2), float(w), float(h))
        whole = Candidate((w / 2, h / 2), w / MARGIN, h / MARGIN, 1.0)
        view = None
        if self.rectify and self.estimate_view:  # the crop's own tilt (it has no place in a frame)
            view = self.estimated_view(crop_bgr, pyr, [whole], CROP_F_SIDE)
        p = self.second_look(pyr, [whole], self.classify_candidates(pyr, [whole], view)[1], view)[0]
        value = int(np.argmax(p[1:])) + 1
        conf = float(p[value])
        if self.value_net is not None and not self.warps(whole, view):
            conf = self.value_net.calibrated(conf)
        quad = ((0.0, 0.0), (float(w), 0.0), (float(w), float(h)), (0.0, float(h)))
        colour = (palette or Palette.default()).nearest_lab(body_colour_labs([c])[0])[0]
        return DieReading(value=value, center=(w / 2, h / 2), quad=quad, confidence=conf, colour=colour)


def _asked(pyr: Pyramid, r: Rejected) -> tuple[Candidate, int, float, np.ndarray, np.ndarray]:
    """A rejected candidate kept as a die to ask about (`vision.pipcheck.found_again`)."""
    crop = crop_die(pyr, r.center, r.w * MARGIN, r.h * MARGIN)
    cand = Candidate(r.center, r.w, r.h, PROPOSED_SCORE)
    conf = min(r.confidence or 0.0, ASKED)
    return cand, r.value or 1, conf, crop, np.zeros(7, np.float32)  # no softmax: "not a die"


def climb(under: Callable[[Sequence[int]], None], scores: np.ndarray, tilts: int, towards: int) -> int:
    """The view (index into vision.oblique.hypotheses) `DiceReader.estimate` takes with
    ``view_search="climb"``: every direction at every other tilt (the 1st, 3rd, ... and the last)
    read first, then from the surest of them, to the surest of its neighbours
    (vision.oblique.neighbours) while that is surer.  `under(idx)` reads the candidates under views
    `idx` into `scores` (-inf: not read).  On the real photos (byler_d6 held-out, epanemu_d6_oblique)
    it takes the view reading every view takes in 42 of 42 and 359 of 397 photos, reading 27-28
    views of 40 (starting at the 2nd and 4th tilts: 34 and 300, 22 views)."""
    coarse = sorted({*range(0, tilts, 2), tilts - 1})
    start = [t * towards + a for t in coarse for a in range(towards)]
    under(start)
    i = int(np.argmax(scores))
    while True:
        near = neighbours(i, tilts, towards)
        under(near)
        j = max(near, key=lambda k: float(scores[k]))
        if scores[j] <= scores[i]:
            return i
        i = j


def cut_by_edge(c: Peak, width: int, height: int) -> bool:
    """Whether a die's box (centre, w, h) reaches the frame's edge: part of the die may lie outside."""
    gap = max(EDGE_PX, EDGE_SHARE * min(c.w, c.h))
    x, y = c.center
    return (
        x - c.w / 2 <= gap or y - c.h / 2 <= gap or x + c.w / 2 >= width - gap or y + c.h / 2 >= height - gap
    )


def _apart(kept: list[K]) -> list[K]:
    """Readings (candidate, value, confidence, ...) with those lying against another read no surer
    than UNSURE (CLOSE sides apart: one die read twice, or dice against each other)."""
    out = []
    for i, k in enumerate(kept):
        c = k[0]
        near = any(
            math.hypot(c.center[0] - o[0].center[0], c.center[1] - o[0].center[1])
            < CLOSE * min(math.sqrt(c.w * c.h), math.sqrt(o[0].w * o[0].h))
            for j, o in enumerate(kept)
            if j != i
        )
        out.append((k[0], k[1], min(float(k[2]), UNSURE), *k[3:]) if near else k)
    return out  # type: ignore[return-value]


def _shrink(
    image: np.ndarray,
    dw: int,
    dh: int,
    shrunk: dict[tuple[int, int], np.ndarray],
    how: Literal["halve", "area"] = "area",
) -> np.ndarray:
    """`image` resized to dw x dh, made from the nearest larger size already made (in `shrunk`).

    "area" (the default): by area interpolation (Gaussian pyramid steps first from a size already
    made). "halve": halved by area while twice as big or more, then the rest linearly (as
    vision.numbered.reader._shrink: one INTER_AREA resize by a factor that is not a whole number
    takes 1.2 ms for a 640 px photo to 352 px on one core, this 0.2 ms), not the default: on the
    held-out byler_d6 photos it read 2 dice fewer right (benchmarks/RESULTS.md, issue 19 part 3)."""
    if (dw, dh) in shrunk:
        return shrunk[(dw, dh)]
    bigger = [k for k in shrunk if k[0] >= dw and k[1] >= dh]
    img = shrunk[min(bigger)] if bigger else image
    if how == "halve":
        while img.shape[1] >= 2 * dw and img.shape[0] >= 2 * dh:
            img = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
        if img.shape[:2] != (dh, dw):
            img = cv2.resize(img, (dw, dh), interpolation=cv2.INTER_LINEAR)
        shrunk[(dw, dh)] = img
        return img
    while bigger and img.shape[1] >= 2 * dw and img.shape[0] >= 2 * dh:
        img = cv2.pyrDown(img)
    if img.shape[:2] != (dh, dw):
        img = cv2.resize(img, (dw, dh), interpolation=cv2.INTER_AREA)
    shrunk[(dw, dh)] = img
    return img


K = TypeVar("K", bound=tuple[Any, ...])


def _one_per_place(kept: list[K]) -> tuple[list[K], list[K]]:
    """(kept, dropped): the readings of proposed boxes (``group >= 0``), at most one a proposed spot
    (the surest) and none on a die already read (centres within APART box sides: dice lying side by
    side are a side apart): a spot is tried at several boxes, and what differs from the board round a
    die read already (its sides, its shadow) can read as that die again."""
    detected = [k for k in kept if k[0].group < 0]
    out = list(detected)
    dropped: list[K] = []
    groups: set[int] = set()
    for k in sorted((k for k in kept if k[0].group >= 0), key=lambda k: -float(k[2])):
        c = k[0]
        near = any(
            math.hypot(c.center[0] - o[0].center[0], c.center[1] - o[0].center[1])
            < APART * min(c.w, c.h, o[0].w, o[0].h)
            for o in out
        )
        if c.group in groups or near:
            dropped.append(k)
            continue
        groups.add(c.group)
        out.append(k)
    return out, dropped


def _skin_share(image: np.ndarray, center: tuple[float, float], side: float) -> float:
    """The share of the middle of a box (its central 60 %) that is skin-coloured (a classic YCrCb box,
    as the motion gate's hand test)."""
    h, w = image.shape[:2]
    r = 0.3 * side
    x0, x1 = max(0, int(center[0] - r)), min(w, int(center[0] + r) + 1)
    y0, y1 = max(0, int(center[1] - r)), min(h, int(center[1] + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    ycrcb = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycrcb[..., 0], ycrcb[..., 1], ycrcb[..., 2]
    skin = (cr >= 135) & (cr <= 180) & (cb >= 80) & (cb <= 130) & (y > 50)
    return float(skin.mean())


def coarse_wins(coarse: float, fine: np.ndarray, apart_sure: float = APART_SURE) -> bool:
    """Whether a coarse detection replaces the fine ones inside it, given how surely the classifier
    reads each as a die (0 when it reads "not a die"): when it reads the coarse box as a die at least
    as surely as the fine ones on average, unless two or more of those are dice themselves."""
    fine = np.asarray(fine, np.float64)
    return bool(coarse > 0.0 and coarse >= float(np.mean(fine)) and int(np.sum(fine >= apart_sure)) < 2)


def _inside(c: Candidate, box: Candidate) -> bool:
    return abs(c.center[0] - box.center[0]) <= box.w / 2 and abs(c.center[1] - box.center[1]) <= box.h / 2


def _merge(
    fine: list[Candidate],
    coarse: list[Candidate],
    fine_scale: float,
    verify: Callable[[list[tuple[Candidate, list[Candidate]]]], list[bool]] | None = None,
    radius: float = 0.45,
) -> list[Candidate]:
    """Fine detections, except those a coarse detection replaces: a group of 2+ inside it, or one
    far smaller than it, or one die too big for the fine scale (its size is less sure there), when
    `verify` confirms the coarse box is the surer reading (pips of one big die, not two dice)."""
    drop: set[int] = set()
    add = []
    groups: list[tuple[Candidate, list[int]]] = []
    for c in coarse:
        inner = [i for i, f in enumerate(fine) if _inside(f, c)]
        if not inner:
            add.append(c)
            continue
        too_big = len(inner) == 1 and max(fine[inner[0]].w, fine[inner[0]].h) * fine_scale > 36
        # one detection much smaller than the coarse box can be a single pip of a big die
        small = len(inner) == 1 and max(fine[inner[0]].w, fine[inner[0]].h) < 0.5 * min(c.w, c.h)
        if len(inner) >= 2 or small or too_big:
            groups.append((c, inner))
    ok = verify([(c, [fine[i] for i in inner]) for c, inner in groups]) if verify and groups else None
    for j, (c, inner) in enumerate(groups):
        if ok is None or ok[j]:
            drop.update(inner)
            add.append(c)
    return suppress([f for i, f in enumerate(fine) if i not in drop] + add, radius)


#: what suppression needs of a detection: centre, box size and score (what a verifier needs too)
Peak = VerifiedBox
P = TypeVar("P", bound=Peak)


def suppress(found: list[P], radius: float = 0.45) -> list[P]:
    """Drop weaker peaks whose centre lies within `radius` box sides (about half a die) of a stronger one."""
    kept: list[P] = []
    for c in sorted(found, key=lambda c: -c.score):
        r = radius * min(c.w, c.h)
        if all(
            math.hypot(c.center[0] - k.center[0], c.center[1] - k.center[1]) > max(r, radius * min(k.w, k.h))
            for k in kept
        ):
            kept.append(c)
    return kept


def _finish(
    image: np.ndarray, kept: list[tuple[Candidate, int, float, np.ndarray]], palette: Palette
) -> list[DieReading]:
    """Outline, colour and cocked flag for each accepted die (in ``kept``'s order)."""
    labs = body_labs([k[3] for k in kept])
    boxes = [box_quad(k[0].center, k[0].w, k[0].h) for k in kept]
    # the body's colour of the classifier's crop; a learnt look: more, of the die's box at the frame's
    # own pixels (`vision.looks.LearntPalette.describe_at`), for its name
    colours = palette.describe_at(image, boxes, [k[3] for k in kept])
    shapes = [
        (lab, face_quad(image, k[0].center, k[0].w, k[0].h, lab)) for k, lab in zip(kept, labs, strict=True)
    ]
    aspects = [s[1][1] for s in shapes if s[1] is not None]
    # A die lying flat shows a square top face; in a frame where most faces look square,
    # one that looks clearly oblong is tilted against something (needs 3+ dice to judge).
    flat_frame = len(aspects) >= 3 and float(np.median(aspects)) < 1.15
    out = []
    for (c, value, conf, _), (_, shape), named, box in zip(kept, shapes, colours, boxes, strict=True):
        center = c.center
        if shape is not None:
            q = shape[0]
            quad = tuple((float(x), float(y)) for x, y in q)
            cocked = flat_frame and shape[1] > 1.4
            m = q.mean(0)  # the outline's centre is finer than the detector's 4-pixel grid
            if math.hypot(m[0] - c.center[0], m[1] - c.center[1]) < 0.35 * min(c.w, c.h):
                center = (float(m[0]), float(m[1]))
        else:
            quad = box_quad(c.center, c.w, c.h)
            cocked = False
        name, near = palette.near_two(named)
        out.append(
            DieReading(
                value=value,
                center=center,
                quad=quad,  # type: ignore[arg-type]
                confidence=max(0.0, min(1.0, conf)),
                colour=name,
                cocked=cocked,
                colour_near=near,
                box=box,
                look=tuple(float(x) for x in np.ravel(named)),
            )
        )
    return out


_defaults: dict[bool, DiceReader] = {}
_default_lock = threading.Lock()


def default_reader(estimate_view: bool = False) -> DiceReader:
    """The shared pip-d6 reader; ``estimate_view``: the one that estimates the camera's tilt from
    the dice of each frame when no view is given (a tilted camera with no calibration, issue 35)."""
    with _default_lock:
        if estimate_view not in _defaults:
            _defaults[estimate_view] = DiceReader(estimate_view=estimate_view)
        return _defaults[estimate_view]


def read_dice(
    image_bgr: np.ndarray,
    palette: Palette | None = None,
    where: Sequence[WhereStep] = (),
    view: View | None = None,
) -> list[DieReading]:
    """Every pip d6 in a BGR uint8 frame: value, centre, top-face quad, confidence, colour, cocked;
    `where`: the vision.where steps a die must pass (the table's, from its config); `view`: where
    the camera looks from (vision.oblique, from the table's calibration), so dice seen obliquely
    are read by their top face."""
    return default_reader().read(image_bgr, palette, where, view)


def read_die_crop(crop_bgr: np.ndarray, palette: Palette | None = None) -> DieReading:
    """The value of the single die that fills `crop_bgr`."""
    return default_reader().read_crop(crop_bgr, palette)


__all__ = ["CROP", "Candidate", "DiceReader", "Examined", "Rejected", "read_dice", "read_die_crop"]
