"""Die colours on real photos, named among the colours present: today's way and the table's way
after issue 30, same run.

Truth: `benchmarks/labels/d6_colours.csv`, every die of the held-out byler_d6 photos (42 photos, 370
dice, many plastics under one light) and of the skovy_d6 scenes (15 frames, 30 dice, a red and a
cream die on a grey floor in daylight), labelled by eye (how: the CSV's head).  Each die's body
colour is read as the reader reads it (`vision.face.body_labs`: the middle of the die's crop, pips
left out) twice: from the reader's own crop of each die it finds (`vision.read_dice`, as the table
reads; a reading counts for the labelled die whose box holds its centre), and from every labelled
box (grown by the reader's margin), so that figure is the naming's alone, every die.  A random
sample of the byler_d6 train photos (`benchmarks/labels/d6_colours_train.csv`: 15 photos, 126 dice),
labelled after every choice of session 13's naming was made, and a second one
(`benchmarks/labels/d6_colours_tune.csv`: 24 photos, 171 dice), labelled in session 14 to choose the
chroma distance's weights and the teal reference on, are reported apart: the held-out photos were
looked at while choosing session 13's naming, not session 14's.  The colours in play are
those labelled in the photo, plus white and black (what the table adds for things that are not
dice, controller.adapters.NOT_DICE).  The photos have no board: the table's way balances each
frame by its own light (`vision.palette.frame_light`).

Columns: before: the body's colour read as before issue 30 (`vision.face.body_labs`: the median of
the middle after dropping the pixels farthest from its median lightness), the default palette cut to
the colours in play (its nine colours: a die of another colour, such as teal, maroon or brown,
cannot be named right) and its Lab distance; before + known colours: the same with every colour in
play known (`Palette.known`); issue 30: the table's way before issue 45 (the body's colour from the
middle of the crop, `vision.face.COLOUR_BY_BODY` off: the paper round a small die and its white pips
could outvote a dark die's plastic); after: the table's way (`vision.face.body_colour_labs`, `Palette.known`,
`Palette.balanced_by_frame`, `vision.palette.chroma_distance`; the body's colour from the die told
from what lies round it, pips and glints left out, `vision.face.die_pixels`) with issue 45 item 3's
second round's blue reference (a royal blue as cameras see it, `vision.palette.DEFAULT_BGR`); issue
45: the same with the blue before (`vision.palette.blue_before`); session 13: the same
with session 13's chroma weights and teal reference (`vision.palette.session13`), the body read as
in issue 30.

    nice -n 10 .venv/bin/python -m benchmarks.colours_real [--markdown FILE] [--smoke]

``--pairs`` (issue 44 item 5): how far apart each two colours players can have lie, and how many real
dice of either are confused between the two with them alone in play (``--held-out``: on the held-out
photos; else the train ones, on which `controller.setup_check.CLOSE_COLOURS` was chosen).
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

import vision.face
import vision.palette
from benchmarks.harness import REAL, ROOT, add_smoke, imread, run_header, write
from vision.crops import MARGIN
from vision.face import body_colour_labs
from vision.palette import Palette, blue_before, session13

LABELS = ROOT / "benchmarks" / "labels" / "d6_colours.csv"
#: a random sample of the byler_d6 train photos, labelled after every choice of the naming was made
TRAIN_LABELS = ROOT / "benchmarks" / "labels" / "d6_colours_train.csv"
#: a second random sample of the train photos, labelled to choose session 14's weights on
TUNE_LABELS = ROOT / "benchmarks" / "labels" / "d6_colours_tune.csv"
NOT_DICE = ("white", "black")  # controller.adapters.NOT_DICE
COLUMNS = ("before", "before + known colours", "session 13", "issue 30", "issue 45", "after")


def load_labels(path: Path = LABELS) -> dict[str, list[dict[str, Any]]]:
    """The labelled dice by photo (its path under fixtures/real): box and colour."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in csv.DictReader(lines):
        box = tuple(int(row[k]) for k in ("x0", "y0", "x1", "y1"))
        out.setdefault(row["image"], []).append({"box": box, "colour": row["colour"]})
    return out


def namers(image: np.ndarray, present: set[str]) -> dict[str, Palette]:
    """The ways of naming a die of this photo, among the colours present."""
    in_play = present | set(NOT_DICE)
    old = blue_before(replace(Palette.default(), metric="lab").only(in_play))
    after = Palette.known(in_play).balanced_by_frame(image)
    return {
        "before": old,
        "before + known colours": blue_before(replace(Palette.known(in_play), metric="lab")),
        "session 13": session13(blue_before(after)),
        "issue 30": blue_before(after),
        "issue 45": blue_before(after),
        "after": after,
    }


def labelled_die(centre: tuple[float, float], dice: list[dict[str, Any]]) -> int | None:
    """The labelled die whose box holds ``centre`` (the nearest box centre among them), or None."""
    x, y = centre
    inside = [
        (abs(x - (b[0] + b[2]) / 2) + abs(y - (b[1] + b[3]) / 2), i)
        for i, b in enumerate(d["box"] for d in dice)
        if b[0] <= x <= b[2] and b[1] <= y <= b[3]
    ]
    return min(inside)[1] if inside else None


def by_reader(image: np.ndarray, dice: list[dict[str, Any]]) -> list[tuple[int, np.ndarray]]:
    """The body Lab of each labelled die the reader finds (`vision.read_dice`, as the table reads: the
    reader's own crop of the die), by the index of the labelled die whose box holds the reading's
    centre (the nearest box centre when several do)."""
    from benchmarks.colours import _Recorder
    from vision.reader import read_dice

    rec = _Recorder()
    readings = read_dice(image, rec)
    out: dict[int, np.ndarray] = {}
    for r in readings:
        i = labelled_die(r.center, dice)
        if i is not None:
            out.setdefault(i, rec.seen[int(r.colour)])  # type: ignore[attr-defined]
    return sorted(out.items())


def body_read(
    how: str, image: np.ndarray, dice: list[dict[str, Any]], mode: bool, body: bool = True
) -> dict[int, np.ndarray]:
    """`by_reader` or `by_box`, the body's colour read as after issue 30 (``mode``) or as before; with
    ``body`` from the die told from its surroundings, pips left out (issue 45), else from the crop's
    middle."""
    vision.face.COLOUR_BY_MODE, vision.face.COLOUR_BY_BODY = mode, body
    try:
        return dict((by_reader if how == "reader" else by_box)(image, dice))
    finally:
        vision.face.COLOUR_BY_MODE, vision.face.COLOUR_BY_BODY = True, True


def by_box(image: np.ndarray, dice: list[dict[str, Any]]) -> list[tuple[int, np.ndarray]]:
    """The body Lab of every labelled die read from its labelled box (`vision.face.body_colour_labs`
    of the box grown by the reader's margin, vision.crops.MARGIN): the naming alone, every die."""
    h, w = image.shape[:2]
    crops = []
    for x0, y0, x1, y1 in (d["box"] for d in dice):
        cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, MARGIN * max(x1 - x0, y1 - y0) / 2
        a, b = int(max(0, cx - half)), int(max(0, cy - half))
        crops.append(cv2.resize(image[b : int(min(h, cy + half)), a : int(min(w, cx + half))], (64, 64)))
    return list(enumerate(body_colour_labs(crops)))


def run(smoke: bool = False) -> dict[str, Any]:
    labels = load_labels()
    photos = sorted(labels)
    sample = load_labels(TRAIN_LABELS)
    tune = load_labels(TUNE_LABELS)
    if smoke:
        photos = [p for p in photos if "byler" in p][:2] + [p for p in photos if "skovy" in p][:1]
        sample = dict(list(sample.items())[:1])
        tune = dict(list(tune.items())[:1])
    labels.update(sample)
    labels.update(tune)
    sample.update(tune)
    tally: dict[str, Counter[str]] = {}
    wrong: dict[str, Counter[str]] = {}
    for photo in photos + sorted(sample):
        source = (
            ("byler_d6 tune" if photo in tune else "byler_d6 train")
            if photo in sample
            else photo.split("/")[0]
        )
        image = imread(REAL / photo)
        dice = labels[photo]
        ways = namers(image, {d["colour"] for d in dice})
        for how in ("reader", "box"):
            old, new = body_read(how, image, dice, False), body_read(how, image, dice, True)
            mid = body_read(how, image, dice, True, body=False)
            found = sorted(set(old) & set(new) & set(mid))
            keys = (f"{source} | {how}", f"all | {how}")[: 1 if photo in sample else 2]
            for key in keys:
                c = tally.setdefault(key, Counter())
                c["dice"] += len(dice)
                c["found"] += len(found)
                for i in found:
                    want = dice[i]["colour"]
                    # as the table asks (`Palette.near_two`): a die between two colours (issue 45)
                    for col, way in (("issue 45 asks", ways["issue 45"]), ("asks", ways["after"])):
                        got, near = way.near_two(new[i])
                        outcome = "asked" if near is not None else ("right" if got == want else "silent")
                        c[f"{col} {outcome}"] += 1
                        if outcome == "silent" and key == keys[-1]:
                            w = wrong.setdefault(
                                f"{col} | {how} | {group_of(photo, sample, source)}", Counter()
                            )
                            w[f"{want}->{got}"] += 1
                    for col, pal in ways.items():
                        lab = {"after": new, "issue 45": new, "session 13": mid, "issue 30": mid}.get(
                            col, old
                        )[i]
                        got = pal.nearest_lab(lab)[0]
                        c[col] += got == want
                        if got != want and key == keys[-1]:  # once a die, in its group's list
                            group = group_of(photo, sample, source)
                            wrong.setdefault(f"{col} | {how} | {group}", Counter())[f"{want}->{got}"] += 1
    return {
        "tally": tally,
        "wrong": wrong,
        "photos": len(photos),
        "sample": len(sample) - len(tune),
        "tune": len(tune),
    }


def group_of(photo: str, sample: dict[str, Any], source: str) -> str:
    return source.replace("byler_d6 ", "") + " sample" if photo in sample else "held-out + skovy"


ASKS = ("issue 45 asks", "asks")


def markdown(res: dict[str, Any]) -> str:
    lines = [
        f"Photos: {res['photos']} (+ {res['sample']} train photos labelled after session 13's choices, "
        f"+ {res['tune']} train photos labelled to choose session 14's weights on); colour "
        "right among the colours present (labelled by eye, benchmarks/labels/d6_colours*.csv); each "
        "die's body read from the reader's crop (the dice it finds, as the table reads) and from its "
        "labelled box (every die).",
        "",
        "| photos | body read from | dice found / labelled | " + " | ".join(COLUMNS) + " |",
        "|---|---|---|" + "---|" * len(COLUMNS),
    ]
    names = {
        "byler_d6": "byler_d6 held-out",
        "skovy_d6": "skovy_d6 scenes",
        "all": "all (held-out + skovy)",
        "byler_d6 train": "byler_d6 train sample, labelled after session 13's choices",
        "byler_d6 tune": "byler_d6 tune sample (session 14's weights chosen on it)",
    }
    hows = {"reader": "the reader's crop", "box": "the labelled box"}
    for key, c in sorted(res["tally"].items(), key=lambda kv: (kv[0].split(" | ")[1], kv[0])):
        where, how = key.split(" | ")
        cells = [f"{100 * c[k] / max(1, c['found']):.2f} % ({c[k]})" for k in COLUMNS]
        head = f"| {names.get(where, where)} | {hows[how]} | {c['found']}/{c['dice']} | "
        lines.append(head + " | ".join(cells) + " |")
    lines += [
        "",
        "As the table asks (`Palette.near_two`, after: a die between two of the photo's colours, "
        "`vision.palette.COLOUR_ASK_RATIO`): right and not asked / asked / silently wrong.",
        "",
        "| photos | body read from | dice | " + " | ".join(ASKS) + " |",
        "|---|---|---|" + "---|" * len(ASKS),
    ]
    for key, c in sorted(res["tally"].items(), key=lambda kv: (kv[0].split(" | ")[1], kv[0])):
        where, how = key.split(" | ")
        n = max(1, c["found"])
        cells = [
            " / ".join(f"{100 * c[f'{a} {o}'] / n:.2f} %" for o in ("right", "asked", "silent")) for a in ASKS
        ]
        lines.append(
            f"| {names.get(where, where)} | {hows[how]} | {c['found']} | " + " | ".join(cells) + " |"
        )
    lines += ["", "Wrong (truth->named):", ""]
    for key in sorted(res["wrong"]):
        worst = ", ".join(f"{k} {n}" for k, n in res["wrong"][key].most_common(8))
        lines.append(f"- {key}: {worst}")
    return "\n".join(lines) + "\n"


def pairs(smoke: bool = False, held_out: bool = False) -> list[tuple[float, str, str, Counter[str]]]:
    """``--pairs``: each two of the colours players can have (`controller.config.COLOURS`) in play
    alone (with white and black, what the table adds for things that are not dice), the table's way
    without a roster (`Palette.known`, balanced by the frame's light, `near_two`): how far apart
    their references lie (`vision.palette.chroma_distance`) and how many real dice of either colour
    are confused between the two (named the other, or asked with the other beside) from their
    labelled boxes; on the train photos (both samples: `controller.setup_check.CLOSE_COLOURS` was
    chosen on them), or the held-out ones.  Nearest pairs first."""
    import itertools

    from controller.config import COLOURS

    labels = load_labels(LABELS) if held_out else {**load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    if smoke:
        labels = dict(list(labels.items())[:2])
    seen = []
    for photo, dice in sorted(labels.items()):
        image = imread(REAL / photo)
        bodies = dict(by_box(image, dice))
        seen += [(d["colour"], bodies[i], image) for i, d in enumerate(dice) if d["colour"] in COLOURS]
    refs = Palette.known(COLOURS)
    out = []
    for a, b in itertools.combinations(COLOURS, 2):
        c: Counter[str] = Counter()
        for colour, lab, image in seen:
            if colour not in (a, b):
                continue
            other = b if colour == a else a
            got, near = Palette.known({a, b, *NOT_DICE}).balanced_by_frame(image).near_two(lab)
            c["dice"] += 1
            c["confused" if other in (got, near) else "not"] += 1
        d = vision.palette.chroma_distance(np.asarray(refs.lab[a]), np.asarray(refs.lab[b]))
        out.append((d, a, b, c))
    return sorted(out, key=lambda t: t[0])


def pairs_table(rows: list[tuple[float, str, str, Counter[str]]], held_out: bool) -> str:
    from controller.setup_check import CLOSE_COLOURS

    lines = [
        f"Two players' colours in play ({'held-out' if held_out else 'train'} photos, labelled box): "
        "real dice of either colour confused between the two (named the other or asked with it); "
        f"a pair nearer than {CLOSE_COLOURS:g} is noted by check-config and run.",
        "",
        "| colours | apart (chroma distance) | dice | confused |",
        "|---|---|---|---|",
    ]
    for d, a, b, c in rows:
        conf = f"{c['confused']} ({100 * c['confused'] / c['dice']:.1f} %)" if c["dice"] else "- (no dice)"
        lines.append(f"| {a}, {b} | {d:.1f} | {c['dice']} | {conf} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument(
        "--pairs", action="store_true", help="how close each two players' colours are, and real dice confused"
    )
    ap.add_argument(
        "--held-out", action="store_true", help="--pairs on the held-out photos, not the train ones"
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.pairs:
        rows = pairs(args.smoke, args.held_out)
        write(
            run_header(argv, "benchmarks.colours_real") + "\n" + pairs_table(rows, args.held_out),
            args.markdown,
        )
        return 0
    text = run_header(argv, "benchmarks.colours_real") + "\n" + markdown(run(args.smoke))
    write(text, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
