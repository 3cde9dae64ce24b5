"""Train the numbered-dice detector and classifier on rendered TRAIN windows; export to ONNX.

Reproduce (about 20 minutes on 2 cores; torch and onnx are for training only):
    nice -n 10 .venv/bin/python -m training.numbered.train

Data: windows rendered on the fly by training/render/numbered/scenes.py:window (the
TRAIN generator: its own seeds and parameters; nothing from the committed test
scenes in tests/fixtures/numbered/ is used for training or tuning).
Seeded (numpy and torch seed 0, windows seeded by index).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from training.d6.train import box_loss, det_step, focal, optimise, to_tensor
from training.nets import Detector, cbr
from training.numbered.det_samples import (
    STRIDE,
    WINDOW,
    Window,
    _box,
    _top,
    det_targets,
    maybe_lower_resolution,
    photometric,
)
from vision.numbered.crop import CROP, MARGIN, crop_die
from vision.numbered.labels import CLASSES, INDEX
from vision.numbered.topface import F_SIDE, GRID, TOP, TOP_MARGIN, TOP_NADIR_FILE, nadir_ray, ray, view_planes

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
PATCH = 160
DET_SCALE = (0.42, 1.1)  # the reader runs it at 0.5 of the video frame, then 1.0 round each die (refine)
JITTER = 0.08  # crop centre error, sigma per axis, as a fraction of the die's box


class NumberedDetector(Detector):
    """The d6 reader's detector with two more outputs: where the top face's centre is.

    Per stride-4 cell: top-face-centre logit, log(w/4), log(h/4) of the die's outline box,
    then the top face's centre and the box's centre relative to the cell's centre, in cells
    (x, y each).  The heat peaks on the top face, so the classifier's crop is centred on the
    face it must read, to a fraction of a cell; the box (for the outline) is found the same way.
    """

    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(32, 7, 3, padding=1)
        self.head.bias.data[0] = -4.0  # type: ignore[union-attr]


class Classifier(nn.Module):
    """Kind and value of a top face from a CROP x CROP crop centred on it: 47 classes
    (not a die, then each kind's values)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            cbr(3, 16),
            nn.MaxPool2d(2),
            cbr(16, 32),
            cbr(32, 48),
            nn.MaxPool2d(2),
            cbr(48, 96),
            cbr(96, 96),
            nn.MaxPool2d(2),
            cbr(96, 160),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
            nn.Linear(160, len(CLASSES)),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # type: ignore[no-any-return]


def cbrd(i: int, o: int, d: int) -> nn.Sequential:
    """3x3 convolution dilated by `d`, batch norm, ReLU."""
    return nn.Sequential(
        nn.Conv2d(i, o, 3, 1, d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)
    )


class TopFace(nn.Module):
    """Where the top face's centre is in a TOP x TOP crop of a die's outline box (vision/numbered/topface.py).

    Stride 4 to a GRID x GRID map, then dilated convolutions (2, 4, 8 cells) so every cell sees
    the whole die: which face points up is a matter of the die's whole shape and shading.
    Input N x 5 x TOP x TOP: the crop (BGR / 255) and the two view planes (topface.view_planes).
    Output N x 2 x GRID x GRID: the top face's centre (logits, one softmax over the map) and the
    log of the die's box side over (the crop's side / TOP_MARGIN), read at the centre's cell.
    """

    def __init__(self, width: int = 48) -> None:
        super().__init__()
        self.body = nn.Sequential(
            cbr(5, 16, 2),
            cbr(16, 24),
            cbr(24, 32, 2),
            cbr(32, width),
            cbrd(width, width, 2),
            cbrd(width, width, 4),
            cbrd(width, width, 8),
            nn.Conv2d(width, 2, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # type: ignore[no-any-return]


def _render(i: int) -> Window:
    from training.render.numbered.scenes import window

    cv2.setNumThreads(1)
    return window(np.random.default_rng([7, i]), WINDOW)


def _render_single(i: int) -> Window:
    from training.render.numbered.scenes import die_window

    cv2.setNumThreads(1)
    return die_window(np.random.default_rng([11, i]), 128)


HIRES_SCALE = (1.5, 3.0)  # still frames: 1920x1440 .. 3840x2880 (the test still is 3456x2592)


def _render_hires(i: int) -> Window:
    """A die-centred window cut from a high-resolution still (TRAIN generator, seeds [13, i])."""
    from training.render.numbered.scenes import die_window

    cv2.setNumThreads(1)
    rng = np.random.default_rng([13, i])
    scale = float(rng.uniform(*HIRES_SCALE))
    return die_window(rng, round(112 * scale), scale)


def _render_many(fn: Callable[[int], Window], n: int, procs: int, chunksize: int, what: str) -> list[Window]:
    t0 = time.time()
    if procs <= 1:
        out = [fn(i) for i in range(n)]
    else:
        with mp.get_context("fork").Pool(procs) as pool:
            out = pool.map(fn, range(n), chunksize=chunksize)
    print(f"rendered {n} {what} in {time.time() - t0:.0f}s", flush=True)
    return out


def render_singles(n: int, procs: int, hires: bool = False) -> list[Window]:
    fn = _render_hires if hires else _render_single
    return _render_many(fn, n, procs, 64, f"die-centred windows (hires {hires})")


def render_windows(n: int, procs: int) -> list[Window]:
    return _render_many(_render, n, procs, 16, "windows")


# ---------------------------------------------------------------- detector


def det_sample(wins: list[Window], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    img, dice = wins[int(rng.integers(len(wins)))]
    s = float(rng.uniform(*DET_SCALE))
    src = PATCH / s
    ox, oy = rng.uniform(0, WINDOW - src, 2) if src < WINDOW else (0.0, 0.0)
    m = np.array([[s, 0, -ox * s], [0, s, -oy * s]], np.float64)
    if rng.random() < 0.5:  # mirror-free turn by quarter turns
        rot = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), 90 * int(rng.integers(4)), 1.0)
        m = rot @ np.vstack([m, [0, 0, 1]])
    patch = cv2.warpAffine(img, m, (PATCH, PATCH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    patch = photometric(patch, rng)
    return patch, det_targets(dice, m, s, PATCH // STRIDE)


# Weights of the 6 box channels (log w, log h, top face's centre x y, box centre x y) in the size loss.
BOX_WEIGHT = torch.tensor([1.0, 1.0, 3.0, 3.0, 1.0, 1.0]).view(1, 6, 1, 1)


def train_detector(wins: list[Window], rng: np.random.Generator, steps: int, batch: int) -> Detector:
    net = NumberedDetector()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    t0 = time.time()
    for step in range(steps):
        xs, ts = zip(*(det_sample(wins, rng) for _ in range(batch)), strict=True)
        x, t = to_tensor(list(xs)), torch.from_numpy(np.stack(ts))
        out = net(x)
        lh = focal(out[:, 0], t[:, 0])
        # The top face's centre weighs most: the classifier's crop is centred on it.
        lsz = box_loss(out[:, 1:7], t[:, 1:7], t[:, 7], BOX_WEIGHT)
        det_step(opt, sched, lh, lsz, step, steps, t0, 50)
    return net


# ---------------------------------------------------------------- classifier


def _negative_centre(
    dice: list[dict[str, Any]], d: dict[str, Any], size: float, rng: np.random.Generator
) -> tuple[float, float]:
    """A point that is no die's top face: off-centre on a die's edge or a neighbour's side, or anywhere."""
    tx, ty = _top(d)
    side = max(_box(d)[2:])
    c = (tx, ty)
    for _ in range(50):
        if rng.random() < 0.6:
            a, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.0) * side
            c = (tx + dist * math.cos(a), ty + dist * math.sin(a))
        else:
            c = (float(rng.uniform(0, size)), float(rng.uniform(0, size)))
        near = min(math.hypot(c[0] - _top(o)[0], c[1] - _top(o)[1]) / max(_box(o)[2:]) for o in dice)
        if near > 0.45:
            break
    return c


def cls_sample(
    wins: list[Window],
    rng: np.random.Generator,
    levels: dict[int, list[np.ndarray]],
    singles: list[Window],
    jitter: float = JITTER,
    lowres: float = 0.0,
    out: int = CROP,
) -> tuple[np.ndarray, int]:
    """One training crop, centred (give or take the detector's error) on a top face, or on no die.
    `lowres`: the share of crops of a die given a lower resolution (det_samples.maybe_lower_resolution);
    `out`: the crop's side (px; the backbone reads larger crops: train_backbone.py)."""
    ang = float(rng.uniform(0, 360))
    r = rng.random()
    if singles and r < 0.82:  # a die-centred window: its first die, or beside it
        img, dice = singles[int(rng.integers(len(singles)))]
        lv = [img]
        d = dice[0]
        positive = r < 0.72
    else:
        for _ in range(100):
            wi = int(rng.integers(len(wins)))
            img, dice = wins[wi]
            if dice:
                break
        lv = levels.setdefault(wi, [img])
        d = dice[int(rng.integers(len(dice)))]
        positive = rng.random() < 0.5
    side = max(_box(d)[2:])
    if positive:
        tx, ty = _top(d)
        # The detector finds the top face's centre to about 0.08 of the die's size (median; 0.22
        # at the 90th percentile, on validation windows): train on crops that far off.
        j = jitter * float(rng.choice([0.5, 1.0, 1.5], p=[0.25, 0.5, 0.25]))
        c = (tx + rng.normal(0, j * side), ty + rng.normal(0, j * side))
        crop = crop_die(lv, c, side * MARGIN * rng.uniform(0.88, 1.15), ang, out)
        crop = maybe_lower_resolution(crop, rng, lowres)
        return photometric(crop, rng), INDEX[(d["kind"], int(d["value"]))]
    c = _negative_centre(dice, d, float(img.shape[1]), rng)
    crop = crop_die(lv, c, side * MARGIN * rng.uniform(0.85, 1.2), ang, out)
    return photometric(crop, rng), 0


def train_classifier(
    wins: list[Window],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    singles: list[Window] | None = None,
    jitter: float = JITTER,
    extra: Callable[[], tuple[np.ndarray, int]] | None = None,
    n_extra: int = 0,
    lowres: float = 0.0,
    net: Classifier | None = None,
    lr: float = 3e-3,
) -> Classifier:
    """`batch` rendered crops a step (`cls_sample`, `lowres` passed on), then `n_extra` more from
    `extra` (e.g. crops of real photos: training/numbered/train_real.py), logged apart.  `net`: a net
    to go on training (`classifier_from_onnx`) instead of a new one; `lr`: the one-cycle peak."""
    net = net or Classifier()
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.1)
    levels: dict[int, list[np.ndarray]] = {}
    t0 = time.time()
    for step in range(steps):
        pairs = [cls_sample(wins, rng, levels, singles or [], jitter, lowres) for _ in range(batch)]
        pairs += [extra() for _ in range(n_extra if extra is not None else 0)]
        xs, ys = zip(*pairs, strict=True)
        out = net(to_tensor(list(xs)))
        target = torch.tensor(ys)
        loss = F.cross_entropy(out, target, label_smoothing=0.05)
        optimise(opt, sched, loss)
        if step % 50 == 0:
            hit = out.argmax(1) == target
            more = f" extra {hit[batch:].float().mean().item():.3f}" if len(pairs) > batch else ""
            print(
                f"cls {step}/{steps} loss {loss.item():.3f} acc {hit.float().mean().item():.3f}{more} "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    return net


def classifier_from_onnx(path: Path) -> Classifier:
    """A Classifier holding an exported classifier's weights, to train further.

    The export folded each batch norm into its convolution, so each norm is set to pass the folded
    bias on unchanged and frozen (eval mode: no batch statistics, its scale and shift still
    trained): the net computes what the file computes (checked here on random crops)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = Classifier()
    pairs: list[tuple[nn.Conv2d, nn.BatchNorm2d]] = [
        (cast(nn.Conv2d, m[0]), cast(nn.BatchNorm2d, m[1])) for m in net.body if isinstance(m, nn.Sequential)
    ]
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: expected {len(pairs)} convolutions, found {len(convs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs, strict=True):
            w, b = init[node.input[1]], init[node.input[2]]
            if tuple(w.shape) != tuple(conv.weight.shape):
                want_shape = tuple(conv.weight.shape)
                raise ValueError(f"{path}: convolution {node.name}: shape {w.shape}, expected {want_shape}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            assert bn.running_mean is not None and bn.running_var is not None
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        lin = cast(nn.Linear, net.body[-1])
        lin.weight.copy_(torch.from_numpy(np.array(init["body.12.weight"])))
        lin.bias.copy_(torch.from_numpy(np.array(init["body.12.bias"])))
    import onnxruntime as ort

    x = np.random.default_rng(0).random((4, 3, CROP, CROP), dtype=np.float32)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    was = net.training
    net.eval()
    got = net(torch.from_numpy(x)).detach().numpy()
    net.train(was)
    for m in net.modules():  # frozen: trained on, the norms keep the folded statistics
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    if not np.allclose(got, want, atol=1e-3):
        raise ValueError(f"{path}: the loaded net differs from the file (max {np.abs(got - want).max():.4f})")
    return net


# ---------------------------------------------------------------- top-face net

BOX_JITTER = 0.06  # the detector's box-centre error, sigma per axis, fraction of the box (median 0.045)
SIZE_JITTER = 0.1  # and its size error, sigma of the log
TOP_SOURCES = (0.3, 0.35, 0.35)  # share of die-centred video windows, still windows, 384-px windows


def _inside(d: dict[str, Any], img: np.ndarray) -> bool:
    x0, y0, x1, y1 = d["box_px"]
    return bool(x0 >= 0 and y0 >= 0 and x1 <= img.shape[1] and y1 <= img.shape[0])


View = tuple[float, float, int, int]  # a window's top-left corner in its frame, the frame's width, height


def _single_view(i: int) -> View:
    from training.render.numbered.scenes import die_window_view

    return die_window_view(np.random.default_rng([11, i]), 128)


def _hires_view(i: int) -> View:
    from training.render.numbered.scenes import die_window_view

    rng = np.random.default_rng([13, i])
    scale = float(rng.uniform(*HIRES_SCALE))
    return die_window_view(rng, round(112 * scale), scale)


def _window_view(i: int) -> View:
    from training.render.numbered.scenes import window_view

    return window_view(np.random.default_rng([7, i]), WINDOW)


Nadir = tuple[float, float]  # the point below the camera, frame pixels (scenes.nadir_px)


def _single_nadir(i: int) -> Nadir:
    from training.render.numbered.scenes import window_nadir

    return window_nadir(np.random.default_rng([11, i]))


def _hires_nadir(i: int) -> Nadir:
    from training.render.numbered.scenes import window_nadir

    rng = np.random.default_rng([13, i])
    return window_nadir(rng, float(rng.uniform(*HIRES_SCALE)))


def _window_nadir(i: int) -> Nadir:
    from training.render.numbered.scenes import window_nadir

    return window_nadir(np.random.default_rng([7, i]))


# The nadir-aware net is trained on the true nadir off by N(0, sigma) of f per axis, sigma drawn
# from these (with these odds): a board pose from calibration (well under 0.02), or a rough one.
NADIR_SIGMAS = (0.02, 0.1, 0.25)
NADIR_ODDS = (0.6, 0.25, 0.15)
# --nadir-shrink: this share of the samples has the nadir pulled toward the frame's centre by a
# uniform 0-1 share of its offset (then N(0, 0.05 f)): a nadir fitted to too few dice falls back
# to the centre (topface.nadir_fit's prior), an error unlike the round noise above.


def top_sample(
    sources: list[tuple[list[Window], list[View], list[Nadir] | None]],
    rng: np.random.Generator,
    levels: dict[tuple[int, int], list[np.ndarray]],
    shrink: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One TOP x TOP crop round a die's outline box (give or take the detector's error), any
    rotation, the die's view ray turned the same way, and the target: a Gaussian (0.8 cells) on
    the top face's centre, summing to 1.

    With the sources' nadirs, the view ray is from the nadir (topface.nadir_ray, the nadir off by
    NADIR_SIGMAS x f), not from the frame's centre."""
    si = int(rng.choice(len(sources), p=TOP_SOURCES))
    src, views, nadirs = sources[si]
    for _ in range(100):
        wi = int(rng.integers(len(src)))
        img, dice = src[wi]
        inside = [d for d in dice if _inside(d, img)]
        if inside:
            break
    d = inside[int(rng.integers(len(inside)))]
    lv = levels.setdefault((si, wi), [img])
    bx, by, bw, bh = _box(d)
    side = max(bw, bh)
    c = (bx + rng.normal(0, BOX_JITTER * side), by + rng.normal(0, BOX_JITTER * side))
    crop_side = side * TOP_MARGIN * math.exp(rng.normal(0, SIZE_JITTER))
    ang = float(rng.uniform(0, 360))
    crop = crop_die(lv, c, crop_side, ang, TOP)
    a = math.radians(ang)
    vx, vy = _top(d)[0] - c[0], _top(d)[1] - c[1]
    f = TOP / crop_side
    tx = (math.cos(a) * vx + math.sin(a) * vy) * f + TOP / 2
    ty = (-math.sin(a) * vx + math.cos(a) * vy) * f + TOP / 2
    cell = TOP / GRID
    yy, xx = np.mgrid[0:GRID, 0:GRID].astype(np.float32)
    t = np.exp(-((xx + 0.5 - tx / cell) ** 2 + (yy + 0.5 - ty / cell) ** 2) / (2 * 0.8**2))
    t = t / max(float(t.sum()), 1e-6)
    ox, oy, fw, fh = views[wi]
    if nadirs is None:
        rx, ry = ray(c[0] + ox, c[1] + oy, fw, fh)
    else:
        f = F_SIDE * max(fw, fh)
        nx, ny = nadirs[wi]
        if shrink > 0 and rng.random() < shrink:
            k = float(rng.uniform(0, 1))
            nx, ny = nx + k * (fw / 2 - nx), ny + k * (fh / 2 - ny)
            sigma = 0.05 * f
        else:
            sigma = float(rng.choice(NADIR_SIGMAS, p=NADIR_ODDS)) * f
        noisy = (nx + rng.normal(0, sigma), ny + rng.normal(0, sigma))
        rx, ry = nadir_ray(c[0] + ox, c[1] + oy, noisy, fw, fh)
    turned = np.array([math.cos(a) * rx + math.sin(a) * ry, -math.sin(a) * rx + math.cos(a) * ry])
    size = math.log(side * TOP_MARGIN / crop_side)
    return photometric(crop, rng), turned, np.concatenate([t.ravel(), [size]]).astype(np.float32)


def train_topface(
    sources: list[tuple[list[Window], list[View], list[Nadir] | None]],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    width: int = 48,
    shrink: float = 0.0,
) -> TopFace:
    net = TopFace(width)
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    levels: dict[tuple[int, int], list[np.ndarray]] = {}
    t0 = time.time()
    for step in range(steps):
        xs, rays, ts = zip(*(top_sample(sources, rng, levels, shrink) for _ in range(batch)), strict=True)
        x = torch.cat([to_tensor(list(xs)), torch.from_numpy(view_planes(np.stack(rays)))], 1)
        out = net(x).reshape(batch, 2, -1)
        ta = torch.from_numpy(np.stack(ts))
        t, size = ta[:, :-1], ta[:, -1:]
        # the size where the top face is (weighted by the target), in the log: 0.1 is 10 %
        lsize = (t * F.smooth_l1_loss(out[:, 1], size.expand_as(t), reduction="none", beta=0.1)).sum(1).mean()
        loss = -(t * F.log_softmax(out[:, 0], 1)).sum(1).mean() + 3 * lsize
        out = out[:, 0]
        optimise(opt, sched, loss)
        if step % 50 == 0:
            hit = (out.argmax(1) == t.argmax(1)).float().mean().item()
            print(
                f"top {step}/{steps} loss {loss.item():.3f} size {lsize.item():.4f} cell {hit:.3f} "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    return net


def export(net: nn.Module, shape: tuple[int, ...], path: Path) -> None:
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
    print("wrote", path, path.stat().st_size, "bytes", flush=True)


def _cached(path: Path | None, n: int, make: Any) -> list[Window]:
    if n <= 0:
        return []
    if path and path.is_file():
        got: list[Window] = pickle.loads(path.read_bytes())
        if len(got) >= n:
            return got[:n]
    out: list[Window] = make()
    if path:
        path.write_bytes(pickle.dumps(out))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--windows", type=int, default=3000)
    ap.add_argument("--det-steps", type=int, default=1500)
    ap.add_argument("--cls-steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=96, help="classifier batch")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=["det", "cls", "top", "both"], default="both", help="both: det and cls")
    ap.add_argument("--top-steps", type=int, default=3000)
    ap.add_argument("--top-width", type=int, default=48, help="channels of the top-face net's dilated layers")
    ap.add_argument(
        "--nadir",
        action="store_true",
        help="top-face net told each die's ray from the nadir (writes " + TOP_NADIR_FILE + ")",
    )
    ap.add_argument(
        "--nadir-shrink", type=float, default=0.0, help="share of nadirs pulled toward the frame's centre"
    )
    ap.add_argument(
        "--jitter",
        type=float,
        default=JITTER,
        help="classifier crop-centre error, sigma (fraction of the box)",
    )
    ap.add_argument("--cache", type=Path, help="keep the rendered windows in this pickle (outside the repo)")
    ap.add_argument("--singles", type=int, default=9000, help="die-centred windows for the classifier")
    ap.add_argument("--singles-cache", type=Path, help="keep the die-centred windows in this pickle")
    ap.add_argument("--hires", type=int, default=12000, help="die-centred windows cut from high-res stills")
    ap.add_argument("--hires-cache", type=Path, help="keep the high-res die-centred windows in this pickle")
    ap.add_argument("--models", type=Path, default=MODELS, help="where to write the ONNX files")
    ap.add_argument("--render-only", action="store_true", help="render (and cache) the data, do not train")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    if args.cache and args.cache.is_file():
        wins = pickle.loads(args.cache.read_bytes())[: args.windows]
    else:
        wins = render_windows(args.windows, args.threads)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(wins))
    print(f"{sum(len(d) for _, d in wins)} dice in {len(wins)} windows", flush=True)
    args.models.mkdir(exist_ok=True)
    if args.only in ("cls", "both"):
        singles = _cached(
            args.singles_cache, args.singles, lambda: render_singles(args.singles, args.threads)
        )
        hires = _cached(args.hires_cache, args.hires, lambda: render_singles(args.hires, args.threads, True))
        if args.render_only:
            return
        cls = train_classifier(wins, rng, args.cls_steps, args.batch, singles + hires, args.jitter)
        export(cls, (8, 3, CROP, CROP), args.models / "numbered_classifier.onnx")
    if args.only == "top":
        singles = _cached(
            args.singles_cache, args.singles, lambda: render_singles(args.singles, args.threads)
        )
        hires = _cached(args.hires_cache, args.hires, lambda: render_singles(args.hires, args.threads, True))
        sources = [
            (
                singles,
                [_single_view(i) for i in range(len(singles))],
                [_single_nadir(i) for i in range(len(singles))] if args.nadir else None,
            ),
            (
                hires,
                [_hires_view(i) for i in range(len(hires))],
                [_hires_nadir(i) for i in range(len(hires))] if args.nadir else None,
            ),
            (
                wins,
                [_window_view(i) for i in range(len(wins))],
                [_window_nadir(i) for i in range(len(wins))] if args.nadir else None,
            ),
        ]
        top = train_topface(sources, rng, args.top_steps, 64, args.top_width, args.nadir_shrink)
        name = TOP_NADIR_FILE if args.nadir else "numbered_topface.onnx"
        export(top, (8, 5, TOP, TOP), args.models / name)
    if args.only in ("det", "both"):
        det = train_detector(wins, rng, args.det_steps, 16)
        export(det, (1, 3, 320, 320), args.models / "numbered_detector.onnx")


if __name__ == "__main__":
    main()
