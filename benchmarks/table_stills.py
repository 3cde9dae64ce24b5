"""Real d20s read as a Die-angler table reads a settled throw: from the full-resolution still (issue 43)
or from the gate's video frame, with the game's kinds (d6, d10, d20: the default since issue 43) or
with pip d6 alone (the default before), in one run.

    nice -n 10 .venv/bin/python -m benchmarks.table_stills --out benchmarks/results/table_stills.md

Each photo is laid, at its own pixels (never enlarged), in the middle of a 4608x2592 still (the Camera
Module 3's sensor) of the photo's border colour; the gate's frame is that still shrunk to 1280 wide
(1280x720: what a 1280x960-wide video stream gives of the same view; the die 0.28 times its size in the
still: a d20_lurig die of ~200 px is ~56 px, as the issue's 35-60 px).  The empty table is the same
frame without the die, the table's `[vision] empty_table_frame` (at the gate frame's size, as the
gate sees it).  Every photo is read through the perception step as `dicetable read --config` builds
it from a Die-angler table.toml (`Perceiver.from_config`): "video" reads the gate's frame, "still"
reads the still with the gate's frame beside it (`Perceiver.perceive(still, frame=video)`).  "Before
issue 43" is the Die-angler table as its default was (pip d6 alone, the pip reader with no numbered
not-a-d6 check: `PipDice.pips`); "table.kinds = [d6] now" names pip d6 alone today.

Sets, held out (never trained or tuned on): d20_lurig's d20_top and d20_wood set-ups (spaced, every
clip; STEP), d20_imac1844's green d20 (another source, every face).  The photo's die: the reading
nearest the frame's centre within the die's own size; every other reading is a phantom.  Right: a d20
of the photo's face.  Unasked: right and at least SURE (the table's asking threshold).  Silent: a
reading at or above SURE that is wrong (kind or value) or a phantom (per 200 readings of a die).
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, DieTally, imread, markdown_table, spaced
from controller.config import parse_config
from controller.perceive import Perceiver
from training.numbered.real import HELD_OUT_GROUPS, load_lurig

SURE = 0.8
STILL = (4608, 2592)
VIDEO_W = 1280
STEP = 6


@dataclass
class Counts(DieTally):
    """`DieTally` (``frames``: the photos read) and the photos whose die was found, each still's ms."""

    found: int = 0
    ms: list[float] = field(default_factory=list)


def frames_of(photo: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(still, video, empty still, empty video) of a photo laid in the middle of a 4608x2592 still."""
    h, w = photo.shape[:2]
    edge = np.concatenate([photo[0], photo[-1], photo[:, 0], photo[:, -1]])
    empty = np.empty((STILL[1], STILL[0], 3), np.uint8)
    empty[:] = np.median(edge, 0)
    still = empty.copy()
    y0, x0 = (STILL[1] - h) // 2, (STILL[0] - w) // 2
    still[y0 : y0 + h, x0 : x0 + w] = photo
    size = (VIDEO_W, round(VIDEO_W * STILL[1] / STILL[0]))
    video = cv2.resize(still, size, interpolation=cv2.INTER_AREA)
    empty_video = cv2.resize(empty, size, interpolation=cv2.INTER_AREA)
    return still, video, empty, empty_video


def photos(real: Path, step: int, limit: int | None, d6: bool = False) -> list[tuple[str, Path, int]]:
    """(set, photo, face) of the held-out sets; ``d6``: d20_imac1844's numeral d6s too (set "d6_imac1844":
    right is a d6 of the face, any sure d10 or d20 reading silent)."""
    lurig = [x for x in load_lurig(real) if x.group in HELD_OUT_GROUPS]
    lurig = sorted(lurig, key=lambda x: (x.group, x.face, x.frame))[::step]
    out = [(f"d20_lurig {x.group}", x.path, x.face) for x in spaced(lurig, limit)]
    imac_rows = list(csv.DictReader((real / "d20_imac1844" / "labels.csv").open(encoding="utf-8")))
    imac = [r for r in imac_rows if r["kind"] == "d20"]
    out += [("d20_imac1844", real / "d20_imac1844" / r["file"], int(r["face"])) for r in spaced(imac, limit)]
    if d6:
        six = [r for r in imac_rows if r["kind"] == "d6"]
        out += [
            ("d6_imac1844", real / "d20_imac1844" / r["file"], int(r["face"])) for r in spaced(six, limit)
        ]
    return out


def table(kinds: list[str] | None, empty: Path) -> Perceiver:
    """A Die-angler table's perception step (`dicetable read --config`), its empty table ``empty``."""
    raw: dict[str, Any] = {"table": {"game": "die-angler"}, "vision": {"empty_table_frame": str(empty)}}
    if kinds is not None:
        raw["table"]["kinds"] = kinds
    return Perceiver.from_config(parse_config(raw))


def tally(
    c: Counts, dice: list[Any], face: int, centre: tuple[float, float], side: float, kind: str = "d20"
) -> None:
    near = [d for d in dice if d.center is not None and math.dist(d.center, centre) <= side]
    die = min(near, key=lambda d: math.dist(d.center, centre)) if near else None
    c.found += die is not None
    read = None if die is None else (die.kind == kind and die.value == face, die.confidence or 0.0)
    c.score(read, [d.confidence or 0.0 for d in dice if d is not die], SURE)


#: (label, table.kinds (None: the game's), read the still, the pip reader bare as before issue 43, or the
#: kind-at-a-table route: the table's `NumberedDice` given a ``kind_of``: `vision.numbered.table_kind.settle`)
ROWS = (
    ("before issue 43: pip d6 alone (the default then), no not-a-d6 check, video frame", ["d6"], False, True),
    ("before issue 43: pip d6 alone (the default then), no not-a-d6 check, still", ["d6"], True, True),
    ("table.kinds = [d6] now (the not-a-d6 check), video frame", ["d6"], False, False),
    ("table.kinds = [d6] now (the not-a-d6 check), still", ["d6"], True, False),
    ("the game's kinds d6,d10,d20 (the default now), video frame", None, False, False),
    ("the game's kinds d6,d10,d20 (the default now), still", None, True, False),
    (
        "kind at a table: the outline rule with its d10 guard "
        "(at d6, d10, d20: never settles; not the table's), still",
        None,
        True,
        "outline",
    ),
    (
        "kind at a table: the outline rule without its d10 guard "
        "(not the table's: a d10 passes it 12 %), still",
        None,
        True,
        "outline-any",
    ),
    (
        "kind at a table: its roster lists pip d6 and a d20 (`TableKinds`, the table's route), still",
        None,
        True,
        "d20",
    ),
)
#: --kind-rows: only the game's-kinds still row and the kind-at-a-table rows (issue 43 item 5)
KIND_ROWS = ROWS[5:]


def kind_route(perceiver: Perceiver, route: str) -> None:
    """The table's reader with a kind-at-a-table route (issue 43 item 5): "outline" the outline rule
    with its d10 guard, "outline-any" without it (neither is the table's: measured only), "d20" the
    table's own route (`controller.kind_at_table.TableKinds`) with a roster of a pip d6 and this d20."""
    from controller.kind_at_table import TableKinds
    from vision.numbered.table_kind import by_outline

    kinds = perceiver.kinds
    if route == "d20":
        kind_of: Any = TableKinds(kinds, ["d6", "d20"])
    else:
        kind_of = by_outline(kinds, guard=route == "outline")
    perceiver.reader = replace(perceiver.reader, kind_of=kind_of)  # type: ignore[type-var]


def run(
    real: Path, step: int, limit: int | None, tmp: Path, rows: tuple[Any, ...] = ROWS, d6: bool = False
) -> dict[tuple[str, str], Counts]:
    out: dict[tuple[str, str], Counts] = {}
    tables: dict[str, Perceiver] = {}
    empty_path = tmp / "empty.png"
    for name, path, face in photos(real, step, limit, d6):
        photo = imread(path)
        still, video, _empty, empty_video = frames_of(photo)
        cv2.imwrite(str(empty_path), empty_video)
        side = 0.5 * max(photo.shape[:2])
        for label, kinds, from_still, bare in rows:
            key = ",".join(kinds or ["game"]) + (f" {bare}" if bare else "")
            if key not in tables:
                tables[key] = table(kinds, empty_path)
                if bare is True:  # the pip reader as the table had it before issue 43 (no numbered check)
                    tables[key].reader = tables[key].reader.pips  # type: ignore[attr-defined]
                elif bare:
                    kind_route(tables[key], bare)
            perceiver = tables[key]
            perceiver.set_empty(empty_video)
            c0 = time.process_time()
            if from_still:
                seen = perceiver.perceive(still, frame=video)
            else:
                seen = perceiver.perceive(video)
            ms = 1000 * (time.process_time() - c0)
            k = VIDEO_W / STILL[0]
            centre = (STILL[0] / 2 * k, STILL[1] / 2 * k)
            c = out.setdefault((label, name), Counts())
            c.ms.append(ms)
            tally(c, list(seen.dice), face, centre, side * k, "d6" if name.startswith("d6_") else "d20")
    return out


def report(counts: dict[tuple[str, str], Counts]) -> str:
    lines = [
        "# Real d20s read as a Die-angler table reads a settled throw: the still against the gate's frame",
        "",
        harness.run_header(),
        "",
        __doc__.split("\n\n", 2)[2].strip() if __doc__ else "",
        "",
    ]
    head = [
        "reading",
        "set",
        "photos",
        "value right",
        "read unasked",
        "silent / 200",
        "phantoms / frame",
        "ms a frame (median)",
    ]
    rows = []
    totals: dict[str, Counts] = {}
    for (label, name), c in counts.items():
        totals[label] = totals.get(label, Counts()) + c
        rows.append(_row(label, name, c))
    rows += [_row(label, "**all**", c) for label, c in totals.items()]
    lines += markdown_table(head, rows)
    return "\n".join(lines) + "\n"


def _row(label: str, name: str, c: Counts) -> list[object]:
    n = max(1, c.frames)
    return [
        label,
        name,
        c.frames,
        f"{c.right} ({100 * c.right / n:.1f} %)",
        f"{c.unasked} ({100 * c.unasked / n:.1f} %)",
        f"{200 * c.silent / n:.1f}",
        f"{c.phantoms / n:.2f}",
        f"{float(np.median(c.ms)) if c.ms else 0.0:.0f}",
    ]


def main(argv: list[str] | None = None) -> None:
    import tempfile

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument(
        "--step", type=int, default=STEP, help=f"every STEP-th held-out d20_lurig crop (default {STEP})"
    )
    ap.add_argument("--limit", type=int, default=None, help="at most this many photos a set")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--kind-rows",
        action="store_true",
        help="only the game's kinds' still row and the kind-at-a-table rows",
    )
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    if args.step < 1:
        ap.error(f"--step: expected 1 or more, got {args.step}")
    if not (args.real / "d20_lurig" / "labels.csv").is_file():
        raise SystemExit(f"{args.real}: the shared real photos are not there (d20_lurig/, d20_imac1844/)")
    limit = 1 if args.smoke else args.limit
    rows = KIND_ROWS if args.kind_rows else ROWS
    with tempfile.TemporaryDirectory() as tmp:
        harness.write(report(run(args.real, args.step, limit, Path(tmp), rows, args.kind_rows)), args.out)


if __name__ == "__main__":
    main()
