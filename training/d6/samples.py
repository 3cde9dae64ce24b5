"""Training examples for the d6 reader: detector patches and classifier crops (numpy and OpenCV only).

Kept apart from ``train_d6`` (which needs torch, a training-only dependency) so that what the
networks are taught can be tested where torch is not installed.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from hardware import drawn as synth
from vision.crops import MARGIN, Pyramid, crop_die

PATCH = 160
STRIDE = 4
RENDERED_SHARE = 0.3  # of the labelled dice the classifier sees, the share from the project's renders
HIDDEN_SHARE = 0.2  # of those rendered dice, the share of partly hidden ones (when they are taught)
UNKNOWN = -1  # classifier label: a die whose value cannot be seen (taught as equally likely 1..6)


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour, light, blur and noise changes a die's value must survive."""
    x: np.ndarray = img.astype(np.float32)
    if rng.random() < 0.5:
        x = x[..., rng.permutation(3)]
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(np.clip(x, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.int16)
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.4), 0, 255)
        x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    x = x * rng.uniform(0.6, 1.4) + rng.uniform(-40, 40)
    x = x * rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.1:
        x = 255 - x
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 10), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def det_sample(
    src: list[tuple[np.ndarray, list[tuple[float, float, float, float]]]],
    rng: np.random.Generator,
    focus: list[tuple[np.ndarray, list[tuple[float, float, float, float]], Any]] | None = None,
    focus_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """A PATCH x PATCH training patch and its target (5, P/4, P/4): heat, log w, log h, mask, weight.

    `focus` lists (image, its boxes, one of them) of dice to centre a `focus_share` of the patches on
    (the partly hidden dice: few, and harder than the rest)."""
    on: tuple[float, float, float, float] | None = None
    if focus and rng.random() < focus_share:
        img, boxes, on = focus[int(rng.integers(len(focus)))]
    elif rng.random() < 0.3:
        img, drawn = synth.random_scene(rng, 240, 320, size_range=(10, 40))
        boxes = []
        for d in drawn:
            q = np.array(d.quad)
            boxes.append((q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()))
    else:
        img, boxes = src[int(rng.integers(len(src)))]
    sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [40.0]
    target = math.exp(rng.uniform(math.log(9), math.log(50)))
    k = target / float(np.median(sizes))
    rot = int(rng.integers(4))
    h, w = img.shape[:2]
    ang = rot * 90 + rng.uniform(-8, 8)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, k)
    # Random placement: pick a die (or any point) to land somewhere in the patch.
    if on is not None:
        p = np.array([(on[0] + on[2]) / 2, (on[1] + on[3]) / 2, 1.0])
    elif boxes and rng.random() < 0.85:
        b = boxes[int(rng.integers(len(boxes)))]
        p = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 1.0])
    else:
        p = np.array([rng.uniform(0, w), rng.uniform(0, h), 1.0])
    q = m @ p
    m[:, 2] += np.array([rng.uniform(20, PATCH - 20), rng.uniform(20, PATCH - 20)]) - q
    fill = tuple(float(v) for v in img[::17, ::17].reshape(-1, 3).mean(0))
    patch = cv2.warpAffine(
        img,
        m,
        (PATCH, PATCH),
        flags=cv2.INTER_AREA if k < 0.7 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    patch = photometric(patch, rng)
    g = PATCH // STRIDE
    tgt = np.zeros((5, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for b in boxes:
        c = m @ np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 1.0])
        bw, bh = (b[2] - b[0]) * k, (b[3] - b[1]) * k
        if rot % 2:
            bw, bh = bh, bw
        cx, cy = c[0] / STRIDE - 0.5, c[1] / STRIDE - 0.5
        if not (-1 <= cx <= g and -1 <= cy <= g):
            continue
        for x, y, centre in splat(tgt, xx, yy, cx, cy, bw, bh):
            tgt[3, y, x] = 1.0 if centre else 0.5
    return patch, tgt


def splat(
    tgt: np.ndarray, xx: np.ndarray, yy: np.ndarray, cx: float, cy: float, bw: float, bh: float
) -> list[tuple[int, int, bool]]:
    """Draw one die into a CenterNet target: a Gaussian peak at cell (cx, cy) in ``tgt[0]`` (1 at its
    own cell) and log(box size / STRIDE) in ``tgt[1]``, ``tgt[2]`` over the 3x3 cells around it.

    Returns those cells as (x, y, is the centre cell), for the caller's own channels."""
    g = tgt.shape[-1]
    sig = max(0.6, min(bw, bh) / STRIDE / 5)
    tgt[0] = np.maximum(tgt[0], np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sig * sig)))
    ix, iy = round(cx), round(cy)
    cells = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            x, y = ix + dx, iy + dy
            if 0 <= x < g and 0 <= y < g:
                tgt[1, y, x] = math.log(max(bw, 1) / STRIDE)
                tgt[2, y, x] = math.log(max(bh, 1) / STRIDE)
                cells.append((x, y, dx == dy == 0))
    if 0 <= ix < g and 0 <= iy < g:
        tgt[0, iy, ix] = 1.0
    return cells


def clutter(rng: np.random.Generator, size: float) -> tuple[np.ndarray, tuple[float, float]]:
    """Things on a game board that are not dice: ArUco markers, printed multipliers, grid lines.

    Returns an image and a point on the clutter to centre a crop of side about `size` on.
    """
    n = int(size * 4)
    bg = tuple(int(v) for v in rng.integers(120, 256, 3))
    img: np.ndarray = np.empty((n, n, 3), np.uint8)
    img[:] = bg
    kind = rng.random()
    if kind < 0.5:
        d = cv2.aruco.getPredefinedDictionary(
            [cv2.aruco.DICT_4X4_50, cv2.aruco.DICT_5X5_50, cv2.aruco.DICT_6X6_50][int(rng.integers(3))]
        )
        side = int(size * rng.uniform(0.8, 2.5))
        m = cv2.aruco.generateImageMarker(d, int(rng.integers(50)), side, borderBits=1)
        m = cv2.copyMakeBorder(m, side // 8, side // 8, side // 8, side // 8, cv2.BORDER_CONSTANT, value=255)
        m3 = cv2.cvtColor(m, cv2.COLOR_GRAY2BGR)
        h = m3.shape[0]
        o = (n - h) // 2
        img[o : o + h, o : o + h] = m3
        rot = cv2.getRotationMatrix2D((n / 2, n / 2), rng.uniform(0, 360), 1.0)
        img = cv2.warpAffine(img, rot, (n, n), borderMode=cv2.BORDER_CONSTANT, borderValue=bg)
        spot = (n / 2 + rng.uniform(-0.5, 0.5) * h, n / 2 + rng.uniform(-0.5, 0.5) * h)
    else:
        for _ in range(int(rng.integers(1, 4))):  # zone grid lines and cells
            x = int(rng.integers(0, n))
            col = tuple(int(v) for v in rng.integers(0, 256, 3))
            cv2.line(img, (x, 0), (x, n), col, int(rng.integers(1, 4)))
            cv2.line(img, (0, x), (n, x), col, int(rng.integers(1, 4)))
        text = ["x2", "x3", "x4", "x6", "x8", "1", "2", "3", "4", "5", "6", "A", "B"][int(rng.integers(13))]
        scale = size / 40 * rng.uniform(0.6, 1.6)
        col = tuple(int(v) for v in rng.integers(0, 120, 3))
        cv2.putText(
            img,
            text,
            (int(n * 0.4), int(n * 0.6)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            col,
            max(1, int(scale * 2)),
        )
        spot = (n * 0.45 + rng.uniform(-0.2, 0.2) * size, n * 0.55 + rng.uniform(-0.2, 0.2) * size)
    return img, spot


def cls_sample(
    dice: list[tuple[Pyramid, tuple[float, float, float, float], int]],
    crops: list[tuple[Pyramid, int]],
    negs: list[tuple[Pyramid, list[tuple[float, float, float, float]]]],
    rng: np.random.Generator,
    hard: list[tuple[int, tuple[float, float], float, float]] | None = None,
    rendered: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
    hidden: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
    tops: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
) -> tuple[np.ndarray, int]:
    """A training crop and its label: 0 not a die, 1..6 a value, UNKNOWN a die whose value is hidden."""
    r = rng.random()
    ang = rng.uniform(0, 360)
    j = rng.uniform(0.85, 1.18)
    if r < 0.55:
        # a labelled die: a real photo's, or (when there are rendered ones) a rendered scene's;
        # a partly hidden rendered die (the crop of its whole top face shows mostly the die on it)
        # is taught as a die of unknown value
        pool = rendered if rendered and rng.random() < RENDERED_SHARE else dice
        if pool is rendered and hidden and rng.random() < HIDDEN_SHARE:
            if tops and rng.random() < 0.5:  # as often, a die on top of a hidden one: its own value
                pyr, b, label = tops[int(rng.integers(len(tops)))]
            else:
                pyr, b, _ = hidden[int(rng.integers(len(hidden)))]
                label = UNKNOWN
        else:
            pyr, b, label = pool[int(rng.integers(len(pool)))]
        bw, bh = b[2] - b[0], b[3] - b[1]
        s = max(bw, bh)
        c = ((b[0] + b[2]) / 2 + rng.normal(0, 0.06 * s), (b[1] + b[3]) / 2 + rng.normal(0, 0.06 * s))
        crop = crop_die(pyr, c, bw * MARGIN * j * rng.uniform(0.93, 1.07), bh * MARGIN * j, ang)
    elif r < 0.70:
        pyr, label = crops[int(rng.integers(len(crops)))]
        h, w = pyr.levels[0].shape[:2]
        c = (w / 2 + rng.normal(0, 0.04 * w), h / 2 + rng.normal(0, 0.04 * h))
        a = rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-20, 20)
        crop = crop_die(pyr, c, w * j, h * j, a)
    elif r < 0.78:
        size = rng.uniform(22, 70)
        img = synth.felt(int(size * 3), int(size * 3), tuple(int(v) for v in rng.integers(0, 256, 3)), rng)
        for _ in range(int(rng.integers(0, 3))):  # neighbours touching the die
            ox, oy = rng.choice([-1, 1]) * size * rng.uniform(0.9, 1.1), rng.uniform(-0.5, 0.5) * size
            synth.draw_die(
                img,
                (1.5 * size + ox, 1.5 * size + oy),
                size,
                int(rng.integers(1, 7)),
                angle_deg=rng.uniform(0, 90),
                body_bgr=tuple(int(v) for v in rng.integers(0, 256, 3)),
            )
        body = tuple(int(v) for v in rng.integers(0, 256, 3))
        pip = (235, 235, 235) if sum(body) < 384 else (20, 20, 20)
        label = int(rng.integers(1, 7))
        d = synth.draw_die(
            img,
            (1.5 * size, 1.5 * size),
            size,
            label,
            angle_deg=rng.uniform(0, 90),
            body_bgr=body,
            pip_bgr=pip,
            pip_scale=rng.uniform(0.75, 1.3),
        )
        crop = crop_die(Pyramid(img), d.center, size * 1.1 * MARGIN * j, size * 1.1 * MARGIN * j, ang)
    elif rng.random() < 0.35:
        label = 0
        size = rng.uniform(22, 70)
        img, spot = clutter(rng, size)
        crop = crop_die(Pyramid(img), spot, size * MARGIN * j, size * MARGIN * j, ang)
    elif hard and rng.random() < 0.5:
        label = 0
        k, c, w, h = hard[int(rng.integers(len(hard)))]
        c = (c[0] + rng.normal(0, 0.05 * w), c[1] + rng.normal(0, 0.05 * h))
        crop = crop_die(negs[k][0], c, w * MARGIN * j, h * MARGIN * j, ang)
    else:
        label = 0
        pyr, boxes = negs[int(rng.integers(len(negs)))]
        h, w = pyr.levels[0].shape[:2]
        s = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) if boxes else 40.0
        for _ in range(50):
            if boxes and rng.random() < 0.5:
                b = boxes[int(rng.integers(len(boxes)))]
                a, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.0) * s
                c = ((b[0] + b[2]) / 2 + dist * math.cos(a), (b[1] + b[3]) / 2 + dist * math.sin(a))
            else:
                c = (rng.uniform(0, w), rng.uniform(0, h))
            near = min(
                (math.hypot(c[0] - (b[0] + b[2]) / 2, c[1] - (b[1] + b[3]) / 2) for b in boxes), default=1e9
            )
            if near > 0.55 * s:
                break
        crop = crop_die(pyr, c, s * MARGIN * j, s * MARGIN * j, ang)
    return photometric(crop, rng), label


def soft_target_matrix(labels: np.ndarray) -> np.ndarray:
    """Class probabilities (N x 7, float32) for labels 0..6 and UNKNOWN: a die of unknown value is
    taught as a die (never "not a die") whose six values are equally likely."""
    y = np.asarray(labels, np.int64).reshape(-1)
    target = np.zeros((len(y), 7), np.float32)
    known = y != UNKNOWN
    target[np.flatnonzero(known), y[known]] = 1.0
    target[~known] = [0.0] + [1 / 6] * 6
    return target
