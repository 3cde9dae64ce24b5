"""How well each one-frame stack cue tells an upper die of a stack from a die on the board (issue 30
item 3), on rendered scenes read as the table reads them with their empty table.

For every die the table reads (`benchmarks.end_to_end.read_scene`, the shipped `[vision]`, the scene's
empty table) and matches to a true die that is not covered: the cues the table has
(`calibration.raised.raised_share`: the band of sides only a raised die shows; `around_share`: the
ring round it, where a lower die's rim shows), whether the table placed it raised, and a cue it does
not have, tried here: the SILHOUETTE FIT (the blob of change taller than one die): how much better
the empty table's change round the die is explained (intersection over union, other dice's bodies
left out) by a stack of two (the top face two dice up, the lower die under it shifted by up to half
an edge either way, 25 shifts) than by one die on the board.  The fit is scored twice: from the top
faces the table places (the reader's box taken to a top face, `calibration.topface.body_top_face`),
and from the true top faces (what an exact top-face fit would give).  Per cue: its spread on upper
dice and on dice on the board, and the best recall at a precision of 90 % or more over thresholds
chosen on the same dice (a ceiling, not a held-out figure).

    nice -n 10 .venv/bin/python -m benchmarks.stack_cues --set DIR [--split all] [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

import calibration.geometry as geometry
from benchmarks.end_to_end import read_scene
from benchmarks.harness import ROOT, add_scene_sets, add_smoke, run_header, write
from benchmarks.scenes import empty_frame, load_scenes, match
from calibration.raised import OWN_MARGIN, body_px
from controller.config import VisionSection
from vision.reader import default_reader

#: the lower die's shifts tried, in edges (board x, y)
SHIFTS = [(dx, dy) for dx in (-0.5, -0.25, 0.0, 0.25, 0.5) for dy in (-0.5, -0.25, 0.0, 0.25, 0.5)]


def _hull(pts: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(cv2.convexHull(np.asarray(pts, np.float32)).reshape(-1, 2), np.float64)


def silhouette_gain(
    quads: Sequence[NDArray[np.float64]], sizes: Sequence[float], pose: Any, cal: Any, lying: np.ndarray
) -> list[float | None]:
    """For each top face: IoU of the change with the best two-dice stack under it minus IoU with one
    die on the board (None where the die's outline leaves the frame or the board's plane)."""
    mh, mw = lying.shape[:2]
    w, h = cal.image_size
    k = np.array([mw / float(w), mh / float(h)])
    others = [body_px(q, s, OWN_MARGIN, pose, cal) * k for q, s in zip(quads, sizes, strict=True)]
    out: list[float | None] = []
    for i, (q0, s) in enumerate(zip(quads, sizes, strict=True)):
        q = np.asarray(q0, np.float64).reshape(-1, 2)
        top = pose.backproject(q, 2 * s, cal)  # the upper die's top face, board mm
        upper = _hull(np.vstack([q, pose.project(np.column_stack([top, np.full(len(top), -s)]), cal)]))
        stacks = []
        for dx, dy in SHIFTS:
            lt = top + np.array([dx * s, dy * s])
            lo = [pose.project(np.column_stack([lt, np.full(len(lt), z)]), cal) for z in (-s, 0.0)]
            stacks.append([upper * k, _hull(np.vstack(lo)) * k])
        single = [body_px(q, s, 0, pose, cal) * k]
        polys = [p for ps in [single, *stacks] for p in ps]
        if not all(np.isfinite(p).all() for p in polys):
            out.append(None)
            continue
        pts = np.vstack(polys)
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 3
        x1, y1 = min(x1, mw), min(y1, mh)
        if x1 - x0 < 3 or y1 - y0 < 3:
            out.append(None)
            continue
        at = np.array([x0, y0], np.float64)

        def fill(p: NDArray[np.float64], into: np.ndarray, at: NDArray[np.float64] = at) -> None:
            cv2.fillPoly(into, [np.round((p - at) * 4).astype(np.int32)], 1, cv2.LINE_8, shift=2)

        other = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for j, o in enumerate(others):
            if j != i and np.isfinite(o).all():
                fill(o, other)
        care = other == 0
        seen = lying[y0:y1, x0:x1].astype(bool) & care

        def iou(ps: list[NDArray[np.float64]], care: np.ndarray = care, seen: np.ndarray = seen) -> float:
            m = np.zeros(care.shape, np.uint8)
            for p in ps:
                fill(p, m)
            mm = (m > 0) & care
            union = int((mm | seen).sum())
            return float((mm & seen).sum()) / union if union else 0.0

        out.append(max(iou(ps) for ps in stacks) - iou(single))
    return out


def run(sets: list[Path], split: str, limit: int) -> dict[str, list[tuple[bool, float | None]]]:
    """cue name -> (upper die?, value) for every read die matched to a true die not covered."""
    seen: list[tuple[Any, ...]] = []
    raised_share, around_share = geometry.raised_share, geometry.around_share

    def keep(name: str, fn: Callable[..., list[float | None]]) -> Callable[..., list[float | None]]:
        def wrapped(quads: Any, sizes: Any, pose: Any, cal: Any, lying: Any, size: Any) -> Any:
            out = fn(quads, sizes, pose, cal, lying, size)
            seen.append(
                (
                    name,
                    [np.asarray(q, np.float64).reshape(-1, 2) for q in quads],
                    sizes,
                    out,
                    pose,
                    cal,
                    lying,
                )
            )
            return out

        return wrapped

    geometry.raised_share = keep("sides band", raised_share)  # type: ignore[assignment]
    geometry.around_share = keep("ring round", around_share)  # type: ignore[assignment]
    cues: dict[str, list[tuple[bool, float | None]]] = {}
    reader = default_reader()
    try:
        for folder in sets:
            scenes = load_scenes(split, folder)[: limit or None]
            for truth in scenes:
                seen.clear()
                readings = read_scene(truth, reader, {}, None, VisionSection(), empty_frame(truth))[
                    "readings"
                ]
                dice = truth["dice"]
                covered = {d["rests_on"] for d in dice if d["rests_on"] is not None}
                pairs = match(dice, [np.asarray(r["center"], np.float64) for r in readings])
                calls = {c[0]: c for c in seen}
                band = calls.get("sides band")
                fit = true_fit = None
                if band is not None:
                    _, quads, sizes, _, pose, cal, lying = band
                    fit = silhouette_gain(quads, sizes, pose, cal, lying)
                    vis = [i for i in range(len(dice)) if i not in covered]
                    true_q = [np.asarray(dice[i]["top_quad_px"], np.float64) for i in vis]
                    g = silhouette_gain(true_q, [float(dice[i]["size_mm"]) for i in vis], pose, cal, lying)
                    true_fit = dict(zip(vis, g, strict=True))
                for i, j in pairs.items():
                    if i in covered:
                        continue
                    up = dice[i]["stack_level"] > 0
                    r = readings[j]
                    cues.setdefault("placed raised (the table today)", []).append(
                        (up, float(r["stack_level"] > 0))
                    )
                    if true_fit is not None:
                        cues.setdefault("silhouette fit, true top faces", []).append((up, true_fit.get(i)))
                    for name, vals in (("sides band", band), ("ring round", calls.get("ring round"))):
                        if vals is None:
                            continue
                        at = int(np.argmin([np.linalg.norm(q.mean(axis=0) - r["center"]) for q in vals[1]]))
                        cues.setdefault(name, []).append((up, vals[3][at]))
                        if name == "sides band" and fit is not None:
                            cues.setdefault("silhouette fit, placed top faces", []).append((up, fit[at]))
    finally:
        geometry.raised_share, geometry.around_share = raised_share, around_share  # type: ignore[assignment]
    return cues


def best_recall(
    pairs: list[tuple[bool, float | None]], precision: float = 0.9
) -> tuple[float, float, int, int]:
    """The threshold with the most upper dice at or above it at ``precision`` or more: (recall,
    threshold, true, false); a missing value is never above."""
    vals = sorted({v for _, v in pairs if v is not None})
    ups = sum(1 for u, _ in pairs if u)
    best = (0.0, float("inf"), 0, 0)
    for t in vals:
        tp = sum(1 for u, v in pairs if u and v is not None and v >= t)
        fp = sum(1 for u, v in pairs if not u and v is not None and v >= t)
        if tp and tp / (tp + fp) >= precision and tp / max(1, ups) > best[0]:
            best = (tp / max(1, ups), t, tp, fp)
    return best


def markdown(cues: dict[str, list[tuple[bool, float | None]]]) -> str:
    lines = [
        "| cue | upper dice (judged) | dice on the board (judged) | upper: 10 / 25 / 50th pct | "
        "board: 50 / 90 / 95th pct | best recall at precision >= 90 % (threshold; true / false) |",
        "|---|---|---|---|---|---|",
    ]
    for name, pairs in cues.items():
        up = [v for u, v in pairs if u and v is not None]
        flat = [v for u, v in pairs if not u and v is not None]
        n_up, n_flat = sum(1 for u, _ in pairs if u), sum(1 for u, _ in pairs if not u)
        pu = " / ".join(f"{x:.2f}" for x in np.percentile(up, [10, 25, 50])) if up else "-"
        pf = " / ".join(f"{x:.2f}" for x in np.percentile(flat, [50, 90, 95])) if flat else "-"
        rec, t, tp, fp = best_recall(pairs)
        lines.append(
            f"| {name} | {n_up} ({len(up)}) | {n_flat} ({len(flat)}) | {pu} | {pf} | "
            f"{100 * rec:.1f} % ({t:.3f}; {tp} / {fp}) |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_sets(ap)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    sets = args.set or [ROOT / "tests" / "fixtures" / "rendered"]
    limit = 3 if args.smoke else args.limit
    text = run_header(argv, "benchmarks.stack_cues") + "\n" + markdown(run(sets, args.split, limit))
    write(text, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
