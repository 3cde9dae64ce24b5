"""What learning the empty table again changes (issue 30 item 1, `controller.empty_learn`): a session
in which the light drifts, each rendered scene read as the table reads it (`benchmarks/end_to_end.py`)
against the STALE empty table (the scene's own, taken under the light the session started in) and
against the one the table LEARNT AGAIN from the empty board under the light of the moment (the same
empty table drifted alike, its own sensor noise), in one run.

    nice -n 10 .venv/bin/python -m benchmarks.empty_relearn --set tests/fixtures/lowcontrast \\
        --set tests/fixtures/rendered --split test [--limit N] [--markdown FILE.md]

The drift, over the session (scene k of n at strength a = k / (n - 1)): the room light dims (x 1 - 0.25 a),
warms (red x 1 + 0.12 a, blue x 1 - 0.12 a), and a warm lamp comes on over one side of the board (+ 35 a %
at its middle, fading over ~250 px: more than the light model's smooth surface explains).  Besides the
reading figures: how many of the empty boards under the drifted light the learner takes (it should take
all), and how many of the frames with dice it would have taken (absorbed: it must take none).

``--alone`` measures instead what asking about the empty table's pieces that lie alone adds (issue 30's
audit, `vision.empty_diff.EmptyDiff.ask_alone`): each scene as shot, read with and without it.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.end_to_end import evaluate, summary
from benchmarks.harness import ROOT, add_scene_sets, add_smoke, run_header
from benchmarks.scenes import empty_frame, load_scenes
from calibration.board import load_board
from calibration.camera import parse_calibration
from controller.config import VisionSection
from controller.empty_learn import EmptyLearning
from controller.perceive import BoardGeometry, Perceiver
from vision.reader import default_reader

ROWS = (
    "dice found (target >= 99 %)",
    "dice found, leaving out the dice under another die",
    "phantoms: readings of a game colour on no die (target 0)",
    "colour right, all dice (board-balanced, game colours only; missed = wrong)",
    "per-die score right, DICETAR WARS engine (target >= 99 %)",
    "scenes with every colour's total exact, DICETAR WARS (target >= 90 %)",
)


def drift(img: np.ndarray, a: float, seed: int) -> np.ndarray:
    """``img`` under the session's light at strength ``a`` (0: as it was), with its own sensor noise."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pool = np.exp(-((xx - 0.8 * w) ** 2 + (yy - 0.25 * h) ** 2) / (2 * 250.0**2))[..., None]
    room = (1 - 0.25 * a) * np.asarray([1 - 0.12 * a, 1.0, 1 + 0.12 * a], np.float32)
    lamp = 1 + 0.35 * a * pool * np.asarray([0.6, 1.0, 1.3], np.float32)
    noise = np.random.default_rng(seed).normal(0, 1.5, img.shape).astype(np.float32)
    return np.asarray(np.clip(img.astype(np.float32) * room * lamp + noise, 0, 255), np.uint8)


def perceiver_for(truth: dict[str, Any], reader: Any) -> Perceiver:
    cam = truth["camera"]
    cal = parse_calibration(
        {
            "camera_matrix": cam["camera_matrix"],
            "dist_coeffs": cam["dist_coeffs"],
            "image_size": truth["image_size"],
        }
    )
    sizes = list(truth.get("die_sizes_mm") or [truth["die_size_mm"]])
    geo = BoardGeometry.of(load_board(ROOT / truth["board_file"]), cal, "body", sizes)
    return Perceiver.of(reader, VisionSection(), geo, die_sizes_mm=sizes)


def run_set(folder: Path, split: str, limit: int, reader: Any, out_dir: Path) -> dict[str, Any]:
    scenes = load_scenes(split, folder)[: limit or None]
    if not scenes:
        raise SystemExit(f"--set {folder}: expected a folder of scene_NNNN.json files, found none")
    n = len(scenes)
    stale: dict[int, np.ndarray] = {}
    learnt: dict[int, np.ndarray] = {}
    drifted = []
    taken = absorbed = 0
    for k, truth in enumerate(scenes):
        a = k / max(1, n - 1)
        empty = empty_frame(truth)
        image = cv2.imread(str(Path(truth["_dir"]) / truth["image"]), cv2.IMREAD_COLOR)
        frame, board = drift(image, a, 2 * k), drift(empty, a, 2 * k + 1)
        cv2.imwrite(str(out_dir / truth["image"]), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        t = {**truth, "_dir": str(out_dir)}
        drifted.append(t)
        key = int(truth["scene"])
        stale[key] = empty
        # the table's learner, its picture the stale one: does it take the empty board, refuse the dice?
        perceiver = perceiver_for(truth, reader)
        perceiver.set_empty(empty)
        learner = EmptyLearning(perceiver)
        ok = learner.judge(board) is None
        taken += ok
        learnt[key] = board if ok else empty
        perceiver.set_empty(empty)
        absorbed += learner.judge(frame) is None
    res = {
        "stale": evaluate(drifted, reader, empty=lambda t: stale[int(t["scene"])]),
        "learnt": evaluate(drifted, reader, empty=lambda t: learnt[int(t["scene"])]),
    }
    return {"n": n, "taken": taken, "absorbed": absorbed, "res": res, "scenes": scenes}


def alone(folder: Path, split: str, limit: int, reader: Any) -> str:
    """Issue 30's audit (`vision.empty_diff.EmptyDiff.ask_alone`): each scene read as shot (no drift)
    against its empty table with the pieces that lie alone asked about and without: the readings it
    adds, and how many lie on a die of the truth."""
    scenes = load_scenes(split, folder)[: limit or None]
    added = on_die = 0
    for truth in scenes:
        image = cv2.imread(str(Path(truth["_dir"]) / truth["image"]), cv2.IMREAD_COLOR)
        empty = empty_frame(truth)
        got = {}
        for on in (False, True):
            perceiver = perceiver_for(truth, reader)
            perceiver.where.ask_alone = on
            got[on] = perceiver.perceive(image, empty=empty).dice
        for d in got[True]:
            if d.center is None or any(d.center == e.center for e in got[False]):
                continue
            added += 1
            for t in truth["dice"]:
                q = np.asarray(t["top_quad_px"], np.float32)
                if np.hypot(*(q.mean(axis=0) - np.asarray(d.center))) < 0.6 * np.sqrt(
                    abs(cv2.contourArea(q))
                ):
                    on_die += 1
                    break
    return (
        f"| {folder} ({len(scenes)} scenes), as shot | readings the lone pieces add (asked) "
        "| of them on a die |\n"
        f"|---|---|---|\n| | {added} | {on_die} |\n"
    )


def table(folder: Path, got: dict[str, Any]) -> str:
    a, b = dict(summary(got["res"]["stale"])), dict(summary(got["res"]["learnt"]))
    seeds = sorted({s["seed"] for s in got["scenes"]})
    lines = [
        f"| {folder} (seed {', '.join(map(str, seeds))}, {got['n']} scenes), light drifting | "
        "stale empty table | learnt again |",
        "|---|---|---|",
    ]
    lines += [f"| {key} | {a[key]} | {b[key]} |" for key in ROWS]
    lines.append(
        f"| empty boards under the drifted light the learner takes | - | {got['taken']} / {got['n']} |"
    )
    lines.append(
        f"| frames with dice it would take (absorbed; target 0) | - | {got['absorbed']} / {got['n']} |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_sets(ap)
    ap.add_argument("--markdown", type=Path, help="also write the tables to this file")
    ap.add_argument(
        "--alone", action="store_true", help="instead: what asking about the pieces that lie alone adds"
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    sets = args.set or [ROOT / "tests" / "fixtures" / "lowcontrast"]
    if args.smoke:
        args.limit = 3
    cv2.setNumThreads(1)
    reader = default_reader()
    out = [run_header(), ""]
    for folder in sets:
        if args.alone:
            out.append(alone(folder, args.split, args.limit, reader))
        else:
            with tempfile.TemporaryDirectory(prefix="dicetable_relearn_") as tmp:
                got = run_set(folder, args.split, args.limit, reader, Path(tmp))
            out.append(table(folder, got))
        print(out[-1], flush=True)
    text = "\n".join(out)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
