"""The size route to a numbered die's kind, measured on rendered board scenes (issue 43 item 5).

    nice -n 10 .venv/bin/python -m benchmarks.kind_sizes --out benchmarks/results/kind_sizes.md

A table with a board calibration knows where the board lies (its pose) and so a die's size in mm: its
box (the numbered reader's quad) back-projected on the board plane at a candidate size's height is
FOOTPRINT times that size wide.  A kind would be settled when the die fits one kind's size of the
table's roster (within TOL) and no other's.  The rendered board scenes (tests/fixtures/numbered, with
their camera's pose; their d10 and d20 all ~19.1 mm, d6 ~13 mm) are read by the numbered reader at
Die-angler's kinds; each d20 is tried against a roster of d10s of 15 mm and d20s of 19.1 mm (the d20
of the roster as it is), each d10 against d10s of 19.1 mm and d20s of 25 mm.  Right: the die's kind
settled; wrong: the other kind settled (a silent error once its value is read at that kind); none:
not settled (asked, as without the route).  FOOTPRINT is measured on the first 8 scenes (the box
width over the die's size: median 0.94); the tolerance rows are of the scenes after them.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import markdown_table

SCENES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "numbered"
KINDS = ("d6", "d10", "d20")
FOOTPRINT = 0.94
TOLS = (0.06, 0.08, 0.10, 0.12)
ROSTERS = {"d20": {"d10": 15.0, "d20": 19.1}, "d10": {"d10": 19.1, "d20": 25.0}}


def width_mm(quad: object, size_mm: float, pose: object, cal: object) -> float:
    import shapely.geometry as sg

    q = np.asarray(quad, np.float64).reshape(-1, 2)
    return math.sqrt(sg.Polygon(pose.backproject(q, size_mm, cal)).area)  # type: ignore[attr-defined]


def settled(quad: object, roster: dict[str, float], pose: object, cal: object, tol: float) -> str | None:
    fits = [k for k, s in roster.items() if abs(width_mm(quad, s, pose, cal) / (FOOTPRINT * s) - 1) <= tol]
    return fits[0] if len(fits) == 1 else None


def run(first: int, limit: int | None) -> tuple[list[list[object]], int]:
    from calibration.camera import CameraCalibration
    from calibration.pose import BoardPose
    from vision.numbered import NumberedDice

    reader = NumberedDice(KINDS)
    dice = []
    paths = sorted(SCENES.glob("scene_*.json"))[first:]
    for path in paths[:limit] if limit else paths:
        d = json.loads(path.read_text(encoding="utf-8"))
        if not d.get("board"):
            continue
        c = d["camera"]
        cal = CameraCalibration(np.array(c["camera_matrix"], float), np.zeros(5), tuple(d["image_size"]))
        pose = BoardPose(np.array(c["rvec"], float), np.array(c["tvec"], float))
        image = cv2.imread(str(path.with_suffix(".jpg")))
        got = reader.read(image)
        for die in d["dice"]:
            near = [r for r in got if math.dist(r.center, die["center_px"]) < 12 and r.kind != "d6"]
            if near and die["kind"] in ROSTERS:
                dice.append((die["kind"], near[0].quad, pose, cal))
    rows: list[list[object]] = []
    for tol in TOLS:
        for kind, roster in ROSTERS.items():
            mine = [x for x in dice if x[0] == kind]
            got = [settled(q, roster, pose, cal, tol) for _, q, pose, cal in mine]
            right = sum(g == kind for g in got)
            wrong = sum(g not in (None, kind) for g in got)
            roster_s = ", ".join(f"{k} {s:g} mm" for k, s in roster.items())
            rows.append([f"{tol:.2f}", kind, roster_s, len(mine), right, wrong, len(mine) - right - wrong])
    return rows, len(dice)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--first", type=int, default=8, help="the first scene measured (default 8)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many scenes")
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    rows, n = run(args.first, 2 if args.smoke else args.limit)
    lines = ["# The size route to a numbered die's kind, rendered board scenes", "", harness.run_header(), ""]
    lines += [(__doc__ or "").split("\n\n", 2)[2].strip(), "", f"{n} numbered dice found and matched.", ""]
    lines += markdown_table(["tolerance", "die", "roster", "dice", "right", "wrong", "none"], rows)
    harness.write("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
