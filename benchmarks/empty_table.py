"""The empty table finds dice (issue 30 items 1, 3, 4): each rendered set read end to end as the table
reads it (`benchmarks/end_to_end.py`: the table's own perception step, default `[vision]`), WITHOUT and
WITH the scene's empty table (same camera, board and light, no dice, a little exposure drift and its
own sensor noise: `make_scene(..., empty=True)`), in one run.

    nice -n 10 .venv/bin/python tools/render/generate.py --variant heldout --seed SEED --count 100 \\
        --empty --out /tmp/dicetable_e30
    nice -n 10 .venv/bin/python -m benchmarks.empty_table --set /tmp/dicetable_e30 \\
        --set tests/fixtures/lowcontrast [--limit N] [--markdown FILE.md]

A folder without ``empty/`` has its empty tables rendered on the fly (deterministic from each scene's
seed and index).  Figures per set and setting: dice found, phantoms, colour right, upper dice of
stacks found as stacked (precision / recall, one frame), per-die score right (DICETAR WARS engine),
scenes with every colour's total exact, CPU ms a frame; then the whole end-to-end tables of the
setting with the empty table.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.end_to_end import evaluate, markdown, summary
from benchmarks.harness import ROOT, add_scene_sets, add_smoke, run_header
from benchmarks.scenes import empty_frame, load_scenes
from controller.config import VisionSection
from vision.reader import default_reader

ROWS = (
    ("scenes (frames)", "scenes"),
    ("dice", "dice"),
    ("dice found (target >= 99 %)", "dice found (target >= 99.5 %)"),
    ("dice found, leaving out the dice under another die", "dice found, not under another die"),
    ("phantoms: readings of a game colour on no die (target 0)", "phantoms (target 0)"),
    ("value right, all dice (missed = wrong)", "value right (missed = wrong)"),
    (
        "colour right, all dice (board-balanced, game colours only; missed = wrong)",
        "colour right (missed = wrong)",
    ),
    (
        "upper dice of stacks found as stacked, one frame: precision (target >= 95 %)",
        "stacked found as stacked, one frame: precision",
    ),
    (
        "upper dice of stacks found as stacked, one frame: recall (target >= 95 %)",
        "stacked found as stacked, one frame: recall (target >= 95 %)",
    ),
    ("per-die score right, DICETAR WARS engine (target >= 99 %)", "per-die score right (target >= 99 %)"),
    (
        "scenes with every colour's total exact, DICETAR WARS (target >= 90 %)",
        "scenes with every colour's total exact (target >= 95 %)",
    ),
    (
        "CPU ms a 1280x960 frame with its board, one core: median / p95 (target <= 60)",
        "CPU ms a frame, median / p95 (target <= 60)",
    ),
)


def compare(results: dict[str, dict[str, Any]], title: str) -> str:
    """One set's rows, without and with the empty table side by side."""
    a, b = dict(summary(results["without"])), dict(summary(results["with"]))
    lines = [f"| {title} | without the empty table | with the empty table |", "|---|---|---|"]
    lines += [f"| {name} | {a[key]} | {b[key]} |" for key, name in ROWS]
    unsure = sum(1 for p in results["with"]["phantoms"] if p.get("unsure"))
    lines.append(f"| phantoms with the empty table that the table asks about | - | {unsure} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_sets(ap)
    ap.add_argument("--vision", action="append", default=[], help="[vision] KEY=true|false for both settings")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    sets = args.set or [ROOT / "tests" / "fixtures" / "lowcontrast"]
    if args.smoke:
        args.limit = 2
    overrides: dict[str, Any] = {}
    for kv in args.vision:
        key, _, val = kv.partition("=")
        overrides[key.strip()] = val.strip().lower() in ("1", "true", "yes", "on")
    vision = VisionSection(**overrides)
    reader = default_reader()
    out = [run_header(), ""]
    for folder in sets:
        scenes = load_scenes(args.split, folder)
        if args.limit:
            scenes = scenes[: args.limit]
        if not scenes:
            raise SystemExit(f"--set {folder}: expected a folder of scene_NNNN.json files, found none")
        res = {
            "without": evaluate(scenes, reader, vision=vision),
            "with": evaluate(scenes, reader, vision=vision, empty=empty_frame),
        }
        seeds = sorted({s["seed"] for s in scenes})
        variant = scenes[0].get("variant", "train")
        title = f"{folder} ({variant}, seed {', '.join(map(str, seeds))})"
        out += [compare(res, title), ""]
        out += [markdown(res["with"], f"{title}, with the empty table"), ""]
        print("\n".join(out[-4:]), flush=True)
    text = "\n".join(out)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
