"""Plane polygon arithmetic in board millimetres (no third-party geometry library).

Polygons are ``(n, 2)`` float arrays of vertices in order (either winding).
Board layouts may use concave polygons (an L-shaped zone); die footprints are
always convex, which is what lets :func:`overlap_area` clip with
Sutherland-Hodgman (the clip window must be convex, the subject need not be).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Poly = NDArray[np.float64]

#: Overlap below this area (mm²) is a shared edge or a rounding error, not touching.
TOUCH_AREA_MM2 = 1e-6


def as_poly(points: Sequence[Sequence[float]] | NDArray[np.floating]) -> Poly:
    return np.asarray(points, dtype=np.float64).reshape(-1, 2)


def signed_area(poly: Poly) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def area(poly: Poly) -> float:
    return abs(signed_area(poly))


def centroid(poly: Poly) -> NDArray[np.float64]:
    """Area centroid (falls back to the vertex mean for degenerate polygons)."""
    x, y = poly[:, 0], poly[:, 1]
    cross = x * np.roll(y, -1) - np.roll(x, -1) * y
    a = cross.sum() / 2.0
    if abs(a) < 1e-12:
        return np.asarray(poly.mean(axis=0), dtype=np.float64)
    cx = ((x + np.roll(x, -1)) * cross).sum() / (6.0 * a)
    cy = ((y + np.roll(y, -1)) * cross).sum() / (6.0 * a)
    return np.array([cx, cy], dtype=np.float64)


def is_convex(poly: Poly) -> bool:
    d = np.roll(poly, -1, axis=0) - poly
    cross = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    return bool(np.all(cross >= -1e-9) or np.all(cross <= 1e-9))


def is_simple(poly: Poly) -> bool:
    """True when no two non-adjacent edges cross (a self-intersecting outline is a typo)."""
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        for j in range(i + 1, n):
            if j == i or (j + 1) % n == i or (i + 1) % n == j:
                continue
            c, d = poly[j], poly[(j + 1) % n]
            if _segments_cross(a, b, c, d):
                return False
    return True


def _orient(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _segments_cross(a: Poly, b: Poly, c: Poly, d: Poly) -> bool:
    d1, d2 = _orient(c, d, a), _orient(c, d, b)
    d3, d4 = _orient(a, b, c), _orient(a, b, d)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def clip_convex(subject: Poly, window: Poly) -> Poly:
    """Sutherland-Hodgman: the part of ``subject`` inside the convex ``window``."""
    if signed_area(window) < 0:
        window = window[::-1]
    out = subject
    n = len(window)
    for i in range(n):
        if len(out) == 0:
            break
        a, b = window[i], window[(i + 1) % n]
        edge = b - a
        side = edge[0] * (out[:, 1] - a[1]) - edge[1] * (out[:, 0] - a[0])  # >= 0: inside
        kept: list[NDArray[np.float64]] = []
        m = len(out)
        for j in range(m):
            p, q = out[j], out[(j + 1) % m]
            sp, sq = side[j], side[(j + 1) % m]
            if sp >= 0:
                kept.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                kept.append(p + t * (q - p))
        out = np.array(kept, dtype=np.float64).reshape(-1, 2)
    return out


def overlap_area(convex: Poly, other: Poly) -> float:
    """Area shared by a convex polygon and any simple polygon."""
    clipped = clip_convex(other, convex)
    return area(clipped) if len(clipped) >= 3 else 0.0


def overlaps(convex: Poly, other: Poly) -> bool:
    return overlap_area(convex, other) > TOUCH_AREA_MM2


def point_in_polygon(p: Sequence[float] | NDArray[np.float64], poly: Poly) -> bool:
    x, y = float(p[0]), float(p[1])
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xc:
                inside = not inside
    return inside


def point_segment_distance(p: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    ab = b - a
    denom = float(np.dot(ab, ab))
    t = 0.0 if denom == 0 else float(np.clip(np.dot(p - a, ab) / denom, 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def segment_distance(a: Poly, b: Poly, c: Poly, d: Poly) -> float:
    if _segments_cross(a, b, c, d):
        return 0.0
    return min(
        point_segment_distance(a, c, d),
        point_segment_distance(b, c, d),
        point_segment_distance(c, a, b),
        point_segment_distance(d, a, b),
    )


def polygon_segment_distance(poly: Poly, a: Poly, b: Poly) -> float:
    """Distance between a filled polygon and a segment (0 when they meet)."""
    if point_in_polygon(a, poly) or point_in_polygon(b, poly):
        return 0.0
    n = len(poly)
    return min(segment_distance(poly[i], poly[(i + 1) % n], a, b) for i in range(n))


def boundary_distance(poly: Poly, boundary: Poly, closed: bool = True) -> float:
    """Distance between a filled polygon and the outline (edges only) of another."""
    n = len(boundary)
    edges = n if closed else n - 1
    return min(polygon_segment_distance(poly, boundary[i], boundary[(i + 1) % n]) for i in range(edges))
