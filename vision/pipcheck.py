"""Does a face read as pips really show pips? (issue 46 item 3; opt-in, off by default)

The pip classifier has only ever seen pips: a face that carries something else (a skull for the 1,
a maker's logo on the 6, a word, an engraved numeral) it reads as whatever count of pips it looks
most like, sometimes surely.  This check looks at the face again, at SIDE pixels (finer than the
classifier's crop), and passes it only when every mark on its middle is pip-like:

* ink is what differs from the body colour (the median of the crop's middle half) by more than
  ``INK`` (CIE Lab distance) and by at least ``CONTRAST`` of the strongest contrast there, and lies
  nearer the pips' colour (the strongest contrast's) than ``TOWARD`` of its distance from the body;
* a mark under ``MARK`` of the crop is a speck (grain, a glint); one reaching the crop's border (the
  table, a neighbour, the die's own sides) or centred outside the middle (``MIDDLE``) is not judged;
* every other mark must be a pip: not bigger than ``BIG`` of the crop (a skull, a logo's disc), no
  hole (``HOLE``: a ring round a logo, a letter's bowl), solid (``SOLID``), round (``ROUND``), no
  longer than ``LONG`` times its width (a stroke); and the marks are of one size (``SIZES``).

Measured (benchmarks/vision_symbol_faces.py, benchmarks/RESULTS.md): it costs 1 in 10 sure right
readings of the byler photos (swirled and glossy bodies, faint pips) and catches none of the real
symbol faces read surely (a symbol covering the face's middle becomes the "body"); so
`vision.reader.DiceReader` runs it only when given ``pip_check`` (a `Judged`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crops import Pyramid, crop_die
from vision.reading import Rejected

#: the side, pixels, the face is resampled to before it is looked at
SIDE = 64
#: a die smaller than this many pixels a side is not judged (too few pixels to tell a pip's shape)
MIN_PX = 24.0
#: the body colour is the median over the crop less this share of its side each side
BODY = 0.15
#: a pixel this far (Lab distance) from the body colour is ink
INK = 38.0
#: ... and at least this share of the strongest contrast on the face's middle (the pips; a swirled
#: or marbled body's own pattern is fainter)
CONTRAST = 0.6
#: ink is nearer the pips' colour than this share of its distance from the body
TOWARD = 0.8
#: a piece of ink under this share of the crop is a speck (noise, a glint, a small pip)
MARK = 0.006
#: only marks whose centre lies this far (share of the side) from the crop's centre are judged
MIDDLE = 0.3
#: a pip's roundness (4 pi area / perimeter^2) is at least this
ROUND = 0.55
#: ... its area over its convex hull's at least this
SOLID = 0.82
#: ... a hole in it (a ring, a letter's bowl) at most this share of its area
HOLE = 0.08
#: ... its length over its width at most this (a pip seen at 60 degrees is 2:1)
LONG = 2.4
#: ... and its area at most this share of the crop
BIG = 0.09
#: pips on the face's middle differ in area by at most this factor
SIZES = 3.0


@dataclass(frozen=True)
class Check:
    """The verdict on one face: ``ok`` (pips only, or too small to judge), how many pips were seen,
    and why it failed (empty when it passed)."""

    ok: bool
    pips: int
    why: str = ""


def face_crop(pyr: Pyramid, center: tuple[float, float], w: float, h: float) -> np.ndarray:
    """The SIDE x SIDE crop of a die's box (the box itself, no margin)."""
    return crop_die(pyr, center, w, h, 0.0, SIDE)


def check(crop_bgr: np.ndarray, value: int) -> Check:
    """Whether ``crop_bgr`` (a die's box, ``face_crop``) shows only pips, at least ``value`` of them."""
    crop = (
        cv2.resize(crop_bgr, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
        if crop_bgr.shape[0] != SIDE
        else crop_bgr
    )
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    q, b = SIDE // 4, round(BODY * SIDE)
    body = np.median(lab[b : SIDE - b, b : SIDE - b].reshape(-1, 3), axis=0)
    dist = np.linalg.norm(lab - body, axis=2)
    mid = dist[q : SIDE - q, q : SIDE - q]
    strong = float(np.percentile(mid, 99))
    sel = dist >= 0.8 * strong
    pipc = np.median(lab[sel].reshape(-1, 3), axis=0) if sel.any() else body
    to_pip = np.linalg.norm(lab - pipc, axis=2)
    ink = ((dist > max(INK, CONTRAST * strong)) & (to_pip < TOWARD * dist)).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(ink, connectivity=8)
    area_px = SIDE * SIDE
    pips: list[tuple[float, float, float]] = []  # (x, y, area)
    for i in range(1, n):
        x, y, w, h, a = (int(v) for v in stats[i])
        cx, cy = (float(v) for v in centroids[i])
        if a < MARK * area_px or x == 0 or y == 0 or x + w >= SIDE or y + h >= SIDE:
            continue  # a speck, a glint; the table, a neighbour, the die's own sides
        if max(abs(cx - SIDE / 2), abs(cy - SIDE / 2)) > MIDDLE * SIDE:
            continue  # the face's rim: its shading and a side face's pips
        why = _not_a_pip(labels[y : y + h, x : x + w] == i, a, area_px)
        if why:
            return Check(False, len(pips), f"{why} at ({cx / SIDE:.2f}, {cy / SIDE:.2f}) of the face")
        pips.append((cx, cy, float(a)))
    if len(pips) >= 2:
        areas = [p[2] for p in pips]
        if max(areas) > SIZES * min(areas):
            return Check(
                False, len(pips), f"marks of different sizes ({min(areas):.0f} to {max(areas):.0f} px)"
            )
    return Check(True, len(pips))


def _not_a_pip(mask: np.ndarray, area: int, area_px: int) -> str:
    """Why one piece of ink (its mask in its bounding box) is not a pip, or ""."""
    if area > BIG * area_px:
        return f"a mark of {area / area_px:.0%} of the face (a pip is smaller)"
    m = mask.astype(np.uint8)
    contours, hier = cv2.findContours(np.pad(m, 1), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    outer = max(contours, key=cv2.contourArea)
    holes = sum(cv2.contourArea(c) for c, h in zip(contours, hier[0], strict=True) if h[3] >= 0)
    if holes > HOLE * area:
        return "a mark with a hole in it (a ring, a letter)"
    hull = cv2.contourArea(cv2.convexHull(outer))
    if hull > 0 and area / hull < SOLID:
        return f"a mark of irregular shape (solidity {area / hull:.2f})"
    perim = cv2.arcLength(outer, True)
    if perim > 0 and 4 * math.pi * area / perim**2 < ROUND:
        return f"a mark that is not round (roundness {4 * math.pi * area / perim**2:.2f})"
    if len(outer) >= 5:
        (_, _), (a, b), _ = cv2.fitEllipse(outer)
        if min(a, b) > 0 and max(a, b) / min(a, b) > LONG:
            return f"a long mark ({max(a, b) / min(a, b):.1f}:1, a stroke)"
    return ""


@dataclass(frozen=True)
class Judged:
    """Which readings the pip-d6 reader checks (`vision.reader.DiceReader`'s ``pip_check``): those
    read at least ``least`` sure (the table scores them unasked) and under ``most`` (a face the
    classifier reads surer than that is taken as it reads it)."""

    least: float = 0.8
    most: float = 1.01

    def pips(
        self, pyr: Pyramid, center: tuple[float, float], w: float, h: float, value: int, conf: float
    ) -> bool:
        """False when a reading it judges (box ``center``, ``w`` x ``h``, read ``value`` at
        ``conf``) shows marks that are not pips; True otherwise (judged or not)."""
        if not self.least <= conf < self.most or max(w, h) < MIN_PX:
            return True
        return check(face_crop(pyr, center, w, h), value).ok


#: ``die_like``: the crop round a candidate, in box sides, and its side in pixels
AROUND, AROUND_PX = 1.6, 80
#: ... the body colour: the median over this ring (radii, share of the crop's side): inside the face,
#: round its middle, where a symbol covering the middle leaves the body showing
BODY_RING = (0.17, 0.27)
#: ... a pixel within this Lab distance of the body colour is the body
BODY_DIST = 28.0
#: ... the body's convex hull fills its smallest turned rectangle at least this much (a square
#: does; a disc, a token, a blob does not: pi / 4)
SQUARE = 0.86
#: ... that rectangle's sides differ by at most this factor
SQUARE_ASPECT = 1.3
#: ... and its side is this share of the candidate's box side
SQUARE_SIDE = (0.6, 1.35)


def die_like(pyr: Pyramid, center: tuple[float, float], w: float, h: float) -> bool:
    """Whether a candidate the classifier or the verifier called "not a die" still shows a die's
    top face: a square, the size of its box, standing clear of what lies round it, whatever is drawn
    on it (a die whose top face carries a symbol the classifier never saw).  The square is the
    piece of the crop of the body's colour (the median round the face's middle, ``BODY_RING``), or
    failing that the piece that differs from the table (the crop's border); its convex hull (a
    symbol reaching the face's edge notches the piece) must fill its turned rectangle (``SQUARE``)."""
    side = math.sqrt(max(w, 1.0) * max(h, 1.0))
    if side < MIN_PX:
        return False
    crop = crop_die(pyr, center, AROUND * side, AROUND * side, 0.0, AROUND_PX)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    yy, xx = np.mgrid[0:AROUND_PX, 0:AROUND_PX]
    rr = np.hypot(xx - AROUND_PX / 2 + 0.5, yy - AROUND_PX / 2 + 0.5) / AROUND_PX
    ring = (rr >= BODY_RING[0]) & (rr < BODY_RING[1])
    body = np.median(lab[ring], axis=0)
    edge = np.ones((AROUND_PX, AROUND_PX), bool)
    edge[2:-2, 2:-2] = False
    table = np.median(lab[edge], axis=0)
    for mask in (
        np.linalg.norm(lab - body, axis=2) < BODY_DIST,  # the body's colour
        np.linalg.norm(lab - table, axis=2) >= BODY_DIST,  # not the table's
    ):
        if _square(mask.astype(np.uint8), ring, side):
            return True
    return False


def _square(mask: np.ndarray, ring: np.ndarray, side: float) -> bool:
    """Whether the piece of ``mask`` covering most of ``ring`` is a square of the box's ``side``,
    clear of the crop's border."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if n < 2:
        return False
    counts = np.bincount(labels[ring], minlength=n)
    counts[0] = 0
    k = int(np.argmax(counts))
    x, y, bw, bh, _ = (int(v) for v in stats[k])
    if x == 0 or y == 0 or x + bw >= AROUND_PX or y + bh >= AROUND_PX:
        return False  # runs on into what lies round it: a table, a board, dice of its colour touching
    contours, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(np.concatenate(contours))
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    if min(rw, rh) <= 0:
        return False
    rect_side = math.sqrt(rw * rh) * AROUND * side / AROUND_PX
    return bool(
        cv2.contourArea(hull) / (rw * rh) >= SQUARE
        and max(rw, rh) / min(rw, rh) <= SQUARE_ASPECT
        and SQUARE_SIDE[0] <= rect_side / side <= SQUARE_SIDE[1]
    )


#: ``found_again``: a die read this many sides away or nearer is the same die (read already)
SAME_DIE = 0.9
#: ... and a die read in the frame whose side is within these factors of the candidate's is one of
#: its set (a square of one colour the size of no die read is left rejected: a key, a tile)
SET_SIZE = (0.7, 1.4)


def found_again(
    pyr: Pyramid,
    read: Sequence[tuple[tuple[float, float], float, float]],
    rejected: Sequence[Rejected],
    steps: Collection[str],
) -> tuple[list[Rejected], list[Rejected]]:
    """(found, still rejected): the candidates that ``steps`` (the classifier's, the verifier's
    "not a die") rejected that are dice all the same: `die_like`, apart from every die ``read``
    (centre, w, h) and of the size of one of them; at most one a place.  Issue 46: a die whose top
    face carries a symbol must be found (and asked), not dropped as not a die."""
    found: list[Rejected] = []
    rest: list[Rejected] = []
    for r in rejected:
        side = math.sqrt(r.w * r.h)
        places = [*read, *((f.center, f.w, f.h) for f in found)]
        apart = all(
            math.hypot(r.center[0] - c[0], r.center[1] - c[1]) > SAME_DIE * min(side, math.sqrt(w * h))
            for c, w, h in places
        )
        of_set = any(SET_SIZE[0] <= math.sqrt(w * h) / side <= SET_SIZE[1] for _, w, h in read)
        if r.step in steps and r.value is not None and apart and of_set and die_like(pyr, r.center, r.w, r.h):
            found.append(r)
        else:
            rest.append(r)
    return found, rest
