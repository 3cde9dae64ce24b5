"""The empty table finds dice (issue 30): what lies where the settled frame differs from the empty
table, in die-sized pieces, proposed to the reader beside the detector's own candidates.

A table sees its empty board before every throw (the motion gate keeps that frame, `dicetable
calibrate empty` stores one).  :class:`EmptyDiff` compares a settled frame with it:

1. **The light between them.**  Per channel, the ratio of the frame to the empty table on a coarse
   grid, each cell's median (the dice and their shadows are a small part of a cell, so the median is
   the table's), smoothed across cells and spread back over the frame: exposure, white balance and a
   slow shading across the table (a cloud, a lamp turned on) all come out as this gain map.
2. **What changed, and what only darkened.**  Where the frame differs from the gain-matched empty
   table by more than ``level`` in any channel, something changed.  A shadow (of a die, a hand, a
   player leaning over) only darkens what lies under it, by a like factor in every channel: the
   chroma-normalised difference (the frame against the empty table scaled to the frame's brightness
   there) stays small.  What changed by more than a shadow is *solid*: a die's body, its pips, its
   edges; a white die on the white paper differs there too, by its pips, its darker sides and edges.
3. **Die-sized pieces.**  The solid parts are closed over a die's pips and sides into blobs; a blob
   much larger than three dice is no die (a hand, a sleeve: never proposed); a blob of two or three
   touching dice is split by its distance transform, one peak a die, each peak's neighbourhood of
   a die's size suppressed before the next is taken (the die's edge at each place from the board's
   pose, ``expected``).

Each piece no detector candidate already covers is proposed (a `vision.where.Box`); the reader judges
it as any candidate.  Nothing it finds is dropped without a word (issue 30): a piece the reader calls
"not a die" that lies alone (no die read near it: :attr:`EmptyDiff.ask_alone`) is kept as a question
(read no surer than the asking threshold, so the table asks); one beside a die read is rejected as that
die's sides or shadow, saying so; a blob it proposes nothing in (far larger than dice, beside a solid
change wider than dice: a wide shadow alone drops nothing, issue 45; over its limit of pieces) is
in :attr:`EmptyDiff.dropped` and among the reader's rejected with why (`dicetable read --explain`).
With :attr:`EmptyDiff.insist` every piece the reader rejects is kept as a question.  ``lying`` is the
solid-change mask, the stacks-by-sides cue's input (`calibration.raised`): a die raised on another
shows the lower die's sides, and the empty table shows them wherever the board is (off the printed
board too), not only where its print is known.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.image_check import check_bgr
from vision.where import Box

#: working width of the comparison (a 1280 px frame at half scale: a 14 mm die 80 cm away is ~11 px)
WORK_WIDTH = 640
#: cells of the light's gain map, in working pixels (each ~3 die edges: a die and its shadow are a
#: minority of a cell, so the cell's median ratio is the table's)
CELL = 32
#: a shadow darkens by at most this much (its ratio to the empty table above SHADOW_LIGHTEST)...
SHADOW_LIGHTEST = 0.3
#: ... and darkens every channel by a like factor (the largest ratio within this of the smallest)
SHADOW_EVEN = 1.2
#: an empty-table value this high may be clipped (the light there more than the camera shows)
CLIPPED = 248.0
#: ... and is smooth: its darkening within 0.08 of its 5x5 mean
ROUGH = 0.08
#: a die's pips, edges and sides are closed into one blob over this many die edges
CLOSE = 0.6
#: a die's box side (``expected``) per die edge
BOX_PER_EDGE = 1.2
#: a spot is tried again this many die edges away from the nadir (its top face beyond its sides)
TOP_SHIFT = 0.4
#: a candidate's sides reach this many box sides towards the nadir (left out of the pieces)
SIDES = 0.5
#: the group numbers of its proposals (vision.reader keeps one reading a group), apart from other steps
GROUPS = 10_000
#: what changed is at most this many dice edges wide where dice lie (two side by side, with shadows)
WIDE = 2.4
#: ... and is no die's shadow when this share of its wide part changed by more than a shadow
WIDE_SOLID = 0.5
#: a wide shadow alone drops nothing (issue 45 item 1: two touching dice beside their shadow were
#: refused); off: any change wider than WIDE dice drops the blobs beside it (benchmarks' "before")
SHADOW_NOT_WIDE = True
#: a thin blob of change (under a die's area) whose hull is FILL_LEAST to FILL_MOST die areas is a
#: die's outline, its hull filled (off: the benchmarks' "before")
FILL_OUTLINES = True
FILL_LEAST = 0.5
#: ... its parts found closed over this many die edges (a die's lit and shaded edges, broken)
FILL_CLOSE = 0.9
#: ... where at most FILL_PLAIN of the empty table under the hull is FILL_PRINT grey levels off its median
FILL_PLAIN = 0.2
FILL_PRINT = 40.0
FILL_MOST = 1.6


@dataclass
class Changed:
    """One frame's comparison (working scale ``scale`` of the frame): where it changed, and where by
    more than a shadow."""

    scale: float
    changed: np.ndarray = field(repr=False)
    solid: np.ndarray = field(repr=False)


def gain_map(frame: np.ndarray, empty: np.ndarray, cell: int = CELL) -> np.ndarray:
    """Per pixel and channel, the gain that maps the empty table's light to the frame's (both float32
    at one scale): the median ratio of each ``cell`` x ``cell`` block, then per channel a smooth
    surface (the log gain quadratic in x and y) fitted to the blocks, the blocks it fits worst left out
    and fitted again: exposure, white balance and a slow shading, never a shadow (a hand's shadow
    covers a few blocks; taken into the gain it would make the table round it look brighter)."""
    h, w = frame.shape[:2]
    gh, gw = max(1, h // cell), max(1, w // cell)
    # the median of a subsample: 64 of a cell's pixels on a regular lattice are plenty for a median
    # (every step-th pixel of the cell, row by row; the ratio is taken at those pixels only)
    step = max(1, (cell * cell) // 64)
    dy, dx = np.divmod(np.arange(0, cell * cell, step), cell)
    rows = (np.arange(gh) * cell)[:, None, None] + dy[None, None, :]  # gh x 1 x samples
    cols = (np.arange(gw) * cell)[None, :, None] + dx[None, None, :]  # 1 x gw x samples
    ratio = (frame[rows, cols] + 4.0) / (empty[rows, cols] + 4.0)  # gh x gw x samples x 3
    grid = np.log(np.median(ratio, axis=2).reshape(-1, 3).astype(np.float64))
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float64)
    xs, ys = (xx.ravel() + 0.5) / gw - 0.5, (yy.ravel() + 0.5) / gh - 0.5
    terms = np.column_stack([np.ones_like(xs), xs, ys, xs * xs, ys * ys, xs * ys])
    fitted = np.zeros_like(grid)
    for c in range(3):
        use = np.ones(len(xs), bool)
        for _ in range(3):
            if int(use.sum()) < terms.shape[1] * 2:
                break
            coef = np.linalg.lstsq(terms[use], grid[use, c], rcond=None)[0]
            fitted[:, c] = terms @ coef
            resid = np.abs(grid[:, c] - fitted[:, c])
            use = resid <= max(0.04, 2.5 * float(np.median(resid[use])))
        if int(use.sum()) < terms.shape[1] * 2 and not fitted[:, c].any():
            fitted[:, c] = float(np.median(grid[:, c]))
    g = np.exp(fitted).astype(np.float32).reshape(gh, gw, 3)
    return np.asarray(cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


def local_gain_map(frame: np.ndarray, empty: np.ndarray, cell: int = CELL) -> np.ndarray:
    """Like `gain_map`, but the light's shape left free: each ``cell`` block's median ratio, each
    block then the median of its 3 x 3 neighbourhood (a block a few dice fill takes its neighbours'),
    spread back smoothly.  A lamp's pool of light or a cloud's edge, which the smooth surface of
    `gain_map` leaves as change, is light here; a die (a small part of any block) stays change.  For
    judging whether a frame shows the empty table under a new light (controller.empty_learn)."""
    h, w = frame.shape[:2]
    gh, gw = max(1, h // cell), max(1, w // cell)
    hh, ww = gh * cell, gw * cell
    ratio = (frame[:hh, :ww] + 4.0) / (empty[:hh, :ww] + 4.0)
    blocks = ratio.reshape(gh, cell, gw, cell, 3).transpose(0, 2, 1, 3, 4).reshape(gh, gw, cell * cell, 3)
    step = max(1, (cell * cell) // 64)
    # a pixel clipped at white in either frame tells nothing of the light's gain there
    seen = np.minimum(frame[:hh, :ww], empty[:hh, :ww]) < CLIPPED
    seen &= np.maximum(frame[:hh, :ww], empty[:hh, :ww]) < CLIPPED
    kept = seen.reshape(gh, cell, gw, cell, 3).transpose(0, 2, 1, 3, 4).reshape(gh, gw, cell * cell, 3)
    sample = np.where(kept[:, :, ::step], blocks[:, :, ::step], np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a block clipped through: its neighbours' gain
        grid = np.nanmedian(sample, axis=2).astype(np.float32)
    for c in range(3):
        bad = ~np.isfinite(grid[..., c])
        grid[..., c][bad] = float(np.nanmedian(grid[..., c])) if (~bad).any() else 1.0
    if gh >= 3 and gw >= 3:
        padded = np.pad(grid, ((1, 1), (1, 1), (0, 0)), mode="edge")
        near = np.stack([padded[dy : dy + gh, dx : dx + gw] for dy in range(3) for dx in range(3)])
        grid = np.median(near, axis=0).astype(np.float32)
    return np.asarray(cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


def compare(image: np.ndarray, empty_small: np.ndarray, level: float = 24.0, local: bool = False) -> Changed:
    """Where ``image`` (BGR, full size) differs from the empty table (``empty_small``: the empty
    frame at working scale, float32) and where by more than a shadow (see the module's doc).
    ``local``: the light matched block by block (`local_gain_map`), not by a smooth surface."""
    h, w = image.shape[:2]
    eh, ew = empty_small.shape[:2]
    s = ew / float(w)
    f = cv2.resize(image, (ew, eh), interpolation=cv2.INTER_AREA) if (eh, ew) != (h, w) else image
    f = cv2.GaussianBlur(f.astype(np.float32), (3, 3), 0)
    light = local_gain_map(f, empty_small) if local else gain_map(f, empty_small)
    e = cv2.multiply(empty_small, light)
    if local:  # the new light brighter than the camera shows: the frame clips where the table would
        e = np.minimum(e, 255.0)
    fc, ec = cv2.split(f), cv2.split(e)
    diff = cv2.max(cv2.max(cv2.absdiff(fc[0], ec[0]), cv2.absdiff(fc[1], ec[1])), cv2.absdiff(fc[2], ec[2]))
    changed = diff > level
    # the chroma-normalised difference: each channel's ratio to the empty table, alike in every
    # channel under a shadow (a channel the empty table clipped at white is left out: its ratio is
    # higher in a shadow, the light there being more than it could show)
    ratios = [cv2.divide(fc[c] + 4.0, ec[c] + 4.0) for c in range(3)]
    clipped = [ec[c] >= CLIPPED for c in range(3)]
    some = [bool(clipped[c].any()) for c in range(3)]
    highs = [np.where(clipped[c], np.float32(0.0), ratios[c]) if some[c] else ratios[c] for c in range(3)]
    lows = [np.where(clipped[c], np.float32(10.0), ratios[c]) if some[c] else ratios[c] for c in range(3)]
    hi = cv2.max(cv2.max(highs[0], highs[1]), highs[2])
    lo = cv2.min(cv2.min(lows[0], lows[1]), lows[2])
    lf = cv2.add(cv2.add(fc[0], fc[1]), fc[2])
    le = cv2.add(cv2.add(ec[0], ec[1]), ec[2])
    q = cv2.divide(lf + 6.0, le + 6.0)
    alike = (hi < 1.02) & (lo > SHADOW_LIGHTEST) & ((hi < lo * SHADOW_EVEN) | (hi == 0.0))
    # a shadow is smooth: its darkening varies slowly (its penumbra is soft); a die's pips and edges
    # change it within a pixel or two (a white die on the white paper darkens by a like factor too)
    rough = cv2.absdiff(q, cv2.blur(q, (5, 5))) > ROUGH
    shadow = alike & (q < 1.0) & ~rough
    solid = changed & ~shadow
    return Changed(s, changed, solid)


@dataclass
class EmptyDiff:
    """A where-step that drops nothing and proposes die-sized pieces of what changed since the empty
    table (see the module's doc).

    ``empty``: the empty table (full size BGR); ``expected(x, y)``: a die's edge in frame pixels at a
    place (None: the median side of the detector's boxes this frame, or nothing proposed without
    any); ``most``: at most this many pieces a frame."""

    empty: np.ndarray = field(repr=False)
    expected: Callable[[float, float], float] | None = field(default=None, repr=False)
    #: the point below the camera (frame pixels, from the board's pose; None: unknown): a die's top
    #: face lies beyond its sides, away from it
    nadir: tuple[float, float] | None = None
    level: float = 24.0
    most: int = 24
    #: a blob this many die areas or more (its solid part) is no die: a hand, an arm, a sleeve
    too_big: float = 5.0
    #: a piece needs a distance-transform peak of this share of a die's edge (half its width)
    peak: float = 0.25
    name: str = "empty diff"
    #: proposals the reader keeps as questions when its classifier calls them "not a die"
    insist: bool = False
    #: a proposal the reader calls "not a die" that lies alone (no die read within ALONE box sides)
    #: is kept as a question all the same: something lies there and nothing explains it (issue 30)
    ask_alone: bool = True
    #: the light matched block by block (`local_gain_map`): a lamp's pool is light, not change
    local_light: bool = False

    def __post_init__(self) -> None:
        self.empty = check_bgr(self.empty, "empty-table reference")
        h, w = self.empty.shape[:2]
        s = min(1.0, WORK_WIDTH / float(w))
        size = (max(1, round(w * s)), max(1, round(h * s)))
        small = cv2.resize(self.empty, size, interpolation=cv2.INTER_AREA) if s < 1.0 else self.empty
        self._small = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)
        self._last: tuple[np.ndarray, Changed] | None = None
        #: the blobs of change the last `propose` proposed no piece in: (x, y, size px, why)
        self.dropped: list[tuple[float, float, float, str]] = []

    def changes(self, image: np.ndarray) -> Changed:
        """The comparison of ``image`` with the empty table, computed once a frame."""
        if self._last is not None and self._last[0] is image:
            return self._last[1]
        image = check_bgr(image)
        if image.shape[:2] != self.empty.shape[:2]:
            raise ValueError(
                f"empty-table reference is {self.empty.shape[1]}x{self.empty.shape[0]} px but the frame is "
                f"{image.shape[1]}x{image.shape[0]}: capture the empty table again with this camera mode"
            )
        got = compare(image, self._small, self.level, self.local_light)
        self._last = (image, got)
        return got

    def check(self, image: np.ndarray, boxes: Sequence[Box]) -> list[str | None]:
        return [None] * len(boxes)

    def lying(self, image: np.ndarray) -> np.ndarray:
        """Where something lies (a bool mask at the working scale): what changed by more than a shadow."""
        return self.changes(image).solid

    def _edge(self, boxes: Sequence[Box]) -> Callable[[float, float], float] | None:
        if self.expected is not None:
            return self.expected
        sides = [max(b.w, b.h) for b in boxes if b.group < 0]
        if not sides:
            return None
        m = float(np.median(sides))
        return lambda x, y: m

    def pieces(self, image: np.ndarray) -> list[tuple[float, float, float]]:
        """Die-sized pieces of the solid change, (x, y, edge) in frame pixels, without regard to any
        candidate (the tests' and the benchmark's view of the step)."""
        seen: set[int] = set()
        out = []
        for b in self.propose(image, []):
            if b.group not in seen:
                seen.add(b.group)
                out.append((b.center[0], b.center[1], b.w))
        return out

    def propose(self, image: np.ndarray, boxes: Sequence[Box]) -> list[Box]:
        """Die-sized pieces of what changed by more than a shadow, away from ``boxes`` (the blobs of
        change it proposes nothing in: ``dropped``)."""
        self.dropped = []
        edge = self._edge(boxes)
        if edge is None:
            return []
        got = self.changes(image)
        s = got.scale
        h, w = image.shape[:2]
        e_mid = edge(w / 2.0, h / 2.0)
        if not math.isfinite(e_mid) or e_mid <= 0:
            return []
        # a die's edge at the working scale (``expected`` is the longer side of its box, up to 1.41
        # edges for a die turned 45 degrees: 1.2 is the middle)
        e = e_mid * s / BOX_PER_EDGE
        kc = max(3, round(e * CLOSE)) | 1
        # a die's pips, edges and sides (a white die on the white paper: little more) closed into one
        # blob, then what is thinner than a die's edge's quarter opened away (seams, noise)
        m = np.asarray(
            cv2.morphologyEx(
                got.solid.astype(np.uint8),
                cv2.MORPH_CLOSE,
                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc)),
            )
        )
        if FILL_OUTLINES:
            # a light die on a print of its colour changes only at its edges (the lit and the shaded
            # ones) and its pips: a thin hook or ring round a die-sized hull, filled here before thin
            # parts are opened away (issue 45 item 1: white dice under green light on the green print)
            kf = max(3, round(e * FILL_CLOSE)) | 1
            loose = cv2.morphologyEx(
                got.solid.astype(np.uint8),
                cv2.MORPH_CLOSE,
                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kf, kf)),
            )
            nb, lab0, st, _ = cv2.connectedComponentsWithStats(loose, connectivity=8)
            for j in range(1, nb):
                area = int(st[j, cv2.CC_STAT_AREA])
                if max(st[j, cv2.CC_STAT_WIDTH], st[j, cv2.CC_STAT_HEIGHT]) > 2.0 * e or area > e * e:
                    continue
                ys, xs = np.nonzero(lab0 == j)
                hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32))
                if not FILL_LEAST * e * e <= cv2.contourArea(hull) <= FILL_MOST * e * e:
                    continue
                inside = np.zeros_like(m)
                cv2.fillConvexPoly(inside, hull, 1)
                # on a plain stretch of print only: an outline of change on the empty table's own
                # pattern (an ArUco marker's ink, a printed figure) is its light, not a die
                grey = self._small[inside > 0].mean(axis=1)
                if float(np.mean(np.abs(grey - np.median(grey)) > FILL_PRINT)) <= FILL_PLAIN:
                    m[inside > 0] = 1
        k = max(3, round(e / 4)) | 1
        m = np.asarray(
            cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        )
        # (the blobs' areas counted over their own pixels: the mask is mostly empty, and the labelling
        # alone costs a tenth of one that also measures every blob's box and centroid)
        n, lab = cv2.connectedComponents(m, connectivity=8)
        areas = np.bincount(lab[m > 0], minlength=n)
        self.dropped = []
        for i in range(1, n):  # no die: a blob far larger than three dice (a hand) or than a speck
            if areas[i] > self.too_big * e * e:
                self._drop(
                    lab == i, s, f"a blob of change {areas[i] / (e * e):.0f} dice large (an arm, a sheet?)"
                )
                m[lab == i] = 0
        # what changed (a die with its shadow, dice side by side) is never wider than WIDE dice edges
        # unless it is something else (a hand, an arm, a sheet of paper): nothing proposed there
        wide = cv2.distanceTransform(got.changed.astype(np.uint8), cv2.DIST_L2, 3) > WIDE * e / 2
        if wide.any():
            grow = max(3, round(e)) | 1
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))
            # the wide change's solid part (a hand, an arm, a sheet are solid; a shadow, however wide,
            # is not): dice beside a wide shadow (touching dice casting one under a low lamp) are
            # split into pieces as any blob, unless they are themselves wider than WIDE dice
            _, wl = cv2.connectedComponents(wide.astype(np.uint8), connectivity=8)
            solid_wide = np.zeros_like(m)
            for j in range(1, int(wl.max()) + 1):
                core = wl == j
                if not SHADOW_NOT_WIDE or float(got.solid[core].mean()) >= WIDE_SOLID:
                    solid_wide[core] = 1
            near_wide = cv2.dilate(solid_wide, disc)
            _, lab = cv2.connectedComponents(m, connectivity=8)
            bad = set(int(i) for i in np.unique(lab[(near_wide > 0) & (m > 0)]) if i > 0)
            if SHADOW_NOT_WIDE:  # a blob itself that wide
                broad = cv2.distanceTransform(m, cv2.DIST_L2, 3) > WIDE * e / 2
                bad |= set(int(i) for i in np.unique(lab[broad]) if i > 0)
            for i in sorted(bad):
                self._drop(lab == i, s, f"beside a change wider than {WIDE:g} dice (an arm, a sheet?)")
            if bad:
                m[np.isin(lab, sorted(bad))] = 0
        for b in boxes:  # what a candidate already covers: its die, and its sides towards the nadir
            rad = max(1, round(0.6 * max(b.w, b.h) * s))
            mid = (round(b.center[0] * s), round(b.center[1] * s))
            cv2.circle(m, mid, rad, 0, -1)
            if self.nadir is not None:
                dx, dy = self.nadir[0] - b.center[0], self.nadir[1] - b.center[1]
                far = math.hypot(dx, dy)
                if far > 1.0:
                    f = min(far, SIDES * max(b.w, b.h)) / far
                    end = (round((b.center[0] + f * dx) * s), round((b.center[1] + f * dy) * s))
                    cv2.line(m, mid, end, 0, 2 * rad)
        dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
        out: list[Box] = []
        spots = 0
        while spots < self.most:
            _, peak, _, at = cv2.minMaxLoc(dist)
            if peak < self.peak * e:
                break
            x, y = (at[0] + 0.5) / s - 0.5, (at[1] + 0.5) / s - 0.5
            side = edge(x, y)
            side = side if math.isfinite(side) and side > 0 else e_mid
            # one die here: its neighbourhood is no other die's middle
            cv2.circle(dist, at, max(1, round(0.8 * side * s / BOX_PER_EDGE)), 0.0, -1)
            group = GROUPS + spots
            out.append(Box((float(x), float(y)), side, side, group))
            if self.nadir is not None:
                # what changed there may be mostly the die's sides (a white die's top face can match
                # the paper): its top face is also tried, beyond them, away from the nadir
                dx, dy = x - self.nadir[0], y - self.nadir[1]
                r = math.hypot(dx, dy)
                if r > 0.5 * side:
                    f = TOP_SHIFT * side / BOX_PER_EDGE / r
                    out.append(Box((float(x + f * dx), float(y + f * dy)), side, side, group))
            spots += 1
        while True:  # what is left once the limit is reached is said, never dropped unsaid
            _, peak, _, at = cv2.minMaxLoc(dist)
            if peak < self.peak * e:
                break
            x, y = (at[0] + 0.5) / s - 0.5, (at[1] + 0.5) / s - 0.5
            self.dropped.append((float(x), float(y), e_mid, f"over the limit of {self.most} pieces a frame"))
            cv2.circle(dist, at, max(1, round(0.8 * e_mid * s / BOX_PER_EDGE)), 0.0, -1)
        return out

    def _drop(self, blob: np.ndarray, s: float, why: str) -> None:
        """A blob of change no piece is proposed in: kept in ``dropped`` (its middle, its size in frame
        pixels, why), for the reader to report with what it rejects."""
        ys, xs = np.nonzero(blob)
        if len(xs) == 0:
            return
        x, y = (float(xs.mean()) + 0.5) / s - 0.5, (float(ys.mean()) + 0.5) / s - 0.5
        size = (float(xs.max() - xs.min()) + 1.0) / s
        self.dropped.append((x, y, size, why))


__all__ = ["Changed", "EmptyDiff", "compare", "gain_map", "local_gain_map"]
