"""The table's light, measured on the board itself: its paper white and its markers' black.

Every printed ArUco marker has a black border one cell wide and a white quiet zone round it
(:mod:`calibration.printing` prints one a sixth of the marker wide; a marker cannot be
detected without it).  With the board's pose, both are found in any frame: they are a grey
card and a black patch that lie on the board plane, lit as the dice's top faces are (the same
plane, the same light).  What they look like tells the camera's white balance and black level
under this light; :class:`vision.palette.GameColours` uses them to name die colours.

Only the markers the pose was solved from are read (a hand or a die may cover others), and
a marker whose white is far darker than the brightest marker's (in shadow, half covered) is
left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board import BoardLayout
from calibration.camera import CameraCalibration
from calibration.pose import BoardPose

#: Samples along each side of a marker, in its quiet zone and in its black border.
SAMPLES_PER_SIDE = 7
#: A marker whose quiet zone is darker than this share of the brightest marker's is left out.
SHADOWED = 0.6


class BoardLightError(ValueError):
    """The board's white and black cannot be read in this frame (says why)."""


@dataclass(frozen=True)
class BoardLight:
    """The board paper's white and the markers' black as this camera sees them (BGR, 0..255)."""

    white_bgr: tuple[float, float, float]
    black_bgr: tuple[float, float, float]
    markers: tuple[int, ...]  # the markers read

    def to_json(self) -> dict[str, object]:
        return {
            "white_bgr": [round(v, 1) for v in self.white_bgr],
            "black_bgr": [round(v, 1) for v in self.black_bgr],
            "markers": list(self.markers),
        }


def ring_points(corners_mm: NDArray[np.float64], inset: float) -> NDArray[np.float64]:
    """Points along the four sides of a marker square, moved ``inset`` (share of its side) outwards
    (positive: into the quiet zone) or inwards (negative: into the black border)."""
    c = corners_mm.mean(axis=0)
    grown = c + (corners_mm - c) * (1.0 + 2.0 * inset)
    t = (np.arange(SAMPLES_PER_SIDE) + 0.5) / SAMPLES_PER_SIDE
    sides = [grown[k] + t[:, None] * (grown[(k + 1) % 4] - grown[k]) for k in range(4)]
    return np.asarray(np.vstack(sides), np.float64)


def _sample(image: NDArray[np.uint8], px: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """BGR of the image at pixel points (3x3 mean each); None when any point is outside the frame."""
    h, w = image.shape[:2]
    ij = np.round(px).astype(int)
    if (ij[:, 0] < 1).any() or (ij[:, 1] < 1).any() or (ij[:, 0] >= w - 1).any() or (ij[:, 1] >= h - 1).any():
        return None
    # each point's 3x3 patch gathered at once (the sum of 9 whole numbers is exact in any order: the
    # same means as one patch at a time, at a tenth of the cost)
    patches = image[ij[:, 1, None] + _DY, ij[:, 0, None] + _DX]  # points x 9 x 3
    return np.asarray(patches.mean(axis=1), np.float64)


#: a 3x3 patch's offsets (rows, columns) round its point
_DY, _DX = (d.ravel()[None, :] for d in np.mgrid[-1:2, -1:2])


def board_light(
    image_bgr: NDArray[np.uint8], pose: BoardPose, calibration: CameraCalibration, board: BoardLayout
) -> BoardLight:
    """The paper white (the markers' quiet zones) and the ink black (their borders) in this frame."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim != 3:
        raise BoardLightError(f"expected a BGR uint8 frame (h, w, 3), got {getattr(image_bgr, 'shape', '?')}")
    cal = calibration.for_image(image_bgr.shape[1], image_bgr.shape[0])
    ids = pose.markers_used or tuple(m.id for m in board.markers)
    whites: list[NDArray[np.float64]] = []
    blacks: list[NDArray[np.float64]] = []
    read: list[int] = []
    for mid in ids:
        m = board.marker(mid)
        if m is None:
            continue
        cells = 1.0 / 6.0  # a 4x4 marker is 6 cells wide with its border; the quiet zone is one more
        w_px = pose.project(_on_board(ring_points(m.corners(), cells / 2)), cal)
        k_px = pose.project(_on_board(ring_points(m.corners(), -cells / 2)), cal)
        w, k = _sample(image_bgr, w_px), _sample(image_bgr, k_px)
        if w is None or k is None:
            continue
        whites.append(np.median(w, axis=0))
        blacks.append(np.median(k, axis=0))
        read.append(mid)
    if not whites:
        raise BoardLightError(f"no marker of board {board.name!r} lies whole in the frame to read its white")
    lum = np.array([float(w.mean()) for w in whites])
    keep = lum >= SHADOWED * lum.max()
    white = np.median(np.array(whites)[keep], axis=0)
    black = np.median(np.array(blacks)[keep], axis=0)
    if float(white.mean() - black.mean()) < 20.0:
        raise BoardLightError(
            f"the markers' white {white.round().tolist()} and black {black.round().tolist()} barely differ: "
            "too dark or washed out to balance colours by"
        )
    return BoardLight(
        (float(white[0]), float(white[1]), float(white[2])),
        (float(black[0]), float(black[1]), float(black[2])),
        tuple(m for m, k in zip(read, keep, strict=True) if k),
    )


def _on_board(points_mm: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.column_stack([points_mm, np.zeros(len(points_mm))])
