"""The top face's outline and body colour, found classically around a detected die."""

from __future__ import annotations

import cv2
import numpy as np


def body_labs(crops: list[np.ndarray]) -> np.ndarray:
    """Median Lab colour of the middle of each die crop (N x 3); pips are a minority there."""
    if not crops:
        return np.zeros((0, 3), np.float64)
    h, w = crops[0].shape[:2]
    mids = np.stack([c[h // 4 : h - h // 4, w // 4 : w - w // 4] for c in crops])
    n, mh, mw = mids.shape[:3]
    lab = cv2.cvtColor(mids.reshape(n * mh, mw, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, mh * mw, 3)
    # Pips sit at one end of the lightness range: keep the two thirds of pixels nearest the median L.
    dev = np.abs(lab[..., 0] - np.median(lab[..., 0], axis=1, keepdims=True))
    keep = np.argsort(dev, axis=1)[:, : max(1, (mh * mw * 2) // 3)]
    kept = np.take_along_axis(lab, keep[..., None], axis=1)
    return np.asarray(np.median(kept, axis=1), np.float64)


#: the die's colour is read from the middle of its crop, this share of the crop's side off each
#: edge (the crop is the detector's box grown by vision.crops.MARGIN: 0.2 keeps 0.72 of the box)
COLOUR_EDGE = 0.2
#: and from the pixels nearest the body's colour: this share of them, found by trimming three times
COLOUR_KEEP = 0.35
#: False: the die's colour as before issue 30 (`body_labs`); benchmarks compare the two
COLOUR_BY_MODE = True


def body_colour_labs(crops: list[np.ndarray]) -> np.ndarray:
    """The Lab colour of each die crop's body, for naming it (N x 3).

    The colour shared by most of the middle of the die: starting from the median, each of three
    rounds keeps the pixels nearest the estimate in Lab (``COLOUR_KEEP`` of them) and takes their
    median.  Pips (of any colour, light or dark), glints and the swirls of a marbled die are
    minorities and drop out, where the median of each channel would mix them in.
    """
    if not COLOUR_BY_MODE:
        return body_labs(crops)
    if not crops:
        return np.zeros((0, 3), np.float64)
    h, w = crops[0].shape[:2]
    a, b = round(h * COLOUR_EDGE), round(w * COLOUR_EDGE)
    mids = np.stack([c[a : h - a, b : w - b] for c in crops])
    n, mh, mw = mids.shape[:3]
    lab = cv2.cvtColor(mids.reshape(n * mh, mw, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, mh * mw, 3)
    est = np.median(lab, axis=1, keepdims=True)
    keep = max(1, int(mh * mw * COLOUR_KEEP))
    for _ in range(3):
        near = np.argsort(((lab - est) ** 2).sum(-1), axis=1)[:, :keep]
        est = np.median(np.take_along_axis(lab, near[..., None], axis=1), axis=1, keepdims=True)
    return np.asarray(est[:, 0], np.float64)


def body_lab(crop_bgr: np.ndarray) -> np.ndarray:
    """Median Lab colour of the middle of one die crop."""
    return np.asarray(body_labs([crop_bgr])[0], np.float64)


#: segmenting the top face: lightness counts this much against colour.  Shading darkens the
#: sides of a die seen off-axis far more than it changes their hue, so lightness must count
#: fully here (unlike colour naming) or the sides join the top face and the outline grows.
FACE_L_WEIGHT = 2.0
FACE_MAX_DIST = 18.0
#: the region round a die is shrunk to at most this many pixels a side: one pixel of it is
#: about 1.5 % of a die, finer than the 3 % a die's top face grows by per level of a stack
FACE_WORK = 96


def face_quad(
    image: np.ndarray, center: tuple[float, float], w: float, h: float, lab: np.ndarray
) -> tuple[np.ndarray, float] | None:
    """Rotated outline of the die's top face (4x2 float, clockwise from top-left) and its aspect ratio.

    The top face is the connected region round ``center`` within ``FACE_MAX_DIST`` of the body
    colour ``lab`` (L weighted by ``FACE_L_WEIGHT``), pips closed in.  None when the body cannot be
    told from its surroundings (e.g. a die the colour of the table).
    """
    side = 1.4 * max(w, h)
    x0, y0 = int(max(0, center[0] - side / 2)), int(max(0, center[1] - side / 2))
    x1, y1 = int(min(image.shape[1], center[0] + side / 2)), int(min(image.shape[0], center[1] + side / 2))
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    k = min(1.0, FACE_WORK / max(x1 - x0, y1 - y0))
    region = (
        cv2.resize(image[y0:y1, x0:x1], None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        if k < 1
        else image[y0:y1, x0:x1]
    )
    # 8-bit Lab is much faster; it stores L * 255 / 100 and a, b offset by 128.
    rl = cv2.cvtColor(np.ascontiguousarray(region), cv2.COLOR_BGR2Lab).astype(np.float32)
    dl = (rl[..., 0] * (100 / 255) - float(lab[0])) * FACE_L_WEIGHT
    dist2 = dl * dl + (rl[..., 1] - (float(lab[1]) + 128)) ** 2 + (rl[..., 2] - (float(lab[2]) + 128)) ** 2
    mask = (dist2 < FACE_MAX_DIST**2).astype(np.uint8)
    ks = max(3, round(0.25 * max(w, h) * k) | 1)
    # zero margin: OpenCV's closing treats outside the region as set, which grows a face that
    # reaches the region's edge
    mask = cv2.copyMakeBorder(mask, ks, ks, ks, ks, cv2.BORDER_CONSTANT, value=0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ks, ks)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    mask = np.ascontiguousarray(mask[ks:-ks, ks:-ks])
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    cx, cy = int((center[0] - x0) * k), int((center[1] - y0) * k)
    cy, cx = min(max(cy, 0), labels.shape[0] - 1), min(max(cx, 0), labels.shape[1] - 1)
    lab_id = labels[cy, cx]
    if lab_id == 0:
        return None
    # pixel centres: a run of n pixels covers n pixels, but its centres span only n - 1
    # (the region's outer boundary pixels have the same minimum-area rectangle as all its pixels)
    contours, _ = cv2.findContours(
        (labels == lab_id).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
    )
    pts = np.concatenate(contours).reshape(-1, 2).astype(np.float32) + 0.5
    (rx, ry), (rw, rh), angle = cv2.minAreaRect(pts)
    rw, rh = rw + 1.0, rh + 1.0
    area_ratio = (rw * rh) / max(1e-6, (w * k) * (h * k))
    if not 0.25 <= area_ratio <= 1.5:  # the detector's box may hold the sides and shadow too
        return None
    quad = cv2.boxPoints(((rx, ry), (rw, rh), angle)) / k + np.array([x0, y0], np.float32)
    # Order clockwise starting from the corner nearest the top-left.
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    quad = quad[np.argsort(ang)]
    start = int(np.argmin(quad[:, 0] + quad[:, 1]))
    quad = np.roll(quad, -start, axis=0)
    return quad, max(rw, rh) / max(1e-6, min(rw, rh))
