"""Do Blender renders move the REAL held-out d20 figure?  A small, controlled probe.

    nice -n 10 .venv/bin/python -m benchmarks.blender_d20_probe --renders /tmp/blender_d20 --steps 1500

Not the project's reader: one small CNN (48 x 48 crop -> the d20's value, 20 classes) trained from
scratch per condition, same seed, steps, batch and augmentation, so that the only change between
conditions is the training data:

* ``real``: the d20_lurig TRAIN set-ups (d20_color, d20_off-angle: 404 crops, faces 1, 5, 7, 8, 13,
  15, 17 only);
* ``real+blender``: those and the Blender d20 crops of --renders (labels.csv, kind d20);
* ``blender``: the Blender crops alone;
* with ``--where COLUMN=VALUE`` (a labels.csv column, e.g. inked=1, material=opaque), the Blender
  crops are limited to that subset, to see which rendering choices move the figure.

Measured on the held-out set-ups (d20_top, d20_wood: 509 crops, never trained on;
training/numbered/real.py): value right, overall, per set-up, and on the held-out faces that the real
train set-ups never show.  A d20_lurig frame is cropped round its die, found as the largest blob
unlike the frame's border (the labels hold no box).  Writes benchmarks/results/blender_d20_probe.md
(appends one section per run).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.harness import (
    REAL,
    RESULTS,
    add_smoke,
    imread,
    markdown_table,
    run_header,
    shown,
    spaced,
    write,
)
from training.numbered.real import HELD_OUT_GROUPS, load_lurig

SMOKE = (12, 3)  # --smoke: real crops (spaced over the set-ups), training steps; the real condition only
UNSEEN_HEAD = ("faces the real train never shows", "faces it shows")
SIDE = 64  # stored crop side; the net sees a random 48 x 48 view of it
IN = 48


def die_box(img: np.ndarray) -> tuple[float, float, float]:
    """Centre x, y and side of the die in a d20_lurig frame: the largest blob of pixels unlike the
    border's median colour (Lab distance), squared up; the whole frame when none is found."""
    lab = cv2.cvtColor(cv2.GaussianBlur(img, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[:8].reshape(-1, 3), lab[-8:].reshape(-1, 3), lab[:, :8].reshape(-1, 3)])
    dist = np.linalg.norm(lab - np.median(border, 0), axis=2)
    mask = (dist > max(25.0, float(np.percentile(dist, 70)))).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    h, w = img.shape[:2]
    if n <= 1:
        return w / 2, h / 2, float(min(w, h))
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    bw, bh = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
    x0, y0 = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP]
    return x0 + bw / 2, y0 + bh / 2, float(max(bw, bh, 40))


def square(img: np.ndarray, cx: float, cy: float, side: float, out: int = SIDE) -> np.ndarray:
    f = out / side
    m = np.array([[f, 0, out / 2 - f * cx], [0, f, out / 2 - f * cy]], np.float64)
    return cv2.warpAffine(img, m, (out, out), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def load_real(
    real: Path = REAL, limit: int | None = None
) -> tuple[list[tuple[np.ndarray, int, str]], list[tuple[np.ndarray, int, str]]]:
    train, held = [], []
    for item in spaced(load_lurig(real), limit):
        img = imread(item.path)
        cx, cy, side = die_box(img)
        row = (square(img, cx, cy, side), item.face, item.group)
        (held if item.held_out else train).append(row)
    return train, held


def load_blender(folder: Path, where: list[str]) -> list[tuple[np.ndarray, int, str]]:
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise ValueError(
            f"--renders {folder}: no labels.csv (expected training.render.blender.generate output)"
        )
    rows = list(csv.DictReader(labels.open()))
    for cond in where:
        key, _, want = cond.partition("=")
        if rows and key not in rows[0]:
            raise ValueError(f"--where {cond!r}: labels.csv has no column {key!r} (has {sorted(rows[0])})")
        rows = [r for r in rows if r[key] == want]
    out = []
    for r in rows:
        if r["kind"] != "d20":
            continue
        img = cv2.imread(str(folder / r["file"]), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"{folder / r['file']}: not a readable image")
        out.append((cv2.resize(img, (SIDE, SIDE), interpolation=cv2.INTER_AREA), int(r["value"]), "blender"))
    return out


def augment(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Any turn (a die seen from above), scale 0.8-1.15, shift, brightness / contrast, then 48 px."""
    a = float(rng.uniform(0, 360))
    s = float(rng.uniform(0.8, 1.15)) * IN / SIDE
    c = SIDE / 2 + rng.normal(0, 2.0, 2)
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), a, s)
    m[:, 2] += IN / 2 - c
    out = cv2.warpAffine(img, m, (IN, IN), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = out.astype(np.float32) * float(rng.uniform(0.7, 1.3)) + float(rng.uniform(-25, 25))
    return np.clip(out, 0, 255)


def centre(img: np.ndarray) -> np.ndarray:
    return cv2.resize(img, (IN, IN), interpolation=cv2.INTER_AREA).astype(np.float32)


def train_eval(
    data: list[tuple[np.ndarray, int, str]], held: list[tuple[np.ndarray, int, str]], steps: int, seed: int
) -> np.ndarray:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)

    def block(i: int, o: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))

    net = nn.Sequential(
        block(3, 32),
        block(32, 64),
        block(64, 96),
        block(96, 128),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(1152, 20),
    )
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=steps)
    batch = 64
    for _ in range(steps):
        idx = rng.integers(len(data), size=batch)
        x = np.stack([augment(data[i][0], rng) for i in idx]) / 255.0 - 0.5
        y = torch.tensor([data[i][1] - 1 for i in idx])
        loss = nn.functional.cross_entropy(net(torch.tensor(x).permute(0, 3, 1, 2).float()), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    net.eval()
    with torch.no_grad():
        x = np.stack([centre(h[0]) for h in held]) / 255.0 - 0.5
        pred = net(torch.tensor(x).permute(0, 3, 1, 2).float()).argmax(1).numpy() + 1
    return np.asarray(pred)


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--renders", type=Path, help="a training.render.blender.generate output")
    ap.add_argument("--where", nargs="*", default=[], help="labels.csv COLUMN=VALUE filters on the renders")
    ap.add_argument("--conditions", nargs="+", default=["real", "real+blender", "blender"])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--out", type=Path, help=f"append the report here (default {shown(RESULTS / 'blender_d20_probe.md')})"
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.out is None and not args.smoke:
        args.out = RESULTS / "blender_d20_probe.md"
    if args.smoke:
        args.conditions, args.steps = ["real"], SMOKE[1]
    if args.renders is None and any("blender" in c for c in args.conditions):
        ap.error("--renders DIR is needed for the conditions with Blender crops (real+blender, blender)")
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    train, held = load_real(limit=SMOKE[0] if args.smoke else None)
    blender = load_blender(args.renders, args.where) if args.renders is not None else []
    train_faces = {f for _, f, _ in train}
    truth = np.array([f for _, f, _ in held])
    groups = np.array([g for _, _, g in held])
    unseen = np.array([f not in train_faces for f in truth])
    print(f"real train {len(train)}, held out {len(held)}, blender d20 crops {len(blender)}", flush=True)
    rows = []
    for cond in args.conditions:
        data = {"real": train, "real+blender": train + blender, "blender": blender}[cond]
        if not data:
            raise ValueError(f"condition {cond!r}: no training crops (--renders {args.renders} {args.where})")
        t0 = time.monotonic()
        pred = train_eval(data, held, args.steps, args.seed)
        ok = pred == truth
        cells = [f"{100 * ok.mean():.1f} %"]
        cells += [f"{100 * ok[groups == g].mean():.1f} %" for g in HELD_OUT_GROUPS]
        cells += [
            f"{100 * ok[unseen].mean():.1f} % ({int(unseen.sum())})",
            f"{100 * ok[~unseen].mean():.1f} %",
        ]
        rows.append([cond, len(data), *cells])
        print(" | ".join(map(str, rows[-1])), f"({time.monotonic() - t0:.0f} s)", flush=True)
    text = [
        f"\n## Renders {args.renders.name if args.renders else '(none)'}"
        + (f", where {' '.join(args.where)}" if args.where else ""),
        "",
        run_header(argv),
        f"Real held-out: d20_lurig {' + '.join(HELD_OUT_GROUPS)}, {len(held)} crops. Blender d20 crops: "
        f"{len(blender)}. Small CNN from scratch, {args.steps} steps of 64, seed {args.seed}.",
        "",
        *markdown_table(
            ["trained on", "crops", "value right, held out", *HELD_OUT_GROUPS, *UNSEEN_HEAD],
            rows,
        ),
    ]
    write("\n".join(text), None)
    if args.out is None:
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as fh:
        if fh.tell() == 0:
            fh.write(
                "# Blender renders and the real held-out d20 figure (probe)\n\n"
                + __doc__.split("\n\n")[1]
                + "\n"
            )
        fh.write("\n".join(text) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
