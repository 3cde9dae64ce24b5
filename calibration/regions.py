"""Areas of a board (zones, fields, card slots, the sides of the centre line) as prepared
shapely (GEOS) geometries: built once when the board loads, asked about every die.

A die *touches* an area when the two share area (their interiors meet): a die whose edge
only runs along a zone's edge does not touch it.  Footprints are any simple polygons in
board millimetres (a die's is a convex quad).
"""

from __future__ import annotations

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from calibration.shapes import outer_ring, rings


class Region:
    """One area of a board, prepared for fast tests against die footprints."""

    __slots__ = ("geometry",)

    def __init__(self, geometry: BaseGeometry) -> None:
        shapely.prepare(geometry)
        self.geometry = geometry

    def touches(self, footprint: BaseGeometry) -> bool:
        """True when the footprint shares area with this region (an edge in common is not enough)."""
        g = self.geometry
        if not g.intersects(footprint):
            return False
        return bool(g.contains_properly(footprint) or shapely.relate_pattern(g, footprint, "T********"))

    def overlap_area(self, footprint: BaseGeometry) -> float:
        """Area (mm²) the footprint shares with this region."""
        g = self.geometry
        if not g.intersects(footprint):
            return 0.0
        if g.contains_properly(footprint):
            return float(footprint.area)
        return float(g.intersection(footprint).area)

    def contains(self, footprint: BaseGeometry) -> bool:
        """True when the whole footprint lies inside, edges included."""
        return bool(self.geometry.covers(footprint))

    @property
    def area(self) -> float:
        return float(self.geometry.area)

    @property
    def outline(self) -> NDArray[np.float64]:
        """The outer boundary of the largest part, ``(n, 2)`` mm (holes left out)."""
        return outer_ring(self.geometry)

    def rings(self) -> list[NDArray[np.float64]]:
        """Every boundary ring (outer boundaries and holes), ``(n, 2)`` mm each, for drawing."""
        return rings(self.geometry)

    def label_point(self) -> NDArray[np.float64]:
        """A point well inside the region, for its printed label (the centroid when that lies inside)."""
        c = self.geometry.centroid
        if not self.geometry.contains(c):
            c = shapely.maximum_inscribed_circle(self.geometry, 0.5).coords[0]
            return np.asarray(c, np.float64)
        return np.array([c.x, c.y], np.float64)
