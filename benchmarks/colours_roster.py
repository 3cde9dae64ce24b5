"""Die colours of real photos named from the table's learnt dice (issue 44 item 5) against the palette
(issue 45 item 3), same run.

Truth: the by-eye colour labels of `benchmarks/colours_real.py` (`benchmarks/labels/d6_colours*.csv`):
byler_d6 (its held-out photos and the two labelled train samples, 81 photos, one collection of dice
photographed on a table) and the skovy_d6 scenes (15 frames, a red and a cream die).  The labels give
a colour class per die, not which physical die it is, so a "die" of the roster here is a colour
class: each class is learnt from every labelled die of that colour in the first 3 photos (by name)
that show it, and read on the photos that taught no class at all (held out by photo).  The roster of
a set is every class learnt from it: the table knows all its dice, whichever are in the photo.

Each die's body is read from its labelled box as `colours_real` reads it (`vision.face.body_colour_labs`
of the box grown by the reader's margin) and balanced by the frame's light (`Palette.balanced_by_frame`).

Columns: palette: the table's way without a roster (`Palette.known` of the colours labelled in the
photo plus white and black, `near_two`: a die between two colours is asked); roster: the nearest
learnt look (`vision.looks.LearntPalette`, every class of the set; a die between two looks, or far
from all, is asked); roster, colours in play: the same cut to the colours labelled in the photo.
Right: named right and not asked; silent: named wrong and not asked (per 500 dice); asked.

    nice -n 10 .venv/bin/python -m benchmarks.colours_roster [--markdown FILE] [--smoke]
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from benchmarks.colours_real import LABELS, NOT_DICE, TRAIN_LABELS, TUNE_LABELS, by_box, load_labels
from benchmarks.harness import REAL, add_smoke, imread, run_header, write
from vision.looks import LearntPalette, Look
from vision.palette import Palette

LEARN_PHOTOS = 3
COLUMNS = ("palette", "roster", "roster, colours in play")


def sightings(smoke: bool = False) -> dict[str, dict[str, list[tuple[str, np.ndarray, Palette]]]]:
    """By set, by photo: each labelled die's (colour, body Lab as seen, the photo's palette)."""
    labels = load_labels(LABELS)
    labels.update(load_labels(TRAIN_LABELS))
    labels.update(load_labels(TUNE_LABELS))
    out: dict[str, dict[str, list[tuple[str, np.ndarray, Palette]]]] = {}
    photos = sorted(labels)
    if smoke:
        photos = [p for p in photos if "byler" in p][:12] + [p for p in photos if "skovy" in p][:6]
    for photo in photos:
        image = imread(REAL / photo)
        dice = labels[photo]
        pal = Palette.known({d["colour"] for d in dice} | set(NOT_DICE)).balanced_by_frame(image)
        labs = dict(by_box(image, dice))
        out.setdefault(photo.split("/")[0], {})[photo] = [
            (d["colour"], labs[i], pal) for i, d in enumerate(dice)
        ]
    return out


def split(photos: dict[str, list[tuple[str, np.ndarray, Palette]]]) -> tuple[dict[str, list[str]], list[str]]:
    """Each class's learn photos (the first LEARN_PHOTOS showing it) and the photos that taught none."""
    learn: dict[str, list[str]] = {}
    for photo in sorted(photos):
        for colour in {c for c, _, _ in photos[photo]}:
            if len(learn.setdefault(colour, [])) < LEARN_PHOTOS:
                learn[colour].append(photo)
    taught = {p for ps in learn.values() for p in ps}
    return learn, [p for p in sorted(photos) if p not in taught]


def run(smoke: bool = False) -> dict[str, Any]:
    tally: dict[str, Counter[str]] = {}
    wrong: dict[str, Counter[str]] = {}
    info: dict[str, dict[str, int]] = {}
    for source, photos in sightings(smoke).items():
        learn, test = split(photos)
        looks = {
            colour: Look.learn(pal.balance_lab(lab) for p in ps for c, lab, pal in photos[p] if c == colour)
            for colour, ps in learn.items()
        }
        roster = LearntPalette.of(looks)
        info[source] = {"photos": len(photos), "learn photos": len(photos) - len(test), "classes": len(looks)}
        for photo in test:
            present = {c for c, _, _ in photos[photo]}
            for want, lab, pal in photos[photo]:
                ways = {
                    "palette": pal,
                    "roster": replace(roster, light=pal.light),
                    "roster, colours in play": replace(roster.only(present), light=pal.light),
                }
                for key in (source, "all"):
                    c = tally.setdefault(key, Counter())
                    c["dice"] += 1
                    for col, way in ways.items():
                        got, near = way.near_two(lab)
                        if near is not None:
                            c[f"{col} asked"] += 1
                        elif got == want:
                            c[f"{col} right"] += 1
                        else:
                            c[f"{col} silent"] += 1
                            if key == "all":
                                wrong.setdefault(col, Counter())[f"{want}->{got}"] += 1
    return {"tally": tally, "wrong": wrong, "info": info}


def markdown(res: dict[str, Any]) -> str:
    sets = "; ".join(
        f"{s}: {i['photos']} photos, {i['classes']} colour classes learnt from {i['learn photos']}"
        for s, i in sorted(res["info"].items())
    )
    lines = [
        f"Sets: {sets}; read on the others (held out by photo). Right = named right, not asked; "
        "silent = named wrong, not asked (per 500 dice); asked = a die between two colours (or far "
        "from every learnt look).",
        "",
        "| photos | dice | " + " | ".join(f"{c}: right / silent per 500 / asked" for c in COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    for key, c in sorted(res["tally"].items(), key=lambda kv: (kv[0] == "all", kv[0])):
        n = max(1, c["dice"])
        cells = [
            f"{100 * c[f'{k} right'] / n:.2f} % / {500 * c[f'{k} silent'] / n:.1f} / "
            f"{100 * c[f'{k} asked'] / n:.2f} %"
            for k in COLUMNS
        ]
        lines.append(f"| {key} | {c['dice']} | " + " | ".join(cells) + " |")
    lines += ["", "Silently wrong (truth->named):", ""]
    for key in sorted(res["wrong"]):
        lines.append(f"- {key}: " + ", ".join(f"{k} {n}" for k, n in res["wrong"][key].most_common(10)))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=__import__("pathlib").Path, help="also write the table to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    text = run_header(argv, "benchmarks.colours_roster") + "\n" + markdown(run(args.smoke))
    write(text, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
