"""Train the numbered-dice detector for a smaller, cheaper input (session 4; see MODELS.md).

    nice -n 10 .venv/bin/python -m training.numbered.train_det --cache /tmp/numbered_windows.pkl \
        --windows 4800 --steps 10000 --out /tmp/det_cand

Same task, targets and TRAIN windows as `training.numbered.train` (its `det` part: 384-px windows of
1280x960 frames, seeds ``[7, i]``; nothing from the held-out test scenes), but:

* the net (`FastDetector`) adds its three scales' 1x1 projections (FPN-style: project, then
  upsample) instead of upsampling and concatenating the features first, and the stride-16 stage
  has two dilated convolutions (a wider view for the cost of a few 40x30 maps);
* patches are drawn at the scale the reader runs it at: `--det-factor` of the video frame
  (0.4 = 512x384, ``det_area`` 196608), with a share at larger scales;
* the die-centre term of the focal loss is weighted (`--pos-weight`): a missed die is lost, a
  false peak is mostly turned away by the classifier's "not a die" class.

Windows past those in ``--cache`` are rendered (seeded) and kept in ``--extra-cache``.
"""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from training.d6.train import box_loss, det_step, focal, to_tensor
from training.nets import cbr
from training.numbered.det_samples import WINDOW, Window, det_sample, parse_args
from training.numbered.train import BOX_WEIGHT, _render, cbrd, export

OUTPUTS = 7  # heat, log w, log h, top dx, dy, box dx, dy (training/numbered/MODELS.md)


class FastDetector(nn.Module):
    """CenterNet-style die finder with the numbered detector's 7 outputs per stride-4 cell.

    Stages at strides 4, 8 and 16 as in `training.nets.Detector`; their features are
    projected to `width` channels by 1x1 convolutions and added after nearest upsampling (the
    same function as a 1x1 convolution of the upsampled, concatenated features, without
    upsampling 80 channels to stride 4).  `dilated`: the last two stride-16 convolutions are
    dilated by 2 and 4."""

    def __init__(
        self, width: int = 32, dilated: bool = True, channels: tuple[int, ...] = (12, 20, 32, 48)
    ) -> None:
        super().__init__()
        c1, c4, c8, c16 = channels
        self.s4 = nn.Sequential(cbr(3, c1, 2), cbr(c1, c4, 2), cbr(c4, c4))
        self.s8 = nn.Sequential(cbr(c4, c8, 2), cbr(c8, c8))
        tail = [cbrd(c16, c16, 2), cbrd(c16, c16, 4)] if dilated else [cbr(c16, c16), cbr(c16, c16)]
        self.s16 = nn.Sequential(cbr(c8, c16, 2), *tail)
        self.l4 = nn.Conv2d(c4, width, 1, bias=False)
        self.l8 = nn.Conv2d(c8, width, 1, bias=False)
        self.l16 = nn.Conv2d(c16, width, 1, bias=False)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.post = nn.Sequential(nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.head = nn.Conv2d(width, OUTPUTS, 3, padding=1)
        self.head.bias.data[0] = -4.0  # type: ignore[union-attr]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.s4(x)
        b = self.s8(a)
        c = self.s16(b)
        p = self.l4(a) + self.up(self.l8(b) + self.up(self.l16(c)))
        return self.head(self.post(p))  # type: ignore[no-any-return]


def train(
    wins: list[Window],
    rng: np.random.Generator,
    steps: int,
    batch: int,
    factor: float,
    pos_weight: float,
    net: FastDetector | None = None,
) -> FastDetector:
    net = net or FastDetector()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.1)
    t0 = time.time()
    for step in range(steps):
        xs, ts = zip(*(det_sample(wins, rng, factor) for _ in range(batch)), strict=True)
        x, t = to_tensor(list(xs)), torch.from_numpy(np.stack(ts))
        out = net(x)
        lh = focal(out[:, 0], t[:, 0], pos_weight)
        lsz = box_loss(out[:, 1:7], t[:, 1:7], t[:, 7], BOX_WEIGHT)
        det_step(opt, sched, lh, lsz, step, steps, t0, 100)
    return net


def load_windows(cache: Path | None, extra: Path | None, n: int) -> list[Window]:
    """The first `n` TRAIN windows (seeds [7, i]): from `cache`, then `extra`, rendering the rest."""
    wins: list[Window] = []
    for path in (cache, extra):
        if path and path.is_file() and len(wins) < n:
            wins += pickle.loads(path.read_bytes())
    if len(wins) < n:
        t0 = time.time()
        more = [_render(i) for i in range(len(wins), n)]
        print(f"rendered {len(more)} windows in {time.time() - t0:.0f}s", flush=True)
        if extra:
            old: list[Window] = pickle.loads(extra.read_bytes()) if extra.is_file() else []
            extra.write_bytes(pickle.dumps(old + more))
        wins += more
    return wins[:n]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv, __doc__)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    wins = load_windows(args.cache, args.extra_cache, args.windows)
    print(f"{sum(len(d) for _, d in wins)} dice in {len(wins)} windows of {WINDOW} px", flush=True)
    net = train(
        wins,
        rng,
        args.steps,
        args.batch,
        args.det_factor,
        args.pos_weight,
        FastDetector(args.width, channels=tuple(args.channels)),
    )
    args.out.mkdir(parents=True, exist_ok=True)
    export(net, (1, 3, 320, 320), args.out / "numbered_detector.onnx")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
