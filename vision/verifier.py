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
    p = np.clip(np.asarray(probs, np.float64), 1e-6, 1.0)
    faces = p[1:] / p[1:].sum()
    top2 = np.sort(faces)[-2:]
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float64)
    c0, c1 = CROP // 4, CROP - CROP // 4
    face = lab[c0:c1, c0:c1].reshape(-1, 3)
    ring = np.concatenate(
        [
            lab[:3].reshape(-1, 3),
            lab[-3:].reshape(-1, 3),
            lab[:, :3].reshape(-1, 3),
            lab[:, -3:].reshape(-1, 3),
        ]
    )
    body = np.median(face, 0)
    dist = np.linalg.norm(face - body, axis=1)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float64)
    gx, gy = cv2.Sobel(grey, cv2.CV_64F, 1, 0), cv2.Sobel(grey, cv2.CV_64F, 0, 1)
    mag = np.hypot(gx, gy)
    border = np.ones_like(mag, bool)
    border[3:-3, 3:-3] = False
    return np.array(
        [
            np.log(p[0]),
            np.log(top2[1] / max(top2[0], 1e-6)),
            float(-(faces * np.log(faces)).sum()),
            det_score,
            max(w, h) / max(min(w, h), 1e-6),
            float((dist < 20).mean()),
            float(np.percentile(dist, 90)),
            float(np.linalg.norm(body - np.median(ring, 0))),
            float(np.hypot(body[1] - 128, body[2] - 128)),
            float(mag[border].mean() / (mag[~border].mean() + 1.0)),
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
                f"{path}: expected a d6 verifier JSON from training/d6/verifier.py ({e})"
            ) from None

    def score(self, feats: np.ndarray) -> np.ndarray:
        """P(a die) for each row of features."""
        z = ((np.atleast_2d(feats) - self.mean) / self.scale) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)), np.float64)
