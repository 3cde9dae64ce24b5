"""A die's outline seen from above, and the kind it says (issue 43 item 5, "kind at a table").

A d6 seen from above is a square, a d10 a kite (a rhombus), a d20 a near-round hexagon.  `outline`
cuts the die out of a crop around its reading (the die against the colour of the crop's border, the
region through the die's centre, its convex hull) and measures the hull: ``fill``, its area over its
least turned rectangle's (a square ~1, a hexagon or circle 0.75-0.8, a kite or rhombus ~0.5) and
``round``, 4 pi area / perimeter ** 2 (a circle 1, a regular hexagon 0.91, a square 0.785, a rhombus
less).  `outline_kind` names the kind an outline is (None where it says none surely).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: the crop cut around a die: this many times its side (room for the whole outline and a border)
CROP = 1.8


@dataclass(frozen=True)
class Outline:
    """A die's convex outline in a frame's pixels and its measures (see the module's doc)."""

    hull: np.ndarray
    fill: float
    round: float
    side: float
    #: the outline touches the crop's border: not the whole die, or the die not apart from what it lies on
    cut: bool


def outline(image: np.ndarray, center: tuple[float, float], side: float) -> Outline | None:
    """The outline of the die at ``center`` (its side ~``side`` px) in a BGR uint8 ``image``: the pixels
    of the crop (CROP times the side) whose colour is far from its border's (Otsu's threshold on the
    distance in Lab), the region through the centre, holes filled, its convex hull.  None when no
    region holds the centre."""
    h, w = image.shape[:2]
    half = CROP * side / 2
    x0, y0 = max(0, int(center[0] - half)), max(0, int(center[1] - half))
    x1, y1 = min(w, int(center[0] + half) + 1), min(h, int(center[1] + half) + 1)
    crop = image[y0:y1, x0:x1]
    if crop.shape[0] < 8 or crop.shape[1] < 8:
        return None
    k = min(1.0, 160.0 / max(crop.shape[:2]))  # measured at most 160 px: enough for an outline
    if k < 1.0:
        crop = cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    edge = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    dist = np.linalg.norm(lab - np.median(edge, 0), axis=2)
    d8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _n, labels = cv2.connectedComponents(mask)
    cy = min(crop.shape[0] - 1, int((center[1] - y0) * k))
    cx = min(crop.shape[1] - 1, int((center[0] - x0) * k))
    lab_id = int(labels[cy, cx])
    if lab_id == 0:  # the centre in a hole of the die (a numeral's paint): the region nearest it
        ids, counts = np.unique(labels[max(0, cy - 8) : cy + 9, max(0, cx - 8) : cx + 9], return_counts=True)
        keep = [(c, i) for i, c in zip(ids, counts, strict=True) if i != 0]
        if not keep:
            return None
        lab_id = int(max(keep)[1])
    region = (labels == lab_id).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    area = float(cv2.contourArea(hull))
    if area < 16:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    perimeter = float(cv2.arcLength(hull, True))
    ys, xs = hull[:, 0, 1], hull[:, 0, 0]
    cut = bool(
        xs.min() <= 1 or ys.min() <= 1 or xs.max() >= crop.shape[1] - 2 or ys.max() >= crop.shape[0] - 2
    )
    pts = hull.astype(np.float64) / k + (x0, y0)
    return Outline(
        hull=pts.astype(np.float32),
        fill=area / max(rw * rh, 1e-6),
        round=4 * math.pi * area / max(perimeter**2, 1e-6),
        side=math.sqrt(area) / k,
        cut=cut,
    )
