"""Issue 29: the OCR value head (vision/numbered/ocr.py, PP-OCRv6's recogniser) and the numbered reader
with and without it, on REAL photos held out by physical die, set-up and source, in one run.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_ocr            # the report
    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_ocr --fit      # + the heads' calibration fits
    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_ocr --smoke    # a few photos

Every photo is read at the table's scale (`training.numbered.real.at_table`: the close-up shrunk 0.45
into a 3456x2592 still, the die ~100 px, as the table sees it).  Sets, real first:

* held out: `d20_lurig` set-ups d20_top and d20_wood (never trained, tuned or calibrated on; the
  train set-ups are other clips, mostly of other dice); `d20_imac1844`'s green d20 (every face once)
  and its two numeral d6 (another source, other dice: never seen by anything here).
* train (for reference, and what `--fit` calibrates the head's confidence on): `d20_lurig` set-ups
  d20_color and d20_off-angle.

Readers, all on the same frames (before: as main read until session 13; after: now):

* `classifier` (before: the default reader until session 13): `NumberedReader(ocr=False)`, every kind;
* `classifier, kinds K`: the same told the game's kind (a d20 table, a numeral-d6 table);
* `head` (`OcrHead()`, the default: PP-OCRv6's float recogniser on 24 crops a die, 12 turns x 2
  shares of the die's box), `head int8` (the same crops, the int8 recogniser built from the wheel's
  at first use), `head 8 turns` (float, 16 crops), `head fast` (`OcrHead.fast()`: int8, 6 turns x
  one share, 6 crops; issue 29 session 14): the classifier reader's dice (its detector and top-face
  net; no floor on its classifier's value) with each d10, d10p and d20 reading's value and confidence
  from the OCR head alone (`ocr.reread`); `, kinds K` told the kind;
* `default` (the default reader, `NumberedReader()`) and `default fast` (the same with `head fast`):
  the head beside the classifier on each d10, d10p and d20 (`ocr.second_opinion`): the same value as
  sure as the surer of the two, another value asked with both as candidates, the head's first;
  `, kinds K` told the kind.

Per set and reader: kind right and value right (of the dice), silent errors (the die read wrong, or a
phantom, at confidence >= SURE, the table's asking threshold: scored without asking) per 200 readings,
asked (the die's reading under SURE), phantoms, and CPU ms: a photo (one die: the reader's whole
read) and, for the head, the head's own ms per die.  The die's reading is the one nearest the
crop's centre within 0.3 of its width; every other reading is a phantom.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.harness import (
    REAL,
    Tally,
    add_smoke,
    imread,
    markdown_table,
    median,
    run_header,
    spaced,
    write,
)
from training.numbered.real import TABLE_SCALE, at_table, load_lurig
from vision.numbered.ocr import OcrHead, confidence, reread
from vision.numbered.ocr import fit_calibration as fit
from vision.numbered.reader import NumberedReader
from vision.reading import DieReading

SURE = 0.8  # controller/config.py: the table's confidence_threshold
CENTRE_SHARE = 0.3
HELD_OUT = ("d20_lurig/d20_top", "d20_lurig/d20_wood", "d20_imac1844/d20", "d20_imac1844/numeral d6")
TRAIN = ("d20_lurig/d20_color", "d20_lurig/d20_off-angle")


@dataclass
class Photo:
    set: str
    kind: str
    face: int
    path: Path


@dataclass
class Counts(Tally):
    photos: int = 0
    dice: int = 0
    kind_right: int = 0
    value_right: int = 0
    missed: int = 0
    phantoms: int = 0
    readings: int = 0
    ms: list[float] = field(default_factory=list)
    head_ms: list[float] = field(default_factory=list)
    # (features, right) of the die's head readings, for --fit
    samples: list[tuple[tuple[float, ...], bool]] = field(default_factory=list)
    # every reading: (the head's features or (), its confidence, "right" / "wrong" / "phantom")
    kept: list[tuple[tuple[float, ...], float, str]] = field(default_factory=list)


def photos(real: Path) -> list[Photo]:
    out = [Photo(f"d20_lurig/{x.group}", "d20", x.face, x.path) for x in load_lurig(real)]
    labels = real / "d20_imac1844" / "labels.csv"
    with labels.open(newline="", encoding="utf-8") as f:
        for n, r in enumerate(csv.DictReader(f), 2):
            try:
                kind, face = r["kind"], int(r["face"])
            except (KeyError, ValueError):
                raise SystemExit(f"{labels} line {n}: expected file, kind, face, die; got {r!r}") from None
            name = "d20_imac1844/d20" if kind == "d20" else "d20_imac1844/numeral d6"
            out.append(Photo(name, kind, face, real / "d20_imac1844" / r["file"]))
    return out


#: a head reading's features and, last, the factor its confidence was scaled by (the kind's share)
Feats = tuple[float, ...]
Read = Callable[[np.ndarray], tuple[list[DieReading], list[float], list[Feats]]]


def plain(reader: NumberedReader, kinds: tuple[str, ...] | None) -> Read:
    def read(frame: np.ndarray) -> tuple[list[DieReading], list[float], list[Feats]]:
        got = reader.read(frame) if kinds is None else reader.read(frame, kinds=kinds)
        return got, [], [()] * len(got)

    return read


def with_head(reader: NumberedReader, head: OcrHead, kinds: tuple[str, ...] | None) -> Read:
    """The reader's dice, each of the head's kinds re-read by the head (`ocr.reread`)."""

    def read(frame: np.ndarray) -> tuple[list[DieReading], list[float], list[Feats]]:
        got = reader.read(frame) if kinds is None else reader.read(frame, kinds=kinds)
        t0 = time.process_time()
        if kinds is None:
            out, values = reread(reader, head, frame, got)
        else:
            out, values = reread(reader, head, frame, got, kinds, kinds)
        ms = (time.process_time() - t0) * 1000
        n = sum(v is not None for v in values)
        feats: list[Feats] = [
            () if v is None else (*v.features, r.confidence / max(v.confidence, 1e-12))
            for r, v in zip(out, values, strict=True)
        ]
        return out, [ms / n] * n if n else [], feats

    return read


def score(t: Counts, photo: Photo, width: int, read: Read, frame: np.ndarray) -> None:
    """One photo read at the table's scale (`frame`; the close-up was `width` px wide).  Each
    reading's confidence is kept with its features (`t.kept`), so `asked_silent` can count the
    asked and the silent under any calibration of the head."""
    t0 = time.process_time()
    got, head_ms, feats = read(frame)
    t.ms.append((time.process_time() - t0) * 1000)
    t.head_ms += head_ms
    t.photos += 1
    t.dice += 1
    t.readings += len(got)
    c = (frame.shape[1] / 2, frame.shape[0] / 2)
    near = sorted(range(len(got)), key=lambda i: math.dist(got[i].center, c))
    die = (
        near[0] if near and math.dist(got[near[0]].center, c) <= CENTRE_SHARE * width * TABLE_SCALE else None
    )
    if die is None:
        t.missed += 1
    else:
        r = got[die]
        ok_kind = r.kind == photo.kind
        ok = ok_kind and r.value == photo.face
        t.kind_right += ok_kind
        t.value_right += ok
        t.kept.append((feats[die], r.confidence, "right" if ok else "wrong"))
        if feats[die] and ok_kind:
            t.samples.append((feats[die][:-1], ok))
    t.phantoms += len(got) - (die is not None)
    t.kept += [(feats[i], r.confidence, "phantom") for i, r in enumerate(got) if i != die]


def asked_silent(t: Counts, weights: tuple[float, ...] | None = None) -> tuple[int, int]:
    """The die's readings asked (under SURE) and the silent errors (the die wrong or a phantom, at
    SURE or more), each head reading's confidence from `weights` (None: as read)."""
    asked = silent = 0
    for f, conf, role in t.kept:
        if f and weights is not None:
            conf = confidence(f[:-1], weights) * f[-1]
        if role != "phantom" and conf < SURE:
            asked += 1
        elif role != "right" and conf >= SURE:
            silent += 1
    return asked, silent


def fit_report(samples: list[tuple[tuple[float, ...], bool]]) -> tuple[list[str], tuple[float, ...]]:
    """The calibration fitted on the TRAIN split: the smallest weight on wrong readings under which
    no train reading is wrong at >= SURE (a few hundred train readings cannot tell 1 in 200 from 0:
    one wrong among 289 is already 0.7 in 200)."""
    rows, chosen = [], None
    for ww in (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64):
        w = tuple(float(v) for v in fit(samples, ww))
        conf = [confidence(f, w) for f, _ in samples]
        sure = [ok for c, (_, ok) in zip(conf, samples, strict=True) if c >= SURE]
        wrong = sum(not ok for ok in sure)
        rows.append((ww, len(sure), wrong, ", ".join(f"{v:.4g}" for v in w)))
        if chosen is None and wrong == 0:
            chosen = w
    lines = [
        f"Calibration fit on the TRAIN split ({len(samples)} d20 readings, "
        f"{sum(ok for _, ok in samples)} right):",
        "",
        *markdown_table(["weight on wrong", "sure (>= SURE)", "wrong among them", "weights"], rows),
    ]
    return lines, chosen or tuple(float(v) for v in fit(samples, 64))


def row(reader: str, name: str, t: Counts, weights: tuple[float, ...] | None) -> list[object]:
    n = max(1, t.dice)
    asked, silent_n = asked_silent(t, weights)
    silent = 200 * silent_n / max(1, t.readings)
    return [
        reader,
        name,
        t.dice,
        f"{100 * t.kind_right / n:.1f} %",
        f"**{100 * t.value_right / n:.1f} %**",
        f"{silent_n} of {t.readings} (**{silent:.2f}** per 200)",
        f"{100 * asked / n:.1f} %",
        t.missed,
        t.phantoms,
        f"{median(t.ms):.0f}",
        f"{median(t.head_ms):.1f}" if t.head_ms else "-",
    ]


#: what --fit calibrates: each head read by the "head" readers, by its reader label
FITTED = ("head", "head int8", "head 8 turns", "head fast")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL, help="the shared real photos' folder")
    ap.add_argument("--limit", type=int, default=None, help="at most this many photos a set, evenly spaced")
    ap.add_argument("--fit", action="store_true", help="fit the heads' calibrations on the TRAIN split")
    ap.add_argument("--out", type=Path, default=None, help="also write the report here")
    add_smoke(ap)
    args = ap.parse_args(argv)
    if not args.real.is_dir():
        raise SystemExit(f"{args.real}: the shared real photos are not there (expected shared/fixtures/real)")
    limit = 1 if args.smoke else args.limit  # smoke: one photo a set (every set and head still run)
    classifier = NumberedReader(ocr=False)
    open_floor = NumberedReader(die_floor=0.0, ocr=False)
    heads = {
        "head": OcrHead(),
        "head int8": OcrHead(quantized=True),
        "head 8 turns": OcrHead(angles=8),
        "head fast": OcrHead.fast(),
    }
    default = NumberedReader()
    default_fast = NumberedReader()
    default_fast.ocr = heads["head fast"]
    sets = HELD_OUT + TRAIN
    every = photos(args.real)
    tallies: dict[tuple[str, str], Counts] = {}
    for name in sets:
        items = spaced([p for p in every if p.set == name], limit)
        kind = items[0].kind
        readers: list[tuple[str, Read]] = [
            ("classifier", plain(classifier, None)),
            (f"classifier, kinds {kind}", plain(classifier, (kind,))),
        ]
        for label, head in heads.items():
            readers += [
                (label, with_head(open_floor, head, None)),
                (f"{label}, kinds {kind}", with_head(open_floor, head, (kind,))),
            ]
        readers += [
            ("default", plain(default, None)),
            (f"default, kinds {kind}", plain(default, (kind,))),
            ("default fast", plain(default_fast, None)),
            (f"default fast, kinds {kind}", plain(default_fast, (kind,))),
        ]
        for p in items:
            img = imread(p.path)
            frame = at_table(img)
            for label, read in readers:
                key = (label.split(",")[0] + (", kinds" if "," in label else ""), name)
                score(tallies.setdefault(key, Counts()), p, img.shape[1], read, frame)
    head_lines: list[str] = []
    weights: dict[str, tuple[float, ...]] = {}
    if args.fit:
        for label in FITTED:
            samples = [s for name in TRAIN for s in tallies[(f"{label}, kinds", name)].samples]
            lines, w = fit_report(samples)
            weights[label] = w
            head = heads[label]
            head_lines += [
                f"#### `{label}`: {head.views} views a die ({head.angles} turns x shares {head.shares}), "
                f"{'int8' if head.quantized else 'float'} recogniser",
                "",
                *lines,
                "",
                f"Chosen: calibration {w!r} (shipped: {head.calibration!r}). The `{label}` rows below score "
                "its readings with the chosen weights (fitted on the train split only).",
                "",
            ]
    head_lines += [
        "Heads: "
        + "; ".join(
            f"`{label}` {h.views} views ({h.angles} turns x shares {h.shares}), "
            f"{'int8' if h.quantized else 'float'} {h.file}"
            for label, h in heads.items()
        )
        + ". `default` / `default fast`: `NumberedReader()` (the head beside the classifier) with "
        "`head` / `head fast`.",
        "",
    ]
    body = []
    for part, names in (
        ("Held out (never trained, tuned or calibrated on)", HELD_OUT),
        ("Train split (reference)", TRAIN),
    ):
        rows = []
        for name in names:
            labels = ("classifier", *heads, "default", "default fast")
            for label in (*labels, *(f"{x}, kinds" for x in labels)):
                rows.append(row(label, name, tallies[(label, name)], weights.get(label.split(",")[0])))
        body += [
            f"### {part}",
            "",
            *markdown_table(
                [
                    "reader",
                    "set",
                    "dice",
                    "kind right",
                    "value right",
                    "silent (wrong or phantom >= 0.8)",
                    "asked",
                    "missed",
                    "phantoms",
                    "ms a photo",
                    "head ms a die",
                ],
                rows,
            ),
            "",
        ]
    write("\n".join([run_header(argv), *head_lines, *body]), args.out)


if __name__ == "__main__":
    main()
