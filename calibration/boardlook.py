"""The empty board as the camera should see it: the layout's print warped through the board's pose.

A board the project prints (:func:`calibration.printing.render_board_image`) is known pixel for
pixel: with the board's pose and the camera, every frame pixel that falls on the board shows a
known point of the print.  :func:`board_in_frame` draws that view at a reduced scale: an image of
the empty board in frame pixels (before the light: the print's own colours) and where it is valid
(inside the board's sheet).  :mod:`vision.where` compares a frame with it to find what lies on the
board (dice, including a white die on the white paper by its shaded sides, pips and shadow).

The print is drawn once per board; the lens's undistortion grid once per camera and size; each
frame costs one small remap.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board import BoardLayout
from calibration.camera import CameraCalibration
from calibration.pose import BoardPose
from calibration.printing import render_board_image

#: Print resolution the view is drawn from (px per mm): a 400 mm board is 1000 px, finer than any
#: frame's view of it at the comparison's scale.
PRINT_PX_PER_MM = 2.5

_lock = threading.Lock()
_prints: dict[int, tuple[BoardLayout, NDArray[np.uint8]]] = {}
_grids: dict[tuple[bytes, bytes, int, int, int, int], tuple[NDArray[np.float32], NDArray[np.float32]]] = {}


def _print(board: BoardLayout) -> NDArray[np.uint8]:
    with _lock:
        hit = _prints.get(id(board))
        if hit is not None and hit[0] is board:
            return hit[1]
    # softened as a camera sees print (its lines are finer than a frame pixel)
    img = np.asarray(cv2.GaussianBlur(render_board_image(board, PRINT_PX_PER_MM), (0, 0), 1.0), np.uint8)
    with _lock:
        if len(_prints) > 8:
            _prints.clear()
        _prints[id(board)] = (board, img)
    return img


def _grid(
    calibration: CameraCalibration, width: int, height: int, sw: int, sh: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Undistorted normalised camera coordinates (x and y planes, sh x sw) of the centres of an
    sw x sh view of a width x height frame."""
    k = np.asarray(calibration.camera_matrix, np.float64)
    d = np.asarray(calibration.dist_coeffs, np.float64).reshape(-1)
    key = (k.tobytes(), d.tobytes(), width, height, sw, sh)
    with _lock:
        hit = _grids.get(key)
    if hit is not None:
        return hit
    xs = (np.arange(sw) + 0.5) * (width / sw) - 0.5
    ys = (np.arange(sh) + 0.5) * (height / sh) - 0.5
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx, gy], -1).reshape(-1, 1, 2)
    if np.any(d != 0):
        norm = cv2.undistortPoints(pts, k, d).reshape(sh, sw, 2)
    else:
        norm = np.stack([(gx - k[0, 2]) / k[0, 0], (gy - k[1, 2]) / k[1, 1]], -1)
    with _lock:
        if len(_grids) > 8:
            _grids.clear()
        _grids[key] = (
            np.ascontiguousarray(norm[..., 0], np.float32),
            np.ascontiguousarray(norm[..., 1], np.float32),
        )
    return _grids[key]


def board_in_frame(
    board: BoardLayout,
    pose: BoardPose,
    calibration: CameraCalibration,
    width: int,
    height: int,
    view_width: int = 640,
) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """The printed board as a ``width`` x ``height`` frame would show it through ``pose``, drawn
    ``view_width`` pixels wide (never wider than the frame): (BGR view, where it lies on the sheet).

    Raises ValueError naming what is wrong when the frame size or the pose cannot give a view."""
    if width < 8 or height < 8:
        raise ValueError(f"frame size: expected at least 8x8 pixels, got {width}x{height}")
    cal = calibration.for_image(width, height)
    s = min(1.0, view_width / float(width))
    sw, sh = max(1, round(width * s)), max(1, round(height * s))
    norm = _grid(cal, width, height, sw, sh)
    r = pose.rotation
    t = np.asarray(pose.tvec, np.float64).reshape(3)
    plane = np.column_stack([r[:, 0], r[:, 1], t])  # board (x, y, 1) -> camera ray (up to scale)
    if abs(np.linalg.det(plane)) < 1e-12:
        raise ValueError("board pose: the camera looks along the board's plane; no view of it")
    inv = np.linalg.inv(plane).astype(np.float32)
    nx, ny = norm[0], norm[1]
    rx, ry, z = (inv[i, 0] * nx + inv[i, 1] * ny + inv[i, 2] for i in range(3))
    front = z > 0  # inv(plane) @ (x, y, 1) = (X, Y, 1) / depth: the board lies in front of the camera
    z = np.where(front, z, np.float32(1.0))
    mx = rx / z * np.float32(PRINT_PX_PER_MM)
    my = ry / z * np.float32(PRINT_PX_PER_MM)
    paper = _print(board)
    ph, pw = paper.shape[:2]
    valid = front & (mx >= 0) & (my >= 0) & (mx <= pw - 1) & (my <= ph - 1)
    mx[~valid] = -1.0
    my[~valid] = -1.0
    view = cv2.remap(paper, mx, my, cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    return np.asarray(view, np.uint8), np.asarray(valid, bool)
