"""Named die body colours, matched in CIE Lab; loadable from a dict (e.g. `calibrate colours`).

Without a learnt palette the table names each die among the game's colours under its own
light: :meth:`Palette.balanced` takes the board's paper white and its markers' black as this
camera sees them (``calibration.boardlight``) and maps every die's colour to what it would be
under neutral light, relative to the paper, before it is compared with the typical plastic
colours.  The die's top face lies in the board's plane, so it is lit as the paper is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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


#: Linear reflectance of printed black ink relative to the paper (matte laser or inkjet black).
INK_BLACK = 0.03


def _to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB 0..1 -> linear light."""
    v = np.clip(v, 0.0, None)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0.0, None)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def bgr_to_lab(bgr: tuple[float, float, float]) -> np.ndarray:
    px = np.array([[bgr]], np.float32) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0], np.float64)


@dataclass(frozen=True)
class Palette:
    """Reference colours by name, stored as Lab (L 0..100, a and b about -128..127)."""

    lab: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    lightness_weight: float = 0.5  # lighting changes L more than hue, so L counts less
    #: the board's paper white and ink black in this frame (BGR 0..255): colours are balanced by
    #: them before they are named (:meth:`balanced`); None: named as the camera sees them
    light: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None

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
        return replace(self, lab=lab) if lab else self

    def balanced(self, white_bgr: Iterable[float], black_bgr: Iterable[float]) -> Palette:
        """This palette naming colours under the light in which the board's paper looks ``white_bgr``
        and its markers' ink ``black_bgr`` (BGR, 0..255; ``calibration.boardlight.board_light``).

        Each channel is mapped, in linear light, so that the paper becomes white and the ink its
        nominal black: a warm or cool light, a dim or bright exposure, a camera's own white
        balance are taken out, and a die is compared with the colours as they look on white paper.
        """
        white, black = tuple(float(v) for v in white_bgr), tuple(float(v) for v in black_bgr)
        if (
            len(white) != 3
            or len(black) != 3
            or not all(w - k >= 8.0 for w, k in zip(white, black, strict=True))
        ):
            raise ValueError(
                "palette light: expected the paper's white and the ink's black as BGR, white above "
                f"black in every channel, got white {white!r}, black {black!r}"
            )
        return replace(self, light=(white, black))

    def balance_lab(self, lab: np.ndarray) -> np.ndarray:
        """A Lab colour seen under this frame's light, as it would look under neutral light."""
        if self.light is None:
            return np.asarray(lab, np.float64)
        bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
        w = _to_linear(np.asarray(self.light[0]) / 255.0)
        k = _to_linear(np.asarray(self.light[1]) / 255.0)
        lin = INK_BLACK + (_to_linear(bgr.astype(np.float64)) - k) / (w - k) * (1.0 - INK_BLACK)
        out = _to_srgb(np.clip(lin, 0.0, 1.0)).astype(np.float32).reshape(1, 1, 3)
        return np.asarray(cv2.cvtColor(out, cv2.COLOR_BGR2Lab).reshape(3), np.float64)

    def to_dict(self) -> dict[str, dict[str, list[float]]]:
        return {name: {"lab": [round(v, 2) for v in lab]} for name, lab in self.lab.items()}

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        """The closest colour name to a Lab value, and its weighted distance."""
        lab = self.balance_lab(lab)
        best, dist = "", float("inf")
        for name, ref in self.lab.items():
            d = lab - np.asarray(ref)
            dd = float(np.sqrt((self.lightness_weight * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))
            if dd < dist:
                best, dist = name, dd
        return best, dist

    def nearest(self, bgr: tuple[float, float, float]) -> str:
        return self.nearest_lab(bgr_to_lab(bgr))[0]
