"""Where each die lies on the board, in millimetres, from its top-face quad in pixels.

A flat die's top face is a square ``s`` mm on a side seen at height
``(stack_level + 1) * s`` above the board.  Back-projecting the quad's corners
through the camera onto that plane and dropping them vertically gives the
die's footprint as seen from straight above (what the rules call touching).

The stack level comes from two cues:

* size: along each pixel ray the back-projected footprint shrinks linearly
  with the plane's height, ``side(h) = side(0) * (H - h) / H`` (``H`` the
  camera's height), so the height at which the quad is exactly ``s`` wide is
  ``h = H * (1 - s / side(0))``;
* solidity: two dice cannot share space, and a raised die's centre must lie
  over the top face of a die one level down.

With the frame at hand, a third cue orders two overlapping dice of different
colours: where their top faces overlap in the image, the pixels belong to the
upper die.

Each die, lowest-looking first (and after any die the frame shows beneath
it), takes the level that best fits its size cue (in units of that cue's
uncertainty) among the levels physics allows; a raised die with no die seen
beneath pays a penalty (its support may be hidden, but the size cue must then
be clear).  The size cue assumes a cube (``d6``); for other kinds its
uncertainty is set so large that solidity alone decides.

A stacked die takes its zones and centre-line side from its own footprint
(judged from straight above) and its field status from the die it rests on
(that is what holds it up).  A die at level >= 1 whose support is not seen
(fully hidden) keeps ``rests_on = None``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import polygons as pg
from calibration.board import BoardLayout
from calibration.camera import CameraCalibration
from calibration.polygons import Poly
from calibration.pose import BoardPose, estimate_board_pose

#: Footprints at one level sharing more than this fraction of a face cannot both be there.
CONFLICT_FRACTION = 0.08
#: Assumed corner noise (px) of a top-face quad, for how far the size cue can be trusted.
QUAD_NOISE_PX = 0.5
MAX_STACK = 4
#: Kinds whose top face is a square of the die's size (the size cue applies).
CUBE_KINDS = frozenset({"d6"})
#: Size-cue uncertainty (levels) for other kinds: large, so that solidity decides.
NON_CUBE_SIGMA = 10.0
#: Lab channel weights (OpenCV 8-bit Lab) for telling dice apart by colour.
LAB_WEIGHTS = np.array([0.3, 1.0, 1.0])
#: Cost (in squared sigmas of the size cue) of a raised die with no die seen beneath it.
UNSUPPORTED_COST = 9.0


class GeometryError(ValueError):
    """Bad input to :func:`place` (names the die and what was expected)."""


@dataclass(frozen=True)
class Placement:
    """The board-layout facts of one footprint (no stacking)."""

    zones: tuple[str, ...]
    min_multiplier: int | None
    side: str | None
    field_status: str
    card_slot: str | None


@dataclass(frozen=True)
class DieGeometry:
    board_center_mm: tuple[float, float]
    footprint_mm: Poly
    stack_level: int
    rests_on: int | None
    zones: tuple[str, ...]
    min_multiplier: int | None
    side: str | None
    field_status: str
    card_slot: str | None
    level_estimate: float = 0.0  # continuous height / die size - 1, from the size cue alone

    def to_json(self) -> dict[str, Any]:
        return {
            "board_center_mm": [round(self.board_center_mm[0], 2), round(self.board_center_mm[1], 2)],
            "footprint_mm": [[round(float(x), 2), round(float(y), 2)] for x, y in self.footprint_mm],
            "stack_level": self.stack_level,
            "rests_on": self.rests_on,
            "zones": list(self.zones),
            "min_multiplier": self.min_multiplier,
            "side": self.side,
            "field_status": self.field_status,
            "card_slot": self.card_slot,
        }


def classify(footprint: Poly, board: BoardLayout) -> Placement:
    """Zones touched, centre-line side and field status of a footprint on the board."""
    fp = pg.as_poly(footprint)
    touched = [z for z in board.zones if pg.overlaps(fp, z.polygon)]
    zones = tuple(z.name for z in touched)
    min_mult = min((z.multiplier for z in touched), default=None)
    side = board.centre_line.side_of(fp) if board.centre_line is not None else None
    if any(pg.overlaps(fp, f.polygon) for f in board.fields):
        return Placement(zones, min_mult, side, "field", None)
    slots = [(pg.overlap_area(fp, c.polygon), c.name) for c in board.card_slots]
    slots = [s for s in slots if s[0] > pg.TOUCH_AREA_MM2]
    if slots:
        return Placement(zones, min_mult, side, "card_slot", max(slots)[1])
    return Placement(zones, min_mult, side, "off", None)


def boundary_clearance(footprint: Poly, board: BoardLayout) -> float:
    """Distance (mm) from a footprint to the nearest line that decides its classification."""
    fp = pg.as_poly(footprint)
    return min(pg.boundary_distance(fp, line, closed) for line, closed in board.boundaries())


def is_borderline(footprint: Poly, board: BoardLayout, margin_mm: float = 1.0) -> bool:
    """True when the die's zones, side or field status would change were its outline
    ``margin_mm`` larger or smaller all round (a boundary runs within ``margin_mm`` of it)."""
    fp = pg.as_poly(footprint)
    c = pg.centroid(fp)
    # Distance from the centroid to the nearest edge line, to scale the outline by margin_mm.
    n = len(fp)
    inner = min(pg.point_segment_distance(c, fp[i], fp[(i + 1) % n]) for i in range(n))
    if inner <= margin_mm:
        return True
    grown = c + (fp - c) * (inner + margin_mm) / inner
    shrunk = c + (fp - c) * (inner - margin_mm) / inner
    return classify(grown, board) != classify(shrunk, board)


def _check_quads(quads_px: Sequence[Any], kinds: Sequence[str]) -> list[NDArray[np.float64]]:
    if len(quads_px) != len(kinds):
        raise GeometryError(f"got {len(quads_px)} quads but {len(kinds)} kinds: one kind per die")
    out = []
    for i, q in enumerate(quads_px):
        try:
            a = np.asarray(q, dtype=np.float64)
        except (TypeError, ValueError):
            raise GeometryError(f"die {i}: quad {q!r} is not 4 [x, y] pixel corners") from None
        if a.shape != (4, 2) or not np.all(np.isfinite(a)):
            raise GeometryError(f"die {i}: expected a quad of 4 [x, y] pixel corners, got shape {a.shape}")
        if pg.area(a) < 1.0:
            raise GeometryError(f"die {i}: quad {a.tolist()} has no area")
        out.append(a)
    return out


def place(
    quads_px: Sequence[Any],
    kinds: Sequence[str],
    calibration: CameraCalibration,
    board: BoardLayout,
    image: NDArray[np.uint8] | None = None,
    pose: BoardPose | None = None,
    die_size_mm: float | None = None,
) -> list[DieGeometry]:
    """Board geometry of every die from its top-face quad (4 pixel corners, any order around).

    The board pose is ``pose`` or, when absent, estimated from ``image``'s markers.
    """
    quads = _check_quads(quads_px, kinds)
    if image is not None:
        calibration = calibration.for_image(image.shape[1], image.shape[0])
    if pose is None:
        if image is None:
            raise GeometryError("place() needs the board pose or the frame to find it in (image=...)")
        pose = estimate_board_pose(image, calibration, board)
    s = float(die_size_mm or board.die_size_mm)
    cam_h = -float(pose.camera_position()[2])
    if cam_h <= MAX_STACK * s:
        raise GeometryError(f"camera is {cam_h:.0f} mm above the board: expected it above the dice")

    # Size cue: continuous level estimate and its uncertainty.
    base = [pose.backproject(q, 0.0, calibration) for q in quads]
    est: list[float] = []
    sigma: list[float] = []
    for q, fp0, kind in zip(quads, base, kinds, strict=True):
        side0 = np.sqrt(pg.area(fp0))
        h = cam_h * (1.0 - s / side0)
        est.append(h / s - 1.0)
        side_px = np.sqrt(pg.area(q))
        cube = str(kind) in CUBE_KINDS
        sigma.append(cam_h / s * (QUAD_NOISE_PX * np.sqrt(2) / side_px) if cube else NON_CUBE_SIGMA)

    def footprint(i: int, level: int) -> Poly:
        return pose.backproject(quads[i], (level + 1) * s, calibration)

    levels: dict[int, int] = {}
    prints: dict[int, Poly] = {}
    # Lowest-looking dice first, so that a die's support is placed before the die.
    below = _seen_below(quads, image) if image is not None else {}
    for i in _support_first(sorted(range(len(quads)), key=lambda j: est[j]), below):
        best: tuple[float, int] | None = None
        for level in range(MAX_STACK + 1):
            fp = footprint(i, level)
            cost = ((est[i] - level) / sigma[i]) ** 2 + 0.01 * level
            if any(
                levels[j] == level and pg.overlap_area(fp, prints[j]) > CONFLICT_FRACTION * s * s
                for j in levels
            ):
                continue  # two dice cannot share space
            if level > 0 and _resting_on(pg.centroid(fp), level, levels, prints) is None:
                cost += UNSUPPORTED_COST  # possible only when the die beneath is hidden from view
            if best is None or cost < best[0]:
                best = (cost, level)
        levels[i] = best[1] if best is not None else MAX_STACK
        prints[i] = footprint(i, levels[i])

    out: list[DieGeometry] = []
    placements = {i: classify(prints[i], board) for i in range(len(quads))}
    for i in range(len(quads)):
        rests_on = _support(i, levels, prints)
        p = placements[i]
        field_status, card_slot = p.field_status, p.card_slot
        root = rests_on
        while root is not None:  # the bottom of the stack decides on/off the field
            field_status, card_slot = placements[root].field_status, placements[root].card_slot
            root = _support(root, levels, prints)
        c = pg.centroid(prints[i])
        out.append(
            DieGeometry(
                board_center_mm=(float(c[0]), float(c[1])),
                footprint_mm=prints[i],
                stack_level=levels[i],
                rests_on=rests_on,
                zones=p.zones,
                min_multiplier=p.min_multiplier,
                side=p.side,
                field_status=field_status,
                card_slot=card_slot,
                level_estimate=est[i],
            )
        )
    return out


def _support_first(order: list[int], below: dict[int, set[int]]) -> list[int]:
    """``order``, except that a die the image shows beneath another comes before it."""
    out: list[int] = []
    todo = list(order)
    while todo:
        pick = next((i for i in todo if not (below.get(i, set()) - set(out))), todo[0])
        out.append(pick)
        todo.remove(pick)
    return out


def _seen_below(quads: list[NDArray[np.float64]], image: NDArray[np.uint8]) -> dict[int, set[int]]:
    """For top faces that overlap in the frame: which die the image shows underneath which.

    Where two top-face quads overlap, the pixels belong to the upper die's top face (nothing
    covers it), so the overlap looks like the upper die's own part of its quad.  Decided only
    when the two dice differ clearly in colour; otherwise the size cue decides alone.
    """
    out: dict[int, set[int]] = {}
    for i, j in itertools.combinations(range(len(quads)), 2):
        inter = pg.clip_convex(quads[i], quads[j])
        if len(inter) < 3 or pg.area(inter) < 9.0:
            continue
        # Work in the pair's bounding box; pixels under any third die's face tell nothing.
        pts = np.vstack([quads[i], quads[j]])
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
        roi = image[y0:y1, x0:x1]
        if roi.size == 0:
            continue
        off = np.array([x0, y0], np.float64)
        h, w = roi.shape[:2]
        others = np.zeros((h, w), bool)
        for k, q in enumerate(quads):
            if k not in (i, j):
                others |= _region(_grow(q, 1.5) - off, h, w)  # with its sides
        both = _region(inter - off, h, w) & ~others
        only_i = _region(quads[i] - off, h, w) & ~_region(_grow(quads[j], 1.2) - off, h, w) & ~others
        only_j = _region(quads[j] - off, h, w) & ~_region(_grow(quads[i], 1.2) - off, h, w) & ~others
        if min(both.sum(), only_i.sum(), only_j.sum()) < 6:
            continue
        lab = cv2.cvtColor(roi, cv2.COLOR_BGR2Lab).astype(np.float64)
        # Shading changes lightness far more than hue: weigh L down (sides and shadows are darker).
        c_both, c_i, c_j = (np.median(lab[m], axis=0) * LAB_WEIGHTS for m in (both, only_i, only_j))
        if np.linalg.norm(c_i - c_j) < 25.0:
            continue  # same-looking dice: the overlap cannot say which is on top
        d_i, d_j = np.linalg.norm(c_both - c_i), np.linalg.norm(c_both - c_j)
        if abs(d_i - d_j) > 15.0:
            top, bottom = (i, j) if d_i < d_j else (j, i)
            out.setdefault(top, set()).add(bottom)
    return out


def _grow(quad: NDArray[np.float64], factor: float) -> NDArray[np.float64]:
    c = quad.mean(axis=0)
    return np.asarray(c + (quad - c) * factor, np.float64)


def _region(poly: NDArray[np.float64], h: int, w: int) -> NDArray[np.bool_]:
    mask = np.zeros((h, w), np.uint8)
    if len(poly) >= 3:
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    return mask.astype(bool)


def _resting_on(centre: Poly, level: int, levels: dict[int, int], prints: dict[int, Poly]) -> int | None:
    """The die one level down whose top face holds ``centre`` (a die's centre of mass must be over it)."""
    for j in levels:
        if levels[j] == level - 1 and pg.point_in_polygon(centre, prints[j]):
            return j
    return None


def _support(i: int, levels: dict[int, int], prints: dict[int, Poly]) -> int | None:
    """The die that die ``i`` rests on, if seen."""
    if levels[i] == 0:
        return None
    return _resting_on(pg.centroid(prints[i]), levels[i], levels, prints)
