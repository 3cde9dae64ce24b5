"""Where to set the table's confidence threshold: accepted-reading accuracy vs readings asked.

    nice -n 10 .venv/bin/python -m benchmarks.confidence [--split train|heldout]

A reading below ``table.confidence_threshold`` goes to a person instead of
being scored.  For each threshold this prints, over the labelled byler_d6
photos of one split: the share of matched readings accepted without asking,
and the value accuracy of the accepted ones.  Choose the threshold on the
train split; the held-out split shows what it does on photos never tuned on.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from benchmarks.harness import REAL, add_smoke, markdown_table, run_header, spaced
from training.dataset import load_byler, read_image, split_of
from vision import read_dice

THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
SMOKE_PHOTOS = 3  # --smoke: photos read


def matched_readings(split: str, real: Path = REAL, limit: int | None = None) -> list[tuple[float, bool]]:
    """(confidence, value right) for every reading whose centre lies in a labelled box (the first
    such box; ``limit``: that many photos of the split, spaced)."""
    out = []
    items = [item for item in load_byler(real) if split_of(item.path) == split]
    if not items:
        raise SystemExit(f"--real: no byler_d6 photos of the {split} split under {real}")
    for item in spaced(items, limit):
        for r in read_dice(read_image(item.path)):
            x, y = r.center
            for d in item.dice:
                x0, y0, x1, y1 = d.box
                if x0 <= x <= x1 and y0 <= y <= y1:
                    out.append((r.confidence, r.value == d.value))
                    break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=("train", "heldout"), default="train")
    ap.add_argument("--real", type=Path, default=REAL, help="the shared real photos")
    add_smoke(ap)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rows = matched_readings(args.split, args.real, SMOKE_PHOTOS if args.smoke else None)
    print(run_header())
    print(f"byler_d6 {args.split}: {len(rows)} matched readings\n")
    table = []
    for th in THRESHOLDS:
        acc = [ok for c, ok in rows if c >= th]
        asked = len(rows) - len(acc)
        share = len(acc) / len(rows) if rows else 0.0
        accuracy = sum(acc) / len(acc) if acc else 0.0
        table.append([f"{th:.2f}", f"{share:.1%}", f"{accuracy:.2%}", asked])
    print("\n".join(markdown_table(["threshold", "accepted", "accuracy of accepted", "asked"], table)))


if __name__ == "__main__":
    main()
