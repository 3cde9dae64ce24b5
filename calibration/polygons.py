"""Small plane polygons (die footprints in board millimetres, top faces in pixels) on shapely.

Polygons are ``(n, 2)`` float arrays of vertices in order (either winding); the arithmetic
is GEOS's.  A die's outline is convex: one that comes in crossing itself (corners out of
order) is taken as the convex hull of its corners.  The board's own areas are prepared
once, in :mod:`calibration.regions`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

Poly = NDArray[np.float64]

#: Overlap below this area (mm²) is a shared edge or a rounding error, not touching.
TOUCH_AREA_MM2 = 1e-6


def as_poly(points: Sequence[Sequence[float]] | NDArray[np.floating]) -> Poly:
    return np.asarray(points, dtype=np.float64).reshape(-1, 2)


def geometry(poly: Poly) -> BaseGeometry:
    """The polygon as a valid shapely polygon (a crossed outline becomes its convex hull)."""
    g = shapely.polygons(as_poly(poly))
    return g if g.is_valid else g.convex_hull


def area(poly: Poly) -> float:
    if len(poly) < 3:
        return 0.0
    return float(shapely.area(geometry(poly)))


def centroid(poly: Poly) -> NDArray[np.float64]:
    """Area centroid (the vertex mean for polygons without area)."""
    g = geometry(poly) if len(poly) >= 3 else None
    if g is None or g.area < 1e-12:
        return np.asarray(as_poly(poly).mean(axis=0), dtype=np.float64)
    c = g.centroid
    return np.array([c.x, c.y], dtype=np.float64)


def intersection(a: Poly, b: Poly) -> Poly:
    """The outline of the area two convex polygons share (empty ``(0, 2)`` when none)."""
    g = shapely.intersection(geometry(a), geometry(b))
    if g.is_empty or g.area <= 0 or g.geom_type != "Polygon":
        return np.zeros((0, 2), np.float64)
    return np.asarray(g.exterior.coords, np.float64)[:-1]


def overlap_area(a: Poly, b: Poly) -> float:
    """Area two polygons share."""
    return float(shapely.intersection(geometry(a), geometry(b)).area)


def overlaps(a: Poly, b: Poly) -> bool:
    return overlap_area(a, b) > TOUCH_AREA_MM2


def point_in_polygon(p: Sequence[float] | NDArray[np.float64], poly: Poly) -> bool:
    return bool(shapely.contains_xy(geometry(poly), float(p[0]), float(p[1])))


def inner_distance(poly: Poly, p: Sequence[float] | NDArray[np.float64]) -> float:
    """Distance from a point inside the polygon to its nearest edge."""
    return float(geometry(poly).exterior.distance(shapely.Point(float(p[0]), float(p[1]))))
