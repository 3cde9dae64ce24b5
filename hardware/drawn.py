"""A drawn table: pip d6 seen from above on felt, what the fake camera of ``serve-fake`` shows.

Every drawn die is returned with its true value, centre and top-face corners, so
the fake camera knows what it drew, tests can assert exact readings, and the
trainer (``training/``) can mix drawn scenes with photos.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# Pip positions on a unit face (-1..1), per value.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


@dataclass(frozen=True)
class DrawnDie:
    value: int
    center: tuple[float, float]
    quad: tuple[tuple[float, float], ...]
    size: float


def die_quad(center: tuple[float, float], size: float, angle_deg: float) -> np.ndarray:
    """The four corners of a square face of side `size`, rotated by `angle_deg`."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    h = size / 2
    pts = [(-h, -h), (h, -h), (h, h), (-h, h)]
    return np.array([(center[0] + c * x - s * y, center[1] + s * x + c * y) for x, y in pts], np.float32)


def draw_die(
    img: np.ndarray,
    center: tuple[float, float],
    size: float,
    value: int,
    *,
    angle_deg: float = 0.0,
    body_bgr: tuple[int, ...] = (40, 40, 200),
    pip_bgr: tuple[int, ...] = (245, 245, 245),
    pip_scale: float = 1.0,
    shadow: bool = True,
) -> DrawnDie:
    """Draw one die face in place on `img` (BGR uint8) and return where it is."""
    sh = 4  # sub-pixel bits for anti-aliased drawing
    f = 1 << sh
    quad = die_quad(center, size, angle_deg)
    if shadow:
        off = np.array([size * 0.08, size * 0.10], np.float32)
        sq = quad + off
        x0, y0 = np.maximum(np.floor(sq.min(0)).astype(int) - 2, 0)
        x1, y1 = np.ceil(sq.max(0)).astype(int) + 2
        roi = img[y0:y1, x0:x1]  # only the shadow's neighbourhood: cheap on big frames
        if roi.size:
            shade = roi.copy()
            local = ((sq - np.array([x0, y0], np.float32)) * f).astype(np.int32)
            cv2.fillConvexPoly(shade, local, (0, 0, 0), cv2.LINE_AA, sh)
            cv2.addWeighted(roi, 0.6, shade, 0.4, 0, dst=roi)
    r = max(1.0, size * 0.12)
    inner = die_quad(center, size - 2 * r, angle_deg)
    body = tuple(int(v) for v in body_bgr)
    cv2.fillConvexPoly(img, (inner * f).astype(np.int32), body, cv2.LINE_AA, sh)
    cv2.polylines(img, [(inner * f).astype(np.int32)], True, body, int(2 * r), cv2.LINE_AA, sh)
    for k in range(4):  # rounded corners
        cx, cy = inner[k]
        cv2.circle(img, (int(cx * f), int(cy * f)), int(r * f), body, -1, cv2.LINE_AA, sh)
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    step = size * 0.27
    pr = max(1.0, size * 0.085 * pip_scale)
    for px, py in PIPS[value]:
        x = center[0] + step * (c * px - s * py)
        y = center[1] + step * (s * px + c * py)
        cv2.circle(
            img, (int(x * f), int(y * f)), int(pr * f), tuple(int(v) for v in pip_bgr), -1, cv2.LINE_AA, sh
        )
    return DrawnDie(
        value, (float(center[0]), float(center[1])), tuple((float(x), float(y)) for x, y in quad), size
    )


def felt(
    h: int, w: int, bgr: tuple[int, ...] = (60, 110, 40), rng: np.random.Generator | None = None
) -> np.ndarray:
    """A plain table-felt background with a little texture noise."""
    rng = rng or np.random.default_rng(0)
    img: np.ndarray = np.empty((h, w, 3), np.float32)
    img[:] = bgr
    img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    return np.clip(img, 0, 255).astype(np.uint8)


def random_scene(
    rng: np.random.Generator,
    h: int = 480,
    w: int = 640,
    n: int | None = None,
    size_range: tuple[float, float] = (24, 60),
) -> tuple[np.ndarray, list[DrawnDie]]:
    """A felt table with 1..12 non-overlapping drawn dice of random colours, values and angles."""
    bg = tuple(int(v) for v in rng.integers(20, 235, 3))
    img = felt(h, w, bg, rng)
    n = int(rng.integers(1, 13)) if n is None else n
    dice: list[DrawnDie] = []
    for _ in range(n * 20):
        if len(dice) >= n:
            break
        size = float(rng.uniform(*size_range))
        cx, cy = float(rng.uniform(size, w - size)), float(rng.uniform(size, h - size))
        if any(math.hypot(cx - d.center[0], cy - d.center[1]) < (size + d.size) * 0.75 for d in dice):
            continue
        body = tuple(int(v) for v in rng.integers(0, 256, 3))
        light_pips = sum(body) < 3 * 128
        pip: tuple[int, ...] = (235, 235, 235) if light_pips else (20, 20, 20)
        if rng.random() < 0.3:
            pip = tuple(int(v) for v in rng.integers(0, 256, 3))
            if abs(sum(pip) - sum(body)) < 150:
                pip = (235, 235, 235) if light_pips else (20, 20, 20)
        dice.append(
            draw_die(
                img,
                (cx, cy),
                size,
                int(rng.integers(1, 7)),
                angle_deg=float(rng.uniform(0, 90)),
                body_bgr=body,
                pip_bgr=pip,
                pip_scale=float(rng.uniform(0.8, 1.25)),
            )
        )
    return img, dice
