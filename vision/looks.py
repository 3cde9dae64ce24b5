"""Die colours learnt from the table's own dice (issue 44 item 5, issue 45 item 3).

A palette names a die by the nearest of a few reference colours ("black", "white"): a smoke die, a
pastel die, a blue/black swirl or a black die with white pips can lie nearer another name than its
own.  A table that knows its dice names each die by the nearest *learnt* look instead: each die of
the roster keeps the body colours of a few sightings of it (`Look`: the Lab of the body's pixels,
`vision.face.body_colour_labs`, pips and glints left out, balanced by the frame's light the way the
palette balances them, `Palette.balance_lab`), and a die seen later is the entry whose sightings lie
nearest (`LearntPalette`).  Two entries of one colour (five green d6) pool their sightings: a die is
named by its colour, the owner follows.

Asked, never guessed: a die about as near two colours (its distance to the nearest at least
``ASK_RATIO`` of its distance to the next) or far from every learnt look (more than ``FAR``) is
named with the two nearest colours (``near_two``'s second name), which the table asks the referee
about, like a die between two players' palette colours.

The distance: Lab with lightness weighted by ``L_WEIGHT`` (lighting changes lightness more than
hue), to the mean of the ``K`` nearest sightings of the entry (one sighting of a swirl die can be
its dark side, another its colour: the nearest ones, not the mean of all, are compared).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.palette import Palette

#: lightness counts this much against a and b
L_WEIGHT = 0.5
#: the entry's distance: the mean distance to its K nearest sightings
K = 2
#: a die at least this share as far from its nearest colour as from the next is asked
ASK_RATIO = 0.75
#: a die farther than this (weighted Lab) from every learnt sighting is asked
FAR = 18.0
#: at most this many sightings are kept per die (the newest)
KEEP = 60


@dataclass(frozen=True)
class Look:
    """The body colours of a few sightings of one die: balanced Lab, one row a sighting."""

    labs: tuple[tuple[float, float, float], ...]

    @classmethod
    def learn(cls, labs: Iterable[Sequence[float]], before: Look | None = None) -> Look:
        """A look from sightings (balanced Lab), added to ``before``'s; the newest ``KEEP`` kept."""
        rows = [] if before is None else list(before.labs)
        for lab in labs:
            v = tuple(float(x) for x in lab)
            if len(v) != 3 or not all(np.isfinite(v)):
                raise ValueError(f"look: expected a Lab colour (three numbers), got {lab!r}")
            rows.append((round(v[0], 2), round(v[1], 2), round(v[2], 2)))
        if not rows:
            raise ValueError("look: expected at least one sighting of the die")
        return cls(tuple(rows[-KEEP:]))

    @property
    def mean(self) -> tuple[float, float, float]:
        return tuple(float(x) for x in np.mean(self.labs, axis=0))  # type: ignore[return-value]

    @property
    def spread(self) -> tuple[float, float, float]:
        return tuple(float(x) for x in np.std(self.labs, axis=0))  # type: ignore[return-value]

    def to_json(self) -> dict[str, Any]:
        return {
            "seen": len(self.labs),
            "lab": [round(v, 1) for v in self.mean],
            "spread": [round(v, 1) for v in self.spread],
            "labs": [list(r) for r in self.labs],
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "look") -> Look:
        """A look from its JSON form; raises ValueError naming ``where`` and the field."""
        if not isinstance(data, Mapping) or not isinstance(data.get("labs"), list) or not data["labs"]:
            raise ValueError(f"{where}.labs: expected a list of sightings ([L, a, b] each), got {data!r}")
        rows = []
        for i, r in enumerate(data["labs"]):
            ok = isinstance(r, list) and len(r) == 3
            ok = ok and all(isinstance(x, int | float) and not isinstance(x, bool) for x in r)
            if not ok or not (0.0 <= r[0] <= 100.0 and all(-128.0 <= x <= 128.0 for x in r[1:])):
                raise ValueError(
                    f"{where}.labs[{i}]: expected [L, a, b] (L 0..100, a b -128..128), got {r!r}"
                )
            rows.append(r)
        return cls.learn(rows)

    def distance(self, lab: np.ndarray) -> float:
        d = np.asarray(self.labs, np.float64) - np.asarray(lab, np.float64)
        d[:, 0] *= L_WEIGHT
        dist = np.sort(np.sqrt((d**2).sum(axis=1)))
        return float(dist[: min(K, len(dist))].mean())


def pooled(looks: Iterable[tuple[str, Look]]) -> dict[str, Look]:
    """The looks by colour name, the sightings of several dice of one colour pooled."""
    out: dict[str, list[tuple[float, float, float]]] = {}
    for name, look in looks:
        out.setdefault(name.lower(), []).extend(look.labs)
    return {name: Look(tuple(rows)) for name, rows in out.items()}


@dataclass(frozen=True)
class LearntPalette(Palette):
    """A palette that names a die by the nearest learnt look (see the module's doc); balanced by
    the board's or the frame's light like any palette (its looks were learnt balanced)."""

    looks: dict[str, Look] = field(default_factory=dict)

    @classmethod
    def of(cls, looks: Mapping[str, Look]) -> LearntPalette:
        if not looks:
            raise ValueError("learnt palette: expected the look of at least one die")
        return cls(lab={n: lk.mean for n, lk in looks.items()}, looks=dict(looks))

    def only(self, names: Iterable[str]) -> LearntPalette:
        wanted = {n.lower() for n in names}
        looks = {k: v for k, v in self.looks.items() if k.lower() in wanted}
        return replace(self, lab={n: lk.mean for n, lk in looks.items()}, looks=looks) if looks else self

    def ranked(self, lab: np.ndarray) -> list[tuple[float, str]]:
        """(distance, colour) of each learnt colour, nearest first, ``lab`` balanced first."""
        b = self.balance_lab(lab)
        return sorted((look.distance(b), name) for name, look in self.looks.items())

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        d, name = self.ranked(lab)[0]
        return name, d

    def near_two(self, lab: np.ndarray) -> tuple[str, str | None]:
        ranked = self.ranked(lab)
        if len(ranked) < 2:
            return ranked[0][1], None
        (d1, n1), (d2, n2) = ranked[0], ranked[1]
        return n1, (n2 if d1 > FAR or d1 >= ASK_RATIO * d2 else None)
