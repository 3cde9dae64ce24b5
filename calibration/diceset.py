"""The dice set a table plays with: the edge of each die size in play, and which one a die seen is.

Die sizes belong to the dice set (``[dice] sizes_mm`` in ``table.toml``), not to the board: one
printed board serves 14, 16 and 19 mm dice, and a table may mix them.  A board file that still
says ``[die] size_mm`` keeps working: its size is the dice set's when the table names none, with a
deprecation note (:data:`calibration.board.BoardLayout.notes`).

With several sizes in play, each die's size is told from its top face in the frame: a flat die
of edge ``s`` has its top face at height ``s``, and back-projected onto that plane through the
board pose the face is ``s`` wide only for the right ``s`` (the sizes 14/16/19 mm differ by
13-19 %; a reader's face outline is good to a few per cent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration import polygons as pg
from calibration.camera import CameraCalibration
from calibration.pose import BoardPose

#: The edge (mm) of the dice most tables play with, when neither the table nor the board says.
DEFAULT_SIZE_MM = 16.0
#: Die edges a dice set may have (mm).
MIN_SIZE_MM, MAX_SIZE_MM = 5.0, 60.0


class DiceSetError(ValueError):
    """A dice set that cannot be used (names the value and what was expected)."""


def check_sizes(sizes: Any, where: str = "die sizes") -> tuple[float, ...]:
    """Validated die edges (mm): one or more distinct numbers between 5 and 60."""
    items = list(sizes) if isinstance(sizes, list | tuple) else [sizes]
    if not items:
        raise DiceSetError(f"{where}: expected one or more die edges in mm (e.g. [16]), got {sizes!r}")
    out: list[float] = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
            raise DiceSetError(f"{where}: expected die edges in mm (numbers), got {v!r} in {sizes!r}")
        if not MIN_SIZE_MM <= v <= MAX_SIZE_MM:
            raise DiceSetError(
                f"{where}: expected die edges between {MIN_SIZE_MM:g} and {MAX_SIZE_MM:g} mm, got {v!r}"
            )
        if float(v) in out:
            raise DiceSetError(f"{where}: the size {v!r} mm is listed twice in {sizes!r}")
        out.append(float(v))
    return tuple(out)


@dataclass(frozen=True)
class DiceSet:
    """The die sizes (edges, mm) in play at a table."""

    sizes_mm: tuple[float, ...] = (DEFAULT_SIZE_MM,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes_mm", check_sizes(self.sizes_mm))

    @classmethod
    def of(cls, sizes: float | Sequence[float] | DiceSet | None, board_size_mm: float | None) -> DiceSet:
        """The dice set named by ``sizes``; else the board file's deprecated size; else 16 mm."""
        if isinstance(sizes, DiceSet):
            return sizes
        if sizes is None:
            return cls((board_size_mm or DEFAULT_SIZE_MM,))
        return cls(tuple(sizes) if isinstance(sizes, Sequence) else (float(sizes),))

    @property
    def largest(self) -> float:
        return max(self.sizes_mm)

    def size_of(self, top_face_px: Any, pose: BoardPose, calibration: CameraCalibration) -> float:
        """The size in the set whose flat die shows a top face like ``top_face_px`` (4 pixel corners).

        Each size ``s`` puts the face at height ``s``; the face back-projected there is ``s`` wide
        only for the right size.  The size with the smallest relative misfit wins.
        """
        if len(self.sizes_mm) == 1:
            return self.sizes_mm[0]
        quad = np.asarray(top_face_px, np.float64)
        misfit = [
            abs(np.sqrt(pg.area(pose.backproject(quad, s, calibration))) / s - 1.0) for s in self.sizes_mm
        ]
        return self.sizes_mm[int(np.argmin(misfit))]
