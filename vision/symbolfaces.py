"""A table's own symbol faces (issue 46 item 3): a d6 face the referee named ("this skull is the 1").

The pip reader asks about a die whose top face is not pips (`vision.pipcheck`); once the referee
names such a face, its crop is kept with the die's roster entry (`controller.roster`), and from then
on a d6 the table would ask about whose top face looks like a named one is read as that face's
value (`NamedFaces`, round the table's reader): its crop matched against every named crop, at each
quarter turn, by normalised correlation of its lightness and colour (Lab); the best match must
reach ``SAME`` and beat the best match of any other value by ``LEAD``, else the die is still asked.

A crop is kept as CROP x CROP BGR (the classifier's box crop, `vision.crops`), in the roster file
as a PNG in base64 (`encode`, `decode`).
"""

from __future__ import annotations

import base64
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crops import CROP, Pyramid, crop_die
from vision.crops import MARGIN as BOX_MARGIN
from vision.oblique import View
from vision.palette import Palette
from vision.reading import DieReading, Examined, Reader
from vision.where import WhereStep

#: the least correlation of a crop with a named face's crop for it to read as that face
SAME = 0.8
#: ... and by how much it must beat the best match of a face of another value
LEAD = 0.1


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
        """(value, correlation) when ``crop`` is a named face (``SAME``, ``LEAD``), else None."""
        m = self.match(crop)
        if m is None or m[1] < SAME or m[2] < LEAD:
            return None
        return m[0], m[1]


def crop_at(pyr: Pyramid, center: Sequence[float], quad: Sequence[Sequence[float]]) -> np.ndarray:
    """The CROP x CROP crop (the classifier's margin) of a die read at ``center`` with top-face
    outline ``quad`` (clockwise), turned so that the outline's sides run along the crop's: what a
    named face is kept as and matched by (quarter turns are `SymbolFaces.match`'s)."""
    q = np.asarray(quad, np.float64).reshape(-1, 2)
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    side = float(max(np.mean(sides), 1.0))
    dx, dy = q[1] - q[0]
    angle = math.degrees(math.atan2(dy, dx))
    return crop_die(pyr, (float(center[0]), float(center[1])), side * BOX_MARGIN, side * BOX_MARGIN, angle)


@dataclass(frozen=True)
class NamedFaces(Reader):
    """A table's reader (``inner``) whose d6 read under ``asked`` (the table would ask) that show a
    named symbol face (``faces``) are read as that face's value, at the match's correlation."""

    inner: Reader
    faces: SymbolFaces
    asked: float = 0.8

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined:
        seen = self.inner.examine(image, palette, where, view)
        if not self.faces.faces:
            return seen
        pyr = Pyramid(image)
        out: list[DieReading] = []
        for r in seen.readings:
            got = None
            if r.kind == "d6" and r.confidence < self.asked:
                got = self.faces.read(crop_at(pyr, r.center, r.quad))
            out.append(r if got is None else dataclasses.replace(r, value=got[0], confidence=got[1]))
        return Examined(out, seen.rejected)
