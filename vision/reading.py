"""What the reader says about one die."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class DieReading:
    """One die seen in a frame: value of the top face, where it is in pixels, how sure we are."""

    kind: str = "d6"
    value: int
    center: Point
    quad: tuple[Point, Point, Point, Point]
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
