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

A third column reads every scene again with the table told how many dice of which colours the game
expects (`benchmarks.end_to_end.game_counts`, as `controller.perceive.throw_colours` tells the table):
when every die is seen no die can rest on a die no frame shows (`calibration.memory.settle_supports`),
and the memory carries a covered die whose colour is short of the game's count.  Every column also
says which dice the game's count question covers (a colour short of its dice: "a die lying under another
cannot be seen: say its colour and value", asked by the engine before any other question): the die not
seen, and the die it lies under.  A reading is matched to the die whose top face is seen before a die
hidden under it (`benchmarks.scenes.match(visible_first=True)`).  ``--memory``: each scene is read
after its earlier frame (``SET/earlier``, `tools/render/generate.py --earlier`), the table's memory.

    nice -n 10 .venv/bin/python -m benchmarks.stack_asked [--set DIR ...] [--split all] [--limit N] \\
        [--memory] [--markdown FILE] [--smoke]
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
    ``asked_key`` ("before": support_hidden; "after": support_hidden or support_asked); "with the
    count question": also a die the game's count question covers (a die of the colour short lies
    under it, or it is the die not seen: `end_to_end.evaluate`'s ``count_asked``)."""

    def asked(d: dict[str, Any]) -> bool:
        return bool(d.get("support_hidden")) or (asked_key != "before" and bool(d.get("support_asked")))

    def colour_asked(d: dict[str, Any]) -> bool:
        return asked_key != "before" and bool(d.get("colour_asked"))

    found = [d for d in dice if d["found"]]
    up = [d for d in dice if d["stacked"]]
    wrong = [d for d in found if d["stack_got"] != d["stacked"]]
    missed = [d for d in dice if not d["found"]]
    return {
        "upper dice of stacks found as stacked or asked (target >= 95 %)": _ratio(
            sum(1 for d in up if d["found"] and (d["stack_got"] or asked(d))), len(up)
        ),
        "  ... or the game's count question asks for the die under it": _ratio(
            sum(1 for d in up if d["found"] and (d["stack_got"] or asked(d) or d["count_asked"])), len(up)
        ),
        "upper dice of stacks found as stacked (asked or not)": _ratio(
            sum(1 for d in up if d["found"] and d["stack_got"]), len(up)
        ),
        "upper dice of stacks not found at all": _ratio(sum(1 for d in up if not d["found"]), len(up)),
        "found dice whose support is wrong, not asked: silent (target <= 1 in 200)": _ratio(
            sum(1 for d in wrong if not asked(d)), len(found)
        ),
        "  ... nor covered by the game's count question": _ratio(
            sum(1 for d in wrong if not asked(d) and not d["count_asked"]), len(found)
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
        "dice not seen that the count question asks for (one question a die), of all dice": _ratio(
            sum(1 for d in missed if d["count_asked"]), len(dice)
        ),
        "dice missed silently (not seen, no count question), of all dice": _ratio(
            sum(1 for d in missed if not d["count_asked"]), len(dice)
        ),
        "questions about support or a die not seen, of all dice (target <= 5 %)": _ratio(
            sum(1 for d in found if asked(d)) + sum(1 for d in missed if d["count_asked"]), len(dice)
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
    ap.add_argument(
        "--memory",
        action="store_true",
        help="read each scene after its earlier frame (SET/earlier, generate.py --earlier): the table's "
        "memory across throws; only the scenes with one",
    )
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
        earlier = folder / "earlier" if args.memory and (folder / "earlier").is_dir() else None
        if args.memory and earlier is None:
            raise SystemExit(f"--memory: {folder}/earlier holds no earlier frames (generate.py --earlier)")
        if earlier is not None:  # only the scenes with an earlier frame are read (evaluate)
            scenes = [s for s in scenes if (earlier / f"scene_{s['scene']:04d}.json").exists()]
        old = evaluate(scenes, reader, earlier, empty=empty_frame, visible_first=True)
        new = evaluate(scenes, reader, earlier, empty=empty_frame, counts=True, visible_first=True)
        cols = [
            figures(old["dice"], "before"),
            figures(old["dice"], "after"),
            figures(new["dice"], "counts"),
        ]
        seeds = sorted({s["seed"] for s in scenes})
        title = f"{shown(folder)} ({scenes[0].get('variant', 'train')}, seed {', '.join(map(str, seeds))}; "
        title += f"{len(scenes)} scenes, {len(old['dice'])} dice"
        title += "; each read after its earlier frame)" if earlier else ")"
        out += [
            f"| {title} | before issue 45 | issue 45 item 4 as landed (`e0298ee`) | and the game's counts |",
            "|---|---|---|---|",
        ]
        out += [f"| {k} | {cols[0][k]} | {cols[1][k]} | {cols[2][k]} |" for k in cols[0]]
        out.append("")
    write("\n".join(out) + "\n", args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
