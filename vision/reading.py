"""What the reader says about one die."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from vision.oblique import View
    from vision.palette import Palette
    from vision.where import WhereStep

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
    #: the colour this die lies nearly as near as ``colour`` (`vision.palette.Palette.near_two`):
    #: the game asks whose it is when both are players' colours; None: its colour is clear
    colour_near: str | None = None
    #: the detector's box round the die (4 corners, as ``quad``), which its look is cut from when the
    #: table names colours by its roster's learnt looks (`vision.crops.look_crop`,
    #: `controller.roster.die_look`); None: its quad (not part of the JSON form)
    box: Quad | None = field(default=None, compare=False)
    #: what the palette named the die's colour by (`vision.palette.Palette.describe_at`: a learnt
    #: palette's whole look of the die, balanced by the light, which a referee's answer about its
    #: colour adds to the roster's look, `controller.referee_looks`); None: not said (not part of the
    #: JSON form)
    look: tuple[float, ...] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The `dicetable read --json` form of this die."""
        near = {} if self.colour_near is None else {"colour_near": self.colour_near}
        return {
            "kind": self.kind,
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "confidence": round(self.confidence, 3),
            "colour": self.colour,
            "cocked": self.cocked,
            **near,
        }


@dataclass(frozen=True)
class Rejected:
    """A candidate the reader did not read as a die: where, the step that rejected it and why, and
    (when the classifier had read it) the value and confidence it would have had."""

    center: tuple[float, float]
    w: float
    h: float
    step: str
    why: str
    value: int | None = None
    confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "size": [round(self.w, 1), round(self.h, 1)],
            "step": self.step,
            "why": self.why,
        }
        if self.value is not None and self.confidence is not None:
            out.update(value=self.value, confidence=round(self.confidence, 3))
        return out


@dataclass(frozen=True)
class Examined:
    """What the reader made of a frame: the dice it read and the candidates it rejected."""

    readings: list[DieReading]
    rejected: list[Rejected]
    #: indices into ``readings`` of the dice kept only as questions by the symbol-face step
    #: (`vision.pipcheck.found_again`: a die's square top face the nets rejected), which a lone
    #: photo's rule (`vision.numbered.combined.alone`) leaves out of its median
    found_again: tuple[int, ...] = ()


@runtime_checkable
class Reader(Protocol):
    """What reads the dice of a frame: the pip-d6 reader (`vision.reader.DiceReader`) and the
    numbered one (`vision.numbered.combined.NumberedDice`) alike.

    ``palette`` names the body colours (None: the reader's default); ``where`` are the
    `vision.where` steps a die must pass (the table's, for this frame), judged on boxes in the
    frame's pixels; ``view`` is where the camera looks from (`vision.oblique.View`, from the board's
    pose; None: the reader's own), which tells a reader how the dice lean (its `nadir`).  `examine`
    also gives every candidate rejected and the step that rejected it (`dicetable read --explain`).
    A reader that subclasses it has `read` as the readings of its `examine`."""

    def read(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> list[DieReading]:
        return self.examine(image, palette, where, view).readings

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined: ...
