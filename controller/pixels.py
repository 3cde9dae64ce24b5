"""The pixels checked before play (issue 43): how large a die is, in pixels, at the board's centre and
corners, in the still the table reads and in the gate's video frame, from the camera's calibration and
the board's pose (`calibration.pose`) and the dice set's sizes (``[dice] sizes_mm``); and one sentence
of warning when a numbered die would be under the numbered reader's minimum (`vision.numbered.ocr`'s
MIN_SIDE: its OCR head reads no smaller die).  ``hw-check`` and the table page's setup view say it."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

log = logging.getLogger(__name__)

#: where on the board the die's size is told
PLACES = ("centre", "top-left corner", "top-right corner", "bottom-right corner", "bottom-left corner")


@dataclass(frozen=True)
class DiePixels:
    """A die's side in pixels at each of PLACES, in an image ``size`` (W, H) wide: ``what`` it is."""

    what: str
    size: tuple[int, int]
    die_mm: float
    sides: dict[str, float]

    @property
    def smallest(self) -> tuple[str, float]:
        place = min(self.sides, key=lambda p: self.sides[p] if math.isfinite(self.sides[p]) else math.inf)
        return place, self.sides[place]

    def line(self) -> str:
        w, h = self.size
        shown = ", ".join(f"{p} {v:.0f}" for p, v in self.sides.items() if math.isfinite(v))
        return f"a {self.die_mm:g} mm die in the {self.what} ({w}x{h}): {shown} px"


def die_sides(
    board: Any, calibration: Any, pose: Any, die_mm: float, size: tuple[int, int]
) -> dict[str, float]:
    """The longer pixel side of a ``die_mm`` die's top face lying flat at the board's centre and at
    each corner of its outline's bounds, in an image ``size`` (W, H) of the calibrated camera seeing
    the board at ``pose``."""
    cal = calibration.for_image(*size)
    x0, y0, x1, y1 = board.bounds()
    m = die_mm  # a die at a corner lies inside the board, its centre a die's edge in
    spots = {
        "centre": ((x0 + x1) / 2, (y0 + y1) / 2),
        "top-left corner": (x0 + m, y0 + m),
        "top-right corner": (x1 - m, y0 + m),
        "bottom-right corner": (x1 - m, y1 - m),
        "bottom-left corner": (x0 + m, y1 - m),
    }
    out: dict[str, float] = {}
    h = die_mm / 2
    for place, (x, y) in spots.items():
        # the top face: the board's z axis points away from the camera, the face at z = -die_mm
        z = -die_mm
        corners = [[x - h, y - h, z], [x + h, y - h, z], [x + h, y + h, z], [x - h, y + h, z]]
        face = np.array(corners, np.float64)
        px, _ = cv2.projectPoints(face, pose.rvec, pose.tvec, cal.camera_matrix, cal.dist_coeffs)
        q = px.reshape(-1, 2)
        out[place] = float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))
    return out


def die_pixels(
    board: Any,
    calibration: Any,
    pose: Any,
    sizes_mm: Sequence[float],
    video: tuple[int, int],
    still: tuple[int, int] | None,
) -> list[DiePixels]:
    """The smallest die of the set in the still (when the camera takes one) and in the video frame."""
    die_mm = float(min(sizes_mm))
    out = []
    if still is not None:
        out.append(DiePixels("still", still, die_mm, die_sides(board, calibration, pose, die_mm, still)))
    out.append(DiePixels("video frame", video, die_mm, die_sides(board, calibration, pose, die_mm, video)))
    return out


def camera_distance_mm(pose: Any) -> float:
    """How far the camera is from the board's origin (mm)."""
    return float(np.linalg.norm(np.asarray(pose.tvec, np.float64)))


def warning(seen: Sequence[DiePixels], numbered: bool, min_side: float, distance_mm: float) -> str | None:
    """One sentence when a numbered die would be under ``min_side`` px where the table reads it (the
    still when it takes one, else the video frame); None when it is not (or the game has none)."""
    if not numbered or not seen:
        return None
    read = seen[0]
    place, side = read.smallest
    if not math.isfinite(side) or side >= min_side:
        return None
    closer = distance_mm * side / min_side / 10.0  # a die's pixels grow as the camera comes closer
    w, h = read.size
    return (
        f"a numbered die would be {side:.0f} px at the board's {place} in the {read.what} ({w}x{h}), under "
        f"the reader's {min_side:.0f} px: move the camera to {closer:.0f} cm, "
        'or set `[camera] still = "max"`'
    )


def table_pixels(
    geometry: Any, image: np.ndarray, still: tuple[int, int] | None, sizes_mm: Sequence[float], numbered: bool
) -> dict[str, Any] | None:
    """What the table page's setup view shows of the pixels (the snapshot's ``pixels``): the smallest
    die's side at the board's centre and corners in the still (``still``: its size, None without one)
    and in the gate's frame ``image``, and the warning (`warning`, with its figures for the page's
    language); None without a board and calibration, or when the board's pose is not in ``image``."""
    from vision.numbered.ocr import MIN_SIDE

    if geometry is None:
        return None
    pose = geometry.pose(image)
    if pose is None:
        return None
    h, w = image.shape[:2]
    seen = die_pixels(geometry.board, geometry.calibration, pose, sizes_mm, (w, h), still)
    distance = camera_distance_mm(pose)
    said = warning(seen, numbered, MIN_SIDE, distance)
    read = seen[0]
    place, side = read.smallest
    return {
        "die_mm": read.die_mm,
        "min_side": MIN_SIDE,
        "views": [
            {"what": p.what, "size": list(p.size), "sides": {k: round(v, 1) for k, v in p.sides.items()}}
            for p in seen
        ],
        "warning": said,
        "small": None
        if said is None
        else {
            "what": read.what,
            "size": list(read.size),
            "side": round(side),
            "place": place,
            "cm": round(distance * side / MIN_SIDE / 10.0),
        },
    }


def see_pixels(table: Any, image: np.ndarray, still: np.ndarray | None) -> None:
    """The die's size in pixels for the table's setup view (`table_pixels`), worked out from the first
    frame read whose board pose is found, and again when the still's size changes (``table.pixels``)."""
    size = None if still is None else (int(still.shape[1]), int(still.shape[0]))
    geometry = table.perceiver.geometry
    if geometry is None or (table.pixels is not None and table._pixels_for == size):
        return
    from calibration.diceset import DiceSet

    numbered = any(k in ("d10", "d10p", "d20") for k in table.perceiver.kinds)
    try:
        from controller.die_sizes import table_sizes_mm

        sizes = DiceSet.of(table_sizes_mm(table.cfg), getattr(geometry.board, "die_size_mm", None)).sizes_mm
        got = table_pixels(geometry, image, size, sizes, numbered)
    except (ValueError, cv2.error) as e:
        log.warning("die size in pixels not worked out: %s", e)
        return
    if got is not None:
        table.pixels, table._pixels_for = got, size
