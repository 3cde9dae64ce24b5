"""A throw read while it settles: the perception step runs on the first still frame, so the frame
that ends the settle wait is scored at once instead of read again (issue 32 item 3).

The motion gate declares a throw at rest only after ``settle_s`` without motion; every frame in
between matched the one before it.  :class:`EarlyRead` keeps the reading of the first still frame
with what it was read for (the rest time, the reading set's number, the game's colours and the dice
scored last) and a small grey copy of the frame; the settled frame takes it when all of that is
the same and the two frames still agree (a die that crept below the gate's noise between them
is read again), else the table reads the settled frame as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

#: the copies compared are this many pixels wide
WIDTH = 160
#: the two frames agree when no 5x5 patch of the copies differs by more than this (grey levels)
MAX_DIFF = 12.0


def _small(image: np.ndarray) -> np.ndarray:
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    k = WIDTH / max(w, 1)
    small = cv2.resize(grey, (WIDTH, max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    return cv2.blur(small.astype(np.float32), (5, 5))


def same_scene(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two frames (their small copies) show the dice where they were."""
    return a.shape == b.shape and float(np.abs(a - b).max()) <= MAX_DIFF


@dataclass
class EarlyRead:
    """The reading of a throw's first still frame, kept for its settled frame."""

    key: Any = None
    small: np.ndarray | None = field(default=None, repr=False)
    seen: Any = None
    #: readings taken from an early read / read again at the settled frame (for the benchmarks)
    used: int = 0
    missed: int = 0

    def wants(self, key: Any) -> bool:
        """Whether a still frame with this key is still to be read early."""
        return bool(key != self.key)

    def keep(self, key: Any, image: np.ndarray, seen: Any) -> None:
        self.key, self.small, self.seen = key, _small(image), seen

    def take(self, key: Any, image: np.ndarray) -> Any:
        """The early reading for the settled ``image``, or None (then read it); taken only once."""
        seen, small, kept = self.seen, self.small, self.key
        self.key, self.small, self.seen = None, None, None
        if seen is None or small is None or kept != key or not same_scene(small, _small(image)):
            if seen is not None:
                self.missed += 1
            return None
        self.used += 1
        return seen

    def forget(self) -> None:
        self.key, self.small, self.seen = None, None, None
