"""Check numbered-reader models on TRAIN-generator validation windows (never the held-out test scenes).

    nice -n 10 .venv/bin/python -m training.numbered.validate --models vision/models [/tmp/new ...]

The windows (seeded, rendered once and kept in --cache-dir, outside the repo):

* ``video``: 150 windows of 384x384 px of 1280x960 frames (`window`, seeds ``[9, i]``),
  read with the detector at half scale, as the reader sees a video frame;
* ``still``: 500 die-centred windows of stills 2.2-3.0 times 1280x960 (`die_window`, seeds
  ``[15, i]``, the scale drawn first), the centred die only;
* ``large``: 24 windows of 960 px of video frames (seeds ``[17, i]``) and 24 of 2592 px of
  2.7x stills (seeds ``[19, i]``);
* ``frames`` (session 5): 300 more windows of 960 px of video frames (seeds ``[31, i]``, about
  2700 dice), for the detector's misses and the kind's rarer confusions; not in the default
  --sets (rendered on first use, 2 minutes, 0.8 GB cached).

For each models folder: the error of the top-face centre the classifier's crop is centred on
(fraction of the die's box: median, 90th percentile, share over 0.2, and the d20s over 0.2) and,
per set, kind and value accuracy per kind (dice wholly inside their window; a missed die counts
wrong).

A folder with the nadir-aware top-face net (topface.TOP_NADIR_FILE) is run once per --nadir:
``true``, the generator's camera nadir (what a calibrated board pose gives); ``noisy``, that nadir
off by N(0, --nadir-noise x f) per axis (seeded per window); ``centre``, the frame's centre
for it; ``estimate``, the
nadir fitted to the other dice the detector finds in the WINDOW (reader.nadirs: a window holds a
few dice of its frame, so this is harder than a whole frame; the fit's error is reported);
``old``, that folder's older top-face net with rays from the frame's centre.
"""

from __future__ import annotations

import argparse
import math
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from training.numbered.evaluate import Score
from vision.numbered.labels import KINDS
from vision.numbered.reader import DET_AREA, MAX_SPREAD, SURE, NumberedReader
from vision.numbered.topface import F_SIDE, TOP_NADIR_FILE

Window = tuple[np.ndarray, list[dict[str, Any]]]
View = tuple[float, float, int, int]
# (window, the frame's scale over 1280x960, dice scored, where the window is in its frame, the
# frame's nadir in frame pixels)
Case = tuple[np.ndarray, float, list[dict[str, Any]], View, tuple[float, float]]
NADIR_MODES = ("true", "noisy", "estimate", "centre", "old")
SETS = ("video", "still", "large")  # the default sets
ALL_SETS = (*SETS, "frames")
FRAMES = 300  # windows of the "frames" set


def _nadirs() -> dict[str, list[tuple[float, float]]]:
    """The camera's nadir of each validation window's frame (replayed draws, nothing rendered)."""
    from training.render.numbered.scenes import window_nadir

    still = []
    for i in range(500):
        rng = np.random.default_rng([15, i])
        still.append(window_nadir(rng, float(rng.uniform(2.2, 3.0))))
    return {
        "video": [window_nadir(np.random.default_rng([9, i])) for i in range(150)],
        "still": still,
        "large": [window_nadir(np.random.default_rng([17, i]), 1.0) for i in range(24)]
        + [window_nadir(np.random.default_rng([19, i]), 2.7) for i in range(24)],
        "frames": [window_nadir(np.random.default_rng([31, i]), 1.0) for i in range(FRAMES)],
    }


def _views() -> dict[str, list[View]]:
    """Where each validation window lies in its frame (replayed draws, nothing rendered)."""
    from training.render.numbered.scenes import die_window_view, window_view

    still = []
    for i in range(500):
        rng = np.random.default_rng([15, i])
        s = float(rng.uniform(2.2, 3.0))
        still.append(die_window_view(rng, round(112 * s), s))
    return {
        "video": [window_view(np.random.default_rng([9, i]), 384) for i in range(150)],
        "still": still,
        "large": [window_view(np.random.default_rng([17, i]), 960, 1.0) for i in range(24)]
        + [window_view(np.random.default_rng([19, i]), 2592, 2.7) for i in range(24)],
        "frames": [window_view(np.random.default_rng([31, i]), 960, 1.0) for i in range(FRAMES)],
    }


def _video(i: int) -> Window:
    from training.render.numbered.scenes import window

    return window(np.random.default_rng([9, i]), 384)


def _still(i: int) -> Window:
    from training.render.numbered.scenes import die_window

    rng = np.random.default_rng([15, i])
    s = float(rng.uniform(2.2, 3.0))
    return die_window(rng, round(112 * s), s)


def _large(i: int) -> tuple[float, Window]:
    from training.render.numbered.scenes import window

    if i < 24:
        return 1.0, window(np.random.default_rng([17, i]), 960, 1.0)
    return 2.7, window(np.random.default_rng([19, i - 24]), 2592, 2.7)


def _frame(i: int) -> Window:
    from training.render.numbered.scenes import window

    return window(np.random.default_rng([31, i]), 960, 1.0)


def _cached(path: Path, make: Callable[[], Any]) -> Any:
    if path.is_file():
        return pickle.loads(path.read_bytes())
    t0 = time.time()
    out = make()
    path.write_bytes(pickle.dumps(out))
    print(f"rendered {path} in {time.time() - t0:.0f}s", flush=True)
    return out


def _inside(d: dict[str, Any], img: np.ndarray) -> bool:
    x0, y0, x1, y1 = d["box_px"]
    return bool(x0 >= 0 and y0 >= 0 and x1 <= img.shape[1] and y1 <= img.shape[0])


def load_sets(cache_dir: Path, names: Sequence[str] = SETS) -> dict[str, list[Case]]:
    """The validation sets `names` (of ALL_SETS), rendered on first use (minutes each) and cached."""
    bad = [n for n in names if n not in ALL_SETS]
    if bad:
        raise ValueError(f"validation sets: expected some of {', '.join(ALL_SETS)}, got {', '.join(bad)}")
    views, nadirs = _views(), _nadirs()
    sets: dict[str, list[tuple[np.ndarray, float, list[dict[str, Any]]]]] = {}
    if "video" in names:
        video = _cached(cache_dir / "numbered_val.pkl", lambda: [_video(i) for i in range(150)])
        sets["video"] = [(img, 1.0, [d for d in ds if _inside(d, img)]) for img, ds in video]
    if "still" in names:
        still = _cached(cache_dir / "nb_hires_val.pkl", lambda: [_still(i) for i in range(500)])
        scales = [float(np.random.default_rng([15, i]).uniform(2.2, 3.0)) for i in range(len(still))]
        sets["still"] = [
            (img, s, [d for d in ds[:1] if _inside(d, img)])
            for (img, ds), s in zip(still, scales, strict=True)
        ]
    if "large" in names:
        large = _cached(cache_dir / "nb_valframes.pkl", lambda: [_large(i) for i in range(48)])
        sets["large"] = [(img, s, [d for d in ds if _inside(d, img)]) for s, (img, ds) in large]
    if "frames" in names:
        frames = _cached(cache_dir / "nb_frames31.pkl", lambda: [_frame(i) for i in range(FRAMES)])
        sets["frames"] = [(img, 1.0, [d for d in ds if _inside(d, img)]) for img, ds in frames]
    return {
        k: [(*c, v, n) for c, v, n in zip(cases, views[k], nadirs[k], strict=True)]
        for k, cases in sets.items()
    }


def _read(
    reader: NumberedReader,
    img: np.ndarray,
    scale: float,
    view: View,
    oracle: list[dict[str, Any]] | None = None,
    nadir: tuple[float, float] | None = None,
) -> tuple[list[Any], list[Any], list[tuple[float, float] | None] | None]:
    """The reader's dice in a window of a frame `scale` times 1280x960, its located peaks and the
    nadir the nadir-aware net was given for each peak (None if not used).

    `oracle`: the true dice; each peak within 0.45 of a die's box of its top face is moved onto it
    (what the classifier reads with a perfect top-face centre)."""
    # The detector sees a 1280x960 frame at reader.det_area pixels and a still `scale` times as big
    # at the same: a window of it at (share / scale).
    share = math.sqrt(reader.det_area / (1280 * 960)) / scale
    det_area = max(256.0, img.shape[1] * share * img.shape[0] * share)
    found, used = reader.locate_nadir(img, reader.detect(img, det_area), view, nadir)
    if oracle is not None:
        for d in oracle:
            x0, y0, x1, y1 = d["box_px"]
            near = [(math.dist(f.center, d["center_px"]), i) for i, f in enumerate(found)]
            if near and min(near)[0] < 0.45 * max(x1 - x0, y1 - y0):
                f = found[min(near)[1]]
                found[min(near)[1]] = replace(f, center=(float(d["center_px"][0]), float(d["center_px"][1])))
    crops = reader.crops(img, found)
    return reader.readings(img, found, reader.classify(crops)), found, used


def validate(
    reader: NumberedReader,
    sets: dict[str, list[Case]],
    oracle: bool = False,
    nadir: str = "estimate",
    noise: float = 0.1,
) -> str:
    """One line per set.  `nadir` (for a reader with the nadir-aware net): one of NADIR_MODES;
    `noise`: the "noisy" mode's sigma per axis, fraction of f."""
    if nadir not in NADIR_MODES:
        raise ValueError(f"nadir: expected one of {', '.join(NADIR_MODES)}, got {nadir!r}")
    reader.estimate_nadir = nadir == "estimate"
    lines = []
    for name, cases in sets.items():
        score = Score()
        errs: list[float] = []
        d20: list[float] = []
        fits: list[float] = []
        older = 0  # peaks the older net read (their fitted nadir too unsure)
        for i, (img, scale, dice, view, true_nadir) in enumerate(cases):
            f = F_SIDE * max(view[2], view[3])
            given = true_nadir if nadir in ("true", "noisy") and reader.has_nadir_net else None
            if nadir == "centre" and reader.has_nadir_net:
                given = (view[2] / 2, view[3] / 2)
            if given is not None and nadir == "noisy":
                dx, dy = np.random.default_rng([23, i]).normal(0, noise * f, 2)
                given = (given[0] + float(dx), given[1] + float(dy))
            got, found, used = _read(reader, img, scale, view, dice if oracle else None, given)
            if used is not None and nadir in ("estimate", "noisy", "centre"):
                fits += [math.dist(n, true_nadir) / f for n in used if n is not None]
                older += sum(n is None for n in used)
            score.add(dice, got)
            for d in dice:
                x0, y0, x1, y1 = d["box_px"]
                side = max(x1 - x0, y1 - y0)
                near = [math.dist(f.center, d["center_px"]) / side for f in found]
                if near and min(near) < 0.45:
                    errs.append(min(near))
                    if d["kind"] == "d20":
                        d20.append(min(near))
        e = np.array(errs)
        fit_note = (
            f"; nadir error / f median {np.median(fits):.3f}, p90 {np.percentile(fits, 90):.3f}"
            f" ({len(fits)} peaks; {older} read by the older net)"
            if fits
            else ""
        )
        lines.append(
            f"{name}: {sum(score.dice.values())} dice, kind {100 * score.kind_accuracy():.1f} %, values "
            + ", ".join(f"{k} {100 * score.value_accuracy(k):.1f} % ({score.dice[k]})" for k in KINDS)
            + f"; numbered {100 * _numbered(score):.1f} %; "
            f"top-face centre error median {np.median(e):.3f}, p90 {np.percentile(e, 90):.3f}, "
            f"over 0.2 {100 * np.mean(e > 0.2):.1f} % (d20: {int(np.sum(np.array(d20) > 0.2))} of {len(d20)})"
            + fit_note
        )
    return "\n".join(lines)


def _numbered(score: Score) -> float:
    n = sum(score.dice[k] for k in KINDS if k != "d6")
    return sum(score.value_right[k] for k in KINDS if k != "d6") / max(1, n)


def _sure(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability or none, got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1] or none, got {text!r}")
    return v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, nargs="+", required=True, help="folders of numbered_*.onnx")
    ap.add_argument("--turns", type=int, nargs="+", default=[4], help="quarter turns averaged (1, 2 or 4)")
    ap.add_argument(
        "--sure",
        type=_sure,
        nargs="+",
        default=[SURE],
        help="crops read less surely than this upright are read at the other turns; none: every crop",
    )
    ap.add_argument(
        "--det-area",
        type=int,
        nargs="+",
        default=[DET_AREA],
        help="pixels the detector sees of a 1280x960 frame (a window gets its share)",
    )
    ap.add_argument(
        "--cache-dir", type=Path, default=Path("/tmp"), help="where the rendered windows are kept"
    )
    ap.add_argument("--sets", nargs="+", choices=ALL_SETS, default=list(SETS))
    ap.add_argument("--oracle", action="store_true", help="centre each crop on the true top face instead")
    ap.add_argument(
        "--nadir",
        nargs="+",
        choices=NADIR_MODES,
        default=["true", "estimate"],
        help="for folders with the nadir-aware net: which nadir it is given (see above)",
    )
    ap.add_argument("--nadir-noise", type=float, default=0.1, help="sigma of the noisy nadir, over f")
    ap.add_argument("--nadir-passes", type=int, default=2, help="fits of the estimated nadir (1-3)")
    ap.add_argument(
        "--max-spread",
        type=float,
        nargs="+",
        default=[MAX_SPREAD],
        help="estimated nadirs less sure than this (over f) leave the die to the older net",
    )
    args = ap.parse_args(argv)
    for area in args.det_area:
        if area < 256:
            ap.error(f"--det-area {area}: expected at least 256 pixels for the detector")
    cv2.setNumThreads(1)
    sets = load_sets(args.cache_dir, args.sets)
    for folder in args.models:
        for turns, sure, area in [(t, u, a) for t in args.turns for u in args.sure for a in args.det_area]:
            for mode in args.nadir if (folder / TOP_NADIR_FILE).is_file() else ["old"]:
                for spread in args.max_spread if mode == "estimate" else [None]:
                    reader = NumberedReader(
                        models=folder,
                        turns=turns,
                        nadir_passes=args.nadir_passes,
                        max_spread=spread,
                        sure=sure,
                        det_area=area,
                    )
                    print(
                        f"== {folder} (top-face net: {reader.has_top_face}, nadir-aware: "
                        f"{reader.has_nadir_net}, nadir {mode}"
                        + (f" {args.nadir_noise}" if mode == "noisy" else "")
                        + (f" {args.nadir_passes} passes, max spread {spread}" if mode == "estimate" else "")
                        + f"), turns {turns}, sure {sure}, detector {area} px",
                        flush=True,
                    )
                    print(validate(reader, sets, args.oracle, mode, args.nadir_noise), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
