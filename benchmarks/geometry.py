"""Geometry benchmark over the rendered scenes (tests/fixtures/rendered).

    .venv/bin/python benchmarks/geometry.py [--split test|tune|all] [--quads truth|vision] [--markdown FILE]

End to end from the pixels: the board pose is estimated from the ArUco markers
in each JPEG (any 2 visible), then every die's top-face quad is placed with
``calibration.geometry.place``.  With ``--quads truth`` the quads are the
renderer's exact top faces (standing in for the vision reader); ``--quads
vision`` uses ``vision.read_dice`` when that exists.  Dice within 1 mm of a
boundary that decides their classification are reported separately, and
cocked dice (tipped on an edge; ``place`` assumes a flat die) on their own.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.board import load_board  # noqa: E402
from calibration.camera import parse_calibration  # noqa: E402
from calibration.geometry import place  # noqa: E402
from calibration.pose import PoseError, estimate_board_pose  # noqa: E402

SCENES = ROOT / "tests" / "fixtures" / "rendered"


def load_scenes(split: str, folder: Path = SCENES) -> list[dict[str, Any]]:
    out = []
    for p in sorted(folder.glob("scene_*.json")):
        truth = json.loads(p.read_text())
        if split in ("all", truth["split"]):
            truth["_dir"] = str(folder)
            out.append(truth)
    return out


def vision_quads(image: np.ndarray) -> list[tuple[list[list[float]], str]] | None:
    """Top-face quads from the vision reader, if it exists yet."""
    try:
        from vision import read_dice  # type: ignore[attr-defined]
    except ImportError:
        return None
    return [(r.quad, r.kind) for r in read_dice(image)]


def evaluate(scenes: Iterable[dict[str, Any]], quads: str = "truth", noise_px: float = 0.0) -> dict[str, Any]:
    pos: list[float] = []
    rows: list[dict[str, Any]] = []
    pose_fail: list[str] = []
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
        try:
            pose = estimate_board_pose(image, cal, board)
        except PoseError as e:
            pose_fail.append(f"{truth['image']}: {e}")
            continue
        dice = truth["dice"]
        rng = np.random.default_rng(truth["scene"])
        got = place(
            [np.asarray(d["top_quad_px"]) + rng.normal(0, noise_px, (4, 2)) for d in dice],
            [d["kind"] for d in dice],
            cal,
            board,
            pose=pose,
            die_size_mm=truth["die_size_mm"],
        )
        for d, g in zip(dice, got, strict=True):
            err = float(np.hypot(*(np.asarray(g.board_center_mm) - np.asarray(d["center_mm"]))))
            rows.append(
                {
                    "scene": truth["scene"],
                    "cocked": d["cocked"],
                    "border": d["borderline"],
                    "err": err,
                    "zones_ok": sorted(g.zones) == sorted(d["zones"]),
                    "mult_ok": g.min_multiplier == d["min_multiplier"],
                    "side_ok": g.side == d["side"],
                    "has_side": d["side"] is not None,
                    "field_ok": (g.field_status, g.card_slot) == (d["field_status"], d["card_slot"]),
                    "stack_true": d["stack_level"] > 0,
                    "stack_got": g.stack_level > 0,
                    "level_ok": g.stack_level == d["stack_level"],
                    "rests_ok": g.rests_on == d["rests_on"],
                }
            )
            if not d["cocked"]:
                pos.append(err)
    elapsed = time.perf_counter() - t0
    return {"rows": rows, "pose_fail": pose_fail, "elapsed_s": elapsed}


def _pct(rows: list[dict[str, Any]], key: str) -> str:
    if not rows:
        return "n/a (0)"
    ok = sum(1 for r in rows if r[key])
    return f"{100.0 * ok / len(rows):.2f} % ({ok}/{len(rows)})"


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    rows = result["rows"]
    flat = [r for r in rows if not r["cocked"]]
    clear = [r for r in flat if not r["border"]]
    border = [r for r in flat if r["border"]]
    cocked = [r for r in rows if r["cocked"]]
    errs = np.array([r["err"] for r in flat]) if flat else np.zeros(1)
    tp = sum(1 for r in flat if r["stack_true"] and r["stack_got"])
    fp = sum(1 for r in flat if not r["stack_true"] and r["stack_got"])
    fn = sum(1 for r in flat if r["stack_true"] and not r["stack_got"])
    stacked = [r for r in flat if r["stack_true"]]
    return {
        "dice": len(rows),
        "flat": len(flat),
        "clear": len(clear),
        "border": len(border),
        "cocked": len(cocked),
        "pose_failures": len(result["pose_fail"]),
        "pos_median_mm": float(np.median(errs)),
        "pos_p95_mm": float(np.percentile(errs, 95)),
        "pos_max_mm": float(np.max(errs)),
        "zones_clear": _pct(clear, "zones_ok"),
        "mult_clear": _pct(clear, "mult_ok"),
        "side_clear": _pct([r for r in clear if r["has_side"]], "side_ok"),
        "field_clear": _pct(clear, "field_ok"),
        "zones_border": _pct(border, "zones_ok"),
        "side_border": _pct([r for r in border if r["has_side"]], "side_ok"),
        "field_border": _pct(border, "field_ok"),
        "stack_precision": f"{100.0 * tp / max(tp + fp, 1):.2f} % ({tp}/{tp + fp})",
        "stack_recall": f"{100.0 * tp / max(tp + fn, 1):.2f} % ({tp}/{tp + fn})",
        "stack_level_exact": _pct(flat, "level_ok"),
        "rests_on_exact_stacked": _pct(stacked, "rests_ok"),
        "cocked_zones": _pct(cocked, "zones_ok"),
        "cocked_field": _pct(cocked, "field_ok"),
        "cocked_false_stack": f"{sum(1 for r in cocked if r['stack_got'])}/{len(cocked)}",
        "elapsed_s": result["elapsed_s"],
    }


def markdown(s: dict[str, Any], split: str, quads: str, n_scenes: int) -> str:
    lines = [
        f"| measure ({split} split, {n_scenes} scenes, quads: {quads}) | value |",
        "|---|---|",
    ]
    labels = {
        "dice": "dice (all)",
        "flat": "flat dice (position, zones, side, field, stacks)",
        "clear": "flat dice >= 1 mm clear of every boundary",
        "border": "flat dice within 1 mm of a boundary (borderline)",
        "cocked": "cocked dice (reported apart)",
        "pose_failures": "frames where the board pose failed",
        "pos_median_mm": "position error median (mm)",
        "pos_p95_mm": "position error p95 (mm)",
        "pos_max_mm": "position error max (mm)",
        "zones_clear": "zone set right, clear dice",
        "mult_clear": "min multiplier right, clear dice",
        "side_clear": "centre side right, clear dice (boards with a centre line)",
        "field_clear": "field status (+ card slot) right, clear dice",
        "zones_border": "zone set right, borderline dice",
        "side_border": "centre side right, borderline dice",
        "field_border": "field status right, borderline dice",
        "stack_precision": "stack detection precision (level >= 1)",
        "stack_recall": "stack detection recall (level >= 1)",
        "stack_level_exact": "stack level exactly right",
        "rests_on_exact_stacked": "rests_on right, stacked dice",
        "cocked_zones": "cocked dice: zone set right",
        "cocked_field": "cocked dice: field status right",
        "cocked_false_stack": "cocked dice wrongly called stacked",
        "elapsed_s": "time for the whole run (s, pose + placement)",
    }
    for k, label in labels.items():
        v = s[k]
        lines.append(f"| {label} | {v:.3f} |" if isinstance(v, float) else f"| {label} | {v} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["test", "tune", "all"], default="test")
    ap.add_argument("--quads", choices=["truth", "vision"], default="truth")
    ap.add_argument("--noise-px", type=float, default=0.0, help="Gaussian noise added to each quad corner")
    ap.add_argument("--scenes", type=Path, default=SCENES)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = ap.parse_args(argv)
    scenes = load_scenes(args.split, args.scenes)
    if not scenes:
        print(f"no scenes in {args.scenes} for split {args.split!r}", file=sys.stderr)
        return 2
    if args.quads == "vision" and vision_quads(np.zeros((8, 8, 3), np.uint8)) is None:
        print("vision.read_dice does not exist yet: run with --quads truth", file=sys.stderr)
        return 2
    result = evaluate(scenes, args.quads, args.noise_px)
    s = summarise(result)
    quads = args.quads + (f" + {args.noise_px} px noise" if args.noise_px else "")
    table = markdown(s, args.split, quads, len(scenes))
    print(table)
    for f in result["pose_fail"]:
        print("pose failed:", f)
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
