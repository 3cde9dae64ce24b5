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


def vision_quads(image: np.ndarray) -> list[np.ndarray] | None:
    """Top-face quads from the vision reader, or None when there is no reader yet."""
    try:
        from vision.reader import read_dice
    except ImportError:
        return None
    return [np.asarray(r.quad, np.float64) for r in read_dice(image)]


def reference_pose(truth: dict[str, Any], cal: Any, board: Any) -> Any:
    """What `dicetable calibrate pose` would save: the pose solved from a frame of the empty board."""
    from calibration.printing import render_board_image
    from calibration.synthetic import Light, render_scene

    r, _ = cv2.Rodrigues(np.asarray(truth["camera"]["rvec"], np.float64))
    t = np.asarray(truth["camera"]["tvec"], np.float64)
    light = Light(
        np.asarray(truth["light"]["direction"]), truth["light"]["ambient"], truth["light"]["diffuse"]
    )
    tex = render_board_image(board, 3.0)
    empty, _ = render_scene(tex, 3.0, [], r, t, cal, light, np.random.default_rng(truth["scene"]))
    return estimate_board_pose(empty, cal, board)


def _match(dice: list[dict[str, Any]], quads: list[np.ndarray]) -> dict[int, int]:
    """Truth die index -> reading index, nearest top-face centre within half a face."""
    out: dict[int, int] = {}
    used: set[int] = set()
    for i, d in enumerate(dice):
        c = np.asarray(d["top_quad_px"]).mean(axis=0)
        half = 0.5 * float(np.linalg.norm(np.subtract(d["top_quad_px"][0], d["top_quad_px"][1])))
        best = min(
            ((float(np.linalg.norm(q.mean(axis=0) - c)), j) for j, q in enumerate(quads) if j not in used),
            default=None,
        )
        if best is not None and best[0] <= half:
            out[i] = best[1]
            used.add(best[1])
    return out


def evaluate(
    scenes: Iterable[dict[str, Any]], quads: str = "truth", noise_px: float = 0.0, pose_mode: str = "frame"
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    pose_fail: list[str] = []
    missed = 0
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
        try:
            ref = reference_pose(truth, cal, board) if pose_mode == "reference" else None
            pose = estimate_board_pose(image, cal, board, reference=ref)
        except PoseError as e:
            pose_fail.append(f"{truth['image']}: {e}")
            continue
        from_reference += pose.source == "reference"
        dice = truth["dice"]
        if quads == "vision":
            found = vision_quads(image) or []
            match = _match(dice, found)
            missed += len(dice) - len(match)
            used = found
        else:
            rng = np.random.default_rng(truth["scene"])
            used = [np.asarray(d["top_quad_px"]) + rng.normal(0, noise_px, (4, 2)) for d in dice]
            match = {i: i for i in range(len(dice))}
        if not used:
            continue
        got = place(
            used, ["d6"] * len(used), cal, board, image=image, pose=pose, die_size_mm=truth["die_size_mm"]
        )
        back = {j: i for i, j in match.items()}
        for i, j in match.items():
            d, g = dice[i], got[j]
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
                    "rests_ok": (None if g.rests_on is None else back.get(g.rests_on, -1)) == d["rests_on"],
                }
            )
    elapsed = time.perf_counter() - t0
    return {
        "rows": rows,
        "pose_fail": pose_fail,
        "elapsed_s": elapsed,
        "missed": missed,
        "from_reference": from_reference,
    }


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
        "from_reference": result["from_reference"],
        "missed": result["missed"],
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
        "pose_failures": "frames where the board pose failed (fewer than 2 markers seen)",
        "from_reference": "frames using the calibrated reference pose (confirmed by the markers seen)",
        "missed": "dice the quad source did not find (excluded below)",
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
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = ap.parse_args(argv)
    scenes = load_scenes(args.split, args.scenes)
    if args.limit:
        scenes = scenes[: args.limit]
    if not scenes:
        print(f"no scenes in {args.scenes} for split {args.split!r}", file=sys.stderr)
        return 2
    if args.quads == "vision" and vision_quads(np.zeros((64, 64, 3), np.uint8)) is None:
        print("vision.read_dice does not exist yet: run with --quads truth", file=sys.stderr)
        return 2
    result = evaluate(scenes, args.quads, args.noise_px, args.pose)
    s = summarise(result)
    quads = args.quads + (f" + {args.noise_px} px noise" if args.noise_px else "") + f", pose: {args.pose}"
    table = markdown(s, args.split, quads, len(scenes))
    print(table)
    for f in result["pose_fail"]:
        print("pose failed:", f)
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
