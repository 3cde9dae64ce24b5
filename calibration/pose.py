"""Board pose per frame from the ArUco markers printed on the board.

Any two markers are enough (8 coplanar corners); a hand over the others is
normal play.  The board frame is the layout's: x right, y down as printed, z
*into* the table, so a point ``h`` mm above the board has ``z = -h``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board import BoardLayout
from calibration.camera import CameraCalibration

#: A calibrated pose whose marker corners now land further than this (px) has moved.
MOVED_THRESHOLD_PX = 3.0


class PoseError(ValueError):
    """The board pose cannot be found in a frame (says which markers were seen)."""


@dataclass(frozen=True)
class BoardPose:
    rvec: NDArray[np.float64] = field(compare=False)
    tvec: NDArray[np.float64] = field(compare=False)
    markers_used: tuple[int, ...] = ()
    reprojection_error: float = 0.0  # RMS px over the marker corners used (max px for "reference")
    source: str = "markers"  # "markers": solved in this frame; "reference": the calibrated pose, confirmed
    #: With a calibrated reference: how far (px) the markers seen lie from where it puts them.
    #: Above MOVED_THRESHOLD_PX the camera or board has moved: tell the players, recalibrate.
    reference_shift_px: float | None = None

    @property
    def moved(self) -> bool:
        return self.reference_shift_px is not None and self.reference_shift_px > MOVED_THRESHOLD_PX

    @property
    def rotation(self) -> NDArray[np.float64]:
        r, _ = cv2.Rodrigues(self.rvec)
        return np.asarray(r, dtype=np.float64)

    def camera_position(self) -> NDArray[np.float64]:
        """Camera centre in board mm (z < 0: above the board)."""
        return np.asarray(-self.rotation.T @ self.tvec.reshape(3), dtype=np.float64)

    def to_json(self, board: str) -> dict[str, Any]:
        return {"board": board, "rvec": self.rvec.ravel().tolist(), "tvec": self.tvec.ravel().tolist()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardPose:
        return cls(np.asarray(data["rvec"], np.float64), np.asarray(data["tvec"], np.float64))

    def project(self, points_mm: NDArray[np.float64], calibration: CameraCalibration) -> NDArray[np.float64]:
        """Board points (n, 3) in mm -> pixels (n, 2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 3)
        k, d = calibration.camera_matrix, calibration.dist_coeffs
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, k, d)
        return np.asarray(px.reshape(-1, 2), np.float64)

    def backproject(
        self, pixels: NDArray[np.float64], height_mm: float, calibration: CameraCalibration
    ) -> NDArray[np.float64]:
        """Pixels (n, 2) -> board (x, y) mm where their rays cross the plane ``height_mm`` above the board."""
        px = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        norm = cv2.undistortPoints(px, calibration.camera_matrix, calibration.dist_coeffs).reshape(-1, 2)
        rays = np.column_stack([norm, np.ones(len(norm))]) @ self.rotation  # = (R^T @ ray^T)^T
        c = self.camera_position()
        lam = (-height_mm - c[2]) / rays[:, 2]
        return np.asarray(c[:2] + lam[:, None] * rays[:, :2], np.float64)


def detect_markers(image_bgr: NDArray[np.uint8], board: BoardLayout) -> dict[int, NDArray[np.float64]]:
    """Marker id -> its 4 corner pixels, for the board's markers seen in a frame."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3):
        raise PoseError(
            f"expected a BGR uint8 image (h, w, 3), got {type(image_bgr).__name__} "
            f"{getattr(image_bgr, 'dtype', '')} {getattr(image_bgr, 'shape', '')}"
        )
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(board.aruco_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, NDArray[np.float64]] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        if board.marker(int(i)) is not None:
            found[int(i)] = np.asarray(c, np.float64).reshape(4, 2)
    return found


def pose_from_markers(
    seen: dict[int, NDArray[np.float64]], calibration: CameraCalibration, board: BoardLayout
) -> BoardPose:
    if len(seen) < 2:
        raise PoseError(
            f"board pose needs at least 2 of the board {board.name!r} markers "
            f"{[m.id for m in board.markers]} in view, saw {sorted(seen)}"
        )
    ids = sorted(seen)
    obj: list[NDArray[np.float64]] = []
    img: list[NDArray[np.float64]] = []
    for i in ids:
        m = board.marker(i)
        assert m is not None
        obj.append(np.column_stack([m.corners(), np.zeros(4)]))
        img.append(seen[i])
    o = np.concatenate(obj)
    p = np.concatenate(img)
    k, d = calibration.camera_matrix, calibration.dist_coeffs
    ok, rvec, tvec = cv2.solvePnP(o, p, k, d, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise PoseError(f"board pose: the markers {ids} do not give a consistent pose")
    rvec, tvec = cv2.solvePnPRefineLM(o, p, k, d, rvec, tvec)
    proj, _ = cv2.projectPoints(o, rvec, tvec, k, d)
    rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - p) ** 2, axis=1))))
    return BoardPose(rvec.reshape(3).astype(np.float64), tvec.reshape(3).astype(np.float64), tuple(ids), rms)


def estimate_board_pose(
    image_bgr: NDArray[np.uint8],
    calibration: CameraCalibration,
    board: BoardLayout,
    reference: BoardPose | None = None,
) -> BoardPose:
    """The board's pose in one frame.

    With a reference pose (``reference``, or the one saved in the calibration
    for this board), the markers seen are checked against it: when they all
    land within :data:`MOVED_THRESHOLD_PX` of where the reference puts them,
    the reference is returned (``source="reference"``): it was solved from
    every marker of the empty board, so it is steadier than a pose from the
    few markers a throw leaves uncovered.  Otherwise (no reference, or the
    board or camera has moved) the pose is solved from this frame's markers,
    any 2 of which are enough; when a reference was there but did not fit,
    the returned pose says so (``moved``, ``reference_shift_px``).
    """
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim not in (2, 3):
        raise PoseError(f"expected a BGR uint8 image (h, w, 3), got {type(image_bgr).__name__}")
    h, w = image_bgr.shape[:2]
    cal = calibration.for_image(w, h)
    seen = detect_markers(image_bgr, board)
    if reference is None and cal.board_pose is not None and cal.board_pose.get("board") == board.name:
        reference = BoardPose.from_json(cal.board_pose)
    if reference is not None and seen:
        shift = _marker_shift(reference, seen, cal, board)
        if shift <= MOVED_THRESHOLD_PX:
            return replace(
                reference,
                markers_used=tuple(sorted(seen)),
                reprojection_error=shift,
                source="reference",
                reference_shift_px=shift,
            )
        return replace(pose_from_markers(seen, cal, board), reference_shift_px=shift)
    return pose_from_markers(seen, cal, board)


def _marker_shift(
    pose: BoardPose, seen: dict[int, NDArray[np.float64]], calibration: CameraCalibration, board: BoardLayout
) -> float:
    """Largest distance (px) between a seen marker corner and where ``pose`` puts it."""
    worst = 0.0
    for i, px in seen.items():
        m = board.marker(i)
        assert m is not None
        proj = pose.project(np.column_stack([m.corners(), np.zeros(4)]), calibration)
        worst = max(worst, float(np.max(np.linalg.norm(proj - px, axis=1))))
    return worst


@dataclass(frozen=True)
class MoveCheck:
    moved: bool
    shift_px: float  # largest displacement of a marker corner between the two poses
    markers: Sequence[int]

    def describe(self) -> str:
        if self.moved:
            return (
                f"camera or board has moved: marker corners shifted by up to {self.shift_px:.1f} px "
                f"(threshold {MOVED_THRESHOLD_PX} px); run `dicetable calibrate camera --pose` again"
            )
        return f"camera and board in place (largest marker shift {self.shift_px:.2f} px)"


def check_moved(
    reference: BoardPose,
    current: BoardPose,
    calibration: CameraCalibration,
    board: BoardLayout,
    threshold_px: float = MOVED_THRESHOLD_PX,
) -> MoveCheck:
    """Compare a frame's pose with the calibrated one by reprojecting every marker corner."""
    corners = np.concatenate([np.column_stack([m.corners(), np.zeros(4)]) for m in board.markers])
    a = reference.project(corners, calibration)
    b = current.project(corners, calibration)
    shift = float(np.max(np.linalg.norm(a - b, axis=1)))
    return MoveCheck(shift > threshold_px, shift, [m.id for m in board.markers])
