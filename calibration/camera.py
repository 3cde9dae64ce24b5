"""Camera intrinsics: load, save, validate, and calibrate from ChArUco views.

A calibration file is JSON::

    {"camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist_coeffs": [k1, k2, p1, p2, k3],
     "image_size": [width, height],
     "reprojection_error": 0.31,              # RMS px of the calibration
     "board_pose": {"board": "dice-fighter",  # optional: the pose at calibration,
                    "rvec": [...], "tvec": [...]}}   # to detect a moved camera/board
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

# Raspberry Pi Camera Module 3 (IMX708): 4608 x 2592 at 1.4 um, f = 4.74 mm.
PI_CAM3_SENSOR_PX = (4608, 2592)
PI_CAM3_PIXEL_UM = 1.4
PI_CAM3_FOCAL_MM = 4.74


class CalibrationError(ValueError):
    """A calibration file or calibration input that cannot be used (names the file and field)."""


@dataclass(frozen=True)
class CameraCalibration:
    camera_matrix: NDArray[np.float64] = field(compare=False)
    dist_coeffs: NDArray[np.float64] = field(compare=False)
    image_size: tuple[int, int]  # (width, height)
    reprojection_error: float = 0.0
    board_pose: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.ravel().tolist(),
            "image_size": list(self.image_size),
            "reprojection_error": self.reprojection_error,
        }
        if self.board_pose is not None:
            out["board_pose"] = self.board_pose
        return out

    def for_image(self, width: int, height: int) -> CameraCalibration:
        """These intrinsics for frames of another size with the same aspect (scaled)."""
        w0, h0 = self.image_size
        if (width, height) == (w0, h0):
            return self
        if abs(width / height - w0 / h0) > 1e-3:
            raise CalibrationError(
                f"frame is {width}x{height} but the camera was calibrated at {w0}x{h0} "
                "(a different aspect ratio): recalibrate at this frame size"
            )
        s = width / w0
        k = self.camera_matrix.copy()
        k[:2] *= s
        return replace(self, camera_matrix=k, image_size=(width, height))


def pi_camera3_calibration(width: int = 1280, height: int = 960) -> CameraCalibration:
    """Ideal (distortion-free) intrinsics of a Pi Camera Module 3 at an output size.

    The sensor is 4608x2592 (16:9).  A 4:3 output uses the central
    2592*4/3 = 3456 x 2592 crop, scaled to the output: at 1280x960 the scale is
    1280/3456, so the effective pixel is 1.4 um * 3456/1280 = 3.78 um and
    fx = fy = 4.74 mm / 3.78 um = 1254.0 px, with cx, cy at the image centre.
    Other aspects crop the sensor's width or height the same way.
    """
    sw, sh = PI_CAM3_SENSOR_PX
    if width / height <= sw / sh:
        crop_w = sh * width / height
        scale = width / crop_w
    else:
        crop_h = sw * height / width
        scale = height / crop_h
    f_px = PI_CAM3_FOCAL_MM / (PI_CAM3_PIXEL_UM * 1e-3) * scale
    k = np.array([[f_px, 0, width / 2.0], [0, f_px, height / 2.0], [0, 0, 1]], dtype=np.float64)
    return CameraCalibration(k, np.zeros(5), (width, height), 0.0)


def _fail(src: str, fld: str, why: str) -> CalibrationError:
    return CalibrationError(f"{src}: field {fld!r}: {why}")


def parse_calibration(data: Any, src: str = "<calibration>") -> CameraCalibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"{src}: expected a JSON object, got {type(data).__name__}")
    for key in ("camera_matrix", "dist_coeffs", "image_size"):
        if key not in data:
            raise _fail(src, key, "missing")
    try:
        k = np.asarray(data["camera_matrix"], dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(src, "camera_matrix", "expected a 3x3 array of numbers") from None
    if k.shape != (3, 3) or not np.all(np.isfinite(k)):
        raise _fail(src, "camera_matrix", f"expected a 3x3 array of finite numbers, got shape {k.shape}")
    if k[0, 0] <= 0 or k[1, 1] <= 0 or not np.allclose(k[2], [0, 0, 1]) or k[1, 0] != 0:
        raise _fail(src, "camera_matrix", "expected [[fx, s, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0")
    try:
        d = np.asarray(data["dist_coeffs"], dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise _fail(src, "dist_coeffs", "expected a list of numbers") from None
    if d.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(d)):
        raise _fail(src, "dist_coeffs", f"expected 4, 5, 8, 12 or 14 finite numbers, got {d.size}")
    size = data["image_size"]
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise _fail(src, "image_size", f"expected [width, height] as positive ints, got {size!r}")
    w, h = size
    if not (0 < k[0, 2] < w and 0 < k[1, 2] < h):
        raise _fail(src, "camera_matrix", f"principal point ({k[0, 2]}, {k[1, 2]}) is outside {w}x{h}")
    err = data.get("reprojection_error", 0.0)
    if isinstance(err, bool) or not isinstance(err, int | float) or not math.isfinite(err) or err < 0:
        raise _fail(src, "reprojection_error", f"expected a number >= 0 (px), got {err!r}")
    pose = data.get("board_pose")
    if pose is not None:
        if not isinstance(pose, dict) or not isinstance(pose.get("board"), str):
            raise _fail(src, "board_pose", "expected {'board': name, 'rvec': [3], 'tvec': [3]}")
        for key in ("rvec", "tvec"):
            v = np.asarray(pose.get(key, []), dtype=np.float64) if isinstance(pose.get(key), list) else None
            if v is None or v.shape != (3,) or not np.all(np.isfinite(v)):
                raise _fail(src, f"board_pose.{key}", f"expected 3 numbers, got {pose.get(key)!r}")
    return CameraCalibration(k, d, (w, h), float(err), pose)


def load_calibration(path: str | Path) -> CameraCalibration:
    src = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise CalibrationError(f"{src}: cannot read the calibration file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{src}: not valid JSON (not UTF-8 text; is it an image?)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{src}: not valid JSON ({e.msg} at line {e.lineno})") from None
    return parse_calibration(data, src)


def save_calibration(calibration: CameraCalibration, path: str | Path) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(calibration.to_json(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(p)


# --- ChArUco calibration -------------------------------------------------------------


@dataclass(frozen=True)
class CharucoSpec:
    """A printed ChArUco board: squares_x by squares_y chessboard squares, lengths in mm."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_4X4_50"

    def board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm, d)

    def image(self, px_per_mm: float = 4.0, margin_mm: float = 10.0) -> NDArray[np.uint8]:
        w = round((self.squares_x * self.square_mm + 2 * margin_mm) * px_per_mm)
        h = round((self.squares_y * self.square_mm + 2 * margin_mm) * px_per_mm)
        img = self.board().generateImage((w, h), marginSize=round(margin_mm * px_per_mm))
        return np.asarray(img, dtype=np.uint8)


@dataclass(frozen=True)
class CharucoResult:
    calibration: CameraCalibration
    views_used: int
    views_rejected: list[str]


def calibrate_charuco(
    images: Sequence[tuple[str, NDArray[np.uint8]]], spec: CharucoSpec | None = None, min_corners: int = 8
) -> CharucoResult:
    """Intrinsics and distortion from named BGR/grey views of a ChArUco board.

    Views with fewer than ``min_corners`` detected chessboard corners are
    rejected (named in the result).  Needs at least 3 usable views of one size.
    """
    spec = spec or CharucoSpec()
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts: list[NDArray[np.float32]] = []
    img_pts: list[NDArray[np.float32]] = []
    rejected: list[str] = []
    size: tuple[int, int] | None = None
    for name, img in images:
        if img is None or img.ndim not in (2, 3) or img.dtype != np.uint8:
            raise CalibrationError(f"{name}: expected an 8-bit image, got {getattr(img, 'dtype', None)}")
        h, w = img.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(f"{name}: view is {w}x{h} but earlier views are {size[0]}x{size[1]}")
        grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < min_corners:
            rejected.append(name)
            continue
        op, ip = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        obj_pts.append(op.astype(np.float32))
        img_pts.append(ip.astype(np.float32))
    if size is None or len(obj_pts) < 3:
        raise CalibrationError(
            f"need at least 3 views showing {min_corners}+ ChArUco corners of a "
            f"{spec.squares_x}x{spec.squares_y} {spec.dictionary} board; usable: {len(obj_pts)}, "
            f"rejected: {rejected}"
        )
    rms, k, d, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    cal = CameraCalibration(np.asarray(k, np.float64), np.asarray(d, np.float64).ravel(), size, float(rms))
    return CharucoResult(cal, len(obj_pts), rejected)
