"""A learnt set read back on the frames it was taught from (issue 44 item 2), and on the later rolls.

    nice -n 10 .venv/bin/python -m benchmarks.learn_readback --group d20_wood --scale own \
        --out benchmarks/results/learn_readback.md

One d20_lurig set-up (`--group`: one die per face; d20_top (top-down on white) and d20_wood (hand-held
over wood) are held out, d20_off-angle and d20_color the set-ups to tune on).  Each photo is laid in a
frame the photo's border colour round it (`benchmarks.table_stills.frames_of`'s way) at a `--scale`:
"own", the photo's own pixels in a 4608x2592 still (d20_lurig's dice are 220-280 px: in the gate's
1280-wide video frame of that view they are ~60 px, `benchmarks.table_stills`); "60", shrunk so the
set-up's median die is 60 px (the die's size measured, `die_size`, never assumed), blurred by a short
straight motion (BLUR px, a direction a frame) and laid in a 1280x720 frame: the hidden test's die
(~60 px, some motion blur) in the frame the camera gives; "table", the scale of
`training.numbered.real.at_table` (a 3456x2592 still, 0.45 of the photo: the figures before this
round).  `--empty`: the still without the photo (its border colour) given as the empty table, to
learning and reading alike: a true empty table on d20_top's white card, not on wood (the wood round
the die differs from one colour everywhere).

For each face, ROLLS frames spaced over its frames are taught as `dicetable learn-dice see`/`confirm`
teach them: each frame's dice found as the learning step finds them, each cut as it cuts them, the
crops grouped, each group named by the face most of its crops show (a careful person confirming: a
crop grouped with another face's is taught that face).  Then the taught frames are read back as
`dicetable read --config` reads them (the perception step with the set, kinds d20), and the face's
other frames (the later rolls, never taught).  Before and after in one run:

* before: the learning step as it was (the perception step's dice alone: a frame it reads none in
  teaches nothing; the crop round the top face; `learn_dice.cluster` on those crops);
* after: `learn_dice.dice_in` (in a frame the perception step reads no die in, the detector's
  strongest peak: `read` keeps it when the set knows it), the die's own crop (`DiceSet.crop` "die":
  centred, scaled and turned on its settled outline, cut from the still itself, the same function
  for learning and `read`), grouped by `learn_dice.group_faces` (crops of dice of other
  colours kept apart, `learn_dice.die_lab`, as `see` groups them).

Value right: the reading nearest the middle is a d20 showing the label (asked or not); by the set:
read by the learnt set (a `LearntReading`); silent: wrong at >= 0.8.  Groups: how many groups the
crops fell in, a face's crops in how many groups (mean), crops taught wrong.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import add_smoke, imread, markdown_table, nearest_centre, run_header, share, write
from training.numbered.real import GROUPS, Lurig, at_table, default_root, load_lurig
from vision.numbered.embed import TURNS
from vision.numbered.learnt import DiceSet
from vision.numbered.reader import NumberedReader

ROLLS = 4  # the measure: 4 rolls of each face taught
SURE = 0.8  # the table's confidence_threshold
SMOKE_FACES = 2
STILL = (4608, 2592)
#: the gate's video frame of the same view (`benchmarks.table_stills`: 1280 wide)
VIDEO = (1280, 720)
#: the hidden test's die, px, and its motion blur: a straight streak this long, a direction a frame
DIE = 60.0
BLUR = 3
SCALES = ("own", "60", "table")
METHODS = ("before", "after, box", "after")


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


def die_size(photos: Iterable[np.ndarray]) -> float:
    """The median longer side (px) of the die's outline in one-die photos: the die cut out of each
    photo by GrabCut (started from the photo's middle three quarters, at half size), the largest
    piece's least turned rectangle."""
    sides = []
    for p in photos:
        small = cv2.resize(p, (p.shape[1] // 2, p.shape[0] // 2), interpolation=cv2.INTER_AREA)
        h, w = small.shape[:2]
        mask = np.zeros((h, w), np.uint8)
        bg, fg = np.zeros((1, 65)), np.zeros((1, 65))
        cv2.grabCut(small, mask, (w // 8, h // 8, w * 3 // 4, h * 3 // 4), bg, fg, 4, cv2.GC_INIT_WITH_RECT)
        die = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(die)
        if n > 1:
            big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
            _, (rw, rh), _ = cv2.minAreaRect(cv2.findNonZero((labels == big).astype(np.uint8)))
            sides.append(2.0 * max(rw, rh))
    return float(np.median(sides)) if sides else float("nan")


def blurred(img: np.ndarray, length: int, angle: float) -> np.ndarray:
    """`img` streaked by a straight motion `length` px long at `angle` degrees."""
    if length <= 1:
        return img
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    a = math.radians(angle)
    for t in np.linspace(-c, c, 4 * length):
        k[round(c + t * math.sin(a)), round(c + t * math.cos(a))] = 1.0
    return cv2.filter2D(img, -1, k / k.sum())


def staged(photo: np.ndarray, scale: str, k: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(frame, empty table) of a photo at `scale` (module docstring); `k`: the photo's shrink for "60"."""
    if scale == "table":
        frame = at_table(photo)
        empty = np.empty_like(frame)
        empty[:] = frame[0, 0]
        return frame, empty
    size = STILL
    if scale == "60":
        photo = cv2.resize(photo, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        photo = blurred(photo, BLUR, float(np.random.default_rng(seed).uniform(0, 180)))
        size = VIDEO
    h, w = photo.shape[:2]
    edge = np.concatenate([photo[0], photo[-1], photo[:, 0], photo[:, -1]])
    empty = np.empty((size[1], size[0], 3), np.uint8)
    empty[:] = np.median(edge, 0)
    frame = empty.copy()
    y0, x0 = (size[1] - h) // 2, (size[0] - w) // 2
    frame[y0 : y0 + h, x0 : x0 + w] = photo
    return frame, empty


Frames = list[tuple[Lurig, np.ndarray, np.ndarray | None]]


def learn(reader: NumberedReader, frames: Frames, method: str = "after") -> tuple[DiceSet, dict[str, Any]]:
    """A set taught as `learn-dice see` and `confirm` teach it (module docstring; `method`: before,
    after, or "after, box": after with the set keeping the crops round the top face), and its
    grouping: groups, groups a face (mean), crops taught wrong, frames that taught nothing."""
    from controller.learn_dice import (
        cluster,
        dice_in,
        die_lab,
        group_faces,
        learning_perceiver,
        ocr_of,
    )

    values, kept, face, whole, missed = [], [], [], [], 0
    ocr: list[tuple[int, float] | None] = []
    after = method != "before"
    crop = "die" if method == "after" else "box"
    perceivers = {e: learning_perceiver("d20", None, e, reader) for e in (False, True)}
    for x, img, empty in frames:
        perceiver = perceivers[empty is not None]
        if empty is not None:
            perceiver.set_empty(empty)
        if after:
            dice = dice_in(perceiver, reader, img, "d20")
        else:
            dice = [d.to_json() for d in perceiver.perceive(img).dice]
        i = nearest_centre([tuple(d["center"]) for d in dice], (img.shape[1], img.shape[0]))
        if i is None:
            missed += 1
            continue
        values.append(x.face)
        die = [dice[i]]
        if not after:  # as learn-dice see was: cut at the reading's box, grouped on the box crops
            kept.append(reader.crops_of(img, die, "box", at_peak=False)[0])
            face.append(kept[-1])
            continue
        steps = perceiver.where.steps(img)  # as `see` cuts them: where `read` finds the die
        kept.append(reader.crops_of(img, die, crop, empty, steps)[0])
        face.append(reader.crops_of(img, die, "face", empty, steps)[0])
        whole.append(kept[-1] if crop == "die" else reader.crops_of(img, die, "die", empty, steps)[0])
        ocr += ocr_of(reader, img, die, "d20", empty)
    embed = reader.embedder().embed
    turned = embed(kept, TURNS)
    if after:
        groups = group_faces(embed(face, TURNS), embed(whole, TURNS), ocr, looks=die_lab(whole))
    else:
        groups = cluster(embed(face, TURNS))
    named = {
        g: Counter(v for v, k in zip(values, groups, strict=True) if k == g).most_common(1)[0][0]
        for g in groups
    }
    taught = np.array([named[g] for g in groups], np.int64)
    per_face = [len({g for v, g in zip(values, groups, strict=True) if v == f}) for f in set(values)]
    s = DiceSet("readback", "d20", "", reader.embedder().digest, taught, turned[:, 0], crop=crop)
    mixed = [
        sorted(
            {
                (v, o[0] if o else None)
                for v, k, o in zip(values, groups, ocr or [None] * len(values), strict=True)
                if k == g
            }
        )
        for g in named
        if len({v for v, k in zip(values, groups, strict=True) if k == g}) > 1
    ]
    return s, {
        "mixed": mixed,
        "groups": len(named),
        "per_face": float(np.mean(per_face)),
        "wrong": int(np.sum(taught != np.array(values))),
        "missed": missed,
    }


def read(
    reader: NumberedReader, frames: Iterable[tuple[Lurig, np.ndarray, np.ndarray | None]], learnt: DiceSet
) -> dict[str, int]:
    """The frames read as `dicetable read --config` reads them: the perception step with the set."""
    from controller.config import VisionSection
    from controller.perceive import Perceiver
    from vision.numbered import NumberedDice

    t = {"frames": 0, "right": 0, "learnt": 0, "learnt_right": 0, "silent": 0}
    plain = Perceiver.of(NumberedDice(("d20",), learnt, reader), VisionSection(), kinds=("d20",))
    emptied = Perceiver.of(
        NumberedDice(("d20",), learnt, reader), VisionSection(empty_table=True), kinds=("d20",)
    )
    for x, img, empty in frames:
        perceiver = plain if empty is None else emptied
        if empty is not None:
            perceiver.set_empty(empty)
        got = [d for d in perceiver.perceive(img).dice if d.center is not None]
        i = nearest_centre([g.center for g in got if g.center is not None], (img.shape[1], img.shape[0]))
        t["frames"] += 1
        r = got[i] if i is not None else None
        if r is None:
            continue
        ok = r.kind == "d20" and r.value == x.face
        t["right"] += ok
        by_set = bool(getattr(r, "learnt", None))
        t["learnt"] += by_set
        t["learnt_right"] += ok and by_set
        t["silent"] += (not ok) and (r.confidence or 0.0) >= SURE
    return t


def measure(
    group: str, smoke: bool, scale: str = "own", empty: bool = False, rolls: int = ROLLS, later_every: int = 0
) -> tuple[list[list[object]], float, float]:
    """One row a method and a side (taught frames, later rolls when `later_every`) of `group`; the
    set-up's median die (px, in the photos) and the shrink for "60"."""
    items = [x for x in load_lurig(default_root()) if x.group == group]
    if smoke:
        keep = sorted({x.face for x in items})[:SMOKE_FACES]
        items = [x for x in items if x.face in keep]
    taught, later = taught_and_later(items, 2 if smoke else rolls)
    later = later[:: max(1, later_every)][: 2 if smoke else None] if later_every else []
    reader = NumberedReader()
    size = die_size(imread(x.path) for x in items[:: max(1, len(items) // 40)])
    k = min(1.0, DIE / size) if math.isfinite(size) else 1.0

    def frames(xs: list[Lurig]) -> Frames:
        out: Frames = []
        for x in xs:
            img, bare = staged(imread(x.path), scale, k, x.frame)
            out.append((x, img, bare if empty else None))
        return out

    taught_imgs = frames(taught)
    rows: list[list[object]] = []
    for method in METHODS:
        s, g = learn(reader, taught_imgs, method)
        for side, fs in (("taught frames", taught_imgs), ("later rolls", frames(later))):
            if not fs:
                continue
            t = read(reader, fs, s)
            n = t["frames"]
            rows.append(
                [
                    f"{group}, {len(s.faces)} faces, {method} ({s.crop} crop)",
                    f"{len(s.values)} crops ({g['missed']} frames none), {g['groups']} groups, "
                    f"{g['per_face']:.2f} a face, {g['wrong']} taught wrong",
                    side,
                    n,
                    f"**{share(t['right'], n, places=1)}**",
                    share(t["learnt"], n, places=1),
                    share(t["learnt_right"], t["learnt"], places=1),
                    t["silent"],
                ]
            )
    return rows, size, k


HEAD = (
    "set, method",
    "taught",
    "read",
    "frames",
    "value right",
    "read by the set",
    "of those right",
    "silent",
)


def main() -> None:
    ap = argparse.ArgumentParser(description="a learnt set read back on its own learn frames")
    ap.add_argument("--group", choices=GROUPS, default="d20_top", help="the d20_lurig set-up taught")
    ap.add_argument(
        "--scale", choices=SCALES, default="own", help="the photos' own pixels, a 60 px die, or at_table's"
    )
    ap.add_argument(
        "--empty", action="store_true", help="give the still without the photo as the empty table"
    )
    ap.add_argument("--later-every", type=int, default=0, help="read every n-th later roll too (0: none)")
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    a = ap.parse_args()
    t0 = time.perf_counter()
    rows, size, k = measure(a.group, a.smoke, a.scale, a.empty, later_every=a.later_every)
    lines = [
        "# A learnt set read back on its own learn frames (issue 44 item 2)",
        "",
        run_header(),
        f"{2 if a.smoke else ROLLS} frames of each face taught (spaced over its frames); scale {a.scale} "
        f"(the set-up's median die {size:.0f} px in its photos"
        + (f", shrunk by {k:.3f} to {DIE:.0f} px, motion blur {BLUR} px" if a.scale == "60" else "")
        + f"); empty table {'given' if a.empty else 'not given'}; {time.perf_counter() - t0:.0f} s.",
        "",
        *markdown_table(HEAD, rows),
    ]
    write("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
