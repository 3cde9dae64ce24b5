"""Cut a die out of a frame into the classifier's small square input.

Shared by the reader and the trainer so both see crops made the same way.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP = 32  # classifier input side, pixels
MARGIN = 1.2  # crop side / box side
MAX_SRC = 64.0  # largest source side sampled without pre-shrinking (avoids aliasing)


class Pyramid:
    """An image and its halvings, made on demand, so big dice are shrunk without aliasing."""

    def __init__(self, image: np.ndarray) -> None:
        self.levels = [image]

    def level(self, k: int) -> np.ndarray:
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


def crop_matrix(
    center: tuple[float, float], w: float, h: float, angle_deg: float, scale: float
) -> np.ndarray:
    """Affine map from source pixels (at `scale`) to the CROP x CROP output."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    sx, sy = CROP / (w * scale), CROP / (h * scale)
    cx, cy = center[0] * scale, center[1] * scale
    m = np.array([[c * sx, s * sx, 0.0], [-s * sy, c * sy, 0.0]], np.float64)
    m[:, 2] = CROP / 2 - m[:, :2] @ np.array([cx, cy])
    return m


def crop_die(
    pyr: Pyramid, center: tuple[float, float], w: float, h: float, angle_deg: float = 0.0
) -> np.ndarray:
    """The CROP x CROP BGR crop of a (w x h) box around `center`, rotated by `angle_deg`."""
    side = max(w, h, 1.0)
    k = max(0, math.ceil(math.log2(side / MAX_SRC))) if side > MAX_SRC else 0
    img = pyr.level(k)
    m = crop_matrix(center, w, h, angle_deg, 0.5**k)
    return cv2.warpAffine(img, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
