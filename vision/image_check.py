"""The boundary check every image passes before the reader touches it."""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_SIDE = 12000  # larger frames are surely a mistake (and would need gigabytes)


def check_bgr(image: Any, name: str = "image") -> np.ndarray:
    """Return `image` as a contiguous HxWx3 uint8 array, or raise ValueError saying what was expected."""
    if not isinstance(image, np.ndarray):
        raise ValueError(
            f"{name}: expected a numpy array (H x W x 3, BGR, uint8), got {type(image).__name__}"
        )
    if image.dtype != np.uint8:
        raise ValueError(
            f"{name}: expected 8-bit pixels (dtype uint8, BGR), got dtype {image.dtype}; "
            "convert first, e.g. (img / 257).astype(np.uint8) for 16-bit"
        )
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(
            f"{name}: expected 3 colour channels (H x W x 3, BGR), got shape {tuple(image.shape)}; "
            "use cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) or COLOR_BGRA2BGR first"
        )
    h, w = image.shape[:2]
    if h == 0 or w == 0:
        raise ValueError(f"{name}: expected a non-empty image, got shape {tuple(image.shape)}")
    if h > MAX_SIDE or w > MAX_SIDE:
        raise ValueError(f"{name}: expected at most {MAX_SIDE} pixels a side, got {w}x{h}")
    return np.ascontiguousarray(image)
