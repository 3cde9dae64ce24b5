"""Do the cheaper levers of the pip-d6 reader (vision.where: the empty table, the die's size) help the
numbered reader's phantoms?  Measured on real photos of ONE desk seen by one fixed webcam.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_where [--out FILE.md]

The rsandrini desk (`../shared/fixtures/real`): `negatives/rsandrini_table_*` (18 photos, no die)
and `d20_desk_scenes/` (76 photos, one d20 each) are the same desk, foam sheet and webcam
(negatives/SOURCE.md).  At a table the numbered reader's readings are NOT filtered by these steps
today (controller.table reads numbered dice without `where`); this measures what they would do:

* `empty table` (vision.where.EmptyTable): the empty frame is the per-pixel median of the 18 desk
  photos with no die (the motion gate's empty frame stands for it at a table).  Each desk photo with
  no die is read with the median of the OTHER 17 (leave one out), so no photo is its own reference.
  Only the desk scenes of the same size (1440x960) are read: the others are another camera mode.
* `die size` (vision.where.DieSize.learnt, "learnt from the first throws"): the d20's box side,
  learnt from the surest d20 reading of the red d20's photos (d20_desk_scenes' TRAIN die,
  training.dataset.d20_desk_held_out), applied to every photo.

Readings are `read_all`'s (the pip-d6 reader merged with the numbered reader), every kind, and with
Dice Fighter's d10p alone; the numbered reader with its not-a-die net off and on.  A phantom is any
reading on a photo with no die, and on a desk scene every reading but the surest d20.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from benchmarks.harness import RESULTS, add_smoke, markdown_table, run_header, shown, spaced, write
from training.dataset import d20_desk_held_out
from training.numbered.real import default_root, load_images
from vision.numbered.combined import add_numbered, read_pips
from vision.numbered.labels import KINDS
from vision.numbered.reader import NumberedReader, still_copies
from vision.reading import DieReading
from vision.where import Box, DieSize, EmptyTable, WhereStep

SURE = 0.8
DEFAULT_OUT = RESULTS / "vision_numbered_where.md"


def box(r: DieReading) -> Box:
    q = np.asarray(r.quad, np.float64)
    return Box((float(q[:, 0].mean()), float(q[:, 1].mean())), float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1])))


def kept(img: np.ndarray, got: Sequence[DieReading], steps: Sequence[WhereStep]) -> list[DieReading]:
    """The readings every step lets stand (as vision.reader applies the steps to candidate boxes)."""
    out = list(got)
    for step in steps:
        out = [r for r, why in zip(out, step.check(img, [box(r) for r in out]), strict=True) if why is None]
    return out


HEAD = (
    "kinds",
    "not-a-die net",
    "steps",
    "desk, no die: phantoms",
    "silent",
    "desk scenes: d20 found",
    "phantoms",
    "silent",
    "green d20 (held out) found",
)
SMOKE_PHOTOS = 4  # --smoke: desk photos with no die (twice as many scenes); one reader


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", type=Path, default=default_root())
    ap.add_argument("--out", type=Path, help=f"where to store the report (default {shown(DEFAULT_OUT)})")
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.out is None and not args.smoke:
        args.out = DEFAULT_OUT
    cv2.setNumThreads(1)
    desk_empty = [p for p in load_images(args.real, "negatives") if p.name.startswith("rsandrini_table_")]
    scenes = load_images(args.real, "d20_desk_scenes")
    if args.smoke:
        desk_empty, scenes = spaced(desk_empty, SMOKE_PHOTOS), spaced(scenes, 2 * SMOKE_PHOTOS)
    if not desk_empty or not scenes:
        ap.error(f"--real: {args.real} lacks negatives/rsandrini_table_* or d20_desk_scenes")
    empties = {p: cv2.imread(str(p)) for p in desk_empty}
    median = np.median(np.stack(list(empties.values())), 0).astype(np.uint8)
    readers = {"off": NumberedReader(verify=False), "on": NumberedReader(verify=True)}

    def reader(net: str, kinds: tuple[str, ...]) -> Callable[[np.ndarray], list[DieReading]]:
        def read(img: np.ndarray) -> list[DieReading]:
            copies = still_copies(img)
            pips = read_pips(img, small=copies.video) if "d6" in kinds else []
            return add_numbered(img, pips, reader=readers[net], copies=copies, kinds=kinds)

        return read

    lines = [
        "# The where steps on the numbered reader's readings: one real desk, one fixed webcam",
        "",
        run_header(argv),
        "How: `benchmarks/vision_numbered_where.py` (docstring). Phantoms: readings on the 18 desk photos"
        " with no die, and on the 1440x960 desk scenes every reading but the surest d20; silent: phantoms at"
        f" confidence >= {SURE}.  The die size is learnt on the red d20's photos (TRAIN), reported on all.",
        "",
        *markdown_table(HEAD, []),
    ]
    for kinds in (KINDS,) if args.smoke else (KINDS, ("d10p",)):
        for net in ("off",) if args.smoke else ("off", "on"):
            read = reader(net, kinds)
            raw_empty = {p: read(img) for p, img in empties.items()}
            # the desk scenes the same webcam took at the empty photos' size (the rest, 1600x1067, are
            # another camera mode: no empty frame of it)
            raw_scenes = [(p, img) for p in scenes if (img := cv2.imread(str(p))).shape == median.shape]
            got_scenes = [(p, img, read(img)) for p, img in raw_scenes]
            red_sides = []
            for _p, img, got in got_scenes:
                if d20_desk_held_out(img):
                    continue
                d20 = [r for r in got if r.kind == "d20"]
                if d20:
                    b = box(max(d20, key=lambda r: r.confidence))
                    red_sides.append(max(b.w, b.h))
            size = DieSize.learnt(red_sides) if len(red_sides) >= 3 else None
            for name in ("none", "empty table", "die size", "empty table + die size"):
                use_empty, use_size = "empty" in name, "size" in name
                if use_size and size is None:
                    continue
                ph = si = 0
                for p, img in empties.items():
                    others = [e for q, e in empties.items() if q != p]
                    steps: list[WhereStep] = []
                    if use_empty:
                        steps.append(EmptyTable(np.median(np.stack(others), 0).astype(np.uint8)))
                    if use_size and size is not None:
                        steps.append(size)
                    got = kept(img, raw_empty[p], steps)
                    ph += len(got)
                    si += sum(r.confidence >= SURE for r in got)
                steps = ([EmptyTable(median)] if use_empty else []) + ([size] if use_size and size else [])
                found = sph = ssi = green = greens = 0
                for _p, img, got in got_scenes:
                    got = kept(img, got, steps)
                    d20 = [r for r in got if r.kind == "d20"]
                    die = max(d20, key=lambda r: r.confidence, default=None)
                    found += die is not None
                    if d20_desk_held_out(img):
                        greens += 1
                        green += die is not None
                    rest = [r for r in got if r is not die]
                    sph += len(rest)
                    ssi += sum(r.confidence >= SURE for r in rest)
                n, m = len(empties), len(got_scenes)
                lines.append(
                    f"| {','.join(kinds)} | {net} | {name}"
                    + (f" ({size.source})" if use_size and size is not None else "")
                    + f" | {ph} ({ph / n:.2f} a photo) | {si} of {ph} | {found} of {m}"
                    f" | {sph} ({sph / m:.2f} a photo)"
                    f" | {ssi} of {sph} | {green} of {greens} |"
                )
            print(lines[-1], file=sys.stderr, flush=True)
    write("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
