"""Every die found (issue 45 item 1): the dice the table misses on rendered DICETAR WARS scenes read
with their empty table (as `benchmarks.end_to_end` reads them), each with a guess at its cause and its
crop written to ``--crops``, counted by cause.

Causes (first that applies): under another die; on another die (upper die of a stack); cocked;
touching another die (faces under 1.15 edges apart); beside another die (under 1.6 edges); at the
board's edge or on its lines (within 2 mm of a zone's or the field's edge, or off the field); dark die
(black / navy / purple / ...) ; on its own colour; in plain view.  Each scene is read as the table
reads it now, told the game's count of dice (`benchmarks.end_to_end.game_counts`), and a missed die of
a colour short of that count is asked by the game's count question (not silent); a reading is matched
to the die whose top face is seen before a die hidden under it.

    nice -n 10 .venv/bin/python -m benchmarks.missed_dice --set DIR [--board dicetar-wars] \\
        [--limit N] [--crops DIR] [--markdown FILE] [--before] [--before-wide] [--before-outline]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import vision.empty_diff as empty_diff
import vision.face as face
from benchmarks.end_to_end import game_counts, read_scene
from benchmarks.harness import RENDERED, run_header, shown, write
from benchmarks.scenes import empty_frame, load_scenes, match
from vision.reader import default_reader

DARK = {"black", "navy", "purple", "brown", "maroon", "smoke", "grey", "gray", "darkgreen", "blue"}


def cause(i: int, dice: list[dict[str, Any]]) -> str:
    """The first cause that applies to truth die ``i`` of a scene."""
    d = dice[i]
    if any(o["rests_on"] == i for o in dice):
        return "under another die"
    if d["stack_level"] > 0:
        return "on another die (stack)"
    if d.get("cocked"):
        return "cocked"
    c = np.asarray(d["center_mm"], np.float64)
    near = min(
        (
            float(np.hypot(*(np.asarray(o["center_mm"]) - c))) / d["size_mm"]
            for k, o in enumerate(dice)
            if k != i
        ),
        default=99.0,
    )
    if near < 1.15:
        return "touching another die"
    if near < 1.6:
        return "beside another die"
    if float(d.get("clearance_mm", 99.0)) < 2.0 or d.get("field_status") == "off":
        return "board's edge or its lines"
    if d["colour"] in DARK:
        return "dark die"
    if (d["colour"] == "white" and not d["zones"]) or (d["colour"] == "red" and d["min_multiplier"] == 8):
        return "on its own colour"
    return "in plain view"


def run(scenes: list[dict[str, Any]], crops: Path | None) -> dict[str, Any]:
    cv2.setNumThreads(1)
    reader = default_reader()
    boards: dict[str, Any] = {}
    total = found = phantoms = sure_phantoms = value_ok = count_asked = 0
    by: Counter[str] = Counter()
    of_kind: Counter[str] = Counter()
    rows = []
    for truth in scenes:
        rule = game_counts(truth)  # as the table is told (controller.perceive.throw_colours)
        got = read_scene(truth, reader, boards, None, None, empty_frame(truth), expected=rule)
        readings = got["readings"]
        dice = truth["dice"]
        pairs = match(dice, [np.asarray(r["center"], np.float64) for r in readings], visible_first=True)
        # the game's count question: a group of colours short of its dice (the engine asks where the
        # die not seen lies before it scores the throw: "a die lying under another cannot be seen")
        short = [
            k.split("|")
            for k, n in (rule or {}).items()
            if sum(1 for r in readings if r["colour"] in k.split("|")) < n
        ]
        matched = set(pairs.values())
        for j, r in enumerate(readings):
            if j not in matched:
                phantoms += 1
                sure_phantoms += float(r.get("confidence", 0.0)) >= 0.8
        img = None
        for i, d in enumerate(dice):
            total += 1
            why = cause(i, dice)
            of_kind[why] += 1
            if i in pairs:
                found += 1
                value_ok += readings[pairs[i]]["value"] == d["value"]
                continue
            by[why] += 1
            asked = any(d["colour"] in g for g in short)
            count_asked += asked
            if not asked:
                by["  silent: " + why] += 1
            q = np.asarray(d["top_quad_px"], np.float64)
            row = {
                "scene": truth["scene"],
                "die": i,
                "cause": why,
                "count_asked": asked,
                "colour": d["colour"],
                "size": d["size_mm"],
                "centre": [round(float(v)) for v in q.mean(axis=0)],
            }
            rows.append(row)
            if crops is not None:
                if img is None:
                    img = cv2.imread(str(Path(truth["_dir"]) / truth["image"]), cv2.IMREAD_COLOR)
                x, y = (int(v) for v in q.mean(axis=0))
                h = 40
                crop = img[max(0, y - h) : y + h, max(0, x - h) : x + h]
                crops.mkdir(parents=True, exist_ok=True)
                name = f"s{truth['scene']:04d}_d{i:02d}_{why.split()[0]}_{d['colour']}.png"
                cv2.imwrite(
                    str(crops / name), cv2.resize(crop, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
                )
    return {
        "total": total,
        "found": found,
        "phantoms": phantoms,
        "sure_phantoms": sure_phantoms,
        "value_ok": value_ok,
        "count_asked": count_asked,
        "by": by,
        "of_kind": of_kind,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, action="append", help="a folder of rendered scenes with empty/")
    ap.add_argument("--board", default="dicetar-wars", help="only scenes of this board ('' for all)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--crops", type=Path, help="write each missed die's crop (x3) here")
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--list", action="store_true", help="also list every missed die")
    ap.add_argument(
        "--before",
        action="store_true",
        help="also read each set before issue 45 item 1 (the top-face rule off)",
    )
    ap.add_argument(
        "--before-wide",
        action="store_true",
        help="also read each set with any change wider than 2.4 dice dropping the dice beside it "
        "(before issue 45 item 1's third turn: a wide shadow alone drops nothing)",
    )
    ap.add_argument(
        "--before-outline",
        action="store_true",
        help="also read each set without a die's outline filled (before issue 45 item 1's third turn)",
    )
    args = ap.parse_args(argv)
    out = [run_header(argv, "benchmarks.missed_dice"), ""]
    for folder in args.set or [RENDERED]:
        scenes = [s for s in load_scenes("all", folder) if not args.board or s["board"] == args.board]
        if args.limit:
            scenes = scenes[: args.limit]
        runs = [("before: top-face rule off", False, True, True)] if args.before else []
        runs += (
            [("before: a wide shadow drops the dice beside it", True, False, False)]
            if args.before_wide
            else []
        )
        runs += [("before: no outline filled", True, True, False)] if args.before_outline else []
        for label, top_first, shadow_ok, outline in [*runs, ("", True, True, True)]:
            face.TOP_FACE_FIRST = top_first
            empty_diff.SHADOW_NOT_WIDE = shadow_ok
            empty_diff.FILL_OUTLINES = outline
            res = run(scenes, args.crops)
            out += _report(res, f"{shown(folder)}{f' ({label})' if label else ''}", len(scenes))
            if args.list:
                out += [str(r) for r in res["rows"]]
        face.TOP_FACE_FIRST = True
        empty_diff.SHADOW_NOT_WIDE = True
        empty_diff.FILL_OUTLINES = True
    write("\n".join(out) + "\n", args.markdown)
    return 0


def _report(res: dict[str, Any], name: str, scenes: int) -> list[str]:
    """One set's figures and its misses by cause."""
    n, f = res["total"], res["found"]
    stacked = ("under another die", "on another die (stack)")
    n_flat = n - sum(res["of_kind"][k] for k in stacked)
    f_flat = n_flat - sum(v for k, v in res["by"].items() if k not in stacked and not k.startswith(" "))
    out = [
        f"{name}: {scenes} scenes, {n} dice: found {100 * f / max(n, 1):.2f} % ({f}/{n}); "
        f"dice not in a stack found {100 * f_flat / max(n_flat, 1):.2f} % ({f_flat}/{n_flat}); "
        f"phantoms {res['phantoms']} ({res['sure_phantoms']} at >= 0.8); value right of found "
        f"{100 * res['value_ok'] / max(f, 1):.2f} % ({res['value_ok']}/{f}); found or asked by the game's "
        f"count question {100 * (f + res['count_asked']) / max(n, 1):.2f} % ({f + res['count_asked']}/{n}), "
        f"missed silently {n - f - res['count_asked']}",
        "",
        "| cause (first that applies) | missed | dice of that kind |",
        "|---|---|---|",
    ]
    out += [
        f"| {k} | {res['by'][k]} (silently {res['by']['  silent: ' + k]}) | {res['of_kind'][k]} |"
        for k, _ in res["of_kind"].most_common()
    ]
    out.append("")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
