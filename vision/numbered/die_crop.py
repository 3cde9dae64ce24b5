"""A die's crop for learning and matching (issue 44 item 2): centred and scaled on the die itself,
turned to its outline, not on the detector's box.

The detector's box frames a die differently each roll (the die small in a corner, or cut); a learnt
set of such crops does not know the rolls it was taught.  Here the die's outline is found round the
box: where the frame differs from the empty table when one is given (`vision.empty_diff`'s mask), else
the die's own contour (the pixels unlike the square's border, Otsu on their Lab distance to it, the
component nearest the box's centre).  The crop is the outline's minAreaRect: its centre, its longer
side times PAD, turned by its angle (so a die turned on the table gives one crop), cut at the frame's
own resolution (`crop_die` samples a halving only to avoid aliasing).  A box whose outline cannot be
found (nothing unlike the border, or an outline far from the box) keeps the box's square.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.numbered.crop import CROP, crop_die

#: the searched square round the box: this times the box's longer side
SEARCH = 1.6
#: the crop's side: this times the outline's longer side (a thin border of table round the die)
PAD = 1.1
#: an outline is kept when its side is this share of the box's, or more, and at most SEARCH
LEAST = 0.5


def outline(
    image: np.ndarray, center: tuple[float, float], side: float, mask: np.ndarray | None = None
) -> tuple[tuple[float, float], float, float] | None:
    """The die's outline round `center` (its box `side` px): (centre, longer side, angle in degrees),
    or None when none is found.  `mask`: the frame's change from the empty table (uint8, non-zero:
    changed), used instead of the die's own contour when given."""
    h, w = image.shape[:2]
    r = max(4, int(side * SEARCH / 2))
    x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
    x1, y1 = min(w, int(center[0]) + r + 1), min(h, int(center[1]) + r + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    fg: np.ndarray
    if mask is not None:
        fg = (mask[y0:y1, x0:x1] > 0).astype(np.uint8)
    else:
        roi = image[y0:y1, x0:x1]
        step = max(1, int(max(roi.shape[:2]) // 96))  # the contour at about 96 px: enough for a box
        small = roi[::step, ::step]
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
        border = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
        dist = np.linalg.norm(lab - np.median(border, axis=0), axis=2)
        d8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-6)), 0, 255).astype(np.uint8)
        _, fg = cv2.threshold(d8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        if float(dist.max()) < 12.0:  # nothing unlike the table round the box
            return None
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        fg = cv2.resize(fg, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
    if n <= 1:
        return None
    c = np.array([center[0] - x0, center[1] - y0])
    best, best_score = 0, -1.0
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        d = float(np.hypot(*(cents[i] - c)))
        score = area / (1.0 + d / max(side, 1.0)) ** 2  # big and near the box's centre
        if score > best_score:
            best, best_score = i, score
    pts = cv2.findNonZero((labels == best).astype(np.uint8))
    if pts is None:
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
    longer = float(max(rw, rh))
    if not LEAST * side <= longer <= SEARCH * side:
        return None
    if np.hypot(cx + x0 - center[0], cy + y0 - center[1]) > 0.5 * side:
        return None
    return (float(cx + x0), float(cy + y0)), longer, float(angle)


def die_crop(
    image: np.ndarray,
    box_center: tuple[float, float],
    side: float,
    mask: np.ndarray | None = None,
    out: int = CROP,
) -> np.ndarray:
    """The `out` x `out` crop of the die whose box is centred at `box_center`, `side` px (module
    docstring): on its outline, turned by it; the box's square when no outline is found."""
    found = outline(image, box_center, side, mask)
    if found is None:
        return crop_die([image], box_center, side * PAD, out=out)
    centre, longer, angle = found
    return crop_die([image], centre, longer * PAD, angle, out=out)
