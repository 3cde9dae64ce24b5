"""A photo of unknown scale: numbered dice read at the zoom where they look like a table's dice.

The numbered detector was trained on the table's view: dice a few percent of the frame wide.  A
photo taken close (a phone over one die, a reference photo of each face, a crop) shows a die half the
frame wide or more, and there the detector finds the numerals rather than the die: on the real d20
photos read as they are, a held-out set-up's die was found in 51-72 % of photos and its kind read right
in 2-3 % (`benchmarks/vision_numbered_scale.py`).  A table knows its scale (the board, the die size,
the empty table); a photo read with none of those does not.

`AnyScale` reads such a photo as if the camera stood further back: the photo is laid, whole, in the
middle of a canvas ZOOM times its size filled with the photo's border colour, for each zoom of ZOOMS;
the detector alone looks at each (a few ms: `zoom_of`), and the zoom where its strongest die is
strongest is read through the wrapped reader.  The dice are given back in the photo's own pixels.
A photo whose dice are already at the table's scale keeps zoom 1 (its dice peak highest there, and
a photo of MANY dice is not zoomed at all).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.image_check import check_bgr
from vision.reading import DieReading, Examined, Rejected

if TYPE_CHECKING:
    from vision.numbered.combined import NumberedDice
    from vision.oblique import View
    from vision.palette import Palette
    from vision.where import WhereStep

#: how much further back the camera is imagined; chosen on the real TRAIN sets (d20_lurig's
#: d20_color and d20_off-angle set-ups, d20_desk_scenes' red die, the negatives' train sources)
ZOOMS = (1.0, 2.0, 3.0, 4.0)
#: a photo in which at least MANY dice peak at STRONG or more as it is shows dice at the table's scale
#: already: it is read as it is (a table photo of many dice can peak once, weakly, zoomed out, where
#: the detector takes the whole cluster for one die).  Chosen on 80 photos of dice at the table's
#: scale (every 5th byler_d6 photo, 40 rendered numbered frames: 5 were zoomed out without it, none
#: with it) and the train close-ups above (the same dice found with it as without)
MANY = 3
STRONG = 0.5
#: a canvas is at most this many pixels on its longer side (a Pi Camera 3 still's); a photo is
#: shrunk first when its zoom would make it larger
MAX_SIDE = 3456


def canvas(
    image: np.ndarray, zoom: float, max_side: int = MAX_SIDE
) -> tuple[np.ndarray, float, float, float]:
    """`image` (BGR) shrunk by s (1 unless the canvas would pass `max_side`) and laid in the middle of
    a canvas `zoom` times its size, filled with the median of the photo's border pixels; returns the
    canvas and (x0, y0, s): a canvas point p is the photo's point ((p.x - x0) / s, (p.y - y0) / s)."""
    h, w = image.shape[:2]
    s = min(1.0, max_side / (max(h, w) * zoom))
    if s < 1.0:
        image = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    ih, iw = image.shape[:2]
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    out = np.empty((max(ih, round(ih * zoom)), max(iw, round(iw * zoom)), 3), np.uint8)
    out[:] = np.median(border, 0).astype(np.uint8)
    y0, x0 = (out.shape[0] - ih) // 2, (out.shape[1] - iw) // 2
    out[y0 : y0 + ih, x0 : x0 + iw] = image
    return out, float(x0), float(y0), s


def _back(r: DieReading, x0: float, y0: float, s: float) -> DieReading:
    """A reading of the canvas in the photo's pixels."""
    return replace(
        r,
        center=((r.center[0] - x0) / s, (r.center[1] - y0) / s),
        quad=tuple(((x - x0) / s, (y - y0) / s) for x, y in r.quad),  # type: ignore[arg-type]
    )


def _back_rejected(r: Rejected, x0: float, y0: float, s: float) -> Rejected:
    return replace(r, center=((r.center[0] - x0) / s, (r.center[1] - y0) / s), w=r.w / s, h=r.h / s)


@dataclass(frozen=True)
class AnyScale:
    """The numbered reader (`vision.numbered.NumberedDice`) for photos of unknown scale (see the
    module's doc).  With where steps or a view (a table that knows its scale) it reads as `inner`."""

    inner: NumberedDice
    zooms: tuple[float, ...] = ZOOMS

    def __post_init__(self) -> None:
        if not self.zooms or any(not math.isfinite(z) or z < 1.0 for z in self.zooms):
            raise ValueError(f"zooms: expected one or more zooms of at least 1, got {self.zooms!r}")

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.inner.kinds

    def read(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> list[DieReading]:
        return self.examine(image, palette, where, view).readings

    def zoom_of(self, image: np.ndarray) -> float:
        """The zoom of `zooms` at which the detector's strongest die is strongest (the smaller on a
        tie); 1 for a photo that shows MANY dice peaking at STRONG as it is."""
        from vision.numbered.reader import default_reader

        reader = self.inner.reader or default_reader()
        h, w = image.shape[:2]
        # the detector's own input size for this photo (NumberedReader.detect), each zoom drawn at it
        k = math.sqrt(reader.det_area / (w * h))
        small = cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
        peak: dict[float, float] = {}
        for zoom in self.zooms:
            view = small if zoom == 1.0 else canvas(small, zoom, max_side=10**9)[0]
            if zoom != 1.0:  # the canvas back at the detector's size: the photo 1/zoom of it
                view = cv2.resize(view, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
            found = reader.detect(view)
            peak[zoom] = max((f.score for f in found), default=0.0)
            if zoom == 1.0 and sum(f.score >= STRONG for f in found) >= MANY:
                return 1.0  # many dice as it is: the table's scale
        return max(peak, key=lambda z: (peak[z], -z))

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined:
        image = check_bgr(image)
        if where or view is not None or min(image.shape[:2]) < 16:
            return self.inner.examine(image, palette, where, view)
        zoom = self.zoom_of(image)
        if zoom == 1.0:
            return self.inner.examine(image, palette)
        big, x0, y0, s = canvas(image, zoom)
        seen = self.inner.examine(big, palette)
        return Examined(
            [_back(r, x0, y0, s) for r in seen.readings],
            [_back_rejected(r, x0, y0, s) for r in seen.rejected],
        )
