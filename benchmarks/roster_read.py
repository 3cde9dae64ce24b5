"""Real d20s read against the table's roster (issue 44 item 4), before and after, in one run.

    nice -n 10 .venv/bin/python -m benchmarks.roster_read --out benchmarks/results/roster_read.md

A Die-angler table (`read --config`: `Perceiver.from_config`, the game's kinds d6, d10, d20, the
empty table as `[vision] empty_table_frame`) reads real photos each laid in a 4608x2592 still at its
own pixels (`benchmarks.table_stills.frames_of`: the still read with the gate's 1280x720 frame beside
it).  The table was taught two d20s, as `/learn` or `learn-dice see`/`confirm` teach them: the
d20_lurig set-ups d20_top and d20_wood (held out: never trained or tuned on), each taken as one die
(its clips are dice of one look at one set-up: the data has no die rolled on every face), ROLLS frames
of each face from the first half of its clip, each crop cut as the table cuts it
(`NumberedReader.crops_of`) and named its face (a careful person).  The later rolls read are every
STEP-th frame of each clip's second half (never taught); d20_imac1844's green d20 and its two numeral
d6 are dice the roster does not list (another source).

Rows, in one run:
- "no set": the table as it reads untaught dice;
- "before: `[table] dice_set`": both dice's crops in the table's one learnt set (as `/learn` saved
  them before this issue's item 4: the set joins every die of a kind);
- "after: the roster, faces alone": the same crops, one roster entry a die (`[table] roster`), each
  die found matched to an entry and read against its faces (`controller.roster.RosterView`);
- "after: the roster, faces and looks": the entries also keep the look of each roll taught (as
  `/learn` keeps it now): a die whose look is far from its entry's is none of the roster's dice;
- "... trusted" (`--trust`): a taught die's faces read it surely without the OCR head
  (`controller.roster.TRUST_TAUGHT`, the default: chosen with `--train`, the train set-ups
  d20_off-angle and d20_color as the two dice);
- "... the die-centred crop" (`--die`): each die's crops cut on its own outline
  (`vision.numbered.die_crop`, issue 44 item 2; the rows above keep the crop round the top face, as
  `/learn` does): measured, not adopted (fewer values right on the train set-ups).

Value right: the die's reading (nearest the photo's centre) is a d20 showing the label (a d6 for the
numeral d6); unasked: right and at least SURE; silent: a reading at or above SURE that is wrong or a
phantom (per 200 dice); phantoms: every other reading, per frame; roster match right: the reading's
``die`` is the die's entry (none for a die the roster does not list).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, imread, markdown_table, nearest_centre, share
from benchmarks.table_stills import STILL, VIDEO_W, frames_of
from controller import roster
from controller.config import parse_config
from controller.perceive import Perceiver
from controller.roster import Die, save_roster
from training.numbered.real import Lurig, load_lurig
from vision.looks import Look
from vision.numbered.learnt import DiceSet

ROLLS = 4
SURE = 0.8
STEP = 3
#: the roster's dice: (entry id, owner, colour, d20_lurig set-up)
DICE = (("ann-d20", "ann", "red", "d20_top"), ("bob-d20", "bob", "blue", "d20_wood"))
#: --train: the d20_lurig set-ups rules are chosen on (never the held-out ones)
TRAIN = (("ann-d20", "ann", "red", "d20_off-angle"), ("bob-d20", "bob", "blue", "d20_color"))
ROWS = (
    "no set",
    "before: [table] dice_set",
    "after: the roster, faces alone, not trusted",
    "after: the roster, faces and looks, not trusted",
    "after: the roster, faces and looks, a taught die's faces trusted (`--trust`)",
    "after: the roster, faces and looks, trusted, the die-centred crop (`--die`, not adopted)",
)


@dataclass
class Counts:
    frames: int = 0
    right: int = 0
    unasked: int = 0
    silent: int = 0
    phantoms: int = 0
    matched: int = 0


def split(items: list[Lurig], rolls: int, step: int) -> tuple[list[Lurig], list[Lurig]]:
    """For each clip: `rolls` frames spaced over its first half (taught), and every `step`-th frame
    of its second half (the later rolls)."""
    taught, later = [], []
    for clip in sorted({x.clip for x in items}):
        mine = sorted((x for x in items if x.clip == clip), key=lambda x: x.frame)
        first, second = mine[: (len(mine) + 1) // 2], mine[(len(mine) + 1) // 2 :]
        n = min(rolls, len(first))
        pick = {round(i * (len(first) - 1) / max(1, n - 1)) for i in range(n)}
        taught += [x for i, x in enumerate(first) if i in pick]
        later += second[::step]
    return taught, later


def teach(items: list[Lurig], name: str) -> tuple[DiceSet, DiceSet, Look]:
    """A die's set and look as the table teaches them (`controller.teach`): each frame's still read by
    the learning perception step (d20s alone), the die nearest the middle cut as the reader cuts it,
    named its face, its look measured (`controller.roster.die_look`)."""
    from controller.learn_dice import learning_perceiver
    from controller.roster import die_look
    from vision.numbered.reader import default_reader

    reader = default_reader()
    perceiver = learning_perceiver("d20", None, False, reader)
    values, crops, own, looks = [], [], [], []
    for x in items:
        still = frames_of(imread(x.path))[0]
        dice = [d.to_json() for d in perceiver.perceive(still).dice]
        i = nearest_centre([tuple(d["center"]) for d in dice], (STILL[0] / 2, STILL[1] / 2))
        if i is not None:
            values.append(x.face)
            crops.append(reader.crops_of(still, [dice[i]], "box")[0])
            own.append(reader.crops_of(still, [dice[i]], "die")[0])
            looks.append(die_look(still, dice[i]["quad"], perceiver.reading_palette(still, None, None)))
    feats = reader.embedder().embed(crops, 1)[:, 0]
    digest, faces = reader.embedder().digest, np.array(values, np.int64)
    s = DiceSet(name, "d20", "", digest, faces, feats)
    die = DiceSet(name, "d20", "", digest, faces, reader.embedder().embed(own, 1)[:, 0], crop="die")
    return s, die, Look.learn(looks)


def tables(
    sets: list[DiceSet],
    looks: list[Look],
    tmp: Path,
    empty: Path,
    dice: tuple[Any, ...] = DICE,
    rows: tuple[str, ...] = ROWS[:4],
    die_sets: list[DiceSet] | None = None,
) -> dict[str, Perceiver]:
    """The tables (ROWS) of one run (``die_sets``: each die's set of die-centred crops)."""
    raw: dict[str, Any] = {
        "table": {"game": "die-angler", "roster": str(tmp / "none.roster.json")},
        "vision": {"empty_table_frame": str(empty)},
    }
    merged = sets[0]
    for s in sets[1:]:
        merged = merged.plus(s.values, s.features, f"{merged.name} + {s.name}")
    merged.save(tmp / "set.json")

    def entries(of: list[DiceSet]) -> list[Die]:
        return [
            Die(
                i,
                "d20",
                owner,
                colour,
                faces={"dice_set": None, "taught": s.faces, "crops": len(s.values), "set": s.to_json()},
            )
            for (i, owner, colour, _), s in zip(dice, of, strict=True)
        ]

    save_roster(tmp / "roster.json", entries(sets))
    save_roster(
        tmp / "looks.json", [replace(d, look=k.to_json()) for d, k in zip(entries(sets), looks, strict=True)]
    )
    save_roster(
        tmp / "die.json",
        [replace(d, look=k.to_json()) for d, k in zip(entries(die_sets or sets), looks, strict=True)],
    )
    out = {ROWS[0]: Perceiver.from_config(parse_config(raw))}
    with_set = json.loads(json.dumps(raw))
    with_set["table"]["dice_set"] = str(tmp / "set.json")
    out[ROWS[1]] = Perceiver.from_config(parse_config(with_set))
    for row, name in zip(ROWS[2:], ("roster.json", "looks.json", "looks.json", "die.json"), strict=True):
        with_roster = json.loads(json.dumps(raw))
        with_roster["table"]["roster"] = str(tmp / name)
        was, roster.TRUST_TAUGHT = roster.TRUST_TAUGHT, row in ROWS[4:]
        try:
            out[row] = Perceiver.from_config(parse_config(with_roster))
        finally:
            roster.TRUST_TAUGHT = was
    return {r: out[r] for r in rows}


def photos(
    real: Path, later: list[Lurig], limit: int | None, dice: tuple[Any, ...] = DICE
) -> list[tuple[str, Path, int, str, str | None]]:
    """(set, photo, face, kind, the die's entry) of the frames read."""
    entry = {group: i for i, _, _, group in dice}
    out = [(f"d20_lurig {x.group}", x.path, x.face, "d20", entry[x.group]) for x in later]
    rows = list(csv.DictReader((real / "d20_imac1844" / "labels.csv").open(encoding="utf-8")))
    out += [
        (
            f"d20_imac1844 {r['kind']} (not listed)",
            real / "d20_imac1844" / r["file"],
            int(r["face"]),
            r["kind"],
            None,
        )
        for r in rows
    ]
    return out if limit is None else harness.spaced(out, limit)


def tally(c: Counts, dice: list[Any], face: int, kind: str, entry: str | None, side: float) -> None:
    k = VIDEO_W / STILL[0]
    centre = (STILL[0] / 2 * k, STILL[1] / 2 * k)
    c.frames += 1
    near = [d for d in dice if d.center is not None and math.dist(d.center, centre) <= side * k]
    die = min(near, key=lambda d: math.dist(d.center, centre)) if near else None
    for d in dice:
        if d is not die:
            c.phantoms += 1
            c.silent += (d.confidence or 0.0) >= SURE
    if die is None:
        c.matched += entry is None
        return
    right = die.kind == kind and die.value == face
    sure = (die.confidence or 0.0) >= SURE
    c.right += right
    c.unasked += right and sure
    c.silent += sure and not right
    c.matched += dict(die.extra).get("die") == entry


def run(
    real: Path,
    step: int,
    limit: int | None,
    tmp: Path,
    smoke: bool = False,
    dice: tuple[Any, ...] = DICE,
    rows: tuple[str, ...] = ROWS[:4],
) -> tuple[dict[tuple[str, str], Counts], list[str]]:
    lurig = load_lurig(real)
    notes: list[str] = []
    sets: list[DiceSet] = []
    die_sets: list[DiceSet] = []
    looks: list[Look] = []
    later: list[Lurig] = []
    for die_id, _, _, group in dice:
        mine = [x for x in lurig if x.group == group]
        if smoke:  # two clips, two rolls each
            clips = sorted({x.clip for x in mine})[:2]
            mine = [x for x in mine if x.clip in clips]
        taught, rest = split(mine, 2 if smoke else ROLLS, step)
        got, die, look = teach(taught, die_id)
        sets.append(got)
        die_sets.append(die)
        looks.append(look)
        later += rest
        notes.append(f"{die_id}: {group}, {len(sets[-1].values)} crops of {len(taught)} frames taught")
    empty = tmp / "empty.png"
    out: dict[tuple[str, str], Counts] = {}
    readers: dict[str, Perceiver] | None = None
    for name, path, face, kind, entry in photos(real, later, limit, dice):
        photo = imread(path)
        still, video, _, empty_video = frames_of(photo)
        cv2.imwrite(str(empty), empty_video)
        if readers is None:
            readers = tables(sets, looks, tmp, empty, dice, rows, die_sets)
        side = 0.5 * max(photo.shape[:2])
        for row, perceiver in readers.items():
            perceiver.set_empty(empty_video)
            seen = perceiver.perceive(still, frame=video)
            tally(out.setdefault((row, name), Counts()), list(seen.dice), face, kind, entry, side)
    return out, notes


HEAD = (
    "table",
    "set",
    "frames",
    "value right",
    "read unasked",
    "silent / 200",
    "phantoms / frame",
    "roster match right",
)


def report(counts: dict[tuple[str, str], Counts], notes: list[str], seconds: float) -> str:
    rows = []
    for (row, name), c in counts.items():
        rows.append(
            [
                row,
                name,
                c.frames,
                share(c.right, c.frames, places=1),
                share(c.unasked, c.frames, places=1),
                f"{200 * c.silent / max(1, c.frames):.2f}",
                f"{c.phantoms / max(1, c.frames):.2f}",
                share(c.matched, c.frames, places=1) if row in ROWS[2:] else "-",
            ]
        )
    return "\n".join(
        [
            "# Real d20s read against the table's roster (issue 44 item 4)",
            "",
            harness.run_header(),
            "; ".join(notes) + f"; {seconds:.0f} s.",
            "",
            *markdown_table(HEAD, sorted(rows, key=lambda r: (str(r[1]), ROWS.index(str(r[0]))))),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="real d20s read against the table's roster, before and after")
    ap.add_argument("--step", type=int, default=STEP, help="read every n-th frame of a clip's second half")
    ap.add_argument("--limit", type=int, default=None, help="at most this many photos read (spaced)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--trust", action="store_true", help="a row with a taught die's faces trusted too")
    ap.add_argument("--no-faces-alone", action="store_true", help="leave the faces-alone roster row out")
    ap.add_argument(
        "--die", action="store_true", help="a row with the die-centred crop too (as /learn keeps)"
    )
    ap.add_argument("--no-untrusted", action="store_true", help="leave the untrusted roster rows out")
    ap.add_argument(
        "--train", action="store_true", help="the train set-ups d20_off-angle, d20_color as the dice"
    )
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    rows = tuple(
        r
        for r in ROWS[:4]
        if not (a.no_faces_alone and r == ROWS[2]) and not (a.no_untrusted and r in ROWS[2:4])
    )
    rows += ((ROWS[4],) if a.trust else ()) + ((ROWS[5],) if a.die else ())
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        counts, notes = run(
            REAL, a.step, 3 if a.smoke else a.limit, Path(tmp), a.smoke, TRAIN if a.train else DICE, rows
        )
    harness.write(report(counts, notes, time.perf_counter() - t0) + "\n", a.out)


if __name__ == "__main__":
    main()
