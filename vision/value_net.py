"""A second look at each pip d6: the whole die as the detector boxes it, read by a net fine-tuned on
REAL photos seen from any angle (issue 46 item 1; made by ``training/d6/real_value.py``).

Opt-in: ``DiceReader(value_net=PATH)``; the reader takes ``vision/models/d6_value_real.onnx`` by
default only when such a file ships, and none does: the net tried (fine-tuned on the real oblique
photos' TRAIN content groups, epanemu_d6_oblique, CC BY 4.0, Epanemu/GameDiceRecognition) read the
held-out groups no better than the box classifier (benchmarks/RESULTS.md, issue 46 items 1 and 2).

The box-crop classifier (``d6_classifier.onnx``) reads a 32 px crop learnt mostly from overhead
photos and renders; the value net reads the same box cut 64 px.  The reader's softmax of a box-read
candidate is the two nets' softmaxes mixed (``mix``); top faces warped from a known view keep the
oblique classifier's; a box-read reading's confidence goes through the net's calibration (``knots``
in its JSON, fitted by ``training.d6.real_value calibrate`` on TRAIN photos the net never fitted).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.crops import MARGIN, Pyramid, crop_die
from vision.runtime import Model, blob, softmax
from vision.verifier import Placed

NAME = "d6_value_real.onnx"
#: the net's input side, pixels
SIDE = 64
#: the weight of the value net's log-probabilities against the classifier's (a geometric mix)
WEIGHT = 0.5


class ValueNet:
    """The fine-tuned whole-die net (7 classes: not a die, 1..6).  Thread-safe (its Model is).

    Its JSON beside it (``d6_value_real.json``) holds the mix's weight and the calibration of a
    reading's confidence (``knots``: a piecewise-linear, increasing map, fitted on TRAIN photos kept
    out of the net's fitting by ``python -m training.d6.real_value calibrate``); none: as read."""

    def __init__(self, path: Path, weight: float | None = None) -> None:
        self.net = Model(path)
        meta_path = Path(path).with_suffix(".json")
        meta = {}
        if meta_path.is_file():
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                knots = np.asarray(meta.get("knots", [[0.0, 0.0], [1.0, 1.0]]), np.float64)
            except (ValueError, TypeError) as e:
                raise ValueError(f"{meta_path}: not the value net's settings ({e})") from e
        else:
            knots = np.array([[0.0, 0.0], [1.0, 1.0]])
        if knots.ndim != 2 or knots.shape[1] != 2 or np.any(np.diff(knots[:, 0]) <= 0):
            raise ValueError(f"{meta_path}: knots must be [x, y] pairs with x increasing")
        self.knots = knots
        self.weight = float(meta.get("weight", WEIGHT) if weight is None else weight)

    def calibrated(self, confidence: float) -> float:
        """A box-read reading's confidence through the calibration's knots."""
        return float(np.interp(confidence, self.knots[:, 0], self.knots[:, 1]))

    def probs(self, pyr: Pyramid, boxes: Sequence[Placed]) -> np.ndarray:
        """Its softmax (N x 7) for each box: the box and its margin, cut SIDE px."""
        if not boxes:
            return np.zeros((0, 7), np.float32)
        crops = np.stack([crop_die(pyr, b.center, b.w * MARGIN, b.h * MARGIN, size=SIDE) for b in boxes])
        return softmax(self.net(blob(crops)))

    def mix(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """The classifier's softmax `p` and this net's `q` (N x 7 each) mixed geometrically:
        p^(1-weight) q^weight, normalised (weight 1: the net alone)."""
        w = self.weight
        m = np.exp((1 - w) * np.log(np.maximum(p, 1e-7)) + w * np.log(np.maximum(q, 1e-7)))
        return np.asarray(m / m.sum(1, keepdims=True), np.float32)
