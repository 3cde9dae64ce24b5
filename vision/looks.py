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

A sighting learnt since issue 44's second round is the die's whole look (`vision.face.die_looks`,
15 numbers, read from the die's crop balanced by the light, `Palette.balance_bgr`): its body's Lab,
the spread of its body's pixels (10th, 50th, 90th percentiles of L, a and b) and its pips' Lab.  Two
such sightings are compared by all of it (`WHOLE_WEIGHTS`), the entry's distance is that of its
nearest sighting (``K_WHOLE``) and a die at least ``ASK_RATIO_WHOLE`` as far from its nearest colour
as from the next, or farther than ``FAR_WHOLE`` from all, is asked: a blue/black swirl showing its
black top keeps the blue of its sides, a black die with white pips is not a smoke die with red
pips.  A sighting of the body alone (three numbers, a roster learnt before) is compared by the body
alone, as before.  The weights were chosen on the labelled byler_d6 train photos
(`benchmarks/colours_roster.py`, its "tune" rows), the held-out photos read once.

A sighting learnt since the third round (``HUED``, `vision.face.LOOK_SIZE` numbers) adds the share
of the die's pixels by hue (`vision.face.hue_shares`), of all of it and of its body: a swirl whose
blue side the two-means put among its pips, or whose top face is black, keeps its blue share.  Such
sightings are compared by all of it (``HUED_WEIGHTS``: the whole look's weights, each share of all
its pixels ``SHARE_WEIGHT``, of its body's ``BODY_SHARE_WEIGHT``), asked at ``ASK_RATIO_HUED`` or
beyond ``FAR_HUED``.  Sightings of different forms (a roster learnt in an earlier round) are compared
by what they share: the whole look, else the body.  Chosen by cross-validation on the train photos
alone (each look learnt from 3 of them in turn, read on the others: `benchmarks/colours_roster.py
--choose`; the seventh round's share weights with each look learnt from 2 and from 3: `--ways`).

Since the seventh round a die's body is the larger group of its pixels (`vision.face.LOOK_TOP_FACE`):
issue 45's top-face rule, for a palette's names, took a white pip filling the centre of a crop cut
tight round a black die's top for the die's face.

A sighting learnt since the fourth round (``CUT``, `vision.face.LOOK_SIZE` numbers) is the hued look
of the die's crop as it is, then the hued look of its crop cut to the die (`vision.face.die_cut`: what
lies beyond the die's outline, or beyond its box, painted the table's colour), so a neighbour's
corner in the crop no longer counts as the die's.  Two such sightings are compared by the cut look
(``form_weights``: the crop as it is weighs ``UNCUT_WEIGHT``), asked as hued looks are; a sighting of
the third round is compared with a new one by the crop as it is, as it was learnt.  Chosen on the
train photos alone (`benchmarks/colours_roster.py --choose --cut`).

Since the fifth round the reader names a die by the look of its detector's box cut at the frame's (or
the still's) own pixels, 64 px a side (`LearntPalette.describe_at`, `vision.crops.look_crop`), the
crop the roster learns a die's look from (`controller.roster.die_look`), not by the classifier's
32 px crop: what the table learnt and what it reads are one crop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.face import HUED_SIZE, LOOK_SIZE
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
#: a sighting: the body's Lab alone, or the die's whole look (`vision.face.die_looks`)
BODY, WHOLE = 3, 15
#: whole looks: each number's weight in the distance (body L a b; L, a, b percentiles 10/50/90;
#: pips L a b): lightness 0.3 of a and b, the spread half the body, the pips 0.3
_LW, _SPREAD, _PIPS = 0.3, 0.5, 0.3
WHOLE_WEIGHTS = np.array(
    [_LW, 1, 1] + [_LW * _SPREAD] * 3 + [_SPREAD] * 6 + [_LW * _PIPS, _PIPS, _PIPS], np.float64
)
#: whole looks: the entry's distance is the mean distance to its K_WHOLE nearest sightings; asked at
#: this ratio to the next colour, or this far from every sighting
K_WHOLE = 1
ASK_RATIO_WHOLE = 0.75
FAR_WHOLE = 30.0
#: a sighting with the shares of its pixels by hue (`vision.face.die_looks`, third round)
HUED = HUED_SIZE
#: each share (0..1) of all the die's pixels counts this much against one Lab unit of the body's a or b,
#: times 100, each share of its body's pixels ``BODY_SHARE_WEIGHT`` (both 0.3 until the seventh round:
#: the shares of all its pixels hold a swirl's colour wherever the two-means put it, body or "pips";
#: chosen with the ask ratio on the train photos' cross-validation, `benchmarks/colours_roster.py --ways`)
SHARE_WEIGHT = 0.4
BODY_SHARE_WEIGHT = 0.1
HUED_WEIGHTS = np.concatenate(
    [
        WHOLE_WEIGHTS,
        np.full((HUED - WHOLE) // 2, 100.0 * SHARE_WEIGHT),
        np.full((HUED - WHOLE) // 2, 100.0 * BODY_SHARE_WEIGHT),
    ]
)
#: asked at this ratio to the next colour, or this far from every sighting (0.85 until the fifth round,
#: 0.9 chosen with the look cut at the frame's own pixels: `benchmarks/colours_roster.py --choose --cut`;
#: 0.88 with the seventh round's share weights)
ASK_RATIO_HUED = 0.88
FAR_HUED = 40.0
#: a sighting of the fourth round: the hued look of the crop as it is, then of the crop cut to the
#: die (`vision.face.die_cut`); two such are compared by the cut look alone (its hued weights; the
#: crop as it is weighs ``UNCUT_WEIGHT``), asked as hued looks are
CUT = LOOK_SIZE
UNCUT_WEIGHT = 0.0
#: the forms a sighting can have, and what each is compared by
FORMS = (BODY, WHOLE, HUED, CUT)
#: each hue share of a look is compared by this power of it (1: as it is; stored looks are unchanged,
#: only compared so).  The sixth round tried 0.5 (a swirl's few hundredths of blue rim would count next
#: to a smoke die's none): chosen on the train photos alone (`benchmarks/colours_roster.py --choose
#: --power`, each kind learnt from 2 and from 3 of them in turn: silent 2.7 -> 2.2 per 500), it named
#: the held-out dice no better (the same two swirls silent) and asked 2 more from the labelled box, so
#: the table keeps the shares as they are (RESULTS.md, issue 44 item 5, sixth round)
SHARE_POWER = 1.0
#: a die named a colour without hue (its sightings' mean body chroma under ``GREY_CHROMA``: black, white,
#: grey) is asked when the next colour lies less than ``MARGIN_SPREAD`` times that colour's own spread
#: farther than it (`LearntPalette.spread_of`: the median distance of each of its sightings to its
#: nearest other).  A black entry pooled from a smoke die and an opaque black one is spread wide, and a
#: swirl showing its black top falls inside that spread while still nearer black than the swirl's own
#: sightings; the ratio alone does not ask it.  Hued looks only (a roster of an earlier round is read
#: as before); 0: off.  Chosen on the train photos' cross-validation alone (issue 44 item 5, eighth
#: round, `benchmarks/colours_roster.py --ways`; RESULTS.md): 0.5 and hueless colours (a margin rule
#: for every colour, or a spread of each die rather than each colour, asked far more)
MARGIN_SPREAD = 0.5
GREY_CHROMA = 8.0
#: the reader names a die from its look at the frame's own pixels (`LearntPalette.describe_at`: its
#: detector's box, the crop the roster learns from), not from the classifier's 32 px crop (issue 44
#: item 5, fifth round)
AT_OWN_PIXELS = True


def form_weights(form: int) -> np.ndarray:
    """The weights of a comparison of looks of this form (a whole look's or richer)."""
    if form >= CUT:
        return np.concatenate([UNCUT_WEIGHT * HUED_WEIGHTS, HUED_WEIGHTS])
    return HUED_WEIGHTS if form >= HUED else WHOLE_WEIGHTS


def limits(form: int) -> tuple[float, float]:
    """(far, ratio) of a comparison of looks of this form: a die farther than far from every
    sighting, or whose nearest colour is at least ratio as far as the next, is asked."""
    if form >= HUED:
        return FAR_HUED, ASK_RATIO_HUED
    return (FAR_WHOLE, ASK_RATIO_WHOLE) if form >= WHOLE else (FAR, ASK_RATIO)


def common_form(lab: Sequence[float] | np.ndarray, rows: Iterable[Sequence[float]]) -> int:
    """The richest form (``FORMS``) the look ``lab`` and every sighting of ``rows`` have."""
    n = min([len(np.asarray(lab).ravel())] + [len(r) for r in rows])
    return max(f for f in FORMS if f <= n)


@dataclass(frozen=True)
class Look:
    """The body colours of a few sightings of one die: balanced Lab, one row a sighting."""

    labs: tuple[tuple[float, ...], ...]

    @classmethod
    def learn(cls, labs: Iterable[Sequence[float]], before: Look | None = None) -> Look:
        """A look from sightings (balanced: a body Lab, or body, pips and vivid Lab), added to
        ``before``'s; the newest ``KEEP`` kept."""
        rows = [] if before is None else list(before.labs)
        for lab in labs:
            v = tuple(float(x) for x in lab)
            if len(v) not in FORMS or not all(np.isfinite(v)):
                raise ValueError(
                    f"look: expected a Lab colour (three numbers) or a whole look ({WHOLE}, {HUED} or "
                    f"{CUT} numbers), got {lab!r}"
                )
            rows.append(tuple(round(x, 2) for x in v))
        if not rows:
            raise ValueError("look: expected at least one sighting of the die")
        return cls(tuple(rows[-KEEP:]))

    @property
    def bodies(self) -> np.ndarray:
        """The body's Lab of each sighting (N x 3)."""
        return np.asarray([r[:BODY] for r in self.labs], np.float64)

    @property
    def mean(self) -> tuple[float, float, float]:
        return tuple(float(x) for x in np.mean(self.bodies, axis=0))  # type: ignore[return-value]

    @property
    def spread(self) -> tuple[float, float, float]:
        return tuple(float(x) for x in np.std(self.bodies, axis=0))  # type: ignore[return-value]

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
            ok = isinstance(r, list) and len(r) in FORMS
            ok = ok and all(isinstance(x, int | float) and not isinstance(x, bool) for x in r)
            # a look of the fourth round is two hued looks (the crop as it is, and cut to the die)
            parts = [r] if not ok or len(r) < CUT else [r[:HUED], r[HUED:]]
            ok = ok and all(
                0.0 <= q[j] <= 100.0 and -128.0 <= q[j + 1] <= 128.0 and -128.0 <= q[j + 2] <= 128.0
                for q in parts
                for j in ((0,) if len(q) == BODY else (0, WHOLE - 3))
            )
            ok = ok and all(0.0 <= x <= 1.0 for q in parts for x in q[WHOLE:])
            if not ok:
                raise ValueError(
                    f"{where}.labs[{i}]: expected [L, a, b] (L 0..100, a b -128..128), or a whole look "
                    f"of {WHOLE}, {HUED} or {CUT} numbers (vision.face.die_looks: its shares 0..1), "
                    f"got {r!r}"
                )
            rows.append(r)
        return cls.learn(rows)

    @property
    def whole(self) -> bool:
        """Every sighting is a whole look (`vision.face.die_looks`, of this round or the last)."""
        return all(len(r) >= WHOLE for r in self.labs)

    def form(self, lab: Sequence[float] | np.ndarray) -> int:
        """The form (``FORMS``) ``lab`` is compared with this look by."""
        return common_form(lab, self.labs)

    def distance(self, lab: np.ndarray, whole: bool | int | None = None) -> float:
        """The mean distance of ``lab`` (a body Lab, or a whole look) to its nearest sightings (K of
        them, K_WHOLE when compared as whole looks; ``whole`` False: by the body alone, a form of
        ``FORMS``: by no more than it)."""
        dist, whole = sighting_distances(self.labs, lab, whole)
        k = K_WHOLE if whole else K
        return float(np.sort(dist)[: min(k, len(dist))].mean())


def sighting_distances(
    rows: Sequence[Sequence[float]], lab: np.ndarray, whole: bool | int | None = None
) -> tuple[np.ndarray, bool]:
    """The distance of a die's look ``lab`` (a body Lab, or a whole look) to each sighting of ``rows``,
    and whether they were compared as whole looks: by the richest form the die and every sighting
    have (``common_form``; no richer than ``whole`` when it is a form, the body when it is False):
    with their hue shares (``HUED_WEIGHTS``), as whole looks (``WHOLE_WEIGHTS``), else the body's
    Lab alone (lightness weighted ``L_WEIGHT``)."""
    q = np.asarray(lab, np.float64).ravel()
    form = common_form(q, rows)
    if whole is False:
        form = BODY
    elif whole is not None and whole is not True:
        form = min(form, max(f for f in FORMS if f <= int(whole)))
    if form >= WHOLE:
        d = (compared(np.asarray([list(r)[:form] for r in rows], np.float64)) - compared(q[:form])) * (
            form_weights(form)
        )
        return np.sqrt((d**2).sum(axis=1)), True
    d = np.asarray([list(r)[:BODY] for r in rows], np.float64) - q[:BODY]
    d[:, 0] *= L_WEIGHT
    return np.sqrt((d**2).sum(axis=1)), False


def compared(looks: np.ndarray) -> np.ndarray:
    """Looks (one a row, or one look; of one form) as they are compared: each hue share (``HUED``'s
    numbers past the whole look's, in each half of a ``CUT`` look) raised to ``SHARE_POWER``."""
    n = looks.shape[-1]
    if n < HUED or SHARE_POWER == 1.0:
        return looks
    out = np.array(looks, np.float64, copy=True)
    for start in range(0, n - HUED + 1, HUED):
        out[..., start + WHOLE : start + HUED] = np.maximum(out[..., start + WHOLE : start + HUED], 0.0) ** (
            SHARE_POWER
        )
    return out


def pooled(looks: Iterable[tuple[str, Look]]) -> dict[str, Look]:
    """The looks by colour name, the sightings of several dice of one colour pooled."""
    out: dict[str, list[tuple[float, ...]]] = {}
    for name, look in looks:
        out.setdefault(name.lower(), []).extend(look.labs)
    return {name: Look(tuple(rows)) for name, rows in out.items()}


@dataclass(frozen=True)
class LearntPalette(Palette):
    """A palette that names a die by the nearest learnt look (see the module's doc); balanced by
    the board's or the frame's light like any palette (its looks were learnt balanced)."""

    looks: dict[str, Look] = field(default_factory=dict)
    #: each colour's spread by the form compared (`spread_of`), worked out once: shared by the copies
    #: balanced by another light (`dataclasses.replace` passes it on; a look's sightings are balanced
    #: already), a fresh one where the looks change (`only`)
    _spreads: dict[tuple[str, int, bytes, float], float | None] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def of(cls, looks: Mapping[str, Look]) -> LearntPalette:
        if not looks:
            raise ValueError("learnt palette: expected the look of at least one die")
        return cls(lab={n: lk.mean for n, lk in looks.items()}, looks=dict(looks))

    def only(self, names: Iterable[str]) -> LearntPalette:
        wanted = {n.lower() for n in names}
        looks = {k: v for k, v in self.looks.items() if k.lower() in wanted}
        if not looks:
            return self
        return replace(self, lab={n: lk.mean for n, lk in looks.items()}, looks=looks, _spreads={})

    def ranked(self, lab: np.ndarray) -> list[tuple[float, str]]:
        """(distance, colour) of each learnt colour, nearest first: ``lab`` a body Lab as seen
        (balanced first), or a whole look (`describe`: read from the crop balanced already)."""
        v = np.asarray(lab, np.float64).ravel()
        b = v if len(v) >= WHOLE else self.balance_lab(v[:BODY])
        form = self.form(b)
        return sorted((look.distance(b, form), name) for name, look in self.looks.items())

    def form(self, lab: np.ndarray) -> int:
        """The form (``FORMS``) dice are compared by: the richest ``lab`` and every learnt sighting
        have (a roster learnt before whole looks is read by the body alone, every entry alike)."""
        return common_form(lab, (r for lk in self.looks.values() for r in lk.labs))

    def compares_whole(self, lab: np.ndarray) -> bool:
        """Dice are compared by their whole look (of this round or the last): ``lab`` is one and every
        learnt sighting too."""
        return self.form(lab) >= WHOLE

    def describe(self, crops: list[np.ndarray]) -> np.ndarray:
        """What this palette names a die by: its whole look (`look_of`), balanced by this light."""
        return look_of(crops, self)

    def describe_at(self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]) -> np.ndarray:
        """Each die's whole look read as the roster learns it (`controller.roster.die_look`): from its
        detector's box ``boxes`` (4 corners) grown by the reader's margin, cut at ``image``'s own
        pixels, LOOK a side (`vision.crops.look_crop`), not from the classifier's 32 px crop
        (``crops``: used when ``AT_OWN_PIXELS`` is off)."""
        if not AT_OWN_PIXELS:
            return self.describe(crops)
        from vision.crops import Pyramid, look_crop

        pyr = Pyramid(image)
        return self.describe([look_crop(image, b, pyr) for b in boxes])

    def looks_at(
        self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]
    ) -> list[tuple[str, str | None, tuple[float, ...]]] | None:
        """Each die's name, the colour it lies nearly as near (asked) and its look (`describe_at`, at
        its detector's box): a numbered die is named by the look a d6 is named by, not by its body's
        colour alone (issue 44 item 5)."""
        looks = self.describe_at(image, boxes, crops)
        return [(*self.near_two(v), tuple(float(x) for x in np.ravel(v))) for v in looks]

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        d, name = self.ranked(lab)[0]
        return name, d

    def near_two(self, lab: np.ndarray) -> tuple[str, str | None]:
        ranked = self.ranked(lab)
        if len(ranked) < 2:
            return ranked[0][1], None
        (d1, n1), (d2, n2) = ranked[0], ranked[1]
        form = self.form(lab)
        far, ratio = limits(form)
        if d1 > far or d1 >= ratio * d2:
            return n1, n2
        return n1, (n2 if self.within_spread(n1, d2 - d1, form) else None)

    def spread_of(self, name: str, form: int) -> float | None:
        """How spread the colour ``name``'s own sightings are, compared as looks of ``form``: the median
        distance of each to its nearest other (None with fewer than two sightings)."""
        key = (name, form, form_weights(form).tobytes(), SHARE_POWER)  # weights a benchmark may set
        if key not in self._spreads:
            rows = self.looks[name].labs
            nearest = [
                float(sighting_distances(rows[:i] + rows[i + 1 :], np.asarray(r, np.float64), form)[0].min())
                for i, r in enumerate(rows)
                if len(rows) > 1
            ]
            self._spreads[key] = float(np.median(nearest)) if nearest else None
        return self._spreads[key]

    def within_spread(self, name: str, margin: float, form: int) -> bool:
        """A die named ``name`` (a colour without hue, ``GREY_CHROMA``) with the next colour only
        ``margin`` farther is asked: the margin is under ``MARGIN_SPREAD`` of the colour's own spread
        (`spread_of`; a colour of one sighting: the median of the others' spreads).  Hued looks only."""
        if not MARGIN_SPREAD or form < HUED or float(np.hypot(*self.looks[name].mean[1:])) >= GREY_CHROMA:
            return False
        spread = self.spread_of(name, form)
        if spread is None:
            others = [x for n in self.looks if n != name and (x := self.spread_of(n, form)) is not None]
            if not others:
                return False
            spread = float(np.median(others))
        return margin < MARGIN_SPREAD * spread


def look_of(crops: list[np.ndarray], palette: Palette) -> np.ndarray:
    """Each die crop's whole look (`vision.face.die_looks`, N x HUED) read from the crop balanced by
    ``palette``'s light (`Palette.balance_bgr`): what a roster keeps and a learnt palette names by."""
    from vision.face import die_looks

    return die_looks([palette.balance_bgr(c) for c in crops])
