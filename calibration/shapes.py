"""Layout shapes as a designer draws them, read from a board file into shapely geometries.

Every area of a layout (the outline, a zone, a field, a card slot) is a table holding
exactly one shape key; lengths are millimetres on the board, x right, y down as printed,
angles in degrees from +x towards +y (clockwise as the printed board is seen)::

    polygon        = [[x, y], ...]                                   # corners in order
    rectangle      = { center = [x, y], size = [w, h], rotation = 0 }  # rotation optional
    circle         = { center = [x, y], radius = r }
    annulus        = { center = [x, y], inner = r1, outer = r2 }       # a ring
    annular_sector = { center = [x, y], inner = r1, outer = r2, start = a0, end = a1 }
    union          = [ { circle = {...} }, { polygon = [...] }, ... ]  # one area of several
    difference     = [ { annular_sector = {...} }, { rectangle = {...} }, ... ]  # the first, less the rest

``inner = 0`` makes an annular sector a pie slice.  Curves become polygons whose
chords stay within :data:`CURVE_TOLERANCE_MM` of the true arc; every arc of one
radius about one centre takes its vertices from the same grid of angles, so rings and
sectors drawn with shared radii and angles meet exactly, without gaps or slivers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

#: Largest distance (mm) between a drawn arc and the chords that stand for it.
CURVE_TOLERANCE_MM = 0.02
#: An area smaller than this (mm²) is a typo, not a shape.
MIN_AREA_MM2 = 1.0

SHAPE_KEYS = ("polygon", "rectangle", "circle", "annulus", "annular_sector", "union", "difference")

Fail = Callable[[str, str], Exception]


def parse_shape(table: Mapping[str, Any], fail: Fail) -> BaseGeometry:
    """The geometry of the one shape key in ``table``; ``fail(field, why)`` makes the error to raise."""
    keys = [k for k in SHAPE_KEYS if k in table]
    if len(keys) != 1:
        got = f"{' and '.join(keys)}" if keys else "none"
        raise fail(
            keys[1] if len(keys) > 1 else "polygon",
            f"expected exactly one shape ({', '.join(SHAPE_KEYS)}), got {got}",
        )
    key = keys[0]
    geom = _shape(key, table[key], key, fail)
    if not geom.is_valid:
        why = shapely.is_valid_reason(geom)
        if key == "polygon":
            raise fail(key, f"polygon crosses itself ({why}); list the corners in order around the shape")
        raise fail(key, f"not a valid area: {why}")
    if geom.area < MIN_AREA_MM2:
        raise fail(key, f"{key} has (almost) no area ({geom.area:.3g} mm²)")
    return geom


def _shape(key: str, value: Any, where: str, fail: Fail) -> BaseGeometry:
    if key == "polygon":
        return shapely.Polygon(_points(value, where, fail))
    if key in ("union", "difference"):
        parts = _parts(value, where, fail)
        if key == "union":
            return shapely.union_all(parts)
        if len(parts) < 2:
            raise fail(where, "expected a shape and at least one shape to cut out of it")
        return shapely.difference(parts[0], shapely.union_all(parts[1:]))
    if not isinstance(value, Mapping):
        raise fail(where, f"expected an inline table {{center = [x, y], ...}}, got {value!r}")
    spec = _Spec(value, where, fail)
    centre = spec.point("center")
    if key == "rectangle":
        w, h = spec.pair("size")
        rot = math.radians(spec.number("rotation", 0.0, positive=False))
        half = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2.0
        c, s = math.cos(rot), math.sin(rot)
        return shapely.Polygon(half @ np.array([[c, s], [-s, c]]) + centre)
    if key == "circle":
        return shapely.Polygon(arc(centre, spec.number("radius"), 0.0, 360.0)[:-1])
    inner = spec.number("inner", positive=False)
    outer = spec.number("outer")
    if not 0.0 <= inner < outer:
        raise fail(f"{where}.inner", f"expected 0 <= inner < outer ({outer:g} mm), got {inner:g}")
    if key == "annulus":
        hole = [arc(centre, inner, 0.0, 360.0)[:-1]] if inner > 0 else []
        return shapely.Polygon(arc(centre, outer, 0.0, 360.0)[:-1], hole)
    start, end = spec.number("start", positive=False), spec.number("end", positive=False)
    if end <= start:
        end += 360.0
    if not 0.0 < end - start <= 360.0:
        raise fail(
            f"{where}.end",
            f"expected a sweep from start of more than 0 and at most 360 degrees, got {start:g}..{end:g}",
        )
    if end - start == 360.0:
        return _shape("annulus", {"center": list(centre), "inner": inner, "outer": outer}, where, fail)
    out = arc(centre, outer, start, end)
    back = arc(centre, inner, start, end)[::-1] if inner > 0 else centre.reshape(1, 2)
    return shapely.Polygon(np.vstack([out, back]))


def _parts(value: Any, where: str, fail: Fail) -> list[BaseGeometry]:
    if not isinstance(value, list) or not value:
        raise fail(
            where, f"expected a list of shapes [{{circle = ...}}, {{polygon = ...}}, ...], got {value!r}"
        )
    parts = []
    for i, part in enumerate(value):
        kinds = [k for k in SHAPE_KEYS if isinstance(part, Mapping) and k in part]
        if len(kinds) != 1:
            raise fail(
                f"{where}[{i}]",
                f"expected a table with one shape key ({', '.join(SHAPE_KEYS)}), got {part!r}",
            )
        g = _shape(kinds[0], part[kinds[0]], f"{where}[{i}].{kinds[0]}", fail)
        if not g.is_valid:
            raise fail(f"{where}[{i}].{kinds[0]}", f"not a valid area: {shapely.is_valid_reason(g)}")
        parts.append(g)
    return parts


def arc_steps(radius: float) -> int:
    """Vertices of a whole circle of ``radius`` mm (a multiple of 8: the axes and diagonals are vertices)."""
    n = (
        math.pi / math.acos(max(-1.0, 1.0 - CURVE_TOLERANCE_MM / radius))
        if radius > CURVE_TOLERANCE_MM
        else 8
    )
    return max(32, 8 * math.ceil(n / 8))


def arc(centre: NDArray[np.float64], radius: float, start: float, end: float) -> NDArray[np.float64]:
    """Points along an arc from ``start`` to ``end`` degrees, both ends included: the ends and
    every angle of the radius's grid (:func:`arc_steps`) between them."""
    step = 360.0 / arc_steps(radius)
    k = np.arange(math.floor(start / step) + 1, math.ceil(end / step))
    grid = k * step
    grid = grid[(grid > start) & (grid < end)]
    angles = np.radians(np.concatenate([[start], grid, [end]]))
    return np.column_stack([np.cos(angles), np.sin(angles)]) * radius + centre


def rings(geom: BaseGeometry) -> list[NDArray[np.float64]]:
    """Every ring (outer boundaries and holes) of an area, each an ``(n, 2)`` array, for drawing."""
    out: list[NDArray[np.float64]] = []
    for poly in getattr(geom, "geoms", [geom]):
        for ring in (poly.exterior, *poly.interiors):
            out.append(np.asarray(ring.coords, np.float64)[:-1])
    return out


def outer_ring(geom: BaseGeometry) -> NDArray[np.float64]:
    """The outer boundary of an area's largest part, ``(n, 2)``."""
    parts = list(getattr(geom, "geoms", [geom]))
    biggest = max(parts, key=lambda p: p.area)
    return np.asarray(biggest.exterior.coords, np.float64)[:-1]


def _points(value: Any, where: str, fail: Fail) -> NDArray[np.float64]:
    if not isinstance(value, list) or len(value) < 3:
        raise fail(where, f"expected a list of at least 3 points [[x, y], ...] in mm, got {value!r}")
    for i, pt in enumerate(value):
        if not isinstance(pt, list) or len(pt) != 2 or not all(_is_number(c) for c in pt):
            raise fail(where, f"point {i} should be [x, y] in mm, got {pt!r}")
    return np.asarray(value, np.float64)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


class _Spec:
    """Typed access to one shape's inline table, errors naming ``shape.field``."""

    def __init__(self, table: Mapping[str, Any], where: str, fail: Fail) -> None:
        self.t, self.where, self.fail = table, where, fail

    def _get(self, name: str, default: Any) -> Any:
        if name not in self.t:
            if default is None:
                raise self.fail(f"{self.where}.{name}", "missing")
            return default
        return self.t[name]

    def number(self, name: str, default: float | None = None, positive: bool = True) -> float:
        v = self._get(name, default)
        if not _is_number(v):
            raise self.fail(f"{self.where}.{name}", f"expected a number, got {v!r}")
        if positive and v <= 0:
            raise self.fail(f"{self.where}.{name}", f"expected a number > 0 (mm), got {v!r}")
        return float(v)

    def point(self, name: str) -> NDArray[np.float64]:
        v = self._get(name, None)
        if not isinstance(v, list) or len(v) != 2 or not all(_is_number(c) for c in v):
            raise self.fail(f"{self.where}.{name}", f"expected a point [x, y] in mm, got {v!r}")
        return np.asarray(v, np.float64)

    def pair(self, name: str) -> tuple[float, float]:
        v = self._get(name, None)
        if not isinstance(v, list) or len(v) != 2 or not all(_is_number(c) and c > 0 for c in v):
            raise self.fail(f"{self.where}.{name}", f"expected [width, height] in mm, both > 0, got {v!r}")
        return float(v[0]), float(v[1])
