"""A die's top-face crop as a vector for telling a table's own faces apart (`dicetable learn-dice`).

The vector is the numbered classifier's penultimate features (numbered_embedder.onnx: the
classifier cut before its last layer, made by training/numbered/export_embedder.py), unit length,
of the reader's own CROP x CROP crop centred on the top face.  Crops of one face of one die look
alike to it whatever value the classifier would give them.  A numeral lies at any angle: a crop is
embedded at TURNS rotations (`turned`), and two crops are as alike as their best-matching turn.

Chosen on d20_lurig at the table's scale (training/numbered/MODELS.md, issue 20 item 4): the
penultimate features of the reader's crop beat the logits, grey or colour-normalised crops and
larger crops.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.runtime import Model, blob

EMBEDDER_FILE = "numbered_embedder.onnx"
TURNS = 12  # rotations a crop is embedded at (30 degrees apart)
#: the scales a small die is cut at to be matched (times the crop a set learns, `NumberedReader.crops`),
#: side by side with the turns (`at_scales`): the detector frames a small, blurred die's top face a
#: little larger or smaller from roll to roll (issue 44 item 4).  Only the die being read is cut so; a
#: set's stored crops stay as taught (a set on file stays valid).  A die whose box is SMALL_SIDE pixels
#: or more (of the frame as taken) is matched at its one crop, as before.  Chosen on the TRAIN set-ups
#: d20_off-angle and d20_color (benchmarks/learnt_scales.py, benchmarks/RESULTS.md): each crop as a
#: ~60 px die with a 3 px motion blur gives, read by the set alone at MATCH and MARGIN, right 78 -> 90
#: of 103, wrong 6 -> 5 (none trusted), left to the classifier 19 -> 8; at the photos' own pixels (dice
#: 150-400 px) the same scales read 84 -> 81 right, 0 -> 3 wrong: so small dice only.
SCALES = (0.85, 1.0, 1.2)
#: a die's box side (pixels of the frame as taken) under which it is matched at SCALES: the size under
#: which the OCR head does not weigh a learnt die either (`vision.numbered.ocr.MIN_SIDE`)
SMALL_SIDE = 100.0


class Embedder:
    """The embedding net (thread-safe, as `Model`) and its file's digest, which a learnt set records."""

    def __init__(self, path: Path) -> None:
        self._net = Model(path)
        self.digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]

    def embed(self, crops: list[np.ndarray], turns: int = 1) -> np.ndarray:
        """N x turns x D unit vectors of N square BGR uint8 crops, each turned 360/turns degrees
        at a time (turn 0: as given)."""
        if turns < 1:
            raise ValueError(f"turns: expected at least 1 rotation, got {turns!r}")
        if not crops:
            return np.zeros((0, turns, 0), np.float32)
        for i, c in enumerate(crops):
            if c.ndim != 3 or c.shape[2] != 3 or c.dtype != np.uint8 or c.shape[0] != c.shape[1]:
                raise ValueError(
                    f"crops[{i}]: expected a square BGR uint8 crop, got shape {c.shape} {c.dtype}"
                )
        out = [self._net(blob(np.stack([turn(c, 360.0 * t / turns) for c in crops]))) for t in range(turns)]
        e = np.stack(out, 1).astype(np.float32)
        return np.asarray(e / np.maximum(np.linalg.norm(e, axis=2, keepdims=True), 1e-9), np.float32)


def at_scales(
    embedder: Embedder,
    crops_at: Callable[[float], list[np.ndarray]],
    turns: int = TURNS,
    small: Sequence[bool] | None = None,
) -> np.ndarray:
    """N x (len(SCALES) * turns) x D: each of N dice cut at each of SCALES (``crops_at(scale)``: the N
    dice's square crops at that scale), embedded at `turns` turns; the scales lie side by side with
    the turns, so `likeness` takes a die's best scale and turn.  ``small``: which dice are matched at
    SCALES (SMALL_SIDE); the others at their one crop (scale 1, repeated).  None: every die."""
    if 1.0 not in SCALES:
        raise ValueError(f"SCALES: expected the taught crop's scale 1.0 among them, got {SCALES!r}")
    blocks = {s: embedder.embed(crops_at(s), turns) for s in SCALES}
    if small is not None:
        big = ~np.asarray(small, bool)
        for s in SCALES:
            blocks[s][big] = blocks[1.0][big]
    return np.concatenate([blocks[s] for s in SCALES], axis=1)


def turn(crop: np.ndarray, degrees: float) -> np.ndarray:
    """The crop turned about its centre (edges replicated)."""
    if degrees == 0.0:
        return crop
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    return cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def likeness(query: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """Q x S cosine likeness of queries (Q x T x D, at T turns) to stored crops (S x D, as seen):
    each pair at the query's best turn."""
    if not len(query) or not len(stored):
        return np.zeros((len(query), len(stored)), np.float32)
    return np.asarray(np.einsum("qtd,sd->qst", query, stored).max(2), np.float32)
