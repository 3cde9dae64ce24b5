"""Where each die lies on the board, in millimetres, from its top-face quad in pixels.

A flat die's top face is a square ``s`` mm on a side seen at height
``(stack_level + 1) * s`` above the board.  Back-projecting the quad's corners
through the camera onto that plane and dropping them vertically gives the
die's footprint as seen from straight above (what the rules call touching).

The stack level comes from these cues:

* size: along each pixel ray the back-projected footprint shrinks linearly
  with the plane's height, ``side(h) = side(0) * (H - h) / H`` (``H`` the
  camera's height), so the height at which the quad is exactly ``s`` wide is
  ``h = H * (1 - s / side(0))``.  Only ~3 % per die height at 450-800 mm,
  under a pixel: with real corner noise it is a weak cue;
* solidity: two dice cannot share space (footprints at one level may not
  overlap), and a raised die's centre must lie over the top face of a die one
  level down (a raised die with no die seen beneath pays a cost per level);
* the frame: two top faces at one height never overlap in the image, so
  overlapping top faces are at different heights, and the upper one is the
  face seen whole.  Every order the overlapping dice could be stacked in is
  tried: a die owns the part of its top face no higher die's body (top face
  and sides, drawn through the pose) covers, and the right order leaves each
  owned part symmetric under a half turn, as every die face is; where that is
  unclear and the dice differ in colour, the overlap's colour says whose face
  it is.  What the frame shows is a hard constraint (the upper die's level is
  above the lower's).

Each die, lowest-looking first (and after any die the frame shows beneath
it), takes the level that best fits its size cue (in units of that cue's
uncertainty) among the levels solidity and the frame allow.  The size cue
assumes a cube (``d6``); for other kinds, and for quads that are only outlines
(``outline=True``: the top face is then fitted in the frame,
:mod:`calibration.topface`), its uncertainty is set so large that solidity and
the frame decide.

A stacked die takes its zones and centre-line side from its own footprint
(judged from straight above) and its field status from the die it rests on
(that is what holds it up).  A die at level >= 1 whose support is not seen
(fully hidden) keeps ``rests_on = None``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import polygons as pg
from calibration.board import BoardLayout
from calibration.camera import CameraCalibration
from calibration.diceset import DiceSet, DiceSetError
from calibration.polygons import Poly
from calibration.pose import BoardPose, estimate_board_pose
from calibration.raised import around_share, raised_share
from calibration.topface import body_top_face, fit_top_face

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
#: A die whose band of sides only a raised die shows is this full of something lying there is
#: raised (calibration.raised; the level is then 1 give or take RAISED_SIGMA).
RAISED_SHARE = 0.4
#: ... and one whose band is too small to judge, with this share of its top face lying round it
AROUND_SHARE = 0.4
RAISED_SIGMA = 0.3
#: A top face this many times more lopsided (half-turn asymmetry) than the face it overlaps is the lower.
WHOLENESS_RATIO = 1.15
#: The colour cue needs each die to show this share of its face outside the other's.
COLOUR_MIN_OWN = 0.15
#: Fitted top faces sharing this much (intersection over union, in the frame) are one die.
SAME_FACE_IOU = 0.3
#: Top faces overlapping by at least this much (px^2) in the frame are at different heights.
MIN_OVERLAP_PX2 = 2.0
#: Largest group of overlapping dice whose height orders are all tried (4! = 24).
MAX_ORDER_GROUP = 4
#: Half-turn centres tried: up to this many grid pixels off the square's centre (each way).
SYMMETRY_SEARCH = 2
#: Side (px) of the square a top face is warped to for the wholeness cue.
ASYMMETRY_GRID = 32
#: Lab channel weights for the wholeness cue (lightness counts: pips and rims are light and dark).
LAB_WEIGHTS_WHOLE = np.array([0.5, 1.0, 1.0])


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
class SupportOption:
    """One thing a die whose support the frame cannot tell may rest on (issue 45 item 4), and where it
    then lies: ``on`` None (the board), a die's index (as ``rests_on``) or HIDDEN (a die no frame
    shows, which a person names)."""

    on: int | None
    stack_level: int
    place: Placement


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
    #: raised, with no die seen or known beneath it (the sides cue): the die under it must be told
    support_hidden: bool = False
    #: what this die may rest on when the frame cannot tell (issue 45 item 4), the one it was placed
    #: on first; empty when its support is sure
    support_doubt: tuple[SupportOption, ...] = ()

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
    """Zones touched, centre-line side and field status of a footprint on the board.

    The board's areas are prepared GEOS geometries (:mod:`calibration.regions`): a die touches
    an area it shares any area with."""
    fp = pg.geometry(footprint)
    touched = [z for z in board.zones if z.region.touches(fp)]
    zones = tuple(z.name for z in touched)
    min_mult = min((z.multiplier for z in touched), default=None)
    side = board.centre_line.side_of(fp) if board.centre_line is not None else None
    if any(f.region.touches(fp) for f in board.fields):
        return Placement(zones, min_mult, side, "field", None)
    slots = [(c.region.overlap_area(fp), c.name) for c in board.card_slots]
    slots = [s for s in slots if s[0] > pg.TOUCH_AREA_MM2]
    if slots:
        return Placement(zones, min_mult, side, "card_slot", max(slots)[1])
    return Placement(zones, min_mult, side, "off", None)


def boundary_clearance(footprint: Poly, board: BoardLayout) -> float:
    """Distance (mm) from a footprint to the nearest line that decides its classification."""
    return float(pg.geometry(footprint).distance(board.boundary_lines))


def is_borderline(footprint: Poly, board: BoardLayout, margin_mm: float = 1.0) -> bool:
    """True when the die's zones, side or field status would change were its outline
    ``margin_mm`` larger or smaller all round (a boundary runs within ``margin_mm`` of it)."""
    fp = pg.as_poly(footprint)
    c = pg.centroid(fp)
    # Distance from the centroid to the nearest edge line, to scale the outline by margin_mm.
    inner = pg.inner_distance(fp, c)
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
    die_size_mm: float | Sequence[float] | DiceSet | None = None,
    outline: bool = False,
    known: Sequence[tuple[Any, int]] = (),
    fit: str = "image",
    lying: NDArray[np.bool_] | None = None,
    around: bool = False,
    all_seen: bool = False,
) -> list[DieGeometry]:
    """Board geometry of every die from its top-face quad (4 pixel corners, any order around).

    The board pose is ``pose`` or, when absent, estimated from ``image``'s markers.  With
    ``outline=True`` the quads are only rough outlines of each die as seen (e.g. a reader's
    box around the die's body, sides included): each cube's top face is then fitted in the
    frame first (:func:`calibration.topface.fit_top_face`, needs ``image``), and its size no
    longer tells its height, so solidity and the frame's overlaps decide the stack levels.
    ``fit`` says how: ``"image"`` searches the frame for the whole face (about 50 ms a die);
    ``"body"`` takes the outline's centre for the top face's, by geometry alone
    (:func:`calibration.topface.body_top_face`, well under a millisecond; less exact).

    ``known`` are dice the frame does not show but that are known to be there (a die seen in
    an earlier frame and now covered by another, :mod:`calibration.memory`): each a footprint
    in board mm (4+ corners) and its stack level.  They are not placed again; they hold dice
    up and take up space like any die.  The result has one entry per quad, then one per known
    die, and ``rests_on`` indexes that whole list.

    ``lying``: where something lies on the board in this frame (a bool mask of the frame at any
    scale, e.g. :meth:`vision.where.BoardLook.lying`): a die whose sides reach as far towards the
    camera's nadir as a die one level up would (the lower die's sides, :mod:`calibration.raised`)
    is placed one level up even when no die is seen beneath it (its ``rests_on`` is then None and
    ``support_hidden`` True: the die under it must be told).

    ``around``: ``lying`` tells a die from its shadow (the empty table's change,
    :mod:`vision.empty_diff`): a die whose band of sides is too small to judge (near the nadir) is
    raised when what lies round it, no die's body explaining it, is AROUND_SHARE of its top face or
    more (:func:`calibration.raised.around_share`: the lower die's rim).

    ``all_seen``: every die of the game is seen or known (its count, issue 45): a die whose support
    the frame cannot tell is not offered a die no frame shows, but the nearest die the frame shows
    a level down (or only what is left).

    ``die_size_mm`` is the dice set's edge, or its edges when several sizes are in play (each
    die's is then told from its top face, :meth:`calibration.diceset.DiceSet.size_of`); None
    takes the board file's deprecated ``[die] size_mm``, else 16 mm.  A die resting on another
    is taken to stand on dice of its own size.
    """
    quads = _check_quads(quads_px, kinds)
    fixed = _check_known(known)
    if image is not None:
        calibration = calibration.for_image(image.shape[1], image.shape[0])
    if pose is None:
        if image is None:
            raise GeometryError("place() needs the board pose or the frame to find it in (image=...)")
        pose = estimate_board_pose(image, calibration, board)
    try:
        dice = DiceSet.of(die_size_mm, board.die_size_mm)
    except DiceSetError as e:
        raise GeometryError(str(e)) from None
    cam_h = -float(pose.camera_position()[2])
    if cam_h <= MAX_STACK * dice.largest:
        raise GeometryError(f"camera is {cam_h:.0f} mm above the board: expected it above the dice")
    cube = [str(kind) in CUBE_KINDS for kind in kinds]
    if fit not in ("image", "body"):
        raise GeometryError(f"fit must be 'image' or 'body', got {fit!r}")
    # a reader's outline is about the size of the top face: good enough to tell 14 from 19 mm
    sizes = [dice.size_of(q, pose, calibration) for q in quads]
    if outline and fit == "body":
        quads = [
            body_top_face(q, s, pose, calibration) if is_cube else q
            for q, s, is_cube in zip(quads, sizes, cube, strict=True)
        ]
    elif outline:
        if image is None:
            raise GeometryError("place(outline=True) needs the frame (image=...) to find the top faces in")
        lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
        quads = [
            fit_top_face(lab, q, s, pose, calibration).quad_px if is_cube else q
            for q, s, is_cube in zip(quads, sizes, cube, strict=True)
        ]
    # Outlines whose fitted top faces coincide are one die read twice, not a stack.
    same = _same_faces(quads) if outline else set()
    # The sides cue: a die showing the sides of a die under it is raised (one frame, no memory).
    raised = [False] * len(quads)
    shares: list[float | None] = [None] * len(quads)
    rings: list[float | None] = [None] * len(quads)
    if lying is not None and quads:
        fh, fw = (image.shape[:2]) if image is not None else calibration.image_size[::-1]
        shares = raised_share(quads, sizes, pose, calibration, lying, (int(fw), int(fh)))
        raised = [
            bool(c and sh is not None and sh >= RAISED_SHARE) for c, sh in zip(cube, shares, strict=True)
        ]
        if around and any(sh is None for sh in shares):
            rings = around_share(quads, sizes, pose, calibration, lying, (int(fw), int(fh)))
            raised = [
                up or bool(c and sh is None and a is not None and a >= AROUND_SHARE)
                for up, c, sh, a in zip(raised, cube, shares, rings, strict=True)
            ]

    # Size cue: continuous level estimate and its uncertainty.
    base = [pose.backproject(q, 0.0, calibration) for q in quads]
    est: list[float] = []
    sigma: list[float] = []
    for q, fp0, s, is_cube, up in zip(quads, base, sizes, cube, raised, strict=True):
        side0 = np.sqrt(pg.area(fp0))
        h = cam_h * (1.0 - s / side0)
        est.append(1.0 if up else 0.0 if outline else h / s - 1.0)
        side_px = np.sqrt(pg.area(q))
        size_cue = is_cube and not outline
        sigma.append(
            RAISED_SIGMA
            if up
            else cam_h / s * (QUAD_NOISE_PX * np.sqrt(2) / side_px)
            if size_cue
            else NON_CUBE_SIGMA
        )

    def footprint(i: int, level: int) -> Poly:
        return pose.backproject(quads[i], (level + 1) * sizes[i], calibration)

    levels: dict[int, int] = {}
    prints: dict[int, Poly] = {}
    for k, (fp_known, level_known) in enumerate(fixed):
        levels[len(quads) + k], prints[len(quads) + k] = level_known, fp_known
    # Lowest-looking dice first, so that a die's support is placed before the die.
    bodies = [_body_outline(q, s, pose, calibration) for q, s in zip(quads, sizes, strict=True)]
    below = _seen_below(quads, image, bodies, same) if image is not None else {}
    for i in _support_first(sorted(range(len(quads)), key=lambda j: est[j]), below):
        best: tuple[float, int] | None = None
        for level in range(MAX_STACK + 1):
            fp = footprint(i, level)
            cost = ((est[i] - level) / sigma[i]) ** 2 + 0.01 * level
            if any(
                levels[j] == level and pg.overlap_area(fp, prints[j]) > CONFLICT_FRACTION * sizes[i] ** 2
                for j in levels
                if frozenset((i, j)) not in same
            ):
                continue  # two dice cannot share space
            if any(level <= levels[j] for j in below.get(i, set()) if j in levels):
                continue  # the frame shows this top face over that one: it is higher
            if level > 0 and _resting_on(pg.centroid(fp), level, levels, prints) is None:
                # Possible only when the dice beneath are all hidden from view (the sides cue shows
                # the die under a raised die)
                cost += UNSUPPORTED_COST * (level - 1 if i < len(raised) and raised[i] else level)
            if best is None or cost < best[0]:
                best = (cost, level)
        levels[i] = best[1] if best is not None else MAX_STACK
        prints[i] = footprint(i, levels[i])

    doubts = _support_doubts(quads, levels, prints, base, sizes, below, same, shares, rings, cube, all_seen)
    out: list[DieGeometry] = []
    placements = {i: classify(prints[i], board) for i in levels}

    def _root_place(j: int) -> tuple[str, str | None]:
        while (down := _support(j, levels, prints)) is not None:
            j = down
        return placements[j].field_status, placements[j].card_slot

    def _option(i: int, o: int | None) -> SupportOption:
        if o is None or o == HIDDEN:
            level = 0 if o is None else max(1, levels[i])
            return SupportOption(o, level, classify(footprint(i, level), board))
        level = levels[o] + 1
        p = classify(footprint(i, level), board)
        field_status, card_slot = _root_place(o)
        return SupportOption(o, level, replace(p, field_status=field_status, card_slot=card_slot))

    for i in range(len(levels)):
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
                level_estimate=est[i] if i < len(est) else float(levels[i]),
                support_hidden=levels[i] > 0 and rests_on is None,
                support_doubt=tuple(_option(i, o) for o in doubts.get(i, ())),
            )
        )
    return out


#: the sides cue is unsure this near its threshold (RAISED_SHARE, AROUND_SHARE), either way
SIDES_DOUBT = 0.15
#: a flat die whose footprint on the board shares this much of a face with another die's, or a raised
#: die's with another die one level down than the one it rests on, might rest on that die instead
TOUCH_FRACTION = 0.04
#: in a die's ``support_doubt``: it may rest on a die no frame shows (a person names that die)
HIDDEN = -1
#: issue 45 item 4: off, a die's support is never doubted (benchmarks compare the two)
SUPPORT_DOUBTS = True
#: what each die's doubt was made of, by the last `place` (benchmarks read it)
LAST_CUES: list[dict[str, Any]] = []


def _support_doubts(
    quads: list[NDArray[np.float64]],
    levels: dict[int, int],
    prints: dict[int, Poly],
    base: list[Poly],
    sizes: list[float],
    below: dict[int, set[int]],
    same: set[frozenset[int]],
    shares: Sequence[float | None],
    rings: Sequence[float | None],
    cube: Sequence[bool],
    all_seen: bool = False,
) -> dict[int, tuple[int | None, ...]]:
    """For each die of the frame whose support the frame cannot tell (issue 45 item 4), what it may rest
    on: None (the board), a die's index, or HIDDEN (a die no frame shows); a die not in the result is
    sure.

    A die is unsure when its sides cue lies within SIDES_DOUBT of its threshold (the band of sides
    half full of something: a lower die's sides or a shadow), or when it is raised with no die seen
    under it, or when its footprint touches another die's (a die beside another, or on it offset)
    and the frame's overlaps do not tell which is over which.  The die the frame shows under it, or
    shows it under, is sure: the frame told."""
    LAST_CUES.clear()
    out: dict[int, tuple[int | None, ...]] = {}
    n = len(quads)
    told = {i: set(below.get(i, set())) for i in range(n)}
    for i, js in below.items():
        for j in js:
            if j < n:
                told.setdefault(j, set()).add(i)
    for i in range(n):
        if i not in levels:
            continue
        rests = _support(i, levels, prints)
        hidden = levels[i] > 0 and rests is None
        options: list[int | None] = [HIDDEN if hidden else rests]
        sh = shares[i] if i < len(shares) else None
        ring = rings[i] if i < len(rings) else None
        sides_unsure = cube[i] and (
            (sh is not None and abs(sh - RAISED_SHARE) < SIDES_DOUBT)
            or (sh is None and ring is not None and abs(ring - AROUND_SHARE) < SIDES_DOUBT)
        )
        touching = []
        for j in levels:
            if j == i or frozenset((i, j)) in same or j in told.get(i, set()):
                continue
            if levels[j] > levels[i] and _support(j, levels, prints) == i:
                continue  # the die over this one: it holds that one up, not the other way round
            fp = base[i] if levels[i] == 0 else prints[i]
            if pg.overlap_area(fp, prints[j]) > TOUCH_FRACTION * sizes[i] ** 2 and levels[j] <= levels[i]:
                touching.append(j)
        LAST_CUES.append(
            {
                "i": i,
                "level": levels[i],
                "share": sh,
                "ring": ring,
                "touching": len(touching),
                "hidden": hidden,
                "told": bool(told.get(i)),
            }
        )
        if not SUPPORT_DOUBTS:
            continue
        if rests is not None and rests >= n:
            continue  # it rests on a die the table remembers under it: memory told
        alts: list[int | None] = []
        if sides_unsure and rests is None:
            alts.append(touching[0] if touching and levels[i] == 0 else HIDDEN if levels[i] == 0 else None)
        alts += [j for j in touching if j != rests]
        if (alts or hidden) and levels[i] > 0:
            alts.append(None)  # raised on a die it may not be on: it may lie on the board
        options += alts
        if all_seen and HIDDEN in options:
            # every die of the game is seen (issue 45): the die it may rest on is one the frame shows,
            # the nearest one a level down, or none
            near = _nearest_below(i, levels, prints, sizes[i])
            options = [near if o == HIDDEN else o for o in options if not (o == HIDDEN and near is None)]
        if len(set(options)) > 1:
            out[i] = tuple(dict.fromkeys(options))
    return out


#: with every die seen, a die whose support the frame cannot tell may rest on the nearest die a level
#: down whose footprint's centre lies within this many of its edges of its own (issue 45)
NEAREST_BELOW = 1.5


def _nearest_below(i: int, levels: dict[int, int], prints: dict[int, Poly], size: float) -> int | None:
    """The die one level below die ``i`` (on the board for a flat die: the level it would rest on
    one level up) nearest its footprint, within NEAREST_BELOW edges."""
    c = pg.centroid(prints[i])
    want = max(levels[i] - 1, 0)
    best: tuple[float, int] | None = None
    for j, level in levels.items():
        if j == i or level != want:
            continue
        d = float(np.linalg.norm(pg.centroid(prints[j]) - c))
        if d <= NEAREST_BELOW * size and (best is None or d < best[0]):
            best = (d, j)
    return None if best is None else best[1]


def _check_known(known: Sequence[tuple[Any, int]]) -> list[tuple[Poly, int]]:
    out: list[tuple[Poly, int]] = []
    for k, item in enumerate(known):
        try:
            fp, level = item
            poly = pg.as_poly(np.asarray(fp, np.float64))
        except (TypeError, ValueError):
            raise GeometryError(
                f"known die {k}: expected (footprint in board mm as [[x, y], ...], stack level), got {item!r}"
            ) from None
        if poly.shape[0] < 3 or not np.isfinite(poly).all() or pg.area(poly) <= 0:
            raise GeometryError(f"known die {k}: its footprint must be a polygon of finite area, got {fp!r}")
        if isinstance(level, bool) or not isinstance(level, int | np.integer) or not 0 <= level <= MAX_STACK:
            raise GeometryError(
                f"known die {k}: stack level must be an integer 0..{MAX_STACK}, got {level!r}"
            )
        out.append((poly, int(level)))
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


def _body_outline(
    quad: NDArray[np.float64], s: float, pose: BoardPose, calibration: CameraCalibration
) -> NDArray[np.float64]:
    """Outline in the frame of a die (top face ``quad``) raised one level: its top face and its sides.

    What the die covers of a die beneath it.  Its bottom face is the top face one die size lower.
    """
    top = pose.backproject(quad, 2.0 * s, calibration)
    bottom = pose.project(np.column_stack([top, np.full(len(top), -s)]), calibration)
    hull = cv2.convexHull(np.vstack([quad, bottom]).astype(np.float32)).reshape(-1, 2)
    return np.asarray(hull, np.float64)


def _same_faces(quads: list[NDArray[np.float64]]) -> set[frozenset[int]]:
    """Pairs of fitted top faces that coincide in the frame: one die read twice.

    (A die all but hidden under another would fit onto the upper face too; from outlines the
    two cannot be told apart, and a die read twice is what a reader gets wrong far more often,
    so coinciding faces are never made a stack.)
    """
    out: set[frozenset[int]] = set()
    for i, j in itertools.combinations(range(len(quads)), 2):
        inter = pg.intersection(quads[i], quads[j])
        if len(inter) >= 3:
            shared = pg.area(inter)
            if shared >= SAME_FACE_IOU * (pg.area(quads[i]) + pg.area(quads[j]) - shared):
                out.add(frozenset((i, j)))
    return out


def _seen_below(
    quads: list[NDArray[np.float64]],
    image: NDArray[np.uint8],
    bodies: list[NDArray[np.float64]],
    same: set[frozenset[int]] = frozenset(),  # type: ignore[assignment]
) -> dict[int, set[int]]:
    """For top faces that overlap in the frame: which die the image shows underneath which.

    Two top faces at one height never overlap in the frame, so an overlap means one die is
    higher, and the overlap shows the upper die's top face (nothing covers it).  Two cues say
    which: wholeness (a die face is symmetric under a half turn; of the orders the overlapping
    dice could be stacked in, the right one leaves every die's visible part symmetric) and,
    where that is unclear, colour (the overlap looks like the die whose own part it matches,
    when the dice differ clearly in colour).
    """
    n = len(quads)
    pairs: dict[tuple[int, int], NDArray[np.float64]] = {}
    for i, j in itertools.combinations(range(n), 2):
        inter = pg.intersection(quads[i], quads[j])
        if len(inter) >= 3 and pg.area(inter) >= MIN_OVERLAP_PX2 and frozenset((i, j)) not in same:
            pairs[(i, j)] = inter
    if not pairs:
        return {}
    lab_image = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    decided = _wholeness_orders(quads, bodies, list(pairs), lab_image)
    out: dict[int, set[int]] = {}
    for (i, j), inter in pairs.items():
        order = decided.get((i, j)) or _colour_order(quads, i, j, inter, image)
        if order is not None:
            out.setdefault(order[0], set()).add(order[1])
    return out


def _wholeness_orders(
    quads: list[NDArray[np.float64]],
    bodies: list[NDArray[np.float64]],
    pairs: list[tuple[int, int]],
    lab_image: NDArray[np.float32],
) -> dict[tuple[int, int], tuple[int, int]]:
    """(upper, lower) for the overlapping pairs whose order the faces' half-turn symmetry makes clear.

    Each group of mutually overlapping dice is tried in every height order: a die owns the pixels
    of its top face that no higher die's face covers, and an order scores the mean asymmetry
    (pixel vs. its half-turn partner, both owned) over all its dice.  A higher die covers what its
    ``bodies`` outline (top face and sides) covers.  A pair is decided when the
    best order with one die higher beats the best with the other higher by WHOLENESS_RATIO.
    """
    n = ASYMMETRY_GRID
    square = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - 0.5
    involved = sorted({k for p in pairs for k in p})
    warps: dict[int, NDArray[np.float64]] = {}
    # A quad a little off the true face shows it symmetric about a point near the square's centre:
    # each half-turn is taken about the best of a few centres (shifts in grid pixels).
    r = SYMMETRY_SEARCH
    shifts = [(dy, dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1)]
    diffs: dict[int, list[tuple[NDArray[np.float64], NDArray[np.bool_]]]] = {}
    for k in involved:
        m = cv2.getPerspectiveTransform(_around(quads[k]).astype(np.float32), square)
        face = cv2.warpPerspective(lab_image, m, (n, n), flags=cv2.INTER_LINEAR).astype(np.float64)
        face *= LAB_WEIGHTS_WHOLE
        contrast = float(np.linalg.norm(face.reshape(-1, 3).std(axis=0)))
        warps[k] = np.asarray(m, np.float64)
        turned = face[::-1, ::-1]
        diffs[k] = []
        for dy, dx in shifts:
            partner, inside = _shift(turned, dy, dx), _shift(np.ones((n, n), bool), dy, dx)
            diffs[k].append((np.linalg.norm(face - partner, axis=2) / (contrast + 5.0), inside.astype(bool)))
    covers: dict[tuple[int, int], NDArray[np.bool_]] = {}  # (k, t): pixels of k's face t's body covers
    for i, j in pairs:
        for k, t in ((i, j), (j, i)):
            p = cv2.perspectiveTransform(bodies[t].reshape(-1, 1, 2).astype(np.float32), warps[k])
            mask = np.zeros((n, n), np.uint8)
            cv2.fillPoly(mask, [np.round(p.reshape(-1, 2) * 8).astype(np.int32)], 1, shift=3)
            covers[(k, t)] = mask.astype(bool)
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for group in _groups(involved, pairs):
        if len(group) > MAX_ORDER_GROUP:
            continue  # too many orders to try; colour and size decide
        scores: list[tuple[float, dict[int, int]]] = []
        for order in itertools.permutations(group):
            rank = {k: r for r, k in enumerate(order)}  # higher rank: higher up
            total, count = 0.0, 0
            for k in group:
                own = np.ones((n, n), bool)
                for t in group:
                    if rank[t] > rank[k] and (k, t) in covers:
                        own &= ~covers[(k, t)]
                turned = own[::-1, ::-1]
                best: tuple[float, float, int] | None = None
                for (dy, dx), (diff, inside) in zip(shifts, diffs[k], strict=True):
                    valid = own & inside & _shift(turned, dy, dx).astype(bool)
                    c = int(valid.sum())
                    if c >= 0.1 * n * n:
                        t_sum = float(diff[valid].sum())
                        if best is None or t_sum / c < best[0]:
                            best = (t_sum / c, t_sum, c)
                if best is not None:
                    total += best[1]
                    count += best[2]
            if count >= 0.25 * n * n:
                scores.append((total / count, rank))
        for i, j in pairs:
            if i not in group:
                continue
            up_i = min((sc for sc, r in scores if r[i] > r[j]), default=None)
            up_j = min((sc for sc, r in scores if r[j] > r[i]), default=None)
            if up_i is None or up_j is None:
                continue
            if up_j > WHOLENESS_RATIO * up_i:
                out[(i, j)] = (i, j)
            elif up_i > WHOLENESS_RATIO * up_j:
                out[(i, j)] = (j, i)
    return out


def _shift(a: NDArray[Any], dy: int, dx: int) -> NDArray[Any]:
    """``a`` moved by (dy, dx) pixels, zeros where nothing moved in."""
    out = np.zeros_like(a)
    h, w = a.shape[:2]
    out[max(dy, 0) : h + min(dy, 0), max(dx, 0) : w + min(dx, 0)] = a[
        max(-dy, 0) : h + min(-dy, 0), max(-dx, 0) : w + min(-dx, 0)
    ]
    return out


def _groups(nodes: list[int], pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Connected groups of dice linked by overlapping pairs."""
    parent = {k: k for k in nodes}

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for i, j in pairs:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for k in nodes:
        groups.setdefault(root(k), []).append(k)
    return list(groups.values())


def _colour_order(
    quads: list[NDArray[np.float64]], i: int, j: int, inter: NDArray[np.float64], image: NDArray[np.uint8]
) -> tuple[int, int] | None:
    """(upper, lower) from the colour of the overlap, or None when the dice look alike."""
    # Work in the pair's bounding box; pixels under any third die's face tell nothing.
    pts = np.vstack([quads[i], quads[j]])
    x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
    roi = image[y0:y1, x0:x1]
    if roi.size == 0:
        return None
    off = np.array([x0, y0], np.float64)
    h, w = roi.shape[:2]
    others = np.zeros((h, w), bool)
    for k, q in enumerate(quads):
        if k not in (i, j):
            others |= _region(_grow(q, 1.5) - off, h, w)  # with its sides
    both = _region(inter - off, h, w) & ~others
    only_i = _region(quads[i] - off, h, w) & ~_region(_grow(quads[j], 1.2) - off, h, w) & ~others
    only_j = _region(quads[j] - off, h, w) & ~_region(_grow(quads[i], 1.2) - off, h, w) & ~others
    # Each die must show enough of its own face for its colour to be sure (a die all but hidden
    # under the other may show mostly its sides or rim there).
    least = max(6.0, COLOUR_MIN_OWN * min(pg.area(quads[i]), pg.area(quads[j])))
    if min(both.sum(), only_i.sum(), only_j.sum()) < least:
        return None
    lab = cv2.cvtColor(roi, cv2.COLOR_BGR2Lab).astype(np.float64)
    # Shading changes lightness far more than hue: weigh L down (sides and shadows are darker).
    c_both, c_i, c_j = (np.median(lab[m], axis=0) * LAB_WEIGHTS for m in (both, only_i, only_j))
    if np.linalg.norm(c_i - c_j) < 25.0:
        return None  # same-looking dice: the overlap cannot say which is on top
    d_i, d_j = np.linalg.norm(c_both - c_i), np.linalg.norm(c_both - c_j)
    if abs(d_i - d_j) <= 15.0:
        return None
    return (i, j) if d_i < d_j else (j, i)


def _around(quad: NDArray[np.float64]) -> NDArray[np.float64]:
    """A quad's corners in order around its centre."""
    c = quad.mean(axis=0)
    return np.asarray(quad[np.argsort(np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0]))], np.float64)


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
