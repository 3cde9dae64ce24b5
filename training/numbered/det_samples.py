"""The numbered detectors' training examples, without torch (so their tests run where torch is not
installed): photometric changes, the detector's targets (`det_targets`) and session 4's patches
drawn at the reader's scale (`det_sample`, `draw_scale`), and the detector training's arguments.
`training/numbered/train.py` and `train_det.py` train with them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from training.d6.samples import splat

STRIDE = 4
WINDOW = 384
Window = tuple[np.ndarray, list[dict[str, Any]]]

PATCH = 128
DET_FACTOR = 0.4  # the detector sees a 1280x960 frame at 512x384 (reader det_area 196608)


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour and light changes a reading must survive; only mild blur (numerals are a few px)."""
    x: np.ndarray = img.astype(np.float32)
    if rng.random() < 0.5:
        x = x[..., rng.permutation(3)]
    x = x * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    x = x * rng.uniform(0.9, 1.1, 3)
    if rng.random() < 0.1:
        x = 255 - x
    if rng.random() < 0.15:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 0.7))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(1, 5), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


# `train_real --lowres-share`: the side (px) a rendered positive crop is shrunk to before being scaled back to
# CROP, drawn uniformly from this range (inclusive): the die it shows then has the detail of a die of
# side / MARGIN px at video scale, 24.6 - 35.4 px (the sizes the classifier reads worst).
LOWRES_SIDES = (16, 23)


def lower_resolution(crop: np.ndarray, side: int) -> np.ndarray:
    """`crop` (CROP x CROP x 3, uint8) shrunk to `side` x `side` (INTER_AREA) and scaled back to its
    size (INTER_LINEAR): the detail a die of side / MARGIN px shows at video scale."""
    h, w = crop.shape[:2]
    if not 1 <= side <= min(h, w):
        raise ValueError(f"side: expected 1 - {min(h, w)} px (the crop's side or less), got {side}")
    small = cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)
    out: np.ndarray = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def maybe_lower_resolution(crop: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """With odds `share`, `lower_resolution` to a side uniform in LOWRES_SIDES; `share` 0 draws
    nothing from `rng` (so a recipe without it samples exactly as before)."""
    if share <= 0.0 or rng.random() >= share:
        return crop
    return lower_resolution(crop, int(rng.integers(LOWRES_SIDES[0], LOWRES_SIDES[1] + 1)))


def _box(d: dict[str, Any]) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = d["box_px"]
    return (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0


def _top(d: dict[str, Any]) -> tuple[float, float]:
    """The top face's centre (where the reader centres its crop)."""
    return float(d["center_px"][0]), float(d["center_px"][1])


def det_targets(dice: list[dict[str, Any]], m: np.ndarray, s: float, g: int) -> np.ndarray:
    """The detector's target (8 x g x g: heat, log w, log h, top face's and box's centres relative to
    each cell's centre in cells (x, y each), loss mask) for `dice` of a window mapped into the patch
    by the affine `m` (2 x 3, scale `s`; quarter turns swap the box's sides)."""
    tgt = np.zeros((8, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for d in dice:
        bx0, by0, bw, bh = _box(d)
        c = m[:2] @ np.array([*_top(d), 1.0])
        b = m[:2] @ np.array([bx0, by0, 1.0])
        if abs(m[0, 1]) > 0.5 * s:  # quarter-turned: box sides swap
            bw, bh = bh, bw
        bw, bh = bw * s, bh * s
        cx, cy = c[0] / STRIDE - 0.5, c[1] / STRIDE - 0.5
        if not (-1 <= cx <= g and -1 <= cy <= g):
            continue
        for x, y, centre in splat(tgt, xx, yy, cx, cy, bw, bh):
            tgt[3, y, x] = cx - x
            tgt[4, y, x] = cy - y
            tgt[5, y, x] = (b[0] / STRIDE - 0.5) - x
            tgt[6, y, x] = (b[1] / STRIDE - 0.5) - y
            tgt[7, y, x] = 1.0 if centre else 0.5
    return tgt


def draw_scale(rng: np.random.Generator, factor: float, wide: float = 0.2) -> float:
    """The patch's scale over the video frame: round `factor` (0.8-1.5 times it) mostly, and with
    probability `wide` anywhere up to 1.1 (windows of stills and larger dice look like that)."""
    if not 0.05 <= factor <= 1.1:
        raise ValueError(f"det factor: expected 0.05-1.1 of the video frame, got {factor!r}")
    if rng.random() < wide:
        return float(rng.uniform(0.8 * factor, 1.1))
    return float(factor * np.exp(rng.uniform(np.log(0.8), np.log(1.5))))


def det_sample(
    wins: list[Window], rng: np.random.Generator, factor: float = DET_FACTOR, patch: int = PATCH
) -> tuple[np.ndarray, np.ndarray]:
    """One training patch (`patch` px) of a window at a scale drawn round `factor`, and its target
    (8 x patch/4 x patch/4: heat, log w, log h, top dx, dy, box dx, dy, loss mask), as in
    `training.numbered.train.det_sample`."""
    img, dice = wins[int(rng.integers(len(wins)))]
    h, w = img.shape[:2]
    # Never past the window's edge (a reflected border would show dice with no target).
    s = max(draw_scale(rng, factor), patch / min(h, w))
    # Shrunk as the reader shrinks a frame (INTER_AREA), then cut and turned at that scale.
    small = cv2.resize(
        img, (max(patch, round(w * s)), max(patch, round(h * s))), interpolation=cv2.INTER_AREA
    )
    kx, ky = small.shape[1] / w, small.shape[0] / h
    ox, oy = rng.uniform(0, small.shape[1] - patch), rng.uniform(0, small.shape[0] - patch)
    cut = np.array([[1.0, 0.0, -ox], [0.0, 1.0, -oy], [0.0, 0.0, 1.0]])
    if rng.random() < 0.5:  # mirror-free turn by quarter turns
        rot = cv2.getRotationMatrix2D((patch / 2 - 0.5, patch / 2 - 0.5), 90 * int(rng.integers(4)), 1.0)
        cut = np.vstack([rot, [0, 0, 1]]) @ cut
    out = cv2.warpAffine(
        small, cut[:2], (patch, patch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    # window pixel -> patch pixel ((x + 0.5) * k - 0.5 is where resize puts pixel x)
    m = cut @ np.array([[kx, 0.0, 0.5 * kx - 0.5], [0.0, ky, 0.5 * ky - 0.5], [0.0, 0.0, 1.0]])
    s = kx
    out = photometric(out, rng)
    return out, det_targets(dice, m, s, patch // STRIDE)


def parse_args(argv: list[str] | None, description: str | None = None) -> argparse.Namespace:
    """`training.numbered.train_det`'s arguments (checked here, before torch is loaded)."""
    ap = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--cache", type=Path, help="pickle of the first TRAIN windows (training.numbered.train --cache)"
    )
    ap.add_argument(
        "--extra-cache", type=Path, help="pickle of the windows after those (rendered if missing)"
    )
    ap.add_argument("--windows", type=int, default=4800)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--det-factor", type=float, default=DET_FACTOR, help="the reader's detector scale")
    ap.add_argument("--pos-weight", type=float, default=2.0, help="weight of the die-centre focal term")
    ap.add_argument("--width", type=int, default=32, help="channels of the summed projections")
    ap.add_argument(
        "--channels",
        type=int,
        nargs=4,
        default=[12, 20, 32, 48],
        help="channels of the first convolution and of the stride-4, 8 and 16 stages",
    )
    ap.add_argument("--out", type=Path, required=True, help="folder for numbered_detector.onnx")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.windows < 1 or args.steps < 1 or args.batch < 1:
        ap.error("--windows, --steps and --batch: expected positive counts")
    return args
