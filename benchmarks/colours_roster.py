"""Die colours of real photos named from the table's learnt dice (issue 44 item 5) against the palette
(issue 45 item 3), before and after, same run.

Truth: the by-eye colour labels of `benchmarks/colours_real.py` (`benchmarks/labels/d6_colours*.csv`):
byler_d6 (its held-out photos and the two labelled train samples, 81 photos of two collections of
dice photographed on a table, 2019-12-08 and 2019-12-09) and the skovy_d6 scenes (15 frames, a red
and a cream die).  Those labels give a colour class per die, not which physical die it is;
`benchmarks/labels/d6_looks.csv` adds, by eye, which kind of die each byler die is inside its class
(a blue/black swirl, an opaque blue, a navy; smoke or opaque black; ivory or white...): 17 looks,
each a set of identical dice (skovy's two dice are their own looks).

Two ways to learn, each read on the photos that taught nothing (held out by photo):

- by look (the issue's: every die in play learnt): each look is learnt from every labelled die of
  it in the first 3 photos (by name) that show it; a roster entry is a look, its colour its class's;
- by colour class (the labels alone, the first round's figure): each class learnt from its first 3
  photos, whichever of its looks they show (the 2019-12-09 blues and whites are never learnt).

The read photos are reported in two groups: those of `d6_colours.csv` (the held-out photos of the
colour labels and skovy: "held-out") and those of the two train samples ("tune": the weights of
`vision.looks` were chosen on these alone).

Each die is read from its labelled box as `colours_real` reads it (the box grown by the reader's
margin, 64 px) and balanced by the frame's light (`Palette.balanced_by_frame`).

Columns: palette: the table's way without a roster (`Palette.known` of the colours labelled in the
photo plus white and black, `near_two`: a die between two colours is asked); roster, body: the
nearest learnt look by the body's colour alone (issue 44's first round: `vision.face.body_colour_labs`,
K 2); roster, whole look: the nearest learnt look by body, spread and pips (the second round's 15
numbers of `vision.face.die_looks`, `vision.looks.WHOLE_WEIGHTS`); roster, hued look: the same with the
shares of the die's pixels by hue (third round: all of `vision.face.die_looks`,
`vision.looks.HUED_WEIGHTS`); roster, cut look: the fourth round's, the same of the crop cut to the
die (`vision.face.die_cut`: a neighbour's corner left out; `vision.looks.CUT`).  Right: named right
and not asked; silent: named wrong and not asked (per 500 dice); asked.

``--choose`` picks the hued look's settings (hue sectors, chroma, share weight, ask ratio: ``GRID``)
on the train photos alone: every look learnt from 3 of them in turn (``ROTATIONS``), read on the
others, from the box and the reader's crop; the cheapest setting wins (a silent die costs
``SILENT_COST`` questions).  ``--choose --cut`` holds the third round's choice and chooses the look
compared (the hued look of the crop as it is, or the cut look) and the ask ratio (``CUT_GRID``).

``--ways`` reads the photos once for each way of ``WAYS`` (a setting of `vision.face` or `vision.looks`
the look is read or compared with), the table's way among them, in one run: the held-out and tune rows
(by look, the cut look, from the reader's crop and the labelled box) and the train photos'
cross-validation (each kind learnt from 2 and from 3 of them in turn, 12 rotations: what a way is
chosen on), with the dice each way names wrong unasked.

    nice -n 10 .venv/bin/python -m benchmarks.colours_roster [--markdown FILE] [--smoke] [--choose [--cut]]
    nice -n 10 .venv/bin/python -m benchmarks.colours_roster --ways [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.colours_real import LABELS, NOT_DICE, TRAIN_LABELS, TUNE_LABELS, by_box, load_labels
from benchmarks.harness import REAL, ROOT, add_smoke, imread, run_header, write
from vision.crops import MARGIN
from vision.looks import HUED, WHOLE, WHOLE_WEIGHTS, LearntPalette, Look, look_of, pooled
from vision.palette import Palette

LOOKS = ROOT / "benchmarks" / "labels" / "d6_looks.csv"
LEARN_PHOTOS = 3
COLUMNS = (
    "palette",
    "roster, body",
    "roster, whole look",
    "roster, hued look",
    "roster, cut look",
    "roster, cut look, shares by their root",
)
#: the column compared as the sixth round tried (each hue share by its square root: `vision.looks.SHARE_POWER`
#: at ``TRIED_POWER``, chosen on the train photos, `--choose --power`; not adopted: see RESULTS.md); the
#: others as the table compares them
ROOT_SHARES = "roster, cut look, shares by their root"
TRIED_POWER = 0.5
#: "reader's crop": the look the reader names a die by (`vision.looks.LearntPalette.describe_at`: its
#: detector's box at the photo's own pixels, 64 px, fifth round); "reader's 32 px crop": the
#: classifier's crop it named dice by before (fourth round), learnt and read alike
READS = ("reader's crop", "reader's 32 px crop")
PROTOCOLS = ("by look", *(f"by look, {r}" for r in READS), "by colour class")


@dataclass(frozen=True)
class Seen:
    colour: str
    look: str
    body: np.ndarray  # the body's Lab as seen
    whole: (
        np.ndarray
    )  # the whole look (`vision.looks.look_of`: balanced already; the cut look after the hued)
    palette: Palette  # the photo's palette (the colours labelled in it), balanced by its light
    crop: np.ndarray | None = None  # the die's crop as read (from its labelled box; None: the reader's)


def load_looks(path: Path = LOOKS) -> dict[tuple[str, int], str]:
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return {(r["image"], int(r["die"])): r["look"] for r in csv.DictReader(lines)}


def box_crops(image: np.ndarray, dice: list[dict[str, Any]]) -> list[np.ndarray]:
    """Each labelled die's box grown by the reader's margin, 64 px (as `colours_real.by_box`)."""
    h, w = image.shape[:2]
    out = []
    for x0, y0, x1, y1 in (d["box"] for d in dice):
        cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, MARGIN * max(x1 - x0, y1 - y0) / 2
        a, b = int(max(0, cx - half)), int(max(0, cy - half))
        out.append(cv2.resize(image[b : int(min(h, cy + half)), a : int(min(w, cx + half))], (64, 64)))
    return out


class _Recorder(Palette):
    """Keeps, of each die the reader measures, the body (of the classifier's crop, as a palette names
    it), the whole look a learnt palette names it by (`LearntPalette.describe_at`: of the die at the
    photo's own pixels) and the whole look of the classifier's 32 px crop (the fourth round's), naming
    the i-th "i"."""

    def __init__(self, light: Any) -> None:
        super().__init__({"x": (0.0, 0.0, 0.0)}, light=light)
        object.__setattr__(self, "seen", [])

    def describe_at(self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]) -> np.ndarray:
        from vision.crops import Pyramid, look_crop
        from vision.face import body_colour_labs

        pyr = Pyramid(image)
        own = look_of([look_crop(image, b, pyr) for b in boxes], self)
        start = len(self.seen)  # type: ignore[attr-defined]
        self.seen.extend(zip(body_colour_labs(crops), own, look_of(crops, self), strict=True))  # type: ignore[attr-defined]
        return np.arange(start, start + len(crops), dtype=np.float64).reshape(-1, 1)

    def near_two(self, lab: np.ndarray) -> tuple[str, str | None]:
        return str(int(np.asarray(lab).ravel()[0])), None


def by_reader(
    image: np.ndarray, dice: list[dict[str, Any]], pal: Palette
) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The body, the whole look (`LearntPalette.describe_at`) and the 32 px crop's whole look of each
    labelled die the reader finds (`vision.read_dice`, its own crops of the die, as the table reads),
    by the index of the labelled die whose box holds the reading's centre (the nearest box centre when
    several do)."""
    from vision.reader import read_dice

    rec = _Recorder(pal.light)
    out: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for r in read_dice(image, rec):
        x, y = r.center
        inside = [
            (abs(x - (b[0] + b[2]) / 2) + abs(y - (b[1] + b[3]) / 2), i)
            for i, b in enumerate(d["box"] for d in dice)
            if b[0] <= x <= b[2] and b[1] <= y <= b[3]
        ]
        if inside and r.colour.isdigit():
            out.setdefault(min(inside)[1], rec.seen[int(r.colour)])  # type: ignore[attr-defined]
    return out


def sightings(smoke: bool = False) -> tuple[dict[str, dict[str, list[Seen]]], set[str]]:
    """By set (and "SET, reader's crop"), by photo: each labelled die as seen (the reader's crop: each
    die it finds); and the photos of the held-out labels."""
    held = load_labels(LABELS)
    labels = dict(held)
    labels.update(load_labels(TRAIN_LABELS))
    labels.update(load_labels(TUNE_LABELS))
    looks = load_looks()
    photos = sorted(labels)
    if smoke:
        photos = [p for p in photos if "byler" in p][:12] + [p for p in photos if "skovy" in p][:6]
    out: dict[str, dict[str, list[Seen]]] = {}
    for photo in photos:
        boxes, read, read32 = seen_both(photo, labels[photo], looks)
        out.setdefault(photo.split("/")[0], {})[photo] = boxes
        for r, seen in zip(READS, (read, read32), strict=True):
            out.setdefault(f"{photo.split('/')[0]}, {r}", {})[photo] = seen
    return out, set(held)


def seen_in(
    photo: str, dice: list[dict[str, Any]], looks: dict[tuple[str, int], str], real: Path = REAL
) -> list[Seen]:
    """Each labelled die of ``photo`` (its path under fixtures/real) as seen from its labelled box."""
    image = imread(real / photo)
    pal = Palette.known({d["colour"] for d in dice} | set(NOT_DICE)).balanced_by_frame(image)
    bodies = dict(by_box(image, dice))
    crops = box_crops(image, dice)
    wholes = look_of(crops, pal)
    return [
        Seen(d["colour"], looks.get((photo, i), d["colour"]), bodies[i], wholes[i], pal, crops[i])
        for i, d in enumerate(dice)
    ]


def seen_both(
    photo: str, dice: list[dict[str, Any]], looks: dict[tuple[str, int], str], real: Path = REAL
) -> tuple[list[Seen], list[Seen], list[Seen]]:
    """`seen_in`, and each labelled die the reader finds as seen from the reader's crop (the look at
    the photo's own pixels), and from its classifier's 32 px crop (the fourth round's)."""
    boxes = seen_in(photo, dice, looks, real)
    image = imread(real / photo)
    pal = boxes[0].palette if boxes else Palette.default()
    found = by_reader(image, dice, pal)
    read, read32 = (
        [replace(boxes[i], body=found[i][0], whole=found[i][k], crop=None) for i in sorted(found)]
        for k in (1, 2)
    )
    return boxes, read, read32


def split(photos: dict[str, list[Seen]], by: str) -> tuple[dict[str, list[str]], list[str]]:
    """Each look's (or class's) learn photos (the first LEARN_PHOTOS showing it) and the photos that
    taught none."""
    learn: dict[str, list[str]] = {}
    for photo in sorted(photos):
        for key in {s.look if by == "by look" else s.colour for s in photos[photo]}:
            if len(learn.setdefault(key, [])) < LEARN_PHOTOS:
                learn[key].append(photo)
    taught = {p for ps in learn.values() for p in ps}
    return learn, [p for p in sorted(photos) if p not in taught]


def rosters(
    photos: dict[str, list[Seen]], by: str
) -> tuple[LearntPalette, LearntPalette, LearntPalette, list[str]]:
    """The roster learnt by body alone, by the second round's whole look and by the whole look with
    its hue shares (the third round's, of the crop as it is; each entry pooled by its colour), and
    the photos to read."""
    body, whole, hued, _, test = rosters_cut(photos, by)
    return body, whole, hued, test


def rosters_cut(
    photos: dict[str, list[Seen]], by: str
) -> tuple[LearntPalette, LearntPalette, LearntPalette, LearntPalette, list[str]]:
    """`rosters`, and the roster learnt by the fourth round's look (the hued look of the crop cut to
    the die, `vision.face.die_cut`, after the crop's as it is)."""
    learn, test = split(photos, by)
    entries: dict[str, tuple[str, list[np.ndarray], list[np.ndarray]]] = {}
    for key, ps in learn.items():
        for p in ps:
            for s in photos[p]:
                if (s.look if by == "by look" else s.colour) == key:
                    e = entries.setdefault(key, (s.colour, [], []))
                    e[1].append(s.palette.balance_lab(s.body))
                    e[2].append(s.whole)
    body = LearntPalette.of(pooled((c, Look.learn(b)) for c, b, _ in entries.values()))
    whole = LearntPalette.of(pooled((c, Look.learn(x[:WHOLE] for x in w)) for c, _, w in entries.values()))
    hued = LearntPalette.of(pooled((c, Look.learn(x[:HUED] for x in w)) for c, _, w in entries.values()))
    cut = LearntPalette.of(pooled((c, Look.learn(w)) for c, _, w in entries.values()))
    return body, whole, hued, cut, test


def run(smoke: bool = False) -> dict[str, Any]:
    tally: dict[str, Counter[str]] = {}
    wrong: dict[str, Counter[str]] = {}
    info: dict[str, dict[str, int]] = {}
    per_look: dict[str, Counter[str]] = {}
    missed: list[tuple[str, Seen, str, str, list[Seen], list[Seen]]] = []
    answered: dict[str, Counter[str]] = {}
    sets, held = sightings(smoke)
    for name, photos in sets.items():
        if name.partition(", ")[2] in ("", READS[0]):
            for k, c in referee(photos, held).items():
                answered.setdefault(f"{name.partition(', ')[2] or 'box'} | {k}", Counter()).update(c)
    for protocol in PROTOCOLS:
        by = "by look" if protocol.startswith("by look") else protocol
        for name, photos in sets.items():
            if name.partition(", ")[2] != protocol.partition(", ")[2]:
                continue
            source = name.split(",")[0]
            body, whole, hued, cut, test = rosters_cut(photos, by)
            info[f"{protocol} | {source}"] = {
                "photos": len(photos),
                "learn photos": len(photos) - len(test),
                "entries": len(
                    {s.look if by == "by look" else s.colour for ss in photos.values() for s in ss}
                ),
            }
            for photo in test:
                group = "held-out" if photo in held else "tune"
                for s in photos[photo]:
                    ways: dict[str, tuple[Any, np.ndarray]] = {
                        "palette": (s.palette, s.body),
                        "roster, body": (replace(body, light=s.palette.light), s.body),
                        "roster, whole look": (replace(whole, light=s.palette.light), s.whole[:WHOLE]),
                        "roster, hued look": (replace(hued, light=s.palette.light), s.whole[:HUED]),
                        "roster, cut look": (replace(cut, light=s.palette.light), s.whole),
                        ROOT_SHARES: (replace(cut, light=s.palette.light), s.whole),
                    }
                    for key in (f"{protocol} | {group} | {source}", f"{protocol} | {group} | all"):
                        c = tally.setdefault(key, Counter())
                        c["dice"] += 1
                        for col, (way, seen) in ways.items():
                            with share_power(TRIED_POWER if col == ROOT_SHARES else None):
                                got, near = way.near_two(seen)
                            if near is not None:
                                c[f"{col} asked"] += 1
                            elif got == s.colour:
                                c[f"{col} right"] += 1
                            else:
                                c[f"{col} silent"] += 1
                                if key.endswith("all"):
                                    w = wrong.setdefault(f"{protocol} | {group} | {col}", Counter())
                                    w[f"{s.look}->{got}"] += 1
                        if key.endswith("all") and protocol == "by look":
                            got, near = ways["roster, cut look"][0].near_two(s.whole)
                            k = "asked" if near is not None else ("right" if got == s.colour else "silent")
                            per_look.setdefault(f"{group} | {s.colour}: {s.look}", Counter())[k] += 1
                            if k != "right" and s.crop is not None:
                                missed.append(
                                    (photo, s, k, got, _taught(photos, s.look), _taught(photos, got))
                                )
    return {
        "tally": tally,
        "wrong": wrong,
        "info": info,
        "per_look": per_look,
        "missed": missed,
        "referee": answered,
    }


@contextmanager
def share_power(power: float | None) -> Iterator[None]:
    """`vision.looks.SHARE_POWER` set to ``power`` meanwhile (None: as it is)."""
    import vision.looks as vl

    saved = vl.SHARE_POWER
    vl.SHARE_POWER = saved if power is None else power
    try:
        yield
    finally:
        vl.SHARE_POWER = saved


def referee(photos: dict[str, list[Seen]], held: set[str]) -> dict[str, Counter[str]]:
    """The photos that taught none read in order (held-out and tune apart) by the roster learnt by
    look (the cut look), the referee answering each question with the die's true colour: its look
    joins that colour's sightings, as `controller.referee_looks` adds it at a table (``learnt``),
    beside the same read without learning (``fixed``).  Right / silent / asked, and the asked in
    the first and the last half of the photos (``asked first``, ``asked last``)."""
    *_, cut, test = rosters_cut(photos, "by look")
    out: dict[str, Counter[str]] = {}
    for group in ("held-out", "tune"):
        read = [p for p in test if (p in held) == (group == "held-out")]
        for learning in ("fixed", "learnt"):
            pal, c = cut, out.setdefault(f"{group} | {learning}", Counter())
            for n, photo in enumerate(read):
                half = "first" if n < len(read) / 2 else "last"
                for s in photos[photo]:
                    got, near = replace(pal, light=s.palette.light).near_two(s.whole)
                    c["dice"] += 1
                    if near is None:
                        c["right" if got == s.colour else "silent"] += 1
                        continue
                    c["asked"] += 1
                    c[f"asked {half}"] += 1
                    if learning == "learnt" and s.colour in pal.looks:
                        looks = dict(pal.looks)
                        looks[s.colour] = Look((*looks[s.colour].labs, tuple(float(x) for x in s.whole)))
                        pal = LearntPalette.of(looks)
                c[f"dice {half}"] += len(photos[photo])
    return out


def _taught(photos: dict[str, list[Seen]], key: str) -> list[Seen]:
    """The sightings a look (or, failing that, a colour) was learnt from, by look: of its learn photos."""
    learn, _ = split(photos, "by look")
    out = [s for p in learn.get(key, []) for s in photos[p] if s.look == key]
    if out:
        return out
    looks = sorted({s.look for ss in photos.values() for s in ss if s.colour == key})
    return [s for look in looks for p in learn.get(look, []) for s in photos[p] if s.look == look]


def contact_sheet(missed: list[tuple[str, Seen, str, str, list[Seen], list[Seen]]], path: Path) -> None:
    """A PNG of the dice the cut look missed from the labelled box (held-out and tune): each row the
    die's crop (96 px; its photo's time and what it was named), 3 sightings its kind was learnt from,
    and 3 of the colour it was named."""
    side = 96

    def tile(crop: np.ndarray | None, text: str = "") -> np.ndarray:
        t = np.zeros((side, side, 3), np.uint8) if crop is None else cv2.resize(crop, (side, side))
        for colour, thick in (((0, 0, 0), 2), ((255, 255, 255), 1)):
            cv2.putText(t, text[:16], (2, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.33, colour, thick)
        return t

    rows = []
    for photo, s, kind, got, own, named in missed:
        cells = [tile(s.crop, f"{Path(photo).stem[-6:]} {kind} {got}")]
        cells += [tile(x.crop, x.look if j == 0 else "") for j, x in enumerate(own[:3])]
        cells += [tile(x.crop, x.look if j == 0 else "") for j, x in enumerate(named[:3])]
        cells += [tile(None)] * (7 - len(cells))
        rows.append(np.hstack(cells))
    if rows:
        cv2.imwrite(str(path), np.vstack(rows))


#: --choose: the rotations of the learn photos (each look learnt from the 3 train photos showing it
#: from this one on) and the grid (vision.face.HUE_BINS, HUE_CHROMA; vision.looks.SHARE_WEIGHT,
#: ASK_RATIO_HUED; "cut": the look compared, -1 the hued look of the crop as it is (third round),
#: else the fourth round's cut look with the crop as it is weighing this much, vision.looks.UNCUT_WEIGHT)
ROTATIONS = (0, 2, 4, 6, 8, 10)
GRID: dict[str, tuple[float, ...]] = {
    "bins": (8, 12, 16),
    "chroma": (6.0, 8.0, 12.0, 16.0, 20.0),
    "share": (0.0, 0.15, 0.3, 0.6),
    "ratio": (0.75, 0.8, 0.85, 0.9),
    "cut": (-1.0, 0.0, 0.5),
}
#: --choose --cut (fourth round): the third round's choice of hue sectors, chroma and share weight
#: held, the look compared and the ask ratio chosen
CUT_GRID: dict[str, tuple[float, ...]] = {
    "bins": (12,),
    "chroma": (6.0,),
    "share": (0.3,),
    "ratio": (0.75, 0.8, 0.85, 0.9),
    "cut": (-1.0, 0.0, 0.5),
}
#: --choose --power (sixth round): the fourth round's look (cut, the crop as it is x0) with each hue share
#: compared by this power of it (vision.looks.SHARE_POWER; 1: as it is), the share weight and ask
#: ratio chosen beside it; each kind learnt from 2 and from 3 train photos in turn (``POWER_LEARN``,
#: ``POWER_ROTATIONS``): learnt from 3 alone, the train photos leave too few misses to choose by
POWER_GRID: dict[str, tuple[float, ...]] = {
    "bins": (12,),
    "chroma": (6.0,),
    "share": (0.2, 0.25, 0.3, 0.35),
    "ratio": (0.85, 0.9, 0.93),
    "cut": (0.0,),
    "power": (1.0, 0.5, 0.35),
}
POWER_LEARN = (2, 3)
POWER_ROTATIONS = tuple(range(12))
#: --choose: a die named wrong unasked costs this many questions
SILENT_COST = 5


def choose(
    smoke: bool = False,
    grid: dict[str, tuple[float, ...]] | None = None,
    reads: str = READS[0],
    learn: tuple[int, ...] = (LEARN_PHOTOS,),
    rotations: tuple[int, ...] = ROTATIONS,
) -> list[tuple[dict[str, float], Counter[str]]]:
    """The look's settings chosen on the train photos alone (never the held-out ones): every look
    learnt from 3 of them (``ROTATIONS``), read on the others, from the labelled box and from the
    reader's crop (``reads``: one of ``READS``); each setting of ``grid`` (``GRID``) tallied (right /
    silent / asked; the reader's crop's alone too, ``reader right`` ...), cheapest first (a silent
    die costs ``SILENT_COST`` questions)."""
    import itertools

    import vision.face as vf
    import vision.looks as vl

    grid = GRID if grid is None else grid
    names = ("HUE_BINS", "HUE_CHROMA", "SHARES", "HUED_SIZE", "LOOK_SIZE")
    looks = ("HUED", "CUT", "FORMS", "HUED_WEIGHTS", "ASK_RATIO_HUED", "UNCUT_WEIGHT", "SHARE_POWER")
    saved = [getattr(vf, n) for n in names], [getattr(vl, n) for n in looks]
    out: list[tuple[dict[str, float], Counter[str]]] = []
    try:
        for bins, chroma in itertools.product(grid["bins"], grid["chroma"]):
            vf.HUE_BINS, vf.HUE_CHROMA = int(bins), chroma
            vf.SHARES = int(bins) + len(vf.GREY_CUTS) + 1
            vf.HUED_SIZE = vl.HUED = 15 + 2 * vf.SHARES
            vf.LOOK_SIZE = vl.CUT = 2 * vf.HUED_SIZE
            vl.FORMS = (vl.BODY, vl.WHOLE, vl.HUED, vl.CUT)
            sets, held = sightings(smoke)
            for share, ratio, cut, power in itertools.product(
                grid["share"], grid["ratio"], grid["cut"], grid.get("power", (1.0,))
            ):
                vl.HUED_WEIGHTS = np.concatenate([vl.WHOLE_WEIGHTS, np.full(vl.HUED - 15, 100.0 * share)])
                vl.ASK_RATIO_HUED = ratio
                vl.UNCUT_WEIGHT = max(0.0, cut)
                vl.SHARE_POWER = power
                c: Counter[str] = Counter()
                for name, photos in sets.items():
                    if name in ("byler_d6", f"byler_d6, {reads}"):
                        one: Counter[str] = Counter()
                        train = {p: ss for p, ss in photos.items() if p not in held}
                        for n in learn:
                            _cross(one, train, cut >= 0, n, rotations)
                        c.update(one)
                        if name != "byler_d6":
                            c.update({f"reader {k}": n for k, n in one.items()})
                out.append(
                    (
                        {
                            "bins": bins,
                            "chroma": chroma,
                            "share": share,
                            "ratio": ratio,
                            "cut": cut,
                            "power": power,
                        },
                        c,
                    )
                )
    finally:
        for n, v in zip(names, saved[0], strict=True):
            setattr(vf, n, v)
        for n, v in zip(looks, saved[1], strict=True):
            setattr(vl, n, v)
    return sorted(out, key=lambda kv: (SILENT_COST * kv[1]["silent"] + kv[1]["asked"], kv[1]["silent"]))


def _cross(
    c: Counter[str],
    photos: dict[str, list[Seen]],
    cut: bool = True,
    learn_n: int = LEARN_PHOTOS,
    rotations: tuple[int, ...] = ROTATIONS,
) -> None:
    import vision.looks as vl

    def look(s: Seen) -> np.ndarray:
        return s.whole if cut else s.whole[: vl.HUED]

    shows: dict[str, list[str]] = {}
    for p in sorted(photos):
        for key in {s.look for s in photos[p]}:
            shows.setdefault(key, []).append(p)
    for o in rotations:
        learn = {
            k: [ps[(o + j) % len(ps)] for j in range(learn_n)] for k, ps in shows.items() if len(ps) > learn_n
        }
        taught = {p for ps in learn.values() for p in ps}
        entries: dict[str, tuple[str, list[np.ndarray]]] = {}
        for key, ps in learn.items():
            for p in ps:
                for s in photos[p]:
                    if s.look == key:
                        entries.setdefault(key, (s.colour, []))[1].append(look(s))
        pal = LearntPalette.of(pooled((col, Look.learn(w)) for col, w in entries.values()))
        for p in sorted(set(photos) - taught):
            for s in photos[p]:
                if s.look in entries:
                    got, near = replace(pal, light=s.palette.light).near_two(look(s))
                    c["dice"] += 1
                    c["asked" if near is not None else ("right" if got == s.colour else "silent")] += 1


def choice_table(
    rows: list[tuple[dict[str, float], Counter[str]]], top: int = 12, learn: tuple[int, ...] = (LEARN_PHOTOS,)
) -> str:
    lines = [
        "Chosen on the train photos alone (each look learnt from "
        + " and from ".join(str(n) for n in learn)
        + " of them in turn, read on the others; box and reader's crop): right / silent per 500 / asked.",
        "",
        "| hue bins | chroma | share weight | ask ratio | look compared | shares compared by | dice | right "
        "| silent per 500 | asked | the reader's crop alone |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    # the best rows, and the second round's look (no shares, asked at 0.75) for reference
    shown = rows[:top] + [kv for kv in rows[top:] if kv[0]["share"] == 0.0 and kv[0]["ratio"] == 0.75][:1]
    # and the best hued look of the crop as it is (the third round's)
    shown += [kv for kv in rows[top:] if kv[0]["cut"] < 0 and kv not in shown][:1]
    # and the best with each share as it is (before the sixth round), and the fifth round's setting
    shown += [kv for kv in rows[top:] if kv[0].get("power", 1.0) == 1.0 and kv not in shown][:1]
    fifth = {"share": 0.3, "ratio": 0.9, "cut": 0.0, "power": 1.0}
    shown += [kv for kv in rows if all(kv[0].get(k) == v for k, v in fifth.items()) and kv not in shown][:1]
    for k, c in shown:
        n, r = max(1, c["dice"]), max(1, c["reader dice"])
        compared = "hued (crop as it is)" if k["cut"] < 0 else f"cut (crop as it is x{k['cut']:g})"
        power = k.get("power", 1.0)
        by = "as they are" if power == 1.0 else f"power {power:g}"
        lines.append(
            f"| {k['bins']} | {k['chroma']:g} | {k['share']:g} | {k['ratio']:g} | {compared} | {by} | "
            f"{c['dice']} | "
            f"{100 * c['right'] / n:.2f} % | {500 * c['silent'] / n:.1f} | {100 * c['asked'] / n:.2f} % | "
            f"{c['reader dice']}: {100 * c['reader right'] / r:.2f} % / {500 * c['reader silent'] / r:.1f} / "
            f"{100 * c['reader asked'] / r:.2f} % |"
        )
    return "\n".join(lines) + "\n"


def markdown(res: dict[str, Any]) -> str:
    sets = "; ".join(
        f"{k}: {i['photos']} photos, {i['entries']} entries learnt from {i['learn photos']}"
        for k, i in sorted(res["info"].items())
    )
    lines = [
        f"Learnt: {sets}; read on the others (held out by photo). Right = named right, not asked; "
        "silent = named wrong, not asked (per 500 dice); asked = a die between two colours (or far "
        "from every learnt look).",
        "",
        "| learnt | photos read | dice | "
        + " | ".join(f"{c}: right / silent per 500 / asked" for c in COLUMNS)
        + " |",
        "|---|---|---|" + "---|" * len(COLUMNS),
    ]

    def order(kv: tuple[str, Counter[str]]) -> tuple[int, str, bool, str]:
        by, group, src = kv[0].split(" | ")
        return (PROTOCOLS.index(by), group, src == "all", src)

    for key, c in sorted(res["tally"].items(), key=order):
        by, group, src = key.split(" | ")
        n = max(1, c["dice"])
        cells = [
            f"{100 * c[f'{k} right'] / n:.2f} % / {500 * c[f'{k} silent'] / n:.1f} / "
            f"{100 * c[f'{k} asked'] / n:.2f} %"
            for k in COLUMNS
        ]
        lines.append(f"| {by} | {group}: {src} | {c['dice']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Each kind of die (learnt by look, read by the cut look): right / asked / silently wrong.",
        "",
        "| kind of die (colour: look) | held-out | tune |",
        "|---|---|---|",
    ]
    per = res.get("per_look", {})
    for kind in sorted({k.split(" | ")[1] for k in per}):
        cells = []
        for group in ("held-out", "tune"):
            c = per.get(f"{group} | {kind}", Counter())
            cells.append(f"{c['right']} / {c['asked']} / {c['silent']}" if c else "-")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "The referee's answers learnt (`controller.referee_looks`): the photos that taught none read in "
        "order by the cut look learnt by look, the referee answering each question with the die's true "
        "colour, its look then one of that colour's sightings; beside, the same without learning. Right "
        "/ silent per 500 / asked; asked in the first and the last half of the photos (share of their "
        "dice).",
        "",
        "| read from | photos | dice | not learnt | the referee's answers learnt | asked, first half → last "
        "half, not learnt | learnt |",
        "|---|---|---|---|---|---|---|",
    ]
    ref = res.get("referee", {})
    for src in ("box", READS[0]):
        for group in ("held-out", "tune"):
            cells = []
            for learning in ("fixed", "learnt"):
                c = ref.get(f"{src} | {group} | {learning}", Counter())
                n = max(1, c["dice"])
                right, silent, asked = 100 * c["right"] / n, 500 * c["silent"] / n, 100 * c["asked"] / n
                cells.append(f"{right:.2f} % / {silent:.1f} / {asked:.2f} %")
            halves = []
            for learning in ("fixed", "learnt"):
                c = ref.get(f"{src} | {group} | {learning}", Counter())
                halves.append(
                    " → ".join(
                        f"{c[f'asked {h}']} ({100 * c[f'asked {h}'] / max(1, c[f'dice {h}']):.1f} %)"
                        for h in ("first", "last")
                    )
                )
            dice = ref.get(f"{src} | {group} | fixed", Counter())["dice"]
            lines.append(f"| {src} | {group} | {dice} | " + " | ".join(cells + halves) + " |")
    lines += ["", "Silently wrong (look->named):", ""]
    for key in sorted(res["wrong"]):
        lines.append(f"- {key}: " + ", ".join(f"{k} {n}" for k, n in res["wrong"][key].most_common(10)))
    return "\n".join(lines) + "\n"


#: --numbered: the real numbered dice of known colour (`d20_imac1844`: a green transparent d20, a green
#: transparent d6 and a black d6 with numerals, one a photo, 200 px close-ups on white)
IMAC = "d20_imac1844"
NUMBERED_KINDS = ("d6", "d20")


def numbered(smoke: bool = False, real: Path = REAL) -> dict[str, Counter[str]]:
    """Numbered dice named by the table's learnt looks (issue 44 item 5, sixth round): each die of
    `d20_imac1844` learnt from the first 3 photos (by face) in which the numbered reader finds a die
    (the look at the reading's box, `controller.roster.die_look`, as `learn-dice colour` learns it),
    the others read through the numbered reader with the roster's palette, the reading nearest the
    photo's centre counted (one die a photo): named by its body's colour against the looks (before:
    ``body``) and by its look at its box (``look``).  Right / silent / asked, and the photos read."""
    from controller.roster import die_look
    from vision.numbered.reader import default_reader

    class Body(LearntPalette):
        def looks_at(self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]) -> None:
            return None  # the numbered reader names by the body's colour, as before this round

    lines = (real / IMAC / "labels.csv").read_text(encoding="utf-8").splitlines()
    rows = sorted(csv.DictReader(lines), key=lambda r: (r["die"], r["kind"], int(r["face"])))
    rows = rows[::3] if smoke else rows
    reader = default_reader()

    def centred(image: np.ndarray, palette: Palette) -> list[Any]:
        h, w = image.shape[:2]
        got = reader.read(image, palette, kinds=NUMBERED_KINDS)
        return sorted(got, key=lambda g: abs(g.center[0] - w / 2) + abs(g.center[1] - h / 2))[:1]

    learnt: dict[str, tuple[str, list[np.ndarray]]] = {}
    test = []
    for r in rows:
        image = imread(real / IMAC / r["file"])
        pal = Palette.default().balanced_by_frame(image)
        entry = learnt.setdefault(
            f"{r['die']} {r['kind']}", ("black" if r["die"] == "Black" else "green", [])
        )
        got = centred(image, pal) if len(entry[1]) < LEARN_PHOTOS else []
        if got and got[0].box is not None:
            entry[1].append(die_look(image, got[0].box, pal))
        else:
            test.append((r, image, pal, entry[0]))
    looks = pooled((colour, Look.learn(ls)) for colour, ls in learnt.values() if ls)
    out: dict[str, Counter[str]] = {}
    for way, kind in (("body", Body), ("look", LearntPalette)):
        c = out.setdefault(way, Counter())
        c["learnt from"] = sum(len(ls) for _, ls in learnt.values())
        for _, image, pal, colour in test:
            c["photos"] += 1
            for g in centred(image, replace(kind.of(looks), light=pal.light)):
                c["asked" if g.colour_near else ("right" if g.colour == colour else "silent")] += 1
    return out


def numbered_table(res: dict[str, Counter[str]]) -> str:
    lines = [
        f"REAL {IMAC}: each die learnt from the first {LEARN_PHOTOS} photos the numbered reader finds it in "
        "(the look at the reading's box), the other photos read through the numbered reader (kinds "
        f"{', '.join(NUMBERED_KINDS)}), the reading nearest each photo's centre counted.",
        "",
        "| named by | learnt from | photos read | readings | right | silent | asked |",
        "|---|---|---|---|---|---|---|",
    ]
    for way, what in (("body", "its body's colour (before)"), ("look", "its look at its box (now)")):
        c = res[way]
        n = c["right"] + c["silent"] + c["asked"]
        lines.append(
            f"| {what} | {c['learnt from']} | {c['photos']} | {n} | {c['right']} | {c['silent']} | "
            f"{c['asked']} |"
        )
    return "\n".join(lines) + "\n"


#: the look's weights until the seventh round: every hue share 0.3 (`vision.looks.SHARE_WEIGHT`)
_SESSION20_WEIGHTS = np.concatenate([WHOLE_WEIGHTS, np.full(HUED - WHOLE, 30.0)])
#: --ways: each way a die's look is read or compared (module attribute -> value), in one run; the
#: first is the table's way before the seventh round, the second the seventh round's (before the eighth
#: round's spread margin, `vision.looks.MARGIN_SPREAD`), the last (nothing set) the table's way now
WAYS: dict[str, dict[str, Any]] = {
    "session 20: the top-face rule in the look": {
        "vision.face.LOOK_TOP_FACE": True,
        "vision.looks.HUED_WEIGHTS": _SESSION20_WEIGHTS,
        "vision.looks.ASK_RATIO_HUED": 0.9,
        "vision.looks.MARGIN_SPREAD": 0.0,
    },
    "seventh round: the larger group the body, the shares of all its pixels weighed 0.4, asked at 0.88": {
        "vision.looks.MARGIN_SPREAD": 0.0,
    },
    "now: and a hueless colour asked within half its own spread (`MARGIN_SPREAD` 0.5)": {},
}


@contextmanager
def settings(way: dict[str, Any]) -> Iterator[None]:
    """The module attributes of ``way`` ("vision.face.NAME": value) set meanwhile."""
    import importlib

    saved = []
    for key, value in way.items():
        mod, _, name = key.rpartition(".")
        module = importlib.import_module(mod)
        saved.append((module, name, getattr(module, name)))
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in reversed(saved):
            setattr(module, name, value)


def way_tally(smoke: bool = False) -> dict[str, dict[str, Counter[str]]]:
    """Each way of ``WAYS``: its tallies by "held-out | box", "tune | reader's crop" ... (the cut look,
    each kind learnt by look from its first 3 photos, read on the photos that taught none) and "train
    cross-validation | box" ... (the train photos alone: each kind learnt from 2 and from 3 of them in
    turn, ``POWER_ROTATIONS``); ``silent <look>-><named> <photo> <die>`` counts the dice named wrong
    unasked in the held-out and tune rows."""
    out: dict[str, dict[str, Counter[str]]] = {}
    for name, way in WAYS.items():
        with settings(way):
            sets, held = sightings(smoke)
            tally = out.setdefault(name, {})
            for key, photos in sets.items():
                read = key.partition(", ")[2] or "box"
                if read not in ("box", READS[0]):
                    continue
                *_, cut, test = rosters_cut(photos, "by look")
                for photo in test:
                    group = "held-out" if photo in held else "tune"
                    c = tally.setdefault(f"{group} | {read}", Counter())
                    for i, s in enumerate(photos[photo]):
                        got, near = replace(cut, light=s.palette.light).near_two(s.whole)
                        k = "asked" if near is not None else ("right" if got == s.colour else "silent")
                        c["dice"] += 1
                        c[k] += 1
                        if k == "silent":
                            c[f"silent {s.look}->{got} {Path(photo).stem} {i}"] += 1
                if key.split(",")[0] == "byler_d6":
                    train = {p: ss for p, ss in photos.items() if p not in held}
                    c = tally.setdefault(f"train cross-validation | {read}", Counter())
                    for n in POWER_LEARN:
                        _cross(c, train, True, n, POWER_ROTATIONS)
    return out


def ways_table(res: dict[str, dict[str, Counter[str]]]) -> str:
    names = list(res)
    lines = [
        "Each kind of die learnt by look (the cut look) from its first 3 photos, read on the photos that "
        "taught none (held-out: the colour labels' held-out photos and skovy; tune: the train samples); "
        "train cross-validation: the train photos alone, each kind learnt from 2 and from 3 of them in "
        f"turn ({len(POWER_ROTATIONS)} rotations each). Right (unasked) / silent per 500 / asked.",
        "",
        "| photos read | read from | dice | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for group in ("held-out", "tune", "train cross-validation"):
        for read in (READS[0], "box"):
            key = f"{group} | {read}"
            cells = []
            for name in names:
                c = res[name].get(key, Counter())
                n = max(1, c["dice"])
                right, silent, asked = 100 * c["right"] / n, 500 * c["silent"] / n, 100 * c["asked"] / n
                cells.append(
                    f"{right:.2f} % / {silent:.1f} / {asked:.2f} % ({c['silent']} silent, {c['asked']} asked)"
                )
            dice = res[names[0]].get(key, Counter())["dice"]
            lines.append(f"| {group} | {read} | {dice} | " + " | ".join(cells) + " |")
    lines += ["", "Named wrong unasked (held-out and tune: look->named, photo, die):", ""]
    for name in names:
        for key, c in res[name].items():
            if key.startswith("train"):
                continue
            wrong = sorted(k.removeprefix("silent ") for k in c if k.startswith("silent "))
            lines.append(f"- {name}, {key}: " + ("; ".join(wrong) if wrong else "none"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument(
        "--choose", action="store_true", help="choose the hued look's settings on the train photos (slow)"
    )
    ap.add_argument(
        "--cut", action="store_true", help="with --choose: the fourth round's grid alone (CUT_GRID), a minute"
    )
    ap.add_argument(
        "--power",
        action="store_true",
        help="with --choose: the sixth round's grid (POWER_GRID: each hue share compared by a power of it), "
        "each kind learnt from 2 and from 3 train photos in turn, two minutes",
    )
    ap.add_argument(
        "--numbered",
        action="store_true",
        help="numbered dice (d20_imac1844) named by the learnt looks: by the body's colour vs the look at "
        "the box",
    )
    ap.add_argument(
        "--ways",
        action="store_true",
        help="each way of WAYS (the table's look before and now) in one run: held-out, tune and the train "
        "photos' cross-validation",
    )
    ap.add_argument("--sheet", type=Path, help="a contact sheet (PNG) of the dice the cut look missed")
    ap.add_argument(
        "--reads",
        choices=READS,
        default=READS[0],
        help="with --choose: the reader's crop chosen on beside the box (default: the look at the photo's "
        "own pixels)",
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.numbered:
        write(
            run_header(argv, "benchmarks.colours_roster") + "\n" + numbered_table(numbered(args.smoke)),
            args.markdown,
        )
        return 0
    if args.ways:
        write(
            run_header(argv, "benchmarks.colours_roster") + "\n" + ways_table(way_tally(args.smoke)),
            args.markdown,
        )
        return 0
    if args.choose:
        if args.power:
            rows = choose(args.smoke, POWER_GRID, args.reads, POWER_LEARN, POWER_ROTATIONS)
            table = choice_table(rows, learn=POWER_LEARN)
        else:
            table = choice_table(choose(args.smoke, CUT_GRID if args.cut else GRID, args.reads))
        write(run_header(argv, "benchmarks.colours_roster") + "\n" + table, args.markdown)
        return 0
    res = run(args.smoke)
    if args.sheet is not None:
        contact_sheet(res["missed"], args.sheet)
    text = run_header(argv, "benchmarks.colours_roster") + "\n" + markdown(res)
    write(text, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
