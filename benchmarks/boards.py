"""Board load time and zone-test time per die.

    nice -n 10 .venv/bin/python -m benchmarks.boards [--dice 2000] [--repeat 7] [--code DIR] [--markdown FILE]

Boards timed: the shipped examples, and a round DICETAR WARS board like the one in issue 21
(400 mm square, rings x8/x6/x4/x3 of radii 40/80/120/170 mm split into quadrants by a 6 mm
cross, four 50 mm markers, two of them turned) written two ways: with layout shapes
(``annular_sector`` less the cross, as a designer draws it) and as the 230-460-point
polygons a file had to spell out before shapes existed.

Load time is ``calibration.board.load_board`` on the file (read, parse, validate, prepare),
the best (and the median) of ``--repeat`` loads after one warm-up: on a shared machine the
best is the time the work takes, the rest is waiting for a core.  The zone test is
``calibration.geometry.classify`` (zones touched, lowest multiplier, centre-line side,
field or card slot) on ``--dice`` footprints: dice of 14, 16 and 19 mm at random places
and angles over the board (a third of them across a ring or cross edge), time per die, the
best of three passes.

``--code DIR`` imports ``calibration`` from another checkout (e.g. an export of an older
commit) to time it on the same files, in the same run of the machine; boards that checkout
cannot read are reported as such (the run goes on in a child process whose ``calibration`` is
DIR's: no ``sys.path`` edit).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header, shown

#: set in the child that times another checkout's calibration (--code)
CODE_ENV = "DICETABLE_BENCH_CODE"
SMOKE = (50, 1)  # --smoke: dice, loads a board

CENTRE = (200.0, 200.0)
RINGS = [(0.0, 40.0, 8), (40.0, 80.0, 6), (80.0, 120.0, 4), (120.0, 170.0, 3)]
CROSS_MM = 6.0
#: Arc step (degrees) of the polygon-only board: quarter arcs of 226 points.
POLY_STEP_DEG = 0.4
DIE_SIZES = (14.0, 16.0, 19.0)

HEADER = """name = "rings-{kind}"
description = "Round DICETAR WARS board (issue 21's kind), zones as {kind}"

[outline]
rectangle = {{ center = [200, 200], size = [400, 400] }}

[[markers]]
id = 0
center = [40, 40]
size = 50
rotation = 45

[[markers]]
id = 1
center = [360, 40]
size = 50

[[markers]]
id = 2
corners = [[335, 335], [385, 335], [385, 385], [335, 385]]

[[markers]]
id = 3
center = [40, 360]
size = 50
rotation = -30
"""

#: The same outline and markers in the form every version reads (axis-aligned squares).
HEADER_PLAIN = """name = "rings-{kind}"

[outline]
polygon = [[0, 0], [400, 0], [400, 400], [0, 400]]

[[markers]]
id = 0
center = [40, 40]
size = 50

[[markers]]
id = 1
center = [360, 40]
size = 50

[[markers]]
id = 2
center = [360, 360]
size = 50

[[markers]]
id = 3
center = [40, 360]
size = 50
"""


def shapes_board() -> str:
    cx, cy = CENTRE
    out = [HEADER.format(kind="shapes")]
    for r0, r1, mult in RINGS:
        for q in range(4):
            out.append(
                f'[[zones]]\nname = "x{mult}-q{q}"\nmultiplier = {mult}\ndifference = [\n'
                f"  {{ annular_sector = {{ center = [{cx}, {cy}], inner = {r0}, outer = {r1}, "
                f"start = {90 * q}, end = {90 * q + 90} }} }},\n"
                f"  {{ rectangle = {{ center = [{cx}, {cy}], size = [400, {CROSS_MM}] }} }},\n"
                f"  {{ rectangle = {{ center = [{cx}, {cy}], size = [{CROSS_MM}, 400] }} }},\n]\n"
            )
    return "\n".join(out)


def _quadrant_polygon(r0: float, r1: float, q: int) -> list[tuple[float, float]]:
    """A ring's quadrant less the half cross, as a polygon (arcs sampled every POLY_STEP_DEG)."""
    cx, cy = CENTRE
    h = CROSS_MM / 2
    sx, sy = (1, 1) if q == 0 else (-1, 1) if q == 1 else (-1, -1) if q == 2 else (1, -1)

    def arc(r: float) -> list[tuple[float, float]]:
        # from the edge of the horizontal bar to the edge of the vertical one, in the first quadrant
        a0, a1 = math.asin(h / r), math.acos(h / r)
        n = max(2, math.ceil(math.degrees(a1 - a0) / POLY_STEP_DEG) + 1)
        return [(r * math.cos(t), r * math.sin(t)) for t in np.linspace(a0, a1, n)]

    pts = arc(r1) + (arc(r0)[::-1] if r0 > h * math.sqrt(2) else [(h, h)])
    return [(cx + sx * x, cy + sy * y) for x, y in pts]


def polygon_board(header: str = HEADER) -> str:
    out = [header.format(kind="polygons")]
    for r0, r1, mult in RINGS:
        for q in range(4):
            pts = ", ".join(f"[{x:.4f}, {y:.4f}]" for x, y in _quadrant_polygon(r0, r1, q))
            out.append(f'[[zones]]\nname = "x{mult}-q{q}"\nmultiplier = {mult}\npolygon = [{pts}]\n')
    return "\n".join(out)


def footprints(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Dice of 14/16/19 mm: two thirds anywhere on the board, one third centred on a ring or cross edge."""
    out = []
    for i in range(n):
        s = DIE_SIZES[i % len(DIE_SIZES)]
        if i % 3 == 2:
            r = [40.0, 80.0, 120.0, 170.0][int(rng.integers(4))] + rng.uniform(-s / 2, s / 2)
            t = rng.uniform(0, 2 * math.pi)
            c = np.array([CENTRE[0] + r * math.cos(t), CENTRE[1] + r * math.sin(t)])
        else:
            c = rng.uniform(10, 390, 2)
        a = rng.uniform(0, math.pi / 2)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * s / 2
        rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        out.append(corners @ rot + c)
    return out


def time_board(path: Path, dice: list[np.ndarray], repeat: int) -> dict[str, Any]:
    from calibration.board import load_board
    from calibration.geometry import classify

    try:
        board = load_board(path)
    except Exception as e:  # an older checkout refusing a newer file says so in the table
        return {"error": f"{type(e).__name__}: {str(e).split(':')[-1].strip()[:60]}"}
    loads = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        load_board(path)
        loads.append(time.perf_counter() - t0)
    passes = []
    for _ in range(3):
        t0 = time.perf_counter()
        results = [classify(fp, board) for fp in dice]
        passes.append((time.perf_counter() - t0) / len(dice))
    return {
        "load_ms": 1000 * min(loads),
        "load_median_ms": 1000 * statistics.median(loads),
        "die_ms": 1000 * min(passes),
        "zones": len(board.zones),
        "points": max((len(z.polygon) for z in board.zones), default=0),
        "results": [(r.zones, r.min_multiplier, r.field_status) for r in results],
    }


def row(name: str, r: dict[str, Any]) -> list[object]:
    if "error" in r:
        return [name, "-", "-", f"cannot load: {r['error']}", "-"]
    load = f"{r['load_ms']:.1f}; {r['load_median_ms']:.1f}"
    return [name, r["zones"], r["points"], load, f"{r['die_ms']:.4f}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dice", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--code", type=Path, default=ROOT, help="checkout whose calibration/ to time")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    code = args.code.resolve()
    if code != ROOT and os.environ.get(CODE_ENV) != str(code):
        if not (code / "calibration").is_dir():
            ap.error(f"--code {args.code}: no calibration/ folder there (expected a checkout of dicetable)")
        # the same run in a child whose `calibration` is the other checkout's (first on its path)
        env = {**os.environ, CODE_ENV: str(code), "PYTHONPATH": os.pathsep.join([str(code), str(ROOT)])}
        argv = sys.argv[1:] if argv is None else argv
        with tempfile.TemporaryDirectory() as cwd:  # not ROOT: its calibration/ would come first
            return subprocess.run(
                [sys.executable, "-m", "benchmarks.boards", *argv], env=env, cwd=cwd
            ).returncode
    import calibration

    if not Path(calibration.__file__).resolve().is_relative_to(code):
        raise SystemExit(
            f"--code {args.code}: imported calibration from {calibration.__file__}, not from there"
        )
    if args.smoke:
        args.dice, args.repeat = SMOKE
    dice = footprints(args.dice, np.random.default_rng(21))
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "dicetar-wars.example (shipped)": ROOT / "boards" / "dicetar-wars.example.toml",
            "dice-fighter.example (shipped)": ROOT / "boards" / "dice-fighter.example.toml",
            "round rings board, layout shapes": Path(tmp) / "rings-shapes.toml",
            "round rings board, polygons (turned markers)": Path(tmp) / "rings-polygons.toml",
            "round rings board, polygons (upright markers)": Path(tmp) / "rings-plain.toml",
        }
        files["round rings board, layout shapes"].write_text(shapes_board())
        files["round rings board, polygons (turned markers)"].write_text(polygon_board())
        files["round rings board, polygons (upright markers)"].write_text(polygon_board(HEADER_PLAIN))
        rows = {name: time_board(p, dice, args.repeat) for name, p in files.items()}
    head = [
        f"board ({args.dice} dice of 14/16/19 mm; code: {shown(args.code)})",
        "zones",
        "most points in a zone",
        "load (ms, best; median)",
        "zone test (ms / die, best of 3 passes)",
    ]
    lines = [
        run_header(argv),
        *markdown_table(head, (row(name, r) for name, r in rows.items())),
    ]
    shapes, polys = (
        rows["round rings board, layout shapes"],
        rows["round rings board, polygons (upright markers)"],
    )
    if "results" in shapes and "results" in polys:
        same = sum(a == b for a, b in zip(shapes["results"], polys["results"], strict=True))
        lines.append(
            f"\nsame zones, lowest multiplier and field from the shapes board as from the polygon board: "
            f"{same}/{len(dice)} dice (the two sample the arcs differently, within 0.02 mm)"
        )
    table = "\n".join(lines) + "\n"
    print(table)
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
