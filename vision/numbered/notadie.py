"""Is this candidate a numbered die at all? A second opinion on the numbered reader's readings.

The numbered classifier was trained on renders: on real cloth, wood, card, trays and printed text
it finds die-like patches (issue 20: 9.4 phantoms a photo on the real negatives reading every
kind).  The not-a-die net (``vision/models/numbered_notadie.onnx``, trained by
``training/numbered/notadie.py`` on the TRAIN splits only, as issue 19's ``vision.verifier.NetVerifier``
was for the pip-d6 reader) sees each candidate twice: the whole die round its outline box's centre
(DIE times the box's longer side) and CONTEXT times that (a numeral in a word, a knot in wood, a
stitch in cloth look like a die alone, not with what lies round them), both SIDE x SIDE pixels.

A reading it scores under its ``threshold`` is dropped; one under its ``doubt`` is read no surer
than that score, so the table asks a person about it.  Never scored on the net's say-so alone: the
net only removes or lowers readings the classifier made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from vision.numbered.crop import crop_die
from vision.runtime import Model, blob

NOTADIE_FILE = "numbered_notadie.onnx"
#: the two crops' sides, in the box's longer side: the die, then its surroundings
DIE = 1.0
CONTEXT = 2.5
#: the side of both crops, pixels
SIDE = 32


class Candidate(Protocol):
    """What the net needs of a candidate: its outline box's centre and size (frame pixels)."""

    @property
    def box_center(self) -> tuple[float, float]: ...
    @property
    def w(self) -> float: ...
    @property
    def h(self) -> float: ...


def cut(image: np.ndarray, center: tuple[float, float], side: float, out: int = SIDE) -> np.ndarray:
    """`out` x `out` BGR crop of the square of `side` px round `center` (edges replicated), working
    on the pixels round it only."""
    r = int(side * 0.75) + 4
    h, w = image.shape[:2]
    x0, y0 = min(max(0, int(center[0]) - r), w - 1), min(max(0, int(center[1]) - r), h - 1)
    roi = image[y0 : max(y0 + 1, int(center[1]) + r + 1), x0 : max(x0 + 1, int(center[0]) + r + 1)]
    return crop_die([roi], (center[0] - x0, center[1] - y0), side, out=out)


def pairs(image: np.ndarray, cands: Sequence[Candidate], side: int = SIDE) -> np.ndarray:
    """N x side x 2*side x 3 uint8: each candidate's die crop beside its context crop (the form the
    training script stores its examples in)."""
    if not cands:
        return np.zeros((0, side, 2 * side, 3), np.uint8)
    out = []
    for c in cands:
        s = max(c.w, c.h, 1.0)
        out.append(
            np.concatenate(
                [cut(image, c.box_center, s * DIE, side), cut(image, c.box_center, s * CONTEXT, side)], 1
            )
        )
    return np.stack(out)


def net_input(pair_crops: np.ndarray) -> np.ndarray:
    """N x 6 x S x S float input of `pairs`' crops: the die crop's channels, then the context's."""
    side = pair_crops.shape[1]
    return np.concatenate([blob(pair_crops[:, :, :side]), blob(pair_crops[:, :, side:])], axis=1)


class NotADieNet:
    """The numbered reader's not-a-die net and its settings (the .json beside the .onnx)."""

    name = "numbered not-a-die net"

    def __init__(self, path: Path, threshold: float | None = None, doubt: float | None = None) -> None:
        meta_path = Path(path).with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            self.threshold = float(meta["threshold"] if threshold is None else threshold)
            self.doubt = float(meta.get("doubt", 0.0) if doubt is None else doubt)
            for key, want in (("die", DIE), ("context", CONTEXT), ("side", SIDE)):
                if float(meta.get(key, want)) != want:
                    raise ValueError(f"{key} {meta[key]} is not this version's {want}")
            for key, v in (("threshold", self.threshold), ("doubt", self.doubt)):
                if not (math.isfinite(v) and 0.0 <= v <= 1.0):
                    raise ValueError(f"{key} {v!r} is not a probability")
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise ValueError(
                f"{meta_path}: expected the numbered not-a-die net's settings (threshold, doubt) as "
                f"training/numbered/notadie.py writes them ({e})"
            ) from None
        self.model = Model(Path(path))

    def score_pairs(self, pair_crops: np.ndarray) -> np.ndarray:
        """P(a numbered die) for each of `pairs`' crops."""
        if not len(pair_crops):
            return np.zeros(0, np.float64)
        z = np.asarray(self.model(net_input(pair_crops)), np.float64).reshape(len(pair_crops))
        return np.asarray(1.0 / (1.0 + np.exp(-z)), np.float64)

    def judge(self, image: np.ndarray, cands: Sequence[Candidate]) -> np.ndarray:
        """P(a numbered die) of each candidate of a BGR uint8 frame."""
        return self.score_pairs(pairs(image, cands))
