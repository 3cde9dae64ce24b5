"""Geometry benchmark over the rendered scenes (tests/fixtures/rendered).

    .venv/bin/python benchmarks/geometry.py [--split test|tune|all] [--quads truth|vision] [--markdown FILE]
        [--heldout DIR] [--earlier DIR] [--no-end-to-end]

First, end to end from pixels (``benchmarks/end_to_end.py``): every scene read as the table reads it
(the reader's dice, the board's light, the where steps, ``place``), scored by the DICETAR WARS engine,
per die size and kind of failure, stacks in one frame and across throws (``--earlier``; a held-out
folder's ``earlier/``), and the CPU time a frame; ``--heldout`` adds scenes the models never saw
(``tools/render/generate.py --variant heldout``).  Then the geometry alone:

End to end from the pixels: the board pose is estimated from the ArUco markers
in each JPEG (any 2 visible), then every die's top-face quad is placed with
``calibration.geometry.place``.  With ``--quads truth`` the quads are the
renderer's exact top faces (standing in for the vision reader; ``--noise-px``
adds Gaussian noise to each corner); ``--quads vision`` uses every reading of
``vision.read_dice`` (its quads, values and colours): readings are matched one
to one with the truth dice (nearest first, within 0.6 of a top face), dice
without a reading count as missed (and as wrong in the end-to-end rows and in
stack recall) and readings without a die as false (a false reading placed as
stacked counts against stack precision).  Dice within 1 mm of a boundary that
decides their classification are reported separately, and cocked dice (tipped
on an edge; ``place`` assumes a flat die) on their own.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import ROOT, add_smoke, run_header
from benchmarks.scenes import SCENES, load_scenes, match
from calibration.board import load_board
from calibration.camera import parse_calibration
from calibration.geometry import place
from calibration.pose import PoseError, estimate_board_pose

READER: Any = None  # a vision.reader.DiceReader to use instead of vision.read_dice (--models)


def vision_readings(image: np.ndarray) -> list[Any] | None:
    """Every die ``vision.read_dice`` finds (value, colour, quad), or None when there is no reader."""
    if READER is not None:
        return list(READER.read(image))
    try:
        from vision.reader import read_dice
    except ImportError:
        return None
    return list(read_dice(image))


def reference_pose(truth: dict[str, Any], cal: Any, board: Any) -> Any:
    """What `dicetable calibrate pose` would save: the pose solved from a frame of the empty board."""
    from calibration.printing import render_board_image
    from training.render.synthetic import Light, render_scene

    r, _ = cv2.Rodrigues(np.asarray(truth["camera"]["rvec"], np.float64))
    t = np.asarray(truth["camera"]["tvec"], np.float64)
    light = Light(
        np.asarray(truth["light"]["direction"]), truth["light"]["ambient"], truth["light"]["diffuse"]
    )
    tex = render_board_image(board, 3.0)
    empty, _ = render_scene(tex, 3.0, [], r, t, cal, light, np.random.default_rng(truth["scene"]))
    return estimate_board_pose(empty, cal, board)


def evaluate(
    scenes: Iterable[dict[str, Any]],
    quads: str = "truth",
    noise_px: float = 0.0,
    pose_mode: str = "frame",
    fit: str = "image",
) -> dict[str, Any]:
    """Per die: a row for every truth die the quad source found (matched), the truth dice it
    missed and the readings that match no die (false readings)."""
    rows: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    false: list[dict[str, Any]] = []
    pose_fail: list[str] = []
    from_reference = 0
    t0 = time.perf_counter()
    for truth in scenes:
        board = load_board(ROOT / truth["board_file"])
        cam = truth["camera"]
        cal = parse_calibration(
            {
                "camera_matrix": cam["camera_matrix"],
                "dist_coeffs": cam["dist_coeffs"],
                "image_size": truth["image_size"],
            }
        )
        image = cv2.imread(str(Path(truth["_dir"]) / truth["image"]), cv2.IMREAD_COLOR)
        dice = truth["dice"]
        try:
            ref = reference_pose(truth, cal, board) if pose_mode == "reference" else None
            pose = estimate_board_pose(image, cal, board, reference=ref)
        except PoseError as e:
            pose_fail.append(f"{truth['image']}: {e}")
            missed.extend(_truth_row(truth, d) for d in dice)
            continue
        from_reference += pose.source == "reference"
        readings: list[dict[str, Any]]
        if quads == "vision":
            found = vision_readings(image) or []
            readings = [
                {"quad": np.asarray(r.quad, np.float64), "value": r.value, "colour": r.colour} for r in found
            ]
            pairs = match(dice, [np.asarray(r.center, np.float64) for r in found])
        else:
            rng = np.random.default_rng(truth["scene"])
            readings = [
                {
                    "quad": np.asarray(d["top_quad_px"]) + rng.normal(0, noise_px, (4, 2)),
                    "value": d["value"],
                    "colour": d["colour"],
                }
                for d in dice
            ]
            pairs = {i: i for i in range(len(dice))}
        got = (
            place(
                [r["quad"] for r in readings],
                ["d6"] * len(readings),
                cal,
                board,
                image=image,
                pose=pose,
                die_size_mm=truth["die_size_mm"],
                outline=quads == "vision" and fit != "none",
                fit="body" if fit == "body" else "image",
            )
            if readings
            else []
        )
        back = {j: i for i, j in pairs.items()}
        for i, d in enumerate(dice):
            if i not in pairs:
                missed.append(_truth_row(truth, d))
        for j, g in enumerate(got):
            if j not in back:
                false.append({"scene": truth["scene"], "stack_got": g.stack_level > 0})
        for i, j in pairs.items():
            d, g = dice[i], got[j]
            err = float(np.hypot(*(np.asarray(g.board_center_mm) - np.asarray(d["center_mm"]))))
            rows.append(
                {
                    **_truth_row(truth, d),
                    "err": err,
                    "value_ok": readings[j]["value"] == d["value"],
                    "colour_ok": readings[j]["colour"] == d["colour"],
                    "zones_ok": sorted(g.zones) == sorted(d["zones"]),
                    "mult_ok": g.min_multiplier == d["min_multiplier"],
                    "side_ok": g.side == d["side"],
                    "field_ok": (g.field_status, g.card_slot) == (d["field_status"], d["card_slot"]),
                    "stack_got": g.stack_level > 0,
                    "level_ok": g.stack_level == d["stack_level"],
                    "rests_ok": (None if g.rests_on is None else back.get(g.rests_on, -1)) == d["rests_on"],
                    "placed": {
                        "zones": sorted(g.zones),
                        "min_multiplier": g.min_multiplier,
                        "side": g.side,
                        "field": [g.field_status, g.card_slot],
                        "stack_level": g.stack_level,
                    },
                }
            )
    elapsed = time.perf_counter() - t0
    return {
        "rows": rows,
        "missed": missed,
        "false": false,
        "pose_fail": pose_fail,
        "elapsed_s": elapsed,
        "from_reference": from_reference,
    }


def _truth_row(truth: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    return {
        "scene": truth["scene"],
        "cocked": d["cocked"],
        "border": d["borderline"],
        "has_side": d["side"] is not None,
        "stack_true": d["stack_level"] > 0,
        "visible": d["top_visible_fraction"],
    }


def _pct(rows: list[dict[str, Any]], key: str) -> str:
    if not rows:
        return "n/a (0)"
    ok = sum(1 for r in rows if r[key])
    return f"{100.0 * ok / len(rows):.2f} % ({ok}/{len(rows)})"


def _ratio(ok: int, n: int) -> str:
    return f"{100.0 * ok / n:.2f} % ({ok}/{n})" if n else "n/a (0)"


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    rows, missed, false = result["rows"], result["missed"], result["false"]
    flat = [r for r in rows if not r["cocked"]]
    clear = [r for r in flat if not r["border"]]
    border = [r for r in flat if r["border"]]
    cocked = [r for r in rows if r["cocked"]]
    m_flat = [r for r in missed if not r["cocked"]]
    m_clear = [r for r in m_flat if not r["border"]]
    errs = np.array([r["err"] for r in flat]) if flat else np.full(1, np.nan)
    tp = sum(1 for r in flat if r["stack_true"] and r["stack_got"])
    fp = sum(1 for r in flat if not r["stack_true"] and r["stack_got"])
    fp += sum(1 for f in false if f["stack_got"])
    fn_found = sum(1 for r in flat if r["stack_true"] and not r["stack_got"])
    fn = fn_found + sum(1 for r in m_flat if r["stack_true"])
    stacked = [r for r in flat if r["stack_true"]]

    def end_to_end(key: str, found: list[dict[str, Any]], lost: list[dict[str, Any]]) -> str:
        return _ratio(sum(1 for r in found if r[key]), len(found) + len(lost))

    sided = [r for r in clear if r["has_side"]]
    return {
        "dice": len(rows) + len(missed),
        "flat": len(flat) + len(m_flat),
        "clear": len(clear) + len(m_clear),
        "border": len(border) + sum(1 for r in m_flat if r["border"]),
        "cocked": len(cocked) + sum(1 for r in missed if r["cocked"]),
        "pose_failures": len(result["pose_fail"]),
        "from_reference": result["from_reference"],
        "found": _ratio(len(rows), len(rows) + len(missed)),
        "false": len(false),
        "value_found": _pct(rows, "value_ok"),
        "colour_found": _pct(rows, "colour_ok"),
        "pos_median_mm": float(np.median(errs)),
        "pos_p95_mm": float(np.percentile(errs, 95)),
        "pos_max_mm": float(np.max(errs)),
        "zones_clear": _pct(clear, "zones_ok"),
        "mult_clear": _pct(clear, "mult_ok"),
        "side_clear": _pct(sided, "side_ok"),
        "field_clear": _pct(clear, "field_ok"),
        "zones_clear_e2e": end_to_end("zones_ok", clear, m_clear),
        "side_clear_e2e": end_to_end("side_ok", sided, [r for r in m_clear if r["has_side"]]),
        "field_clear_e2e": end_to_end("field_ok", clear, m_clear),
        "zones_border": _pct(border, "zones_ok"),
        "side_border": _pct([r for r in border if r["has_side"]], "side_ok"),
        "field_border": _pct(border, "field_ok"),
        "stack_precision": _ratio(tp, tp + fp),
        "stack_recall": _ratio(tp, tp + fn),
        "stack_recall_found": _ratio(tp, tp + fn_found),
        "stack_level_exact": _pct(flat, "level_ok"),
        "rests_on_exact_stacked": _pct(stacked, "rests_ok"),
        "cocked_zones": _pct(cocked, "zones_ok"),
        "cocked_field": _pct(cocked, "field_ok"),
        "cocked_false_stack": f"{sum(1 for r in cocked if r['stack_got'])}/{len(cocked)}",
        "elapsed_s": result["elapsed_s"],
    }


LABELS = {
    "dice": "dice (all)",
    "flat": "flat dice (position, zones, side, field, stacks)",
    "clear": "flat dice >= 1 mm clear of every boundary",
    "border": "flat dice within 1 mm of a boundary (borderline)",
    "cocked": "cocked dice (reported apart)",
    "pose_failures": "frames where the board pose failed (< 2 markers seen; their dice count as missed)",
    "from_reference": "frames using the calibrated reference pose (confirmed by the markers seen)",
    "found": "dice found (a reading within 0.6 face of the die's top-face centre, one to one)",
    "false": "readings that match no die (false readings)",
    "value_found": "value right, found dice",
    "colour_found": "colour right, found dice",
    "pos_median_mm": "position error median (mm), found flat dice",
    "pos_p95_mm": "position error p95 (mm), found flat dice",
    "pos_max_mm": "position error max (mm), found flat dice",
    "zones_clear": "zone set right, found clear dice",
    "mult_clear": "min multiplier right, found clear dice",
    "side_clear": "centre side right, found clear dice (boards with a centre line)",
    "field_clear": "field status (+ card slot) right, found clear dice",
    "zones_clear_e2e": "zone set right, all clear dice (missed = wrong)",
    "side_clear_e2e": "centre side right, all clear dice (missed = wrong)",
    "field_clear_e2e": "field status right, all clear dice (missed = wrong)",
    "zones_border": "zone set right, found borderline dice",
    "side_border": "centre side right, found borderline dice",
    "field_border": "field status right, found borderline dice",
    "stack_precision": "stack detection precision (level >= 1; false readings called stacked count)",
    "stack_recall": "stack detection recall (level >= 1; missed stacked dice count)",
    "stack_recall_found": "stack detection recall, found stacked dice only",
    "stack_level_exact": "stack level exactly right, found flat dice",
    "rests_on_exact_stacked": "rests_on right, found stacked dice",
    "cocked_zones": "cocked dice: zone set right",
    "cocked_field": "cocked dice: field status right",
    "cocked_false_stack": "cocked dice wrongly called stacked",
    "elapsed_s": "time for the whole run (s, pose + reading + placement)",
}


def markdown(s: dict[str, Any], split: str, quads: str, n_scenes: int) -> str:
    lines = [
        f"| measure ({split} split, {n_scenes} scenes, quads: {quads}) | value |",
        "|---|---|",
    ]
    for k, label in LABELS.items():
        v = s[k]
        lines.append(f"| {label} | {v:.3f} |" if isinstance(v, float) else f"| {label} | {v} |")
    return "\n".join(lines) + "\n"


def end_to_end_tables(
    scenes: list[dict[str, Any]],
    split: str,
    heldout: list[Path],
    earlier: Path | None,
    spec: str | None,
    vision: dict[str, Any] | None = None,
) -> list[str]:
    """The first section: each scene read as the table reads it (benchmarks/end_to_end.py); with
    earlier frames (the split's: ``earlier``; a held-out folder's: its earlier/), stacks across throws."""
    from benchmarks.end_to_end import evaluate as e2e
    from benchmarks.end_to_end import markdown as e2e_markdown
    from benchmarks.end_to_end import memory_markdown
    from controller.config import VisionSection
    from vision.reader import default_reader

    table_vision = VisionSection(**(vision or {}))

    reader = READER or default_reader()
    sets = [(f"{split} split ({len(scenes)} scenes, seed {scenes[0]['seed']})", scenes, earlier)]
    for folder in heldout:
        held = load_scenes("all", folder)
        if not held:
            raise SystemExit(
                f"no scenes in {folder}: make them with tools/render/generate.py --variant heldout"
            )
        title = f"held-out variant {folder.name} ({len(held)} scenes, seed {held[0]['seed']})"
        sets.append((title, held, folder / "earlier" if (folder / "earlier").is_dir() else None))
    out = []
    for title, group, before in sets:
        title += f", models: {spec}" if spec else ""
        title += ", [vision] " + ", ".join(f"{k} = {v}" for k, v in vision.items()) if vision else ""
        table = e2e_markdown(e2e(group, reader, vision=table_vision), title)
        print(table)
        out.append(table)
        if before is not None:
            stacked = [t for t in group if (before / f"scene_{t['scene']:04d}.json").exists()]
            table = memory_markdown(
                e2e(stacked, reader, vision=table_vision),
                e2e(stacked, reader, before, table_vision),
                title,
            )
            print(table)
            out.append(table)
    return out


def _vision_spec(text: str) -> dict[str, Any]:
    """``board_look=false,play_area=true`` -> the [vision] keys it sets (true/false, numbers, text)."""
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--vision {text!r}: expected KEY=VALUE[,KEY=VALUE...]")
        v = value.strip()
        out[key.strip()] = {"true": True, "false": False}.get(v.lower(), v)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["test", "tune", "all"], default="test")
    ap.add_argument("--quads", choices=["truth", "vision"], default="truth")
    ap.add_argument(
        "--pose",
        choices=["frame", "reference"],
        default="frame",
        help="frame: solve the pose from each frame's markers; reference: a pose calibrated on the empty "
        "board, used while the markers seen agree with it",
    )
    ap.add_argument("--noise-px", type=float, default=0.0, help="Gaussian noise added to each quad corner")
    ap.add_argument("--scenes", type=Path, default=SCENES)
    ap.add_argument("--limit", type=int, default=0, help="only the first N scenes of the split")
    add_smoke(ap)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument(
        "--heldout",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also read these scenes end to end from pixels (e.g. the held-out variant made by "
        "tools/render/generate.py --variant heldout --seed 20261124 --count 100 --out DIR)",
    )
    ap.add_argument(
        "--earlier",
        type=Path,
        metavar="DIR",
        help="earlier frames of the split's scenes with a stack (tools/render/generate.py --earlier "
        "writes them to OUT/earlier): also measure stacks across throws with calibration/memory.py",
    )
    ap.add_argument(
        "--no-end-to-end",
        action="store_true",
        help="skip the first section (end to end from pixels, benchmarks/end_to_end.py)",
    )
    ap.add_argument(
        "--dump",
        type=Path,
        help="also write every found die's placement (zones, lowest multiplier, side, field, stack "
        "level) as JSON lines, to compare two versions of the geometry die by die",
    )
    ap.add_argument(
        "--models",
        action="append",
        default=[],
        metavar="DIR[,key=value...]",
        help="read with the d6 models in DIR, not vision/models, end to end and with --quads vision "
        "(repeatable: "
        "one table each, in one run; keys det, reject, suppress, rotations, long: see vision_d6.py)",
    )
    ap.add_argument(
        "--vision",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE...]",
        help="the end-to-end section again with the table's [vision] changed so (repeatable: one "
        "table each after the shipped settings', in one run), e.g. board_look=false",
    )
    ap.add_argument(
        "--fit",
        choices=["image", "body", "none"],
        default="image",
        help="with --quads vision, how the reader's outlines become top faces: image: searched in the "
        "frame (place(outline=True)); body: from the outline's centre by geometry alone "
        "(place(outline=True, fit='body')); none: the outlines taken for top faces",
    )
    args = ap.parse_args(argv)
    if args.fit != "image" and args.quads != "vision":
        print("--fit needs --quads vision", file=sys.stderr)
        return 2
    scenes = load_scenes(args.split, args.scenes)
    if args.smoke:
        args.limit = args.limit or 2
    if args.limit:
        scenes = scenes[: args.limit]
    if not scenes:
        print(f"no scenes in {args.scenes} for split {args.split!r}", file=sys.stderr)
        return 2
    if args.quads == "vision" and vision_readings(np.zeros((64, 64, 3), np.uint8)) is None:
        print("vision.read_dice does not exist yet: run with --quads truth", file=sys.stderr)
        return 2
    if args.models and args.quads != "vision" and args.no_end_to_end:
        print("--models needs --quads vision or the end-to-end section", file=sys.stderr)
        return 2
    global READER
    tables = []
    for spec in args.models or [None]:
        if spec is not None:
            from benchmarks.vision_d6 import reader_from_spec

            READER = reader_from_spec(spec)
        if not args.no_end_to_end:
            for vision in [None, *(_vision_spec(v) for v in args.vision)]:
                tables += end_to_end_tables(scenes, args.split, args.heldout, args.earlier, spec, vision)
        result = evaluate(scenes, args.quads, args.noise_px, args.pose, fit=args.fit)
        if args.dump:
            with args.dump.open("w") as f:
                for r in result["rows"]:
                    f.write(json.dumps({"scene": r["scene"], **r["placed"]}) + "\n")
        s = summarise(result)
        quads = args.quads + (f" + {args.noise_px} px noise" if args.noise_px else "")
        quads += f", top faces fitted: {args.fit}" if args.quads == "vision" else ""
        quads += f", pose: {args.pose}"
        if spec is not None:
            quads += f", models: {spec}"
        table = markdown(s, args.split, quads, len(scenes))
        print(table)
        for f in result["pose_fail"]:
            print("pose failed:", f)
        tables.append(table)
    if args.markdown:
        args.markdown.write_text(run_header() + "\n" + "\n".join(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
