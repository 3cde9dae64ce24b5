"""Benchmark the d6 reader against the classic pip-blob baseline on the shared real photos.

    nice -n 10 .venv/bin/python benchmarks/vision_d6.py [--real DIR] [--out FILE.md] [--models SPEC ...]

Per labelled set and split (train / held-out, by training.dataset.is_held_out): detection
recall and precision (a detection matches a labelled die when its centre lies inside
that die's box), per-die read accuracy (right value among all labelled dice), images
entirely right, and median / p95 milliseconds per image on one core (decoding excluded).
``--models DIR[,key=value...]`` (repeatable) adds a reader with the d6 models of DIR beside the
committed ones, in the same run (keys: det, reject, suppress, sure, apart, rotations, long; see
``reader_from_spec``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hardware.drawn import random_scene  # noqa: E402
from training.baseline import read_dice_classic  # noqa: E402
from training.dataset import LabelledImage, apply_corrections, is_held_out, load_all, load_rendered  # noqa: E402
from vision import read_dice, read_die_crop  # noqa: E402
from vision.reader import DiceReader  # noqa: E402

Reader = Callable[[np.ndarray], list[tuple[tuple[float, float], int]]]


@dataclass
class Tally:
    labelled: int = 0
    detections: int = 0
    matched: int = 0
    right: int = 0
    images: int = 0
    images_right: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)

    def add(
        self,
        truth: Sequence[tuple[tuple[float, float, float, float], int]],
        found: Sequence[tuple[tuple[float, float], int]],
        ms: float,
        cpu_ms: float,
    ) -> None:
        used: set[int] = set()
        right = 0
        for box, value in truth:
            inside = [
                i
                for i, ((x, y), _) in enumerate(found)
                if i not in used and box[0] <= x <= box[2] and box[1] <= y <= box[3]
            ]
            if not inside:
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            best = min(inside, key=lambda i: (found[i][0][0] - cx) ** 2 + (found[i][0][1] - cy) ** 2)
            used.add(best)
            right += found[best][1] == value
        self.labelled += len(truth)
        self.detections += len(found)
        self.matched += len(used)
        self.right += right
        self.images += 1
        self.images_right += right == len(truth) and len(found) == len(truth)
        self.ms.append(ms)
        self.cpu_ms.append(cpu_ms)

    def row(self, crops: bool) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f} %" if b else "-"

        def count(a: int, b: int) -> str:  # to two places, with the counts: 99.46 % is not 99.5 %
            return f"{100 * a / b:.2f} % ({a}/{b})" if b else "-"

        def p95(v: list[float]) -> str:
            v = sorted(v)
            return f"{v[min(len(v) - 1, int(0.95 * len(v)))]:.1f}" if v else "-"

        def med(v: list[float]) -> str:
            return f"{statistics.median(v):.1f}" if v else "-"

        return [
            str(self.images),
            str(self.labelled),
            "-" if crops else count(self.matched, self.labelled),
            "-" if crops else count(self.matched, self.detections),
            count(self.right, self.labelled),
            pct(self.images_right, self.images),
            med(self.ms),
            p95(self.ms),
            med(self.cpu_ms),
            p95(self.cpu_ms),
        ]


SPEC_KEYS = {
    "det": "det_threshold",
    "reject": "reject_threshold",
    "suppress": "suppress_radius",
    "sure": "sure",
    "apart": "apart_sure",
}


def reader_from_spec(spec: str) -> DiceReader:
    """A d6 reader from ``DIR[,key=value...]``: the models in DIR (d6_detector.onnx and
    d6_classifier.onnx) and optional settings det, reject, suppress, sure (crops read less surely
    upright are read at the other turns), apart (`vision.reader.coarse_wins`; 2 never keeps fine
    dice apart, as before session 6) (floats), rotations (int) and
    long (int: the detector sees the frame with its long side this many pixels, neither halved nor
    shrunk further; the reader's default halves it and keeps it within 352-640)."""
    folder, *pairs = spec.split(",")
    kw: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        try:
            if not sep or key not in (*SPEC_KEYS, "rotations", "long"):
                raise ValueError
            if key == "long":
                kw["det_long_side"] = (int(value), int(value))
            else:
                kw[SPEC_KEYS.get(key, key)] = int(value) if key == "rotations" else float(value)
        except ValueError:
            raise SystemExit(
                f"--models {spec!r}: expected DIR[,key=value...] with keys det, reject, suppress, sure, "
                "apart (numbers) "
                f"or rotations, long (whole numbers), got {pair!r}"
            ) from None
    d = Path(folder)
    for name in ("d6_detector.onnx", "d6_classifier.onnx"):
        if not (d / name).is_file():
            raise SystemExit(f"--models {spec!r}: {d / name} does not exist")
    return DiceReader(detector=d / "d6_detector.onnx", classifier=d / "d6_classifier.onnx", **kw)


def readers_of(reader: DiceReader) -> tuple[Reader, Reader]:
    def scene(img: np.ndarray) -> list[tuple[tuple[float, float], int]]:
        return [(r.center, r.value) for r in reader.read(img)]

    def crop(img: np.ndarray) -> list[tuple[tuple[float, float], int]]:
        r = reader.read_crop(img)
        return [(r.center, r.value)]

    return scene, crop


def product(img: np.ndarray) -> list[tuple[tuple[float, float], int]]:
    return [(r.center, r.value) for r in read_dice(img)]


def product_crop(img: np.ndarray) -> list[tuple[tuple[float, float], int]]:
    r = read_die_crop(img)
    return [(r.center, r.value)]


def timed(reader: Reader, img: np.ndarray) -> tuple[list[tuple[tuple[float, float], int]], float, float]:
    """The reading, wall-clock ms, and CPU ms of this process (not inflated by other jobs)."""
    c, t = time.process_time(), time.perf_counter()
    found = reader(img)
    return found, (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def truth_of(item: LabelledImage, img: np.ndarray) -> list[tuple[tuple[float, float, float, float], int]]:
    h, w = img.shape[:2]
    out = []
    for d in item.dice:
        box = d.box if d.box[2] > d.box[0] else (0.0, 0.0, float(w), float(h))
        out.append((box, d.value))
    return out


def synthetic(
    n: int, seed: int = 7
) -> list[tuple[np.ndarray, list[tuple[tuple[float, float, float, float], int]]]]:
    """Drawn 1280x960 felt tables with 10 dice each (the lead's demo-frame setting)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        img, dice = random_scene(rng, 960, 1280, n=10, size_range=(50, 110))
        truth = []
        for d in dice:
            q = np.array(d.quad)
            truth.append(((q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()), d.value))
        out.append((img, truth))
    return out


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "fixtures" / "real")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "vision_d6.md")
    ap.add_argument("--rendered", type=Path, default=ROOT / "tests" / "fixtures" / "rendered")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--synthetic", type=int, default=30, help="drawn 1280x960 10-dice frames to add")
    ap.add_argument(
        "--models",
        action="append",
        default=[],
        metavar="DIR[,key=value...]",
        help="also read with the d6 models in DIR (repeatable; keys det, reject, suppress, sure, apart, "
        "rotations, long)",
    )
    ap.add_argument(
        "--corrections",
        type=Path,
        default=ROOT / "benchmarks" / "byler_label_corrections.csv",
        help="held-out byler_d6 label corrections judged by eye (also reported against the labels as given)",
    )
    args = ap.parse_args()
    cv2.setNumThreads(1)
    load_before = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    console = Console(stderr=True)
    sets = load_all(args.real)
    corrected: dict[Path, LabelledImage] = {}
    if args.corrections.is_file() and "byler_d6" in sets:
        fixed, n_fixed = apply_corrections(sets["byler_d6"], args.corrections)
        corrected = {i.path: i for i in fixed if is_held_out(i.path.name)}
        corrected_split = f"held-out, {n_fixed} labels corrected"
    if args.rendered.is_dir() and any(args.rendered.glob("scene_*.json")):
        sets["project rendered boards"] = load_rendered(args.rendered)
    readers: dict[str, tuple[Reader, Reader]] = {"dicetable": (product, product_crop)}
    if not args.no_baseline:
        readers["classic blobs+DBSCAN"] = (read_dice_classic, read_dice_classic)
    for spec in args.models:
        reader = reader_from_spec(spec)
        reader.read(np.zeros((64, 64, 3), np.uint8))
        readers[f"models {spec}"] = readers_of(reader)
    tallies: dict[tuple[str, str, str], Tally] = {}
    total = sum(len(v) for v in sets.values()) + args.synthetic
    read_dice(np.zeros((64, 64, 3), np.uint8))  # load the models before timing
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("reading photos", total=total)
        for set_name, items in sets.items():
            crops = set_name.endswith("crops")
            for item in items:
                img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
                if img is None:
                    raise SystemExit(f"{item.path}: not a readable image")
                split = "held-out" if is_held_out(item.path.name) else "train"
                if set_name.startswith("project"):
                    split = "scenes not trained on"
                truth = truth_of(item, img)
                for rname, (r_scene, r_crop) in readers.items():
                    found, ms, cpu = timed(r_crop if crops else r_scene, img)
                    tallies.setdefault((set_name, split, rname), Tally()).add(truth, found, ms, cpu)
                    if item.path in corrected:
                        tallies.setdefault((set_name, corrected_split, rname), Tally()).add(
                            truth_of(corrected[item.path], img), found, ms, cpu
                        )
                progress.advance(task)
        for img, truth in synthetic(args.synthetic):
            for rname, (r_scene, _) in readers.items():
                found, ms, cpu = timed(r_scene, img)
                tallies.setdefault(("drawn 1280x960, 10 dice", "-", rname), Tally()).add(
                    truth, found, ms, cpu
                )
            progress.advance(task)

    head = [
        "set",
        "split",
        "reader",
        "images",
        "dice",
        "recall",
        "precision",
        "read accuracy",
        "images right",
        "median ms",
        "p95 ms",
        "median CPU ms",
        "p95 CPU ms",
    ]
    table = Table(*head, title="pip d6 reading")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    set_order = {k[0]: i for i, k in reversed(list(enumerate(tallies)))}
    split_rank = {"train": 0, "held-out": 1}
    ordered = sorted(tallies.items(), key=lambda kv: (set_order[kv[0][0]], split_rank.get(kv[0][1], 2)))
    for (set_name, split, rname), t in ordered:
        row = [set_name, split, rname, *t.row(set_name.endswith("crops"))]
        table.add_row(*row)
        lines.append("| " + " | ".join(row) + " |")
    console.print(table)
    cmd = "nice -n 10 .venv/bin/python benchmarks/vision_d6.py"
    cmd += "".join(f" --models {m}" for m in args.models)
    text = (
        "# Vision: pip d6 reading (issue 4)\n\n"
        f"Reproduce: `{cmd}` (one core: cv2.setNumThreads(1); timings exclude decoding the file).\n\n"
        "Split: by image, held out when sha1(file name)[:8] % 5 == 0 (training/dataset.py); models were\n"
        "trained and thresholds tuned on the train part only. A detection matches a labelled die when its\n"
        "centre lies inside that die's box. Read accuracy = dice read with the right value / all labelled\n"
        "dice. Crops (skovy_d6/crops) are single-die images read with `read_die_crop`; the baseline counts\n"
        "the pips it finds in the crop. The drawn set is hardware.drawn scenes (seed 7).\n\n"
        + "\n".join(lines)
        + "\n\n"
        + f"Machine: {os.cpu_count()} cores shared with other jobs; load average {load_before} at the start "
        f"and {' / '.join(f'{v:.1f}' for v in os.getloadavg())} at the end of this run. Wall-clock ms are "
        "inflated by that load; CPU ms (this process's CPU time) are closer to an idle core.\n\n"
        "Notes: targets for byler_d6 held-out are read accuracy >= 99.5 % and precision >= 99.5 %, skovy "
        "crops >= 99 %, median <= 15 ms per 640x640 photo and <= 40 ms per 1280x960 frame with 10 dice. "
        "'project rendered boards' are tests/fixtures/rendered (the calibration area's renders: tilted "
        "camera, ArUco markers, printed zones; seed 20261121): the models never saw these scenes, but were "
        "trained on 300 others from the same generator (seed 4242, training/d6/renders.py), so this set "
        "is not a test of generalisation to new kinds of picture; a die counts when its reading's centre "
        "falls in its top "
        "face's box grown by a quarter; dice less than half visible are left out. The classic baseline: "
        "median blur 5, SimpleBlobDetector (area 8-400, circularity and inertia >= 0.6) on a 640 px copy, "
        "pips grouped by single-link distance 25 px (DBSCAN, min_samples 1), value = pips in the group.\n\n"
        "Labels corrected: the 'held-out, N labels corrected' rows read the same held-out photos against "
        f"the labels with the corrections of `{shown(args.corrections)}` "
        "applied (values a person judged wrong on the audit sheet, and dice the labels miss); the "
        "'held-out' rows are against the labels as given.\n\n"
        "Label audit: `.venv/bin/python benchmarks/label_audit.py --split heldout` lists every held-out "
        "label the reader disagrees with and every reading on no labelled die, with a contact sheet to judge "
        "by eye (see benchmarks/RESULTS.md for what it shows).\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
