"""The up face from an oblique camera: each die's top face cut out as if seen from straight above.

Seen from 30-45 degrees off vertical, a die shows its top face foreshortened and one or two side
faces below it (towards the nadir, the image of the point straight below the camera); a crop of
its whole outline box holds the pips of a side face as well, and the classifier, taught mostly on
overhead photos, can read them (issue 19: "a 1 on top read as 2 from the pips of a side face").

With the table's "down" known in the camera's frame (``View``: from a calibration's board pose,
or a tilt estimated from the dice themselves, ``estimate_view``), each die's box is back-projected
onto the horizontal plane through its top face, where the top face is a square again.  The top
face's far edge is the outline's far edge (the side faces only ever show on the nadir's side of
it), so the square is laid against the far edge, its side the outline's extent across the view
direction (not foreshortened), and warped to the classifier's CROP x CROP input: the top face
fronto-parallel, the side faces pushed out of the crop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.crops import CROP, MARGIN, MAX_SRC, Pyramid

F64 = NDArray[np.float64]

#: Dice whose view ray is closer than this to the vertical are cut as before (an axis-aligned box
#: crop): there the side faces hardly show, and the overhead photos the classifier learnt from are
#: cut that way.
MIN_VIEW_DEG = 8.0
#: Points on a box's inscribed ellipse back-projected to find the die's extent on the plane.
ELLIPSE_POINTS = 16


@dataclass(frozen=True)
class View:
    """Where the camera looks from: its matrix and the table's down (a unit vector, camera frame)."""

    camera_matrix: F64
    down: F64
    #: the camera matrix's inverse, made once (`top_quad` cuts hundreds of crops a frame)
    kinv: F64 = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        k = np.asarray(self.camera_matrix, np.float64)
        d = np.asarray(self.down, np.float64).reshape(-1)
        if k.shape != (3, 3) or d.shape != (3,) or not np.all(np.isfinite(d)) or d[2] <= 0.05:
            raise ValueError(
                f"View: expected a 3x3 camera matrix and a down vector in front of the camera, "
                f"got matrix shape {k.shape} and down {d.tolist()}"
            )
        object.__setattr__(self, "camera_matrix", k)
        object.__setattr__(self, "down", d / np.linalg.norm(d))
        object.__setattr__(self, "kinv", np.linalg.inv(k))

    @classmethod
    def from_pose(cls, rvec: object, camera_matrix: object) -> View:
        """From a board pose (the board lies flat on the table; its z points into it)."""
        r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64).reshape(3, 1))
        return cls(np.asarray(camera_matrix, np.float64), np.asarray(r[:, 2], np.float64))

    @classmethod
    def from_tilt(cls, tilt_deg: float, towards_deg: float, camera_matrix: object) -> View:
        """A camera tilted ``tilt_deg`` off vertical; the nadir lies towards ``towards_deg`` in the
        image from its centre (0: +x, 90: +y, i.e. below the centre for a camera tilted forward)."""
        t, a = math.radians(tilt_deg), math.radians(towards_deg)
        return cls(
            np.asarray(camera_matrix, np.float64),
            np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)]),
        )

    @property
    def tilt_deg(self) -> float:
        """The optical axis's angle off vertical."""
        return math.degrees(math.acos(min(1.0, float(self.down[2]))))

    def nadir(self) -> tuple[float, float]:
        """The image of the point straight below the camera (pixels)."""
        p = self.camera_matrix @ self.down
        return float(p[0] / p[2]), float(p[1] / p[2])

    def view_deg(self, x: float, y: float) -> float:
        """The angle (degrees) between the ray through pixel (x, y) and the vertical."""
        r = np.linalg.solve(self.camera_matrix, np.array([x, y, 1.0]))
        return math.degrees(math.acos(min(1.0, float(r @ self.down / np.linalg.norm(r)))))


_ANGLES = np.linspace(0.0, 2 * np.pi, ELLIPSE_POINTS, endpoint=False)
_COS, _SIN, _ONES = np.cos(_ANGLES), np.sin(_ANGLES), np.ones_like(_ANGLES)


def _cross(a: F64, b: F64) -> F64:
    """np.cross of two 3-vectors, term for term as numpy computes it (the same numbers) without
    its general machinery, which cost the tilted reader a tenth of its time (issue 46)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def top_quad(view: View, center: tuple[float, float], w: float, h: float, margin: float = MARGIN) -> F64:
    """The image quad (4 x 2 px; the crop's top-left, top-right, bottom-right, bottom-left) of the
    square on the horizontal plane through a die's top face, laid against the far edge of its box
    (``w`` x ``h`` around ``center``) and grown by ``margin``."""
    kinv = view.kinv
    d = view.down
    cx, cy = center
    hw, hh = w / 2, h / 2
    # the outline as the ellipse inscribed in the box: a die's outline has no corners out in the
    # box's corners, so the box's own corners would overstate its extent across a diagonal view
    box = np.column_stack([cx + hw * _COS, cy + hh * _SIN, _ONES])

    def plane(px: F64) -> F64:  # rays onto the plane d . X = 1
        rays = px @ kinv.T
        return np.asarray(rays / (rays @ d)[:, None], np.float64)

    pts = plane(box)
    c0, cxp, cyp = plane(np.array([[cx, cy, 1.0], [cx + 1.0, cy, 1.0], [cx, cy + 1.0, 1.0]]))
    # the crop's axes on the plane follow the image's x and y at the die
    ex = cxp - c0
    ex -= (ex @ d) * d
    ex /= np.linalg.norm(ex)
    ey = _cross(d, ex)
    if ey @ (cyp - c0) < 0:
        ey = -ey
    # away from the nadir: the ray's part along the plane
    far = c0 - (c0 @ d) * d
    n = float(np.linalg.norm(far))
    rel = pts - c0
    if n < 1e-9:
        centre = c0
        side = min(float(np.ptp(rel @ ex)), float(np.ptp(rel @ ey)))
    else:
        far /= n
        across = _cross(d, far)
        a, b = rel @ far, rel @ across
        side = min(float(np.ptp(a)), float(np.ptp(b)))
        centre = c0 + (float(a.max()) - side / 2) * far + (float(b.max() + b.min()) / 2) * across
    half = side * margin / 2
    corners = [centre + sx * half * ex + sy * half * ey for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    img = np.array(corners) @ view.camera_matrix.T
    return np.asarray(img[:, :2] / img[:, 2:3], np.float64)


def crop_top(pyr: Pyramid, quad: F64) -> np.ndarray:
    """The CROP x CROP BGR crop of the image quad (top-left, top-right, bottom-right, bottom-left)."""
    side = float(max(np.ptp(quad[:, 0]), np.ptp(quad[:, 1]), 1.0))
    k = max(0, math.ceil(math.log2(side / MAX_SRC))) if side > MAX_SRC else 0
    src = (np.asarray(quad, np.float64) * 0.5**k).astype(np.float32)
    dst = np.array([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        pyr.level(k), m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def needs_rectifying(view: View | None, center: tuple[float, float]) -> bool:
    """Whether a die seen at ``center`` is cut by its top face (``top_quad``) rather than its box."""
    return view is not None and view.view_deg(*center) >= MIN_VIEW_DEG


#: Without a calibration: a camera's focal length over its frame's longer side (a Pi Camera
#: Module 3 at 4:3, calibration.camera; a webcam's is about the same).
F_SIDE = 1254.0 / 1280.0
#: A crop of one die cut from a frame: its focal length over its side (a die is about a tenth of
#: the frame's width, so the crop sees it nearly without perspective).
CROP_F_SIDE = 10.0
#: The tilts (degrees off vertical) and the directions of the nadir from the frame's centre
#: (degrees, 0 = +x, 90 = below) that ``estimate_view`` tries beside "straight down".  Issue 35:
#: up to 60 degrees (a webcam on a desk), 10 degrees apart from 30 on (was 15, 30, 45: on renders
#: seen 30-60 degrees off vertical the finer grid read 88 against 83 % of the dice right).
TILTS = (15.0, 30.0, 40.0, 50.0, 60.0)
TOWARDS = tuple(float(a) for a in range(0, 360, 45))
#: How much surer (mean log probability of each die's likeliest value) the dice must read under
#: a tilt than straight down for the tilt to be taken.
GAIN = 0.05


def guess_matrix(width: int, height: int, f_side: float = F_SIDE) -> F64:
    """A camera matrix for a frame with no calibration: ``f_side`` x its longer side, centred."""
    f = f_side * max(width, height)
    return np.array([[f, 0.0, width / 2], [0.0, f, height / 2], [0.0, 0.0, 1.0]])


def hypotheses(
    width: int, height: int, camera_matrix: F64 | None = None, tilts: tuple[float, ...] = TILTS
) -> list[View]:
    """The views ``estimate_view`` weighs against straight down (``camera_matrix``: default
    ``guess_matrix``), tilt-major: ``tilts`` x ``TOWARDS``."""
    k = guess_matrix(width, height) if camera_matrix is None else camera_matrix
    return [View.from_tilt(t, a, k) for t in tilts for a in TOWARDS]


def neighbours(index: int, tilts: int = len(TILTS), towards: int = len(TOWARDS)) -> list[int]:
    """The hypotheses (indices into ``hypotheses``' list, tilt-major) next to hypothesis ``index``
    and itself: one tilt step either side, one direction step either side (directions wrap round).

    A die read one way under the view estimated from the dice and another under a view next to it
    is read no surer than under the least sure of them (``DiceReader``: the estimate is coarse, and
    on renders a reading that holds across the neighbours was wrong 2 times in 151, one that held
    only under the best view 53 times in 613)."""
    t, a = divmod(index, towards)
    return [
        tt * towards + (a + da) % towards
        for tt in range(max(0, t - 1), min(tilts, t + 2))
        for da in ((-1, 0, 1) if towards > 2 else range(towards))
    ]


def best_view(scores: list[float], views: list[View], straight: float, gain: float = GAIN) -> View | None:
    """The view under which the dice read surest, or None (straight down) unless it beats that by ``gain``."""
    if not views:
        return None
    i = int(np.argmax(scores))
    return views[i] if scores[i] >= straight + gain else None


#: Issue 35: a view estimated from how surely the dice read is trusted only when its tilt is within
#: this many degrees of the tilt their sizes tell (``size_tilt``; on the tuning renders seen 30-60
#: degrees off vertical, 5 of the 7 sure errors left were under a view 20-40 degrees off that)
SIZE_AGREE = 25.0


def size_tilt(centres: F64, sides: F64, camera_matrix: F64) -> float | None:
    """The camera's tilt (degrees off vertical) told by the dice's sizes alone, or None (fewer than
    3 dice).  Dice of one size on a plane look bigger the nearer they are: a die's side in pixels is
    f s / Z, and 1 / Z is affine in the image on a plane (d . (x, y, 1) / h for the plane's down d
    at height h), so sides fitted as a x_n + b y_n + c (normalised image coordinates, a robust fit)
    give the down vector up to scale: (a, b, c).  Noisy (boxes of a few dice), hence only a check."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    size = np.asarray(sides, np.float64).reshape(-1)
    if len(c) < 3:
        return None
    k = np.asarray(camera_matrix, np.float64)
    xn, yn = (c[:, 0] - k[0, 2]) / k[0, 0], (c[:, 1] - k[1, 2]) / k[1, 1]
    a = np.column_stack([xn, yn, np.ones_like(xn)])
    w = np.ones(len(c))
    sol: np.ndarray = np.zeros(3)
    for _ in range(5):  # iteratively reweighted: a die whose box is off weighs less
        sol = np.linalg.lstsq(a * w[:, None], size * w, rcond=None)[0]
        res = np.abs(a @ sol - size)
        scale = 1.5 * float(np.median(res)) + 1e-6
        w = np.sqrt(np.minimum(1.0, scale / np.maximum(res, 1e-9)))
    n = float(np.linalg.norm(sol))
    if n < 1e-9:
        return None
    return math.degrees(math.acos(min(1.0, abs(float(sol[2])) / n)))


# -- numbered dice (issue 44): the top face of a die resting on a face, from its outline -----------

#: A numbered die resting on a face, from the solids (training/render/blender/dice_geometry.py,
#: circumradius 1): its height over its outline's longer side seen 30-60 degrees off vertical (a d20
#: 1.589 high, the longer side 1.69-1.94 with its turn on the table, taken 1.82).  A centrally
#: symmetric solid's outline is centred on the image of its centre, so the top face's centre is half
#: the height above it.  The d10's outline is not symmetric (its top face a kite off the axis): not
#: here, so a d10 is cut as without a view.
RESTING_HEIGHT: dict[str, float] = {"d20": 1.589 / 1.82}


@dataclass(frozen=True)
class Tilt:
    """A camera stated by its tilt (``[vision] camera_tilt_deg``, issue 44): ``tilt_deg`` off vertical,
    the nadir towards ``towards_deg`` from the frame's centre (`View.from_tilt`), its focal length
    ``f_side`` times the frame's longer side (`guess_matrix`); `view` gives the View of a frame."""

    tilt_deg: float
    towards_deg: float = 90.0
    f_side: float = F_SIDE

    def view(self, width: int, height: int) -> View:
        return View.from_tilt(self.tilt_deg, self.towards_deg, guess_matrix(width, height, self.f_side))


def resting_top(
    view: View, centre: tuple[float, float], longer: float, kind: str = "d20", share: float = 0.65
) -> tuple[tuple[float, float], F64] | None:
    """The top face of a die of ``kind`` resting on a face whose outline is centred at ``centre``,
    its longer side ``longer`` px: the top face's centre (pixels) and the image quad (4 x 2: the crop's
    top-left, top-right, bottom-right, bottom-left) of the square on the top face's plane round it,
    ``share`` times the die's longer side (the crop round the top face seen from straight above);
    None for a kind not in RESTING_HEIGHT, or a die seen nearer than MIN_VIEW_DEG to straight down
    (cut as before)."""
    if kind not in RESTING_HEIGHT or longer <= 0 or not needs_rectifying(view, centre):
        return None
    k, d = view.camera_matrix, view.down
    # the die's centre on its ray, in units of its longer side: f * 1 / depth = longer px
    body = view.kinv @ np.array([centre[0], centre[1], 1.0]) * (float(k[0, 0]) / longer)
    top = body - (RESTING_HEIGHT[kind] / 2) * d
    ex = view.kinv @ np.array([1.0, 0.0, 0.0])  # the crop's x follows the image's x at the die
    ex = ex - (ex @ d) * d
    ex /= np.linalg.norm(ex)
    ey = _cross(d, ex)
    if (view.kinv @ np.array([0.0, 1.0, 0.0])) @ ey < 0:
        ey = -ey
    half = share / 2
    pts = np.array(
        [top] + [top + sx * half * ex + sy * half * ey for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    )
    img = pts @ k.T
    img = img[:, :2] / img[:, 2:3]
    return (float(img[0, 0]), float(img[0, 1])), np.asarray(img[1:], np.float64)


def warp_quad(image: np.ndarray, quad: F64, out: int) -> np.ndarray:
    """The ``out`` x ``out`` BGR crop of ``image``'s quad (top-left, top-right, bottom-right,
    bottom-left), from the pixels round it (a halving when the quad is over twice ``out``)."""
    q = np.asarray(quad, np.float64)
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 3
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    roi = image[y0:y1, x0:x1] if x1 > x0 and y1 > y0 else image
    off = np.array([x0, y0], np.float64) if roi is not image else np.zeros(2)
    src = q - off
    side = float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1]), 1.0))
    while side > 2 * out and min(roi.shape[:2]) > 2:
        roi, src, side = cv2.pyrDown(roi), src / 2, side / 2
    dst = np.array([[0, 0], [out, 0], [out, out], [0, out]], np.float32)
    m = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
    return cv2.warpPerspective(roi, m, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


#: `lens_for_tilt`: the fewest dice whose sizes tell a lens (a few dice's boxes are noisy: the 100
#: teaching rolls of the 20-face renders tell 45.3 degrees at their lens, 20 of them 39-48)
LENS_DICE = 20


def lens_for_tilt(
    centres: F64, sides: F64, width: int, height: int, tilt_deg: float, dice: int = LENS_DICE
) -> float | None:
    """The lens (focal length over the frame's longer side, `guess_matrix`'s ``f_side``) under which
    the dice's sizes across the frame tell the camera's stated tilt (`size_tilt`), or None: fewer than
    ``dice`` dice, a tilt under 10 degrees (sizes then hardly change across the frame), or no lens
    from 0.3 to 10 tells it.  Issue 44: with a guessed lens an oblique d20's top face is placed worse
    (benchmarks/RESULTS.md, the top face of an oblique d20); sizes tell the tilt only with the lens,
    and the lens with the tilt."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    if len(c) < dice or tilt_deg < 10.0:
        return None

    def told(f: float) -> float:
        t = size_tilt(c, sides, guess_matrix(width, height, f))
        return -1.0 if t is None else t

    lo, hi = 0.3, 10.0
    if not told(lo) <= tilt_deg <= told(hi):
        return None
    for _ in range(40):  # the told tilt grows with the lens
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if told(mid) < tilt_deg else (lo, mid)
    return math.sqrt(lo * hi)
