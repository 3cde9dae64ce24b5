"""Train the d6 detector and value classifier, export both to vision/models/*.onnx.

The commands that made the committed models, and what they were trained on, are in
vision/models/README.md.

Data: only the TRAIN part (vision.dataset.is_held_out is False) of the shared real
photos (byler_d6, skovy_d6 scenes and crops), dice drawn by vision.synth, and the project's
own renders (vision.training.renders; --min-visible and --hidden-unknown decide how the
partly hidden dice of stacks are taught). Seeded; needs torch (training only, never at run
time) and onnx for the export.
"""

from __future__ import annotations

import argparse
import math
import pickle
import time
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision import synth
from vision.crops import CROP, MARGIN, Pyramid, crop_die
from vision.dataset import LabelledImage, is_held_out, load_byler, load_skovy_crops, load_skovy_scenes
from vision.training.nets import Classifier, Detector

MODELS = Path(__file__).resolve().parent.parent / "models"
PATCH = 160
STRIDE = 4
RENDERED_SHARE = 0.3  # of the labelled dice the classifier sees, the share from the project's renders
HIDDEN_SHARE = 0.2  # of those rendered dice, the share of partly hidden ones (when they are taught)
UNKNOWN = -1  # classifier label: a die whose value cannot be seen (taught as equally likely 1..6)


def imread(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"{path}: not a readable image")
    return img


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour, light, blur and noise changes a die's value must survive."""
    x: np.ndarray = img.astype(np.float32)
    if rng.random() < 0.5:
        x = x[..., rng.permutation(3)]
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(np.clip(x, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.int16)
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.4), 0, 255)
        x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    x = x * rng.uniform(0.6, 1.4) + rng.uniform(-40, 40)
    x = x * rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.1:
        x = 255 - x
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 10), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    a = np.stack(batch).astype(np.float32) / 255.0
    return torch.from_numpy(a.transpose(0, 3, 1, 2).copy())


# ---------------------------------------------------------------- detector


def det_sample(
    src: list[tuple[np.ndarray, list[tuple[float, float, float, float]]]],
    rng: np.random.Generator,
    focus: list[tuple[np.ndarray, list[tuple[float, float, float, float]], Any]] | None = None,
    focus_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """A PATCH x PATCH training patch and its target (5, P/4, P/4): heat, log w, log h, mask, weight.

    `focus` lists (image, its boxes, one of them) of dice to centre a `focus_share` of the patches on
    (the partly hidden dice: few, and harder than the rest)."""
    on: tuple[float, float, float, float] | None = None
    if focus and rng.random() < focus_share:
        img, boxes, on = focus[int(rng.integers(len(focus)))]
    elif rng.random() < 0.3:
        img, drawn = synth.random_scene(rng, 240, 320, size_range=(10, 40))
        boxes = []
        for d in drawn:
            q = np.array(d.quad)
            boxes.append((q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()))
    else:
        img, boxes = src[int(rng.integers(len(src)))]
    sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [40.0]
    target = math.exp(rng.uniform(math.log(9), math.log(50)))
    k = target / float(np.median(sizes))
    rot = int(rng.integers(4))
    h, w = img.shape[:2]
    ang = rot * 90 + rng.uniform(-8, 8)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, k)
    # Random placement: pick a die (or any point) to land somewhere in the patch.
    if on is not None:
        p = np.array([(on[0] + on[2]) / 2, (on[1] + on[3]) / 2, 1.0])
    elif boxes and rng.random() < 0.85:
        b = boxes[int(rng.integers(len(boxes)))]
        p = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 1.0])
    else:
        p = np.array([rng.uniform(0, w), rng.uniform(0, h), 1.0])
    q = m @ p
    m[:, 2] += np.array([rng.uniform(20, PATCH - 20), rng.uniform(20, PATCH - 20)]) - q
    fill = tuple(float(v) for v in img[::17, ::17].reshape(-1, 3).mean(0))
    patch = cv2.warpAffine(
        img,
        m,
        (PATCH, PATCH),
        flags=cv2.INTER_AREA if k < 0.7 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    patch = photometric(patch, rng)
    g = PATCH // STRIDE
    tgt = np.zeros((5, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for b in boxes:
        c = m @ np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 1.0])
        bw, bh = (b[2] - b[0]) * k, (b[3] - b[1]) * k
        if rot % 2:
            bw, bh = bh, bw
        cx, cy = c[0] / STRIDE - 0.5, c[1] / STRIDE - 0.5
        if not (-1 <= cx <= g and -1 <= cy <= g):
            continue
        sig = max(0.6, min(bw, bh) / STRIDE / 5)
        tgt[0] = np.maximum(tgt[0], np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sig * sig)))
        ix, iy = round(cx), round(cy)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = ix + dx, iy + dy
                if 0 <= x < g and 0 <= y < g:
                    tgt[1, y, x] = math.log(max(bw, 1) / STRIDE)
                    tgt[2, y, x] = math.log(max(bh, 1) / STRIDE)
                    tgt[3, y, x] = 1.0 if dx == dy == 0 else 0.5
        if 0 <= ix < g and 0 <= iy < g:
            tgt[0, iy, ix] = 1.0
    return patch, tgt


def focal(logit: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    lp = -torch.log(p) * (1 - p) ** 2 * pos
    ln = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * neg
    return (lp.sum() + ln.sum()) / pos.sum().clamp(min=1)


def train_detector(
    src: list[Any],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    focus: list[Any] | None = None,
    focus_share: float = 0.0,
) -> Detector:
    net = Detector()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    t0 = time.time()
    for step in range(steps):
        xs, ts = zip(*(det_sample(src, rng, focus, focus_share) for _ in range(batch)), strict=True)
        x, t = to_tensor(list(xs)), torch.from_numpy(np.stack(ts))
        out = net(x)
        lh = focal(out[:, 0], t[:, 0])
        mask = t[:, 3]
        lsz = (
            F.smooth_l1_loss(out[:, 1:3], t[:, 1:3], reduction="none").sum(1) * mask
        ).sum() / mask.sum().clamp(min=1)
        loss = lh + lsz
        opt.zero_grad()
        cast(Any, loss).backward()
        opt.step()
        sched.step()
        if step % 25 == 0:
            print(
                f"det {step}/{steps} heat {lh.item():.3f} size {lsz.item():.3f} {time.time() - t0:.0f}s",
                flush=True,
            )
    return net


# ---------------------------------------------------------------- classifier


def clutter(rng: np.random.Generator, size: float) -> tuple[np.ndarray, tuple[float, float]]:
    """Things on a game board that are not dice: ArUco markers, printed multipliers, grid lines.

    Returns an image and a point on the clutter to centre a crop of side about `size` on.
    """
    n = int(size * 4)
    bg = tuple(int(v) for v in rng.integers(120, 256, 3))
    img: np.ndarray = np.empty((n, n, 3), np.uint8)
    img[:] = bg
    kind = rng.random()
    if kind < 0.5:
        d = cv2.aruco.getPredefinedDictionary(
            [cv2.aruco.DICT_4X4_50, cv2.aruco.DICT_5X5_50, cv2.aruco.DICT_6X6_50][int(rng.integers(3))]
        )
        side = int(size * rng.uniform(0.8, 2.5))
        m = cv2.aruco.generateImageMarker(d, int(rng.integers(50)), side, borderBits=1)
        m = cv2.copyMakeBorder(m, side // 8, side // 8, side // 8, side // 8, cv2.BORDER_CONSTANT, value=255)
        m3 = cv2.cvtColor(m, cv2.COLOR_GRAY2BGR)
        h = m3.shape[0]
        o = (n - h) // 2
        img[o : o + h, o : o + h] = m3
        rot = cv2.getRotationMatrix2D((n / 2, n / 2), rng.uniform(0, 360), 1.0)
        img = cv2.warpAffine(img, rot, (n, n), borderMode=cv2.BORDER_CONSTANT, borderValue=bg)
        spot = (n / 2 + rng.uniform(-0.5, 0.5) * h, n / 2 + rng.uniform(-0.5, 0.5) * h)
    else:
        for _ in range(int(rng.integers(1, 4))):  # zone grid lines and cells
            x = int(rng.integers(0, n))
            col = tuple(int(v) for v in rng.integers(0, 256, 3))
            cv2.line(img, (x, 0), (x, n), col, int(rng.integers(1, 4)))
            cv2.line(img, (0, x), (n, x), col, int(rng.integers(1, 4)))
        text = ["x2", "x3", "x4", "x6", "x8", "1", "2", "3", "4", "5", "6", "A", "B"][int(rng.integers(13))]
        scale = size / 40 * rng.uniform(0.6, 1.6)
        col = tuple(int(v) for v in rng.integers(0, 120, 3))
        cv2.putText(
            img,
            text,
            (int(n * 0.4), int(n * 0.6)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            col,
            max(1, int(scale * 2)),
        )
        spot = (n * 0.45 + rng.uniform(-0.2, 0.2) * size, n * 0.55 + rng.uniform(-0.2, 0.2) * size)
    return img, spot


def cls_sample(
    dice: list[tuple[Pyramid, tuple[float, float, float, float], int]],
    crops: list[tuple[Pyramid, int]],
    negs: list[tuple[Pyramid, list[tuple[float, float, float, float]]]],
    rng: np.random.Generator,
    hard: list[tuple[int, tuple[float, float], float, float]] | None = None,
    rendered: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
    hidden: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
    tops: list[tuple[Pyramid, tuple[float, float, float, float], int]] | None = None,
) -> tuple[np.ndarray, int]:
    """A training crop and its label: 0 not a die, 1..6 a value, UNKNOWN a die whose value is hidden."""
    r = rng.random()
    ang = rng.uniform(0, 360)
    j = rng.uniform(0.85, 1.18)
    if r < 0.55:
        # a labelled die: a real photo's, or (when there are rendered ones) a rendered scene's;
        # a partly hidden rendered die (the crop of its whole top face shows mostly the die on it)
        # is taught as a die of unknown value
        pool = rendered if rendered and rng.random() < RENDERED_SHARE else dice
        if pool is rendered and hidden and rng.random() < HIDDEN_SHARE:
            if tops and rng.random() < 0.5:  # as often, a die on top of a hidden one: its own value
                pyr, b, label = tops[int(rng.integers(len(tops)))]
            else:
                pyr, b, _ = hidden[int(rng.integers(len(hidden)))]
                label = UNKNOWN
        else:
            pyr, b, label = pool[int(rng.integers(len(pool)))]
        bw, bh = b[2] - b[0], b[3] - b[1]
        s = max(bw, bh)
        c = ((b[0] + b[2]) / 2 + rng.normal(0, 0.06 * s), (b[1] + b[3]) / 2 + rng.normal(0, 0.06 * s))
        crop = crop_die(pyr, c, bw * MARGIN * j * rng.uniform(0.93, 1.07), bh * MARGIN * j, ang)
    elif r < 0.70:
        pyr, label = crops[int(rng.integers(len(crops)))]
        h, w = pyr.levels[0].shape[:2]
        c = (w / 2 + rng.normal(0, 0.04 * w), h / 2 + rng.normal(0, 0.04 * h))
        a = rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-20, 20)
        crop = crop_die(pyr, c, w * j, h * j, a)
    elif r < 0.78:
        size = rng.uniform(22, 70)
        img = synth.felt(int(size * 3), int(size * 3), tuple(int(v) for v in rng.integers(0, 256, 3)), rng)
        for _ in range(int(rng.integers(0, 3))):  # neighbours touching the die
            ox, oy = rng.choice([-1, 1]) * size * rng.uniform(0.9, 1.1), rng.uniform(-0.5, 0.5) * size
            synth.draw_die(
                img,
                (1.5 * size + ox, 1.5 * size + oy),
                size,
                int(rng.integers(1, 7)),
                angle_deg=rng.uniform(0, 90),
                body_bgr=tuple(int(v) for v in rng.integers(0, 256, 3)),
            )
        body = tuple(int(v) for v in rng.integers(0, 256, 3))
        pip = (235, 235, 235) if sum(body) < 384 else (20, 20, 20)
        label = int(rng.integers(1, 7))
        d = synth.draw_die(
            img,
            (1.5 * size, 1.5 * size),
            size,
            label,
            angle_deg=rng.uniform(0, 90),
            body_bgr=body,
            pip_bgr=pip,
            pip_scale=rng.uniform(0.75, 1.3),
        )
        crop = crop_die(Pyramid(img), d.center, size * 1.1 * MARGIN * j, size * 1.1 * MARGIN * j, ang)
    elif rng.random() < 0.35:
        label = 0
        size = rng.uniform(22, 70)
        img, spot = clutter(rng, size)
        crop = crop_die(Pyramid(img), spot, size * MARGIN * j, size * MARGIN * j, ang)
    elif hard and rng.random() < 0.5:
        label = 0
        k, c, w, h = hard[int(rng.integers(len(hard)))]
        c = (c[0] + rng.normal(0, 0.05 * w), c[1] + rng.normal(0, 0.05 * h))
        crop = crop_die(negs[k][0], c, w * MARGIN * j, h * MARGIN * j, ang)
    else:
        label = 0
        pyr, boxes = negs[int(rng.integers(len(negs)))]
        h, w = pyr.levels[0].shape[:2]
        s = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) if boxes else 40.0
        for _ in range(50):
            if boxes and rng.random() < 0.5:
                b = boxes[int(rng.integers(len(boxes)))]
                a, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.0) * s
                c = ((b[0] + b[2]) / 2 + dist * math.cos(a), (b[1] + b[3]) / 2 + dist * math.sin(a))
            else:
                c = (rng.uniform(0, w), rng.uniform(0, h))
            near = min(
                (math.hypot(c[0] - (b[0] + b[2]) / 2, c[1] - (b[1] + b[3]) / 2) for b in boxes), default=1e9
            )
            if near > 0.55 * s:
                break
        crop = crop_die(pyr, c, s * MARGIN * j, s * MARGIN * j, ang)
    return photometric(crop, rng), label


def soft_targets(y: torch.Tensor) -> torch.Tensor:
    """Class probabilities (N x 7) for labels 0..6 and UNKNOWN: a die of unknown value is taught
    as a die (never "not a die") whose six values are equally likely."""
    target = F.one_hot(y.clamp(min=0), 7).float()
    target[y == UNKNOWN] = torch.tensor([0.0] + [1 / 6] * 6)
    return target


def train_classifier(
    dice: list[Any],
    crops: list[Any],
    negs: list[Any],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    hard: list[Any] | None = None,
    rendered: list[Any] | None = None,
    hidden: list[Any] | None = None,
    tops: list[Any] | None = None,
) -> Classifier:
    net = Classifier()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    t0 = time.time()
    for step in range(steps):
        xs, ys = zip(
            *(cls_sample(dice, crops, negs, rng, hard, rendered, hidden, tops) for _ in range(batch)),
            strict=True,
        )
        out = net(to_tensor(list(xs)))
        y = torch.tensor(ys)
        if bool((y == UNKNOWN).any()):
            loss = F.cross_entropy(out, soft_targets(y), label_smoothing=0.05)
        else:
            loss = F.cross_entropy(out, y, label_smoothing=0.05)
        opt.zero_grad()
        cast(Any, loss).backward()
        opt.step()
        sched.step()
        if step % 50 == 0:
            known = y != UNKNOWN
            acc = (out.argmax(1)[known] == y[known]).float().mean().item()
            print(
                f"cls {step}/{steps} loss {loss.item():.3f} acc {acc:.3f} {time.time() - t0:.0f}s", flush=True
            )
    return net


def mine_negatives(
    photos: list[tuple[np.ndarray, list[tuple[float, float, float, float]]]], models: Path
) -> list[tuple[int, tuple[float, float], float, float]]:
    """Detector peaks (of an earlier detector) that lie on no labelled die: hard negatives."""
    from vision.reader import DiceReader

    # Only the detector is used here (find() never runs the classifier).
    reader = DiceReader(detector=models / "d6_detector.onnx", det_threshold=0.25)
    out = []
    for k, (img, boxes) in enumerate(photos):
        for c in reader.find(img):
            on_die = any(
                b[0] - 0.1 * (b[2] - b[0]) <= c.center[0] <= b[2] + 0.1 * (b[2] - b[0])
                and b[1] - 0.1 * (b[3] - b[1]) <= c.center[1] <= b[3] + 0.1 * (b[3] - b[1])
                for b in boxes
            )
            if not on_die:
                out.append((k, c.center, c.w, c.h))
    print(f"mined {len(out)} hard negatives", flush=True)
    return out


def _near(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Box centres closer than 0.8 of a's side (a die on another lies about half a side off it)."""
    side = max(a[2] - a[0], a[3] - a[1])
    return math.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2) < 0.8 * side


def _die(d: tuple[Any, ...]) -> tuple[tuple[float, float, float, float], int, bool, float]:
    """A cached rendered die; caches made before the visible fraction was kept hold only
    dice at least half in view (taken as fully in view here)."""
    return (d[0], d[1], d[2], float(d[3]) if len(d) > 3 else 1.0)


def export(net: torch.nn.Module, shape: tuple[int, ...], path: Path) -> None:
    net.eval()
    torch.onnx.export(
        net,
        (torch.zeros(shape),),
        str(path),
        input_names=["x"],
        output_names=["y"],
        dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}, "y": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    print("wrote", path, path.stat().st_size, "bytes")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", type=Path, default=Path(__file__).resolve().parents[3] / "shared/fixtures/real")
    ap.add_argument("--det-steps", type=int, default=1500)
    ap.add_argument("--cls-steps", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out-dir", type=Path, default=MODELS)
    ap.add_argument(
        "--mine-with", type=Path, default=None, help="models dir whose detector gives hard negatives"
    )
    ap.add_argument("--det-batch", type=int, default=16)
    ap.add_argument("--cls-batch", type=int, default=64)
    ap.add_argument("--only", choices=["det", "cls", "both"], default="both")
    ap.add_argument("--renders", type=int, default=0, help="board scenes from vision.training.renders")
    ap.add_argument("--drawn", type=int, default=0, help="drawn-dice scenes from vision.training.renders")
    ap.add_argument(
        "--render-cache", type=Path, help="keep the rendered scenes in this pickle (outside the repo)"
    )
    ap.add_argument("--procs", type=int, default=1, help="processes for rendering")
    ap.add_argument(
        "--render-weight", type=int, default=1, help="detector: times each rendered scene is listed"
    )
    ap.add_argument(
        "--min-visible",
        type=float,
        default=0.5,
        help="rendered dice showing at least this fraction of their top face are detector targets "
        "(the box of the whole top face); a new render cache keeps every die, one made before this option "
        "only those at least half in view",
    )
    ap.add_argument(
        "--mine-renders",
        action="store_true",
        help="classifier: take hard negatives from the rendered scenes too (away from every die in view)",
    )
    ap.add_argument(
        "--stack-tops",
        action="store_true",
        help="classifier (with --hidden-unknown): teach the dice lying on partly hidden ones as often as "
        "the hidden ones, with their own value (a crop of either shows mostly the upper die)",
    )
    ap.add_argument(
        "--det-hidden-share",
        type=float,
        default=0.0,
        help="detector: share of the patches centred on a partly hidden rendered die (min-visible to 0.5)",
    )
    ap.add_argument(
        "--hidden-unknown",
        action="store_true",
        help="classifier: rendered dice showing min-visible to 0.5 of their top face are taught as dice "
        "of unknown value (1..6 equally likely) instead of being left out",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)

    def train_part(items: list[LabelledImage]) -> list[LabelledImage]:
        return [i for i in items if not is_held_out(i.path.name)]

    byler, scenes = train_part(load_byler(args.real)), train_part(load_skovy_scenes(args.real))
    skc = train_part(load_skovy_crops(args.real))
    photos = [(imread(i.path), [d.box for d in i.dice]) for i in byler + scenes]
    print(f"train: {len(byler)} byler, {len(scenes)} scenes, {len(skc)} crops", flush=True)
    made: list[Any] = []
    if args.renders or args.drawn:
        from vision.training.renders import render_all

        cache = args.render_cache
        if cache and cache.is_file():
            made = [(img, [_die(d) for d in dice]) for img, dice in pickle.loads(cache.read_bytes())]
        else:
            t0 = time.time()
            made = render_all(args.renders, args.drawn, args.procs, min_visible=0.0)  # filtered below
            print(f"rendered {len(made)} training scenes in {time.time() - t0:.0f}s", flush=True)
            if cache:
                cache.write_bytes(pickle.dumps(made))
        print(f"rendered: {len(made)} scenes, {sum(len(d) for _, d in made)} dice", flush=True)
    # every rendered die in view is kept off the "not a die" crops; the detector and the classifier
    # learn only those at least min-visible in view
    seen = [(img, [b for b, _, _, vis in d if vis > 0.0]) for img, d in made]
    targets = [(img, [(b, v, ok, vis) for b, v, ok, vis in d if vis >= args.min_visible]) for img, d in made]
    print(
        f"rendered dice: {sum(len(d) for _, d in seen)} in view, {sum(len(d) for _, d in targets)} targets "
        f"(at least {args.min_visible:.2f} of the top face visible)",
        flush=True,
    )
    args.out_dir.mkdir(exist_ok=True, parents=True)
    if args.only in ("det", "both"):
        src = photos[: len(byler)] * 4 + photos[len(byler) :]
        src += [(img, [d[0] for d in dice]) for img, dice in targets] * args.render_weight
        focus = [(img, [d[0] for d in dice], d[0]) for img, dice in targets for d in dice if d[3] < 0.5]
        if args.det_hidden_share:
            print(f"detector: {args.det_hidden_share:.2f} of the patches on {len(focus)} partly hidden dice")
        det = train_detector(src, rng, args.det_steps, args.det_batch, focus, args.det_hidden_share)
        export(det, (1, 3, 320, 320), args.out_dir / "d6_detector.onnx")
    if args.only in ("cls", "both"):
        pyrs = [(Pyramid(img), boxes) for img, boxes in photos]
        dice = [(p, d.box, d.value) for (p, _), i in zip(pyrs, byler + scenes, strict=True) for d in i.dice]
        crops = [(Pyramid(imread(i.path)), i.dice[0].value) for i in skc]
        # hard negatives index pyrs + mpyrs: the photos first, then (with --mine-renders) the renders
        mined = photos + ([(img, boxes) for img, boxes in seen] if args.mine_renders else [])
        hard = mine_negatives(mined, args.mine_with) if args.mine_with else None
        mpyrs = [(Pyramid(img), boxes) for img, boxes in seen]
        pairs = list(zip(mpyrs, targets, strict=True))
        rendered = [(p, b, v) for (p, _), (_, d) in pairs for b, v, ok, _ in d if ok]
        hidden = [(p, b, v) for (p, _), (_, d) in pairs for b, v, _, vis in d if vis < 0.5]
        tops = [
            (p, b, v)
            for (p, _), (_, d) in pairs
            for b, v, ok, _ in d
            if ok and any(vis < 0.5 and _near(b, h) for h, _, _, vis in d)
        ]
        if args.hidden_unknown:
            print(f"classifier: {len(hidden)} partly hidden rendered dice (unknown value)", flush=True)
        if args.stack_tops:
            print(f"classifier: {len(tops)} dice on partly hidden ones, taught as often", flush=True)
        # negatives come from the photos and the renders alike (hard ones index the photos: first)
        cls = train_classifier(
            dice,
            crops,
            pyrs + mpyrs,
            rng,
            args.cls_steps,
            args.cls_batch,
            hard,
            rendered or None,
            (hidden or None) if args.hidden_unknown else None,
            (tops or None) if args.stack_tops else None,
        )
        export(cls, (8, 3, CROP, CROP), args.out_dir / "d6_classifier.onnx")


if __name__ == "__main__":
    main()
