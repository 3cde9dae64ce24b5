"""Numbered dice in REAL photos read at the photo's own scale, as `dicetable read` reads a photo
with nothing known about it (no board, die size or empty table): one die a photo, close or far.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_scale \
        --out benchmarks/results/vision_numbered_scale.md

The other real-photo benchmarks put each d20 crop at the table's scale first (`real.at_table`).  A
photo of one die taken close, as a phone or a reference shot takes it, is not: its die is half the
frame or more.  Every photo is read four times in one run through the perception step
(`controller.perceive.Perceiver`, as `dicetable read --kinds ...` builds it):

* "as before": `NumberedDice` alone, and a d6 reading kept on a spot the numbered reader read as
  another kind as sure as the pip reader made it (`NumberedDice(disputed=1.0)`), the kind the
  classifier's (`NumberedReader(joint_kind=False)`);
* "any scale": `vision.numbered.scale.AnyScale` (the photo read at the zoom where the detector's die
  is strongest) and the disputed d6 asked (`combined.DISPUTED`), the kind the classifier's;
* "any scale, OCR head": the same with the PP-OCR head reading d10, d10p and d20 values
  (`NumberedReader(ocr=True)`, vision/numbered/ocr.py), the kind the classifier's;
* "any scale, joint kind" and "any scale, OCR head, joint kind": "any scale" (the default reader: the
  head beside the classifier) and "any scale, OCR head" with a die's kind read with its numeral at a
  table of more than one kind (`ocr.joint`, issue 29 session 14; the default since);

each with every kind (``--kinds d6,d10,d10p,d20``) and with d20 alone (``--kinds d20``: one kind, so
the joint rows read as the rows before them).

Sets, real, split as everywhere (`training/numbered/real.py`, `training/dataset.py`): d20_lurig by
set-up (d20_top and d20_wood held out; d20_color and d20_off-angle train: the zooms were chosen
there), every STEP-th crop; d20_imac1844 (another source: the green d20, every face, and two numeral
d6); d20_desk_scenes (1440x960 webcam photos, the die small: the green die held out); negatives (no
die).  The photo's die: the reading nearest the photo's centre within CENTRE_SHARE of its width (the
die is roughly centred; desk scenes: the surest reading); every other reading is a phantom.  Silent:
a reading at or above SURE (the table's asking threshold) that is wrong (kind or value) or a phantom.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, imread, markdown_table, median, nearest_centre, spaced
from controller.config import VisionSection
from controller.perceive import Perceiver
from training.dataset import d20_desk_held_out, negative_held_out
from training.numbered.real import HELD_OUT_GROUPS, load_images, load_lurig
from vision.numbered import NumberedDice
from vision.numbered.labels import KINDS
from vision.numbered.reader import NumberedReader
from vision.numbered.scale import AnyScale

SURE = 0.8
CENTRE_SHARE = 0.3
STEP = 3  # every STEP-th d20_lurig crop (frames of a clip are near-copies)
READERS = (
    "as before",
    "any scale",
    "any scale, OCR head",
    "any scale, joint kind",
    "any scale, OCR head, joint kind",
)
KIND_SETS: dict[str, tuple[str, ...]] = {"every kind": KINDS, "d20": ("d20",)}


@dataclass(frozen=True)
class Photo:
    set: str
    path: Path
    kind: str | None  # None: no die (negatives)
    face: int | None  # None: no face label (desk scenes, negatives)
    centred: bool  # one die, roughly in the middle


@dataclass
class Counts(harness.Tally):
    photos: int = 0
    found: int = 0
    kind_right: int = 0
    value_right: int = 0
    asked: int = 0
    phantoms: int = 0
    readings: int = 0
    silent: int = 0
    ms: list[float] = field(default_factory=list)


def photos(real: Path, step: int, limit: int | None) -> list[Photo]:
    lurig = load_lurig(real)
    groups = [*HELD_OUT_GROUPS, *sorted({x.group for x in lurig} - set(HELD_OUT_GROUPS))]
    out: list[Photo] = []
    for g in groups:
        part = "held out" if g in HELD_OUT_GROUPS else "train"
        crops = [Photo(f"d20_lurig/{g} ({part})", x.path, "d20", x.face, True) for x in lurig if x.group == g]
        out += spaced(crops[::step], limit)
    with (real / "d20_imac1844" / "labels.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for kind, name in (("d20", "d20_imac1844/d20"), ("d6", "d20_imac1844/numeral d6")):
        imac = [
            Photo(name, real / "d20_imac1844" / r["file"], kind, int(r["face"]), True)
            for r in rows
            if r.get("kind") == kind
        ]
        out += spaced(imac, limit)
    out += spaced(
        [Photo("d20_desk_scenes", p, "d20", None, False) for p in load_images(real, "d20_desk_scenes")], limit
    )
    out += spaced([Photo("negatives", p, None, None, False) for p in load_images(real, "negatives")], limit)
    return out


_READERS: dict[tuple[bool, bool], NumberedReader] = {}


def perceiver(reader: str, kinds: tuple[str, ...]) -> Perceiver:
    key = ("OCR" in reader, "joint" in reader)
    if key not in _READERS:  # one reader a way of reading (each holds its own nets)
        _READERS[key] = NumberedReader(ocr=True if key[0] else "second", joint_kind=key[1])
    numbered = _READERS[key]
    if reader == "as before":  # a disputed d6 as sure as the pip reader made it
        return Perceiver.of(NumberedDice(kinds, reader=numbered, disputed=1.0), VisionSection(), kinds=kinds)
    return Perceiver.of(AnyScale(NumberedDice(kinds, reader=numbered)), VisionSection(), kinds=kinds)


def read(p: Perceiver, img: np.ndarray) -> tuple[list[dict[str, Any]], float]:
    seen = p.perceive(img)
    return [d.to_json() for d in seen.dice], seen.ms


def score(t: Counts, photo: Photo, dice: list[dict[str, Any]], size: tuple[int, int]) -> None:
    t.photos += 1
    t.readings += len(dice)
    i: int | None = None
    if dice and photo.kind is not None:
        if photo.centred:
            i = nearest_centre([tuple(d["center"]) for d in dice], size, within=CENTRE_SHARE)
        else:
            i = max(range(len(dice)), key=lambda j: dice[j]["confidence"])
    rest = [d for j, d in enumerate(dice) if j != i]
    t.phantoms += len(rest)
    t.silent += sum(d["confidence"] >= SURE for d in rest)
    if i is None:
        return
    d = dice[i]
    t.found += 1
    kind_right = d.get("kind") == photo.kind
    t.kind_right += kind_right
    right = kind_right and (photo.face is None or d.get("value") == photo.face)
    t.value_right += photo.face is not None and right
    if d["confidence"] < SURE:
        t.asked += 1
    elif not right:
        t.silent += 1


def set_name(photo: Photo, img: np.ndarray) -> str:
    if photo.set == "d20_desk_scenes":
        return photo.set + (" (held out: green die)" if d20_desk_held_out(img) else " (train: red die)")
    if photo.set == "negatives":
        return photo.set + (" (held-out sources)" if negative_held_out(photo.path) else " (train sources)")
    return photo.set


def run(real: Path, step: int, limit: int | None) -> dict[tuple[str, str, str], Counts]:
    readers = {(r, k): perceiver(r, kinds) for r in READERS for k, kinds in KIND_SETS.items()}
    out: dict[tuple[str, str, str], Counts] = {}
    for photo in photos(real, step, limit):
        img = imread(photo.path)
        name = set_name(photo, img)
        for (reader, kinds), p in readers.items():
            dice, ms = read(p, img)
            t = out.setdefault((name, kinds, reader), Counts())
            t.ms.append(ms)
            score(t, photo, dice, (img.shape[1], img.shape[0]))
    return out


def report(out: dict[tuple[str, str, str], Counts]) -> str:
    rows = []
    for (name, kinds, reader), t in sorted(out.items(), key=lambda kv: order(kv[0])):
        n = max(1, t.photos)
        valued = "desk" not in name and "negatives" not in name
        rows.append(
            [
                name,
                kinds,
                f"**{reader}**" if reader != "as before" else reader,
                t.photos,
                f"{100 * t.found / n:.1f} %" if "negatives" not in name else "-",
                f"{100 * t.kind_right / n:.1f} %" if "negatives" not in name else "-",
                f"{100 * t.value_right / n:.1f} %" if valued else "-",
                t.asked,
                f"{t.phantoms / n:.2f}",
                f"{200 * t.silent / max(1, t.readings):.2f} ({t.silent} of {t.readings})",
                f"{median(t.ms):.0f}",
            ]
        )
    head = (
        "set",
        "kinds",
        "reader",
        "photos",
        "die found",
        "kind right",
        "value right",
        "asked",
        "phantoms a photo",
        "silent per 200 readings",
        "ms a photo (CPU, median)",
    )
    return "\n".join([harness.run_header(), "", *markdown_table(head, rows)]) + "\n"


def order(key: tuple[str, str, str], readers: tuple[str, ...] = READERS) -> tuple[int, str, int, int]:
    """A row's place in a report: held-out sets first, then by set, kinds and `readers`' order."""
    name, kinds, reader = key
    rank = 0 if "held out" in name or "held-out" in name or "imac" in name else 1
    return rank, name, list(KIND_SETS).index(kinds), readers.index(reader)


def cli(
    doc: str | None,
    run: Callable[[Path, int, int | None], dict[tuple[str, str, str], Counts]],
    report: Callable[[dict[tuple[str, str, str], Counts]], str],
    argv: list[str] | None = None,
) -> None:
    """The command line of this benchmark and of those that read its sets (`--step`, `--limit`,
    `--out`, `--smoke`): runs `run` and writes `report` of it."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--step", type=int, default=STEP, help=f"every STEP-th d20_lurig crop (default {STEP})")
    ap.add_argument("--limit", type=int, default=None, help="at most this many photos a set")
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    if args.step < 1:
        ap.error(f"--step: expected 1 or more, got {args.step}")
    limit = 1 if args.smoke else args.limit  # smoke: one photo a set (every set and way still read)
    harness.write(report(run(args.real, args.step, limit)), args.out)


def main(argv: list[str] | None = None) -> None:
    cli(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
