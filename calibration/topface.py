"""A die's top face in the frame, fitted from a rough outline with the camera and the die's size.

A reader's quad may be the outline of the whole die as seen (its top face and the sides
turned towards the camera) rather than its top face.  Through the board pose, a flat die of
size ``s`` at stack level ``L`` has a top face that is a square ``s`` mm on a side at height
``(L + 1) s``: only its centre and turn are unknown.  They are fitted to the frame: the
right square, warped to a square image, shows a whole die face (symmetric under a half
turn, its rim darker than the face just inside it); a square that takes in a side or the
board beside the die does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraCalibration
from calibration.pose import BoardPose

#: Side (px) of the square image a candidate top face is warped to.
GRID = 20
#: Lab weights: lightness counts less (shading), but pips and rims are light and dark.
LAB_WEIGHTS = np.array([0.5, 1.0, 1.0])
#: The coarse search reaches this far (die sizes) from the outline's centre, in steps of GRID_STEP.
SEARCH = 0.3
GRID_STEP = 0.15
#: Cost of a fitted centre one die size from the outline's centre.
STRAY_COST = 1.0
#: Descents started from the best coarse candidates.
STARTS = 3
#: Weight of the rim term against the half-turn asymmetry.
RIM_WEIGHT = 0.5
#: Where the d6 reader's outline centre is seen, in die sizes below the top face: tuned on the rendered
#: TUNE split (scenes 150-199; 0, 0.1, 0.25, 0.5 gave position medians 0.51, 0.86, 1.38, 2.20 mm),
#: its detector having been taught the boxes of top faces.
BODY_MIDDLE = 0.0


@dataclass(frozen=True)
class TopFace:
    quad_px: NDArray[np.float64]  # the fitted top face's 4 corners in the frame
    level: int  # the stack level whose height fits it best
    score: float  # lower is more face-like
    scores: tuple[float, ...]  # the best score at each level tried


def square_mm(x: float, y: float, yaw: float, s: float) -> NDArray[np.float64]:
    """Corners (board mm, x y) of a square of side ``s`` centred at (x, y) turned by ``yaw`` rad."""
    c, n = np.cos(yaw), np.sin(yaw)
    h = s / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return np.asarray(local @ np.array([[c, n], [-n, c]]) + [x, y], np.float64)


def face_score(lab: NDArray[np.float32], quad_px: NDArray[np.float64]) -> float:
    """How little ``quad_px`` looks like one whole die face (half-turn asymmetry minus rim contrast)."""
    n = GRID
    square = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(quad_px.astype(np.float32), square)
    face = cv2.warpPerspective(lab, m, (n, n), flags=cv2.INTER_LINEAR).astype(np.float64) * LAB_WEIGHTS
    contrast = float(np.linalg.norm(face.reshape(-1, 3).std(axis=0))) + 5.0
    asym = float(np.mean(np.linalg.norm(face - face[::-1, ::-1], axis=2))) / contrast
    light = face[..., 0]
    b = max(1, n // 10)
    ring = np.ones((n, n), bool)
    ring[b:-b, b:-b] = False
    inner = np.zeros((n, n), bool)
    inner[b : n - b, b : n - b] = True
    inner[2 * b : n - 2 * b, 2 * b : n - 2 * b] = False
    rim = float(light[inner].mean() - light[ring].mean()) / contrast
    return asym - RIM_WEIGHT * rim


def fit_top_face(
    image_lab: NDArray[np.float32],
    outline_px: NDArray[np.float64],
    s: float,
    pose: BoardPose,
    calibration: CameraCalibration,
    levels: tuple[int, ...] = (0,),
) -> TopFace:
    """The top face of the die whose outline (any quad around it in the frame) is ``outline_px``.

    Tried at each stack level of ``levels``; the face's look decides between them only weakly
    (the face is 3 % larger per level), so callers that can tell the level otherwise try one.
    """
    outline = np.asarray(outline_px, np.float64)
    best: TopFace | None = None
    scores = []
    for level in levels:
        h = (level + 1) * s
        base = pose.backproject(outline, h, calibration)
        centre = base.mean(axis=0)
        edge = base[1] - base[0]
        yaw0 = float(np.arctan2(edge[1], edge[0]))

        def quad(p: NDArray[np.float64], h: float = h) -> NDArray[np.float64]:
            sq = square_mm(float(p[0]), float(p[1]), float(p[2]), s)
            return pose.project(np.column_stack([sq, np.full(4, -h)]), calibration)

        def cost(p: NDArray[np.float64], c0: NDArray[np.float64] = centre) -> float:
            # The die the outline is around, not a neighbour: straying from its centre costs.
            away = float(np.hypot(p[0] - c0[0], p[1] - c0[1])) / s
            return face_score(image_lab, quad(p)) + STRAY_COST * away * away

        # A coarse grid around the outline's centre (a reader's box may be off by half a face, or
        # hold more than the die), then descent from the best few.
        offsets = np.arange(-SEARCH, SEARCH + 1e-9, GRID_STEP) * s
        coarse = sorted(
            (cost(np.array([centre[0] + dx, centre[1] + dy, yaw0 + a])), dx, dy, a)
            for dx in offsets
            for dy in offsets
            for a in np.radians(np.arange(0.0, 90.0, 15.0))
        )
        step = np.array([0.05 * s, 0.05 * s, np.radians(4.0)])
        fits = [
            _descend(cost, np.array([centre[0] + dx, centre[1] + dy, yaw0 + a]), step)
            for _, dx, dy, a in coarse[:STARTS]
        ]
        p, c = min(fits, key=lambda f: f[1])
        scores.append(c)
        if best is None or c < best.score:
            best = TopFace(quad(p), level, c, ())
    if best is None:
        raise ValueError(f"no stack level to try: levels={levels!r}")
    return TopFace(best.quad_px, best.level, best.score, tuple(scores))


def body_top_face(
    outline_px: NDArray[np.float64],
    s: float,
    pose: BoardPose,
    calibration: CameraCalibration,
    level: int = 0,
) -> NDArray[np.float64]:
    """A die's top face from a reader's outline of it, by geometry alone (no search).

    The outline's centre is taken to be seen ``BODY_MIDDLE`` die sizes below the top face's
    centre; the top face is the square of side ``s`` at height ``(level + 1) s`` over that
    point, turned like the outline's first edge seen at that height.  Far cheaper than
    :func:`fit_top_face` (no image is looked at) and less exact: it trusts the outline's centre.
    """
    outline = np.asarray(outline_px, np.float64)
    h = (level + 1) * s
    centre = pose.backproject(outline.mean(axis=0, keepdims=True), h - BODY_MIDDLE * s, calibration)[0]
    base = pose.backproject(outline, h, calibration)
    edge = base[1] - base[0]
    sq = square_mm(float(centre[0]), float(centre[1]), float(np.arctan2(edge[1], edge[0])), s)
    return pose.project(np.column_stack([sq, np.full(4, -h)]), calibration)


def _descend(
    f: Callable[[NDArray[np.float64]], float],
    p: NDArray[np.float64],
    step: NDArray[np.float64],
    rounds: int = 40,
) -> tuple[NDArray[np.float64], float]:
    """Coordinate descent with halving steps, until the position step is under 0.1 mm."""
    best = float(f(p))
    step = step.copy()
    for _ in range(rounds):
        moved = False
        for k in range(len(p)):
            for sign in (1.0, -1.0):
                q = p.copy()
                q[k] += sign * step[k]
                c = float(f(q))
                if c < best:
                    p, best, moved = q, c, True
                    break
        if not moved:
            step /= 2
            if np.all(step[:2] < 0.1):
                break
    return p, best


def face_square_px(
    footprint_mm: NDArray[np.float64],
    level: int,
    pose: BoardPose,
    calibration: CameraCalibration,
    margin: float = 1.0,
) -> tuple[NDArray[np.float64], float]:
    """The image quad (top-left, top-right, bottom-right, bottom-left: the crop's corners) of the square
    on the plane of a placed die's top face, centred on it and ``margin`` times its side, its sides
    along the image's x and y at the die; and the die's side in mm.

    ``footprint_mm``: the die's top face on the board (`calibration.geometry.place`'s footprint, 4+
    corners), whose side is the die's; ``level``: its stack level, so the face lies ``(level + 1)``
    sides above the board.  Cut from the frame, the quad shows the top face as the camera would see
    it from straight above, the way `vision.oblique.top_quad` cuts a die for the oblique classifier,
    but placed by the board's pose and the die's size rather than the reader's box."""
    fp = np.asarray(footprint_mm, np.float64).reshape(-1, 2)
    x, y = fp[:, 0], fp[:, 1]
    side = float(np.sqrt(abs(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))))
    if not np.isfinite(side) or side <= 0:
        raise ValueError(
            f"footprint_mm: expected a die's top face (4+ corners, some area), got {fp.tolist()}"
        )
    h = (level + 1) * side
    centre = fp.mean(axis=0)
    c_px = pose.project(np.array([[centre[0], centre[1], -h]]), calibration)[0]
    step = pose.backproject(c_px + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), h, calibration)
    ex = step[1] - step[0]
    ex /= np.linalg.norm(ex)
    ey = np.array([-ex[1], ex[0]])
    if float(ey @ (step[2] - step[0])) < 0:  # the image's y, down
        ey = -ey
    r = 0.5 * margin * side
    sq = centre + r * np.array([-ex - ey, ex - ey, ex + ey, -ex + ey])
    return pose.project(np.column_stack([sq, np.full(4, -h)]), calibration), side
