"""Issue 44 item 5, eighth round: ask rules from how spread the learnt looks are, and the rim of a
blue/black swirl, studied on the real byler_d6 photos (`benchmarks/colours_roster.py`'s sightings and
labels).

``--rules``: each ask rule of ``RULES`` beside the table's ratio, on the train photos' cross-validation
alone (each kind of die learnt from 2 and from 3 of them in turn, 12 rotations, read on the others,
from the reader's crop and the labelled box; a silent die costs 5 questions): what the eighth round's
rule (`vision.looks.MARGIN_SPREAD`) was chosen on.  A rule asks a die the ratio does not ask; "a die's
spread" is the median distance of each sighting of one kind of die (a roster entry) to its nearest
other, "a colour's" the same of the colour's pooled sightings (as the table pools them).

``--rim``: the share of blue pixels (hue 200-310 degrees, chroma over C) in the band along the die's
outline (`vision.face.die_mask`, this many pixels of the 64 px reader's crop deep), by kind of die: a
swirl named black shows its blue only as a rim.

    nice -n 10 .venv/bin/python -m benchmarks.colours_rules --rules [--markdown FILE] [--smoke]
    nice -n 10 .venv/bin/python -m benchmarks.colours_rules --rim [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.colours_real import LABELS, NOT_DICE, TRAIN_LABELS, TUNE_LABELS, labelled_die, load_labels
from benchmarks.colours_roster import (
    POWER_LEARN,
    POWER_ROTATIONS,
    READS,
    SILENT_COST,
    Seen,
    load_looks,
    sightings,
)
from benchmarks.harness import REAL, add_smoke, imread, run_header, write
from vision.looks import ASK_RATIO_HUED, FAR_HUED, sighting_distances
from vision.palette import Palette


@dataclass(frozen=True)
class Entry:
    colour: str
    rows: list[np.ndarray]
    spread: float | None  # the median distance of each sighting to its nearest other


def entry(colour: str, rows: list[np.ndarray]) -> Entry:
    near = [
        float(sighting_distances(rows[:i] + rows[i + 1 :], r)[0].min())
        for i, r in enumerate(rows)
        if len(rows) > 1
    ]
    return Entry(colour, rows, float(np.median(near)) if near else None)


#: a rule: (the entries, their distances to the die nearest first, the fill spread) -> (named, asked)
Rule = Callable[[dict[str, Entry], list[tuple[float, str]], float], tuple[str, bool]]


def _ratio(ent: dict[str, Entry], ds: list[tuple[float, str]]) -> tuple[float, str, float, str, bool]:
    d1, k1 = ds[0]
    d2, k2 = next((d, k) for d, k in ds if ent[k].colour != ent[k1].colour)
    return d1, k1, d2, k2, d1 > FAR_HUED or d1 >= ASK_RATIO_HUED * d2


def _spread(e: Entry, fill: float) -> float:
    return fill if e.spread is None else e.spread


def table() -> Rule:
    def rule(ent: dict[str, Entry], ds: list[tuple[float, str]], fill: float) -> tuple[str, bool]:
        _, k1, _, _, ask = _ratio(ent, ds)
        return ent[k1].colour, ask

    return rule


def scaled(c: float, ratio: float) -> Rule:
    """Each entry's distance over its own spread (+ c), named and asked by that ratio."""

    def rule(ent: dict[str, Entry], ds: list[tuple[float, str]], fill: float) -> tuple[str, bool]:
        sc = sorted((d / (_spread(ent[k], fill) + c), d, k) for d, k in ds)
        s1, d1, k1 = sc[0]
        s2 = next(s for s, _, k in sc if ent[k].colour != ent[k1].colour)
        return ent[k1].colour, d1 > FAR_HUED or s1 >= ratio * s2

    return rule


def extra(ask: Callable[[Entry, float, Entry, float, float], bool]) -> Rule:
    """The table's ratio, and asked too when ``ask(named entry, d1, next entry, d2, fill)``."""

    def rule(ent: dict[str, Entry], ds: list[tuple[float, str]], fill: float) -> tuple[str, bool]:
        d1, k1, d2, k2, asked = _ratio(ent, ds)
        return ent[k1].colour, asked or ask(ent[k1], d1, ent[k2], d2, fill)

    return rule


def _hueless(e: Entry, chroma: float) -> bool:
    body = np.mean([r[:3] for r in e.rows], axis=0)
    return bool(np.hypot(body[1], body[2]) < chroma)


#: name -> (entries pooled by colour, the rule)
RULES: dict[str, tuple[bool, Rule]] = {
    "the table's ratio alone (the seventh round)": (True, table()),
    **{
        f"each die's distance over its spread + {c:g}, asked at {r:g}": (False, scaled(c, r))
        for c in (0.0, 5.0, 10.0)
        for r in (0.8, 0.88)
    },
    **{
        f"beyond {a:g} x the named die's spread": (
            False,
            extra(lambda e1, d1, e2, d2, f, a=a: d1 > a * _spread(e1, f)),
        )
        for a in (2.0, 3.0, 4.0)
    },
    **{
        f"margin under {lam:g} x the named die's spread": (
            False,
            extra(lambda e1, d1, e2, d2, f, lam=lam: d2 - d1 < lam * _spread(e1, f)),
        )
        for lam in (0.5, 1.0)
    },
    **{
        f"within {b:g} x the next die's spread": (
            False,
            extra(lambda e1, d1, e2, d2, f, b=b: d2 < b * _spread(e2, f)),
        )
        for b in (1.0, 1.5)
    },
    **{
        f"margin under {m:g}": (False, extra(lambda e1, d1, e2, d2, f, m=m: d2 - d1 < m))
        for m in (3.0, 5.0, 8.0)
    },
    **{
        f"hueless die, margin under {lam:g} x its die's spread": (
            False,
            extra(lambda e1, d1, e2, d2, f, lam=lam: _hueless(e1, 8.0) and d2 - d1 < lam * _spread(e1, f)),
        )
        for lam in (0.5, 1.0)
    },
    **{
        f"hueless colour, margin under {lam:g} x its colour's spread": (
            True,
            extra(lambda e1, d1, e2, d2, f, lam=lam: _hueless(e1, 8.0) and d2 - d1 < lam * _spread(e1, f)),
        )
        for lam in (0.25, 0.4, 0.5, 0.6, 0.75)
    },
    "any colour, margin under 0.5 x its colour's spread": (
        True,
        extra(lambda e1, d1, e2, d2, f: d2 - d1 < 0.5 * _spread(e1, f)),
    ),
}


def cross(photos: dict[str, list[Seen]], by_colour: bool, rule: Rule, c: Counter[str]) -> None:
    """The train photos' cross-validation (`colours_roster._cross`'s: each kind learnt from 2 and from
    3 photos in turn, ``POWER_ROTATIONS``), read by ``rule`` (entries by kind of die, or pooled by colour)."""
    shows: dict[str, list[str]] = {}
    for p in sorted(photos):
        for key in {s.look for s in photos[p]}:
            shows.setdefault(key, []).append(p)
    for n in POWER_LEARN:
        for o in POWER_ROTATIONS:
            learn = {k: [ps[(o + j) % len(ps)] for j in range(n)] for k, ps in shows.items() if len(ps) > n}
            taught = {p for ps in learn.values() for p in ps}
            rows: dict[str, tuple[str, list[np.ndarray]]] = {}
            for key, ps in learn.items():
                for p in ps:
                    for s in photos[p]:
                        if s.look == key:
                            rows.setdefault(s.colour if by_colour else key, (s.colour, []))[1].append(s.whole)
            ent = {k: entry(col, rs) for k, (col, rs) in rows.items()}
            spreads = [e.spread for e in ent.values() if e.spread is not None]
            fill = float(np.median(spreads)) if spreads else 0.0
            for p in sorted(set(photos) - taught):
                for s in photos[p]:
                    if s.look not in learn:
                        continue
                    ds = sorted(
                        (float(sighting_distances(e.rows, s.whole)[0].min()), k) for k, e in ent.items()
                    )
                    got, asked = rule(ent, ds, fill)
                    c["dice"] += 1
                    c["asked" if asked else ("right" if got == s.colour else "silent")] += 1


def rules(smoke: bool = False) -> dict[str, dict[str, Counter[str]]]:
    sets, held = sightings(smoke)
    out: dict[str, dict[str, Counter[str]]] = {}
    for name, (by_colour, rule) in list(RULES.items())[: 2 if smoke else None]:
        for read, key in ((READS[0], f"byler_d6, {READS[0]}"), ("box", "byler_d6")):
            train = {p: ss for p, ss in sets[key].items() if p not in held}
            cross(train, by_colour, rule, out.setdefault(name, {}).setdefault(read, Counter()))
    return out


def rules_table(res: dict[str, dict[str, Counter[str]]]) -> str:
    lines = [
        "The train photos' cross-validation alone (each kind of die learnt from 2 and from 3 of them in "
        "turn, "
        f"{len(POWER_ROTATIONS)} rotations, read on the others): silent / asked, and the cost "
        f"({SILENT_COST} x silent + asked).",
        "",
        f"| rule | {READS[0]}: silent / asked | box: silent / asked | cost (both) |",
        "|---|---|---|---|",
    ]
    for name, by in res.items():
        r, b = by[READS[0]], by["box"]
        cost = sum(SILENT_COST * c["silent"] + c["asked"] for c in (r, b))
        lines.append(
            f"| {name} | {r['silent']} / {r['asked']} of {r['dice']} | {b['silent']} / {b['asked']} of "
            f"{b['dice']} | {cost} |"
        )
    return "\n".join(lines) + "\n"


#: --rim: the band's depth (px of the 64 px crop) and the chroma a blue pixel has at least
RIM_DEPTHS, RIM_CHROMAS = (3, 5), (6.0, 10.0, 14.0)


def rim_shares(crop: np.ndarray) -> list[float]:
    """The share of blue pixels in the band along the die's outline, each depth and chroma of
    ``RIM_DEPTHS`` x ``RIM_CHROMAS`` (zeros when the die is not cut out)."""
    from vision.face import die_mask

    found = die_mask(crop)
    if found is None:
        return [0.0] * (len(RIM_DEPTHS) * len(RIM_CHROMAS))
    die = found[0]
    lab = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1])) % 360
    blue = (hue > 200) & (hue < 310)
    out = []
    for w in RIM_DEPTHS:
        band = (die > 0) & ~(cv2.erode(die, np.ones((2 * w + 1, 2 * w + 1), np.uint8)) > 0)
        n = max(1, int(band.sum()))
        out += [float((band & blue & (chroma > c)).sum() / n) for c in RIM_CHROMAS]
    return out


def rim(smoke: bool = False, real: Path = REAL) -> list[tuple[bool, str, int, str, list[float]]]:
    """Each labelled byler_d6 die the reader finds: (held-out photo, photo, die, kind, `rim_shares` of
    its reader's crop balanced by the photo's light)."""
    from vision.crops import Pyramid, look_crop
    from vision.reader import read_dice

    labels = load_labels(LABELS)
    held = set(labels)
    labels.update(load_labels(TRAIN_LABELS))
    labels.update(load_labels(TUNE_LABELS))
    kinds = load_looks()
    photos = sorted(p for p in labels if p.startswith("byler_d6/"))
    out = []
    for photo in photos[:10] if smoke else photos:
        image = imread(real / photo)
        dice = labels[photo]
        pal = Palette.known({d["colour"] for d in dice} | set(NOT_DICE)).balanced_by_frame(image)
        found: dict[int, Any] = {}
        for r in read_dice(image, pal):
            i = labelled_die(r.center, dice)
            if i is not None:
                found.setdefault(i, r.box)
        pyr = Pyramid(image)
        for i, box in sorted(found.items()):
            crop = pal.balance_bgr(look_crop(image, box, pyr))
            out.append(
                (
                    photo in held,
                    Path(photo).stem,
                    i,
                    kinds.get((photo, i), dice[i]["colour"]),
                    rim_shares(crop),
                )
            )
    return out


def rim_table(rows: list[tuple[bool, str, int, str, list[float]]]) -> str:
    cols = [f"{w} px, chroma > {c:g}" for w in RIM_DEPTHS for c in RIM_CHROMAS]
    lines = [
        "The share of blue pixels (hue 200-310 degrees) in the band along the die's outline "
        "(`vision.face.die_mask` of the 64 px reader's crop), by kind of die: max / 95th percentile.",
        "",
        "| kind of die | dice | " + " | ".join(cols) + " |",
        "|---|---|" + "---|" * len(cols),
    ]
    by: dict[str, list[list[float]]] = {}
    for _, _, _, kind, f in rows:
        by.setdefault(kind, []).append(f)
    for kind in sorted(by):
        v = np.asarray(by[kind])
        cells = [f"{v[:, j].max():.3f} / {np.percentile(v[:, j], 95):.3f}" for j in range(len(cols))]
        lines.append(f"| {kind} | {len(v)} | " + " | ".join(cells) + " |")
    lines += ["", "Each blue/black swirl (held-out photo?, photo, die): " + ", ".join(cols), ""]
    for h, photo, i, kind, f in sorted(rows, key=lambda t: t[4][0]):
        if kind == "blue-black swirl":
            lines.append(
                f"- {'held-out' if h else 'train'} {photo} {i}: " + " / ".join(f"{x:.3f}" for x in f)
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    what = ap.add_mutually_exclusive_group()
    what.add_argument(
        "--rules", action="store_true", help="the ask rules on the train cross-validation (default)"
    )
    what.add_argument("--rim", action="store_true", help="the blue in the band along each die's outline")
    add_smoke(ap)
    args = ap.parse_args(argv)
    body = rim_table(rim(args.smoke)) if args.rim else rules_table(rules(args.smoke))
    write(run_header(argv, "benchmarks.colours_rules") + "\n" + body, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
