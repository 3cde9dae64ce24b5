"""The pip-d6 reader's budget and its phantoms on a lone photo (issue 46 items 4 and 5).

    OMP_NUM_THREADS=1 taskset -c 0 nice -n 10 .venv/bin/python -m benchmarks.vision_d6_budget \
        [--repeat 3] [--view-search climb|every] [--phantoms-only] [--out FILE.md] [--smoke]

Speed, byler_d6 held-out (640x640), one core, every reader on each photo in turn (so a ratio holds
when the machine's speed drifts): the classic pip reader (training.baseline), the pip-d6 reader
alone (`vision.reader.DiceReader`), the default reader `dicetable read IMAGE` uses
(`vision.numbered.combined.PipDice`: the pip reader, the numbered classifier's not-a-d6 check at each
sure die; 'before': every die checked at its top face and the classifier's turns, `at_box` None,
as on main before this change; now a first upright look at the pip reader's box, D6_AT_BOX) and the
tilted one (`read --tilted`: `DiceReader(estimate_view=True)` in `PipDice`; 'before': every view of
vision.oblique.hypotheses tried, `view_search="every"`; now `--view-search`, default "climb").
CPU ms of this process per photo (decoding excluded); each repeat's median over the photos, and the
ratios of those medians; min / median over the repeats.  What the speed-ups read, before and after
in one run: byler_d6 held-out, skovy_d6, the d20 desk (no d6: every sure reading is silent) and
epanemu_d6_oblique; "readings changed": readings (centre, value, confidence) not the same.

Phantoms, a lone photo (no empty table, no config, as `dicetable read IMAGE` reads it): photos of
real surfaces with no dice (negatives/, by source: held-out / train, training.dataset) and the
d20 desk (no d6; a d20 there is asked, not a phantom on an empty surface), the default reader with
the lone-photo rule off (today's main) and on (`PipDice.lone_median`); beside them byler_d6
held-out (read right, silent per 1,000 readings at the asking threshold; against the labels as
given and with benchmarks/byler_label_corrections.csv, the ruling of issue 19) and epanemu_d6_oblique
(every photo, a side check: what the rule costs on oblique photos the default reader reads unsurely;
photos CC BY 4.0, Epanemu/GameDiceRecognition, see its README).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, RESULTS, ROOT, imread, markdown_table, match_boxes, run_header, truth_of
from controller.config import TableSection
from training.baseline import read_dice_classic
from training.dataset import apply_corrections
from vision.numbered.combined import D6_AT_BOX, LONE_MEDIAN, PipDice
from vision.reader import DiceReader

ASK = float(TableSection.model_fields["confidence_threshold"].default)
EPANEMU = "epanemu_d6_oblique"


def epanemu(real: Path) -> list[tuple[str, np.ndarray, list[tuple[tuple[float, float, float, float], int]]]]:
    """The oblique set's photos with their labelled boxes (YOLO, class + 1 = value)."""
    root = real / EPANEMU
    out = []
    for p in sorted((root / "images").glob("*.jpg")):
        img = imread(p)
        h, w = img.shape[:2]
        truth = []
        for line in (root / "labels" / f"{p.stem}.txt").read_text().splitlines():
            if line.strip():
                c, cx, cy, bw, bh = (float(v) for v in line.split())
                x0, y0 = (cx - bw / 2) * w, (cy - bh / 2) * h
                truth.append(((x0, y0, x0 + bw * w, y0 + bh * h), int(c) + 1))
        out.append((p.name, img, truth))
    return out


def score(found: list[Any], truth: list[tuple[Any, int]]) -> tuple[int, int, int, int]:
    """(readings, right, silent, phantoms): silent = sure readings wrong or on no labelled die."""
    m = match_boxes([b for b, _ in truth], [d.center for d in found]) if truth else []
    used = {i: v for i, (_, v) in zip(m, truth, strict=True) if i is not None}
    right = sum(found[i].value == v for i, v in used.items())
    silent = sum(1 for i, d in enumerate(found) if d.confidence >= ASK and used.get(i) != d.value)
    return len(found), right, silent, len(found) - len(used)


Items = list[tuple[str, np.ndarray, list[Any]]]
#: the side of the no-dice photos' tiles (`tiles`)
TILE = 640


def tiles(img: np.ndarray, side: int = TILE) -> list[np.ndarray]:
    """`side` x `side` tiles of a photo (half a tile apart) at full size, 3/4 and 1/2 (a smaller
    photo whole), each scale whose shorter side is at least 200 px: more frames of the few no-dice
    photos there are, NOT independent of each other or of their photo (negatives/SOURCE.md)."""
    out = []
    for k in (1.0, 0.75, 0.5):
        im = img if k == 1.0 else cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        h, w = im.shape[:2]
        if min(h, w) < 200:
            continue
        ys = range(0, max(1, h - side + 1), side // 2)
        xs = range(0, max(1, w - side + 1), side // 2)
        out += [im[y : y + side, x : x + side] for y in ys for x in xs]
    return out


def tally(
    gname: str, rname: str, r: Any, items: Items, ref: list[list[Any]] | None = None
) -> tuple[list[str], list[list[Any]]]:
    """One row: reader `r` on the photos `items` (and how many of its readings differ from `ref`'s,
    by value or confidence, photo by photo), and its readings."""
    n = withr = readings = sure = labelled = right = silent = changed = 0
    got = []
    for k, (_, img, truth) in enumerate(items):
        found = r.read(img)
        got.append(found)
        if ref is not None:
            a = {(round(d.center[0]), round(d.center[1]), d.value, round(d.confidence, 4)) for d in found}
            b = {(round(d.center[0]), round(d.center[1]), d.value, round(d.confidence, 4)) for d in ref[k]}
            changed += max(len(a - b), len(b - a))
        k_, ok, s, _ = score(found, truth)
        n += 1
        withr += bool(found)
        readings += k_
        sure += sum(d.confidence >= ASK for d in found)
        labelled += len(truth)
        right += ok
        silent += s
    row = [
        gname,
        rname,
        str(n),
        f"{withr} ({100 * withr / max(n, 1):.1f})",
        f"{readings} / {sure}",
        str(labelled) if labelled else "-",
        harness.share(right, labelled) if labelled else "-",
        f"{1000 * silent / readings:.1f} ({silent}/{readings})" if readings else "-",
    ]
    if ref is not None:
        row.append(f"{changed}")
    return row, got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--view-search", choices=("every", "climb"), default="climb", help="the tilted reader's")
    ap.add_argument(
        "--phantoms-only",
        action="store_true",
        help="the phantoms' table alone (no timing, no before/after of the speed-ups)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        help="the report's file (default results/vision_d6_budget.md; vision_d6_budget_phantoms.md with "
        "--phantoms-only)",
    )
    harness.add_smoke(ap)
    args = ap.parse_args()
    if args.out is None and not args.smoke:
        args.out = RESULTS / ("vision_d6_budget_phantoms.md" if args.phantoms_only else "vision_d6_budget.md")
    cv2.setNumThreads(1)
    sets = {s.name: s for s in harness.real_sets(args.real)}
    if "byler_d6" not in sets:
        raise SystemExit(f"--real: no byler_d6 under {args.real} (expected the shared real photos)")
    byler = sets["byler_d6"]
    held = [(i, imread(i.path)) for i in byler.items if byler.split(i, None) == "held-out"]  # type: ignore[arg-type]
    if args.smoke:
        held, args.repeat = held[:3], 1
    plain = DiceReader()
    tilt_every = DiceReader(estimate_view=True, view_search="every")
    tilt = DiceReader(estimate_view=True, view_search=args.view_search)
    # before: the not-a-d6 check at every die's top face and turns, every view tried (main before
    # this change); after: the check's first look at the box (D6_AT_BOX), the views searched
    default_before, default = PipDice(plain, at_box=None), PipDice(plain)
    tilted_before = PipDice(tilt_every, lone_median=None, at_box=None)
    tilted = PipDice(tilt, lone_median=None)
    names = {
        "default before": "default reader before (not-a-d6 check at every top face)",
        "default": f"default reader (dicetable read: PipDice; first look at the box, {D6_AT_BOX})",
        "tilted before": "tilted reader before (every view, check at every top face)",
        "tilted": f"tilted reader (read --tilted; views: {args.view_search})",
    }
    objs = {
        "default before": default_before,
        "default": default,
        "tilted before": tilted_before,
        "tilted": tilted,
    }
    readers: dict[str, Callable[[np.ndarray], Any]] = {
        "classic pip reader": read_dice_classic,
        "pip reader alone (DiceReader)": plain.read,
        names["default before"]: default_before.read,
        names["default"]: default.read,
        names["tilted before"]: tilted_before.read,
        names["tilted"]: tilted.read,
    }
    for r in readers.values():
        r(held[0][1])  # models loaded before timing
    cpu: dict[str, list[list[float]]] = {k: [[] for _ in range(args.repeat)] for k in readers}
    for rep in range(0 if args.phantoms_only else args.repeat):
        for _, img in held:
            for name, r in readers.items():
                c = time.process_time()
                r(img)
                cpu[name][rep].append((time.process_time() - c) * 1000)
    med = (
        {k: [statistics.median(v) for v in reps] for k, reps in cpu.items()} if not args.phantoms_only else {}
    )
    refs = (med["classic pip reader"], med[names["default"]], med[names["default before"]]) if med else ()
    speed_rows = []
    for name, m in med.items():
        row = [name, f"{min(m):.1f} / {statistics.median(m):.1f}"]
        for ref in refs:
            x = [a / b for a, b in zip(m, ref, strict=True)]
            row.append(f"{min(x):.2f} / {statistics.median(x):.2f}")
        speed_rows.append(row)

    groups: list[tuple[str, Items]] = []
    for name in ("negatives (no dice)", "d20_desk_scenes (a d20, no d6)"):
        st = sets.get(name)
        if st is None:
            continue
        by: dict[str, Items] = {}
        for it in st.items:
            img = imread(it.path)
            by.setdefault(st.split(it, img), []).append((it.path.name, img, []))
        for split in ("held-out", "train"):
            groups.append((f"{name}, {split}", by.get(split, [])))
            if name.startswith("negatives"):
                tiled = [
                    (f"{n} tile {k}", t, [])
                    for n, img, _ in by.get(split, [])
                    for k, t in enumerate(tiles(img))
                ]
                groups.append(
                    (f"{name}, {split}: {TILE} px tiles at 3 scales (NOT independent photos)", tiled)
                )
    groups.append(("byler_d6, held-out", [(i.path.name, img, truth_of(i, img)) for i, img in held]))
    corrections = ROOT / "benchmarks" / "byler_label_corrections.csv"
    if corrections.is_file():
        fixed, n_fixed = apply_corrections(byler.items, corrections)
        by_path = {i.path: i for i in fixed}
        groups.append(
            (
                f"byler_d6, held-out, {n_fixed} labels corrected",
                [(i.path.name, img, truth_of(by_path[i.path], img)) for i, img in held],
            )
        )
    for name in ("skovy_d6/scenes",):
        if name in sets:
            loaded = [(i, imread(i.path)) for i in sets[name].items]
            groups.append((f"{name} (all)", [(i.path.name, img, truth_of(i, img)) for i, img in loaded]))
    if (args.real / EPANEMU / "images").is_dir():
        groups.append((f"{EPANEMU} (all, side check)", epanemu(args.real)))
    if args.smoke:
        groups = [(g, items[:2]) for g, items in groups]
    head = [
        "photos",
        "reader",
        "photos",
        "photos with a reading (per 100)",
        "readings / sure",
        "labelled dice",
        "read right",
        "silent per 1,000 readings",
    ]
    before, after = PipDice(plain, lone_median=None), PipDice(plain, lone_median=LONE_MEDIAN)
    rows = []
    for gname, items in groups:
        if gname.startswith("skovy"):
            continue
        for rname, r in (("rule off (before)", before), (f"rule on, median < {LONE_MEDIAN}", after)):
            rows.append(tally(gname, rname, r, items)[0])
    change_rows = []
    for gname, items in groups if not args.phantoms_only else []:
        if gname.startswith("negatives") or gname == "byler_d6, held-out":
            continue
        for a, b in (("default before", "default"), ("tilted before", "tilted")):
            row, ref = tally(gname, names[a], objs[a], items)
            change_rows.append([*row, "-"])
            change_rows.append(tally(gname, names[b], objs[b], items, ref)[0])
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    speed = (
        ""
        if args.phantoms_only
        else "## Speed: CPU ms a photo, min / median over the repeats of each repeat's median\n\n"
        + "\n".join(
            markdown_table(
                ["reader", "ms", "x classic", "x default reader", "x default reader before"], speed_rows
            )
        )
        + "\n\n## What the speed-ups read: before and after, same run\n\n"
        + "\n".join(markdown_table([*head, "readings changed (value or confidence)"], change_rows))
        + "\n\n"
    )
    text = (
        "# The pip-d6 reader's budget and a lone photo's phantoms (issue 46 items 4 and 5)\n\n"
        + run_header()
        + f"\nOne core (cv2.setNumThreads(1), onnxruntime one thread; run under taskset -c 0 and "
        f"OMP_NUM_THREADS=1); load average {load} at the end. {len(held)} byler_d6 held-out photos, "
        f"{args.repeat} repeats, every reader on each photo in turn.\n\n"
        + speed
        + "## Phantoms on a lone photo, and what the rule costs\n\n"
        + "\n".join(markdown_table(head, rows))
        + "\n\n"
        + __doc__.split("\n\n", 2)[2]
    )
    harness.write(text, args.out)


if __name__ == "__main__":
    main()
