"""Train the d6 detector and value classifier, export both to vision/models/*.onnx.

The commands that made the committed models, and what they were trained on, are in
vision/models/README.md.

Data: only the TRAIN part (training.dataset.is_held_out is False) of the shared real
photos (byler_d6, skovy_d6 scenes and crops), dice drawn by hardware.drawn, and the project's
own renders (training.d6.renders; --min-visible and --hidden-unknown decide how the
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

from training.d6.samples import (  # noqa: F401  (names the training CLI has always had)
    HIDDEN_SHARE,
    PATCH,
    RENDERED_SHARE,
    STRIDE,
    UNKNOWN,
    cls_sample,
    clutter,
    det_sample,
    photometric,
    soft_target_matrix,
)
from training.dataset import LabelledImage, is_held_out, load_byler, load_skovy_crops, load_skovy_scenes
from training.nets import Classifier, Detector
from vision.crops import CROP, Pyramid

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"


def imread(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"{path}: not a readable image")
    return img


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    a = np.stack(batch).astype(np.float32) / 255.0
    return torch.from_numpy(a.transpose(0, 3, 1, 2).copy())


# ---------------------------------------------------------------- detector


def focal(logit: torch.Tensor, heat: torch.Tensor, pos_weight: float = 1.0) -> torch.Tensor:
    """CenterNet's focal loss; `pos_weight` weighs the die-centre term (the numbered detector's)."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    lp = -torch.log(p) * (1 - p) ** 2 * pos
    ln = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * neg
    return (pos_weight * lp.sum() + ln.sum()) / pos.sum().clamp(min=1)


def box_loss(
    out: torch.Tensor, target: torch.Tensor, mask: torch.Tensor, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """Smooth L1 of the box channels at the die cells (`mask`), channels weighted by `weight`."""
    err = F.smooth_l1_loss(out, target, reduction="none")
    if weight is not None:
        err = err * weight
    return (err.sum(1) * mask).sum() / mask.sum().clamp(min=1)


def optimise(opt: torch.optim.Optimizer, sched: Any, loss: torch.Tensor) -> None:
    """One optimiser and schedule step on `loss`."""
    opt.zero_grad()
    cast(Any, loss).backward()
    opt.step()
    sched.step()


def det_step(
    opt: torch.optim.Optimizer,
    sched: Any,
    heat: torch.Tensor,
    size: torch.Tensor,
    step: int,
    steps: int,
    t0: float,
    every: int,
) -> None:
    """One optimiser step on a detector's heat + size loss, logged every `every` steps."""
    optimise(opt, sched, heat + size)
    if step % every == 0:
        print(
            f"det {step}/{steps} heat {heat.item():.3f} size {size.item():.3f} {time.time() - t0:.0f}s",
            flush=True,
        )


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
        lsz = box_loss(out[:, 1:3], t[:, 1:3], t[:, 3])
        det_step(opt, sched, lh, lsz, step, steps, t0, 25)
    return net


# ---------------------------------------------------------------- classifier


def soft_targets(y: torch.Tensor) -> torch.Tensor:
    """Class probabilities (N x 7) for labels 0..6 and UNKNOWN (``samples.soft_target_matrix``)."""
    return torch.from_numpy(soft_target_matrix(y.numpy()))


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
        optimise(opt, sched, loss)
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
    ap.add_argument("--renders", type=int, default=0, help="board scenes from training.d6.renders")
    ap.add_argument("--drawn", type=int, default=0, help="drawn-dice scenes from training.d6.renders")
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
        from training.d6.renders import render_all

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
