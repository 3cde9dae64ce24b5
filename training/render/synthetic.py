"""A small projective renderer: the printed board and pip dice seen by a pinhole camera.

Used to make scenes with exact ground truth (``tools/render/generate.py``)
and synthetic calibration views in tests.  Conventions are the board's: x
right, y down as printed, z *into* the table (a point h mm above the board has
z = -h).  The camera is ``x_cam = R @ x_board + t``.

Dice are cubes drawn face by face with ``cv2.warpPerspective`` into the frame,
far faces first (painter's order), Lambert-shaded from one light direction,
over soft shadows cast on the board plane.  No lens distortion is rendered
unless :func:`distort_image` is applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraCalibration

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

# Pip positions on a face (-1..1 square), per value.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}

#: Body and pip colours (BGR) of the dice colours the scenes use.
DIE_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "red": ((40, 40, 200), (245, 245, 245)),
    "blue": ((170, 80, 25), (245, 245, 245)),
    "green": ((60, 150, 40), (245, 245, 245)),
    "white": ((232, 232, 228), (25, 25, 25)),
    "black": ((35, 32, 30), (245, 245, 245)),
    "yellow": ((40, 200, 235), (25, 25, 25)),
    "purple": ((140, 45, 110), (245, 245, 245)),
}

# A standard die's faces in its own frame: outward normal -> value (opposites sum to 7).
FACE_NORMALS: dict[int, tuple[int, int, int]] = {
    1: (0, 0, -1),  # local "up" is -z, like the board
    6: (0, 0, 1),
    2: (1, 0, 0),
    5: (-1, 0, 0),
    3: (0, 1, 0),
    4: (0, -1, 0),
}


def look_at(camera_mm: Sequence[float], target_mm: Sequence[float], roll_deg: float = 0.0) -> tuple[F64, F64]:
    """(R, t) of a camera at ``camera_mm`` looking at ``target_mm`` with image x along board x, rolled."""
    c = np.asarray(camera_mm, np.float64)
    z = np.asarray(target_mm, np.float64) - c
    z /= np.linalg.norm(z)
    ex = np.array([1.0, 0.0, 0.0])
    x = ex - np.dot(ex, z) * z
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    a = np.radians(roll_deg)
    x, y = np.cos(a) * x + np.sin(a) * y, -np.sin(a) * x + np.cos(a) * y
    r = np.vstack([x, y, z])
    return r, -r @ c


def project(points: F64, r: F64, t: F64, k: F64) -> F64:
    """Board points (n, 3) -> pixels (n, 2), no distortion."""
    cam = np.asarray(points, np.float64).reshape(-1, 3) @ r.T + t
    uv = cam @ k.T
    return np.asarray(uv[:, :2] / uv[:, 2:3], np.float64)


def plane_homography(r: F64, t: F64, k: F64, px_per_mm: float) -> F64:
    """Homography from a texture of the board plane (``px_per_mm``) to the image.

    Texture pixel ``i`` covers ``[i, i + 1) / px_per_mm`` mm, so its centre is at ``(i + 0.5) / px_per_mm``.
    """
    h = k @ np.column_stack([r[:, 0], r[:, 1], t])
    mm_to_tex = np.array([[px_per_mm, 0, -0.5], [0, px_per_mm, -0.5], [0, 0, 1]])
    return np.asarray(h @ np.linalg.inv(mm_to_tex), np.float64)


def face_texture(value: int, colour: str, size_px: int = 72) -> U8:
    """One die face: body colour, pips, darker rounded rim."""
    body, pip = DIE_COLOURS[colour]
    img = np.zeros((size_px, size_px, 3), np.uint8)
    img[:] = body
    yy, xx = np.mgrid[0:size_px, 0:size_px].astype(np.float64)
    u = np.maximum(np.abs(xx - size_px / 2 + 0.5), np.abs(yy - size_px / 2 + 0.5)) / (size_px / 2)
    rim = np.clip((u - 0.82) / 0.18, 0, 1) ** 1.5
    img = (img * (1.0 - 0.45 * rim)[..., None]).astype(np.uint8)
    r = round(size_px * 0.085)
    for px, py in PIPS[value]:
        cx = round(size_px / 2 + px * size_px * 0.27)
        cy = round(size_px / 2 + py * size_px * 0.27)
        cv2.circle(img, (cx, cy), r, pip, -1, cv2.LINE_AA)
    return np.asarray(img, np.uint8)


def rotation_for_top(value: int, yaw_deg: float) -> F64:
    """Die-to-board rotation with face ``value`` up (board -z) and the die turned by ``yaw_deg``."""
    n = np.asarray(FACE_NORMALS[value], np.float64)
    up = np.array([0.0, 0.0, -1.0])
    v = np.cross(n, up)
    c = float(np.dot(n, up))
    if np.linalg.norm(v) < 1e-9:
        base = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        base = np.eye(3) + vx + vx @ vx / (1 + c)
    a = np.radians(yaw_deg)
    yaw = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    return np.asarray(yaw @ base, np.float64)


def tilt_about_edge(
    rot: F64, centre: F64, size: float, angle_deg: float, edge_dir_deg: float
) -> tuple[F64, F64]:
    """A flat die (``rot``, ``centre``) tipped up by ``angle_deg`` about one of its bottom edges.

    ``edge_dir_deg`` picks which bottom edge stays on the table (0..3 * 90 + yaw).
    """
    # The pivot edge: the bottom edge on the side of the die's local axis nearest the direction.
    a = np.radians(edge_dir_deg)
    outward = np.array([np.cos(a), np.sin(a), 0.0])
    axis = np.cross(outward, np.array([0.0, 0.0, -1.0]))  # horizontal, along the edge
    pivot = centre + outward * size / 2 + np.array([0, 0, size / 2])
    th = np.radians(angle_deg)
    kx = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rt = np.eye(3) + np.sin(th) * kx + (1 - np.cos(th)) * kx @ kx
    return np.asarray(rt @ rot, np.float64), np.asarray(pivot + rt @ (centre - pivot), np.float64)


@dataclass(eq=False)
class Cube:
    """A die placed in the scene: its rotation (die -> board), centre and edge, all mm."""

    value: int
    colour: str
    size: float
    rot: F64
    centre: F64
    extra: dict[str, object] = field(default_factory=dict)

    def vertices(self) -> F64:
        h = self.size / 2
        corners = np.array([[x, y, z] for x in (-h, h) for y in (-h, h) for z in (-h, h)], np.float64)
        return np.asarray(corners @ self.rot.T + self.centre, np.float64)

    def face_corners(self, value: int) -> F64:
        """The 4 corners (board mm) of the face showing ``value``, in texture order."""
        n = np.asarray(FACE_NORMALS[value], np.float64)
        # Texture axes on the face: u, v with u x v = n (any consistent choice).
        helper = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
        u = np.cross(helper, n)
        v = np.cross(n, u)
        h = self.size / 2
        local = [h * (n - u - v), h * (n + u - v), h * (n + u + v), h * (n - u + v)]
        return np.asarray(np.array(local) @ self.rot.T + self.centre, np.float64)

    def face_normal(self, value: int) -> F64:
        return np.asarray(self.rot @ np.asarray(FACE_NORMALS[value], np.float64), np.float64)

    def top_value(self) -> int:
        return max(FACE_NORMALS, key=lambda v: -float(self.face_normal(v)[2]))

    def footprint(self) -> F64:
        """Outline seen from straight above: convex hull of the vertices' (x, y)."""
        xy = self.vertices()[:, :2].astype(np.float32)
        hull = cv2.convexHull(xy).reshape(-1, 2)
        return np.asarray(hull, np.float64)


@dataclass
class Light:
    direction: F64  # unit vector from the scene towards the light (board frame; up is -z)
    ambient: float = 0.45
    diffuse: float = 0.6
    gain: float = 1.0  # overall exposure


def render_scene(
    board_texture: U8,
    px_per_mm: float,
    cubes: Sequence[Cube],
    r: F64,
    t: F64,
    calibration: CameraCalibration,
    light: Light,
    rng: np.random.Generator,
    table_bgr: tuple[int, int, int] = (70, 95, 120),
) -> tuple[U8, NDArray[np.int32]]:
    """The frame (BGR uint8) and a label map (-1 nothing, 100*i + value: face ``value`` of die i)."""
    w, h = calibration.image_size
    k = calibration.camera_matrix
    # Table: a plain surface with a little texture.
    frame = np.empty((h, w, 3), np.float32)
    frame[:] = table_bgr
    grain = rng.normal(0, 6, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
    frame += cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    hmat = plane_homography(r, t, k, px_per_mm)
    board = cv2.warpPerspective(board_texture, hmat, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    bmask = cv2.warpPerspective(np.ones(board_texture.shape[:2], np.float32), hmat, (w, h))
    frame = frame * (1 - bmask[..., None]) + board * bmask[..., None]
    # Illumination: the light's fall-off across the table, and shadows.
    cam = -r.T @ t
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grad = 1.0 + 0.12 * ((xx / w - 0.5) * light.direction[0] + (yy / h - 0.5) * light.direction[1])
    shadow = np.zeros((h, w), np.float32)
    ld = light.direction
    for cube in cubes:
        v = cube.vertices()
        s = v[:, 2] / ld[2]  # slide each vertex away from the light down to z = 0
        ground = v - s[:, None] * ld[None, :]
        hull = cv2.convexHull(ground[:, :2].astype(np.float32)).reshape(-1, 2)
        px = project(np.column_stack([hull, np.zeros(len(hull))]), r, t, k)
        cv2.fillPoly(shadow, [np.round(px * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    blur = max(3, round(w / 250) | 1)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), blur), np.float32)
    frame *= (grad * (1.0 - 0.35 * shadow))[..., None]

    labels = np.full((h, w), -1, np.int32)
    faces: list[tuple[float, int, int]] = []
    for i, cube in enumerate(cubes):
        for value in FACE_NORMALS:
            corners = cube.face_corners(value)
            centre = corners.mean(axis=0)
            if np.dot(centre - cam, cube.face_normal(value)) < 0:  # faces the camera
                faces.append((float(np.linalg.norm(centre - cam)), i, value))
    for _, i, value in sorted(faces, reverse=True):
        cube = cubes[i]
        # a face of its own (a symbol face: training/render/symbols.py), else the pips
        own = cube.extra.get("faces", {})
        tex = own[value] if isinstance(own, dict) and value in own else face_texture(value, cube.colour)
        ts = tex.shape[0]
        quad = project(cube.face_corners(value), r, t, k)
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        src = np.array([[0, 0], [ts, 0], [ts, ts], [0, ts]], np.float32) - 0.5
        m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
        size = (int(x1 - x0), int(y1 - y0))
        patch = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
        mask = cv2.warpPerspective(np.ones((ts, ts), np.float32), m, size, flags=cv2.INTER_LINEAR)
        n = cube.face_normal(value)
        shade = light.ambient + light.diffuse * max(0.0, float(np.dot(n, ld)))
        roi = frame[y0:y1, x0:x1]
        roi[:] = roi * (1 - mask[..., None]) + patch * shade * mask[..., None]
        lab = labels[y0:y1, x0:x1]
        lab[mask > 0.5] = 100 * i + value
    frame *= light.gain
    return np.clip(frame, 0, 255).astype(np.uint8), labels


def finish(frame: U8, rng: np.random.Generator, noise_sigma: float, jpeg_quality: int) -> tuple[U8, bytes]:
    """Sensor noise and JPEG compression, as a camera would deliver the frame."""
    noisy = frame.astype(np.float32) + rng.normal(0, noise_sigma, frame.shape).astype(np.float32)
    out = np.clip(noisy, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return np.asarray(decoded, np.uint8), data


def render_plane(
    texture: U8, px_per_mm: float, r: F64, t: F64, calibration: CameraCalibration, background: int = 90
) -> U8:
    """A flat printed sheet (e.g. a ChArUco board) seen by the camera, with its lens distortion."""
    w, h = calibration.image_size
    hmat = plane_homography(r, t, calibration.camera_matrix, px_per_mm)
    tex = texture if texture.ndim == 3 else cv2.cvtColor(texture, cv2.COLOR_GRAY2BGR)
    img = cv2.warpPerspective(
        tex, hmat, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT, borderValue=(background,) * 3
    )
    return distort_image(np.asarray(img, np.uint8), calibration)


def distort_image(ideal: U8, calibration: CameraCalibration) -> U8:
    """Apply the calibration's lens distortion to an ideal pinhole image."""
    d = calibration.dist_coeffs
    if not np.any(d):
        return ideal
    h, w = ideal.shape[:2]
    k = calibration.camera_matrix
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    pts = np.column_stack([xx.ravel(), yy.ravel()]).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, k, d, P=k).reshape(h, w, 2).astype(np.float32)
    return np.asarray(cv2.remap(ideal, und[..., 0], und[..., 1], cv2.INTER_LINEAR), np.uint8)
