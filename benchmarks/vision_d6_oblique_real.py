"""Pip d6 on REAL oblique photos, by content group, and reliability per real set (issue 46 items 1, 2).

    nice -n 10 .venv/bin/python -m benchmarks.vision_d6_oblique_real [--tilted] [--value-net PATH] \
        [--view-confidence] [--out FILE.md] [--smoke]

Real held-out first.  ``epanemu_d6_oblique`` (397 phone photos at roughly 30-60 degrees, 1,400 pip
d6; photos CC BY 4.0, Epanemu/GameDiceRecognition, see the set's README.md and LICENSE.txt) is split
by content group in ``training/d6/epanemu_split.csv`` (``training.d6.epanemu``: held out every Catan
photo, the translucent dice on cloth and the desk scenes; train the single dice on a white table and
the groups of dice on cloth); beside it byler_d6 held-out (overhead, the audited label corrections
applied) and skovy_d6 held-out (scenes and crops, by photo, ``training.dataset``).

Each photo is read by each reader as ``dicetable read IMAGE`` reads it: the default reader
(``vision.numbered.combined.PipDice`` over ``vision.reader.DiceReader``); with ``--value-net PATH``
the same with a value net's second look (``DiceReader(value_net=PATH)``, ``vision.value_net``; one
made by ``training/d6/real_value.py``); with ``--tilted`` the tilted one (``read --tilted``:
``DiceReader(estimate_view=True)``, its lone-photo rule off); all in one run.  A reading is right
when its centre lies in a labelled die's box and reads its value (``benchmarks.harness.match_boxes``);
a reading on no labelled die is wrong.  Figures: read right (of the labelled dice), silent per 1,000
readings (wrong at or above the asking threshold: scored without a question), asked (readings under
it: the table asks the referee), labelled dice with no reading; then reliability bins (confidence
against the share right) per set and reader, drawn to a PNG beside the report; the median CPU ms
of this process a photo (one thread; on a shared machine a rough figure, benchmarks.vision_d6_budget
measures speed); and what a monotone confidence map fitted on the TRAIN groups would do.

With ``--view-confidence`` (issue 46 item 2) the run first reads the TRAIN photos (the epanemu
train groups and byler_d6 train) with the default reader, fits one monotone map per range of
view angle on them (``vision.confidence_view.fit_bars``; the angle told by each photo's top faces,
``photo_deg``), then reads every set with the default reader and with those maps
(``DiceReader(view_confidence=...)``): before and after in one run, nothing held out fitted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from benchmarks import confidence, harness
from benchmarks.harness import REAL, RESULTS, markdown_table, match_boxes, run_header, share, write
from controller.config import TableSection
from training.d6 import epanemu
from training.dataset import apply_corrections, is_held_out, load_all, read_image
from vision import confidence_view
from vision.confidence_view import ViewConfidence
from vision.numbered.combined import PipDice
from vision.reader import DiceReader

ASK = float(TableSection.model_fields["confidence_threshold"].default)
Truth = list[tuple[tuple[float, float, float, float], int]]
#: (reading centre, value, confidence) per reading
Found = list[tuple[tuple[float, float], int, float]]
DEFAULT = "default (dicetable read)"
VALUE = "default + value net (tried)"
TILTED = "tilted (read --tilted)"
VIEWMAP = "default + view-angle maps (fitted on train)"
COLOURS = {DEFAULT: (200, 120, 30), VALUE: (60, 60, 220), TILTED: (40, 160, 40), VIEWMAP: (30, 30, 30)}


def readers(
    value_net: Path | None, tilted: bool, view_map: ViewConfidence | None = None
) -> dict[str, Callable[[np.ndarray, str], Found]]:
    """The readers compared: the table's default; with `value_net`, the same with that value net's
    second look (``DiceReader(value_net=PATH)``, vision.value_net); with `tilted`, ``read --tilted``."""

    def run(pips: DiceReader, lone: bool = True) -> Callable[[np.ndarray, str], Found]:
        r = PipDice(pips) if lone else PipDice(pips, lone_median=None)

        def read(img: np.ndarray, kind: str) -> Found:
            if kind == "crops":
                d = pips.read_crop(img)
                return [(d.center, d.value, d.confidence)]
            return [(d.center, d.value, d.confidence) for d in r.read(img)]

        return read

    out = {DEFAULT: run(DiceReader())}
    if view_map is not None:
        out[VIEWMAP] = run(DiceReader(view_confidence=view_map))
    if value_net is not None:
        out[VALUE] = run(DiceReader(value_net=value_net))
    if tilted:
        out[TILTED] = run(DiceReader(estimate_view=True), False)
    return out


def fitted_bar(rows: list[tuple[float, bool]]) -> float:
    """The confidence a monotone map fitted on these (TRAIN) readings would send to the asking
    threshold: just above the surest wrong one (ASK when none at or above it is wrong)."""
    wrong = [c for c, ok in rows if not ok and c >= ASK]
    return min(0.9999, max(wrong) + 0.001) if wrong else ASK


def train_photos(real: Path, limit: int | None) -> list[tuple[np.ndarray, Truth]]:
    """The TRAIN photos the view-angle maps are fitted on: the epanemu train groups, byler_d6 train
    (its audited label corrections applied)."""
    photos = [p for p in epanemu.load(real) if p.split == "train"]
    out = [(harness.imread(p.path), list(p.dice)) for p in harness.spaced(photos, limit)]
    byler = load_all(real)["byler_d6"]
    if confidence.CORRECTIONS.is_file():
        byler = apply_corrections(byler, confidence.CORRECTIONS)[0]
    train = harness.spaced([i for i in byler if not is_held_out(i.path.name)], limit)
    for item in train:
        img = read_image(item.path)
        out.append((img, harness.truth_of(item, img)))
    return out


def fit_view_map(
    real: Path, limit: int | None
) -> tuple[ViewConfidence, dict[int, tuple[int, int]], list[float]]:
    """The view-angle maps fitted on the TRAIN photos (``train_photos``) read by the default reader,
    per range the TRAIN readings and those wrong at the asking threshold, and the maps' own CPU ms
    a TRAIN photo (``ViewConfidence.apply``: the view angle told and every reading mapped)."""
    pips = DiceReader()
    r = PipDice(pips)
    rows: list[tuple[float, bool, float]] = []
    readings = []
    for img, truth in train_photos(real, limit):
        found = r.read(img)
        readings.append(found)
        degs = confidence_view.view_degs(found, None)
        m = match_boxes([b for b, _ in truth], [f.center for f in found])
        value_of = {i: v for i, (_, v) in zip(m, truth, strict=True) if i is not None}
        rows += [
            (f.confidence, value_of.get(i) == f.value, d)
            for i, (f, d) in enumerate(zip(found, degs, strict=True))
        ]
    edges = confidence_view.EDGES
    vc = ViewConfidence(edges, confidence_view.fit_bars(rows, edges, ASK))
    counts: dict[int, tuple[int, int]] = {}
    for c, ok, d in rows:
        n, w = counts.get(vc.range_of(d), (0, 0))
        counts[vc.range_of(d)] = (n + 1, w + (c >= ASK and not ok))
    ms = []
    for found in readings:
        t = time.process_time()
        for _ in range(20):
            vc.apply(found)
        ms.append(1000 * (time.process_time() - t) / 20)
    return vc, counts, ms


def sets(real: Path, limit: int | None) -> list[tuple[str, str, list[tuple[np.ndarray, Truth]]]]:
    """(set name, kind, [(image, truth)]): epanemu by content group (held-out groups first), then
    the other real held-out sets (benchmarks.confidence.real_sets, less its no-d6 photos)."""
    photos = epanemu.load(real)
    if not photos:
        raise SystemExit(f"--real: no {epanemu.SET}/images under {real} (expected the shared real photos)")
    out: list[tuple[str, str, list[tuple[np.ndarray, Truth]]]] = []
    for split in ("held-out", "train"):
        for group in epanemu.GROUPS:
            items = [p for p in photos if p.group == group and p.split == split]
            if items:
                items = harness.spaced(items, limit)
                loaded = [(harness.imread(p.path), list(p.dice)) for p in items]
                out.append((f"epanemu {group} ({split})", "scene", loaded))
    for name, kind, items in confidence.real_sets(real, limit):
        if "no d6" not in name:
            out.append((name, kind, items))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--out", type=Path, help="the report (default results/vision_d6_oblique_real.md)")
    ap.add_argument("--value-net", type=Path, help="the value net's ONNX file (default: the shipped one)")
    ap.add_argument(
        "--tilted", action="store_true", help="the tilted reader (read --tilted) too, before and after"
    )
    ap.add_argument(
        "--view-confidence",
        action="store_true",
        help="fit the view-angle confidence maps on the TRAIN photos, then read every set with them too",
    )
    harness.add_smoke(ap)
    args = ap.parse_args()
    if args.out is None and not args.smoke:
        args.out = RESULTS / "vision_d6_oblique_real.md"
    if args.value_net is not None and not args.value_net.is_file():
        raise SystemExit(f"--value-net: {args.value_net} is not a file (expected the value net's ONNX)")
    cv2.setNumThreads(1)
    view_map, fit_counts, map_ms = None, {}, [0.0]
    if args.view_confidence:
        view_map, fit_counts, map_ms = fit_view_map(args.real, 2 if args.smoke else None)
        print("view-angle maps:", view_map, fit_counts, flush=True)
    rd = readers(args.value_net, args.tilted, view_map)
    confidence.COLOURS.update(COLOURS)
    summary, bins, panels = [], [], []
    # labelled, right, readings, silent, asked: every held-out group together
    held_rows: dict[str, list[int]] = {n: [0, 0, 0, 0, 0] for n in rd}
    for name, kind, items in sets(args.real, 2 if args.smoke else None):
        by_reader: dict[str, list[tuple[float, bool]]] = {}
        for rname, read in rd.items():
            labelled = right = readings = silent = asked = missed = 0
            scored: list[tuple[float, bool]] = []
            ms: list[float] = []
            for img, truth in items:
                t = time.process_time()
                found = read(img, kind)
                ms.append(1000 * (time.process_time() - t))
                m = match_boxes([b for b, _ in truth], [f[0] for f in found])
                value_of = {i: v for i, (_, v) in zip(m, truth, strict=True) if i is not None}
                labelled += len(truth)
                missed += sum(i is None for i in m)
                right += sum(found[i][1] == v for i, v in value_of.items())
                readings += len(found)
                for i, (_, v, c) in enumerate(found):
                    ok = value_of.get(i) == v
                    scored.append((float(c), ok))
                    silent += c >= ASK and not ok
                    asked += c < ASK
            by_reader[rname] = scored
            if name.startswith("epanemu") and "held-out" in name:
                for k, n in enumerate((labelled, right, readings, silent, asked)):
                    held_rows[rname][k] += n
            summary.append(
                [
                    name,
                    rname,
                    labelled,
                    share(right, labelled),
                    f"{1000 * silent / readings:.1f} ({silent}/{readings})" if readings else "-",
                    share(asked, readings, 1),
                    missed,
                    f"{statistics.median(ms):.1f}" if ms else "-",
                ]
            )
            for lo, hi, count, n_ok, mean in confidence.bins_of(scored):
                if count:
                    bins.append([name, rname, f"{lo:g}-{hi:g}", count, f"{mean:.3f}", share(n_ok, count)])
        panels.append((name, by_reader))
        print(name, flush=True)
    for rname, (labelled, right, readings, silent, asked) in reversed(held_rows.items()):
        summary.insert(
            0,
            [
                "**epanemu, every held-out group**",
                rname,
                labelled,
                share(right, labelled),
                f"{1000 * silent / readings:.1f} ({silent}/{readings})" if readings else "-",
                share(asked, readings, 1),
                "",
                "",
            ],
        )
    # a monotone confidence map fitted on the epanemu TRAIN groups (each reader's own): its bar
    # (the raw confidence sent to the asking threshold) and what it does on every set
    fitted = []
    for rname in rd:
        train = [
            r for name, by in panels if name.startswith("epanemu") and "(train)" in name for r in by[rname]
        ]
        bar = fitted_bar(train)
        for name, by in panels:
            rows = by[rname]
            sure = [ok for c, ok in rows if c >= bar]
            fitted.append(
                [
                    name,
                    rname,
                    f"{bar:.4f}",
                    f"{len(sure) - sum(sure)} of {len(sure)}",
                    share(len(rows) - len(sure), len(rows), 1),
                ]
            )
    fit_text = []
    if view_map is not None:
        bounds = [0.0, *view_map.edges, 90.0]
        ranges = [
            f"{bounds[k]:g}-{bounds[k + 1]:g} deg: bar {b:.4f}, {fit_counts.get(k, (0, 0))[1]} wrong at "
            f">= {ASK:g} of {fit_counts.get(k, (0, 0))[0]} train readings"
            for k, b in enumerate(view_map.bars)
        ]
        fit_text = [
            "View-angle maps fitted on the TRAIN photos (epanemu white_table, cloth_groups; byler_d6 "
            "train), by the photo's view angle told by its top faces: " + "; ".join(ranges) + ". "
            f"The maps' own CPU ms a TRAIN photo (the angle told, every reading mapped): median "
            f"{statistics.median(map_ms):.3f}, max {max(map_ms):.3f}.",
            "",
        ]
    png = (args.out or RESULTS / "vision_d6_oblique_real.md").with_suffix(".png")
    text = "\n".join(
        [
            "# Pip d6 on real oblique photos by content group; reliability per real set (issue 46)",
            "",
            run_header(),
            "",
            __doc__.split("\n\n", 2)[2].strip(),
            "",
            f"Asking threshold {ASK:g}: a reading under it is asked, never scored silently.",
            "",
            *markdown_table(
                [
                    "set",
                    "reader",
                    "labelled dice",
                    "read right",
                    f"silent per 1,000 readings (wrong at >= {ASK:g})",
                    "asked",
                    "labelled dice with no reading",
                    "median CPU ms a photo",
                ],
                summary,
            ),
            "",
            "A confidence map fitted on the epanemu TRAIN groups only (monotone: the raw confidence "
            "just above the surest wrong TRAIN reading sent to the asking threshold), each reader's "
            "own, applied to every set: wrong of the readings it would score unasked, and asked.",
            "",
            *markdown_table(["set", "reader", "fitted bar (raw)", "wrong at >= bar", "asked"], fitted),
            "",
            *fit_text,
            f"Reliability diagrams: [{png.name}]({png.name}). Bins:",
            "",
            *markdown_table(
                ["set", "reader", "confidence", "readings", "mean confidence", "read right"], bins
            ),
            "",
            "Photos of epanemu_d6_oblique: CC BY 4.0, Epanemu/GameDiceRecognition.",
            "",
        ]
    )
    if not args.smoke:
        confidence.draw(panels, png)
    write(text, args.out)


if __name__ == "__main__":
    main()
