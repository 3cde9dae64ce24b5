"""Where to set the table's confidence threshold, and does the confidence mean what it says.

    nice -n 10 .venv/bin/python -m benchmarks.confidence [--split train|heldout]
    nice -n 10 .venv/bin/python -m benchmarks.confidence --reliability [--steep N] [--out FILE.md]

A reading below ``table.confidence_threshold`` goes to a person instead of
being scored.  For each threshold this prints, over the labelled byler_d6
photos of one split: the share of matched readings accepted without asking,
and the value accuracy of the accepted ones.  Choose the threshold on the
train split; the held-out split shows what it does on photos never tuned on.

``--reliability`` (issue 35): reliability tables (confidence bins against the share read right) on
each real held-out set, then on renders seen 30-60 degrees off vertical with no calibration
(``training.render.oblique.STEEP``, seed STEEP_HELDOUT_SEED), for the reader before issue 35
(``doubt=False``), the reader now, and the reader now with the tilt estimated from the dice; a
reading is right when it lies in a labelled die's box (``benchmarks.harness.match_boxes``, as
vision_d6 counts) and reads its value, so a reading on no labelled die (a phantom, or a die read
twice) is wrong.  The diagrams are drawn to a PNG beside the report.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from benchmarks.harness import (
    REAL,
    RESULTS,
    ROOT,
    add_smoke,
    markdown_table,
    match_boxes,
    run_header,
    shown,
    spaced,
    truth_of,
    write,
)
from benchmarks.vision_d6 import ASK
from training.dataset import (
    LabelledImage,
    apply_corrections,
    d20_desk_held_out,
    is_held_out,
    load_all,
    load_byler,
    load_no_d6,
    negative_held_out,
    read_image,
    split_of,
)
from training.render.oblique import STEEP, STEEP_HELDOUT_SEED, make_scene
from vision import read_dice
from vision.reader import DiceReader

THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
SMOKE_PHOTOS = 3  # --smoke: photos read (a set), renders read
#: the reliability bins' lower edges (the last bin holds 1.0)
BINS = (0.0, 0.3, 0.5, 0.8, 0.9, 0.95, 0.99)
#: issue 19's tilt hypotheses (the reader before issue 35)
OLD_TILTS = (15.0, 30.0, 45.0)
CORRECTIONS = ROOT / "benchmarks" / "byler_label_corrections.csv"

Scored = list[tuple[float, bool]]  # (confidence, right) per reading


def matched_readings(split: str, real: Path = REAL, limit: int | None = None) -> list[tuple[float, bool]]:
    """(confidence, value right) for every reading whose centre lies in a labelled box (the first
    such box; ``limit``: that many photos of the split, spaced)."""
    out = []
    items = [item for item in load_byler(real) if split_of(item.path) == split]
    if not items:
        raise SystemExit(f"--real: no byler_d6 photos of the {split} split under {real}")
    for item in spaced(items, limit):
        for r in read_dice(read_image(item.path)):
            x, y = r.center
            for d in item.dice:
                x0, y0, x1, y1 = d.box
                if x0 <= x <= x1 and y0 <= y <= y1:
                    out.append((r.confidence, r.value == d.value))
                    break
    return out


def scored(truth: list[tuple[tuple[float, float, float, float], int]], found: list) -> Scored:
    """(confidence, right) for each reading (centre, value, confidence) against the labelled dice."""
    matched = match_boxes([box for box, _ in truth], [f[0] for f in found])
    value_of = {i: v for i, (_, v) in zip(matched, truth, strict=True) if i is not None}
    return [(float(c), value_of.get(i) == v) for i, (_, v, c) in enumerate(found)]


def real_sets(real: Path, limit: int | None) -> Iterator[tuple[str, str, list[tuple[np.ndarray, list]]]]:
    """(set name, kind, [(image, truth)]) for each real held-out set: byler_d6 (the audited label
    corrections applied), skovy_d6 scenes and crops, the photos with no d6 (every reading wrong)."""
    sets = load_all(real)
    byler = [i for i in sets["byler_d6"] if is_held_out(i.path.name)]
    if CORRECTIONS.is_file():
        byler = [i for i in apply_corrections(sets["byler_d6"], CORRECTIONS)[0] if is_held_out(i.path.name)]

    def loaded(items: list[LabelledImage], keep: Callable[[LabelledImage, np.ndarray], bool]) -> list:
        out = []
        for item in items:
            img = read_image(item.path)
            if keep(item, img):
                out.append((img, truth_of(item, img)))
        return spaced(out, limit)

    held = lambda item, img: is_held_out(item.path.name)  # noqa: E731
    yield "byler_d6 held-out (labels corrected)", "scene", loaded(byler, lambda i, m: True)
    yield "skovy_d6 scenes held-out", "scene", loaded(sets["skovy_d6/scenes"], held)
    yield "skovy_d6 crops held-out", "crops", loaded(sets["skovy_d6/crops"], held)
    nodice = [(item, False) for item in load_no_d6(real, "negatives") if negative_held_out(item.path)] + [
        (item, True) for item in load_no_d6(real, "d20_desk_scenes")
    ]
    yield (
        "negatives + d20_desk held-out (no d6)",
        "scene",
        loaded(
            [i for i, _ in nodice],
            lambda i, m: i.path.parent.parent.name == "negatives" or d20_desk_held_out(m),
        ),
    )


def readers() -> dict[str, DiceReader]:
    return {
        "before issue 35": DiceReader(doubt=False),
        "issue 35": DiceReader(),
        "issue 35, tilt estimated": DiceReader(estimate_view=True),
    }


def read_with(reader: DiceReader, img: np.ndarray, kind: str) -> list:
    if kind == "crops":
        r = reader.read_crop(img)
        return [(r.center, r.value, r.confidence)]
    return [(r.center, r.value, r.confidence) for r in reader.read(img)]


def bins_of(rows: Scored) -> list[tuple[float, float, int, int, float]]:
    """(lo, hi, readings, right, mean confidence) per reliability bin."""
    out = []
    edges = [*BINS, 1.0 + 1e-9]
    for lo, hi in itertools.pairwise(edges):
        inside = [(c, ok) for c, ok in rows if lo <= c < hi]
        mean = float(np.mean([c for c, _ in inside])) if inside else float("nan")
        out.append((lo, min(hi, 1.0), len(inside), sum(ok for _, ok in inside), mean))
    return out


COLOURS = {  # BGR
    "before issue 35": (60, 60, 220),
    "issue 35": (200, 120, 30),
    "issue 35, tilt estimated": (40, 160, 40),
}


def draw(panels: list[tuple[str, dict[str, Scored]]], path: Path) -> None:
    """Reliability diagrams, one panel a set: each reader's share right against its mean confidence
    per bin (a dot's area grows with the bin's readings), the diagonal, the asking threshold."""
    size, pad = 360, 50
    cols = min(3, len(panels))
    rows_n = (len(panels) + cols - 1) // cols
    img = np.full((rows_n * (size + 2 * pad), cols * (size + 2 * pad), 3), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for n, (title, by_reader) in enumerate(panels):
        ox, oy = (n % cols) * (size + 2 * pad) + pad, (n // cols) * (size + 2 * pad) + pad

        def at(x: float, y: float, ox: int = ox, oy: int = oy) -> tuple[int, int]:
            return ox + round(x * size), oy + size - round(y * size)

        cv2.rectangle(img, at(0, 0), at(1, 1), (0, 0, 0), 1)
        cv2.line(img, at(0, 0), at(1, 1), (160, 160, 160), 1)
        cv2.line(img, at(ASK, 0), at(ASK, 1), (120, 120, 120), 1, cv2.LINE_AA)
        for t in (0.0, 0.5, 1.0):
            cv2.putText(img, f"{t:g}", (at(t, 0)[0] - 6, at(t, 0)[1] + 16), font, 0.4, (0, 0, 0), 1)
            cv2.putText(img, f"{t:g}", (at(0, t)[0] - 26, at(0, t)[1] + 4), font, 0.4, (0, 0, 0), 1)
        cv2.putText(img, title[:48], (ox, oy - 28), font, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(img, "confidence ->  / share right ^", (ox, oy - 10), font, 0.38, (90, 90, 90), 1)
        for k, (rname, rows) in enumerate(by_reader.items()):
            colour = COLOURS.get(rname, (0, 0, 0))
            pts = [(mean, right / count, count) for _, _, count, right, mean in bins_of(rows) if count]
            for a, b in itertools.pairwise(pts):
                cv2.line(img, at(a[0], a[1]), at(b[0], b[1]), colour, 1, cv2.LINE_AA)
            for x, y, count in pts:
                cv2.circle(
                    img, at(x, y), max(2, min(12, round(2 * np.sqrt(count) / 2))), colour, -1, cv2.LINE_AA
                )
            cv2.putText(img, rname, (ox + 8, oy + 16 + 14 * k), font, 0.38, colour, 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)


def reliability(args: argparse.Namespace) -> None:
    limit = SMOKE_PHOTOS if args.smoke else None
    steep = min(args.steep, SMOKE_PHOTOS) if args.smoke else args.steep
    rd = readers()
    panels: list[tuple[str, dict[str, Scored]]] = []
    for name, kind, items in real_sets(args.real, limit):
        panels.append(
            (
                name,
                {
                    n: [s for img, t in items for s in scored(t, read_with(r, img, kind))]
                    for n, r in rd.items()
                },
            )
        )
        print(name, {n: len(v) for n, v in panels[-1][1].items()}, flush=True)
    renders: dict[str, Scored] = {n: [] for n in rd}
    for i in range(steep):
        img, truth = make_scene(i, STEEP_HELDOUT_SEED, STEEP)
        dice = [(tuple(d["box_px"]), int(d["value"])) for d in truth["dice"]]
        for n, r in rd.items():
            renders[n] += scored(dice, read_with(r, img, "scene"))
    panels.append((f"renders 30-60 deg, no calibration, seed {STEEP_HELDOUT_SEED}", renders))
    png = (args.out or RESULTS / "reliability.md").with_suffix(".png")
    table, summary = [], []
    for name, by_reader in panels:
        for rname, rows in by_reader.items():
            for lo, hi, count, right, mean in bins_of(rows):
                if count:
                    table.append(
                        [
                            name,
                            rname,
                            f"{lo:g}-{hi:g}",
                            count,
                            f"{mean:.3f}",
                            f"{100 * right / count:.2f} % ({right})",
                        ]
                    )
            sure = [ok for c, ok in rows if c >= ASK]
            wrong = len(sure) - sum(sure)
            summary.append(
                [
                    name,
                    rname,
                    len(rows),
                    f"{100 * (len(rows) - len(sure)) / len(rows):.1f} %" if rows else "-",
                    f"{wrong} of {len(sure)}",
                    f"{1000 * wrong / len(sure):.1f}" if sure else "-",
                ]
            )
    lines = [
        "# Confidence: does a reading at or above the asking threshold mean it (issue 35)",
        "",
        run_header(),
        "",
        __doc__.split("\n\n", 3)[3].strip(),
        "",
        f"Asking threshold {ASK:g}. Target: a reading at or above it wrong at most once in 1,000.",
        "",
        *markdown_table(
            ["set", "reader", "readings", f"asked (< {ASK:g})", f"wrong at >= {ASK:g}", "per 1,000 sure"],
            summary,
        ),
        "",
        f"Reliability diagrams: [{png.name}]({png.name}). Bins:",
        "",
        *markdown_table(["set", "reader", "confidence", "readings", "mean confidence", "read right"], table),
        "",
    ]
    if not args.smoke:
        draw(panels, png)
    write("\n".join(lines), args.out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=("train", "heldout"), default="train")
    ap.add_argument("--real", type=Path, default=REAL, help="the shared real photos")
    ap.add_argument("--reliability", action="store_true", help="reliability tables and diagrams (issue 35)")
    ap.add_argument("--steep", type=int, default=200, help="--reliability: renders seen 30-60 degrees")
    ap.add_argument(
        "--out", type=Path, help=f"--reliability: the report (default {shown(RESULTS / 'reliability.md')})"
    )
    add_smoke(ap)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.reliability:
        if args.out is None and not args.smoke:
            args.out = RESULTS / "reliability.md"
        reliability(args)
        return
    rows = matched_readings(args.split, args.real, SMOKE_PHOTOS if args.smoke else None)
    print(run_header())
    print(f"byler_d6 {args.split}: {len(rows)} matched readings\n")
    table = []
    for th in THRESHOLDS:
        acc = [ok for c, ok in rows if c >= th]
        asked = len(rows) - len(acc)
        share = len(acc) / len(rows) if rows else 0.0
        accuracy = sum(acc) / len(acc) if acc else 0.0
        table.append([f"{th:.2f}", f"{share:.1%}", f"{accuracy:.2%}", asked])
    print("\n".join(markdown_table(["threshold", "accepted", "accuracy of accepted", "asked"], table)))


if __name__ == "__main__":
    main()
