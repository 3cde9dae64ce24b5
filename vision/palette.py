"""Named die body colours, matched in CIE Lab; loadable from a dict (e.g. `calibrate colours`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

# Typical body colours of plastic dice under white light (BGR). The five Die-angler
# colours, white and black, plus orange and pink, which four-colour sets such as
# Nozoku Dice's commonly use; a table can load its own measured palette instead.
DEFAULT_BGR: dict[str, tuple[int, int, int]] = {
    "red": (45, 40, 195),
    "blue": (170, 90, 30),
    "green": (70, 150, 40),
    "purple": (130, 50, 110),
    "yellow": (40, 200, 230),
    "orange": (30, 120, 235),
    "pink": (170, 120, 235),
    "white": (230, 230, 230),
    "black": (40, 40, 40),
}


def bgr_to_lab(bgr: tuple[float, float, float]) -> np.ndarray:
    px = np.array([[bgr]], np.float32) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0], np.float64)


@dataclass(frozen=True)
class Palette:
    """Reference colours by name, stored as Lab (L 0..100, a and b about -128..127)."""

    lab: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    lightness_weight: float = 0.5  # lighting changes L more than hue, so L counts less

    @classmethod
    def default(cls) -> Palette:
        return cls.from_dict({name: {"bgr": list(v)} for name, v in DEFAULT_BGR.items()})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Palette:
        """{"red": {"bgr": [b, g, r]}} or {"red": {"lab": [L, a, b]}} or {"red": [b, g, r]}."""
        if not isinstance(data, Mapping) or not data:
            raise ValueError(
                f"palette: expected a non-empty mapping of colour name to BGR or Lab, got {data!r}"
            )
        lab: dict[str, tuple[float, float, float]] = {}
        for name, spec in data.items():
            if isinstance(spec, Mapping) and "lab" in spec:
                vals, space = spec["lab"], "lab"
            elif isinstance(spec, Mapping) and "bgr" in spec:
                vals, space = spec["bgr"], "bgr"
            else:
                vals, space = spec, "bgr"
            ok = isinstance(vals, list | tuple) and len(vals) == 3
            ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)
            if not ok or not isinstance(name, str) or not name:
                raise ValueError(
                    f"palette entry {name!r}: expected three numbers as bgr [b, g, r] (0..255) "
                    f"or lab [L, a, b], got {spec!r}"
                )
            if space == "bgr":
                if not all(0 <= v <= 255 for v in vals):
                    raise ValueError(
                        f"palette entry {name!r}: bgr values must be within 0..255, got {vals!r}"
                    )
                lab[name] = tuple(float(x) for x in bgr_to_lab(tuple(vals)))  # type: ignore[assignment]
            else:
                lab[name] = (float(vals[0]), float(vals[1]), float(vals[2]))
        return cls(lab)

    def only(self, names: Iterable[str]) -> Palette:
        """This palette cut down to ``names`` (those it has); itself when it has none of them.

        A table that knows which colours its dice come in names every die by the nearest of
        those: a red die under warm light is red, not orange or pink.
        """
        wanted = {n.lower() for n in names}
        lab = {k: v for k, v in self.lab.items() if k.lower() in wanted}
        return Palette(lab, self.lightness_weight) if lab else self

    def to_dict(self) -> dict[str, dict[str, list[float]]]:
        return {name: {"lab": [round(v, 2) for v in lab]} for name, lab in self.lab.items()}

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        """The closest colour name to a Lab value, and its weighted distance."""
        best, dist = "", float("inf")
        for name, ref in self.lab.items():
            d = lab - np.asarray(ref)
            dd = float(np.sqrt((self.lightness_weight * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))
            if dd < dist:
                best, dist = name, dd
        return best, dist

    def nearest(self, bgr: tuple[float, float, float]) -> str:
        return self.nearest_lab(bgr_to_lab(bgr))[0]
