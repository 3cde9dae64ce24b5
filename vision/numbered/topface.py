"""Where the top face is within a die: the numbered reader's second look, at full resolution.

The detector sees the frame at about 640x480, so on a d10 or d20 seen from the side its
top-face estimate can land on a neighbouring face (vision/numbered/MODELS.md).  The top-face
net (`vision/numbered/train.py: TopFace`, `vision/models/numbered_topface.onnx`) sees each
die's outline box again, cut from the frame at its own resolution into a TOP x TOP crop,
and answers a GRID x GRID map of logits: which cell holds the top face's centre.  The
classifier's crop is then centred there.
"""

from __future__ import annotations

import numpy as np

TOP = 64  # the top-face net's input side, pixels
TOP_MARGIN = 1.25  # its crop's side / the longer side of the die's outline box
GRID = 16  # its output map's side (cells of TOP / GRID pixels)
F_SIDE = 1254.0 / 1280.0  # focal length / frame's longer side (Pi Camera 3, 4:3: calibration.camera)


def ray(x: float, y: float, width: int, height: int) -> tuple[float, float]:
    """The direction of frame point (x, y) from the frame's centre, over the focal length."""
    f = F_SIDE * max(width, height)
    return (x - width / 2) / f, (y - height / 2) / f


def view_planes(rays: np.ndarray) -> np.ndarray:
    """N x 2 rays -> N x 2 x TOP x TOP constant planes, the top-face net's inputs 4 and 5."""
    return np.broadcast_to(rays.astype(np.float32)[:, :, None, None], (len(rays), 2, TOP, TOP)).copy()


def peaks(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The net's N x 2 x GRID x GRID output -> N x 2 (x, y) of the top face's centre in crop
    pixels, and N factors for the die's size (its box's longer side is the crop's side / TOP_MARGIN
    times the factor).

    Plane 0 is the top-face centre's logit per cell: the strongest cell, then the
    probability-weighted mean of its 3 x 3 neighbourhood (sub-cell precision without averaging two
    far-apart candidate faces).  Plane 1 is the log of the size factor, read at that cell.
    """
    n = out.shape[0]
    flat = out[:, 0].reshape(n, -1)
    p = np.exp(flat - flat.max(1, keepdims=True)).reshape(n, GRID, GRID)
    xy = np.zeros((n, 2), np.float64)
    size = np.ones(n, np.float64)
    for i in range(n):
        y, x = np.unravel_index(int(np.argmax(p[i])), (GRID, GRID))
        y0, y1, x0, x1 = max(0, y - 1), min(GRID, y + 2), max(0, x - 1), min(GRID, x + 2)
        w = p[i, y0:y1, x0:x1]
        yy, xx = np.mgrid[y0:y1, x0:x1]
        s = float(w.sum())
        xy[i] = (float((w * xx).sum()) / s + 0.5, float((w * yy).sum()) / s + 0.5)
        size[i] = float(np.exp(np.clip(out[i, 1, y, x], -0.7, 0.7)))
    return xy * (TOP / GRID), size
