"""Stacks asked, never silent (issue 45 item 4): each rendered set read end to end as the table reads
it with its empty table (`benchmarks/end_to_end.py`, `benchmarks/empty_table.py`), and each die's
support judged two ways in the same run: before issue 45 (only a raised die with no die seen under it
is asked: ``support_hidden``) and after (also every die whose support the frame cannot tell,
`calibration.geometry` ``support_doubt``: the sides cue near its threshold, or a die touching
another whose order the frame's overlaps do not tell; the table's memory answers what it can).

Figures: upper dice of stacks found as stacked or asked (target >= 95 %); found dice whose support
is wrong (flat for stacked, or stacked for flat) and not asked: silent; dice asked about their
support, of those found; dice of stacks not found at all.  And the owner's colour (item 3): found dice
named in the wrong colour and not asked whose they are (before: none asked; after: a die whose colour
lies between two of the scene's colours, `DieReading.colour_near`), and the dice asked.  The colours
are read as the table reads them today in both columns (the body told from the paper round it).

    nice -n 10 .venv/bin/python -m benchmarks.stack_asked [--set DIR ...] [--split all] [--limit N] \\
        [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.end_to_end import evaluate
from benchmarks.harness import RENDERED, add_scene_sets, add_smoke, run_header, shown, write
from benchmarks.scenes import empty_frame, load_scenes
from vision.reader import default_reader


def _ratio(ok: int, n: int) -> str:
    return f"{100.0 * ok / n:.2f} % ({ok}/{n})" if n else "n/a (0)"


def figures(dice: list[dict[str, Any]], asked_key: str) -> dict[str, str]:
    """The support figures of a set's dice rows (`end_to_end.evaluate`), a die asked when any of
    ``asked_key`` ("before": support_hidden; "after": support_hidden or support_asked)."""

    def asked(d: dict[str, Any]) -> bool:
        return bool(d.get("support_hidden")) or (asked_key == "after" and bool(d.get("support_asked")))

    def colour_asked(d: dict[str, Any]) -> bool:
        return asked_key == "after" and bool(d.get("colour_asked"))

    found = [d for d in dice if d["found"]]
    up = [d for d in dice if d["stacked"]]
    wrong = [d for d in found if d["stack_got"] != d["stacked"]]
    return {
        "upper dice of stacks found as stacked or asked (target >= 95 %)": _ratio(
            sum(1 for d in up if d["found"] and (d["stack_got"] or asked(d))), len(up)
        ),
        "upper dice of stacks found as stacked (asked or not)": _ratio(
            sum(1 for d in up if d["found"] and d["stack_got"]), len(up)
        ),
        "upper dice of stacks not found at all": _ratio(sum(1 for d in up if not d["found"]), len(up)),
        "found dice whose support is wrong, not asked: silent (target <= 1 in 200)": _ratio(
            sum(1 for d in wrong if not asked(d)), len(found)
        ),
        "  of which stacked dice placed flat": str(sum(1 for d in wrong if d["stacked"] and not asked(d))),
        "  of which flat dice placed stacked": str(
            sum(1 for d in wrong if not d["stacked"] and not asked(d))
        ),
        "found dice asked about their support (target: all asked <= 5 %)": _ratio(
            sum(1 for d in found if asked(d)), len(found)
        ),
        "  of which their support was right as placed": str(
            sum(1 for d in found if asked(d) and d["stack_got"] == d["stacked"])
        ),
        "found dice of the wrong colour, not asked whose: silent (colour target >= 99 % right)": _ratio(
            sum(1 for d in found if not d["colour_ok"] and not colour_asked(d)), len(found)
        ),
        "found dice asked whose they are (between two of the scene's colours)": _ratio(
            sum(1 for d in found if colour_asked(d)), len(found)
        ),
        "  of which named right as read": str(sum(1 for d in found if colour_asked(d) and d["colour_ok"])),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_sets(ap)
    ap.add_argument("--markdown", type=Path, help="also write the tables to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    sets = args.set or [RENDERED]
    if args.smoke:
        args.limit = 2
    reader = default_reader()
    out = [run_header(argv, "benchmarks.stack_asked"), ""]
    for folder in sets:
        scenes = load_scenes(args.split, folder)
        if args.limit:
            scenes = scenes[: args.limit]
        if not scenes:
            raise SystemExit(f"--set {folder}: expected a folder of scene_NNNN.json files, found none")
        res = evaluate(scenes, reader, empty=empty_frame)
        before, after = figures(res["dice"], "before"), figures(res["dice"], "after")
        seeds = sorted({s["seed"] for s in scenes})
        title = f"{shown(folder)} ({scenes[0].get('variant', 'train')}, seed {', '.join(map(str, seeds))}; "
        title += f"{len(scenes)} scenes, {len(res['dice'])} dice)"
        out += [f"| {title} | before (issue 45 off) | after |", "|---|---|---|"]
        out += [f"| {k} | {before[k]} | {after[k]} |" for k in before]
        out.append("")
    write("\n".join(out) + "\n", args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
