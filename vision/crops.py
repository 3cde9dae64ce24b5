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
    center: tuple[float, float], w: float, h: float, angle_deg: float, scale: float, size: int = CROP
) -> np.ndarray:
    """Affine map from source pixels (at `scale`) to the size x size output."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    sx, sy = size / (w * scale), size / (h * scale)
    cx, cy = center[0] * scale, center[1] * scale
    m = np.array([[c * sx, s * sx, 0.0], [-s * sy, c * sy, 0.0]], np.float64)
    m[:, 2] = size / 2 - m[:, :2] @ np.array([cx, cy])
    return m


def crop_die(
    pyr: Pyramid,
    center: tuple[float, float],
    w: float,
    h: float,
    angle_deg: float = 0.0,
    size: int = CROP,
) -> np.ndarray:
    """The size x size (CROP: the classifier's) BGR crop of a (w x h) box around `center`, rotated
    by `angle_deg`."""
    side = max(w, h, 1.0)
    most = MAX_SRC * size / CROP  # the source side sampled without pre-shrinking, for this size
    k = max(0, math.ceil(math.log2(side / most))) if side > most else 0
    img = pyr.level(k)
    m = crop_matrix(center, w, h, angle_deg, 0.5**k, size)
    return cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


#: the side of the crop a die's look is read from (`vision.face.die_looks`, a table's learnt colours:
#: `vision.looks.LearntPalette`), pixels: the roster learns a die's look from it and the reader names
#: the die from it, both cut at the frame's (or still's) own pixels, not from the classifier's CROP
LOOK = 64


def look_crop(image: np.ndarray, quad: object, pyr: Pyramid | None = None) -> np.ndarray:
    """The LOOK x LOOK BGR crop a die's look is read from: the square round ``quad`` (4 x 2 corners in
    ``image``'s pixels: the detector's box, `vision.reading.DieReading.box`, else the die's outline)
    grown by MARGIN, cut from ``image`` at its own pixels (shrunk through ``pyr``, its pyramid, when
    the die is bigger than twice LOOK; the image's edge repeated beyond it).  Raises ValueError when
    the die lies outside the image."""
    q = np.asarray(quad, np.float64).reshape(-1, 2)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    h, w = image.shape[:2]
    side = max(x1 - x0, y1 - y0, 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if not (0 <= cx < w and 0 <= cy < h):
        raise ValueError("the die lies outside the photo")
    return crop_die(pyr or Pyramid(image), (cx, cy), side * MARGIN, side * MARGIN, 0.0, LOOK)
