"""A learnt set read back on the frames it was taught from (issue 44 item 2), and on the later rolls.

    nice -n 10 .venv/bin/python -m benchmarks.learn_readback --out benchmarks/results/learn_readback.md

One d20_lurig set-up (`--group`, default d20_top: one die per face, top-down on white) at the table's
scale (`training.numbered.real.at_table`: a die ~100 px of a 3456x2592 still).  For each face, ROLLS
frames spaced over its frames are taught as `dicetable learn-dice see`/`confirm` teach them: each
frame read by the learning perception step (`controller.learn_dice.learning_perceiver`, d20s alone),
the die nearest the middle cut by `NumberedReader.crops_of`, embedded, grouped (`learn_dice.cluster`),
each group named by the face most of its crops show (a careful person confirming: a crop grouped with
another face's is taught that face).  Then the taught frames are read back (`read`, kinds d20, the
set given), and the face's other frames (the later rolls, never taught).

Crops: "box" (the classifier's crop round the top face, the detector's box: before issue 44) and "die"
(`vision.numbered.die_crop`: centred, scaled and turned on the die's outline, the set keeping these,
grouped on the box crops: whole-die crops of one die's faces are alike, grouped on them 5 of 38 wood
crops were taught wrong, against 1), in one run.  The set names its crop (`DiceSet.crop`, as
`learn-dice see` writes it) and `read` matches it on that crop.  Value
right: the reading nearest the middle is a d20 showing the label (asked or not); by the set: read by
the learnt set (a `LearntReading`); silent: wrong at >= 0.8.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.harness import add_smoke, imread, markdown_table, nearest_centre, run_header, share, write
from training.numbered.real import GROUPS, Lurig, at_table, default_root, load_lurig
from vision.numbered.embed import TURNS
from vision.numbered.learnt import DiceSet, LearntReading
from vision.numbered.reader import NumberedReader
from vision.reading import DieReading

ROLLS = 4  # the measure: 4 rolls of each face taught
SURE = 0.8  # the table's confidence_threshold
CROPS = ("box", "die")
SMOKE_FACES = 2


def taught_and_later(items: list[Lurig], rolls: int) -> tuple[list[Lurig], list[Lurig]]:
    """For each face: `rolls` frames spaced evenly over its frames, and the rest."""
    taught, later = [], []
    for face in sorted({x.face for x in items}):
        mine = sorted((x for x in items if x.face == face), key=lambda x: x.frame)
        n = min(rolls, len(mine))
        pick = {round(i * (len(mine) - 1) / max(1, n - 1)) for i in range(n)}
        taught += [x for i, x in enumerate(mine) if i in pick]
        later += [x for i, x in enumerate(mine) if i not in pick]
    return taught, later


def learn(
    reader: NumberedReader, frames: list[tuple[Lurig, np.ndarray]], crop: str = "box"
) -> tuple[DiceSet, int, int]:
    """A set taught as `learn-dice see` and `confirm` teach it (module docstring), its number of
    groups, and how many crops were taught a face they do not show (their group named otherwise)."""
    from controller.learn_dice import cluster, learning_perceiver

    perceiver = learning_perceiver("d20", None, False, reader)
    values, crops, boxed = [], [], []
    for x, img in frames:
        dice = [d.to_json() for d in perceiver.perceive(img).dice]
        i = nearest_centre([tuple(d["center"]) for d in dice], (img.shape[1], img.shape[0]))
        if i is not None:
            values.append(x.face)
            crops.append(reader.crops_of(img, [dice[i]], crop)[0])
            boxed.append(reader.crops_of(img, [dice[i]], "box")[0])
    turned = reader.embedder().embed(crops, TURNS)
    groups = cluster(reader.embedder().embed(boxed, TURNS))
    named = {
        g: Counter(v for v, k in zip(values, groups, strict=True) if k == g).most_common(1)[0][0]
        for g in groups
    }
    taught = np.array([named[g] for g in groups], np.int64)
    digest = reader.embedder().digest
    return (
        DiceSet("readback", "d20", "", digest, taught, turned[:, 0], crop=crop),
        len(named),
        int(np.sum(taught != values)),
    )


def read(reader: NumberedReader, frames: list[tuple[Lurig, np.ndarray]], learnt: DiceSet) -> dict[str, int]:
    t = {"frames": 0, "right": 0, "learnt": 0, "learnt_right": 0, "silent": 0}
    for x, img in frames:
        got = reader.read(img, kinds=("d20",), learnt=learnt)
        i = nearest_centre([g.center for g in got], (img.shape[1], img.shape[0]))
        t["frames"] += 1
        r = got[i] if i is not None else None
        if not isinstance(r, DieReading):
            continue
        ok = r.kind == "d20" and r.value == x.face
        t["right"] += ok
        t["learnt"] += isinstance(r, LearntReading)
        t["learnt_right"] += ok and isinstance(r, LearntReading)
        t["silent"] += (not ok) and r.confidence >= SURE
    return t


def measure(group: str, smoke: bool, rolls: int = ROLLS, later_every: int = 1) -> list[list[object]]:
    """One row a crop and a side (taught frames, later rolls) of `group`."""
    items = [x for x in load_lurig(default_root()) if x.group == group]
    if smoke:
        keep = sorted({x.face for x in items})[:SMOKE_FACES]
        items = [x for x in items if x.face in keep]
    taught, later = taught_and_later(items, 2 if smoke else rolls)
    later = later[:: max(1, later_every)][: 2 if smoke else None]
    taught_imgs = [(x, at_table(imread(x.path))) for x in taught]
    reader = NumberedReader()
    rows: list[list[object]] = []
    for crop in CROPS:
        s, groups, wrong = learn(reader, taught_imgs, crop)  # the set names its crop (`DiceSet.crop`)
        sides = [
            ("taught frames", taught_imgs),
            ("later rolls", ((x, at_table(imread(x.path))) for x in later)),
        ]
        for side, frames in sides:
            t = read(reader, list(frames), s)
            n = t["frames"]
            rows.append(
                [
                    f"{group}, {len(s.faces)} faces, {crop} crop",
                    f"{len(s.values)} crops, {groups} groups, {wrong} taught wrong",
                    side,
                    n,
                    f"**{share(t['right'], n, places=1)}**",
                    share(t["learnt"], n, places=1),
                    share(t["learnt_right"], t["learnt"], places=1),
                    t["silent"],
                ]
            )
    return rows


HEAD = ("set, crop", "taught", "read", "frames", "value right", "read by the set", "of those right", "silent")


def main() -> None:
    ap = argparse.ArgumentParser(description="a learnt set read back on its own learn frames")
    ap.add_argument("--group", choices=GROUPS, default="d20_top", help="the d20_lurig set-up taught")
    ap.add_argument("--later-every", type=int, default=1, help="read every n-th later roll (quick runs)")
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    a = ap.parse_args()
    t0 = time.perf_counter()
    rows = measure(a.group, a.smoke, later_every=a.later_every)
    lines = [
        "# A learnt set read back on its own learn frames (issue 44 item 2)",
        "",
        run_header(),
        f"{2 if a.smoke else ROLLS} frames of each face taught (spaced over its frames); "
        f"{time.perf_counter() - t0:.0f} s.",
        "",
        *markdown_table(HEAD, rows),
    ]
    write("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
