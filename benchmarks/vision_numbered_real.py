"""Benchmark the numbered reader on REAL pip d6: the shared byler_d6 photos (pip d6 only).

    nice -n 10 .venv/bin/python benchmarks/vision_numbered_real.py --models vision/models [DIR ...]

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
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training.dataset import LabelledDie, is_held_out, load_byler  # noqa: E402
from vision.numbered.combined import add_numbered  # noqa: E402
from vision.numbered.reader import NumberedReader  # noqa: E402
from vision.reader import default_reader as d6_reader  # noqa: E402
from vision.reading import DieReading  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "vision_numbered_real.md"
SPLITS = ("train", "heldout")


def match(truth: Sequence[LabelledDie], found: Sequence[DieReading]) -> tuple[list[DieReading | None], int]:
    """For each labelled die, the reading matched to it (or None), and how many readings matched none."""
    used: set[int] = set()
    out: list[DieReading | None] = []
    for d in truth:
        x0, y0, x1, y1 = d.box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        inside = [
            i
            for i, r in enumerate(found)
            if i not in used and x0 <= r.center[0] <= x1 and y0 <= r.center[1] <= y1
        ]
        if not inside:
            out.append(None)
            continue
        best = min(inside, key=lambda i: (found[i].center[0] - cx) ** 2 + (found[i].center[1] - cy) ** 2)
        used.add(best)
        out.append(found[best])
    return out, len(found) - len(used)


@dataclass
class Tally:
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


def pct(a: int, b: int) -> str:
    return f"{a} ({100 * a / max(1, b):.1f} %)"


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


def run(folders: list[Path], real: Path) -> str:
    items = load_byler(real)
    if not items:
        raise SystemExit(f"--real: no byler_d6 photos under {real} (expected byler_d6/images/*.jpg)")
    readers = {f: NumberedReader(models=f) for f in folders}
    tallies = {(f, s): Tally() for f in folders for s in SPLITS}
    held_images: list[np.ndarray] = []
    for n, item in enumerate(items):
        img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if img is None:
            raise SystemExit(f"{item.path}: not a readable image")
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
        "`nice -n 10 .venv/bin/python benchmarks/vision_numbered_real.py --models "
        + " ".join(str(f) for f in folders)
        + "`",
        "",
        "Every die in these photos is a pip d6. Split by training.dataset.is_held_out (held-out photos never",
        "trained or tuned on). A reading matches a labelled die when its centre lies inside the die's box.",
        "Numbered alone: the numbered reader's call on each labelled die. Merged: `add_numbered` of the",
        "pip-d6 reader's and the numbered reader's readings, as `dicetable read --numbered` runs (read_all);",
        "extra = readings on no labelled die (labels miss a few real dice).",
        "",
        "| models | split | dice | called d6 | called d10/d10p/d20 | d6, value right | not found | extra"
        " | merged: value right | merged extra | d6 reader alone: value right | d6 alone extra |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in folders:
        for s in SPLITS:
            t = tallies[(f, s)]
            lines.append(
                f"| `{f}` | {s} | {t.dice} | {pct(t.called_d6, t.dice)} | {pct(t.called_numbered, t.dice)} | "
                f"{pct(t.d6_right, t.dice)} | {t.missed} | {t.extra} | **{pct(t.merged_right, t.dice)}** | "
                f"{t.merged_extra} | {pct(t.d6_alone_right, t.dice)} | {t.d6_alone_extra} |"
            )
    lines += [
        "",
        "| models | split | confidence of the d10/d10p/d20 calls: median, p90, max |",
        "|---|---|---|",
    ]
    for f in folders:
        for s in SPLITS:
            c = tallies[(f, s)].numbered_conf
            q = f"{np.median(c):.2f}, {np.percentile(c, 90):.2f}, {max(c):.2f}" if c else "-"
            lines.append(f"| `{f}` | {s} | {q} |")
    lines += [
        "",
        "Classifier cost (ms per die, median over the held-out photos, one batch per photo, read as the"
        " reader reads (upright, and at the other quarter turns when unsure: `NumberedReader.classify`),"
        " process time, one thread): " + "; ".join(f"`{f}` {ms[f]:.2f}" for f in folders),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, nargs="+", default=[ROOT / "vision" / "models"])
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "fixtures" / "real")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    for f in args.models:
        if not (f / "numbered_classifier.onnx").is_file():
            ap.error(f"--models: {f} has no numbered_classifier.onnx (expected a numbered models folder)")
    if not (args.real / "byler_d6" / "images").is_dir():
        ap.error(f"--real: {args.real} has no byler_d6/images (expected the shared real photos)")
    cv2.setNumThreads(1)
    report = run(args.models, args.real)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
