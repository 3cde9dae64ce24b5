"""A small die in a full-resolution still, read through the table's own perception step (issue 44
item 2, "at the still's resolution"): found, value right, phantoms, before and after in one run.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.small_stills --train --large \
        --out benchmarks/results/small_stills.md

A table whose camera takes stills (`hardware.stills`: a Pi Camera 3 gives 4608x2592) reads each settled
throw from the still, with the gate's 1280x720 frame beside it (`Perceiver.perceive(still,
frame=video)`), as `dicetable read --config` builds the step from a table.toml (`Perceiver.from_config`
of a Die-angler table: the game's kinds d6, d10, d20).  A camera far from small dice gives such a
still a die of DIE_PX px: 17 px in the gate's frame.

The frames: each d20_lurig photo's die is measured (`benchmarks.learnt_cli.die_size`, its clip's
median), the photo shrunk so the die is DIE_PX px in the still (no motion blur: the dice are at
rest), laid, feathered, at a random place of one fixed empty table still (the set-up's median border
colour, a relay board at its edge, sensor noise, exposure within 4 %).  The gate's frame is that still
shrunk to 1280x720 (INTER_AREA); the empty table, when the table names one, is the empty still at the
gate frame's size (`[vision] empty_table_frame`, as `dicetable calibrate empty` stores the gate's).

Tables (what the table knows of its dice's size in pixels):
- "nothing": a table.toml naming the game alone;
- "its empty table": `[vision] empty_table_frame`;
- "die size in px": `[vision] die_size_px` = the die's box in the gate's frame, 0.7-1.8 of its edge
  (what a table configures, or gets from its board's pose and `[dice] sizes_mm`).

Rows: "before" reads as the reader did before this change (`NumberedReader.fine_stills = False`: the
detector at its fixed input of ~480x360 pixels of the still); "after" as it does now; "session 19"
(a table that knows its die's size: the finer look at most 1600x900) as it read then; "tried" (a
table that knows none: the still read again, its finer look sized for the smallest die read in the
1600x900 look when that die is under GROW_UNDER px there, `NumberedReader.fine_self_sized`; session
21, not adopted: it is off by default).

Found: a reading within the die's side of its true centre, its outline at most twice the die's side
(a box four times the die's size round it is not the die found: its crops are cut at that box);
right: a d20 of the labelled face; unasked: right at confidence >= SURE; phantoms: every other
reading, per still; silent: a sure reading that is wrong or a phantom, per 200 stills; ms: the
perception step's CPU ms a still (`ReadingSet.ms`, process time; run with OMP_NUM_THREADS=1 for
one core).  Held out first: d20_top, d20_wood (never tuned on); train: d20_off-angle, d20_color
(`--train`; the settings were chosen on these).
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, DieTally, imread, markdown_table, share
from benchmarks.learnt_cli import sizes, table_colour
from training.numbered.real import Lurig, load_lurig

STILL = (4608, 2592)
VIDEO = (1280, 720)
DIE_PX = 60
SURE = 0.8
SEED = 44
GAIN = 0.04
HELD_OUT = ("d20_top", "d20_wood")
TRAIN = ("d20_off-angle", "d20_color")
#: (table, its [vision] section given the die's edge in the gate frame's pixels and the empty file)
TABLES = ("nothing", "its empty table", "die size in px")
#: the ways read, in one run: (row, the finer look on, its most pixels when the table knows its dice's
#: size: None the reader's own MAX_DET_AREA); the session-19 row only where the table knows a size
#: (the cap is the finer look's alone when it does)
#: the "tried" row only where it does not (a still read again with its finer look sized for the
#: smallest die read in the 1600x900 look: `NumberedReader.fine_self_sized`, tried in session 21 and
#: off by default)
#: the "session 21" row (a table that knows no size, where the coarse look confirms a usual peak
#: whatever its box holds: `NumberedReader.coarse_filled` False) beside "after" there, before and after
#: session 22's filled-box check in one run
WAYS = (
    ("before: no finer look", False, None, False),
    ("session 19: finer look at most 1600x900", True, 1600 * 900, False),
    ("after: finer look at the die's size (at most 2880x1620)", True, None, False),
    ("tried: no size known, read again sized for the smallest die read", True, None, True),
    ("session 21: a coarse look's box confirmed whatever it holds", True, None, False),
)
ROWS = tuple(w[0] for w in WAYS)
#: the reader as the table reads now
AFTER = ROWS[2]
#: the reader as it read in session 21 (no filled-box check: `NumberedReader.coarse_filled` False)
S21 = ROWS[4]
#: the ways read (`--ways`: the rows whose names begin so; default all)
CHOSEN: list[str] = list(ROWS)
#: the tables whose finer look knows the die's size (the session-19 row differs there alone; the
#: "tried" row elsewhere)
SIZED = ("die size in px",)


#: the finer look's cap in the "after" row: the reader's own MAX_DET_AREA (kept here when first read),
#: or --max-area's (choosing, on train)
AFTER_CAP: dict[str, int] = {}


def way(row: str) -> None:
    """Read as ``row`` (one of WAYS) reads: `NumberedReader.fine_stills` and the finer look's cap."""
    from vision.numbered import reader as numbered_reader

    AFTER_CAP.setdefault("cap", numbered_reader.MAX_DET_AREA)
    on, cap, self_sized = next((w[1], w[2], w[3]) for w in WAYS if w[0] == row)
    numbered_reader.NumberedReader.fine_stills = on
    numbered_reader.NumberedReader.fine_self_sized = self_sized
    numbered_reader.NumberedReader.coarse_filled = row != S21
    numbered_reader.MAX_DET_AREA = cap if cap is not None else AFTER_CAP["cap"]


def ways_for(table: str) -> tuple[str, ...]:
    rows = (*ROWS[:3], S21) if table in SIZED else (ROWS[0], S21, ROWS[2], ROWS[3])
    return tuple(r for r in rows if r in CHOSEN)


#: the reader's best at the die's pixels: the still's 1280x720 window round the die read as a frame (the
#: table that knows nothing; a 60 px die in a 1280x720 frame is at the detector's trained size)
WINDOW = "window: the die's pixels in a 1280x720 frame"


@dataclass
class Counts(DieTally):
    """`DieTally` (``frames``: the stills read), the stills whose die was found, and each still's ms."""

    found: int = 0
    #: stills where a reading at the die matched the table's learnt die (`Reading.learnt`; --learnt)
    matched: int = 0
    #: the "after" row: stills whose readings are the same to the letter as the "session 21" row's
    same: int = 0
    ms: list[float] = field(default_factory=list)


def empty_still(colour: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """The fixed table as the still shows it: its colour and a relay board at its right edge (its
    LEDs on or off at random when ``rng`` is given)."""
    w, h = STILL
    k = w / VIDEO[0]
    img = np.empty((h, w, 3), np.uint8)
    img[:] = colour

    def px(v: float) -> int:
        return round(v * k)

    x0 = w - px(150)
    cv2.rectangle(img, (x0, px(250)), (w - px(20), px(420)), (40, 90, 30), -1)
    for i in range(4):
        on = True if rng is None else bool(rng.integers(0, 2))
        cv2.rectangle(img, (x0 + px(15), px(265 + 38 * i)), (x0 + px(60), px(295 + 38 * i)), (30, 30, 30), -1)
        cv2.circle(img, (w - px(50), px(280 + 38 * i)), px(6), (60, 60, 240) if on else (30, 40, 60), -1)
    cv2.putText(
        img, "RELAY 4CH", (x0 + px(5), px(412)), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * k, (230, 230, 230), 3
    )
    return img


def lay(
    photo: np.ndarray,
    size: tuple[tuple[float, float], float],
    colour: np.ndarray,
    rng: np.random.Generator,
    die_px: float = DIE_PX,
) -> tuple[np.ndarray, tuple[float, float]]:
    """The photo's die (its centre and side ``size``) at ``die_px`` px, laid feathered at a random place
    of the table's still: (still, the die's centre in it)."""
    (cx, cy), side = size
    k = die_px / side
    small = cv2.resize(photo, None, fx=k, fy=k, interpolation=cv2.INTER_AREA).astype(np.float32)
    sh, sw = small.shape[:2]
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    r = np.hypot(xx - cx * k, yy - cy * k)
    inner, outer = 0.75 * die_px, 0.5 * min(sh, sw)
    alpha = np.clip((outer - r) / max(outer - inner, 1.0), 0.0, 1.0)[..., None]
    w, h = STILL
    x0 = int(rng.uniform(200, w - 3.6 * 200 - sw))
    y0 = int(rng.uniform(100, h - 100 - sh))
    still = empty_still(colour, rng).astype(np.float32)
    patch = still[y0 : y0 + sh, x0 : x0 + sw]
    still[y0 : y0 + sh, x0 : x0 + sw] = alpha * small + (1 - alpha) * patch
    still = still * rng.uniform(1 - GAIN, 1 + GAIN) + rng.normal(0, 2.0, still.shape)
    return np.clip(still, 0, 255).astype(np.uint8), (x0 + cx * k, y0 + cy * k)


def video_of(still: np.ndarray) -> np.ndarray:
    return cv2.resize(still, VIDEO, interpolation=cv2.INTER_AREA)


def perceivers(empty: Path, die_px: float) -> dict[str, Any]:
    """The tables' perception steps, as `dicetable read --config` builds them."""
    from controller.config import parse_config
    from controller.perceive import Perceiver

    edge = die_px * VIDEO[0] / STILL[0]  # the die's edge in the gate frame's pixels
    vision: dict[str, dict[str, Any]] = {
        "nothing": {},
        "its empty table": {"empty_table_frame": str(empty)},
        "die size in px": {"die_size_px": [round(0.7 * edge, 1), round(1.8 * edge, 1)]},
    }
    out = {}
    for name in TABLES:
        raw: dict[str, Any] = {"table": {"game": "die-angler"}}
        if vision[name]:
            raw["vision"] = vision[name]
        out[name] = Perceiver.from_config(parse_config(raw))
    return out


def outline(d: Any) -> float:
    """A reading's outline's longer side (0 without one)."""
    if not d.quad:
        return 0.0
    q = np.asarray(d.quad, np.float64).reshape(-1, 2)
    return float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))


def tally(c: Counts, dice: Any, centre: tuple[float, float], side: float, face: int, ms: float) -> None:
    c.ms.append(ms)
    near = [
        d
        for d in dice
        if d.center is not None and math.dist(d.center, centre) <= side and outline(d) <= 2 * side
    ]
    die = min(near, key=lambda d: math.dist(d.center, centre)) if near else None
    c.found += die is not None
    read = None if die is None else (die.kind == "d20" and die.value == face, die.confidence or 0.0)
    c.score(read, [d.confidence or 0.0 for d in dice if d is not die], SURE)


def run_group(
    group: str,
    real: Path,
    count: int,
    tmp: Path,
    die_px: float,
    counts: dict[str, Counts],
    only: tuple[str, ...] = TABLES,
) -> None:
    items: list[Lurig] = sorted((x for x in load_lurig(real) if x.group == group), key=lambda x: x.path)
    items = harness.spaced(items, count)
    colour = table_colour(items)
    empty = video_of(empty_still(colour))
    empty_file = tmp / f"{group}_empty.png"
    cv2.imwrite(str(empty_file), empty)
    tables = {k: v for k, v in perceivers(empty_file, die_px).items() if k in only}
    measured = sizes(items)
    k = VIDEO[0] / STILL[0]
    for x in items:
        rng = np.random.default_rng([SEED, x.frame, x.face, int(die_px)])
        still, centre = lay(imread(x.path), measured[x.path], colour, rng, die_px)
        video = video_of(still)
        gate_centre = (centre[0] * k, centre[1] * k)
        for name, perceiver in tables.items():
            read: dict[str, Any] = {}
            for row in ways_for(name):
                way(row)
                got = perceiver.perceive(
                    still, frame=video, empty=empty if name == "its empty table" else None
                )
                c = counts.setdefault(f"{group}|{name}|{row}", Counts())
                tally(c, got.dice, gate_centre, die_px * k, x.face, got.ms)
                read[row] = [d.to_json() for d in got.dice]
            if AFTER in read and S21 in read:
                counts[f"{group}|{name}|{AFTER}"].same += read[AFTER] == read[S21]
            if name == "nothing":  # the same pixels as a 1280x720 frame: the reader's best at them
                x0 = int(min(max(0.0, centre[0] - VIDEO[0] / 2), STILL[0] - VIDEO[0]))
                y0 = int(min(max(0.0, centre[1] - VIDEO[1] / 2), STILL[1] - VIDEO[1]))
                window = np.ascontiguousarray(still[y0 : y0 + VIDEO[1], x0 : x0 + VIDEO[0]])
                got = perceiver.perceive(window)
                c = counts.setdefault(f"{group}|{name}|{WINDOW}", Counts())
                tally(c, got.dice, (centre[0] - x0, centre[1] - y0), die_px, x.face, got.ms)
    way(AFTER)


#: the tables taught a die (`--learnt`): what each knows of its dice's size
LEARNT_TABLES = ("nothing", "die size in px")


def learnt_toml(folder: Path, table: str, die_px: float) -> Path:
    """A table.toml of ``table`` whose learnt set and roster live in ``folder``'s data dir.  Its die
    size in px is the die's box in the STILL's pixels: `learn-dice see` and `read --config` given a
    still file alone read it as the camera's frame."""
    text = '[table]\ngame = "die-angler"\ndice_set = "sets/d20.json"\n'
    if table == "die size in px":
        text += f"[vision]\ndie_size_px = [{0.7 * die_px:.1f}, {1.8 * die_px:.1f}]\n"
    path = folder / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def teach(group: str, table: str, row: str, taught: list[Any], folder: Path, die_px: float) -> dict[str, Any]:
    """`learn-dice see` on the taught stills and `learn-dice confirm --config` (the careful person
    names each group by its crops' true face: `learnt_cli.name_groups`), as ``row`` reads; what
    the session made."""
    from benchmarks import learnt_cli

    folder.mkdir(parents=True, exist_ok=True)
    toml = learnt_toml(folder, table, die_px)
    env = {"DICETABLE_DATA_DIR": str(folder / "data")}
    session = folder / "session"
    way(row)
    learnt_cli.DIE_PX = round(die_px)  # a crop within a die's side of the true centre is the die
    try:
        learnt_cli.cli(
            [
                *("learn-dice", "see", *(str(t.path) for t in taught), "--set", "blue-d20"),
                *("--kind", "d20", "--colour", "blue", "--session", str(session), "--config", str(toml)),
            ],
            env,
        )
        named = learnt_cli.name_groups(session, taught)
        learnt_cli.cli(["learn-dice", "confirm", str(session), "--config", str(toml), "--allow-missing"], env)
    except SystemExit as e:  # nothing seen to teach: the table reads without a roster
        named = {"failed": str(e)[:160]}
    finally:
        learnt_cli.DIE_PX = 60
    return named


def learnt_group(
    group: str, real: Path, limit: int | None, tmp: Path, die_px: float, counts: dict[str, Counts]
) -> list[str]:
    """A die taught at the still's resolution (4 rolls a face from the first half of each clip, as
    `benchmarks.learnt_cli` teaches) and its later rolls read against the table's roster, each table
    and way taught and read on its own; the notes of what each session made."""
    import os

    from benchmarks.learnt_cli import ROLLS, Shot, split
    from controller.config import load_config
    from controller.perceive import Perceiver

    items = [x for x in load_lurig(real) if x.group == group]
    taught_items, later_items = split(items, ROLLS, 1)
    if limit is not None:
        later_items = harness.spaced(later_items, limit)
    colour = table_colour(items)
    measured = sizes(items)
    base = tmp / f"learnt_{group}_{die_px:g}"
    (base / "learn").mkdir(parents=True, exist_ok=True)
    taught = []
    for x in taught_items:
        rng = np.random.default_rng([SEED, x.frame, x.face, int(die_px)])
        still, centre = lay(imread(x.path), measured[x.path], colour, rng, die_px)
        path = base / "learn" / f"{x.face:02d}_{x.frame:04d}.png"
        cv2.imwrite(str(path), still)
        taught.append(Shot(path, x.face, centre))
    notes, tables = [], {}
    for table in LEARNT_TABLES:
        for row in ways_for(table):
            folder = base / f"{LEARNT_TABLES.index(table)}_{ROWS.index(row)}"
            named = teach(group, table, row, taught, folder, die_px)
            notes.append(f"{group}, {table}, {row}: {len(taught)} stills taught; {named}")
            old = os.environ.get("DICETABLE_DATA_DIR")
            os.environ["DICETABLE_DATA_DIR"] = str(folder / "data")
            try:
                tables[(table, row)] = Perceiver.from_config(load_config(folder / "table.toml"))
            finally:
                if old is None:
                    os.environ.pop("DICETABLE_DATA_DIR")
                else:
                    os.environ["DICETABLE_DATA_DIR"] = old
    for x in later_items:
        rng = np.random.default_rng([SEED + 1, x.frame, x.face, int(die_px)])
        still, centre = lay(imread(x.path), measured[x.path], colour, rng, die_px)
        for (table, row), perceiver in tables.items():
            way(row)
            got = perceiver.perceive(still)  # the still alone, as `read --config STILL` reads it
            c = counts.setdefault(f"{group}|{table}|{row}", Counts())
            tally(c, got.dice, centre, die_px, x.face, got.ms)
            c.matched += any(
                d.learnt is not None and d.center is not None and math.dist(d.center, centre) <= die_px
                for d in got.dice
            )
    way(AFTER)
    return notes


def _cells(g: str, table: str, row: str, c: Counts) -> dict[str, Any]:
    """A tally's cells by column name (each report picks its columns from them)."""
    return {
        "set-up": g + (" (held out)" if g in HELD_OUT else " (train)"),
        "table knows": table,
        "row": row,
        "stills": c.frames,
        "found": share(c.found, c.frames),
        "value right": share(c.right, c.frames),
        "unasked": share(c.unasked, c.frames),
        "silent / 200": f"{200 * c.silent / max(1, c.frames):.1f}",
        "phantoms / still": f"{c.phantoms / max(1, c.frames):.2f}",
        "read as the learnt die": share(c.matched, c.frames),
        "as session 21": f"{c.same} of {c.frames}" if row == AFTER else "",
        "ms a still (median)": f"{float(np.median(c.ms)) if c.ms else 0.0:.0f}",
    }


def _rows(
    head: list[str], counts: dict[str, Counts], groups: list[str], tables: Any, ways: Any
) -> list[list[Any]]:
    """The report's rows: each set-up, table and way (``ways(table)``) that has a tally."""
    rows = []
    for g in groups:
        for table in tables:
            for row in ways(table):
                c = counts.get(f"{g}|{table}|{row}")
                if c is not None:
                    cells = _cells(g, table, row, c)
                    rows.append([cells[h] for h in head])
    return rows


#: the columns both reports begin with (`_cells`' names)
FIRST = ["set-up", "table knows", "row", "stills", "found", "value right", "unasked"]
MS = "ms a still (median)"


def learnt_report(counts: dict[str, Counts], groups: list[str], die_px: float) -> list[str]:
    head = [*FIRST, "silent / 200", "phantoms / still", "read as the learnt die", MS]
    rows = _rows(head, counts, groups, LEARNT_TABLES, ways_for)
    return [
        f"A die taught at the still's resolution, read against the table's roster: die {die_px:g} px in a "
        f"{STILL[0]}x{STILL[1]} still, read alone (`read --config STILL`'s path).",
        "",
        *markdown_table(head, rows),
    ]


def report(counts: dict[str, Counts], groups: list[str], die_px: float) -> list[str]:
    head = [*FIRST, "phantoms / still", "silent / 200", MS]
    if any(c.same for c in counts.values()) or S21 in CHOSEN:
        head.append("as session 21")
    rows = _rows(head, counts, groups, TABLES, lambda _table: (*ROWS, WINDOW))
    return [
        f"Die {die_px:g} px in a {STILL[0]}x{STILL[1]} still (17 px in the gate's 1280x720 frame at 60).",
        "",
        *markdown_table(head, rows),
    ]


def large(real: Path, limit: int | None, step: int, tmp: Path) -> list[str]:
    """`benchmarks.table_stills`' still row with the game's kinds (the held-out real d20s at their own
    pixels in the still, the gate's frame beside it, the table's empty table), before and after."""
    from benchmarks import table_stills

    row = next(r for r in table_stills.ROWS if r[1] is None and r[2] is True and r[3] is False)
    head = [
        "row",
        "set",
        "photos",
        "value right",
        "read unasked",
        "silent / 200",
        "phantoms / frame",
        "ms (median)",
    ]
    rows = []
    # the table knows no size there: the cap is not used
    for name in [r for r in (ROWS[0], S21, AFTER, ROWS[3]) if r in CHOSEN]:
        way(name)
        got = table_stills.run(real, step, limit, tmp, (row,))
        total = table_stills.Counts()
        for (_, group), c in sorted(got.items(), key=lambda kv: kv[0][1]):
            rows.append([name, *table_stills._row(row[0], group, c)[1:]])
            total = total + c
        rows.append([name, *table_stills._row(row[0], "**all**", total)[1:]])
    way(AFTER)
    return [
        f'Large dice: `benchmarks.table_stills` (--step {step}), its row "{row[0]}": the held-out real d20s '
        "at their own pixels (150-400 px) in a 4608x2592 still.",
        "",
        *markdown_table(head, rows),
        "",
        *large_unknown(real, limit, step),
    ]


def large_unknown(real: Path, limit: int | None, step: int) -> list[str]:
    """The same large dice read by a table that knows nothing (no empty table, no size: the coarse
    look's table), as session 21 read them and as it reads now (`NumberedReader.coarse_filled`), and
    how many stills read the same to the letter."""
    from benchmarks import table_stills
    from controller.config import parse_config
    from controller.perceive import Perceiver

    perceiver = Perceiver.from_config(parse_config({"table": {"game": "die-angler"}}))
    ways = [r for r in (S21, AFTER) if r in CHOSEN]
    counts = {r: table_stills.Counts() for r in ways}
    same = 0
    for _name, path, face in table_stills.photos(real, step, limit):
        photo = imread(path)
        still, video, _empty, _empty_video = table_stills.frames_of(photo)
        k = video.shape[1] / STILL[0]
        centre, side = (STILL[0] / 2 * k, STILL[1] / 2 * k), 0.5 * max(photo.shape[:2]) * k
        read = {}
        for r in ways:
            way(r)
            got = perceiver.perceive(still, frame=video)
            counts[r].ms.append(got.ms)
            table_stills.tally(counts[r], list(got.dice), face, centre, side)
            read[r] = [d.to_json() for d in got.dice]
        same += len(set(map(repr, read.values()))) == 1
    way(AFTER)
    head = ["row", "photos", "value right", "read unasked", "silent / 200", "phantoms / frame", "ms (median)"]
    rows = [[r, *table_stills._row(r, "", counts[r])[2:]] for r in ways]
    return [
        "The same large dice at a table that knows nothing (no empty table, no size in px): "
        f"{same} of {counts[ways[0]].frames if ways else 0} stills read the same to the letter both ways.",
        "",
        *markdown_table(head, rows),
        "",
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--count", type=int, default=20, help="photos a set-up, spaced over its clips")
    ap.add_argument("--train", action="store_true", help="also the train set-ups d20_off-angle, d20_color")
    ap.add_argument("--only-train", action="store_true", help="the train set-ups alone (choosing)")
    ap.add_argument(
        "--die-px", type=float, action="append", help=f"the die's side in the still (default {DIE_PX})"
    )
    ap.add_argument(
        "--large",
        action="store_true",
        help="also benchmarks.table_stills' still row (the real held-out d20s at their own pixels, "
        "150-400 px, in the still: large dice not worse), before and after",
    )
    ap.add_argument("--large-step", type=int, default=8, help="table_stills' --step for --large")
    ap.add_argument(
        "--learnt",
        action="store_true",
        help="also a die taught at the still's resolution (learn-dice see / confirm --config) and read "
        "against the table's roster, each way taught and read on its own",
    )
    ap.add_argument(
        "--learnt-limit", type=int, default=48, help="--learnt: later rolls read a set-up (spaced)"
    )
    ap.add_argument("--no-plain", action="store_true", help="skip the rows of a table taught nothing")
    ap.add_argument(
        "--tables", nargs="+", choices=TABLES, default=list(TABLES), help="the tables read (default: all)"
    )
    ap.add_argument("--target", type=float, help="the reader's TARGET_SIDE (choosing, on train)")
    ap.add_argument("--fine-area", type=str, help="the reader's FINE_AREA as WxH (choosing, on train)")
    ap.add_argument("--max-area", type=str, help="the after row's MAX_DET_AREA as WxH (choosing, on train)")
    ap.add_argument(
        "--ways",
        nargs="+",
        help='the rows read, each named by the start of its name (e.g. after "session 21"); default all',
    )
    ap.add_argument("--out", type=Path)
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    if a.ways:
        chosen = [r for r in ROWS if any(r.startswith(w) for w in a.ways)]
        if not chosen or any(not any(r.startswith(w) for r in ROWS) for w in a.ways):
            raise SystemExit(f"--ways {a.ways}: each must begin one of {list(ROWS)}")
        CHOSEN[:] = chosen
    if not (a.real / "d20_lurig").is_dir():
        raise SystemExit(f"--real {a.real}: expected the shared real photos (d20_lurig/ in it)")
    from vision.numbered import reader as numbered_reader

    if a.target is not None:
        numbered_reader.TARGET_SIDE = a.target
    if a.max_area is not None:
        mw, mh = (int(v) for v in a.max_area.lower().split("x"))
        AFTER_CAP["cap"] = mw * mh
    if a.fine_area is not None:
        fw, fh = (int(v) for v in a.fine_area.lower().split("x"))
        numbered_reader.FINE_AREA = fw * fh
    groups = list(TRAIN) if a.only_train else [*HELD_OUT, *(TRAIN if a.train else ())]
    count = 1 if a.smoke else a.count
    if a.smoke:
        groups = groups[:1]
    lines = [harness.run_header(argv), ""]
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for die_px in [] if a.no_plain else a.die_px or [DIE_PX]:
            counts: dict[str, Counts] = {}
            for g in groups:
                run_group(g, a.real, count, Path(tmp), die_px, counts, tuple(a.tables))
            lines += [*report(counts, groups, die_px), ""]
        if a.learnt:
            for die_px in a.die_px or [DIE_PX]:
                counts = {}
                notes = []
                for g in groups:
                    limit = 2 if a.smoke else a.learnt_limit
                    notes += learnt_group(g, a.real, limit, Path(tmp), die_px, counts)
                lines += [*learnt_report(counts, groups, die_px), "", *(f"- {n}" for n in notes), ""]
        if a.large:
            lines += large(a.real, 1 if a.smoke else None, a.large_step, Path(tmp))
    lines.append(f"({time.time() - t0:.0f} s wall)")
    harness.write("\n".join(lines), a.out)


if __name__ == "__main__":
    main()
