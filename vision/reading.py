"""What the reader says about one die."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]


def box_quad(center: Point, w: float, h: float) -> Quad:
    """The corners of the axis-aligned w x h box round `center`, clockwise from the top-left."""
    x, y, hw, hh = center[0], center[1], w / 2, h / 2
    return ((x - hw, y - hh), (x + hw, y - hh), (x + hw, y + hh), (x - hw, y + hh))


@dataclass(frozen=True, kw_only=True)
class DieReading:
    """One die seen in a frame: value of the top face, where it is in pixels, how sure we are."""

    kind: str = "d6"
    value: int
    center: Point
    quad: Quad
    confidence: float
    colour: str
    cocked: bool = False

    def to_json(self) -> dict[str, Any]:
        """The `dicetable read --json` form of this die."""
        return {
            "kind": self.kind,
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "confidence": round(self.confidence, 3),
            "colour": self.colour,
            "cocked": self.cocked,
        }
