"""The numbered reader on REAL photos never trained on: the section `vision_numbered.py` reports first.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered            # real sets, then the renders
    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered --real-only  # the real sets alone

Sets (`training/numbered/real.py`: loaders and the fixed split by set-up):

* `d20_lurig`, the held-out set-ups (d20_top, d20_wood) first, then the train set-ups (d20_color,
  d20_off-angle) for reference: one d20 a crop.  The die's reading is the one nearest the crop's
  centre within CENTRE_SHARE of its width (the die is roughly centred); every other reading is a
  phantom.  Kind right: that reading is a d20; value right: and shows the labelled face.
* `d20_desk_scenes`: one d20 a photo, no box.  Found: a d20 reading anywhere; every reading but the
  surest d20 one is a phantom (a d20 misread as another kind is counted a phantom here: without a box
  the two cannot be told apart).
* `negatives`: no die; every reading is a phantom.  Also reported by source: the held-out sources
  (scikit-image, EasyOCR: 12 photos) and the train sources the not-a-die nets learn from
  (rsandrini desks, opencv_contrib scene text: 32 photos; `training.dataset.negative_held_out`).
* with `table=True`, `d20_lurig` again at the table's scale (`real.at_table`: each crop shrunk 0.45
  into a 3456x2592 still of its border colour, the die ~100 px as a table's still shows it; the
  crop's centre and width for the scoring are the shrunk crop's): the close-ups as they are make the
  detector find numerals rather than dice.

Silent errors: readings the table would score without asking (confidence >= SURE, the table's
`confidence_threshold`) that are wrong (kind or value) or phantoms.  Readings are as `dicetable read`
makes them (`vision.numbered.read_all`, the pip-d6 reader merged with the numbered reader), with the
kinds the run names.  d10 and percentile d10 have no real set (INDEX.md): no real figure for them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import imread, markdown_table, median, nearest_centre, spaced
from training.dataset import negative_held_out
from training.numbered.real import GROUPS, HELD_OUT_GROUPS, TABLE_SCALE, at_table, load_images, load_lurig
from vision.reading import DieReading

SURE = 0.8
# negatives/ by source (training.dataset.NEGATIVE_HELD_OUT_SOURCES): the not-a-die nets (issue 19's
# for pip d6, issue 20's for numbered dice) are trained on the train sources' photos
NEGATIVE_PARTS = ("negatives, held-out sources", "negatives, train sources")
CENTRE_SHARE = 0.3

Read = Callable[[np.ndarray], Sequence[DieReading]]


@dataclass
class Tally(harness.Tally):
    photos: int = 0
    dice: int = 0
    kind_right: int = 0
    value_right: int = 0
    found: int = 0  # desk scenes: photos with a d20 reading
    missed: int = 0
    asked: int = 0  # the die's reading under SURE (the table asks)
    phantoms: int = 0
    readings: int = 0
    silent: int = 0
    ms: list[float] = field(default_factory=list)

    def row(self, name: str, kind: str) -> list[object]:
        n = max(1, self.dice)
        die = (
            [
                f"{self.kind_right} ({100 * self.kind_right / n:.1f} %)",
                f"{self.value_right} ({100 * self.value_right / n:.1f} %)",
                self.missed,
                self.asked,
            ]
            if self.dice
            else ["-"] * 4
        )
        found = f"{self.found} of {self.photos}" if name.startswith("d20_desk") else "-"
        per = self.phantoms / max(1, self.photos)
        phantoms = f"{self.phantoms} ({per:.2f} a photo)"
        return [
            name,
            kind,
            self.photos,
            *die,
            found,
            phantoms,
            f"{self.silent} of {self.readings}",
            f"{median(self.ms):.0f}",
        ]


def _timed(read: Read, img: np.ndarray, t: Tally) -> list[DieReading]:
    t0 = time.process_time()
    got = list(read(img))
    t.ms.append((time.process_time() - t0) * 1000)
    t.photos += 1
    t.readings += len(got)
    return got


def score_crop(t: Tally, got: list[DieReading], face: int, size: tuple[int, int]) -> None:
    """One d20_lurig crop: the reading nearest the centre is the die's, the rest phantoms."""
    h, w = size
    t.dice += 1
    i = nearest_centre([r.center for r in got], (w, h), within=CENTRE_SHARE)
    die = None if i is None else got[i]
    rest = [r for r in got if r is not die]
    if die is None:
        t.missed += 1
    else:
        ok_kind = die.kind == "d20"
        ok = ok_kind and die.value == face
        t.kind_right += ok_kind
        t.value_right += ok
        if die.confidence < SURE:
            t.asked += 1
        elif not ok:
            t.silent += 1
    t.phantoms += len(rest)
    t.silent += sum(r.confidence >= SURE for r in rest)


def score_scene(t: Tally, got: list[DieReading], has_d20: bool) -> None:
    """A desk scene (one d20, no box) or a negative (no die)."""
    d20 = [r for r in got if r.kind == "d20"] if has_d20 else []
    die = max(d20, key=lambda r: r.confidence, default=None)
    t.found += die is not None
    rest = [r for r in got if r is not die]
    t.phantoms += len(rest)
    t.silent += sum(r.confidence >= SURE for r in rest)


def table_view(read: Read, img: np.ndarray, t: Tally) -> tuple[list[DieReading], tuple[int, int]]:
    """A d20_lurig crop read at the table's scale (`at_table`): the readings with their centres in the
    shrunk crop's pixels, and the shrunk crop's size."""
    frame = at_table(img)
    h, w = img.shape[:2]
    sh, sw = round(h * TABLE_SCALE), round(w * TABLE_SCALE)
    y0, x0 = (frame.shape[0] - sh) // 2, (frame.shape[1] - sw) // 2
    got = [replace(r, center=(r.center[0] - x0, r.center[1] - y0)) for r in _timed(read, frame, t)]
    return got, (sh, sw)


def run(read: Read, root: Path, limit: int | None = None, table: bool = False) -> dict[str, Tally]:
    """Tallies per set (d20_lurig per set-up, d20_desk_scenes, negatives); `limit`: at most that many
    photos a set, evenly spaced (a quick look, not the reported figure); `table`: d20_lurig read
    at the table's scale too (`table_view`; tallies "d20_lurig@table/GROUP")."""
    tallies: dict[str, Tally] = {}
    lurig = load_lurig(root)
    for group in GROUPS:
        items = [x for x in lurig if x.group == group]
        t = tallies.setdefault(f"d20_lurig/{group}", Tally())
        tt = tallies.setdefault(f"d20_lurig@table/{group}", Tally()) if table else None
        for x in spaced(items, limit):
            img = imread(x.path)
            score_crop(t, _timed(read, img, t), x.face, img.shape[:2])
            if tt is not None:
                got, size = table_view(read, img, tt)
                score_crop(tt, got, x.face, size)
    for folder, has in (("d20_desk_scenes", True), ("negatives", False)):
        t = tallies.setdefault(folder, Tally())
        for p in spaced(load_images(root, folder), limit):
            got = _timed(read, imread(p), t)
            score_scene(t, got, has)
            if folder == "negatives":  # and by source: the not-a-die nets train on the train sources
                part = "held-out sources" if negative_held_out(p) else "train sources"
                tp = tallies.setdefault(f"negatives, {part}", Tally())
                tp.photos, tp.readings = tp.photos + 1, tp.readings + len(got)
                tp.ms.append(t.ms[-1])
                score_scene(tp, got, has)
    return tallies


def report(runs: list[tuple[str, dict[str, Tally]]]) -> str:
    """Markdown: per reader (`runs`: its name and tallies), the held-out sets first, then the train
    set-ups of d20_lurig."""
    held = [f"d20_lurig/{g}" for g in HELD_OUT_GROUPS]
    train = [f"d20_lurig/{g}" for g in GROUPS if g not in HELD_OUT_GROUPS]
    lines = [
        "## Real photos never trained on (held out by set-up or source), first",
        "",
        "Sets and split: `training/numbered/real.py`; scoring: `benchmarks/vision_numbered_heldout.py`. "
        f"Silent = wrong or phantom readings at confidence >= {SURE} (scored unasked), of all readings. "
        "Asked: the die's reading under that (the table asks a person). No real d10 or percentile d10 "
        "set exists (fixtures INDEX.md): their figures are the renders' below.",
        "",
    ]
    table = []
    for name, tallies in runs:
        rows = [(k, tallies[k]) for k in held] + [
            ("d20_lurig held-out, both", tallies[held[0]] + tallies[held[1]]),
            ("d20_desk_scenes", tallies["d20_desk_scenes"]),
            ("negatives", tallies["negatives"]),
        ]
        rows += [(k, tallies[k]) for k in NEGATIVE_PARTS if k in tallies]
        at = [f"d20_lurig@table/{g}" for g in HELD_OUT_GROUPS]
        if all(k in tallies for k in at):
            rows += [(k, tallies[k]) for k in at]
            rows.append(("d20_lurig@table held-out, both", tallies[at[0]] + tallies[at[1]]))
        for k, t in rows:
            kind = "none" if k.startswith("negatives") else "d20"
            table.append([name, *t.row(f"**{k}**" if "both" in k else k, kind)])
    lines += markdown_table([*HEAD, "ms a photo (median, one core)"], table)
    lines += [
        "",
        "d20_lurig train set-ups (not held out: for reference, and what a classifier may be trained on):",
        "",
    ]
    lines += markdown_table(
        [*HEAD, "ms a photo"],
        (
            [name, *tallies[k].row(k, "d20")]
            for name, tallies in runs
            for k in train + [f"d20_lurig@table/{g}" for g in GROUPS if g not in HELD_OUT_GROUPS]
            if k in tallies
        ),
    )
    return "\n".join(lines) + "\n"


HEAD = (
    "reader",
    "set",
    "kind",
    "photos",
    "kind right",
    "value right",
    "die missed",
    "die asked",
    "d20 found",
    "phantoms",
    "silent",
)
