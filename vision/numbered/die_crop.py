"""A die's crop for learning and matching (issue 44 item 2): centred and scaled on the die itself,
turned to its outline, not on the detector's box; one function (`die_crop`) that the learning step
(`NumberedReader.crops_of`, `dicetable learn-dice see`, `/learn`) and `read` (`NumberedReader.read_at`)
both call, so a die taught from a frame and read again in it is cut alike.

The detector's box frames a die differently each roll (the die small in a corner, or cut), and the
learning step and `read` may find a die at different places (the pip reader's box, the detector's,
a peak kept only because a learnt set knows it); a learnt set of such crops does not know the rolls
it was taught.  Here the die's outline is found round the box: where the frame differs from the
empty table when one is given (`vision.empty_diff.compare`, at the frame's own pixels: what changed
by more than a shadow), else the die's own contour (the pixels unlike the square's border, Otsu on
their Lab distance to it, the component nearest the box's centre).  The outline is then found again
round itself (`settle`): a second look from the first outline's centre and size, so two seeds a
few pixels or a few tens of per cent apart end on one outline.  The crop is the outline's
minAreaRect: its centre, its longer side times PAD, turned by its angle (so a die turned on the
table gives one crop), cut from the frame it is given at that frame's resolution (`crop_die`
samples a halving only to avoid aliasing): `read` and the learning step give the full frame (a
still's own pixels, not its halving).  A box whose outline cannot be found (nothing unlike the
border, or an outline far from the box) keeps the box's square.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.numbered.crop import CROP, MARGIN, crop_die

if TYPE_CHECKING:
    from vision.oblique import View

#: the searched square round the box: this times the box's longer side
SEARCH = 1.6
#: the crop's side: this times the outline's longer side (a thin border of table round the die)
PAD = 1.1
#: an outline is kept when its side is this share of the box's, or more, and at most SEARCH (the
#: detector's box of a small die in a still may be 6 times the die: a 48 px die in a 290 px box)
LEAST = 0.1
#: the second look (`settle`) searches round the first outline as round a box this many times its side
AGAIN = 1.5
#: what differs from the empty table by this much (0-255, any channel, the light matched) changed
LEVEL = 24.0
#: two outlines whose centres are within this share of the die's size apart are one die (`one_a_die`)
SAME_DIE = 0.35
#: the light between the frame and the empty table is matched on this many times the window's side
CONTEXT = 3.0

Outline = tuple[tuple[float, float], float, float]


def empty_of(where: Sequence[Any] | None) -> np.ndarray | None:
    """The empty table among a frame's where-steps (`vision.where.EmptyTable`,
    `vision.empty_diff.EmptyDiff`, at the frame's size), None without one."""
    from vision.empty_diff import EmptyDiff
    from vision.where import EmptyTable

    for s in where or ():
        if isinstance(s, (EmptyTable, EmptyDiff)):
            return np.asarray(s.empty)
    return None


def _window(
    shape: tuple[int, ...], center: tuple[float, float], side: float
) -> tuple[int, int, int, int] | None:
    h, w = shape[:2]
    r = max(4, int(side * SEARCH / 2))
    x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
    x1, y1 = min(w, int(center[0]) + r + 1), min(h, int(center[1]) + r + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    return x0, y0, x1, y1


def _own_contour(roi: np.ndarray) -> np.ndarray | None:
    """The die against the colour of the window's border (Otsu on the Lab distance), 0/1 uint8."""
    step = max(1, int(max(roi.shape[:2]) // 96))  # the contour at about 96 px: enough for a box
    small = roi[::step, ::step]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    dist = np.linalg.norm(lab - np.median(border, axis=0), axis=2)
    if float(dist.max()) < 12.0:  # nothing unlike the table round the box
        return None
    d8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, fg = cv2.threshold(d8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return np.asarray(cv2.resize(fg, (roi.shape[1], roi.shape[0]), interpolation=cv2.INTER_NEAREST))


def _changed(
    image: np.ndarray, empty: np.ndarray, win: tuple[int, int, int, int], side: float
) -> np.ndarray | None:
    """What changed since the empty table by more than a shadow in the window `win` of `image` (0/1
    uint8), closed over the die's numerals and facets; None when nothing did.  The light is matched
    on a square CONTEXT times the window's (`vision.empty_diff.compare`): there the die is a small part
    of the table, so the light fitted is the table's."""
    from vision.empty_diff import compare

    x0, y0, x1, y1 = win
    h, w = image.shape[:2]
    r = CONTEXT * max(x1 - x0, y1 - y0) / 2
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    X0, Y0 = max(0, int(cx - r)), max(0, int(cy - r))
    X1, Y1 = min(w, int(cx + r) + 1), min(h, int(cy + r) + 1)
    ref = cv2.GaussianBlur(empty[Y0:Y1, X0:X1].astype(np.float32), (3, 3), 0)
    solid = compare(image[Y0:Y1, X0:X1], ref, LEVEL).solid[y0 - Y0 : y1 - Y0, x0 - X0 : x1 - X0]
    if not solid.any():
        return None
    k = max(3, round(side / 12) | 1)
    return np.asarray(cv2.morphologyEx(solid.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)))


def outline(
    image: np.ndarray, center: tuple[float, float], side: float, empty: np.ndarray | None = None
) -> Outline | None:
    """The die's outline round `center` (its box `side` px): (centre, longer side, angle in degrees),
    or None when none is found.  `empty`: the empty table (BGR, the frame's size): the outline is
    what changed from it (the die's own contour when nothing changed there)."""
    win = _window(image.shape, center, side)
    if win is None:
        return None
    x0, y0, x1, y1 = win
    roi = image[y0:y1, x0:x1]
    if empty is not None and empty.shape[:2] == image.shape[:2]:
        fg = _changed(image, empty, win, side)
        got = _largest_near(image, fg, win, center, side) if fg is not None else None
        if got is not None:
            return got
    fg = _own_contour(roi)
    return None if fg is None else _largest_near(image, fg, win, center, side)


def _largest_near(
    image: np.ndarray,
    fg: np.ndarray,
    win: tuple[int, int, int, int],
    center: tuple[float, float],
    side: float,
) -> Outline | None:
    """The component of `fg` (the window `win` of `image`) big and near `center`: its minAreaRect."""
    x0, y0, x1, y1 = win
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
    bx, by, bw, bh = (int(v) for v in stats[best, :4])
    h, w = image.shape[:2]
    edges = (bx == 0 and x0 > 0) + (by == 0 and y0 > 0)
    edges += (bx + bw == x1 - x0 and x1 < w) + (by + bh == y1 - y0 and y1 < h)
    if edges >= 3:  # it runs out of the window on three sides: a change wider than a die (a hand, a mat)
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
    longer = float(max(rw, rh))
    if not LEAST * side <= longer <= SEARCH * side:
        return None
    if np.hypot(cx + x0 - center[0], cy + y0 - center[1]) > 0.5 * side:
        return None
    if cv2.countNonZero((labels == best).astype(np.uint8)) < 0.25 * rw * rh:
        return None  # a thin ring or a scatter, not a die's body
    return (float(cx + x0), float(cy + y0)), longer, float(angle)


def settle(
    image: np.ndarray, center: tuple[float, float], side: float, empty: np.ndarray | None = None
) -> Outline | None:
    """The die's outline found round its box, then again round that outline (module docstring): two
    seeds of one die (the learning step's and `read`'s) end on one outline."""
    first = outline(image, center, side, empty)
    if first is None:
        return None
    again = outline(image, first[0], first[1] * AGAIN, empty)
    return again if again is not None else first


def top_cut(
    image: np.ndarray, found: Outline, view: View | None, kind: str = "d20", out: int = CROP
) -> np.ndarray | None:
    """The `out` x `out` crop of the top face of a die resting on a face whose settled outline is
    `found`, seen by a camera whose `view` is known (issue 44: at 45 degrees a d20's side faces face the
    camera more squarely than its top face, and a crop centred on the whole outline shows one of
    them): the square MARGIN times the die's longer side on the top face's plane round its centre,
    warped as if seen from straight above (`vision.oblique.resting_top`); None without a view, for a
    kind it does not know the solid of, or a die seen nearly straight down (cut as before)."""
    if view is None:
        return None
    from vision.oblique import resting_top, warp_quad

    top = resting_top(view, found[0], found[1], kind, MARGIN)
    return None if top is None else warp_quad(image, top[1], out)


def top_centre(
    image: np.ndarray,
    box_center: tuple[float, float],
    side: float,
    view: View | None,
    empty: np.ndarray | None = None,
    kind: str = "d20",
) -> tuple[float, float] | None:
    """The centre of the top face of the die whose box is centred at `box_center` (`side` px), from
    its settled outline and the camera's `view` (`top_cut`); None where `top_cut` cuts nothing."""
    if view is None:
        return None
    from vision.oblique import resting_top

    found = settle(image, box_center, side, empty)
    top = None if found is None else resting_top(view, found[0], found[1], kind, MARGIN)
    return None if top is None else top[0]


def die_cut(
    image: np.ndarray,
    box_center: tuple[float, float],
    side: float,
    empty: np.ndarray | None = None,
    out: int = CROP,
    view: View | None = None,
    kind: str = "d20",
) -> tuple[np.ndarray, Outline | None]:
    """`die_crop` and the settled outline it was cut on (None: the box's square)."""
    found = settle(image, box_center, side, empty)
    if found is None:
        return crop_die([image], box_center, side * PAD, out=out), None
    top = top_cut(image, found, view, kind, out)
    if top is not None:
        return top, found
    centre, longer, angle = found
    return crop_die([image], centre, longer * PAD, angle, out=out), found


def one_a_die(outlines: Sequence[Outline | None], matches: Sequence[Any]) -> list[int]:
    """The peaks to keep (indices, in order) when several settle on one die's outline (their centres
    within SAME_DIE of its size): of those, the one a learnt set matches most alike (`matches`: a
    `Match` or None each; the first when none matches).  A die the detector peaked twice on is read
    once, at the crop it was taught from (issue 44 item 2: d20_wood's face 12 at frame 437, 60 px,
    read as 9 at a second peak 0.94 alike beside its own crop 1.0 alike)."""
    drop: set[int] = set()
    for i, a in enumerate(outlines):
        if a is None or i in drop:
            continue
        same = [
            j
            for j, b in enumerate(outlines)
            if j not in drop and b is not None and math.dist(a[0], b[0]) <= SAME_DIE * max(a[1], b[1])
        ]
        if len(same) < 2:
            continue
        best = max(same, key=lambda j: (matches[j].likeness if matches[j] is not None else -1.0, -j))
        drop |= {j for j in same if j != best}
    return [i for i in range(len(outlines)) if i not in drop]


def die_crop(
    image: np.ndarray,
    box_center: tuple[float, float],
    side: float,
    empty: np.ndarray | None = None,
    out: int = CROP,
    view: View | None = None,
    kind: str = "d20",
) -> np.ndarray:
    """The `out` x `out` crop of the die whose box is centred at `box_center`, `side` px (module
    docstring): on its settled outline, turned by it; the box's square when no outline is found.
    `empty`: the empty table at `image`'s size (None: the die's own contour).  `view`: the camera's
    view (`vision.oblique.View`, at `image`'s size): a die of `kind` seen obliquely is cut on its top
    face (`top_cut`); None: as before."""
    return die_cut(image, box_center, side, empty, out, view, kind)[0]


def face_crop(
    image: np.ndarray,
    top: tuple[float, float],
    box_center: tuple[float, float],
    side: float,
    empty: np.ndarray | None = None,
    out: int = CROP,
    view: View | None = None,
    kind: str = "d20",
) -> np.ndarray:
    """The `out` x `out` crop round the die's top face (`top`), MARGIN times the die's own size (its
    settled outline's longer side; the box's `side` when no outline is found), from `image` at its
    own pixels: the crop round the top face scaled on the die, not on the detector's box, for
    grouping crops by face (`controller.learn_dice.group_faces`).  `view`: as `die_crop`'s (the top
    face found from the outline, `top` not used)."""
    found = settle(image, box_center, side, empty)
    cut = None if found is None else top_cut(image, found, view, kind, out)
    if cut is not None:
        return cut
    size = found[1] if found is not None else side
    return crop_die([image], top, size * MARGIN, out=out)


#: `pixel_features`: the crop's side and the disc's radius compared, pixels
PIXEL_SIDE, PIXEL_DISC = 32, 14


def pixel_features(crops: Sequence[np.ndarray], turns: int = 1) -> np.ndarray:
    """N x turns x D unit vectors of N square BGR crops' pixels (issue 44): each crop at PIXEL_SIDE
    px, the disc of radius PIXEL_DISC round its middle turned 360/turns degrees at a time, as its
    brightness and half its colour (each channel less the brightness), each less its mean over the
    disc, unit length: the dot product of two is their likeness whatever the light's level."""
    side, h = PIXEL_SIDE, (PIXEL_SIDE - 1) / 2
    yy, xx = np.mgrid[:side, :side]
    disc = (yy - h) ** 2 + (xx - h) ** 2 <= PIXEL_DISC**2
    feats = np.zeros((len(crops), turns, int(disc.sum()) * 4), np.float32)
    for i, c in enumerate(crops):
        small = cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
        for t in range(turns):
            m = cv2.getRotationMatrix2D((h, h), 360.0 * t / turns, 1.0)
            v = cv2.warpAffine(small, m, (side, side), borderMode=cv2.BORDER_REFLECT)[disc]
            lum = v.mean(axis=1, keepdims=True)
            v = np.concatenate([lum, 0.5 * (v - lum)], axis=1)
            v = (v - v.mean(axis=0)).ravel()
            feats[i, t] = v / max(float(np.linalg.norm(v)), 1e-6)
    return feats


def place_patch(image: np.ndarray, center: tuple[float, float], side: float) -> np.ndarray:
    """The PIXEL_SIDE x PIXEL_SIDE patch of ``image`` (BGR uint8) round ``center``, ``side`` px,
    upright (the table's border replicated past the frame's edge): what lies at a place of the
    camera's frame (`controller.not_dice`)."""
    return crop_die([image], center, max(float(side), 4.0), out=PIXEL_SIDE)


#: `TopFaces`: the square warped for the OCR head, this times the die's longer side round its top face
#: (on 200 of the renders' later throws, the true view, the die's outline given: the head read 128
#: right from it, 107 from the frame round the same centre; 1.2: 125)
HEAD_SHARE = 1.6


class TopFaces:
    """The OCR head's cut of a d20 seen obliquely (`ocr.OcrHead.rectify`, issue 44): the square
    HEAD_SHARE times the die's longer side on its top face's plane, warped as if seen from above, at
    the frame's scale.  Only a die whose outline the reader found against the empty table (`remember`:
    `NumberedReader.on_top`, the learning step's `ocr_of`) is cut so: the die's own contour without
    the empty table takes in its shadow (on the renders its longer side 70-95 px against 47-64), and a
    top face placed on that read worse than the frame.  `top_view`: as `NumberedReader.top_view`."""

    #: the outlines remembered, the newest last (a frame's dice, a few frames')
    KEEP = 256

    def __init__(self, top_view: Any) -> None:
        self.top_view = top_view
        self._seen: dict[tuple[int, int, int], tuple[int, Outline]] = {}

    def remember(self, image: np.ndarray, top: tuple[float, float], found: Outline) -> None:
        """The die whose top face's centre in `image` is `top` has the settled outline `found`."""
        key = (id(image), round(top[0]), round(top[1]))
        self._seen.pop(key, None)
        self._seen[key] = (image.shape[0] * 100003 + image.shape[1], found)
        for old in list(self._seen)[: max(0, len(self._seen) - self.KEEP)]:
            self._seen.pop(old, None)

    def outline_at(self, image: np.ndarray, top: tuple[float, float]) -> Outline | None:
        """The outline remembered for the top face at `top` of `image` (within a pixel), or None."""
        shape = image.shape[0] * 100003 + image.shape[1]
        for dx in (0, -1, 1):
            for dy in (0, -1, 1):
                got = self._seen.get((id(image), round(top[0]) + dx, round(top[1]) + dy))
                if got is not None and got[0] == shape:
                    return got[1]
        return None

    def __call__(
        self, image: np.ndarray, center: tuple[float, float], side: float, kind: str
    ) -> tuple[np.ndarray, tuple[float, float]] | None:
        from vision.oblique import RESTING_HEIGHT, resting_top, warp_quad

        if kind not in RESTING_HEIGHT:
            return None
        found = self.outline_at(image, center)
        if found is None:
            return None
        view = self.top_view.view(int(image.shape[1]), int(image.shape[0]))
        top = resting_top(view, found[0], found[1], kind, HEAD_SHARE)
        if top is None:
            return None
        # warped so that the head's square (`side` times its shares) is that share of the die itself:
        # the detector's box may be larger than the die (on the renders the head then read 56 of 100
        # later throws right, 49 from the frame; scaled on the die itself 128 of 200, 107)
        s = max(8, round(HEAD_SHARE * max(side, 1.0)))
        return warp_quad(image, top[1], s), (s / 2, s / 2)
