"""Cut a die out of a frame into the numbered classifier's square input (shared with training)."""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP = 48  # classifier input side, pixels
# The pretrained-backbone classifier (numbered_backbone.onnx, training/numbered/train_backbone.py)
# reads the same square, cut larger: BACKBONE_CROP x BACKBONE_CROP.
BACKBONE_CROP = 64
# Crop side / longer side of the detector's box.  The crop is centred on the face pointing up
# (the detector finds its centre), so this holds that face and the edges of its neighbours,
# not the whole die, and the numeral is big enough to read.
MARGIN = 0.65


def crop_die(
    levels: list[np.ndarray],
    center: tuple[float, float],
    side: float,
    angle_deg: float = 0.0,
    out: int = CROP,
) -> np.ndarray:
    """The `out` x `out` BGR crop of a square of `side` px round `center`, turned by `angle_deg`.

    `levels` is the frame and its pyrDown halvings (extended here when needed): a source square
    over twice `out` is sampled from a halving, so shrinking does not alias.
    """
    side = max(side, 1.0)
    k = max(0, math.ceil(math.log2(side / (2 * out)))) if side > 2 * out else 0
    while len(levels) <= k:
        levels.append(cv2.pyrDown(levels[-1]))
    scale = 0.5**k
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    f = out / (side * scale)
    m = np.array([[c * f, s * f, 0.0], [-s * f, c * f, 0.0]], np.float64)
    m[:, 2] = out / 2 - m[:, :2] @ np.array([center[0] * scale, center[1] * scale])
    return cv2.warpAffine(levels[k], m, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
