"""A per-die reader on the OCR recogniser's own features (issue 44): a table's own die, read by how
its taught rolls looked to the recogniser.

The learnt set (`vision.numbered.learnt`) matches a die by a generic image embedding, which tells a
d20's numerals apart poorly at ~60 px; the OCR head's recogniser (`vision.numbered.ocr`) is made for
numerals.  `DieHead.fit` keeps, for each taught roll (its face named), the recogniser's features of
each of the head's views of it (`OcrHead.views`: `shares` x `angles` turns; each view's per-step
features, `ocr.FEATURES`, averaged over the steps: `pooled`), less their mean over every taught view, each
view's vector of unit length.  A die read later is `likeness`-compared with each taught roll: the
mean cosine of its views to the roll's views at the best cyclic shift of the turns (a die turned on
the table turns its views), and a face's likeness is its best roll's.

A roster die taught through `learn-dice see`/`confirm` keeps its taught rolls' views with its set
(`DiceSet.head_views`, from the head's reading at `see`); with the camera's view stated (the top face
warped alike at `see` and `read`), `read` weighs a die of that set by `score`:
SET_WEIGHT x the set's likeness + ln(the head's evidence + EVIDENCE_FLOOR) + WEIGHT x this likeness,
sure when its margin over the runner-up is at least SURE_MARGIN (`reader.NumberedReader.learnt_ocr_readings`).
Chosen on the rendered 20-face d20's seed 44 only (benchmarks/die_head.py, benchmarks/RESULTS.md "a
per-die reader on the OCR recogniser's own features"); the environment's DICETABLE_DIE_HEAD=off reads
as before (a benchmark's before-way).  Without a view it is not used: on the REAL proxy (its later frames
near-copies of the taught ones, the head at the die's centre) d20_off-angle read 93.6 -> 70.9 % with it.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: the per-die reader's weight beside ln(evidence): chosen on the renders' seed 44 teaching rolls, each
#: read by the others (5 / 10 / 20 / 40: 65 / 67 / 65 / 63 of 100; the head alone 58)
WEIGHT = 10.0
#: the learnt set's likeness beside them: a near-copy of a taught crop still counts.  Chosen on the REAL
#: proxy's TRAIN set-up with the view stated (d20_off-angle, `learnt_cli_small --ways view`): 10 read
#: 92.7 % (no die head 97.3 %), 25 98.2 %; on the renders' seed 44 (cached) weights 10 / 15 / 20 / 25 / 30
#: read 149 / 147 / 148 / 146 / 142 of 200
SET_WEIGHT = 25.0
#: the floor under the head's evidence (`reader.EVIDENCE_FLOOR`)
EVIDENCE_FLOOR = 1e-3
#: a die is read sure when its score beats the runner-up by this much: the least on seed 44's 200 later
#: throws (cached) with at most 1 read surely wrong at SET_WEIGHT (benchmarks/die_head.py, 5 rolls a face)
SURE_MARGIN = 3.93
#: the confidence a sure reading is given (over the table's asking threshold, 0.8)
SURE = 0.9


def enabled() -> bool:
    """Whether `read` weighs a die by its set's own reader (DICETABLE_DIE_HEAD=off: not, as before)."""
    return os.environ.get("DICETABLE_DIE_HEAD", "on").strip().lower() != "off"


def pooled(feats: np.ndarray) -> np.ndarray:
    """N x V x D: each of N dice's V head views' per-step features (N x V x T x D, `ocr.FEATURES`)
    averaged over the steps: what a `DieHead` keeps and reads."""
    f = np.asarray(feats, np.float32)
    if f.ndim != 4:
        raise ValueError(f"die head: expected N x views x steps x features, got shape {f.shape}")
    return np.asarray(f.mean(2), np.float32)


def _views(views: np.ndarray, shares: int) -> np.ndarray:
    """N x shares x turns x D of N x V x D views (V = shares x turns)."""
    v = np.asarray(views, np.float32)
    if v.ndim != 3 or v.shape[1] % shares:
        raise ValueError(
            f"die head: expected N x views x features with views a multiple of {shares}, got shape {v.shape}"
        )
    return v.reshape(len(v), shares, v.shape[1] // shares, v.shape[2])


def _unit(x: np.ndarray) -> np.ndarray:
    return np.asarray(x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9), np.float32)


def turned_likeness(query: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Q x K: the mean cosine of each query's views to each kept roll's (both ... x shares x turns x D,
    unit vectors) at the best cyclic shift of the turns."""
    turns = query.shape[2]
    best = np.full((len(query), len(kept)), -np.inf, np.float32)
    n = query.shape[1] * turns
    for r in range(turns):
        s = np.einsum("qskd,tskd->qt", query, np.roll(kept, r, axis=2)) / n
        np.maximum(best, s, out=best)
    return best


@dataclass(frozen=True)
class DieHead:
    """A die's taught rolls as the recogniser saw them: each roll's face (`values`, N) and its views
    (N x shares x turns x D, centred on `centre` and of unit length)."""

    values: np.ndarray
    views: np.ndarray
    centre: np.ndarray

    @classmethod
    def fit(cls, values: Sequence[int] | np.ndarray, views: np.ndarray, shares: int = 2) -> DieHead:
        """The reader of the taught rolls `values` whose head views are `views` (N x V x D, `pooled`:
        V = shares x turns views, in `OcrHead.crops`' order)."""
        vals = np.asarray(values, np.int64)
        v = _views(views, shares)
        if len(vals) != len(v) or not len(vals):
            raise ValueError(
                f"die head: expected one or more taught rolls, each with its face, got {len(vals)} "
                f"faces for {len(v)} rolls' features"
            )
        centre = v.reshape(-1, v.shape[-1]).mean(0)
        return cls(vals, _unit(v - centre), np.asarray(centre, np.float32))

    @property
    def faces(self) -> list[int]:
        return sorted({int(x) for x in self.values})

    def rolls(self, views: np.ndarray) -> np.ndarray:
        """Q x N: each die's (Q x V x D views, `pooled`) likeness to each taught roll."""
        q = _unit(_views(views, self.views.shape[1]) - self.centre)
        return turned_likeness(q, self.views)

    def likeness(self, views: np.ndarray, faces: Sequence[int] | None = None) -> np.ndarray:
        """Q x F: each die's (Q x V x D views, `pooled`) likeness to each of `faces` (default
        `self.faces`): its best taught roll's; -1 for a face never taught."""
        got = self.rolls(views)
        want = list(faces) if faces is not None else self.faces
        out = np.full((len(got), len(want)), -1.0, np.float32)
        for j, f in enumerate(want):
            m = self.values == f
            if m.any():
                out[:, j] = got[:, m].max(1)
        return out


def encode(views: np.ndarray) -> str:
    """One roll's views (V x D) as text a set file keeps (float16, base64, prefixed by V)."""
    v = np.asarray(views, np.float16)
    if v.ndim != 2:
        raise ValueError(f"die head views: expected views x features, got shape {v.shape}")
    return f"{v.shape[0]}:" + base64.b64encode(v.tobytes()).decode("ascii")


def decode(text: str) -> np.ndarray:
    """`encode`'s views back (V x D float32); ValueError on anything else."""
    try:
        count, data = str(text).split(":", 1)
        raw = np.frombuffer(base64.b64decode(data, validate=True), np.float16)
        n = int(count)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"die head views: expected 'V:base64 of float16' text, got {str(text)[:40]!r}"
        ) from e
    if n < 1 or raw.size % n:
        raise ValueError(f"die head views: {raw.size} numbers do not make {n} views")
    return np.asarray(raw.reshape(n, -1), np.float32)


def score(
    faces: Sequence[int],
    likenesses: Sequence[float],
    evidence: Sequence[float],
    head: np.ndarray,
) -> np.ndarray:
    """Each of `faces`' score: SET_WEIGHT x the set's likeness + ln(the head's evidence + floor) +
    WEIGHT x the per-die reader's likeness (`head`, aligned with `faces`)."""
    like = np.asarray(likenesses, np.float64)
    ev = np.log(np.asarray(evidence, np.float64) + EVIDENCE_FLOOR)
    return np.asarray(SET_WEIGHT * like + ev + WEIGHT * np.asarray(head, np.float64))


def pick(scores: np.ndarray) -> tuple[int, float]:
    """The best score's index and its margin over the runner-up (inf with one)."""
    order = np.argsort(-scores)
    margin = float(scores[order[0]] - scores[order[1]]) if len(scores) > 1 else float("inf")
    return int(order[0]), margin
