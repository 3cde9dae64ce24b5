"""Where the top face is within a die: the numbered reader's second look, at full resolution.

The detector sees the frame at about 512x384, so on a d10 or d20 seen from the side its
top-face estimate can land on a neighbouring face (training/numbered/MODELS.md).  The top-face
net (`training/numbered/train.py: TopFace`, `vision/models/numbered_topface.onnx`) sees each
die's outline box again, cut from the frame at its own resolution into a TOP x TOP crop,
and answers a GRID x GRID map of logits: which cell holds the top face's centre.  The
classifier's crop is then centred there.

Two more input planes tell the net where the die is seen from.  The older net
(numbered_topface.onnx) gets the die's ray from the frame's centre (`ray`); the nadir-aware one
(TOP_NADIR_FILE) gets its ray from the nadir, the image of the point below the camera, where every
vertical edge points (`nadir_ray`): from the calibration's board pose (`nadir_from_pose`) or
fitted to the dice themselves (`nadir_fits`).
"""

from __future__ import annotations

import cv2
import numpy as np

TOP = 64  # the top-face net's input side, pixels
TOP_MARGIN = 1.25  # its crop's side / the longer side of the die's outline box
GRID = 16  # its output map's side (cells of TOP / GRID pixels)
F_SIDE = 1254.0 / 1280.0  # focal length / frame's longer side (Pi Camera 3, 4:3: calibration.camera)
# The nadir-aware top-face net: same net and inputs, but its view planes are each die's ray from
# the nadir (nadir_ray) instead of from the frame's centre (ray).
TOP_NADIR_FILE = "numbered_topface_nadir.onnx"


def ray(x: float, y: float, width: int, height: int) -> tuple[float, float]:
    """The direction of frame point (x, y) from the frame's centre, over the focal length."""
    f = F_SIDE * max(width, height)
    return (x - width / 2) / f, (y - height / 2) / f


# The nadir (the point straight below the camera, where every vertical edge points in the image)
# from the dice of one frame.  A die's top face lies off its outline box's centre, away from the
# nadir, by KAPPA x (the box's side) x (the die's ray from the nadir, over f): on TRAIN-generator
# validation windows with the true nadir, 0.27 for d6 and 0.38 for d20 (residual 0.014 of the box)
# and 0.30 for d10 / d10p (residual 0.14: their top face is a tilted kite, off the die's axis).
KAPPA = 0.33  # the prior on that factor
KAPPA_SIGMA = 0.1  # and its spread
TILT_SIGMA = 0.4  # prior spread of the nadir's offset from the frame's centre, over f (tan 22 deg)
NADIR_NOISE = 0.08  # a die's top-face offset error, fraction of its box (scale of the robust weights)
MAX_TILT = 0.75  # the estimate is clipped to this far from the frame's centre, over f (tan 37 deg)


def nadir_fit(
    boxes: np.ndarray,
    tops: np.ndarray,
    sides: np.ndarray,
    weights: np.ndarray,
    width: int,
    height: int,
    iterations: int = 10,
) -> tuple[float, float, float]:
    """The nadir (frame pixels) that best explains where each die's top face lies in its box,
    and how sure the fit is: the spread (root mean square over the two axes of its standard
    deviation, over f; TILT_SIGMA with nothing to go on).

    `boxes` and `tops`: N x 2 frame pixels of each die's outline-box centre and top-face centre;
    `sides`: N box sides (pixels); `weights`: N confidences (0 ignores a die).  Model: the
    offset (top - box) / side = kappa (box - nadir) / f for one unknown kappa, a linear least
    squares in (kappa, kappa x nadir) with priors kappa ~ KAPPA and nadir ~ the frame's centre
    (so no dice, one die or dice all in one spot give the centre, or near it), refitted with
    Cauchy weights (scale NADIR_NOISE) so a die whose top face is off its axis (d10s) or misfound
    counts little.  The answer is clipped to MAX_TILT x f from the frame's centre.
    """
    w = np.asarray(weights, np.float64).reshape(1, -1)
    x, y, spread = nadir_fits(boxes, tops, sides, w, width, height, iterations)[0]
    return float(x), float(y), float(spread)


def nadir_fits(
    boxes: np.ndarray,
    tops: np.ndarray,
    sides: np.ndarray,
    weights: np.ndarray,
    width: int,
    height: int,
    iterations: int = 10,
) -> np.ndarray:
    """`nadir_fit` for K sets of weights of the same N dice at once (`weights` K x N, e.g. each die
    left out in turn): K x 3 (x, y, spread)."""
    f = F_SIDE * max(width, height)
    c = np.array([width / 2, height / 2], np.float64)
    b = np.asarray(boxes, np.float64).reshape(-1, 2)
    t = np.asarray(tops, np.float64).reshape(-1, 2)
    s = np.maximum(np.asarray(sides, np.float64).reshape(-1), 1e-6)
    w0 = np.clip(np.asarray(weights, np.float64), 0.0, None)
    if not (len(b) == len(t) == len(s)) or w0.ndim != 2 or w0.shape[1] != len(b):
        raise ValueError(
            f"nadir_fit: expected as many boxes, tops, sides and weights, got {len(b)}, {len(t)}, "
            f"{len(s)}, {w0.shape[-1] if w0.ndim else 0}"
        )
    g = (b - c) / f  # each die's ray from the frame's centre
    e = (t - b) / s[:, None]  # its top face's offset, in boxes
    # unknowns theta = (kappa, a_x, a_y) with a = kappa x nu, nu = (nadir - centre) / f:
    # e = kappa g - a, two rows per die; normal equations per die (q: 3 x 3, r: 3)
    n = len(b)
    r1 = np.column_stack([g[:, 0], -np.ones(n), np.zeros(n)])
    r2 = np.column_stack([g[:, 1], np.zeros(n), -np.ones(n)])
    q = r1[:, :, None] * r1[:, None, :] + r2[:, :, None] * r2[:, None, :]
    r = r1 * e[:, :1] + r2 * e[:, 1:]
    # priors as rows of weight NADIR_NOISE / sigma: every weighted row then errs by NADIR_NOISE
    p2 = (np.array([1 / KAPPA_SIGMA, 1 / (KAPPA * TILT_SIGMA), 1 / (KAPPA * TILT_SIGMA)]) * NADIR_NOISE) ** 2
    prior_a, prior_b = np.diag(p2), p2 * np.array([KAPPA, 0.0, 0.0])
    omega = w0.copy()
    for _ in range(max(1, iterations)):
        a = np.einsum("kn,nij->kij", omega, q) + prior_a
        theta = np.linalg.solve(a, (omega @ r + prior_b)[:, :, None])[:, :, 0]
        ex = theta[:, :1] * g[None, :, 0] - theta[:, 1:2] - e[None, :, 0]
        ey = theta[:, :1] * g[None, :, 1] - theta[:, 2:3] - e[None, :, 1]
        omega = w0 / (1.0 + (np.hypot(ex, ey) / NADIR_NOISE) ** 2)
    cov = NADIR_NOISE**2 * np.linalg.inv(a)  # of the last solve's theta
    kappa = np.maximum(theta[:, 0], 0.25 * KAPPA)
    nu = theta[:, 1:] / kappa[:, None]
    # d nu / d theta, K x 2 x 3
    jac = np.zeros((len(theta), 2, 3))
    jac[:, :, 0] = -nu / kappa[:, None]
    jac[:, 0, 1] = jac[:, 1, 2] = 1 / kappa
    spread = np.sqrt(np.maximum(0.0, np.einsum("kij,kjl,kil->k", jac, cov, jac)) / 2)
    norm = np.hypot(nu[:, 0], nu[:, 1])
    nu = nu * np.minimum(1.0, MAX_TILT / np.maximum(norm, 1e-12))[:, None]
    return np.column_stack([c[0] + f * nu[:, 0], c[1] + f * nu[:, 1], spread])


def nadir_from_pose(rvec: object, camera_matrix: object) -> tuple[float, float]:
    """The nadir (frame pixels) of a camera whose board pose is `rvec` (the board lies flat on the
    table: its z axis is vertical), e.g. the calibration's ``board_pose`` (calibration.pose), and
    whose intrinsics are `camera_matrix` (3 x 3, for the frame being read)."""
    r = np.asarray(rvec, np.float64)
    k = np.asarray(camera_matrix, np.float64)
    if r.shape not in ((3,), (3, 1), (1, 3)) or not np.all(np.isfinite(r)):
        raise ValueError(f"rvec: expected 3 finite numbers (a Rodrigues vector), got {rvec!r}")
    if k.shape != (3, 3) or not np.all(np.isfinite(k)):
        raise ValueError(f"camera_matrix: expected a finite 3 x 3 matrix, got {camera_matrix!r}")
    rot, _ = cv2.Rodrigues(r.reshape(3, 1))
    v = k @ rot[:, 2]  # the board's normal seen by the camera
    if abs(v[2]) < 1e-6 * max(1.0, float(np.hypot(v[0], v[1]))):
        raise ValueError("rvec: the camera looks along the table (no point below it in view)")
    return float(v[0] / v[2]), float(v[1] / v[2])


def nadir_ray(x: float, y: float, nadir: tuple[float, float], width: int, height: int) -> tuple[float, float]:
    """The direction of frame point (x, y) from the nadir, over the focal length: the nadir-aware
    top-face net's view planes (a die's top face lies off its box's centre along it)."""
    f = F_SIDE * max(width, height)
    return (x - nadir[0]) / f, (y - nadir[1]) / f


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
