"""Draw top-down frames of d6 dice on a felt table, for recorded demo sessions.

Deliberately simple (no 3D renderer): each die is a top face with rounded
corners and pips, a darker side band pushed away from the image centre as a
camera above the table sees it, and a soft shadow.  Hands and rolling dice
(motion-blurred) make the frames the motion gate has to classify.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

PIP_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.27, 0.24), (0.73, 0.24), (0.27, 0.5), (0.73, 0.5), (0.27, 0.76), (0.73, 0.76)],
}

#: (body BGR, pip BGR) of the dice styles used in the demo sessions
STYLES = {
    "ivory": ((222, 236, 240), (30, 30, 30)),
    "red": ((40, 40, 200), (245, 245, 245)),
    "blue": ((170, 90, 30), (245, 245, 245)),
    "green": ((70, 160, 40), (250, 250, 250)),
    "yellow": ((40, 215, 235), (20, 20, 20)),
    "black": ((35, 35, 35), (240, 240, 240)),
}


@dataclass(frozen=True)
class DrawnDie:
    value: int
    x: float  # centre in pixels
    y: float
    angle: float  # degrees
    style: str = "ivory"
    size: float = 52.0


def felt(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A green felt table with low-frequency texture and a vignette."""
    base = np.zeros((height, width, 3), np.float32)
    base[:] = (70, 110, 45)
    small = rng.normal(0, 1, (height // 16 + 1, width // 16 + 1, 1)).astype(np.float32)
    tex = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)[..., None] * 6
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r = np.hypot((xx - width / 2) / width, (yy - height / 2) / height)
    vignette = (1.0 - 0.35 * r**2)[..., None]
    img = (base + tex) * vignette
    return np.clip(img, 0, 255).astype(np.uint8)


def _face_patch(value: int, size: int, style: str) -> tuple[np.ndarray, np.ndarray]:
    """A die's top face at 4x scale: colour image and alpha mask."""
    body, pip = STYLES[style]
    s = size * 4
    img = np.zeros((s, s, 3), np.uint8)
    mask = np.zeros((s, s), np.uint8)
    r = int(s * 0.17)
    cv2.rectangle(mask, (r, 0), (s - r, s), 255, -1)
    cv2.rectangle(mask, (0, r), (s, s - r), 255, -1)
    for cx, cy in ((r, r), (s - r, r), (r, s - r), (s - r, s - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    img[:] = body
    # a gentle highlight towards the top-left, as from a lamp
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
    shade = (1.08 - 0.16 * (xx + yy) / 2)[..., None]
    img = np.clip(img.astype(np.float32) * shade, 0, 255).astype(np.uint8)
    for px, py in PIP_LAYOUT[value]:
        cv2.circle(img, (int(px * s), int(py * s)), int(s * 0.085), pip, -1, cv2.LINE_AA)
    return img, mask


def draw_die(frame: np.ndarray, die: DrawnDie, blur: float = 0.0) -> None:
    """Draw one die onto ``frame`` in place (shadow, side band, top face)."""
    h, w = frame.shape[:2]
    size = int(die.size)
    face, mask = _face_patch(die.value, size, die.style)
    s4 = face.shape[0]
    # the side band: seen because the camera is above the image centre
    dx, dy = (die.x - w / 2) / w, (die.y - h / 2) / h
    off = np.array([dx, dy]) * size * 0.45
    scale = 0.25
    rot = cv2.getRotationMatrix2D((s4 / 2, s4 / 2), die.angle, 1.0)

    def place(
        patch: np.ndarray, m: np.ndarray, cx: float, cy: float, sc: float
    ) -> tuple[np.ndarray, np.ndarray]:
        a = rot.copy()
        a[:, :2] *= sc
        a[:, 2] = a[:, 2] * sc + (cx - s4 * sc / 2, cy - s4 * sc / 2)
        warped = cv2.warpAffine(patch, a, (w, h), flags=cv2.INTER_AREA)
        wm = cv2.warpAffine(m, a, (w, h), flags=cv2.INTER_AREA)
        return warped, wm

    def blend(img: np.ndarray, m: np.ndarray, strength: float = 1.0) -> None:
        if blur > 0:
            k = max(3, int(blur) | 1)
            kernel = np.zeros((k, k), np.float32)
            kernel[k // 2, :] = 1.0 / k
            img = cv2.filter2D(img, -1, kernel)
            m = cv2.filter2D(m, -1, kernel)
        alpha = (m.astype(np.float32) / 255.0 * strength)[..., None]
        frame[:] = (frame * (1 - alpha) + img * alpha).astype(np.uint8)

    body = np.array(STYLES[die.style][0], np.float32)
    # soft shadow, down-right of the die
    _, sm = place(face, mask, die.x + size * 0.12, die.y + size * 0.16, scale * 1.05)
    sm = cv2.GaussianBlur(sm, (0, 0), size * 0.12)
    blend(np.zeros_like(frame), sm, 0.45)
    # side band: the same outline, darker, pushed outward from the image centre
    side = np.full_like(face, (body * 0.55).astype(np.uint8))
    for k in np.linspace(0.0, 1.0, 5):
        img, m = place(side, mask, die.x + off[0] * k, die.y + off[1] * k, scale)
        blend(img, m)
    img, m = place(face, mask, die.x - off[0] * 0.1, die.y - off[1] * 0.1, scale)
    blend(img, m)


def draw_hand(frame: np.ndarray, reach: float, x: float, rng: np.random.Generator) -> None:
    """An arm and hand entering from the bottom edge; ``reach`` 0..1 of the height."""
    h, w = frame.shape[:2]
    skin = np.array((120, 160, 215), np.float32) * rng.uniform(0.85, 1.1)
    tip_y = h * (1 - reach)
    layer = np.zeros_like(frame)
    mask = np.zeros((h, w), np.uint8)
    pts = np.array(
        [
            [x - w * 0.07, h + 10],
            [x + w * 0.07, h + 10],
            [x + w * 0.05, tip_y + h * 0.08],
            [x - w * 0.05, tip_y + h * 0.08],
        ],
        np.int32,
    )
    cv2.fillConvexPoly(mask, pts, 255)
    cv2.ellipse(mask, (int(x), int(tip_y + h * 0.06)), (int(w * 0.07), int(h * 0.09)), 0, 0, 360, 255, -1)
    for k in range(4):  # fingers
        fx = int(x - w * 0.05 + k * w * 0.033)
        cv2.ellipse(mask, (fx, int(tip_y + h * 0.01)), (int(w * 0.012), int(h * 0.05)), 0, 0, 360, 255, -1)
    layer[:] = skin.astype(np.uint8)
    mask = cv2.GaussianBlur(mask, (5, 5), 0)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    frame[:] = (frame * (1 - alpha) + layer * alpha).astype(np.uint8)


def scatter(
    values: list[int],
    width: int,
    height: int,
    rng: np.random.Generator,
    styles: list[str],
    size: float = 52.0,
    fixed: list[DrawnDie] | None = None,
) -> list[DrawnDie]:
    """Place dice at random, apart from each other and from ``fixed`` dice."""
    placed = list(fixed or [])
    out = []
    margin = size * 1.6
    for v, st in zip(values, styles, strict=True):
        for _ in range(500):
            x = rng.uniform(margin, width - margin)
            y = rng.uniform(margin, height - margin)
            if all(math.hypot(x - d.x, y - d.y) > size * 1.9 for d in placed):
                break
        d = DrawnDie(v, x, y, float(rng.uniform(0, 90)), st, size)
        placed.append(d)
        out.append(d)
    return out


def spread(
    values: list[int],
    styles: list[str],
    rng: np.random.Generator,
    area: tuple[float, float, float, float],
    size: float = 52.0,
    fixed: list[DrawnDie] | None = None,
) -> list[DrawnDie]:
    """Place dice at random on free cells of a jittered grid inside ``area`` (x0, y0, x1, y1).

    Unlike :func:`scatter` it never lets two dice overlap: a grid cell is 1.8
    die sizes wide, and a cell within 1.6 die sizes of a ``fixed`` die is not used.  Raises
    ValueError when the area has too few free cells for the dice.
    """
    x0, y0, x1, y1 = area
    cell = size * 1.8
    cols, rows = int((x1 - x0) // cell), int((y1 - y0) // cell)
    gx, gy = x0 + ((x1 - x0) - cols * cell) / 2, y0 + ((y1 - y0) - rows * cell) / 2
    taken = list(fixed or [])
    free = [
        (gx + (c + 0.5) * cell, gy + (r + 0.5) * cell)
        for r in range(rows)
        for c in range(cols)
        if all(
            math.hypot(gx + (c + 0.5) * cell - d.x, gy + (r + 0.5) * cell - d.y) > size * 1.6 for d in taken
        )
    ]
    if len(free) < len(values):
        raise ValueError(f"{len(values)} dice do not fit: only {len(free)} free places in area {area}")
    order = rng.permutation(len(free))[: len(values)]
    jitter = cell * 0.12
    return [
        DrawnDie(
            v,
            free[i][0] + float(rng.uniform(-jitter, jitter)),
            free[i][1] + float(rng.uniform(-jitter, jitter)),
            float(rng.uniform(0, 90)),
            st,
            size,
        )
        for v, st, i in zip(values, styles, order, strict=True)
    ]


def grouped_by_face(
    dice: list[tuple[int, str]],
    rng: np.random.Generator,
    area: tuple[float, float, float, float],
    size: float = 46.0,
    spacing: float = 1.7,
) -> list[DrawnDie]:
    """Dice sorted by the players into six columns, one per face (1 on the left), colours together.

    A column holds ``rows`` dice one under the other, a finger's width apart
    (``spacing`` die sizes from centre to centre); more dice of one face fill a
    second column beside the first.  Raises ValueError if a face has more dice
    than two columns hold.
    """
    x0, y0, x1, y1 = area
    step = size * spacing
    rows = int((y1 - y0) // step)
    col_w = (x1 - x0) / 6
    out = []
    for face in range(1, 7):
        group = sorted(st for v, st in dice if v == face)
        if len(group) > 2 * rows:
            raise ValueError(f"{len(group)} dice show {face}: at most {2 * rows} fit in its column")
        sub = 1 if len(group) <= rows else 2
        for k, st in enumerate(group):
            c, r = divmod(k, rows)
            cx = x0 + col_w * (face - 0.5) + (c - (sub - 1) / 2) * step
            cy = y0 + step * (r + 0.5)
            out.append(
                DrawnDie(
                    face,
                    cx + float(rng.uniform(-2.5, 2.5)),
                    cy + float(rng.uniform(-2.5, 2.5)),
                    float(rng.uniform(-12, 12)),
                    st,
                    size,
                )
            )
    for i, a in enumerate(out):
        for b in out[i + 1 :]:
            if math.hypot(a.x - b.x, a.y - b.y) < size * 1.2:
                raise ValueError(f"dice showing {a.value} and {b.value} would touch: the area is too narrow")
    return out


def mat(
    width: int, height: int, rng: np.random.Generator, bgr: tuple[int, int, int] = (150, 170, 185)
) -> np.ndarray:
    """A plain play mat of colour ``bgr`` (default a beige canvas) with faint texture and a vignette.

    For dice whose colours the green :func:`felt` would hide (green dice on green cloth).
    """
    base = np.zeros((height, width, 3), np.float32)
    base[:] = bgr
    small = rng.normal(0, 1, (height // 16 + 1, width // 16 + 1, 1)).astype(np.float32)
    tex = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)[..., None] * 5
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    r = np.hypot((xx - width / 2) / width, (yy - height / 2) / height)
    vignette = (1.0 - 0.3 * r**2)[..., None]
    out: np.ndarray = np.clip((base + tex) * vignette, 0, 255).astype(np.uint8)
    return out
