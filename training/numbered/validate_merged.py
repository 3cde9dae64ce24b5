"""The numbered reader merged with the pip-d6 reader on the TRAIN-generator validation windows, as
`read_all` reads a frame, with session 7's two changes each on and off (never the test scenes).

    PYTHONPATH=. nice -n 5 .venv/bin/python -m training.numbered.validate_merged --models vision/models \
        --sets video still large frames

The windows are `validate.py`'s (rendered once into --cache-dir), read with the generator's true
nadir.  A window cut from a still `scale` times 1280x960 stands for the still: the pip reader reads
it shrunk by 1/scale (as `read_pips` reads a still at the video frame's size) and its dice are
scaled back.  Per set and variant: numbered dice (d10, d10p, d20) read right, dice of the right
kind, d6 read right, merged; and the d6 the pip reader alone reads right.

Variants:

* ``session 6``: the numbered detector shrinks the window itself (halving, then linearly), the pip
  reader reads one INTER_AREA copy, and `merge` joins their readings;
* ``copy``: both start from one copy made as `reader.still_copies` makes it (halving, then
  linearly), and the numbered reader reads the window's first halving (a still's `work` image: every
  still window here is 2.2-3 times the video frame's scale, so it has one);
* ``second look``: `combined.second_look` reads again the dice only the pip reader found;
* ``session 7``: both (what `read_all` does now).

Windows of video frames (scale 1) are read the same with and without the copy.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from training.numbered.evaluate import Score
from training.numbered.validate import ALL_SETS, SETS, load_sets
from vision.numbered.combined import merge, second_look
from vision.numbered.labels import KINDS
from vision.numbered.reader import NumberedReader, _shrink, scaled

VARIANTS = ("session 6", "copy", "second look", "session 7")


def _copy(img: np.ndarray, scale: float, area: bool, halves: list[np.ndarray]) -> np.ndarray:
    """A window of a still shrunk by 1/scale: one INTER_AREA resize (session 6's pip copy), or halved
    and then resized linearly, each halving appended to `halves` (`still_copies`)."""
    w, h = round(img.shape[1] / scale), round(img.shape[0] / scale)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA) if area else _shrink(img, w, h, halves)


def run(reader: NumberedReader, cache_dir: Path, names: list[str]) -> str:
    from vision.reader import default_reader as d6_reader

    reader.estimate_nadir = False
    sets = load_sets(cache_dir, names)
    lines = [
        "| set | variant | numbered right | kind right | d6 right (merged) | d6 right, pip reader alone "
        "| readings the second look added |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, cases in sets.items():
        scores = {v: Score() for v in VARIANTS}
        pips = {v: Score() for v in ("area", "copy")}
        lone: Counter[str] = Counter()
        for img, scale, dice, view, nadir in cases:
            share = math.sqrt(reader.det_area / (1280 * 960)) / scale
            det_area = max(256.0, img.shape[1] * share * img.shape[0] * share)
            true_d6 = [d for d in dice if d["kind"] == "d6"]
            for copy in (False, True):
                small, work, k = None, img, 1.0
                if scale != 1:
                    halves: list[np.ndarray] = []
                    small = _copy(img, scale, not copy, halves)
                    if copy and halves:  # as still_copies: read at the first halving
                        work = halves[0]
                        k = img.shape[1] / work.shape[1]
                found = reader.detect(work, det_area, shrunk=small if copy else None)
                wview = (view[0] / k, view[1] / k, round(view[2] / k), round(view[3] / k))
                found = reader.locate(work, found, wview, (nadir[0] / k, nadir[1] / k))
                got = reader.readings(work, found, reader.classify(reader.crops(work, found)), quads=False)
                numbered = [scaled(r, k) for r in got]
                pip = d6_reader().read(img if small is None else small)
                if small is not None:
                    pip = [scaled(r, img.shape[1] / small.shape[1]) for r in pip]
                pips["copy" if copy else "area"].add(true_d6, pip)
                extra = second_look(img, pip, numbered, reader, nadir=nadir, view=view)
                lone["copy" if copy else "area"] += len(extra)
                plain, looked = ("copy", "session 7") if copy else ("session 6", "second look")
                scores[plain].add(dice, merge(pip, numbered))
                scores[looked].add(dice, merge(pip, numbered + extra))
        for v in VARIANTS:
            s = scores[v]
            p = pips["copy" if v in ("copy", "session 7") else "area"]
            n = sum(s.dice[k] for k in KINDS if k != "d6")
            right = sum(s.value_right[k] for k in KINDS if k != "d6")
            lines.append(
                f"| {name} | {v} | {right} / {n} | {sum(s.kind_right.values())} / {sum(s.dice.values())} | "
                f"{s.value_right['d6']} / {s.dice['d6']} | {p.value_right['d6']} / {p.dice['d6']} | "
                + (
                    str(lone["copy" if v == "session 7" else "area"])
                    if v in ("second look", "session 7")
                    else "-"
                )
                + " |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--models", type=Path, default=None, help="folder of numbered_*.onnx (default: the package's)"
    )
    ap.add_argument(
        "--cache-dir", type=Path, default=Path("/tmp"), help="where the rendered windows are kept"
    )
    ap.add_argument("--sets", nargs="+", choices=ALL_SETS, default=list(SETS))
    args = ap.parse_args(argv)
    if args.models is not None and not args.models.is_dir():
        ap.error(f"--models: {args.models} is not a folder (expected numbered_*.onnx files)")
    cv2.setNumThreads(1)
    print(run(NumberedReader(models=args.models), args.cache_dir, args.sets), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
