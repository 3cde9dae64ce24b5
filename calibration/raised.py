"""Is a die raised on another? Its sides say so, from one frame.

A die whose top face the camera sees at ``quad`` is, at stack level ``L``, a body from the board up
to height ``(L + 1) s``: the frame shows its top face and the sides turned towards the camera, which
reach from the top face towards the point below the camera (the nadir) by a length that grows with
the height.  A die one level up therefore shows a band of sides the same die on the board would not:
the lower die's sides (and its uncovered rim).  Where that band lies, a die at the board's level
leaves the board itself in view.

:func:`raised_share` measures how much of that band the frame shows as something lying on the board
(a mask of where the frame differs from the board's known look, :class:`vision.where.BoardLook`),
leaving out what other dice's own bodies explain.  A band too small to judge (a die near the nadir
shows almost no sides) gives None.  The top face's size says little (3 % larger a level at a
camera 0.75 m up), so the sides are the cue.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraCalibration
from calibration.pose import BoardPose

#: The band a raised die shows must cover at least this share of its top face (in the frame) to judge.
MIN_BAND = 0.2
#: The die's own body left out of the band is taken this many die edges taller than the die.
OWN_MARGIN = 0.3


def body_px(
    quad: NDArray[np.float64], s: float, level: float, pose: BoardPose, calibration: CameraCalibration
) -> NDArray[np.float64]:
    """The frame outline of a stack ``level + 1`` dice tall whose top face is ``quad``: the top face
    and its corners dropped to the board (the convex hull of both)."""
    q = np.asarray(quad, np.float64).reshape(-1, 2)
    top = pose.backproject(q, (level + 1) * s, calibration)
    bottom = pose.project(np.column_stack([top, np.zeros(len(top))]), calibration)
    hull = cv2.convexHull(np.vstack([q, bottom]).astype(np.float32)).reshape(-1, 2)
    return np.asarray(hull, np.float64)


#: a die read whose top face lies this much inside another's outline one level up is seen beneath it
#: (its sides or rim, all the frame shows of it), not a die beside it: its body is not left out
UNDER_SHARE = 0.7


def _within(quad: NDArray[np.float64], outline: NDArray[np.float64]) -> bool:
    """Whether ``quad`` lies (by ``UNDER_SHARE`` of its area) inside ``outline`` (frame pixels)."""
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area <= 0 or not np.isfinite(outline).all():
        return False
    inter, _ = cv2.intersectConvexConvex(
        quad.astype(np.float32), cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
    )
    return float(inter) >= UNDER_SHARE * area


def raised_share(
    quads: Sequence[NDArray[np.float64]],
    sizes: Sequence[float],
    pose: BoardPose,
    calibration: CameraCalibration,
    lying: NDArray[np.bool_],
    frame_size: tuple[int, int],
) -> list[float | None]:
    """For each die (top face ``quads[i]`` in frame pixels, edge ``sizes[i]`` mm): the share of the
    sides only a die one level up would show that ``lying`` (where something lies on the board, a
    bool mask of the ``frame_size`` = (width, height) frame at any scale) marks; None where that band
    is too small to judge or lies off the mask.  Other dice's own bodies (at the board's level) are
    left out of each band, except a die read within the die's outline one level up: what the frame
    shows of a die beneath it (a lower die seen by its sides is read as a die of its colour)."""
    w, h = frame_size
    mh, mw = lying.shape[:2]
    if len(quads) != len(sizes):
        raise ValueError(f"raised_share: {len(quads)} quads but {len(sizes)} sizes")
    if w <= 0 or h <= 0 or mw <= 0 or mh <= 0:
        raise ValueError(f"raised_share: frame {w}x{h} px and mask {mw}x{mh}: expected both non-empty")
    k = np.array([mw / float(w), mh / float(h)])
    scaled = [np.asarray(q, np.float64).reshape(-1, 2) * k for q in quads]
    bodies = [body_px(q, s, 0, pose, calibration) * k for q, s in zip(quads, sizes, strict=True)]
    # the die's own body, a little longer: the reader's box may sit off the top face, and a die's
    # edge blurs; what lies beyond it is a lower die's or the board
    own = [body_px(q, s, OWN_MARGIN, pose, calibration) * k for q, s in zip(quads, sizes, strict=True)]
    out: list[float | None] = []
    for i, (q, s) in enumerate(zip(quads, sizes, strict=True)):
        up = body_px(q, s, 1, pose, calibration) * k
        if not (np.isfinite(up).all() and np.isfinite(own[i]).all()):
            out.append(None)  # a ray that never meets the board's plane: nothing to judge
            continue
        x0, y0 = np.floor(up.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(up.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, mw), min(y1, mh)
        if x1 - x0 < 2 or y1 - y0 < 2:
            out.append(None)
            continue
        shift = np.array([x0, y0], np.float64)

        def fill(
            poly: NDArray[np.float64], into: NDArray[np.uint8], value: int, at: NDArray[np.float64] = shift
        ) -> None:
            cv2.fillPoly(into, [np.round((poly - at) * 4).astype(np.int32)], value, cv2.LINE_8, shift=2)

        band = np.zeros((y1 - y0, x1 - x0), np.uint8)
        fill(up, band, 1)
        fill(own[i], band, 0)
        for j, other in enumerate(bodies):
            if j != i and np.isfinite(other).all() and not _within(scaled[j], up):
                fill(other, band, 0)
        face = abs(cv2.contourArea(scaled[i].astype(np.float32)))
        n = int(band.sum())
        if face <= 0 or n < MIN_BAND * face:
            out.append(None)
            continue
        out.append(float(lying[y0:y1, x0:x1][band > 0].mean()))
    return out


#: the ring round a die :func:`around_share` looks in, in top-face edges beyond its body one level up
AROUND = 0.35


def around_share(
    quads: Sequence[NDArray[np.float64]],
    sizes: Sequence[float],
    pose: BoardPose,
    calibration: CameraCalibration,
    lying: NDArray[np.bool_],
    frame_size: tuple[int, int],
) -> list[float | None]:
    """For each die: what lies in a ring round it (``lying``, where something lies: the empty table's
    change, which tells a die from its shadow) that no die's own body explains, as a share of its top
    face.  The lower die of a stack shows there (its rim, its sides) whichever way the upper die is
    offset, also straight below the camera, where the band of :func:`raised_share` is too small to
    judge; a die alone leaves only the board there.  None where the body does not meet the board."""
    w, h = frame_size
    mh, mw = lying.shape[:2]
    k = np.array([mw / float(w), mh / float(h)])
    own = [body_px(q, s, OWN_MARGIN, pose, calibration) * k for q, s in zip(quads, sizes, strict=True)]
    out: list[float | None] = []
    for i, (q, s) in enumerate(zip(quads, sizes, strict=True)):
        up = body_px(q, s, 1, pose, calibration) * k
        face = abs(cv2.contourArea((np.asarray(q, np.float64).reshape(-1, 2) * k).astype(np.float32)))
        if not (np.isfinite(up).all() and np.isfinite(own[i]).all()) or face <= 0:
            out.append(None)
            continue
        c = up.mean(axis=0)
        reach = max(1e-6, float(np.linalg.norm(up - c, axis=1).mean()))
        ring = c + (up - c) * (1.0 + AROUND * math.sqrt(face) / reach)
        x0, y0 = np.floor(ring.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(ring.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, mw), min(y1, mh)
        if x1 - x0 < 2 or y1 - y0 < 2:
            out.append(None)
            continue
        at = np.array([x0, y0], np.float64)
        band = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(band, [np.round((ring - at) * 4).astype(np.int32)], 1, cv2.LINE_8, shift=2)
        for other in own:
            if np.isfinite(other).all():
                cv2.fillPoly(band, [np.round((other - at) * 4).astype(np.int32)], 0, cv2.LINE_8, shift=2)
        out.append(float(lying[y0:y1, x0:x1][band > 0].sum()) / face)
    return out
