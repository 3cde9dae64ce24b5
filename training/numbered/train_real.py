"""Retrain the numbered classifier with real pip d6 from the TRAIN split of the shared photos.

    nice -n 10 .venv/bin/python -m training.numbered.train_real --cache /tmp/numbered_windows.pkl \\
        --singles-cache /tmp/numbered_diewin.pkl --hires-cache /tmp/numbered_hires.pkl \\
        --real-share 0.15 --on-top --steps 4500 --out /tmp/real_cand

The session-2 recipe (training/numbered/train.py: `cls_sample`, the same caches, 4500 steps of 96
crops, AdamW one-cycle, torch and numpy seed 0), except that a share of each batch
(`--real-share`) is a crop of a REAL photo: a labelled d6 of byler_d6 or skovy_d6 (scenes and
crops) of the train split of `training.dataset` (never a held-out photo), as class d6:value, or a
"not a die" crop of those photos away from every labelled die.  The nets trained on rendered dice
alone called most real pip d6 d10, d10p or d20 (training/numbered/MODELS.md, session 4).

Writes `numbered_classifier.onnx` into --out, beside copies of the other numbered_*.onnx of
--base (vision/models by default), so --out is a whole models folder for `NumberedReader(models=...)`.

The real-crop sampler (`load_real`, `real_sample`) needs no torch; training imports it lazily.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from training.dataset import LabelledImage, is_held_out, load_byler, load_skovy_crops, load_skovy_scenes
from vision.numbered.crop import CROP, MARGIN, crop_die
from vision.numbered.labels import INDEX

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
REAL_ROOT = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "real"
# Crop-centre error, sigma per axis as a fraction of the die's box, times 0.5 / 1 / 1.5 (a quarter,
# half, quarter): as train.cls_sample.  The reader's top-face centre on real train d6 is off by
# 0.09 / 0.09 of the label box per axis (sd; 60 byler train photos, committed models).
JITTER = 0.08
# The crop's side over MARGIN x the label box's longer side: the reader's box on real train d6 is
# 0.80 of the label box (median; 0.62 - 0.99 for 90 % of them), smaller than the labelled outline.
SIDE_RANGE = (0.6, 1.05)
POSITIVE = 0.75  # share of real crops that are a labelled die (the rest: "not a die")
# A "not a die" crop's centre lies outside every labelled die's box grown by this much (times that
# die's longer side) on each side.
CLEAR = 0.1


@dataclass(frozen=True)
class RealDie:
    """A labelled die of a real photo: its box's centre, width and height (pixels), its value."""

    cx: float
    cy: float
    w: float
    h: float
    value: int

    @property
    def side(self) -> float:
        return max(self.w, self.h)


@dataclass
class RealPhoto:
    """A real photo (its pyrDown halvings filled in by crop_die) and its labelled dice."""

    name: str
    levels: list[np.ndarray]
    dice: list[RealDie]
    negatives: bool  # whether "not a die" crops may be cut from it (not a crop of one die)


def to_real(item: LabelledImage, img: np.ndarray, whole_die: bool = False) -> RealPhoto:
    """A labelled photo as a RealPhoto; `whole_die`: the image is one die (its box: the whole image)."""
    h, w = img.shape[:2]
    dice = []
    for d in item.dice:
        x0, y0, x1, y1 = (0.0, 0.0, float(w), float(h)) if whole_die else d.box
        if not (x1 > x0 and y1 > y0):
            raise ValueError(f"{item.path}: a die's box {d.box} is empty (expected x0 < x1, y0 < y1)")
        if d.value not in range(1, 7):
            raise ValueError(f"{item.path}: a die's value {d.value} is not a d6 value (expected 1-6)")
        dice.append(RealDie((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, d.value))
    return RealPhoto(item.path.name, [img], dice, not whole_die)


def tune_part(name: str) -> bool:
    """A fifth of the TRAIN split kept out of training while the share is chosen (never held-out
    photos): sha1(name)[:8] as hex is 1 mod 5 (the held-out split is 0 mod 5)."""
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % 5 == 1


def load_real(root: Path, part: str = "train") -> list[RealPhoto]:
    """The TRAIN-split photos of byler_d6 and skovy_d6 (scenes and crops) with their labelled dice.

    `part`: "train" (the whole train split), "fit" (the train split less its `tune_part`) or "tune"
    (that fifth alone).  Held-out photos are never loaded."""
    if part not in ("train", "fit", "tune"):
        raise ValueError(f"part: expected 'train', 'fit' or 'tune', got {part!r}")
    if not (root / "byler_d6").is_dir():
        raise FileNotFoundError(f"{root}: no byler_d6 folder (expected the shared real photos)")
    sets: list[tuple[list[LabelledImage], bool]] = [(load_byler(root), False)]
    if (root / "skovy_d6").is_dir():
        sets += [(load_skovy_scenes(root), False), (load_skovy_crops(root), True)]
    out = []
    for items, whole in sets:
        for item in items:
            name = item.path.name
            if (
                is_held_out(name)
                or (part == "fit" and tune_part(name))
                or (part == "tune" and not tune_part(name))
            ):
                continue
            if not item.dice:
                continue
            img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError(f"{item.path}: not a readable image")
            out.append(to_real(item, img, whole))
    return out


def clear_of_dice(photo: RealPhoto, x: float, y: float) -> bool:
    """Whether (x, y) lies outside every labelled die's box grown by CLEAR x its longer side."""
    return all(
        abs(x - d.cx) >= d.w / 2 + CLEAR * d.side or abs(y - d.cy) >= d.h / 2 + CLEAR * d.side
        for d in photo.dice
    )


def negative_centre(photo: RealPhoto, d: RealDie, rng: np.random.Generator) -> tuple[float, float] | None:
    """A point of the photo clear of every labelled die (clear_of_dice): near die `d` (0.6 - 1.2 of its
    longer side from its centre, any direction) or anywhere; None when 50 draws find none."""
    h, w = photo.levels[0].shape[:2]
    for _ in range(50):
        if rng.random() < 0.5:
            a, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.2) * d.side
            x, y = d.cx + dist * math.cos(a), d.cy + dist * math.sin(a)
        else:
            x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        if 0 <= x < w and 0 <= y < h and clear_of_dice(photo, x, y):
            return x, y
    return None


def real_sample(
    photos: list[RealPhoto],
    rng: np.random.Generator,
    jitter: float = JITTER,
    positive: float = POSITIVE,
    out: int = CROP,
) -> tuple[np.ndarray, int]:
    """One CROP x CROP crop of a real photo (before photometric changes) and its class: a labelled
    d6 (class d6:value; centred on its box's centre give or take `jitter` of the box, side MARGIN
    x SIDE_RANGE x the box's longer side, any rotation) or, with odds 1 - `positive`, a crop centred
    clear of every labelled die (class 0, "not a die").  `out`: the crop's side (px)."""
    if not photos:
        raise ValueError("photos: expected at least one real photo with labelled dice")
    ang = float(rng.uniform(0, 360))
    want_negative = rng.random() >= positive
    for _ in range(100):
        photo = photos[int(rng.integers(len(photos)))]
        d = photo.dice[int(rng.integers(len(photo.dice)))]
        if want_negative and not photo.negatives:
            continue
        side = d.side * MARGIN * float(rng.uniform(*SIDE_RANGE))
        if not want_negative:
            j = jitter * float(rng.choice([0.5, 1.0, 1.5], p=[0.25, 0.5, 0.25]))
            c = (d.cx + rng.normal(0, j * d.side), d.cy + rng.normal(0, j * d.side))
            return crop_die(photo.levels, c, side, ang, out), INDEX[("d6", d.value)]
        neg = negative_centre(photo, d, rng)
        if neg is not None:
            return crop_die(photo.levels, neg, side, ang, out), 0
    raise ValueError("photos: no photo has room for a 'not a die' crop clear of its labelled dice")


# ---------------------------------------------------------------- training (torch)


def train_classifier_real(
    wins: list[Any],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    singles: list[Any],
    photos: list[RealPhoto],
    share: float,
    jitter: float = 0.08,
    on_top: bool = False,
    lowres: float = 0.0,
    net: Any = None,
    lr: float = 3e-3,
) -> Any:
    """train.train_classifier with a `share` of each batch's crops real (real_sample); the same
    net, optimiser, schedule, loss and photometric changes.  `on_top`: the batch keeps its `batch`
    rendered crops and the real ones (share x batch) are added to them.  `lowres`: the share of
    rendered positive crops given a lower resolution (det_samples.maybe_lower_resolution)."""
    from training.numbered.det_samples import photometric
    from training.numbered.train import train_classifier

    n_real = round(share * batch)

    def real() -> tuple[np.ndarray, int]:
        crop, label = real_sample(photos, rng)
        return photometric(crop, rng), label

    n_synth = batch if on_top else batch - n_real
    return train_classifier(wins, rng, steps, n_synth, singles, jitter, real, n_real, lowres, net, lr)


def main(argv: list[str] | None = None) -> int:
    import pickle

    import torch

    from training.numbered.train import _cached, export, render_singles
    from vision.numbered.crop import CROP

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real-share", type=float, nargs="+", default=[0.2], help="share(s) of real crops")
    ap.add_argument("--steps", type=int, default=4500)
    ap.add_argument("--batch", type=int, default=96)
    ap.add_argument(
        "--on-top",
        action="store_true",
        help="real crops added to --batch rendered ones (not a share of them)",
    )
    ap.add_argument(
        "--lowres-share",
        type=float,
        default=0.0,
        help="share of rendered positive crops shrunk to 16-23 px and scaled back (a die of 25-35 px "
        "at video scale); 0: off",
    )
    ap.add_argument("--part", choices=["train", "fit"], default="train", help="real photos: see load_real")
    ap.add_argument("--real-root", type=Path, default=REAL_ROOT, help="the shared real photos")
    ap.add_argument("--windows", type=int, default=1600)
    ap.add_argument("--singles", type=int, default=9000)
    ap.add_argument("--hires", type=int, default=12000)
    ap.add_argument("--cache", type=Path, required=True, help="train.py's 384-px windows pickle")
    ap.add_argument("--singles-cache", type=Path, required=True)
    ap.add_argument("--hires-cache", type=Path, required=True)
    ap.add_argument("--base", type=Path, default=MODELS, help="models folder the other nets are copied from")
    ap.add_argument("--out", type=Path, required=True, help="models folder to write (one per share: OUT_s)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--init",
        type=Path,
        help="a numbered_classifier.onnx to go on training (its batch norms frozen) instead of a new net",
    )
    ap.add_argument("--lr", type=float, default=3e-3, help="the one-cycle schedule's peak learning rate")
    ap.add_argument("--seed", type=int, default=0, help="numpy and torch seed (0: the committed runs)")
    args = ap.parse_args(argv)
    if args.init is not None and not args.init.is_file():
        ap.error(f"--init: {args.init} is not a file (expected a numbered_classifier.onnx)")
    if not 0.0 < args.lr < 1.0:
        ap.error(f"--lr: expected a learning rate in (0, 1), got {args.lr}")
    for s in args.real_share:
        if not 0.0 <= s < 1.0:
            ap.error(f"--real-share: expected shares in [0, 1), got {s}")
    if not 0.0 <= args.lowres_share <= 1.0:
        ap.error(f"--lowres-share: expected a share in [0, 1], got {args.lowres_share}")
    if not args.real_root.is_dir():
        ap.error(f"--real-root: {args.real_root} is not a folder (expected the shared real photos)")
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    photos = load_real(args.real_root, args.part)
    print(f"{sum(len(p.dice) for p in photos)} real dice in {len(photos)} photos ({args.part})", flush=True)
    wins = pickle.loads(args.cache.read_bytes())[: args.windows]
    singles = _cached(args.singles_cache, args.singles, lambda: render_singles(args.singles, args.threads))
    hires = _cached(args.hires_cache, args.hires, lambda: render_singles(args.hires, args.threads, True))
    for s in args.real_share:
        out = args.out if len(args.real_share) == 1 else args.out.with_name(f"{args.out.name}_{s:g}")
        out.mkdir(parents=True, exist_ok=True)
        for f in sorted([*args.base.glob("numbered_*.onnx"), *args.base.glob("numbered_*.json")]):
            if f.name != "numbered_classifier.onnx":  # the other nets and their settings as they are
                shutil.copy2(f, out / f.name)
        torch.manual_seed(args.seed)
        rng = np.random.default_rng(args.seed)
        init = None
        if args.init is not None:
            from training.numbered.train import classifier_from_onnx

            init = classifier_from_onnx(args.init)
        net = train_classifier_real(
            wins,
            rng,
            args.steps,
            args.batch,
            singles + hires,
            photos,
            s,
            on_top=args.on_top,
            lowres=args.lowres_share,
            net=init,
            lr=args.lr,
        )
        export(net, (8, 3, CROP, CROP), out / "numbered_classifier.onnx")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
