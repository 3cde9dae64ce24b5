"""A die can only be where a die can be: three named steps that drop detector candidates before
any is read, each switchable and each measured on and off (benchmarks/vision_d6.py).

- ``EmptyTable``: a fixed camera saw the play area empty; a die stands only where the settled frame
  differs from that empty frame (after matching the overall light, so a cloud or a lamp does not
  make the whole table "differ").
- ``DieSize``: how big a die is in pixels: from the board and the camera's calibration (the die's
  edge in millimetres projected at each place), from a configured range, or learnt from the first
  throws; a box far outside it is not a die.
- ``PlayArea``: a polygon in pixels (the board's outline, or a tray drawn in table.toml); dice are
  looked for only inside it.

Each step answers, for every candidate box, None (it may be a die) or why it is not one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from vision.image_check import check_bgr


@dataclass(frozen=True)
class Box:
    """A candidate die: its centre and box size in frame pixels."""

    center: tuple[float, float]
    w: float
    h: float
    #: a proposed box's spot (vision.where.BoardLook tries one spot at several boxes); -1: a detection
    group: int = -1


class WhereStep(Protocol):
    """One "where a die can be" step: a name a user reads in --explain, and a check per box."""

    @property
    def name(self) -> str: ...

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]: ...


def screen(
    image: np.ndarray, boxes: Sequence[Box], steps: Sequence[WhereStep]
) -> tuple[list[int], list[tuple[int, str, str]]]:
    """The boxes that pass every step, in order (their indices), and for each box a step stops, its
    index, that step's name and why (the first step that stops a box judges it; later steps see only
    the boxes still in).  Both readers judge their candidates with it."""
    left = list(range(len(boxes)))
    stopped: list[tuple[int, str, str]] = []
    for step in steps:
        if not left:
            break
        verdicts = step.check(image, [boxes[i] for i in left])
        stopped += [(i, step.name, why) for i, why in zip(left, verdicts, strict=True) if why is not None]
        left = [i for i, why in zip(left, verdicts, strict=True) if why is None]
    return left, stopped


# -- the empty table ---------------------------------------------------------------------------

#: working width of the comparison (the motion gate's scale is of the same order)
EMPTY_WIDTH = 480
#: width of the coarse grid the light is matched on (the table's light varies slowly across it)
LIGHT_WIDTH = 160


def _coarse(image: np.ndarray) -> np.ndarray:
    """The image on the light-fitting grid: each cell the mean of its pixels (sensor noise averages
    out, so it does not flatten the fitted gain)."""
    h, w = image.shape[:2]
    s = min(1.0, LIGHT_WIDTH / w)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32).reshape(-1, 3)


def _light_fit(frame: np.ndarray, empty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel, the least-squares gain and offset that map the empty table's light to the
    frame's (on the coarse grids; dice cover a small part of the table, so the fit is the table's)."""
    gain, offset = np.ones(3, np.float32), np.zeros(3, np.float32)
    for c in range(3):
        x, y = empty[:, c], frame[:, c]
        mx, my = float(x.mean()), float(y.mean())
        var = float(((x - mx) ** 2).mean())
        g = float(((x - mx) * (y - my)).mean()) / var if var > 1.0 else 1.0
        gain[c], offset[c] = g, my - g * mx
    return gain, offset


def _blurred(image: np.ndarray, s: float) -> np.ndarray:
    """`image` at scale `s` (area), blurred 5x5, float: the comparison's view of it."""
    h, w = image.shape[:2]
    size = (max(1, round(w * s)), max(1, round(h * s)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if s < 1.0 else image
    return cv2.GaussianBlur(small.astype(np.float32), (5, 5), 0)


@dataclass
class EmptyTable:
    """A reading stands only where the frame differs from the empty table.

    ``level``: the per-pixel difference (0-255, any channel, after matching the light) that counts
    as "differs"; ``share``: the share of the middle of a box that must differ for it to stand. A
    die on a table of its own colour still differs (its pips, edges and shadow).

    The light is matched on a coarse grid of the whole frame, then each candidate's box alone is
    compared (at EMPTY_WIDTH's scale): the cost is the grid's and the boxes', not the frame's."""

    empty: np.ndarray
    level: float = 20.0
    share: float = 0.12
    name: str = "empty table"

    def __post_init__(self) -> None:
        self.relearn(self.empty)

    def relearn(self, empty: np.ndarray) -> None:
        """A new empty-table frame (the light changed, or `dicetable calibrate` captured one)."""
        self.empty = check_bgr(empty, "empty-table reference")
        self._grid = _coarse(self.empty)
        self._fitted: tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None = None

    def _light(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`_light_fit` of ``image`` to the empty table, fitted once a frame (both readers, and the
        empty table's own proposals, check their candidates on the same frame)."""
        fitted = self._fitted
        if fitted is not None and fitted[0] is image:
            return fitted[1]
        light = _light_fit(_coarse(image), self._grid)
        self._fitted = (image, light)
        return light

    def _scale(self, image: np.ndarray) -> float:
        if image.shape[:2] != self.empty.shape[:2]:
            raise ValueError(
                f"empty-table reference is {self.empty.shape[1]}x{self.empty.shape[0]} px but the frame is "
                f"{image.shape[1]}x{image.shape[0]}: capture the empty table again with this camera mode"
            )
        return min(1.0, EMPTY_WIDTH / float(image.shape[1]))

    def differs(self, image: np.ndarray) -> np.ndarray:
        """Where the frame differs from the empty table: a bool mask at the comparison's scale."""
        s = self._scale(image)
        gain, offset = self._light(image)
        a, b = _blurred(image, s), _blurred(self.empty, s) * gain + offset
        mask: np.ndarray = np.abs(a - b).max(axis=2) > self.level
        return mask

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]:
        if not boxes:
            return []
        s = self._scale(image)
        gain, offset = self._light(image)
        h, w = image.shape[:2]
        pad = math.ceil(3 / s)  # room for the blur at the comparison's scale
        out: list[str | None] = []
        for b in boxes:
            # the middle 60 % of the box: a die's body, not the table round it
            x0, x1 = b.center[0] - 0.3 * b.w, b.center[0] + 0.3 * b.w
            y0, y1 = b.center[1] - 0.3 * b.h, b.center[1] + 0.3 * b.h
            xa, xb = max(0, math.floor(x0) - pad), min(w, math.ceil(x1) + 1 + pad)
            ya, yb = max(0, math.floor(y0) - pad), min(h, math.ceil(y1) + 1 + pad)
            if xb <= xa or yb <= ya:
                out.append("0% of it differs from the empty table")
                continue
            a = _blurred(image[ya:yb, xa:xb], s)
            e = _blurred(self.empty[ya:yb, xa:xb], s) * gain + offset
            mask = np.abs(a - e).max(axis=2) > self.level
            # back to the middle of the box, without the padding
            k = mask.shape[1] / (xb - xa)
            ia, ib = round((max(0.0, x0) - xa) * k), round((min(float(w), x1) - xa) * k) + 1
            ja, jb = round((max(0.0, y0) - ya) * k), round((min(float(h), y1) - ya) * k) + 1
            part = mask[max(0, ja) : jb, max(0, ia) : ib]
            seen = float(part.mean()) if part.size else 0.0
            out.append(None if seen >= self.share else f"{seen:.0%} of it differs from the empty table")
        return out


#: bands of print values the board's tone curve is fitted on (per channel)
BANDS = 32
#: a spot's middle is tried too when the solid part's middle lies this many die edges from it
TRY_OFFSET = 0.3
#: a spot is also tried at the middle of what differs there by more than a shadow (its pips, edges,
#: colour), when that is at least this share of it
SOLID_SHARE = 0.1
#: what differs within this many box sides of a candidate is that candidate's die (its sides, shadow)
NEAR_BOX = 0.6
#: a shadow: the board darker than its print, by a like factor (within SHADOW_EVEN) in every channel
SHADOW_DARKEST, SHADOW_LIGHTEST, SHADOW_EVEN = 0.9, 0.35, 1.2


# -- the board's known look ---------------------------------------------------------------------


@dataclass
class BoardLook:
    """The empty board as the camera should see it (its print warped through the board's pose,
    :func:`calibration.boardlook.board_in_frame`): what differs from it on the board is something
    lying there.  It drops no box; it *proposes* boxes where a die-sized part of the board differs
    and no candidate lies (the detector misses a white die on the white paper, a red die on a red
    zone, a die under a coloured light): the reader's classifier and verifier then judge them like
    any candidate.

    ``view`` and ``valid``: the print seen at a reduced scale of the frame and where it lies on the
    sheet; ``expected(x, y)``: a die's edge in frame pixels at a place (``DieSize.expected``).  The
    light is matched per channel (gain and offset, robustly: the dice are a small part of the board).
    A frame whose board does not match its print (``poor``: the median difference after matching,
    0-255) proposes nothing: the board is not the one printed, or the pose is off."""

    view: np.ndarray = field(repr=False)
    valid: np.ndarray = field(repr=False)
    expected: Callable[[float, float], float] = field(repr=False)
    level: float = 32.0
    most: int = 16
    poor: float = 12.0
    name: str = "board look"

    def __post_init__(self) -> None:
        if self.view.shape[:2] != self.valid.shape[:2]:
            raise ValueError(
                f"board look: view {self.view.shape[:2]} and valid mask {self.valid.shape[:2]} differ in size"
            )
        self._last: tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None] | None = None
        self._planes = [np.ascontiguousarray(self.view[..., c]) for c in range(3)]
        # not the sheet's last pixels: the pose's error shows there as a difference
        self._inner = cv2.erode(self.valid.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]:
        return [None] * len(boxes)

    def differs(self, image: np.ndarray) -> np.ndarray | None:
        """Where the frame differs from the board's print (a bool mask at the view's scale), or
        None when the board does not look like its print in this frame."""
        got = self._compare(image)
        return None if got is None else got[0]

    def lying(self, image: np.ndarray) -> np.ndarray | None:
        """Where something lies on the board (a bool mask at the view's scale): where the frame
        differs from the print, less what only a shadow explains (the board darker by a like factor
        in every channel); None when the board does not look like its print in this frame."""
        got = self._compare(image)
        return None if got is None else got[0] & ~got[1]

    def _compare(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(differs, shadow) masks, computed once a frame."""
        if self._last is not None and self._last[0] is image:
            return self._last[1]
        got = self._compute(image)
        self._last = (image, got)
        return got

    def _compute(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        image = check_bgr(image)
        vh, vw = self.view.shape[:2]
        small = cv2.resize(image, (vw, vh), interpolation=cv2.INTER_AREA) if image.shape[1] != vw else image
        a = cv2.GaussianBlur(small, (3, 3), 0)
        inner = self._inner
        if int(inner.sum()) < 500:
            return None
        # The light per channel as a tone curve from the print's value to the frame's (the median
        # frame value of each band of print values): a colour cast, a dim or a clipped exposure, a
        # camera's gamma; the dice, a small part of the board, do not move a median.
        sample = inner[::3, ::3]
        centres = (np.arange(BANDS) + 0.5) * (256.0 / BANDS)
        resid = np.zeros(inner.shape, np.uint8)
        ratios: list[np.ndarray] = []
        for c in range(3):
            x = self.view[::3, ::3, c][sample].astype(np.int32) * BANDS // 256
            y = small[::3, ::3, c][sample]
            order = np.lexsort((y, x))
            counts = np.bincount(x, minlength=BANDS)
            known = np.flatnonzero(counts)
            middle = (np.cumsum(counts) - (counts + 1) // 2)[known]
            curve = y[order][middle].astype(np.float64)
            lut = np.clip(np.interp(np.arange(256), centres[known], curve), 0, 255).astype(np.uint8)
            fitted = cv2.LUT(self._planes[c], lut)
            ac = np.ascontiguousarray(a[..., c])
            resid = np.asarray(cv2.max(resid, cv2.absdiff(ac, fitted)), np.uint8)
            ratios.append(cv2.divide(ac.astype(np.float32) + 4.0, fitted.astype(np.float32) + 4.0))
        if float(np.median(resid[::2, ::2][inner[::2, ::2]])) > self.poor:
            return None
        lo = cv2.min(cv2.min(ratios[0], ratios[1]), ratios[2])
        hi = cv2.max(cv2.max(ratios[0], ratios[1]), ratios[2])
        shadow = (hi < SHADOW_DARKEST) & (lo > SHADOW_LIGHTEST) & (hi < lo * SHADOW_EVEN)
        return (resid > self.level) & inner, shadow

    def propose(self, image: np.ndarray, boxes: Sequence[Box]) -> list[Box]:
        """Die-sized parts of the board that differ from its print and lie apart from ``boxes``."""
        mask = self.differs(image)
        if mask is None or not mask.any():
            return []
        h, w = image.shape[:2]
        s = mask.shape[1] / float(w)
        e_mid = self.expected(w / 2.0, h / 2.0)
        if not math.isfinite(e_mid) or e_mid <= 0:
            return []
        e = e_mid * s  # a die's edge at the view's scale
        k = max(1, round(e / 6))
        opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        kc = max(1, round(e / 3))
        # no thin lines (the pose's error along the print's edges); pips and sides: one blob
        m = np.asarray(cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((kc, kc), np.uint8)), np.uint8)
        for b in boxes:  # what a candidate already covers
            r = NEAR_BOX * max(b.w, b.h) * s
            cv2.circle(m, (round(b.center[0] * s), round(b.center[1] * s)), max(1, round(r)), 0, -1)
        dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
        got = self._compare(image)
        solid = (got[0] & ~got[1]) if got is not None else mask
        out: list[Box] = []
        spots = 0
        while spots < self.most:
            _, peak, _, at = cv2.minMaxLoc(dist)
            if peak < 0.3 * e:
                break
            x, y = (at[0] + 0.5) / s - 0.5, (at[1] + 0.5) / s - 0.5
            side = self.expected(x, y)
            side = side if math.isfinite(side) and side > 0 else e_mid
            cv2.circle(dist, at, max(1, round(0.8 * side * s)), 0.0, -1)
            # the spot is the middle of what differs there (the die, its sides, its shadow); the die
            # is where it differs by more than a shadow (pips, edges, its colour): no such part, no die
            out.append(Box((float(x), float(y)), side, side, spots))
            r = max(1, round(0.8 * side * s))
            x0, y0 = max(0, at[0] - r), max(0, at[1] - r)
            part = solid[y0 : at[1] + r + 1, x0 : at[0] + r + 1]
            if part.size and float(part.mean()) >= SOLID_SHARE:
                ys, xs = np.nonzero(part)
                cx, cy = (xs.mean() + x0 + 0.5) / s - 0.5, (ys.mean() + y0 + 0.5) / s - 0.5
                if math.hypot(cx - x, cy - y) > TRY_OFFSET * side:
                    out.append(Box((float(cx), float(cy)), side, side, spots))
            spots += 1
        return out


# -- the size of a die ------------------------------------------------------------------------


@dataclass
class DieSize:
    """A box is a die only if its longer side lies within the die's size at that place.

    ``expected(x, y)`` gives the die's edge in pixels at a place; a box whose longer side is under
    ``low`` or over ``high`` times it is not a die (a box covers a die's sides and shadow too, so
    ``high`` is generous). Make one with :meth:`fixed`, :meth:`learnt` or :meth:`from_board`."""

    expected: Callable[[float, float], float]
    low: float = 0.5
    high: float = 2.2
    source: str = "configured"
    name: str = "die size"
    #: the set's smallest die over the die ``expected`` gives (1.0: one size; a still's finer look
    #: puts the smallest at the detector's trained size, `vision.numbered.reader.die_side`)
    smallest: float = 1.0

    @classmethod
    def fixed(cls, low_px: float, high_px: float) -> DieSize:
        """A configured range of die edges in pixels (table.toml's ``die_size_px = [low, high]``)."""
        if not 0 < low_px <= high_px:
            raise ValueError(f"die size range: expected 0 < low <= high pixels, got [{low_px}, {high_px}]")
        mid = math.sqrt(low_px * high_px)
        return cls(lambda x, y: mid, low_px / mid, high_px / mid, f"configured {low_px:g}-{high_px:g} px")

    @classmethod
    def learnt(cls, sides_px: Sequence[float], low: float = 0.6, high: float = 1.6) -> DieSize:
        """From the box sides of dice read in the first throws (the median; at least 3 dice)."""
        sides = [float(s) for s in sides_px if s > 0]
        if len(sides) < 3:
            raise ValueError(f"learning the die size needs at least 3 dice read, got {len(sides)}")
        m = float(np.median(sides))
        return cls(lambda x, y: m, low, high, f"learnt: median {m:.0f} px over {len(sides)} dice")

    @classmethod
    def from_board(
        cls,
        die_mm: float,
        camera_matrix: np.ndarray,
        dist_coeffs: np.ndarray,
        rvec: np.ndarray,
        tvec: np.ndarray,
        low: float = 0.5,
        high: float = 2.2,
    ) -> DieSize:
        """From the board's pose and the camera: the die's top face (``die_mm`` above the board)
        projected where the box's centre's ray meets that plane; its longer pixel side."""
        k = np.asarray(camera_matrix, np.float64)
        d = np.asarray(dist_coeffs, np.float64)
        r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
        t = np.asarray(tvec, np.float64).reshape(3)
        cam = -r.T @ t  # the camera in board mm

        def expected(x: float, y: float) -> float:
            ray = cv2.undistortPoints(np.array([[[x, y]]], np.float64), k, d).reshape(2)
            v = r.T @ np.array([ray[0], ray[1], 1.0])
            # the board's z axis points away from the camera (the camera is at z < 0): the top face
            # lies at z = -die_mm
            lam = (-die_mm - cam[2]) / v[2] if abs(v[2]) > 1e-9 else float("nan")
            if not lam > 0:
                return float("nan")
            p = cam + lam * v
            h = die_mm / 2
            sq = np.array(
                [[p[0] + dx, p[1] + dy, -die_mm] for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))]
            )
            px, _ = cv2.projectPoints(sq, np.asarray(rvec, np.float64), t, k, d)
            q = px.reshape(4, 2)
            return float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))

        return cls(expected, low, high, f"board: {die_mm:g} mm dice")

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]:
        out: list[str | None] = []
        for b in boxes:
            e = self.expected(*b.center)
            side = max(b.w, b.h)
            if not math.isfinite(e) or e <= 0:
                out.append(None)  # no size known there (off the board's plane): leave it to the others
            elif side < self.low * e:
                out.append(f"{side:.0f} px is too small for a die ({e:.0f} px there, {self.source})")
            elif side > self.high * e:
                out.append(f"{side:.0f} px is too big for a die ({e:.0f} px there, {self.source})")
            else:
                out.append(None)
        return out


# -- the play area ----------------------------------------------------------------------------


@dataclass
class PlayArea:
    """Dice are looked for only inside a polygon in pixels (the board's outline seen by the camera,
    or a tray drawn in table.toml); a box whose centre lies outside it is not a die in play."""

    polygon: np.ndarray = field(repr=False)
    name: str = "play area"

    def __post_init__(self) -> None:
        poly = np.asarray(self.polygon, np.float64)
        if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3 or not np.isfinite(poly).all():
            raise ValueError(
                f"play area: expected a polygon of 3 or more [x, y] pixel points, got {self.polygon!r}"
            )
        if abs(cv2.contourArea(poly.astype(np.float32))) < 1.0:
            raise ValueError("play area: the polygon encloses no area (its points lie on a line)")
        self.polygon = poly

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]:
        poly = self.polygon.astype(np.float32)
        return [
            None
            if cv2.pointPolygonTest(poly, (float(b.center[0]), float(b.center[1])), False) >= 0
            else "outside the play area"
            for b in boxes
        ]


def board_outline_px(
    outline_mm: np.ndarray,
    camera_matrix: np.ndarray,
    dist_coeffs: np.ndarray,
    rvec: np.ndarray,
    tvec: np.ndarray,
) -> np.ndarray:
    """The board's outline (mm, on the board plane) as the camera sees it, in pixels."""
    pts = np.column_stack([np.asarray(outline_mm, np.float64), np.zeros(len(outline_mm))])
    px, _ = cv2.projectPoints(
        pts,
        np.asarray(rvec, np.float64),
        np.asarray(tvec, np.float64),
        np.asarray(camera_matrix, np.float64),
        np.asarray(dist_coeffs, np.float64),
    )
    return np.asarray(px.reshape(-1, 2), np.float64)


__all__ = ["BoardLook", "Box", "DieSize", "EmptyTable", "PlayArea", "WhereStep", "board_outline_px"]
