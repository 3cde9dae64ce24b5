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
- "... the calibrated confidence" (`--calibrated`, the default now): a taught die's face as sure as
  its evidence says (`vision.numbered.trust`: likeness, margin to the next face, support, the
  die-match margin, the classifier's and the OCR head's agreement; fitted on the train set-ups by
  `benchmarks/trust_fit.py` from this benchmark's `--train --record` CSVs); the "trusted" row is the
  rule before it.

`--die-px 60 --blur`: the hidden test's camera instead (a die ~60 px, some motion blur): each photo
shrunk so that its die (measured: the median box the learning perception step reads round the die in
the set-up's taught photos) is 60 px wide, smeared along a 5 px line, laid in a 1280x720 frame and read
alone, as `read --config` reads a camera's frame; the notes give the measured sizes and the median box
of the dice read.  `--record FILE`: each roster die's evidence and whether it was right, for the fit.

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
from benchmarks.harness import REAL, DieTally, imread, markdown_table, nearest_centre, share
from benchmarks.table_stills import STILL, VIDEO_W, frames_of
from controller import roster
from controller.config import parse_config
from controller.perceive import Perceiver
from controller.roster import Die, save_roster
from training.numbered.real import Lurig, load_lurig
from vision.looks import Look
from vision.numbered import trust
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
    "after: the roster, faces and looks, the calibrated confidence (the default; `--calibrated`)",
)


#: --record's columns, before the evidence (`trust.FEATURES`)
RECORDED = ("row", "set", "photo", "face", "central", "right", "value", "confidence", "settled")


@dataclass(frozen=True)
class Scene:
    """How a photo is shown to the table: None (`die_px`), laid at its own pixels in a 4608x2592 still
    read with the gate's frame beside it (`frames_of`); else shrunk so that the die is `die_px` wide
    (the die's measured box, `measure`), blurred as a die still moving a little (`blur`: a line
    BLUR_PX long at a turn of its own each photo), and laid in the middle of a 1280x720 camera frame
    of the photo's border colour, read alone (`dicetable read --config` of a camera's frame)."""

    die_px: float | None = None
    blur: bool = False

    def frames(
        self, photo: np.ndarray, side: float | None, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(the image read, the gate's frame beside it or None, the empty table at the gate's size) of
        ``photo``, whose die is ``side`` pixels wide."""
        if self.die_px is None:
            still, video, _, empty_video = frames_of(photo)
            return still, video, empty_video
        assert side is not None and side > 0
        k = self.die_px / side
        small = cv2.resize(
            photo, None, fx=k, fy=k, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
        )
        if self.blur:
            small = motion_blur(small, BLUR_PX, (37.0 * seed) % 180.0)
        edge = np.concatenate([photo[0], photo[-1], photo[:, 0], photo[:, -1]])
        empty = np.empty((FRAME[1], FRAME[0], 3), np.uint8)
        empty[:] = np.median(edge, 0)
        frame = empty.copy()
        h, w = small.shape[:2]
        y0, x0 = (FRAME[1] - h) // 2, (FRAME[0] - w) // 2
        frame[y0 : y0 + h, x0 : x0 + w] = small
        return frame, None, empty

    def centre(self) -> tuple[float, float]:
        """The middle of the frame the dice are given in (the gate's, or the camera's)."""
        if self.die_px is None:
            k = VIDEO_W / STILL[0]
            return STILL[0] / 2 * k, STILL[1] / 2 * k
        return FRAME[0] / 2, FRAME[1] / 2

    def reach(self, photo: np.ndarray, side: float | None) -> float:
        """How far from the middle the photo's die may be read (half the photo, in the dice's pixels)."""
        if self.die_px is None:
            return 0.5 * max(photo.shape[:2]) * VIDEO_W / STILL[0]
        assert side is not None
        return 0.5 * max(photo.shape[:2]) * self.die_px / side


#: --die-px: the camera's frame the shrunk photo is laid in, and the motion blur's length (--blur)
FRAME = (1280, 720)
BLUR_PX = 5


def motion_blur(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """``image`` smeared along a line ``length`` pixels long at ``angle`` degrees."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6))


@dataclass
class Counts(DieTally):
    """`DieTally` and the frames whose die was matched to its roster entry (or, found nowhere, to none)."""

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


def measure(items: list[Path]) -> float:
    """The die's size in its photos (pixels): the median of the larger side of the box the learning
    perception step reads round the die nearest the middle, each photo at its own pixels in a still."""
    from controller.learn_dice import learning_perceiver
    from vision.numbered.reader import default_reader

    perceiver = learning_perceiver("d20", None, False, default_reader())
    sides = []
    for path in items:
        still = frames_of(imread(path))[0]
        dice = [d.to_json() for d in perceiver.perceive(still).dice]
        i = nearest_centre([tuple(d["center"]) for d in dice], (STILL[0], STILL[1]))
        if i is not None:
            q = np.asarray(dice[i]["quad"], np.float64)
            sides.append(max(float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1]))))
    if not sides:
        raise SystemExit("roster_read --die-px: no die found in the taught photos to measure")
    return float(np.median(sides))


def teach(
    items: list[Lurig], name: str, scene: Scene = Scene(), side: float | None = None
) -> tuple[DiceSet, DiceSet, Look]:
    """A die's set and look as the table teaches them (`controller.teach`): each frame's still (or
    the camera's frame, `scene`) read by the learning perception step (d20s alone), the die nearest
    the middle cut as the reader cuts it, named its face, its look measured
    (`controller.roster.die_look`)."""
    from controller.learn_dice import learning_perceiver
    from controller.roster import die_look
    from vision.numbered.reader import default_reader

    reader = default_reader()
    perceiver = learning_perceiver("d20", None, False, reader)
    values, crops, own, looks = [], [], [], []
    for n, x in enumerate(items):
        still = scene.frames(imread(x.path), side, n)[0]
        dice = [d.to_json() for d in perceiver.perceive(still).dice]
        i = nearest_centre([tuple(d["center"]) for d in dice], (still.shape[1], still.shape[0]))
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
    out = {ROWS[0]: Perceiver.from_config(parse_config(raw))} if ROWS[0] in rows else {}
    with_set = json.loads(json.dumps(raw))
    with_set["table"]["dice_set"] = str(tmp / "set.json")
    if ROWS[1] in rows:
        out[ROWS[1]] = Perceiver.from_config(parse_config(with_set))
    files = ("roster.json", "looks.json", "looks.json", "die.json", "looks.json")
    for row, name in zip(ROWS[2:], files, strict=True):
        if row not in rows:
            continue
        with_roster = json.loads(json.dumps(raw))
        with_roster["table"]["roster"] = str(tmp / name)
        was = roster.TRUST_TAUGHT, roster.CALIBRATED
        roster.TRUST_TAUGHT, roster.CALIBRATED = row in ROWS[4:], row == ROWS[6]
        try:
            out[row] = Perceiver.from_config(parse_config(with_roster))
        finally:
            roster.TRUST_TAUGHT, roster.CALIBRATED = was
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


def central(dice: list[Any], centre: tuple[float, float], reach: float) -> Any:
    """The photo's die: the reading nearest the middle, within ``reach`` (None: none)."""
    near = [d for d in dice if d.center is not None and math.dist(d.center, centre) <= reach]
    return min(near, key=lambda d: math.dist(d.center, centre)) if near else None


def settled(d: Any, seen: list[Any]) -> str:
    """Why the roster's step (`RosterView.settle`) asks about reading ``d`` whatever its face's
    confidence ("" it does not): "none" (no entry's), "rival" (two entries as alike), "twice" (the
    less sure of two readings of one entry)."""
    extra = dict(d.extra)
    if extra.get("die") is None:
        return "none"
    if extra.get("rival"):
        return "rival"
    twice = any(
        o is not d and dict(o.extra).get("die") == extra["die"] and (o.confidence or 0) > (d.confidence or 0)
        for o in seen
    )
    return "twice" if twice else ""


def tally(
    c: Counts,
    dice: list[Any],
    face: int,
    kind: str,
    entry: str | None,
    centre: tuple[float, float],
    reach: float,
) -> None:
    die = central(dice, centre, reach)
    read = None if die is None else (die.kind == kind and die.value == face, die.confidence or 0.0)
    c.score(read, [d.confidence or 0.0 for d in dice if d is not die], SURE)
    c.matched += (entry is None) if die is None else (dict(die.extra).get("die") == entry)


def run(
    real: Path,
    step: int,
    limit: int | None,
    tmp: Path,
    smoke: bool = False,
    dice: tuple[Any, ...] = DICE,
    rows: tuple[str, ...] = ROWS[:4],
    scene: Scene = Scene(),
    record: Any = None,
) -> tuple[dict[tuple[str, str], Counts], list[str]]:
    """``record``: a csv.writer each roster die's evidence (`vision.numbered.trust`) is written to."""
    lurig = load_lurig(real)
    notes: list[str] = []
    sides: dict[str, float | None] = {}
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
        sides[group] = measure([x.path for x in taught]) if scene.die_px is not None else None
        got, die, look = teach(taught, die_id, scene, sides[group])
        sets.append(got)
        die_sets.append(die)
        looks.append(look)
        later += rest
        notes.append(f"{die_id}: {group}, {len(sets[-1].values)} crops of {len(taught)} frames taught")
        if scene.die_px is not None:
            notes.append(
                f"{group}'s die {sides[group]:.0f} px in its photos, shrunk to {scene.die_px:.0f} px"
            )
    empty = tmp / "empty.png"
    out: dict[tuple[str, str], Counts] = {}
    readers: dict[str, Perceiver] | None = None
    read_sides: list[float] = []
    shown = photos(real, later, limit, dice)
    if scene.die_px is not None:  # the dice the roster does not list, measured in their own photos
        others = sorted({name.split(" ")[0] for name, *_ in shown if not name.startswith("d20_lurig")})
        for group in others:
            sides[group] = measure([p for name, p, *_ in shown if name.startswith(group)])
            notes.append(f"{group}'s dice {sides[group]:.0f} px in their photos")
    for n, (name, path, face, kind, entry) in enumerate(shown):
        photo = imread(path)
        group = name.split(" ")[1] if name.startswith("d20_lurig") else name.split(" ")[0]
        side = sides.get(group)
        still, video, empty_video = scene.frames(photo, side, n)
        cv2.imwrite(str(empty), empty_video)
        if readers is None:
            readers = tables(sets, looks, tmp, empty, dice, rows, die_sets)
        centre, reach = scene.centre(), scene.reach(photo, side)
        for row, perceiver in readers.items():
            perceiver.set_empty(empty_video)
            seen = list(perceiver.perceive(still, frame=video).dice)
            tally(out.setdefault((row, name), Counts()), seen, face, kind, entry, centre, reach)
            die = central(seen, centre, reach)
            if die is not None and die.quad is not None and row == rows[-1] and entry is not None:
                q = np.asarray(die.quad, np.float64)
                read_sides.append(max(float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1]))))
            if record is not None:
                for d in seen:
                    ev = dict(d.extra).get("trust")
                    if ev is None:
                        continue
                    right = d is die and d.kind == kind and d.value == face
                    record.writerow(
                        [row, name, path.name, face, d is die, int(right), d.value, d.confidence]
                        + [settled(d, seen)]
                        + [ev[k] for k in trust.FEATURES]
                    )
    if read_sides:
        notes.append(f"the dice read {np.median(read_sides):.0f} px (median box side, {rows[-1][:40]}...)")
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
    ap.add_argument(
        "--calibrated", action="store_true", help="a row with the calibrated confidence (the default) too"
    )
    ap.add_argument(
        "--die-px",
        type=float,
        default=None,
        help="each photo shrunk so its die is this wide, in a 1280x720 frame",
    )
    ap.add_argument("--no-before", action="store_true", help="leave the no-set and dice_set rows out")
    ap.add_argument("--blur", action="store_true", help="with --die-px: a little motion blur too")
    ap.add_argument(
        "--record", type=Path, default=None, help="a CSV of each roster die's evidence (trust_fit)"
    )
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    rows = tuple(
        r
        for r in ROWS[:4]
        if not (a.no_faces_alone and r == ROWS[2])
        and not (a.no_untrusted and r in ROWS[2:4])
        and not (a.no_before and r in ROWS[:2])
    )
    rows += ((ROWS[4],) if a.trust else ()) + ((ROWS[5],) if a.die else ())
    rows += (ROWS[6],) if a.calibrated else ()
    if a.blur and a.die_px is None:
        ap.error("--blur: expected with --die-px")
    if a.die_px is not None and not 16 <= a.die_px <= 400:
        ap.error(f"--die-px: expected a die width of 16 to 400 pixels, got {a.die_px:g}")
    t0 = time.perf_counter()
    out = None if a.record is None else a.record.open("w", newline="", encoding="utf-8")
    record = None if out is None else csv.writer(out)
    if record is not None:
        record.writerow(RECORDED + trust.FEATURES)
    was, trust.RECORD = trust.RECORD, record is not None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            counts, notes = run(
                REAL,
                a.step,
                3 if a.smoke else a.limit,
                Path(tmp),
                a.smoke,
                TRAIN if a.train else DICE,
                rows,
                Scene(a.die_px, a.blur),
                record,
            )
    finally:
        trust.RECORD = was
        if out is not None:
            out.close()
    harness.write(report(counts, notes, time.perf_counter() - t0) + "\n", a.out)


if __name__ == "__main__":
    main()
