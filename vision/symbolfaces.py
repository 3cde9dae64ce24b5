"""A table's own symbol faces (issue 46 item 3): a d6 face the referee named ("this skull is the 1").

The pip reader asks about a die whose top face is not pips (`vision.pipcheck`); once the referee
names such a face, its crop is kept with the die's roster entry (`controller.roster`), and from then
on a die asked for the same reason whose top face looks like a named one is read as that face's
value: its crop matched against every named crop, at each quarter turn, by normalised correlation
of the grey face and of its colour; the best match must reach ``SAME`` and beat the best match of
any other value by ``MARGIN``, else the die is still asked.

A crop is kept as CROP x CROP BGR (the classifier's box crop, `vision.crops`), in the roster file
as a PNG in base64 (`encode`, `decode`).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crops import CROP

#: the least correlation of a crop with a named face's crop for it to read as that face
SAME = 0.8
#: ... and by how much it must beat the best match of a face of another value
MARGIN = 0.1


def encode(crop: np.ndarray) -> str:
    """A CROP x CROP BGR crop as base64 PNG text."""
    ok, buf = cv2.imencode(".png", np.ascontiguousarray(crop, np.uint8))
    if not ok:
        raise ValueError("a symbol face's crop could not be encoded")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def decode(text: str, where: str = "crop") -> np.ndarray:
    """The crop of ``encode``'s text; raises ValueError naming ``where`` when it is not one."""
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except (ValueError, UnicodeEncodeError, cv2.error):
        img = None
    if img is None or img.shape != (CROP, CROP, 3):
        raise ValueError(f"{where}: expected a {CROP}x{CROP} colour picture as base64 PNG")
    return np.asarray(img, np.uint8)


def _normalised(crop: np.ndarray) -> np.ndarray:
    """The crop's middle (the face, not the table round it) as a zero-mean unit vector per channel
    (grey, a, b of Lab), its four quarter turns stacked (4 x n)."""
    lab = cv2.cvtColor(np.ascontiguousarray(crop, np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)
    m = CROP // 8
    lab = lab[m : CROP - m, m : CROP - m]
    out = []
    for k in range(4):
        v = np.rot90(lab, k).reshape(-1, 3)
        v = v - v.mean(0)
        v = v / np.maximum(np.linalg.norm(v, axis=0), 1e-3)
        out.append(v.reshape(-1))
    return np.asarray(np.stack(out) / np.sqrt(3.0), np.float32)


@dataclass(frozen=True)
class SymbolFaces:
    """The named symbol faces a reader matches asked dice against: (value, crop) pairs."""

    faces: tuple[tuple[int, np.ndarray], ...] = ()

    @classmethod
    def of(cls, faces: Sequence[tuple[int, np.ndarray]]) -> SymbolFaces:
        return cls(tuple((int(v), np.asarray(c, np.uint8)) for v, c in faces))

    def match(self, crop: np.ndarray) -> tuple[int, float, float] | None:
        """(value, correlation, margin over the best other value) of the named face ``crop`` is
        most like; None when no face is named."""
        if not self.faces:
            return None
        seen = _normalised(crop)[0]
        best: dict[int, float] = {}
        for value, named in self.faces:
            score = float(np.max(_normalised(named) @ seen))
            best[value] = max(best.get(value, -1.0), score)
        value = max(best, key=lambda v: best[v])
        others = [s for v, s in best.items() if v != value]
        return value, best[value], best[value] - (max(others) if others else 0.0)

    def read(self, crop: np.ndarray) -> tuple[int, float] | None:
        """(value, correlation) when ``crop`` is a named face (``SAME``, ``MARGIN``), else None."""
        m = self.match(crop)
        if m is None or m[1] < SAME or m[2] < MARGIN:
            return None
        return m[0], m[1]
