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

A lone photo has no empty table to compare with, so its readings are judged once more (`accepted`,
issue 29: phantoms at most 1 in 20 photos): on the real photos with no die the reader read printed
words, signs and coins as dice (1.03-1.08 a photo).  Each threshold below was chosen on the TRAIN
sets only (d20_lurig's d20_color and d20_off-angle, d20_desk_scenes' red die, the negatives' train
sources, byler_d6 and skovy_d6's train photos; benchmarks/vision_numbered_phantoms.py):

* one die, one reading: of two readings closer than OVERLAP of their mean size (a die read twice, by
  the pip reader and the numbered one, or its numeral read as a second, smaller die) the surer stays,
  unless both are d6 (`one_each`);
* a numbered reading (d10, d10p, d20) must be seen by the detector at another zoom too (AGREE_ZOOMS:
  a die is a die whatever the camera's distance; a letter or a wood knot fires at one scale), unless
  the classifier is SURE_ALONE sure or the not-a-die net DIE_LIKE sure of it;
* a d6 reading (the pip reader's or the numbered one's), and a die the detector does not see where it
  was read (the pip reader's, read as a numbered kind), must be PIP_NOTADIE a die to the numbered
  not-a-die net (a coin's relief read as six pips is not).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.image_check import check_bgr
from vision.reading import DieReading, Examined, Reader, Rejected

if TYPE_CHECKING:
    from vision.numbered.combined import NumberedDice
    from vision.numbered.reader import NumberedReader
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
#: the lone photo's acceptance (see the module's doc; `accepted`).  OVERLAP: of the mean size of two
#: readings; AGREE: the detector's score at another zoom of AGREE_ZOOMS, near the reading (within half
#: its size) and of its size (half to twice); SURE_ALONE: the reading's confidence; DIE_LIKE and
#: PIP_NOTADIE: the numbered not-a-die net's score of the reading's box in the photo.  PIP_NOTADIE:
#: under the least of byler_d6's and skovy_d6's train pip dice (0.118, 174 dice); AGREE, SURE_ALONE,
#: DIE_LIKE: on the d20 and negatives' TRAIN sets, 6 of 292 numbered dice lost for 47 of 63 phantoms
OVERLAP = 0.75
AGREE_ZOOMS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
AGREE = 0.2
SURE_ALONE = 0.5
DIE_LIKE = 0.9
PIP_NOTADIE = 0.1
#: the step a lone photo's rejected readings name (`Examined.rejected`, `--explain`)
STEP = "lone photo"
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


@dataclass(frozen=True)
class Peak:
    """A detector peak of a photo seen at some zoom, in the photo's pixels: centre, size, score."""

    center: tuple[float, float]
    side: float
    score: float


@dataclass(frozen=True)
class _Box:
    """A reading's outline box, as the not-a-die net takes a candidate (`notadie.Candidate`)."""

    box_center: tuple[float, float]
    w: float
    h: float


def _extent(r: DieReading) -> tuple[tuple[float, float], float]:
    """A reading's outline box: its quad's bounding box's centre and longer side (photo pixels)."""
    xs, ys = [p[0] for p in r.quad], [p[1] for p in r.quad]
    side = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    return ((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2), side


def one_each(readings: Sequence[DieReading], overlap: float = OVERLAP) -> tuple[list[int], list[int]]:
    """The indices of `readings` kept and dropped: of two whose centres are closer than `overlap` of
    their mean size (one die read twice) the less sure is dropped (on a tie, the smaller).  Two d6
    readings are never one die: the pip reader is the authority on d6, and pip dice touch (on the
    byler_d6 train photos 9 touching d6 of 30 photos were closer than OVERLAP)."""
    boxes = [_extent(r) for r in readings]
    order = sorted(range(len(readings)), key=lambda i: (-readings[i].confidence, -boxes[i][1]))
    kept: list[int] = []
    dropped: list[int] = []
    for i in order:
        c, side = readings[i].center, boxes[i][1]
        if any(
            math.dist(c, readings[j].center) < overlap * (side + boxes[j][1]) / 2
            and not readings[i].kind == readings[j].kind == "d6"
            for j in kept
        ):
            dropped.append(i)
        else:
            kept.append(i)
    return sorted(kept), sorted(dropped)


class Looks:
    """The detector's peaks of one photo at each zoom asked for, each zoom looked at once (the zoom
    chosen and the lone photo's acceptance share them)."""

    def __init__(self, look: Callable[[float], list[Peak]]) -> None:
        self._look = look
        self._seen: dict[float, list[Peak]] = {}

    def at(self, zoom: float) -> list[Peak]:
        if zoom not in self._seen:
            self._seen[zoom] = self._look(zoom)
        return self._seen[zoom]


def _back(r: DieReading, x0: float, y0: float, s: float) -> DieReading:
    """A reading of the canvas in the photo's pixels."""
    return replace(
        r,
        center=((r.center[0] - x0) / s, (r.center[1] - y0) / s),
        quad=tuple(((x - x0) / s, (y - y0) / s) for x, y in r.quad),  # type: ignore[arg-type]
        box=None if r.box is None else tuple(((x - x0) / s, (y - y0) / s) for x, y in r.box),  # type: ignore[arg-type]
    )


def _back_rejected(r: Rejected, x0: float, y0: float, s: float) -> Rejected:
    return replace(r, center=((r.center[0] - x0) / s, (r.center[1] - y0) / s), w=r.w / s, h=r.h / s)


@dataclass(frozen=True)
class AnyScale(Reader):
    """The numbered reader (`vision.numbered.NumberedDice`) for photos of unknown scale (see the
    module's doc).  With where steps or a view (a table that knows its scale) it reads as `inner`."""

    inner: NumberedDice
    zooms: tuple[float, ...] = ZOOMS
    #: judge the readings as a lone photo's (`accepted`); False: as the reader gives them
    lone: bool = True

    def __post_init__(self) -> None:
        if not self.zooms or any(not math.isfinite(z) or z < 1.0 for z in self.zooms):
            raise ValueError(f"zooms: expected one or more zooms of at least 1, got {self.zooms!r}")

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.inner.kinds

    def _reader(self) -> NumberedReader:
        from vision.numbered.reader import default_reader

        return self.inner.reader or default_reader()

    def _small(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        """The photo at the detector's own input size (NumberedReader.detect) and that scale."""
        h, w = image.shape[:2]
        k = math.sqrt(self._reader().det_area / (w * h))
        small = cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
        return small, k

    def peaks_at(self, small: np.ndarray, k: float, zoom: float) -> list[Peak]:
        """The detector's dice in `small` (`_small`'s photo, at scale `k`) seen at `zoom`: the canvas
        drawn back at the detector's size, the photo 1/zoom of it; in the photo's pixels."""
        if zoom == 1.0:
            view, x0, y0, s, kk = small, 0.0, 0.0, 1.0, 1.0
        else:
            big, x0, y0, s = canvas(small, zoom, max_side=10**9)
            kk = small.shape[1] / big.shape[1]
            view = cv2.resize(big, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        return [
            Peak(
                (((f.center[0] / kk - x0) / s) / k, ((f.center[1] / kk - y0) / s) / k),
                max(f.w, f.h) / kk / s / k,
                f.score,
            )
            for f in self._reader().detect(view)
        ]

    def looks(self, image: np.ndarray) -> Looks:
        """The detector's looks at `image` at any zoom, each looked at once (`Looks`)."""
        small, k = self._small(image)
        return Looks(lambda zoom: self.peaks_at(small, k, zoom))

    def zoom_of(self, image: np.ndarray, looks: Looks | None = None) -> float:
        """The zoom of `zooms` at which the detector's strongest die is strongest (the smaller on a
        tie); 1 for a photo that shows MANY dice peaking at STRONG as it is.  `looks`: the photo's
        `looks`, when already made."""
        looks = looks or self.looks(image)
        peak: dict[float, float] = {}
        for zoom in self.zooms:
            found = looks.at(zoom)
            peak[zoom] = max((f.score for f in found), default=0.0)
            if zoom == 1.0 and sum(f.score >= STRONG for f in found) >= MANY:
                return 1.0  # many dice as it is: the table's scale
        return max(peak, key=lambda z: (peak[z], -z))

    def support(
        self,
        image: np.ndarray,
        readings: Sequence[DieReading],
        zooms: Sequence[float],
        looks: Looks | None = None,
    ) -> list[float]:
        """For each reading, the detector's strongest score near it (within half its size, of half
        to twice its size; a box larger than the photo counts as the photo's size: a close-up's die
        read with its box overflowing the photo) at `zooms`."""
        if not readings:
            return []
        looks = looks or self.looks(image)
        peaks = [p for z in zooms for p in looks.at(z)]
        most = float(max(image.shape[:2]))
        out = []
        for r in readings:
            side = min(_extent(r)[1], most)
            near = [
                p.score
                for p in peaks
                if math.dist(p.center, r.center) < 0.5 * side and 0.5 < p.side / side < 2.0
            ]
            out.append(max(near, default=0.0))
        return out

    def accepted(
        self, image: np.ndarray, readings: Sequence[DieReading], zoom: float, looks: Looks | None = None
    ) -> tuple[list[DieReading], list[Rejected]]:
        """A lone photo's readings (photo pixels, read at `zoom`) judged as the module's doc says:
        the readings kept and the others, rejected with the reason."""
        keep, twice = one_each(readings)
        out: list[Rejected] = []

        def reject(r: DieReading, why: str) -> None:
            (c, side) = _extent(r)
            out.append(Rejected(c, side, side, STEP, why, r.value, r.confidence))

        for i in twice:
            reject(readings[i], "the same die read twice; the surer reading kept")
        kept = [readings[i] for i in keep]
        net = self._reader().notadie
        boxes = [_extent(r) for r in kept]
        die = (
            net.judge(image, [_Box(c, side, side) for c, side in boxes]).tolist()
            if net is not None and kept
            else [1.0] * len(kept)
        )
        # the pip reader's dice read as a numbered kind (a table of numbered kinds alone: `lone_pips`;
        # `second_look`): the detector does not see them where they were read; judged as a d6 is
        pips = [i for i, r in enumerate(kept) if r.kind == "d6"]
        weak = [i for i, r in enumerate(kept) if r.kind != "d6" and r.confidence < SURE_ALONE]
        looks = looks or self.looks(image)
        own = self.support(image, [kept[i] for i in weak], (zoom,), looks)
        pips += [i for i, s in zip(weak, own, strict=True) if s <= 0.0]
        numbered = [i for i in weak if i not in pips]
        others = [z for z in AGREE_ZOOMS if z != zoom]
        seen = dict(
            zip(numbered, self.support(image, [kept[i] for i in numbered], others, looks), strict=True)
        )
        good = []
        for i, r in enumerate(kept):
            if i in pips and die[i] < PIP_NOTADIE:
                reject(r, f"not a die to the not-a-die net ({die[i]:.2f} < {PIP_NOTADIE})")
            elif i in seen and seen[i] < AGREE and die[i] < DIE_LIKE:
                reject(r, f"seen by the detector at one zoom only (elsewhere {seen[i]:.2f} < {AGREE})")
            else:
                good.append(r)
        return good, out

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
        looks = self.looks(image)
        zoom = self.zoom_of(image, looks)
        if zoom == 1.0:
            seen = self.inner.examine(image, palette)
        else:
            big, x0, y0, s = canvas(image, zoom)
            got = self.inner.examine(big, palette)
            seen = Examined(
                [_back(r, x0, y0, s) for r in got.readings],
                [_back_rejected(r, x0, y0, s) for r in got.rejected],
            )
        if not self.lone:
            return seen
        kept, rejected = self.accepted(image, seen.readings, zoom, looks)
        return Examined(kept, [*seen.rejected, *rejected])
