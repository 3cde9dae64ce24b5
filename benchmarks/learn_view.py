"""The camera's view learnt from the teaching rolls (`controller.learn_view`, issue 44): what each set of
teaching frames tells, against the truth, without the CLI.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.learn_view \\
        --out benchmarks/results/learn_view.md

Sources: the 20-face RENDERS' teaching frames (seed 44 at /tmp/dicetable-render20, seed 45 at
/tmp/dicetable-render20-s45: a camera 45 deg off vertical, the nadir below the frame, lens 1.4286;
`benchmarks.learnt_render20`), and the REAL proxy's teaching frames (`benchmarks.learnt_cli.frames`: a
d20_lurig die laid at ~60 px at random places of a flat table, so its sizes tell no direction;
d20_top seen from straight above, d20_off-angle, d20_color and d20_wood at an angle).  Each taught
die's outline is settled against the empty table round its true centre (`die_crop.settle`, as `see`
settles the die it found), the hypotheses weighed by the OCR head (`learn_view.weigh`) and one chosen
(`learn_view.choose`).  Per hypothesis: the head's mean log evidence (what `choose` weighs), the share of
dice it reads surer than with no view, and (the truth known here) how many dice it reads right: the
right count is never used to choose.  ``--perspective T/F`` lays the real dice sized as a camera T deg
off vertical with lens F sees the table (`learnt_cli.PERSPECTIVE`): laid flat, their sizes tell no
direction and nothing is learnt.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.harness import REAL, imread

RENDERS = {
    "renders seed 44": Path("/tmp/dicetable-render20"),
    "renders seed 45": Path("/tmp/dicetable-render20-s45"),
}
REAL_GROUPS = ("d20_top", "d20_off-angle", "d20_color", "d20_wood")
TRUTH = {"renders seed 44": "45/90/1.43", "renders seed 45": "45/90/1.43", "d20_top": "none (top-down)"}


def frames_of(
    shots: list[Any], empty_path: Path, side: float
) -> tuple[list[Any], list[int], tuple[int, int]]:
    """Each teaching shot's frame and its die's settled outline (centre x, y, longer side)."""
    from vision.numbered.die_crop import settle

    empty = imread(empty_path)
    out, faces = [], []
    for s in shots:
        img = imread(s.path)
        found = settle(img, s.centre, side, empty)
        if found is None:
            continue
        out.append((img, [(found[0][0], found[0][1], found[1])]))
        faces.append(s.face)
    h, w = empty.shape[:2]
    return out, faces, (w, h)


def weigh_source(name: str, frames: list[Any], faces: list[int], size: tuple[int, int]) -> list[list[Any]]:
    import numpy as np

    from controller import learn_view
    from vision.numbered.reader import default_reader

    head = default_reader().ocr
    outlines = [o for _, dice in frames for o in dice]
    views, how = learn_view.hypotheses(outlines, *size)
    conf, vals = learn_view.weigh(head, frames, "d20", views)
    got = learn_view.choose(conf, views, how)
    truth = np.array(faces)
    rows = []
    names = ["no view"] + [f"{v.tilt_deg:g}/{v.towards_deg:g}/{v.f_side:.3g}" for v in views]
    order = np.argsort(-conf.mean(1))
    chosen = "none" if got.tilt_deg is None else f"{got.tilt_deg:g}/{got.nadir_deg:g}/{got.focal:.3g}"
    for i in sorted(set([0, *order[:4].tolist()])):
        rows.append(
            [
                name,
                names[i],
                f"{conf[i].mean():.3f}",
                f"{np.mean(conf[i] > conf[0]):.0%}" if i else "",
                f"{int((vals[i] == truth).sum())} of {len(truth)}",
                chosen if i == 0 else "",
                TRUTH.get(name, "tilted (unknown)") if i == 0 else "",
            ]
        )
    print(got.said(), flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="the camera's view learnt from teaching rolls")
    ap.add_argument("--sources", nargs="*", default=[*RENDERS, *REAL_GROUPS])
    ap.add_argument(
        "--perspective",
        default=None,
        help="the real frames laid as a camera tilted T degrees with lens F sees the table, as T/F "
        "(learnt_cli.PERSPECTIVE)",
    )
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if a.perspective:
        from benchmarks import learnt_cli

        pt, pf = (float(v) for v in a.perspective.split("/"))
        learnt_cli.PERSPECTIVE = (pt, pf)
    t0 = time.perf_counter()
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.sources[:1] if a.smoke else a.sources:
            if name in RENDERS:
                from benchmarks.learnt_render20 import load

                if not (RENDERS[name] / "raw").exists():
                    print(f"{name}: no renders at {RENDERS[name]}; left out")
                    continue
                taught, _, empty = load(RENDERS[name])
                side = 56.0
            else:
                from benchmarks import learnt_cli

                folder, taught, _, _ = learnt_cli.frames(name, REAL, 1, 1, Path(tmp))
                empty = folder / "empty.png"
                side = float(learnt_cli.DIE_PX)
            if a.smoke:
                taught = taught[:14]
            fr, faces, size = frames_of(taught, empty, side)
            rows += weigh_source(name, fr, faces, size)
    head = (
        "source",
        "hypothesis (tilt/nadir/lens)",
        "head's mean log evidence",
        "dice surer than no view",
        "head right (truth; not used)",
        "learnt",
        "truth",
    )
    harness.report(
        "The camera's view learnt from the teaching rolls (controller.learn_view)",
        t0,
        head,
        rows,
        a.out,
    )


if __name__ == "__main__":
    main()
