"""Fit the not-a-die verifier (vision/verifier.py) on the TRAIN splits only.

    nice -n 10 .venv/bin/python -m training.d6.verifier [--real DIR] [--out vision/models/d6_verifier.json]

Positives: the readings of today's reader (verifier off) that land on a labelled die of the byler_d6
and skovy_d6 scenes' train photos, dice drawn by hardware.drawn (seed 1919) and dice on the project's
training renders (tools/render/generate.py, seed 4242: the training seed, never a test scene's).
Negatives (hard-negative mining): every reading on the TRAIN part of negatives/ (by source) and of
d20_desk_scenes/ (the red d20), random crops of those photos read as dice, and the readings on no die
on the training renders (board art). A logistic model is fitted by Newton's method; its threshold is
the highest that rejects at most `--lose` of the train positives; its `doubt` level is the one under
which `--doubt` of the train dice read surely fall: a reading under it is asked, not scored (its
confidence is capped at the verifier's score). Off by default: at 0.5 % the DICETAR WARS demo
needs two referee answers (tests/controller/test_e2e.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from hardware.drawn import random_scene
from training.dataset import (
    LabelledImage,
    d20_desk_held_out,
    is_held_out,
    load_byler,
    load_no_d6,
    load_skovy_scenes,
    negative_held_out,
    read_image,
)
from vision.crops import MARGIN, Pyramid, crop_die
from vision.reader import DiceReader
from vision.verifier import FEATURES, PATH, features

Sample = tuple[np.ndarray, list[tuple[float, float, float, float]]]  # image, labelled boxes


def reading_features(
    reader: DiceReader, img: np.ndarray
) -> list[tuple[np.ndarray, tuple[float, float], float]]:
    """Features, centre and confidence of each reading the reader (verifier off) would make."""
    pyr = Pyramid(img)
    cands = reader.find(img, pyr)
    crops = [crop_die(pyr, c.center, c.w * MARGIN, c.h * MARGIN) for c in cands]
    probs = reader.classify(crops)
    out = []
    for c, p, crop in zip(cands, probs, crops, strict=True):
        if p[0] >= reader.reject_threshold:
            continue
        value = int(np.argmax(p[1:])) + 1
        out.append(
            (features(p, c.score, c.w, c.h, crop), c.center, float(p[value]) * min(1.0, c.score / 0.5))
        )
    return out


def labelled(items: list[LabelledImage]) -> list[tuple[Path, list[tuple[float, float, float, float]]]]:
    return [(i.path, [d.box for d in i.dice]) for i in items if not is_held_out(i.path.name)]


def renders(n: int) -> list[Sample]:
    # the board renderer itself (tools/render/generate.py only re-exports it to make the fixtures)
    from training.render.board_scenes import make_scene

    out = []
    for i in range(n):
        img, _, meta = make_scene(i, 4242)
        boxes = []
        for d in meta["dice"]:
            if d["kind"] != "d6":
                continue
            q = np.asarray(d["top_quad_px"])
            g = 0.25 * np.ptp(q, 0)
            boxes.append((*(q.min(0) - g), *(q.max(0) + g)))
        out.append((img, boxes))
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 30) -> tuple[np.ndarray, float]:
    """Logistic regression (standardised features) by Newton's method with a small ridge."""
    xb = np.column_stack([x, np.ones(len(x))])
    w = np.zeros(xb.shape[1])
    pos = max(1.0, float(y.sum()))
    wt = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * max(1.0, len(y) - pos)))  # balanced classes
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ (wt * (p - y)) + l2 * np.r_[w[:-1], 0]
        h = (xb * (wt * p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w[:-1], float(w[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=Path(__file__).resolve().parents[3] / "shared/fixtures/real")
    ap.add_argument("--out", type=Path, default=PATH)
    ap.add_argument("--renders", type=int, default=40)
    ap.add_argument("--drawn", type=int, default=60)
    ap.add_argument(
        "--doubt", type=float, default=0.0, help="share of the train dice read surely the verifier may doubt"
    )
    ap.add_argument(
        "--lose", type=float, default=0.002, help="share of train positives the threshold may lose"
    )
    args = ap.parse_args()
    cv2.setNumThreads(1)
    reader = DiceReader(verifier=None)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    confs: list[float] = []

    def add(img: np.ndarray, boxes: list[tuple[float, float, float, float]] | None) -> None:
        """boxes None: no d6 on the photo; else readings on a box are dice, off every box phantoms."""
        for f, (x, y), conf in reading_features(reader, img):
            on = boxes is not None and any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes)
            xs.append(f)
            ys.append(int(on))
            confs.append(conf)

    for path, boxes in labelled(load_byler(args.real)) + labelled(load_skovy_scenes(args.real)):
        add(read_image(path), boxes)
    for item in load_no_d6(args.real, "negatives"):
        if not negative_held_out(item.path):
            img = read_image(item.path)
            add(img, None)
            add(cv2.flip(img, 1), None)  # mirrored: more hard negatives from the few photos
    for item in load_no_d6(args.real, "d20_desk_scenes"):
        img = read_image(item.path)
        if not d20_desk_held_out(img):
            add(img, None)
    rng = np.random.default_rng(1919)
    for _ in range(args.drawn):
        img, dice = random_scene(rng, 480, 640)
        add(img, [(*np.min(d.quad, 0), *np.max(d.quad, 0)) for d in dice])
    for img, boxes in renders(args.renders):
        add(img, boxes)
    x, y, conf = np.array(xs), np.array(ys, float), np.array(confs)
    mean, scale = x.mean(0), x.std(0) + 1e-9
    w, b = fit((x - mean) / scale, y)
    s = 1 / (1 + np.exp(-(((x - mean) / scale) @ w + b)))
    pos = np.sort(s[y == 1])
    sure_pos = np.sort(s[(y == 1) & (conf >= 0.8)])
    threshold = float(pos[int(args.lose * len(pos))] - 1e-6)
    doubt = float(sure_pos[int(args.doubt * len(sure_pos))]) if args.doubt > 0 else 0.0
    n_doubt = int(((s < doubt) & (y == 0) & (conf >= 0.8)).sum())
    neg = s[y == 0]
    n_sure = int(((1 - y) * (conf >= 0.8)).sum())
    print(f"train: {int(y.sum())} dice, {int((1 - y).sum())} non-dice readings ({n_sure} sure)")
    dropped = int(((neg < threshold) & (conf[y == 0] >= 0.8)).sum())
    kept = int((pos >= threshold).sum())
    print(f"threshold {threshold:.4f}: keeps {kept}/{len(pos)} dice, rejects {int((neg < threshold).sum())}")
    print(f"  of {len(neg)} non-dice readings, {dropped} of the {n_sure} sure ones")
    print(f"doubt {doubt:.4f}: {args.doubt:.0%} of sure train dice asked; {n_doubt}/{n_sure} sure non-dice")
    args.out.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "mean": mean.round(6).tolist(),
                "scale": scale.round(6).tolist(),
                "weights": w.round(6).tolist(),
                "bias": round(b, 6),
                "threshold": round(threshold, 6),
                "doubt": round(doubt, 6),
                "made_by": "nice -n 10 .venv/bin/python -m training.d6.verifier (TRAIN splits only)",
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
