"""A reading's confidence that depends on how obliquely its die is seen (issue 46 item 2).

The box classifier's confidence means one thing overhead and another at an angle: on the real
overhead held-out photos (byler_d6) no reading at 0.8 or more is wrong, on the real oblique ones
(epanemu_d6_oblique, CC BY 4.0 Epanemu/GameDiceRecognition) about one in nine is.  One map for
every view either lies at an angle or asks nearly every overhead die (benchmarks/RESULTS.md).  So
each die's view angle is told first, and its confidence mapped by a monotone map fitted for that
range of angles:

- with a ``View`` given to the reader (a table's calibration, ``[vision] rectify_oblique``): the angle
  of the ray through the die off vertical (``View.view_deg``);
- a lone photo: the photo's dice's top faces as they look (``DieReading.quad``, found by
  ``vision.face.face_quad``): a square face seen ``t`` off vertical looks ``1 / cos t`` as long as
  wide, so ``acos(1 / median aspect)``, costing a few arithmetic operations a die.

Each range's map sends its ``bar`` (the raw confidence just above the surest wrong reading of the
TRAIN photos in that range, ``benchmarks/vision_d6_oblique_real.py --view-confidence``) to the asking
threshold (``mapped``): a reading surer than the bar stays sure, one under it is asked, and what
was under the threshold already barely moves.  A range whose train readings were never wrong at
the asking threshold keeps the raw confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from vision.oblique import View
from vision.reading import DieReading

#: The asking threshold (controller.config TableSection.confidence_threshold's default; vision
#: does not import controller).
ASK = 0.8
#: A reading from the asking threshold up to its range's bar is mapped into [ASK - SQUEEZE, ASK).
SQUEEZE = 0.01


def quad_aspect(quad: object) -> float:
    """A top-face quad's longer side over its shorter (4 x 2 points in order round the face)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    a = float(np.hypot(*(q[1] - q[0])) + np.hypot(*(q[3] - q[2])))
    b = float(np.hypot(*(q[2] - q[1])) + np.hypot(*(q[0] - q[3])))
    return max(a, b) / max(1e-9, min(a, b))


def aspect_deg(aspect: float) -> float:
    """The view angle off vertical (degrees) at which a square looks ``aspect`` as long as wide."""
    return math.degrees(math.acos(min(1.0, 1.0 / max(aspect, 1.0))))


def photo_deg(readings: Sequence[DieReading]) -> float | None:
    """A lone photo's view angle told by its dice's top faces (the median aspect), or None."""
    if not readings:
        return None
    return aspect_deg(float(np.median([quad_aspect(r.quad) for r in readings])))


def view_degs(readings: Sequence[DieReading], view: View | None) -> list[float]:
    """Each reading's view angle: from ``view`` at its centre, else the photo's (``photo_deg``)."""
    if view is not None:
        return [view.view_deg(*r.center) for r in readings]
    deg = photo_deg(readings)
    return [0.0 if deg is None else deg] * len(readings)


def mapped(conf: float, bar: float, ask: float = ASK, squeeze: float = SQUEEZE) -> float:
    """``conf`` mapped monotonely so that ``bar`` lands on ``ask``: above the bar linearly onto
    [ask, 1]; from ``ask`` up to the bar into [ask - squeeze, ask) (asked, told apart from what was
    unsure already); under ``ask`` scaled by (ask - squeeze) / ask, barely moved (what is asked
    anyway keeps its order, and a photo's median, ``vision.numbered.combined.alone``, hardly moves)."""
    if bar <= ask:
        return conf
    lo = ask - squeeze
    if conf >= bar:
        return ask + (conf - bar) * (1.0 - ask) / (1.0 - bar) if bar < 1.0 else ask
    if conf >= ask:
        return lo + (conf - ask) * squeeze / (bar - ask)
    return conf * lo / ask


@dataclass(frozen=True)
class ViewConfidence:
    """Monotone confidence maps by range of view angle: ``edges`` (degrees, ascending) split the
    angles into ``len(edges) + 1`` ranges, ``bars[i]`` is range i's raw confidence sent to the
    asking threshold (``mapped``)."""

    edges: tuple[float, ...]
    bars: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.bars) != len(self.edges) + 1 or list(self.edges) != sorted(self.edges):
            raise ValueError(
                f"ViewConfidence: expected ascending edges and one bar more than edges, "
                f"got edges {self.edges} and bars {self.bars}"
            )
        if not all(0.0 <= b <= 1.0 for b in self.bars):
            raise ValueError(f"ViewConfidence: expected bars in [0, 1], got {self.bars}")

    def range_of(self, deg: float) -> int:
        """The index of the range that holds view angle ``deg``."""
        return int(np.searchsorted(np.asarray(self.edges), deg, side="right"))

    def confidence(self, conf: float, deg: float) -> float:
        """A raw confidence read at view angle ``deg``, mapped."""
        return mapped(conf, self.bars[self.range_of(deg)])

    def apply(self, readings: Sequence[DieReading], view: View | None = None) -> list[DieReading]:
        """The readings with their confidences mapped by their view angles (``view_degs``)."""
        degs = view_degs(readings, view)
        return [
            replace(r, confidence=self.confidence(r.confidence, d))
            for r, d in zip(readings, degs, strict=True)
        ]


def fit_bars(
    rows: Sequence[tuple[float, bool, float]], edges: tuple[float, ...], ask: float = ASK
) -> tuple[float, ...]:
    """Each range's bar fitted on TRAIN readings (confidence, right, view angle): just above the
    surest wrong reading at or above ``ask`` in the range (``ask`` when none is wrong)."""
    vc = ViewConfidence(edges, tuple(ask for _ in range(len(edges) + 1)))
    bars = []
    for k in range(len(edges) + 1):
        wrong = [c for c, ok, d in rows if vc.range_of(d) == k and not ok and c >= ask]
        bars.append(min(0.9999, max(wrong) + 0.001) if wrong else ask)
    return tuple(bars)


#: Fitted by ``benchmarks/vision_d6_oblique_real.py --view-confidence`` on the TRAIN photos only
#: (epanemu white_table and cloth_groups, byler_d6 train; 1,040 and 890 readings, 5 and 63 wrong at
#: 0.8 or more), rounded up: ranges under and over 26 degrees (the single edge of 14-38 that kept
#: the most TRAIN readings sure, chosen on the TRAIN photos alone).  Opt-in
#: (``DiceReader(view_confidence="default")``): it asks about a quarter of overhead dice.
EDGES = (26.0,)
BARS = (0.9438, 0.9864)


def default() -> ViewConfidence:
    """The shipped maps (``EDGES``, ``BARS``)."""
    return ViewConfidence(EDGES, BARS)
