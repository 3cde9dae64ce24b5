"""A pip-d6 value net for dice seen at any angle, fine-tuned on REAL crops (issue 46 item 1).

    nice -n 15 .venv/bin/python -m training.d6.real_value crops --out /tmp/real_crops.npz
    OMP_NUM_THREADS=1 nice -n 15 TRAIN_VENV/bin/python -m training.d6.real_value train \
        --crops /tmp/real_crops.npz --out /tmp/real_value [--epochs 12]

The net (``training.numbered.train_backbone.build``: EfficientNet-Lite0's ImageNet weights, stem and
first 11 MBConv blocks, a 256-channel head; 7 outputs: not a die, 1..6) reads the whole die as the
pip reader's detector boxes it (the box and its margin, ``vision.crops.MARGIN``), cut 64 px; it is
written to ``--out`` as ``d6_value_real.onnx`` (Nx3x64x64 BGR / 255 -> Nx7 logits), read by
``DiceReader(value_net=PATH)`` (``vision.value_net``; not shipped: see benchmarks/RESULTS.md,
issue 46 items 1 and 2).

Learnt from, TRAIN only (photos by content group or by the committed photo split, never by frame):

- ``epanemu_d6_oblique`` train content groups (``training.d6.epanemu``: white_table, cloth_groups;
  photos CC BY 4.0, Epanemu/GameDiceRecognition);
- ``byler_d6`` and ``skovy_d6`` train photos (``training.dataset``);
- ``negatives/`` train sources: every detector candidate "not a die".

Each labelled die gives its labelled box (jittered: JITTERS crops) and the detector candidate whose
centre lies in it (the nearest); a candidate in no labelled box is "not a die", a second one in a
box is left out.  Augmentation: the 8 turns and flips, colour-channel shuffles, brightness,
contrast and blur.  Seeded; one torch thread.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SIDE = 64
JITTERS = 4
ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "fixtures" / "real"
OUT_NAME = "d6_value_real.onnx"


Truth = list[tuple[tuple[float, float, float, float], int]]


def match_boxes(
    boxes: list[tuple[float, float, float, float]], centres: list[tuple[float, float]]
) -> list[int | None]:
    """For each labelled box, the reading (centre) matched to it: among those inside the box that no
    earlier box took, the nearest its centre (as benchmarks.harness.match_boxes scores)."""
    used: set[int] = set()
    out: list[int | None] = []
    for x0, y0, x1, y1 in boxes:
        inside = [i for i, (x, y) in enumerate(centres) if i not in used and x0 <= x <= x1 and y0 <= y <= y1]
        if not inside:
            out.append(None)
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        best = min(inside, key=lambda i: (centres[i][0] - cx) ** 2 + (centres[i][1] - cy) ** 2)
        used.add(best)
        out.append(best)
    return out


def photo_crops(
    reader: Any, img: np.ndarray, truth: Truth, rng: np.random.Generator, jitter: int
) -> tuple[np.ndarray, np.ndarray]:
    """(crops N x SIDE x SIDE x 3 uint8, labels N) of one photo (labels: 0 not a die, 1..6)."""
    from vision.crops import MARGIN, Pyramid, crop_die

    pyr = Pyramid(img)
    cands = reader.find(img, pyr)
    m = match_boxes([b for b, _ in truth], [c.center for c in cands]) if truth else []
    label = [0] * len(cands)
    for i, (_, v) in zip(m, truth, strict=True):
        if i is not None:
            label[i] = v
    boxes, labels = [], []
    for j, c in enumerate(cands):
        inside = any(b[0] <= c.center[0] <= b[2] and b[1] <= c.center[1] <= b[3] for b, _ in truth)
        if label[j] == 0 and inside:
            continue
        boxes.append((c.center, c.w, c.h))
        labels.append(label[j])
    for (x0, y0, x1, y1), v in truth:
        w, h = x1 - x0, y1 - y0
        for k in range(jitter):
            s = 1.0 if k == 0 else float(rng.uniform(0.9, 1.15))
            dx, dy = (0.0, 0.0) if k == 0 else rng.uniform(-0.08, 0.08, 2)
            boxes.append((((x0 + x1) / 2 + dx * w, (y0 + y1) / 2 + dy * h), w * s, h * s))
            labels.append(v)
    if not boxes:
        return np.zeros((0, SIDE, SIDE, 3), np.uint8), np.zeros(0, np.int64)
    crops = np.stack([crop_die(pyr, ctr, w * MARGIN, h * MARGIN, size=SIDE) for ctr, w, h in boxes])
    return crops, np.array(labels, np.int64)


def make_crops(real: Path, out: Path) -> None:
    from training.d6 import epanemu
    from training.dataset import is_held_out, load_all, load_no_d6, negative_held_out, read_image
    from vision.reader import DiceReader

    reader = DiceReader()
    rng = np.random.default_rng(46)
    X, Y, S, F = [], [], [], []

    def add(img: np.ndarray, truth: Truth, source: str, fold: int, jitter: int = JITTERS) -> None:
        c, y = photo_crops(reader, img, truth, rng, jitter)
        X.append(c)
        Y.append(y)
        S.extend([source] * len(y))
        F.extend([fold] * len(y))

    photos = epanemu.load(real, "train")
    for p, fold in zip(photos, epanemu.blocks(photos), strict=True):
        add(read_image(p.path), list(p.dice), f"epanemu:{p.group}", fold)
    sets = load_all(real)
    for name in ("byler_d6", "skovy_d6/scenes"):
        for k, item in enumerate(sets[name]):
            if not is_held_out(item.path.name):
                add(read_image(item.path), [(d.box, d.value) for d in item.dice], name, k % 4, 2)
    for k, item in enumerate(sets["skovy_d6/crops"]):
        if not is_held_out(item.path.name):
            img = read_image(item.path)
            h, w = img.shape[:2]
            box = (w * (1 - 1 / 1.2) / 2, h * (1 - 1 / 1.2) / 2, w * (1 + 1 / 1.2) / 2, h * (1 + 1 / 1.2) / 2)
            add(img, [(box, item.dice[0].value)], "skovy_d6/crops", k % 4, 2)
    for k, item in enumerate(load_no_d6(real, "negatives")):
        if not negative_held_out(item.path):
            add(read_image(item.path), [], "negatives", k % 4)
    np.savez_compressed(
        out, x=np.concatenate(X), y=np.concatenate(Y), source=np.array(S), fold=np.array(F, np.int64)
    )
    print(f"{out}: {sum(len(y) for y in Y)} crops; by label {np.bincount(np.concatenate(Y), minlength=7)}")


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """N x S x S x 3 uint8 -> float32 N x 3 x S x S (BGR / 255), augmented."""
    out = np.empty((len(x), 3, SIDE, SIDE), np.float32)
    for i, c in enumerate(x):
        c = np.rot90(c, int(rng.integers(4)))
        if rng.random() < 0.5:
            c = c[:, ::-1]
        c = c[:, :, rng.permutation(3)] if rng.random() < 0.5 else c
        f = c.astype(np.float32) / 255.0
        if rng.random() < 0.2:
            f = 1.0 - f
        f = (f - 0.5) * rng.uniform(0.7, 1.3) + 0.5 + rng.uniform(-0.15, 0.15)
        if rng.random() < 0.3:
            k = float(rng.uniform(0.4, 1.4))
            f = cv2.GaussianBlur(f, (0, 0), k)
        out[i] = np.clip(f, 0, 1).transpose(2, 0, 1)
    return out


def train(crops: Path, out: Path, epochs: int, lr: float, seed: int, exclude_fold: int | None = None) -> None:
    import torch

    from training.numbered.train_backbone import build

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    d = np.load(crops)
    x, y = d["x"], d["y"]
    if exclude_fold is not None:  # a fold kept out of fitting (runs of stems: training.d6.epanemu.blocks)
        keep = d["fold"] != exclude_fold
        x, y = x[keep], y[keep]
    net = build(True, 7)
    for mod in net.frozen():
        for p in mod.parameters():
            p.requires_grad_(False)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    batch = 64
    steps = epochs * math.ceil(len(x) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    counts = np.bincount(y, minlength=7).astype(np.float64)
    weight = torch.tensor((len(y) / (7 * np.maximum(counts, 1))) ** 0.5, dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight, label_smoothing=0.05)
    t0 = time.time()
    step = 0
    for ep in range(epochs):
        net.train()
        for mod in net.frozen():
            mod.eval()
        order = rng.permutation(len(x))
        tot = n = 0.0
        for k in range(0, len(order), batch):
            idx = order[k : k + batch]
            xb = torch.from_numpy(augment(x[idx], rng))
            yb = torch.from_numpy(y[idx])
            loss = loss_fn(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tot += float(loss) * len(idx)
            n += len(idx)
        print(f"epoch {ep + 1}/{epochs} loss {tot / n:.4f} ({time.time() - t0:.0f} s)", flush=True)
    net.eval()
    out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out / "d6_value_real.pt")
    torch.onnx.export(
        net,
        torch.zeros(1, 3, SIDE, SIDE),
        str(out / OUT_NAME),
        input_names=["x"],
        output_names=["y"],
        dynamic_axes={"x": {0: "n"}, "y": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {out / OUT_NAME}")


def calibrate(real: Path, model: Path, fold: int, out: Path, weight: float) -> None:
    """The confidence map fitted on TRAIN photos the net at `model` never fitted on (`fold` of
    ``training.d6.epanemu.blocks`` and of the byler/skovy train photos' k % 4): the readings of
    ``dicetable read`` (PipDice) with that net, uncalibrated; the raw confidence ``c*`` just above
    the surest wrong reading is mapped to the asking threshold (0.8) and the rest linearly
    ([0, c*] -> [0, 0.8], [c*, 1] -> [0.8, 1]), so that none of them would have been scored
    unasked."""
    import json

    from training.d6 import epanemu
    from training.dataset import is_held_out, load_all, read_image
    from vision.numbered.combined import PipDice
    from vision.reader import DiceReader

    reader = PipDice(DiceReader(value_net=model))
    assert reader.pips.value_net is not None  # type: ignore[attr-defined]
    reader.pips.value_net.weight = weight  # type: ignore[attr-defined]
    rows: list[tuple[float, bool, str]] = []

    def run(img: np.ndarray, truth: Truth, source: str) -> None:
        found = reader.read(img)
        m = match_boxes([b for b, _ in truth], [d.center for d in found]) if truth else []
        value_of = {i: v for i, (_, v) in zip(m, truth, strict=True) if i is not None}
        rows.extend((d.confidence, value_of.get(i) == d.value, source) for i, d in enumerate(found))

    photos = epanemu.load(real, "train")
    for p, f in zip(photos, epanemu.blocks(photos), strict=True):
        if f == fold:
            run(read_image(p.path), list(p.dice), f"epanemu:{p.group}")
    sets = load_all(real)
    for name in ("byler_d6", "skovy_d6/scenes"):
        for k, item in enumerate(sets[name]):
            if not is_held_out(item.path.name) and k % 4 == fold:
                run(read_image(item.path), [(d.box, d.value) for d in item.dice], name)
    wrong = sorted(c for c, ok, _ in rows if not ok)
    star = min(0.999, max([0.8, *wrong]) + 0.005)
    knots = [[0.0, 0.0], [1.0, 1.0]] if star <= 0.8 + 0.005 else [[0.0, 0.0], [star, 0.8], [1.0, 1.0]]
    sure = [ok for c, ok, _ in rows if c >= star]
    meta = {
        "weight": weight,
        "knots": knots,
        "fitted_on": f"TRAIN fold {fold} (kept out of the net's fitting): {len(rows)} readings, "
        f"{len(rows) - sum(ok for _, ok, _ in rows)} wrong; "
        f"the surest wrong at {wrong[-1] if wrong else 0:.4f}; "
        f"{len(sure)} readings at or above c* = {star:.4f}, all right",
    }
    out.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))
    by: dict[str, list[int]] = {}
    for c, ok, src in rows:
        t = by.setdefault(src, [0, 0, 0, 0])
        t[0] += 1
        t[1] += ok
        t[2] += c >= 0.8
        t[3] += c >= 0.8 and not ok
    for src, (n, right, sure_n, sure_wrong) in by.items():
        print(f"{src}: {n} readings, {right} right; raw >= 0.8: {sure_n}, {sure_wrong} wrong")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("crops", help="cut the TRAIN crops once")
    c.add_argument("--real", type=Path, default=REAL)
    c.add_argument("--out", type=Path, default=Path("/tmp/real_crops.npz"))
    t = sub.add_parser("train", help="fine-tune and export (torch)")
    t.add_argument("--crops", type=Path, default=Path("/tmp/real_crops.npz"))
    t.add_argument("--out", type=Path, default=Path("/tmp/real_value"))
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--seed", type=int, default=46)
    t.add_argument("--exclude-fold", type=int, help="keep this fold (0-3) out of fitting, for a calibration")
    k = sub.add_parser("calibrate", help="the confidence map, on a TRAIN fold the net never fitted")
    k.add_argument("--real", type=Path, default=REAL)
    k.add_argument("--model", type=Path, required=True, help="a net trained with --exclude-fold FOLD")
    k.add_argument("--fold", type=int, default=3)
    k.add_argument("--weight", type=float, default=0.5, help="the mix's weight (vision.value_net)")
    k.add_argument("--out", type=Path, default=ROOT / "vision" / "models" / "d6_value_real.json")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.cmd == "calibrate":
        calibrate(args.real, args.model, args.fold, args.out, args.weight)
    elif args.cmd == "crops":
        make_crops(args.real, args.out)
    else:
        train(args.crops, args.out, args.epochs, args.lr, args.seed, args.exclude_fold)


if __name__ == "__main__":
    main()
