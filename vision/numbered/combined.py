"""One list of dice from the pip-d6 reader and the numbered reader run on the same frame.

The d6 reader (vision.reader) was trained on real photos of pip dice and stays the
authority on d6; it has never seen a d10 or d20, so where the numbered reader finds
a numbered die, a d6 reading on the same spot is that die misread and is dropped.
A d6 only the numbered reader found is kept too.

Not wired into `vision.read_dice` yet, on purpose: the numbered networks were trained on
rendered dice only, and on the real d6 photos (shared/fixtures/real/byler_d6, first 40)
they call 282 of 427 dice d10, d10p or d20.  Merging would then replace right d6 readings.
"""

from __future__ import annotations

import math

import numpy as np

from vision.palette import Palette
from vision.reading import DieReading


def _size(r: DieReading) -> float:
    q = np.asarray(r.quad, np.float64)
    return float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1]), 1.0))


def _near(a: DieReading, b: DieReading) -> bool:
    return math.dist(a.center, b.center) < 0.5 * max(_size(a), _size(b))


def merge(d6: list[DieReading], numbered: list[DieReading]) -> list[DieReading]:
    """d6 readings, plus numbered ones; a d6 reading on a numbered die gives way."""
    others = [r for r in numbered if r.kind != "d6"]
    out = [r for r in d6 if not any(_near(r, o) for o in others)]
    out += others
    out += [r for r in numbered if r.kind == "d6" and not any(_near(r, o) for o in out)]
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def read_all(image_bgr: np.ndarray, palette: Palette | None = None) -> list[DieReading]:
    """Every die in a BGR uint8 frame, d6 and numbered (kind d6, d10, d10p or d20)."""
    from vision.numbered.reader import default_reader as numbered_reader
    from vision.reader import default_reader as d6_reader

    return merge(d6_reader().read(image_bgr, palette), numbered_reader().read(image_bgr, palette))
