"""How sure a roster die's learnt face is (issue 44 item 4): a calibrated confidence from the evidence.

A die of the table's roster (`controller.roster`, a set with `DiceSet.calibrated`) is read as the
learnt face `reader.learnt_face` gives; how sure that face is comes from a logistic fit of whether it
was right on the evidence about this crop (`evidence`):

- ``like``: its likeness to the face's nearest stored crop, and ``gap``: by how much that beats the
  nearest stored crop of any other face (negative when the OCR head chose a face that was not the
  nearest);
- ``support``: how many stored crops of the face are clearly alike (`Match.support`; 0 when the face
  read is not the nearest);
- ``entry_gap``: by how much the die is more like this entry's crops than any other entry's
  (`Match.entry_gap`: which die it is);
- ``clf``: the classifier reads the same kind and value (1) or not (0);
- ``head``: the OCR head read the die (1; too small for it: 0), ``head_agrees``: it reads this face,
  with ``head_conf``: its calibrated confidence in it (0 when it reads another), and
  ``head_against``: its confidence in the other value it reads (0 when it agrees);
- ``trusted``, ``clf_clear``: the rule before (support 3 and a 0.05 clear face; the classifier
  agreeing on a 0.05 clear face), as two more pieces of evidence.

One rule a regime (REGIMES): "head" when the OCR head read the die, "alone" when it was too small
for the head.  Each is z = b + sum(w_i x_i), the weights of a logistic regression of right on the
evidence, every weight but the head's own kept >= 0 and ``head_against``'s <= 0 (more evidence
for the face never makes it less sure, the head reading another value never surer: the rule is
monotone); b is then set so that the highest-scoring wrong train reading the roster's
step would not ask about anyway lies ``margin_logit`` under ln(199), and the confidence given is
``sigmoid(z - ODDS_SHIFT)``, ODDS_SHIFT = ln(199 / 4): the table's asking threshold 0.8 is z = ln(199),
odds of 199 to 1 (wrong about 1 in 200).  The margin is the smallest of (0.5, 1, 2, 3, 4) with which
each train set-up, the rule fitted on the other, had no wrong face read surely.  Fitted only on the
d20_lurig TRAIN set-ups (d20_off-angle, d20_color as the roster's two dice; at their own size and
shrunk to a 60 px die with motion blur) by `benchmarks/trust_fit.py`, which writes `trust.json`
beside this file with its counts; measured held out by `benchmarks/roster_read.py --calibrated`.
A regime's rule is used (`used`) only when, held out by set-up, it read more train readings surely
than the rule before (`reader.learnt_verdict`: TRUST_TAUGHT's support and margin, the head's
agreement), none wrong: so the "head" rule reads a die the head read, and a die too small for the
head (a 60 px die at 1280x720) keeps the rule before (held out by set-up the fit read 36 of 137
train readings surely, the rule before 37).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

#: the evidence, in the fit's order
BASE = (
    "like",
    "gap",
    "support",
    "entry_gap",
    "clf",
    "head",
    "head_agrees",
    "head_conf",
    "head_against",
    "small",
)
#: ... and the rule before (issue 29's `Match.trusted`, the classifier's agreement) as evidence too:
#: ``trusted``: at least TRUSTED_SUPPORT stored crops alike and the face CLEAR over every other;
#: ``clf_clear``: the classifier agrees and the face is CLEAR over every other
FEATURES = (*BASE, "trusted", "clf_clear")
TRUSTED_SUPPORT, CLEAR = 3, 0.05
#: the rule's file (written by benchmarks/trust_fit.py)
RULE = Path(__file__).with_name("trust.json")
#: the rules' regimes (`regime`)
REGIMES = ("head", "alone")
#: the fitted odds that give the table's asking threshold (0.8): 199 to 1
ODDS_SHIFT = math.log(199 / 4)
#: support counted up to this many stored crops (4 rolls a face are taught)
SUPPORT_CAP = 4
#: the benchmarks' recorder (`benchmarks/roster_read.py --record`): True puts each roster die's evidence
#: in its reading's JSON (``"trust"``), for the fit
RECORD = False


def evidence(
    like: float,
    gap: float,
    support: int,
    entry_gap: float,
    clf: bool,
    head: bool = False,
    head_agrees: bool = False,
    head_conf: float = 0.0,
    small: bool = False,
) -> dict[str, float]:
    """The evidence about one crop's face, as the rule reads it (see the module's doc); ``head_conf``:
    the head's confidence in the value it read, this face (``head_agrees``) or another; ``small``: the
    die's box is under the head's own floor (`ocr.MIN_SIDE`: the head read it magnified, from
    `ocr.LEARNT_MIN_SIDE`), which the "alone" rule reads."""
    return {
        "like": float(like),
        "gap": max(-0.2, min(0.2, float(gap))),
        "support": float(min(SUPPORT_CAP, max(0, support))),
        "entry_gap": max(-0.2, min(0.2, float(entry_gap))),
        "clf": float(bool(clf)),
        "head": float(bool(head)),
        "head_agrees": float(bool(head and head_agrees)),
        "head_conf": float(head_conf) if head and head_agrees else 0.0,
        "head_against": float(head_conf) if head and not head_agrees else 0.0,
        "small": float(bool(small)),
        "trusted": float(support >= TRUSTED_SUPPORT and gap >= CLEAR),
        "clf_clear": float(bool(clf) and gap >= CLEAR),
    }


@cache
def rules(path: Path = RULE) -> dict[str, Any]:
    """The fitted rules, one a regime (REGIMES: the OCR head read the die, or the die was too small
    for it): {"head": {"intercept": b, "weights": {feature: w}}, "alone": {...}, ...}."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for regime in REGIMES:
        if set(data[regime]["weights"]) != set(FEATURES):
            raise ValueError(f"{path}: {regime}: expected weights for {', '.join(FEATURES)}")
    return dict(data)


def used(regime: str) -> bool:
    """Whether the fitted rule of ``regime`` reads a roster die's face: only where, held out by set-up
    on the train set-ups, it read more of them surely than the rule before with none wrong
    (`benchmarks/trust_fit.py`); else the rule before does (`reader.learnt_verdict`)."""
    return bool(rules()[regime].get("use", True))


def regime(ev: Mapping[str, float]) -> str:
    """Which rule reads the evidence: "head" when the OCR head read the die at its own size (a box of
    `ocr.MIN_SIDE` or more), else "alone" (a small die, read by the head magnified or not at all)."""
    return "head" if ev["head"] and not ev.get("small", 0.0) else "alone"


def logit(ev: Mapping[str, float], fitted: Mapping[str, Any] | None = None) -> float:
    """The fitted log odds that the face read is right (``fitted``: one regime's rule; None: the
    shipped rule of the evidence's regime)."""
    r = fitted if fitted is not None else rules()[regime(ev)]
    return float(r["intercept"]) + sum(float(r["weights"][k]) * float(ev[k]) for k in FEATURES)


def confidence(ev: Mapping[str, float], fitted: Mapping[str, Any] | None = None) -> float:
    """The confidence given to a roster die's face: sigmoid(logit - ODDS_SHIFT) (0.8: odds 199 to 1)."""
    z = logit(ev, fitted) - ODDS_SHIFT
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def features(
    faces: Sequence[int], likenesses: Sequence[float], raw: Mapping[str, float], face: int
) -> dict[str, float]:
    """The evidence (`evidence`) that a roster die shows ``face``, from its likeness to each face of
    its entry (``faces``, ``likenesses``) and what else was seen (``raw``, `LearntReading.evidence`:
    ``nearest``, the set's nearest face, its ``support``, ``entry_gap``, ``clf_value``, the value the
    classifier read, -1 another kind; and when the OCR head read it, ``head`` 1, ``head_value``,
    ``head_conf``)."""
    like = float(likenesses[list(faces).index(face)])
    others = [float(v) for f, v in zip(faces, likenesses, strict=True) if f != face]
    return evidence(
        like,
        like - max(others, default=0.0),
        int(raw["support"]) if face == int(raw["nearest"]) else 0,
        float(raw["entry_gap"]),
        int(raw["clf_value"]) == face,
        bool(raw.get("head", 0.0)),
        int(raw.get("head_value", -1)) == face,
        float(raw.get("head_conf", 0.0)),
        bool(raw.get("small", 0.0)),
    )
