"""Benchmark the numbered reader on REAL pip d6: the shared byler_d6 photos (pip d6 only).

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_real --models vision/models [DIR ...]

Every die in these photos is a pip d6, so a numbered reader should call each one d6.  Per models
folder (``NumberedReader(models=DIR)``) and per split (train / held-out, training.dataset.is_held_out):

* the numbered reader alone: labelled dice it calls d6, calls d10 / d10p / d20, reads as d6 with the
  right value, does not find; readings on no labelled die;
* merged as ``dicetable read --numbered`` runs (vision.numbered.combined.read_all: the pip-d6 reader
  and the numbered reader, ``add_numbered``: ``merge`` after ``second_look``): dice read with the
  right value, against the pip-d6 reader alone; readings on no labelled die;
* the classifier's cost: ms per die (the reader's crops of the held-out photos, read as the reader
  reads them, one batch per photo, one thread), median over photos.

A reading matches a labelled die when its centre lies inside the die's box (the nearest such
reading, each reading matched once), as benchmarks/vision_d6.py counts.  Labels as given (the
held-out label corrections of vision_d6.py are not applied).  Writes
benchmarks/results/vision_numbered_real.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, RESULTS, ROOT, add_smoke, imread, markdown_table, match_boxes, run_header
from benchmarks.harness import count_share as pct
from training.dataset import LabelledDie, is_held_out, load_byler
from vision.numbered.combined import add_numbered
from vision.numbered.reader import NumberedReader
from vision.reader import default_reader as d6_reader
from vision.reading import DieReading

DEFAULT_OUT = RESULTS / "vision_numbered_real.md"
SPLITS = ("train", "heldout")
SMOKE_PHOTOS = 4  # --smoke: photos read (spaced over the set)


def match(truth: Sequence[LabelledDie], found: Sequence[DieReading]) -> tuple[list[DieReading | None], int]:
    """For each labelled die, the reading matched to it (or None), and how many readings matched none."""
    got = match_boxes([d.box for d in truth], [r.center for r in found])
    return [None if i is None else found[i] for i in got], len(found) - sum(i is not None for i in got)


@dataclass
class Tally(harness.Tally):
    dice: int = 0
    called_d6: int = 0
    called_numbered: int = 0
    d6_right: int = 0
    missed: int = 0
    extra: int = 0
    merged_right: int = 0
    merged_extra: int = 0
    d6_alone_right: int = 0
    d6_alone_extra: int = 0
    numbered_conf: list[float] = field(default_factory=list)

    def add(
        self,
        truth: Sequence[LabelledDie],
        numbered: list[DieReading],
        merged: list[DieReading],
        d6: list[DieReading],
    ) -> None:
        self.dice += len(truth)
        got, extra = match(truth, numbered)
        self.extra += extra
        for d, r in zip(truth, got, strict=True):
            if r is None:
                self.missed += 1
            elif r.kind == "d6":
                self.called_d6 += 1
                self.d6_right += int(r.value == d.value)
            else:
                self.called_numbered += 1
                self.numbered_conf.append(r.confidence)
        got, extra = match(truth, merged)
        self.merged_extra += extra
        self.merged_right += sum(
            1 for d, r in zip(truth, got, strict=True) if r and r.kind == "d6" and r.value == d.value
        )
        got, extra = match(truth, d6)
        self.d6_alone_extra += extra
        self.d6_alone_right += sum(1 for d, r in zip(truth, got, strict=True) if r and r.value == d.value)


def classifier_ms(reader: NumberedReader, images: list[np.ndarray]) -> float:
    """Median over photos of ms per die of the classifier alone (the reader's crops, one batch)."""
    per_die = []
    for img in images:
        found = reader.locate(img, reader.detect(img))
        crops = reader.crops(img, found)
        if not crops:
            continue
        reader.classify(crops)  # warm
        t0 = time.process_time()
        for _ in range(3):
            reader.classify(crops)
        per_die.append((time.process_time() - t0) * 1000 / 3 / len(crops))
    return statistics.median(per_die) if per_die else float("nan")


def run(folders: list[Path], real: Path, limit: int | None = None) -> str:
    items = harness.spaced(load_byler(real), limit)
    if not items:
        raise SystemExit(f"--real: no byler_d6 photos under {real} (expected byler_d6/images/*.jpg)")
    readers = {f: NumberedReader(models=f) for f in folders}
    tallies = {(f, s): Tally() for f in folders for s in SPLITS}
    held_images: list[np.ndarray] = []
    for n, item in enumerate(items):
        img = imread(item.path)
        split = "heldout" if is_held_out(item.path.name) else "train"
        if split == "heldout":
            held_images.append(img)
        # byler photos are 640x640: read_all gives them to the pip-d6 reader unscaled
        d6 = d6_reader().read(img)
        for f, reader in readers.items():
            numbered = reader.read(img)
            tallies[(f, split)].add(item.dice, numbered, add_numbered(img, d6, reader=reader), d6)
        if n % 40 == 0:
            print(f"{n}/{len(items)} photos", flush=True)
    ms = {f: classifier_ms(r, held_images) for f, r in readers.items()}
    lines = [
        "# Numbered reader on real pip d6 (byler_d6)",
        "",
        run_header(),
        "Every die in these photos is a pip d6. Split by training.dataset.is_held_out (held-out photos never",
        "trained or tuned on). A reading matches a labelled die when its centre lies inside the die's box.",
        "Numbered alone: the numbered reader's call on each labelled die. Merged: `add_numbered` of the",
        "pip-d6 reader's and the numbered reader's readings, as `dicetable read --numbered` runs (read_all);",
        "extra = readings on no labelled die (labels miss a few real dice).",
        "",
    ]
    lines += markdown_table(HEAD, (row(f, s, tallies[(f, s)]) for f in folders for s in SPLITS))
    lines += [
        "",
        *markdown_table(CONF_HEAD, (conf_row(f, s, tallies[(f, s)]) for f in folders for s in SPLITS)),
    ]
    lines += [
        "",
        "Classifier cost (ms per die, median over the held-out photos, one batch per photo, read as the"
        " reader reads (upright, and at the other quarter turns when unsure: `NumberedReader.classify`),"
        " process time, one thread): " + "; ".join(f"`{harness.shown(f)}` {ms[f]:.2f}" for f in folders),
        "",
    ]
    return "\n".join(lines)


HEAD = (
    "models",
    "split",
    "dice",
    "called d6",
    "called d10/d10p/d20",
    "d6, value right",
    "not found",
    "extra",
    "merged: value right",
    "merged extra",
    "d6 reader alone: value right",
    "d6 alone extra",
)
CONF_HEAD = ("models", "split", "confidence of the d10/d10p/d20 calls: median, p90, max")


def row(f: Path, split: str, t: Tally) -> list[object]:
    return [
        f"`{harness.shown(f)}`",
        split,
        t.dice,
        pct(t.called_d6, t.dice),
        pct(t.called_numbered, t.dice),
        pct(t.d6_right, t.dice),
        t.missed,
        t.extra,
        f"**{pct(t.merged_right, t.dice)}**",
        t.merged_extra,
        pct(t.d6_alone_right, t.dice),
        t.d6_alone_extra,
    ]


def conf_row(f: Path, split: str, t: Tally) -> list[object]:
    c = t.numbered_conf
    q = f"{np.median(c):.2f}, {np.percentile(c, 90):.2f}, {max(c):.2f}" if c else "-"
    return [f"`{harness.shown(f)}`", split, q]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, nargs="+", default=[ROOT / "vision" / "models"])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument(
        "--out", type=Path, help=f"where to store the report (default {harness.shown(DEFAULT_OUT)})"
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.out is None and not args.smoke:
        args.out = DEFAULT_OUT
    for f in args.models:
        if not (f / "numbered_classifier.onnx").is_file():
            ap.error(f"--models: {f} has no numbered_classifier.onnx (expected a numbered models folder)")
    if not (args.real / "byler_d6" / "images").is_dir():
        ap.error(f"--real: {args.real} has no byler_d6/images (expected the shared real photos)")
    cv2.setNumThreads(1)
    harness.write(run(args.models, args.real, SMOKE_PHOTOS if args.smoke else None), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
