"""Is this reading a die at all? A second opinion on the classifier's readings, without retraining it.

Two verifiers, both fitted on the TRAIN splits only:

* :class:`NetVerifier` (the default): a small CNN (``vision/models/d6_notadie.onnx``, trained by
  ``training/d6/notadie.py``) that sees each candidate twice, the classifier's own CROP x CROP crop
  and a crop of CONTEXT times the box round it (a key among keys, a letter in a word, a dot on
  cloth look like a die alone, not with what lies round them). Its positives are real d6 of the
  train photos and drawn dice pasted on real train photos with no d6; its negatives are what the
  detector fires on in those photos (hard-negative mining) and random crops of them.
* :class:`Verifier`: the logistic model below (issue 19's first verifier), kept for comparison.

The logistic verifier:

Hard negatives (readings on real photos with no d6: desks, foam, text, signs, coins, a d20) and the
dice read right on the train photos were turned into a few numbers each: how the classifier spread
its belief over "not a die" and the six faces, the detector's score, the box's shape, and how the
crop looks (a die's top face is one body colour with pips, standing out from the table round it).
A logistic model over them (fitted by ``training/d6/verifier.py`` on the TRAIN splits only; weights
in ``vision/models/d6_verifier.json``) rejects a reading below its threshold, and a reading below its
``doubt`` level is read no surer than the verifier's score (so the table asks about it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.crops import CROP, MARGIN, Pyramid, crop_die
from vision.runtime import Model, blob

MODELS = Path(__file__).resolve().parent / "models"
PATH = MODELS / "d6_verifier.json"
NET_PATH = MODELS / "d6_notadie.onnx"
#: the context crop's side, in box sides (the classifier's own crop is vision.crops.MARGIN)
CONTEXT = 2.5


class Placed(Protocol):
    """A candidate's place: its centre and box size (what a crop is cut by)."""

    @property
    def center(self) -> tuple[float, float]: ...
    @property
    def w(self) -> float: ...
    @property
    def h(self) -> float: ...


class Box(Placed, Protocol):
    """What a verifier needs of a candidate: centre, box size and the detector's score."""

    @property
    def score(self) -> float: ...


def context_crops(pyr: Pyramid, boxes: Sequence[Box], size: int = CROP, side: float = CONTEXT) -> np.ndarray:
    """N x size x size x 3 crops of `side` times each box, round its centre (BGR uint8): with
    side=CONTEXT the net's context crops, with vision.crops.MARGIN its die crops."""
    if not boxes:
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack([crop_die(pyr, b.center, b.w * side, b.h * side, 0.0, size) for b in boxes])


def net_input(crops: np.ndarray, context: np.ndarray) -> np.ndarray:
    """The not-a-die net's N x 6 x S x S input: the die crop's channels, then the context's."""
    return np.concatenate([blob(crops), blob(context)], axis=1)


FEATURES = (
    "p_not_die",
    "value_margin",
    "value_entropy",
    "det_score",
    "aspect",
    "face_uniform",
    "face_contrast",
    "face_vs_ring",
    "face_saturation",
    "ring_busy",
)


def features(probs: np.ndarray, det_score: float, w: float, h: float, crop: np.ndarray) -> np.ndarray:
    """The verifier's numbers for one reading: `probs` the classifier's softmax (not a die, 1..6),
    the detector's peak score, the box size and the CROP x CROP BGR crop the classifier read."""
    return np.asarray(
        features_of(np.asarray(probs)[None], [det_score], [w], [h], np.asarray(crop)[None])[0], np.float64
    )


def features_of(
    probs: np.ndarray,
    det_scores: Sequence[float],
    ws: Sequence[float],
    hs: Sequence[float],
    crops: np.ndarray,
) -> np.ndarray:
    """:func:`features` of N readings at once (N x len(FEATURES)): one colour conversion and one
    gradient over the N crops stacked (each padded as OpenCV pads a lone image, so the numbers are
    the same as one crop at a time)."""
    n = len(crops)
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    p = np.clip(np.asarray(probs, np.float64), 1e-6, 1.0)
    faces = p[:, 1:] / p[:, 1:].sum(1, keepdims=True)
    top2 = np.sort(faces, 1)[:, -2:]
    crops = np.ascontiguousarray(crops, np.uint8)
    lab = cv2.cvtColor(crops.reshape(n * CROP, CROP, 3), cv2.COLOR_BGR2LAB).reshape(n, CROP, CROP, 3)
    lab = lab.astype(np.float64)
    c0, c1 = CROP // 4, CROP - CROP // 4
    face = lab[:, c0:c1, c0:c1].reshape(n, -1, 3)
    ring = np.concatenate(
        [
            lab[:, :3].reshape(n, -1, 3),
            lab[:, -3:].reshape(n, -1, 3),
            lab[:, :, :3].reshape(n, -1, 3),
            lab[:, :, -3:].reshape(n, -1, 3),
        ],
        axis=1,
    )
    body = np.median(face, 1)
    dist = np.linalg.norm(face - body[:, None], axis=2)
    grey = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops]).astype(np.float64)
    padded = np.pad(grey, ((0, 0), (1, 1), (1, 1)), mode="reflect")  # OpenCV's BORDER_REFLECT_101
    tall = padded.reshape(n * (CROP + 2), CROP + 2)
    gx = cv2.Sobel(tall, cv2.CV_64F, 1, 0).reshape(n, CROP + 2, CROP + 2)[:, 1:-1, 1:-1]
    gy = cv2.Sobel(tall, cv2.CV_64F, 0, 1).reshape(n, CROP + 2, CROP + 2)[:, 1:-1, 1:-1]
    mag = np.hypot(gx, gy)
    border = np.ones((CROP, CROP), bool)
    border[3:-3, 3:-3] = False
    ws_, hs_ = np.asarray(ws, np.float64), np.asarray(hs, np.float64)
    return np.column_stack(
        [
            np.log(p[:, 0]),
            np.log(top2[:, 1] / np.maximum(top2[:, 0], 1e-6)),
            -(faces * np.log(faces)).sum(1),
            np.asarray(det_scores, np.float64),
            np.maximum(ws_, hs_) / np.maximum(np.minimum(ws_, hs_), 1e-6),
            (dist < 20).mean(1),
            np.percentile(dist, 90, axis=1),
            np.linalg.norm(body - np.median(ring, 1), axis=1),
            np.hypot(body[:, 1] - 128, body[:, 2] - 128),
            mag[:, border].mean(1) / (mag[:, ~border].mean(1) + 1.0),
        ]
    )


@dataclass(frozen=True)
class Verifier:
    """A logistic model over :func:`features`; a reading scoring under `threshold` is not a die."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    doubt: float = 0.0
    name: str = "not-a-die verifier"

    @classmethod
    def load(cls, path: Path = PATH) -> Verifier:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if tuple(data["features"]) != FEATURES:
                raise ValueError(f"features {data['features']} are not this version's {list(FEATURES)}")
            return cls(
                np.asarray(data["mean"], np.float64),
                np.asarray(data["scale"], np.float64),
                np.asarray(data["weights"], np.float64),
                float(data["bias"]),
                float(data["threshold"]),
                float(data.get("doubt", 0.0)),
            )
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise ValueError(
                f"{path}: expected a d6 verifier JSON (as training/d6/verifier.py writes it) ({e})"
            ) from None

    def score(self, feats: np.ndarray) -> np.ndarray:
        """P(a die) for each row of features."""
        z = ((np.atleast_2d(feats) - self.mean) / self.scale) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)), np.float64)

    def judge(self, pyr: Pyramid, boxes: Sequence[Box], probs: np.ndarray, crops: np.ndarray) -> np.ndarray:
        """P(a die) of each reading: its box, the classifier's softmax and the crop it read."""
        return self.score(
            features_of(probs, [b.score for b in boxes], [b.w for b in boxes], [b.h for b in boxes], crops)
        )


class NetVerifier:
    """The not-a-die CNN; a reading scoring under `threshold` is not a die, one under `doubt` is
    read no surer than its score (the table asks about it)."""

    name = "not-a-die net"

    def __init__(
        self, path: Path = NET_PATH, threshold: float | None = None, doubt: float | None = None
    ) -> None:
        meta_path = Path(path).with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            self.threshold = float(meta["threshold"] if threshold is None else threshold)
            self.doubt = float(meta.get("doubt", 0.0) if doubt is None else doubt)
            if float(meta.get("context", CONTEXT)) != CONTEXT:
                raise ValueError(f"context {meta['context']} is not this version's {CONTEXT}")
            self.size = int(meta.get("crop", CROP))  # the side of both crops, pixels
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise ValueError(
                f"{meta_path}: expected the not-a-die net's settings (threshold, doubt) as "
                f"training/d6/notadie.py writes them ({e})"
            ) from None
        self.model = Model(Path(path))

    def score_input(self, x: np.ndarray) -> np.ndarray:
        """P(a die) for each row of :func:`net_input`."""
        if not len(x):
            return np.zeros(0, np.float64)
        z = np.asarray(self.model(x), np.float64).reshape(len(x))
        return np.asarray(1.0 / (1.0 + np.exp(-z)), np.float64)

    def judge(self, pyr: Pyramid, boxes: Sequence[Box], probs: np.ndarray, crops: np.ndarray) -> np.ndarray:
        """P(a die) of each reading (the classifier's softmax `probs` is not used; its crops only
        when the net reads crops of the classifier's size)."""
        del probs
        if self.size != CROP:
            crops = context_crops(pyr, boxes, self.size, MARGIN)
        return self.score_input(net_input(np.asarray(crops), context_crops(pyr, boxes, self.size)))


def load(kind: str = "net") -> Verifier | NetVerifier:
    """The committed verifier of that kind: "net" (the default) or "logistic"."""
    if kind == "net":
        return NetVerifier()
    if kind == "logistic":
        return Verifier.load()
    raise ValueError(f"verifier kind {kind!r}: expected 'net' or 'logistic'")
