"""The stated camera view's top-face cut (`[vision] camera_tilt_deg`, `vision.oblique.resting_top`) on REAL
tilted d20 photos: where the OCR head reads a d20 cut on its top face against today's centre (issue 44).

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.real_tilt --groups d20_off-angle,d20_color \
        --step 2 --scales 60 --views "centre,20/90/0.98,30/90/0.98,45/90/0.98,20/90/10,30/90/10,45/90/10" \
        --out benchmarks/results/real_tilt_train60.md
    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.real_tilt --groups d20_wood,d20_top --step 2 \
        --views "centre,30/90/10,10/90/10,5/90/0.98" --out benchmarks/results/real_tilt_held_out.md

REAL d20_lurig photos, two ways (`benchmarks.head_top_shift` measured the shift by hand; here the shift is
the stated view's, `resting_top` of the die's measured outline, as `learn-dice` and `read` place it):

- "480": each photo as it is (480x480, the die ~200-300 px, `learnt_cli.die_size`'s centre and longer
  side), the view stated for that frame (its centre the principal point: the dice are roughly centred);
- "60 px": each photo laid into the hidden-test proxy's 1280x720 table exactly as `benchmarks.learnt_cli`
  lays it (`learnt_cli.lay`: the die 60 px, a 5 px motion blur, at a random place), found as the table
  finds it (the numbered reader, d20 only: `table_die`); today the head reads at the reading's centre,
  under a view at its top face's centre from its box and the empty table (`table_top`, as
  `NumberedReader.on_top`), the view stated for the 1280x720 frame at the die's place.  The proxy
  pastes every die with the perspective its own photo had, wherever it lands, and never turns it (the
  far side stays up: nadir 90); a stated lens of the default focal (0.98 x the width) then sees the die
  35-55 degrees off vertical at a stated 45 depending on its place, while a long lens (camera_focal 10)
  sees every place at the stated tilt: both are run.

Views: "tilt/nadir/focal" (``--views``), "centre" = no view (today: the die's centre).  Per set-up and
view: photos read, the head's value right, right and wrong at its confidence >= SURE.  Choose on the
TRAIN set-ups (d20_off-angle, d20_color); d20_wood and d20_top are held out (reported, never tuned on).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, imread, share

TRAIN = ("d20_off-angle", "d20_color")
HELD_OUT = ("d20_wood", "d20_top")
VIEWS = ("centre", "20/90/0.98", "30/90/0.98", "40/90/0.98", "45/90/0.98", "50/90/0.98", "60/90/0.98")
SURE = 0.5
SEED = 44


def parse_view(text: str) -> tuple[float, float, float] | None:
    """``"centre"`` -> None; ``"tilt/nadir/focal"`` -> the three numbers (a clear error otherwise)."""
    if text == "centre":
        return None
    try:
        t, a, f = (float(v) for v in text.split("/"))
    except ValueError:
        raise SystemExit(
            f"--views: expected 'centre' or tilt/nadir/focal (e.g. 45/90/0.98), got {text!r}"
        ) from None
    return t, a, f


def top_at(
    view: tuple[float, float, float] | None, shape: tuple[int, ...], centre: tuple[float, float], side: float
) -> tuple[float, float]:
    """Where the head is centred: the die's centre (no view, or a die seen nearly straight down), else
    its top face's centre under the stated view (`resting_top`, as `die_crop.top_centre` places it)."""
    from vision.numbered.crop import MARGIN
    from vision.oblique import Tilt, resting_top

    if view is None:
        return centre
    v = Tilt(*view).view(int(shape[1]), int(shape[0]))
    got = resting_top(v, centre, side, "d20", MARGIN)
    return centre if got is None else got[0]


def table_die(
    reader: Any, frame: np.ndarray, true_centre: tuple[float, float]
) -> tuple[tuple[float, float], float, tuple[tuple[float, float], float]] | None:
    """The die as the table finds it in a proxy frame (the numbered reader, d20 only, no head; the reading
    nearest the die's true centre, within DIE_PX): its centre (today's head centre), the side the head
    gets (its quad's extent, as `NumberedReader.with_ocr` gives it) and its detector box (centre, side)."""
    from benchmarks.learnt_cli import DIE_PX

    dice = [d for d in reader.read(frame, kinds=("d20",)) if math.dist(d.center, true_centre) <= DIE_PX]
    if not dice:
        return None
    d = min(dice, key=lambda r: math.dist(r.center, true_centre))
    q = np.asarray(d.quad, np.float64).reshape(-1, 2)
    b = np.asarray(d.box if d.box is not None else d.quad, np.float64).reshape(-1, 2)
    box = ((float(b[:, 0].mean()), float(b[:, 1].mean())), float(max(np.ptp(b[:, 0]), np.ptp(b[:, 1]))))
    return d.center, float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1]))), box


def table_top(
    view: tuple[float, float, float] | None,
    frame: np.ndarray,
    centre: tuple[float, float],
    box: tuple[tuple[float, float], float],
    empty: np.ndarray | None,
) -> tuple[float, float]:
    """Where the table's head reads the die under the stated view: its top face's centre from its settled
    outline round its detector box (`die_crop.top_centre`, as `NumberedReader.on_top`); today's centre
    without a view or where no outline is found."""
    from vision.numbered.die_crop import top_centre
    from vision.oblique import Tilt

    if view is None:
        return centre
    v = Tilt(*view).view(int(frame.shape[1]), int(frame.shape[0]))
    got = top_centre(frame, box[0], box[1], v, empty, "d20")
    return centre if got is None else got


def run(
    groups: tuple[str, ...], views: tuple[str, ...], step: int, scales: tuple[str, ...]
) -> list[list[object]]:
    from benchmarks import learnt_cli
    from training.numbered.real import load_lurig
    from vision.numbered.reader import NumberedReader, default_reader

    head = default_reader().ocr
    reader = NumberedReader(ocr=False)
    if head is None:
        raise SystemExit("the numbered reader has no OCR head to read with")
    parsed = {v: parse_view(v) for v in views}
    lurig = load_lurig(REAL)
    rows: list[list[object]] = []
    for group in groups:
        items = [x for x in lurig if x.group == group]
        measured = learnt_cli.sizes(items) if "60" in scales else {}
        empty = learnt_cli.empty_table(learnt_cli.table_colour(items)) if "60" in scales else None
        for scale in scales:
            right: Counter[str] = Counter()
            sure: Counter[str] = Counter()
            wrong_sure: Counter[str] = Counter()
            n = missed = 0
            for x in items[::step]:
                photo = imread(x.path)
                if scale == "480":
                    got = learnt_cli.die_size(photo)
                    if got is None:
                        continue
                    img, (centre, side) = photo, got
                else:
                    rng = np.random.default_rng([SEED, x.frame, x.face])
                    assert empty is not None
                    img, true_centre = learnt_cli.lay(photo, measured[x.path], empty, rng)
                    found = table_die(reader, img, true_centre)
                    if found is None:
                        missed += 1
                        continue
                    centre, side, box = found
                n += 1
                for v in views:
                    if scale == "480":
                        at = top_at(parsed[v], img.shape, centre, side)
                    else:  # where the table reads it: `NumberedReader.on_top` (its box, the empty table)
                        at = table_top(parsed[v], img, centre, box, empty)
                    val = head.read(img, [(at, side, "d20")])[0]
                    ok = int(val.value) == x.face
                    right[v] += ok
                    sure[v] += ok and val.confidence >= SURE
                    wrong_sure[v] += (not ok) and val.confidence >= SURE
            for v in views:
                tag = " (train)" if group in TRAIN else " (held out)"
                rows.append(
                    [
                        group + tag,
                        "480x480 as is" if scale == "480" else "60 px in 1280x720",
                        v,
                        n,
                        missed,
                        share(right[v], n, 1),
                        sure[v],
                        wrong_sure[v],
                    ]
                )
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="the stated view's top-face cut on real tilted d20 photos")
    ap.add_argument("--groups", default=",".join(TRAIN), help="set-ups, comma-separated")
    ap.add_argument("--views", default=",".join(VIEWS), help="comma-separated: centre, tilt/nadir/focal")
    ap.add_argument("--scales", default="480,60", help="480 (the photo as is), 60 (the proxy's frame)")
    ap.add_argument("--step", type=int, default=1, help="every n-th photo of a set-up")
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    groups = tuple(a.groups.split(","))
    views = tuple(a.views.split(","))
    scales = tuple(a.scales.split(","))
    known = TRAIN + HELD_OUT
    if any(g not in known for g in groups):
        ap.error(f"--groups: expected some of {', '.join(known)}, got {a.groups!r}")
    if any(s not in ("480", "60") for s in scales):
        ap.error(f"--scales: expected some of 480, 60, got {a.scales!r}")
    for v in views:
        parse_view(v)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    rows = run(
        groups[:1] if a.smoke else groups, views[:2] if a.smoke else views, 60 if a.smoke else a.step, scales
    )
    head = (
        "set-up",
        "frame",
        "view (tilt/nadir/focal)",
        "dice read",
        "not found",
        "head right",
        f"right at >= {SURE}",
        f"wrong at >= {SURE}",
    )
    harness.report(
        "The stated view's top-face cut on REAL tilted d20 photos: the OCR head (issue 44)",
        t0,
        head,
        rows,
        a.out,
    )


if __name__ == "__main__":
    main()
