"""Is this reading a die at all? A second opinion on the classifier's readings, without retraining it.

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

import cv2
import numpy as np

from vision.crops import CROP

PATH = Path(__file__).resolve().parent / "models" / "d6_verifier.json"

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
