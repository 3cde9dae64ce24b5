"""The numeral value head (issue 20, item 3): a d20's value read from the numeral on its top face.

A d20 seen from above shows its value as the numeral at the centre of the die, at any angle.  The
head (`numbered_numeral.onnx`, trained by training/numbered/train_numerals.py on synthetic top faces of
training/numbered/numerals.py, die-agnostic) reads the reader's crop of a die (the same square round
the top face's centre as the classifier's, or its middle `share` (the head's sidecar
numbered_numeral.json: {"share": ...}; 1.0 without one), cut NUMERAL_CROP x NUMERAL_CROP; the
middle holds the top face's numeral bigger and fewer of its neighbours') and answers the
probability of each of the 20 faces.  Opt-in: `NumberedReader(value_head=True)`; the reader then
takes a d20's value from the head and its kind from the classifier (`with_values`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.numbered.labels import KIND_SLICES
from vision.runtime import Model, softmax_turned

NUMERAL_FILE = "numbered_numeral.onnx"
NUMERAL_CROP = 64  # the head's input side, pixels
FACES = 20


class NumeralHead:
    """The value head's ONNX net (`path`), read at `turns` quarter turns averaged (1, 2 or 4)."""

    def __init__(self, path: Path, turns: int = 4) -> None:
        if not path.is_file():
            raise FileNotFoundError(f"value_head: {path} is missing (expected the numeral head's ONNX file)")
        if turns not in (1, 2, 4):
            raise ValueError(f"numeral turns: expected 1, 2 or 4 quarter turns, got {turns!r}")
        self._net = Model(path)
        self.turns = turns
        self.file = path.name
        self.share = _share(path.with_suffix(".json"))

    def faces(self, crops: list[np.ndarray]) -> np.ndarray:
        """N x 20 probabilities of faces 1-20 for N square BGR uint8 crops of NUMERAL_CROP px."""
        if not crops:
            return np.zeros((0, FACES), np.float32)
        for c in crops:
            if c.shape != (NUMERAL_CROP, NUMERAL_CROP, 3) or c.dtype != np.uint8:
                raise ValueError(
                    f"numeral crop: expected {NUMERAL_CROP}x{NUMERAL_CROP}x3 uint8, got {c.shape} {c.dtype}"
                )
        p = softmax_turned(self._net, np.stack(crops), self.turns, None)
        if p.shape[1] != FACES:
            raise ValueError(f"{self.file}: answers {p.shape[1]} classes, expected {FACES} (faces 1-20)")
        return p


def _share(sidecar: Path) -> float:
    """The share of the reader's square the head reads (its sidecar's "share"; 1.0 without one)."""
    if not sidecar.is_file():
        return 1.0
    try:
        share = float(json.loads(sidecar.read_text(encoding="utf-8"))["share"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f'{sidecar}: expected {{"share": a number in (0, 1]}} ({e})') from None
    if not 0.0 < share <= 1.0:
        raise ValueError(f"{sidecar}: share {share!r} is not in (0, 1]")
    return share


def with_values(probs: np.ndarray, faces: np.ndarray, rows: list[int]) -> np.ndarray:
    """The classifier's softmax (`probs`, 47 classes) with each of `rows`' d20 values taken from the
    head (`faces`, one row each): the d20 kind's summed probability is kept and shared out over the
    faces as the head believes, so the kind is decided as before and the value is the head's."""
    out = probs.copy()
    s = KIND_SLICES["d20"]
    for i, f in zip(rows, faces, strict=True):
        out[i, s] = float(probs[i, s].sum()) * f
    return out
