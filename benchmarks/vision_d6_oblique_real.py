"""Pip d6 on REAL oblique photos, by content group, and reliability per real set (issue 46 items 1, 2).

    nice -n 10 .venv/bin/python -m benchmarks.vision_d6_oblique_real [--out FILE.md] [--smoke]

Real held-out first.  ``epanemu_d6_oblique`` (397 phone photos at roughly 30-60 degrees, 1,400 pip
d6; photos CC BY 4.0, Epanemu/GameDiceRecognition, see the set's README.md and LICENSE.txt) is split
by content group in ``training/d6/epanemu_split.csv`` (``training.d6.epanemu``: held out every Catan
photo, the translucent dice on cloth and the desk scenes; train the single dice on a white table and
the groups of dice on cloth); beside it byler_d6 held-out (overhead, the audited label corrections
applied) and skovy_d6 held-out (scenes and crops, by photo, ``training.dataset``).

Each photo is read by each reader as ``dicetable read IMAGE`` reads it: the default reader
(``vision.numbered.combined.PipDice`` over ``vision.reader.DiceReader``) before issue 46 item 1 (no
value net: ``DiceReader(value_net=None)``) and now (its second look by ``vision.value_net``), in one
run; with ``--tilted`` the tilted one too (``read --tilted``: ``DiceReader(estimate_view=True)``, its
lone-photo rule off), before and after.  A reading is right
when its centre lies in a labelled die's box and reads its value (``benchmarks.harness.match_boxes``);
a reading on no labelled die is wrong.  Figures: read right (of the labelled dice), silent per 1,000
readings (wrong at or above the asking threshold: scored without a question), asked (readings under
it: the table asks the referee), labelled dice with no reading; then reliability bins (confidence
against the share right) per set and reader, drawn to a PNG beside the report.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from benchmarks import confidence, harness
from benchmarks.harness import REAL, RESULTS, markdown_table, match_boxes, run_header, share, write
from controller.config import TableSection
from training.d6 import epanemu
from vision.numbered.combined import PipDice
from vision.reader import DiceReader

ASK = float(TableSection.model_fields["confidence_threshold"].default)
Truth = list[tuple[tuple[float, float, float, float], int]]
#: (reading centre, value, confidence) per reading
Found = list[tuple[tuple[float, float], int, float]]
BEFORE, AFTER = "default, no value net (before)", "default (dicetable read)"
TILTED_BEFORE, TILTED = "tilted, no value net (before)", "tilted (read --tilted)"
COLOURS = {BEFORE: (60, 60, 220), AFTER: (200, 120, 30), TILTED_BEFORE: (160, 60, 160), TILTED: (40, 160, 40)}


def readers(value_net: Path | None, tilted: bool) -> dict[str, Callable[[np.ndarray, str], Found]]:
    """The readers compared, before (no value net, ``DiceReader(value_net=None)``) and after (the
    shipped ``vision/models/d6_value_real.onnx``, or `value_net`)."""
    after: Path | Literal["default"] = value_net or "default"

    def run(pips: DiceReader, lone: bool = True) -> Callable[[np.ndarray, str], Found]:
        r = PipDice(pips) if lone else PipDice(pips, lone_median=None)

        def read(img: np.ndarray, kind: str) -> Found:
            if kind == "crops":
                d = pips.read_crop(img)
                return [(d.center, d.value, d.confidence)]
            return [(d.center, d.value, d.confidence) for d in r.read(img)]

        return read

    out = {BEFORE: run(DiceReader(value_net=None)), AFTER: run(DiceReader(value_net=after))}
    if tilted:
        out[TILTED_BEFORE] = run(DiceReader(estimate_view=True, value_net=None), False)
        out[TILTED] = run(DiceReader(estimate_view=True, value_net=after), False)
    return out


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
    harness.add_smoke(ap)
    args = ap.parse_args()
    if args.out is None and not args.smoke:
        args.out = RESULTS / "vision_d6_oblique_real.md"
    if args.value_net is not None and not args.value_net.is_file():
        raise SystemExit(f"--value-net: {args.value_net} is not a file (expected the value net's ONNX)")
    cv2.setNumThreads(1)
    rd = readers(args.value_net, args.tilted)
    confidence.COLOURS.update(COLOURS)
    summary, bins, panels = [], [], []
    # labelled, right, readings, silent, asked: every held-out group together
    held_rows: dict[str, list[int]] = {n: [0, 0, 0, 0, 0] for n in rd}
    for name, kind, items in sets(args.real, 2 if args.smoke else None):
        by_reader: dict[str, list[tuple[float, bool]]] = {}
        for rname, read in rd.items():
            labelled = right = readings = silent = asked = missed = 0
            scored: list[tuple[float, bool]] = []
            for img, truth in items:
                found = read(img, kind)
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
                ]
            )
            for lo, hi, count, ok, mean in confidence.bins_of(scored):
                if count:
                    bins.append([name, rname, f"{lo:g}-{hi:g}", count, f"{mean:.3f}", share(ok, count)])
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
            ],
        )
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
                ],
                summary,
            ),
            "",
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
