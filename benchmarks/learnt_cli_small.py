"""The hidden-test proxy (`benchmarks.learnt_cli`) before and after the OCR head weighs a small learnt die
(issue 44 item 4), in one run.

    nice -n 15 .venv/bin/python -m benchmarks.learnt_cli_small --train \
        --out benchmarks/results/learnt_cli_small.md

The same frames, sessions and commands as `benchmarks.learnt_cli` (its doc: a d20_lurig die of ~60 px
with a 5 px motion blur in a 1280x720 table, 4 rolls a face taught with `learn-dice see`/`confirm
--config`, the later rolls read with `read --config --json`), its "after" table (the roster entry and
the not-dice crops), taught and read once a way (`--ways`, default before and after), each way in a
session of its own:

- "before": the OCR head reads no die whose box is under `ocr.MIN_SIDE` (100 px) for a learnt set, and
  reads a small die's crops as cut (`LEARNT_MIN_SIDE` 100, `MAGNIFY` 1: the code before this change);
- "first": the first landing (`cbb1dde`): a roster's die weighed with the head's evidence from 40 px,
  the small die magnified x2 first, the evidence weighed as a large die's (0.08);
- "after": as now, from `ocr.LEARNT_MIN_SIDE`, magnified `ocr.MAGNIFY` times, the evidence weighed
  `ocr.LEARNT_SMALL_WEIGHT` (the magnified head also reads for `see`'s grouping and the teaching page);
- "wheel": as "after", but a small die read with the wheel's projection and calibration, not the refit
  `ocr.SMALL_HEAD` (training/numbered/ocr_small_head.py): the refit's before, in the same run;
- "cuts": as "after", but a small die under the trust margin cut again before the sure rule
  (`template.CUT_MARGIN` = `TRIED_CUT_MARGIN`: issue 44, read unasked, `benchmarks.learnt_cuts`; tried,
  not adopted);
- "see21": as "after", but `learn-dice see` groups the teaching crops as in session 21
  (`benchmarks.see_before.session21`), before `see` put purity first (issue 44, session 22).

Held out first (d20_top, d20_wood); ``--train`` adds d20_off-angle, the set-up the choices were made on.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import harness, learnt_cli
from benchmarks.harness import REAL, markdown_table
from vision.numbered import ocr, template
from vision.numbered import reader as numbered_reader

#: key -> (way, the learnt floor, the magnification of a small die, the head's weight for it)
WAYS: dict[str, tuple[str, float, float, float | None]] = {
    "before": ("before: the head reads no learnt die under 100 px", 100.0, 1.0, None),
    "first": ("after, first landing: from 40 px, magnified x2, the head's weight 0.08", 40.0, 2.0, 0.08),
    "after": (
        f"after: from {ocr.LEARNT_MIN_SIDE:g} px, magnified x{ocr.MAGNIFY:g}, the head's weight "
        f"{ocr.LEARNT_SMALL_WEIGHT if ocr.LEARNT_SMALL_WEIGHT is not None else 0.08:g}",
        ocr.LEARNT_MIN_SIDE,
        ocr.MAGNIFY,
        ocr.LEARNT_SMALL_WEIGHT,
    ),
}
#: as "after", but a small die read with the wheel's projection (`ocr.SMALL_HEAD` None): before the refit
WAYS["wheel"] = ("after, the wheel's projection for a small die (no ocr.SMALL_HEAD)", *WAYS["after"][1:])
#: as "after", but a small die cut again (`template.TRIED_CUT_MARGIN`; tried, not adopted)
WAYS["cuts"] = ("after, a small die cut again (template.TRIED_CUT_MARGIN)", *WAYS["after"][1:])
#: as "after", with the camera's view written into each table.toml (``--view``: `learnt_cli.VIEW`; issue 44:
#: a d20 cut on its top face by `learn-dice see`/`confirm --config` and `read --config`)
WAYS["view"] = ("after, the camera's view stated ([vision] camera_tilt_deg)", *WAYS["after"][1:])
#: as "after", with no view stated and ``[vision] learn_camera_view = true``: `learn-dice see` learns the
#: camera's view from the teaching rolls (`controller.learn_view`), `read --config` cuts by it
WAYS["learn"] = ("after, the camera's view learnt ([vision] learn_camera_view)", *WAYS["after"][1:])
#: as "after", but `learn-dice see` groups the crops as in session 21 (`see_before.session21`: link
#: 0.88, the OCR head's sure word joining groups at the die's middle): `see`'s purity first's before
WAYS["see21"] = ("after, see grouping as in session 21", *WAYS["after"][1:])
#: as "after", but a roster die read without its set's own reader on the OCR recogniser's features
#: (`vision.numbered.die_head`, DICETABLE_DIE_HEAD=off): the die head's before (issue 44, session 22)
WAYS["nohead"] = ("after, no die head (DICETABLE_DIE_HEAD=off)", *WAYS["after"][1:])
#: as "view", without the die head: the die head's before with the camera's view stated
WAYS["viewnohead"] = ("after, the camera's view stated, no die head", *WAYS["after"][1:])
DEFAULT_WAYS = ("before", "after")
ROW = learnt_cli.ROWS[-1]


def run(
    groups: list[str],
    step: int,
    limit: int | None,
    work: Path,
    rolls: int,
    ways: tuple[str, ...],
    view: tuple[float, float, float] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    was = ocr.LEARNT_MIN_SIDE, ocr.MAGNIFY, ocr.LEARNT_SMALL_WEIGHT, learnt_cli.ROWS
    view_was = learnt_cli.VIEW
    small_head, cut_margin = ocr.SMALL_HEAD, template.CUT_MARGIN
    from benchmarks.see_before import session21
    from controller import learn_dice

    grouping = learn_dice.group_faces
    try:
        for group in groups:
            for key in ways:
                way, floor, magnify, weight = WAYS[key]
                ocr.LEARNT_MIN_SIDE, ocr.MAGNIFY, ocr.LEARNT_SMALL_WEIGHT = floor, magnify, weight
                ocr.SMALL_HEAD = None if key == "wheel" else small_head
                template.CUT_MARGIN = template.TRIED_CUT_MARGIN if key == "cuts" else cut_margin
                learnt_cli.VIEW = view if key in ("view", "viewnohead") else None
                learnt_cli.LEARN_VIEW = key == "learn"
                learn_dice.group_faces = session21 if key == "see21" else grouping  # type: ignore[assignment]
                if key in ("nohead", "viewnohead"):
                    os.environ["DICETABLE_DIE_HEAD"] = "off"
                else:
                    os.environ.pop("DICETABLE_DIE_HEAD", None)
                numbered_reader._default = None  # the process's reader (and its head) made anew a way
                learnt_cli.ROWS = ((way, ROW[1], ROW[2]),)
                out[f"{group}|{way}"] = learnt_cli.run_group(group, REAL, step, limit, work / key, rolls)
    finally:
        ocr.LEARNT_MIN_SIDE, ocr.MAGNIFY, ocr.LEARNT_SMALL_WEIGHT, learnt_cli.ROWS = was
        ocr.SMALL_HEAD, template.CUT_MARGIN = small_head, cut_margin
        learnt_cli.VIEW = view_was
        learnt_cli.LEARN_VIEW = False
        learn_dice.group_faces = grouping  # type: ignore[assignment]
        os.environ.pop("DICETABLE_DIE_HEAD", None)
        numbered_reader._default = None
    return out


def report(
    groups: list[str],
    results: dict[str, Any],
    seconds: float,
    ways: tuple[str, ...],
    view: tuple[float, float, float] | None = None,
) -> str:
    rows, notes = [], []
    for group in groups:
        for variant, _ in learnt_cli.VARIANTS:
            for way in (WAYS[k][0] for k in ways):
                counts, n = results[f"{group}|{way}"]
                later, own = counts[f"{variant}|{way}|later"], counts[f"{variant}|{way}|own"]
                rows.append(learnt_cli.table_row(group, variant, way, later, own))
                g = n[variant]
                notes.append(
                    f"{group}, {variant}, {way.split(':')[0]}: `see` made {g['groups']} groups of "
                    f"{g['crops']} crops ({g['not the die']} not the die, {g['misnamed']} in a group "
                    f"named another face)"
                    + (f"; the view learnt: {g['view learnt']}" if "view learnt" in g else "")
                )
    head = list(learnt_cli.HEAD)
    head[2] = "way"
    return "\n".join(
        [
            "# The hidden-test proxy before and after the OCR head weighs a small learnt die (issue 44)",
            "",
            harness.run_header(),
            f"Die {learnt_cli.DIE_PX} px, motion blur {learnt_cli.BLUR} px; {seconds:.0f} s.",
            *(
                [
                    f"Each die laid sized as a camera {learnt_cli.PERSPECTIVE[0]:g} degrees off vertical "
                    f"(nadir below) with lens {learnt_cli.PERSPECTIVE[1]:g} sees the table "
                    f"(learnt_cli.PERSPECTIVE), {learnt_cli.DIE_PX} px at the frame's centre."
                ]
                if learnt_cli.PERSPECTIVE is not None
                else []
            ),
            *(
                [f"The 'view' way's [vision]: camera_tilt_deg/camera_nadir_deg/camera_focal = {view}."]
                if view is not None and any(k == "view" for k in ways)
                else []
            ),
            "",
            *(f"- {x}" for x in notes),
            "",
            *markdown_table(head, rows),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="learnt_cli before and after the head weighs small learnt dice")
    ap.add_argument(
        "--step", type=int, default=learnt_cli.STEP, help="every n-th frame of a clip's second half"
    )
    ap.add_argument("--limit", type=int, default=None, help="at most this many later frames a set-up")
    ap.add_argument("--train", action="store_true", help="also d20_off-angle (a train set-up)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--ways", default=",".join(DEFAULT_WAYS), help=f"comma-separated, of {', '.join(WAYS)}")
    ap.add_argument(
        "--view",
        default="45/90/10",
        help="the 'view' way's [vision] camera_tilt_deg/camera_nadir_deg/camera_focal, as tilt/nadir/focal",
    )
    ap.add_argument("--groups", default=None, help="set-ups, comma-separated (default: held out, + --train)")
    ap.add_argument(
        "--tables", nargs="+", default=None, help="only these tables (learnt_cli.VARIANTS' names)"
    )
    ap.add_argument(
        "--perspective",
        default=None,
        help="lay each die sized as a camera tilted T degrees (nadir below) with lens F sees the table, "
        "as T/F (learnt_cli.PERSPECTIVE; default: every die the same size, as before)",
    )
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    ways = tuple(a.ways.split(","))
    if not ways or any(w not in WAYS for w in ways):
        ap.error(f"--ways: expected some of {', '.join(WAYS)}, got {a.ways!r}")
    try:
        t, n, f = (float(v) for v in a.view.split("/"))
    except ValueError:
        ap.error(f"--view: expected tilt/nadir/focal (e.g. 45/90/10), got {a.view!r}")
    view = (t, n, f)
    if a.perspective:
        try:
            pt, pf = (float(v) for v in a.perspective.split("/"))
        except ValueError:
            ap.error(f"--perspective: expected tilt/focal (e.g. 45/1.43), got {a.perspective!r}")
        learnt_cli.PERSPECTIVE = (pt, pf)
    groups = list(learnt_cli.HELD_OUT) + (list(learnt_cli.TRAIN) if a.train else [])
    if a.groups:
        groups = a.groups.split(",")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    variants = learnt_cli.VARIANTS
    if a.smoke:  # one set-up, one table, a few frames
        groups, learnt_cli.VARIANTS = groups[:1], variants[:1]
    elif a.tables:
        learnt_cli.VARIANTS = tuple(v for v in variants if v[0] in a.tables)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rolls = 1 if a.smoke else learnt_cli.ROLLS
            results = run(groups, a.step, 4 if a.smoke else a.limit, Path(tmp), rolls, ways, view)
        text = report(groups, results, time.perf_counter() - t0, ways, view)
    finally:
        learnt_cli.VARIANTS = variants
    harness.write(text + "\n", a.out)


if __name__ == "__main__":
    main()
