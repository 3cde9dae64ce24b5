"""Die colours on real photos, named among the colours present: today's way and the table's way
after issue 30, same run.

Truth: `benchmarks/labels/d6_colours.csv`, every die of the held-out byler_d6 photos (42 photos, 370
dice, many plastics under one light) and of the skovy_d6 scenes (15 frames, 30 dice, a red and a
cream die on a grey floor in daylight), labelled by eye (how: the CSV's head).  Each die's body
colour is read as the reader reads it (`vision.face.body_labs`: the middle of the die's box, pips
left out) from its labelled box, so the figure is the naming's alone.  The colours in play are
those labelled in the photo, plus white and black (what the table adds for things that are not
dice, controller.adapters.NOT_DICE).  The photos have no board: the table's way balances each
frame by its own light (`vision.palette.frame_light`).

Columns: before: the default palette cut to the colours in play as the table did before issue 30
(its nine colours: a die of another colour, such as teal, maroon or brown, cannot be named right)
and its Lab distance; before + known colours: the same distance with every colour in play known
(`Palette.known`); after: the table's way (`Palette.known` + `Palette.balanced_by_frame` +
`vision.palette.chroma_distance`).

    nice -n 10 .venv/bin/python -m benchmarks.colours_real [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import REAL, ROOT, add_smoke, imread, run_header
from vision.face import body_labs
from vision.palette import Palette

LABELS = ROOT / "benchmarks" / "labels" / "d6_colours.csv"
NOT_DICE = ("white", "black")  # controller.adapters.NOT_DICE
COLUMNS = ("before", "before + known colours", "after")


def load_labels(path: Path = LABELS) -> dict[str, list[dict[str, Any]]]:
    """The labelled dice by photo (its path under fixtures/real): box and colour."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in csv.DictReader(lines):
        box = tuple(int(row[k]) for k in ("x0", "y0", "x1", "y1"))
        out.setdefault(row["image"], []).append({"box": box, "colour": row["colour"]})
    return out


def namers(image: np.ndarray, present: set[str]) -> dict[str, Palette]:
    """The three ways of naming a die of this photo, among the colours present."""
    in_play = present | set(NOT_DICE)
    old = replace(Palette.default(), metric="lab").only(in_play)
    return {
        "before": old,
        "before + known colours": replace(Palette.known(in_play), metric="lab"),
        "after": Palette.known(in_play).balanced_by_frame(image),
    }


def run(smoke: bool = False) -> dict[str, Any]:
    labels = load_labels()
    photos = sorted(labels)
    if smoke:
        photos = [p for p in photos if "byler" in p][:2] + [p for p in photos if "skovy" in p][:1]
    tally: dict[str, Counter[str]] = {}
    wrong: dict[str, Counter[str]] = {}
    for photo in photos:
        source = photo.split("/")[0]
        image = imread(REAL / photo)
        dice = labels[photo]
        crops = [image[y0:y1, x0:x1] for x0, y0, x1, y1 in (d["box"] for d in dice)]
        # body_labs wants crops of one size (it reads the middle of each)
        side = max(max(c.shape[:2]) for c in crops)
        labs = body_labs([cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA) for c in crops])
        ways = namers(image, {d["colour"] for d in dice})
        for key in (source, "all"):
            c = tally.setdefault(key, Counter())
            c["dice"] += len(dice)
            for d, lab in zip(dice, labs, strict=True):
                for col, pal in ways.items():
                    got = pal.nearest_lab(lab)[0]
                    c[col] += got == d["colour"]
                    if got != d["colour"] and key == "all":
                        wrong.setdefault(col, Counter())[f"{d['colour']}->{got}"] += 1
    return {"tally": tally, "wrong": wrong, "photos": len(photos)}


def markdown(res: dict[str, Any]) -> str:
    lines = [
        f"Photos: {res['photos']}; colour right among the colours present (labelled by eye, "
        "benchmarks/labels/d6_colours.csv), each die read at its labelled box.",
        "",
        "| photos | dice | " + " | ".join(COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    names = {"byler_d6": "byler_d6 held-out", "skovy_d6": "skovy_d6 scenes", "all": "all"}
    for key, c in res["tally"].items():
        cells = [f"{100 * c[k] / max(1, c['dice']):.2f} % ({c[k]})" for k in COLUMNS]
        lines.append(f"| {names.get(key, key)} | {c['dice']} | " + " | ".join(cells) + " |")
    lines += ["", "Wrong (truth->named), all photos:", ""]
    for col in COLUMNS:
        worst = ", ".join(f"{k} {n}" for k, n in res["wrong"].get(col, Counter()).most_common(8)) or "-"
        lines.append(f"- {col}: {worst}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    text = run_header(argv, "benchmarks.colours_real") + "\n" + markdown(run(args.smoke))
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
