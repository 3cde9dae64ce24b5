"""A learnt die at ~60 px read by its colour-pixel template mixed into the likeness (issue 44), before
(the embedding alone) and after (`vision.numbered.template`), on cached crops, in one run.

    nice -n 15 .venv/bin/python -m benchmarks.learnt_template --out benchmarks/results/learnt_template.md

Each d20_lurig set-up's frames are made as `benchmarks.learnt_cli` makes them (the die measured and laid
at DIE_PX px with a BLUR px motion blur at a random place of the fixed 1280x720 table with its relay
board; 4 rolls a face from the first halves of the clips taught, every frame of the second halves
read), and each die cut as `learn-dice see` and `read` cut it: at the detector's peak holding its true
centre (`NumberedReader.peaks`), the die's own crop (`die_crop`), with the empty table ("its empty
table") and without ("no empty table").  A set of the taught crops (each with its true face, as a
careful person names them) reads each later crop by `DiceSet.match` as the reader reads a small die
(margin 0, then a match not MARGIN clear left to the classifier unless read by the template too, its
nearest face then asked; `Match.trusted` at the reader's TRUST_SUPPORT and TRUST_MARGIN): right,
wrong, left to the classifier, and of those read, sure (trusted) right and wrong.  Before: the set
without pixels (the embedding alone); after: the set with its crops' pixels.  ``--weights`` adds rows
of other template weights (`template.WEIGHT`), train set-ups only: how the weight was chosen.

The TRAIN set-ups (d20_off-angle, d20_color) chose every setting; d20_top and d20_wood are held out.
What this leaves out: the classifier (a crop left to it is mostly read wrong at this size) and the
reader's other steps; `benchmarks.learnt_cli` runs the commands themselves.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import learnt_cli
from benchmarks.harness import REAL, add_smoke, imread, markdown_table, run_header, write
from training.numbered.real import GROUPS, HELD_OUT_GROUPS, load_lurig
from vision.numbered import template
from vision.numbered.embed import TURNS
from vision.numbered.learnt import DiceSet

VIEWS = ("its empty table", "no empty table")


@dataclass
class Crops:
    faces: np.ndarray  # N true faces
    taught: np.ndarray  # N bools
    crops: dict[str, list[np.ndarray]]  # view -> N die crops


def cut(group: str, tmp: Path, smoke: bool) -> Crops:
    """The set-up's frames (as `learnt_cli` lays them) and each die's crop as `read` cuts it."""
    from vision.numbered.die_crop import die_crop
    from vision.numbered.reader import default_reader, holding

    reader = default_reader()
    items = [x for x in load_lurig(REAL) if x.group == group]
    taught_items, later_items = learnt_cli.split(items, 1 if smoke else learnt_cli.ROLLS, 1)
    if smoke:
        later_items = later_items[:4]
    empty = learnt_cli.empty_table(learnt_cli.table_colour(items))
    measured = learnt_cli.sizes(items)
    shots = [
        (s, True) for s in learnt_cli.shots(taught_items, measured, empty, tmp / "learn", learnt_cli.SEED)
    ] + [
        (s, False) for s in learnt_cli.shots(later_items, measured, empty, tmp / "later", learnt_cli.SEED + 1)
    ]
    faces, taught, crops = [], [], {v: [] for v in VIEWS}  # type: ignore[var-annotated]
    for s, t in shots:
        img = imread(s.path)
        peaks = reader.peaks(img)
        f = holding(peaks, s.centre)
        if f is None:
            near = [p for p in peaks if math.dist(p.box_center, s.centre) <= learnt_cli.DIE_PX]
            f = min(near, key=lambda p: math.dist(p.box_center, s.centre)) if near else None
        box, side = (s.centre, learnt_cli.DIE_PX * 1.3) if f is None else (f.box_center, max(f.w, f.h))
        crops[VIEWS[0]].append(die_crop(img, box, side, empty))
        crops[VIEWS[1]].append(die_crop(img, box, side, None))
        faces.append(s.face)
        taught.append(t)
    return Crops(np.array(faces), np.array(taught), crops)


def score(c: Crops, view: str, embedder: object, pixels: bool) -> tuple[int, ...]:
    """(later rolls, right, wrong, left to the classifier, sure right, sure wrong) of the set of the
    taught crops (with their pixels or not) reading the later crops as a small die's."""
    from vision.numbered.reader import TRUST_MARGIN, TRUST_SUPPORT

    crops = c.crops[view]
    taught = [x for x, t in zip(crops, c.taught, strict=True) if t]
    later = [x for x, t in zip(crops, c.taught, strict=True) if not t]
    truth = c.faces[~c.taught]
    stored = embedder.embed(taught, 1)[:, 0]  # type: ignore[attr-defined]
    kept = np.stack([template.pixels_of(x) for x in taught]) if pixels else None
    dice = DiceSet("die", "d20", "", "", c.faces[c.taught], stored, trust=True, crop="die", pixels=kept)
    turned = {
        "die": embedder.embed(later, TURNS),  # type: ignore[attr-defined]
        "pixels": template.turned(later),
        "small": np.ones(len(later), bool),
    }
    right = wrong = left = sure_right = sure_wrong = 0
    # as `NumberedReader.read_at` and `candidates` read a small die (the OCR head loaded: margin 0,
    # then a match no MARGIN clear is dropped unless the set read it by its pixels too)
    for face, m in zip(truth, dice.match(turned, 0.0), strict=True):
        if m is None or (not m.clear and not m.template):
            left += 1
            continue
        ok = m.value == int(face)
        right += ok
        wrong += not ok
        sure = m.trusted(TRUST_SUPPORT, TRUST_MARGIN) and m.likeness >= learnt_cli.SURE
        sure_right += sure and ok
        sure_wrong += sure and not ok
    return (len(later), right, wrong, left, sure_right, sure_wrong)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", action="store_true", help="rows of other template weights (train only)")
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    from vision.numbered.reader import default_reader

    embedder = default_reader().embedder()
    rows: list[list[object]] = []
    # held-out first, as every figure of issue 44
    groups = sorted(GROUPS[:1] if a.smoke else GROUPS, key=lambda g: g not in HELD_OUT_GROUPS)
    was = template.WEIGHT
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for group in groups:
                c = cut(group, Path(tmp) / group, a.smoke)
                split = "held out" if group in HELD_OUT_GROUPS else "train"
                for view in VIEWS:
                    rows.append(
                        [group, split, view, "before: the embedding alone", *score(c, view, embedder, False)]
                    )
                    weights = (was,) + ((0.3, 0.7, 1.0) if a.weights and split == "train" else ())
                    for w in weights:
                        template.WEIGHT = w
                        tag = f"after: template weight {w}" + (" (chosen)" if w == was else "")
                        rows.append([group, split, view, tag, *score(c, view, embedder, True)])
                    template.WEIGHT = was
    finally:
        template.WEIGHT = was
    text = [
        "# A learnt die at ~60 px read with its colour-pixel template (issue 44)",
        "",
        run_header(),
        "",
        *markdown_table(
            (
                "set-up",
                "split",
                "crops",
                "set",
                "later rolls",
                "right",
                "wrong",
                "left to the classifier",
                "sure: right",
                "sure: wrong (silent)",
            ),
            rows,
        ),
        f"\n{time.perf_counter() - t0:.0f} s.",
    ]
    write("\n".join(text) + "\n", a.out)


if __name__ == "__main__":
    main()
