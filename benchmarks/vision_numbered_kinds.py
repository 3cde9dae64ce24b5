"""Kinds narrow, never hide (issue 29 item 3): a table told its game's kinds (``--kinds d20``, a
``table.kinds`` of d20) must find at least every d20 that reading every kind finds.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_kinds \
        --out benchmarks/results/vision_numbered_kinds.md

Every photo is read three times in one run through the table's perception step
(`controller.perceive.Perceiver`, the numbered reader `vision.numbered.NumberedDice` with no board
and no where-steps): with every kind (d6, d10, d10p, d20: the pip-d6 reader beside the numbered one;
the default reader), with d20 alone read by the classifier alone (`NumberedReader(ocr=False)`: the
default until session 13, `[vision] ocr_second_opinion = false`) and with d20 alone read by the
default reader (the OCR head beside the classifier, `ocr="second"`).  Both narrow as issue 29 item 3
made the default (`narrow="relabel"`); before it (`narrow="drop"`) a d20 table hid most real d20s
(benchmarks/RESULTS.md, "Issue 29, session 12").

Sets, real first, held out by set-up or physical die:

* `d20_lurig` held-out set-ups (d20_top, d20_wood), each crop at the table's scale
  (`training.numbered.real.at_table`): the die is found when a reading (any kind) lies within
  CENTRE_SHARE of the crop's width of its centre;
* `d20_desk_scenes` (one d20 a photo, no box; the green die held out, `d20_desk_held_out`): found
  when the photo has a reading (all kinds: any reading, and a d20 reading, both shown);
* `d20_imac1844` d20 photos (another source), at the table's scale like d20_lurig;
* `negatives` (no die: every reading is a phantom; by source, the held-out ones first).

"hidden": photos whose die reading every kind found and d20 alone did not (the target: 0).  Value
right counts the die's reading showing the labelled face as a d20; silent: wrong or phantom readings
at confidence >= SURE.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, imread, markdown_table, median, nearest_centre, spaced
from controller.config import VisionSection
from controller.perceive import Perceiver
from training.dataset import d20_desk_held_out, negative_held_out
from training.numbered.real import HELD_OUT_GROUPS, TABLE_SCALE, at_table, load_images, load_lurig
from vision.numbered import NumberedDice
from vision.numbered.labels import KINDS
from vision.numbered.reader import OCR, NumberedReader

SURE = 0.8
CENTRE_SHARE = 0.3
#: each mode's kinds and the reader's `ocr`
MODES: dict[str, tuple[tuple[str, ...], bool | str]] = {
    "every kind": (KINDS, OCR),
    "d20 alone, classifier alone (before)": (("d20",), False),
    "d20 alone, OCR head beside (default)": (("d20",), OCR),
}
NARROWED = [m for m in MODES if m != "every kind"]


@dataclass
class Photo:
    set: str
    path: Path
    face: int | None  # None: no face label (desk scenes)
    boxed: bool  # a one-die crop put at the table's scale (the die at its centre)


@dataclass
class Counts(harness.Tally):
    photos: int = 0
    found: int = 0
    found_d20: int = 0  # found as a d20 (with every kind on, the die may be read as another kind)
    value_right: int = 0
    asked: int = 0
    phantoms: int = 0
    readings: int = 0
    silent: int = 0
    hidden: int = 0  # found with every kind, not with d20 alone
    extra: int = 0  # found with d20 alone, not with every kind
    ms: list[float] = field(default_factory=list)


def photos(real: Path, limit: int | None) -> list[Photo]:
    out: list[Photo] = []
    for x in load_lurig(real):
        if x.group in HELD_OUT_GROUPS:
            out.append(Photo(f"d20_lurig/{x.group}", x.path, x.face, True))
    out = spaced(out, limit)
    desk = [Photo("d20_desk_scenes", p, None, False) for p in load_images(real, "d20_desk_scenes")]
    out += spaced(desk, limit)
    with (real / "d20_imac1844" / "labels.csv").open(newline="", encoding="utf-8") as f:
        imac = [
            Photo("d20_imac1844/d20", real / "d20_imac1844" / r["file"], int(r["face"]), True)
            for r in csv.DictReader(f)
            if r.get("kind") == "d20"
        ]
    negatives = [Photo("negatives", p, None, False) for p in load_images(real, "negatives")]
    return out + spaced(imac, limit) + spaced(negatives, limit)


def perceiver(kinds: tuple[str, ...], ocr: bool | str) -> Perceiver:
    return Perceiver.of(NumberedDice(kinds, reader=NumberedReader(ocr=ocr)), VisionSection(), kinds=kinds)


def die_of(photo: Photo, dice: list[dict[str, Any]], size: tuple[int, int]) -> int | None:
    """The index of the photo's die among its readings (None: not found, or no die)."""
    if not dice or photo.set == "negatives":
        return None
    if photo.boxed:
        return nearest_centre([tuple(d["center"]) for d in dice], size, within=CENTRE_SHARE)
    return max(range(len(dice)), key=lambda i: (dice[i].get("kind") == "d20", dice[i]["confidence"]))


def read(p: Perceiver, photo: Photo, img: np.ndarray) -> tuple[list[dict[str, Any]], tuple[int, int], float]:
    """The photo's readings (centres in the crop's pixels for a boxed crop), the size scored on, ms."""
    if not photo.boxed:
        seen = p.perceive(img)
        return [d.to_json() for d in seen.dice], (img.shape[1], img.shape[0]), seen.ms
    frame = at_table(img)
    h, w = img.shape[:2]
    sh, sw = round(h * TABLE_SCALE), round(w * TABLE_SCALE)
    y0, x0 = (frame.shape[0] - sh) // 2, (frame.shape[1] - sw) // 2
    seen = p.perceive(frame)
    dice = [d.to_json() for d in seen.dice]
    for d in dice:
        d["center"] = [d["center"][0] - x0, d["center"][1] - y0]
    return dice, (sw, sh), seen.ms


def score(t: Counts, photo: Photo, dice: list[dict[str, Any]], size: tuple[int, int]) -> int | None:
    t.photos += 1
    t.readings += len(dice)
    i = die_of(photo, dice, size)
    rest = [d for j, d in enumerate(dice) if j != i]
    t.phantoms += len(rest)
    t.silent += sum(d["confidence"] >= SURE for d in rest)
    if i is None:
        return None
    d = dice[i]
    t.found += 1
    t.found_d20 += d.get("kind") == "d20"
    right = d.get("kind") == "d20" and (photo.face is None or d.get("value") == photo.face)
    t.value_right += photo.face is not None and right
    if d["confidence"] < SURE:
        t.asked += 1
    elif not right:
        t.silent += 1
    return i


def run(real: Path, limit: int | None) -> dict[tuple[str, str], Counts]:
    readers = {m: perceiver(k, ocr) for m, (k, ocr) in MODES.items()}
    out: dict[tuple[str, str], Counts] = {}
    for photo in photos(real, limit):
        img = imread(photo.path)
        name = photo.set
        if photo.set == "d20_desk_scenes":
            name += " (held out: green die)" if d20_desk_held_out(img) else " (red die)"
        if photo.set == "negatives":
            name += ", held-out sources" if negative_held_out(photo.path) else ", train sources"
        found = {}
        for mode, p in readers.items():
            dice, size, ms = read(p, photo, img)
            t = out.setdefault((name, mode), Counts())
            t.ms.append(ms)
            found[mode] = score(t, photo, dice, size) is not None
        for mode in NARROWED:
            t = out[(name, mode)]
            t.hidden += found["every kind"] and not found[mode]
            t.extra += found[mode] and not found["every kind"]
    return out


def report(out: dict[tuple[str, str], Counts]) -> str:
    rows = []
    for (name, mode), t in out.items():
        n = max(1, t.photos)
        rows.append(
            [
                name,
                mode,
                t.photos,
                f"{t.found} ({100 * t.found / n:.1f} %)",
                t.found_d20,
                t.value_right if "desk" not in name else "-",
                t.asked,
                f"{t.phantoms / n:.2f}",
                f"{200 * t.silent / max(1, t.readings):.2f} ({t.silent} of {t.readings})",
                t.hidden if mode in NARROWED else "-",
                t.extra if mode in NARROWED else "-",
                f"{median(t.ms):.0f}",
            ]
        )
    head = (
        "set",
        "kinds",
        "photos",
        "die found",
        "found as d20",
        "value right",
        "asked",
        "phantoms a photo",
        "silent per 200 readings",
        "hidden by narrowing",
        "found only narrowed",
        "ms a photo (CPU, median)",
    )
    return "\n".join([harness.run_header(), "", *markdown_table(head, rows)]) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--limit", type=int, default=None, help="at most this many photos a set")
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    limit = 3 if args.smoke else args.limit
    harness.write(report(run(args.real, limit)), args.out)


if __name__ == "__main__":
    main()
