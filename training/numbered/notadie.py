"""Train the numbered reader's not-a-die net (vision.numbered.notadie) on the TRAIN splits only.

    nice -n 10 .venv/bin/python -m training.numbered.notadie [--cache /tmp/numbered_notadie.npz]

Issue 20, item 5 ("unknown is not a die"), built as issue 19's training/d6/notadie.py: each example is
what the reader has at a candidate it reads as a die (`NumberedReader.candidates`, reading every
kind, the net off): the whole die and CONTEXT times it round the outline box's centre
(`vision.numbered.notadie.pairs`), and jittered copies (centre, size, any turn, light and colour:
training.numbered.det_samples.photometric).

Positives ("a numbered die"): the candidates on a die of the numbered reader's TRAIN renders
(training.render.numbered.scenes.window, seeds [SEED, i], video frames and stills); on the d20 of
d20_lurig's TRAIN set-ups (d20_color, d20_off-angle: training/numbered/real.py), as close-ups and at
the table's scale, nearer and farther (LURIG_SCALES, as `real.at_table`); on a labelled d6 of the
byler_d6 and skovy_d6 scenes' TRAIN photos (training.dataset.is_held_out).
Negatives (the reader's own phantoms, mined): every candidate on the TRAIN sources of negatives/
(rsandrini desks, opencv_contrib scene text: training.dataset.negative_held_out), at five scales and
mirrored; candidates off every die on the lurig close-ups (a numeral read as a small die), the d6
photos (the tray, the wood floor) and the renders (board art, table); drawn table surfaces (wood
grain, woven cloth, felt, gravel, brick; half with printed words and numbers: `texture`, seeds
[SEED, 2]); random crops of the photos with no die, the drawn surfaces and the d6 photos off their
dice.

Never used: d20_lurig's held-out set-ups (d20_top, d20_wood), d20_desk_scenes (held out whole),
negatives' held-out sources (scikit-image, EasyOCR), the held-out d6 photos and the TEST renders.
A fifth of the train photos and renders (by a hash of the name) is kept out of fitting to set the
threshold: the highest that loses at most `--lose` of those real dice and of those rendered dice
(dice a render window's edge cuts are left out: their crops' edges are smeared), and the doubt
level: the highest that sends at most `--ask` of them to a person.
Seeded (numpy and torch, SEED), one torch thread.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from training.d6.notadie import scaled
from training.dataset import is_held_out, load_byler, load_skovy_scenes, negative_held_out, read_image
from training.numbered.det_samples import photometric
from training.numbered.real import default_root, load_images, load_lurig
from vision.numbered.crop import crop_die
from vision.numbered.labels import KINDS
from vision.numbered.notadie import CONTEXT, DIE, NOTADIE_FILE, SIDE, pairs
from vision.numbered.reader import DET_AREA, MODELS, Found, NumberedReader, still_copies

SEED = 2005
SOURCES = (
    "render die",
    "render off-die",
    "d20 train",
    "d20 numeral",
    "real d6",
    "d6 photo off-die",
    "no-die photo",
    "random crop",
    "texture",
)
POSITIVE = ("render die", "d20 train", "real d6")
Box = tuple[float, float, float, float]


def calib(name: str) -> bool:
    """A fifth of the train photos and renders (by a hash of the name) set the threshold."""
    return int(hashlib.sha1(("numbered-notadie" + name).encode()).hexdigest()[:8], 16) % 5 == 0


class Miner:
    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.reader = NumberedReader(verify=False)
        self.x: list[np.ndarray] = []
        self.src: list[int] = []
        self.calib: list[bool] = []

    def add(self, ex: np.ndarray, src: str, is_calib: bool) -> None:
        self.x.append(ex)
        self.src.append(SOURCES.index(src))
        self.calib.append(is_calib)

    def candidates(
        self, img: np.ndarray, det_area: float | None = None
    ) -> tuple[np.ndarray, list[Found], float]:
        """The work image, the candidates the reader reads as a die of any kind, and the frame's
        scale over the work image's (as NumberedReader.read)."""
        copies = still_copies(img)
        work = copies.work
        found = self.reader.detect(work, det_area=det_area, shrunk=copies.video)
        found = self.reader.locate(work, found)
        probs = self.reader.classify(self.reader.crops(work, found))
        kept = self.reader.candidates(work, found, probs, KINDS)
        return work, [f for f, _, _ in kept], copies.k

    def jittered(self, levels: list[np.ndarray], c: tuple[float, float], side: float) -> np.ndarray:
        rng = self.rng
        c = (c[0] + rng.normal(0, 0.06 * side), c[1] + rng.normal(0, 0.06 * side))
        side *= rng.uniform(0.85, 1.18)
        ang = rng.uniform(0, 360)
        a = crop_die(levels, c, side * DIE, ang, SIDE)
        b = crop_die(levels, c, side * CONTEXT, ang, SIDE)
        return photometric(np.concatenate([a, b], 1), rng)

    def photo(
        self,
        img: np.ndarray,
        boxes: list[Box] | None,
        is_calib: bool,
        pos: str,
        neg: str,
        copies: tuple[int, int] = (2, 2),  # examples of each negative, of each positive
        n_random: int = 0,
        det_area: float | None = None,
        dont_care: list[Box] = (),  # type: ignore[assignment]
    ) -> None:
        """The reader's candidates on `img`, labelled by `boxes` (frame pixels; None: no die on it):
        on a die (centre inside, size within a factor 1.6) `pos`, off every die (and its margin)
        `neg`, else left out (and on or near a `dont_care` box); each with copies[label] - 1 jittered
        copies (none for calibration)."""
        boxes = boxes or []
        work, cands, k = self.candidates(img, det_area)
        wb = [(b[0] / k, b[1] / k, b[2] / k, b[3] / k) for b in boxes]
        skip = [(b[0] / k, b[1] / k, b[2] / k, b[3] / k) for b in dont_care]
        levels = [work]
        keep: list[tuple[Found, str]] = []
        for f in cands:
            x, y = f.box_center
            if any(
                b[0] - 0.3 * (b[2] - b[0]) <= x <= b[2] + 0.3 * (b[2] - b[0])
                and b[1] - 0.3 * (b[3] - b[1]) <= y <= b[3] + 0.3 * (b[3] - b[1])
                for b in skip
            ):
                continue
            on = [b for b in wb if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
            if on:
                b = on[0]
                ratio = max(f.w, f.h) / max(b[2] - b[0], b[3] - b[1], 1.0)
                if 1 / 1.6 <= ratio <= 1.6:
                    keep.append((f, pos))
                elif ratio < 0.4:  # a numeral or a pip of a die read as a die of its own
                    keep.append((f, neg))
                continue
            if any(
                b[0] - 0.3 * (b[2] - b[0]) <= x <= b[2] + 0.3 * (b[2] - b[0])
                and b[1] - 0.3 * (b[3] - b[1]) <= y <= b[3] + 0.3 * (b[3] - b[1])
                for b in wb
            ):
                continue
            keep.append((f, neg))
        if keep:
            for ex, (f, src) in zip(pairs(work, [f for f, _ in keep]), keep, strict=True):
                self.add(ex, src, is_calib)
                if is_calib:
                    continue
                for _ in range(copies[0 if src == neg else 1] - 1):
                    self.add(self.jittered(levels, f.box_center, max(f.w, f.h)), src, False)
        if is_calib:
            return
        hh, ww = work.shape[:2]
        sides = [max(f.w, f.h) for f in cands] or [0.06 * min(hh, ww)]
        for _ in range(n_random):
            side = float(self.rng.choice(sides)) * self.rng.uniform(0.6, 1.6)
            c = (self.rng.uniform(0, ww), self.rng.uniform(0, hh))
            if any(b[0] - side <= c[0] <= b[2] + side and b[1] - side <= c[1] <= b[3] + side for b in wb):
                continue
            self.add(self.jittered(levels, c, side), "random crop", False)

    def arrays(self) -> dict[str, np.ndarray]:
        src = np.array(self.src, np.int8)
        pos = np.isin(src, [SOURCES.index(s) for s in POSITIVE])
        return {
            "x": np.stack(self.x),
            "y": pos.astype(np.int8),
            "src": src,
            "calib": np.array(self.calib, bool),
        }


#: d20_lurig's train crops are read at these scales in a still (real.at_table's is 0.45): a d20 of
#: 60 to 130 pixels of the still, as a table's camera sees one nearer or farther
LURIG_SCALES = (0.3, 0.45, 0.65)


def at_scale(image_bgr: np.ndarray, s: float) -> np.ndarray:
    """`real.at_table` at scale `s`: the crop shrunk by `s` in the middle of a still of its border colour."""
    from training.numbered.real import TABLE_STILL

    small = cv2.resize(image_bgr, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    edge = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    w, h = TABLE_STILL
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = np.median(edge, 0)
    sh, sw = small.shape[:2]
    y0, x0 = (h - sh) // 2, (w - sw) // 2
    frame[y0 : y0 + sh, x0 : x0 + sw] = small
    return frame


def _noise(rng: np.random.Generator, h: int, w: int, octaves: int = 5) -> np.ndarray:
    """Fractal noise in [0, 1], h x w."""
    out = np.zeros((h, w), np.float32)
    for o in range(octaves):
        n = 2 ** (o + 2)
        g = rng.normal(0, 1, (n * h // max(h, w) + 2, n * w // max(h, w) + 2)).astype(np.float32)
        out += np.asarray(cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC), np.float32) / np.float32(
            1.6**o
        )
    out -= out.min()
    return out / max(float(out.max()), 1e-6)


def texture(rng: np.random.Generator, h: int = 480, w: int = 640) -> np.ndarray:
    """A table surface with no die (BGR uint8): wood grain, woven cloth, felt, gravel or stone, in
    random colours; the tables' own surfaces the numbered reader finds dice on."""
    kind = int(rng.integers(5))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    n = _noise(rng, h, w)
    if kind == 0:  # wood: stretched rings bent by noise
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = -xx * np.sin(a) + yy * np.cos(a)
        t = np.sin(rng.uniform(0.05, 0.3) * (v + rng.uniform(10, 60) * n + 0.02 * rng.uniform(0, 1) * u))
        t = 0.5 + 0.35 * t + 0.15 * _noise(rng, h, w, 3)
    elif kind == 1:  # woven cloth: two crossing thread patterns
        f = rng.uniform(0.3, 1.2)
        t = (
            0.5
            + 0.25 * np.sin(f * xx) * np.sign(np.sin(f * yy / 2))
            + 0.25 * np.sin(f * yy) * np.sign(np.sin(f * xx / 2))
        )
        t = 0.7 * t + 0.3 * n
    elif kind == 2:  # felt / plain tray: soft noise and fibres
        t = 0.6 * n + 0.4 * _noise(rng, h, w, 7)
        t = cv2.GaussianBlur(t, (0, 0), rng.uniform(0.5, 2.0))
    elif kind == 3:  # gravel: many small stones
        t = np.full((h, w), rng.uniform(0.2, 0.6), np.float32)
        for _ in range(int(rng.integers(150, 600))):
            c = (int(rng.integers(w)), int(rng.integers(h)))
            ax = (int(rng.integers(3, 18)), int(rng.integers(3, 18)))
            cv2.ellipse(t, c, ax, float(rng.uniform(0, 180)), 0, 360, float(rng.uniform(0, 1)), -1)
        t = 0.8 * cv2.GaussianBlur(t, (0, 0), 1.0) + 0.2 * n
    else:  # stone / brick: blocks with mortar lines
        bw, bh = int(rng.integers(30, 120)), int(rng.integers(15, 60))
        off = (yy // bh % 2) * bw / 2
        mortar = ((xx + off) % bw < 3) | (yy % bh < 3)
        t = np.where(mortar, 0.2, 0.6 + 0.2 * _noise(rng, h, w, 4)).astype(np.float32) + 0.2 * n
    # muted colours, as tables are: each mixed with a grey
    c0 = 0.5 * rng.integers(0, 256, 3) + 0.5 * rng.integers(0, 256)
    c1 = 0.5 * rng.integers(0, 256, 3) + 0.5 * rng.integers(0, 256)
    img = c0[None, None] * (1 - t[..., None]) + c1[None, None] * t[..., None]
    if rng.random() < 0.5:
        img = printed(rng, img)
    img = img + rng.normal(0, rng.uniform(1, 5), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))


FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)
CHARS = "0123456789ABCDEFGHJKLMNPRSTUVWXYZabdeghnrstuy%&.-"


def printed(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Words and numbers printed on a surface (a card, a sign, a board's text): numerals that are not
    on a die, the numbered reader's commonest phantom."""
    h, w = img.shape[:2]
    out = np.ascontiguousarray(img, np.float32)
    layer = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(3, 25))):
        text = "".join(CHARS[int(i)] for i in rng.integers(0, len(CHARS), int(rng.integers(1, 8))))
        scale = float(rng.uniform(0.6, 4.0))
        cv2.putText(
            layer,
            text,
            (int(rng.integers(-20, w)), int(rng.integers(10, h + 20))),
            FONTS[int(rng.integers(len(FONTS)))],
            scale,
            255,
            max(1, int(scale * rng.uniform(0.8, 3))),
            cv2.LINE_AA,
        )
    a = cv2.warpAffine(
        layer, cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-40, 40)), 1.0), (w, h)
    )
    ink = rng.integers(0, 256, 3) if rng.random() < 0.5 else np.full(3, float(rng.integers(0, 60)))
    k = a.astype(np.float32)[..., None] / 255.0
    return out * (1 - k) + ink[None, None].astype(np.float32) * k


def render_window(i: int) -> tuple[np.ndarray, list[Box], list[Box], float]:
    """A TRAIN render (seeds [SEED, i]): a 384 px window of a video frame, or of a still (every third);
    its dice wholly inside it, the dice its edge cuts (neither die nor not: a crop of a cut die has
    its edge smeared), and the detector's share of the frame's pixels."""
    from training.render.numbered.scenes import window

    scale = 2.7 if i % 3 == 2 else 1.0
    img, truth = window(np.random.default_rng([SEED, i]), 384, scale)
    boxes: list[Box] = [tuple(float(v) for v in d["box_px"]) for d in truth]  # type: ignore[misc]
    inside = [b for b in boxes if b[0] >= 0 and b[1] >= 0 and b[2] <= 384 and b[3] <= 384]
    cut = [b for b in boxes if b not in inside]
    # the detector's share of the frame's pixels (the reader sees a whole frame at DET_AREA)
    area = DET_AREA * 384 * 384 / (1280 * 960 * scale * scale)
    return img, inside, cut, area


def log(m: Miner, what: str, t: float) -> None:
    print(f"{what}: {len(m.x)} examples ({time.time() - t:.0f} s)", flush=True)


def mine(real: Path, renders: int, textures: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    m = Miner(rng)
    t = time.time()
    for i in range(renders):
        img, boxes, cut, area = render_window(i)
        m.photo(
            img,
            boxes,
            calib(f"render{i}"),
            "render die",
            "render off-die",
            (2, 2),
            det_area=area,
            dont_care=cut,
        )
    log(m, f"{renders} renders", t)
    for x in load_lurig(real):
        if x.held_out:
            continue
        img, c = read_image(x.path), calib(x.path.name)
        h, w = img.shape[:2]
        # the die fills the crop's middle: its box is the centre share the benchmark scores
        box = (0.2 * w, 0.2 * h, 0.8 * w, 0.8 * h)
        m.photo(img, [box], c, "d20 train", "d20 numeral", (2, 2))
        for s in LURIG_SCALES:
            frame = at_scale(img, s)
            fh, fw = frame.shape[:2]
            x0, y0 = (fw - w * s) / 2, (fh - h * s) / 2
            sbox = (x0 + box[0] * s, y0 + box[1] * s, x0 + box[2] * s, y0 + box[3] * s)
            m.photo(frame, [sbox], c, "d20 train", "d20 numeral", (2, 3))
    log(m, "+ d20_lurig train set-ups", t)
    for item in load_byler(real) + load_skovy_scenes(real):
        if is_held_out(item.path.name):
            continue
        m.photo(
            read_image(item.path),
            [d.box for d in item.dice],
            calib(item.path.name),
            "real d6",
            "d6 photo off-die",
            (2, 2),
            n_random=8,
        )
    log(m, "+ d6 photos", t)
    for path in load_images(real, "negatives"):
        if negative_held_out(path):
            continue
        img, c = read_image(path), calib(path.name)
        for k in (0.5, 0.75, 1.0, 1.5, 2.0):
            for flip in (False, True):
                if c and (k != 1.0 or flip):
                    continue
                m.photo(
                    scaled(img, k, flip), None, c, "real d6", "no-die photo", (4, 2), n_random=0 if c else 10
                )
    log(m, "+ negatives' train sources", t)
    tex = np.random.default_rng([SEED, 2])
    for i in range(textures):
        h, w = (480, 640) if i % 2 else (960, 1280)
        m.photo(texture(tex, h, w), None, calib(f"texture{i}"), "real d6", "texture", (3, 2), n_random=4)
    log(m, f"+ {textures} textures", t)
    return m.arrays()


def tally(data: dict[str, np.ndarray]) -> None:
    for i, name in enumerate(SOURCES):
        sel = data["src"] == i
        if sel.any():
            print(
                f"  {name:18s} {int(sel.sum()):6d} examples ({int((sel & data['calib']).sum())} calibration)"
            )


def to_input(x: Any) -> Any:
    """N x S x 2S x 3 uint8 (die | context) as the net's N x 6 x S x S float input (BGR / 255)."""
    import torch

    x = x.permute(0, 3, 1, 2).float() / 255.0
    side = x.shape[2]
    return torch.cat([x[..., :side], x[..., side:]], 1)


def train(data: dict[str, np.ndarray], epochs: int, batch: int) -> Any:
    import torch
    from torch import nn

    from training.nets import NotADie

    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    fit = ~data["calib"]
    x = torch.from_numpy(data["x"][fit])
    y = torch.from_numpy(data["y"][fit].astype(np.float32))
    w_pos = float((1 - y).sum()) / max(float(y.sum()), 1.0)
    net = NotADie()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    steps = epochs * math.ceil(len(y) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(w_pos))
    gen = torch.Generator().manual_seed(SEED)
    t = time.time()
    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), batch):
            idx = order[i : i + batch]
            xb = to_input(x[idx])
            # a die is a die at any quarter turn and mirrored: the same change on both crops
            xb = torch.rot90(xb, int(torch.randint(4, (1,), generator=gen)), (2, 3))
            if int(torch.randint(2, (1,), generator=gen)):
                xb = torch.flip(xb, (3,))
            loss = loss_fn(net(xb).squeeze(1), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        print(f"epoch {ep + 1}/{epochs}: loss {total / len(y):.4f} ({time.time() - t:.0f} s)", flush=True)
    net.eval()
    return net


def scores(net: Any, x: np.ndarray) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(x), 512):
            out.append(torch.sigmoid(net(to_input(torch.from_numpy(x[i : i + 512]))).squeeze(1)).numpy())
    return np.concatenate(out) if out else np.zeros(0)


def threshold_for(s: np.ndarray, src: np.ndarray, lose: float) -> float:
    """The highest threshold that keeps all but `lose` of each positive source's calibration dice."""
    out = 1.0
    for name in POSITIVE:
        pos = np.sort(s[src == SOURCES.index(name)])
        if len(pos):
            out = min(out, float(pos[int(lose * len(pos))]) - 1e-6)
    return max(out, 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=default_root())
    ap.add_argument("--cache", type=Path, help="keep the mined examples in this .npz (outside the repo)")
    ap.add_argument("--out-dir", type=Path, default=MODELS)
    ap.add_argument("--renders", type=int, default=900, help="TRAIN render windows (seeds [SEED, i])")
    ap.add_argument("--textures", type=int, default=400, help="drawn table surfaces (seeds [SEED, 2])")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument(
        "--lose", type=float, default=0.005, help="share of calibration dice the threshold may lose"
    )
    ap.add_argument(
        "--ask",
        type=float,
        default=0.02,
        help="share of each positive source's calibration dice the doubt level may send to a person",
    )
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.cache and args.cache.is_file():
        data = dict(np.load(args.cache))
    else:
        data = mine(args.real, args.renders, args.textures)
        if args.cache:
            np.savez(args.cache, x=data["x"], y=data["y"], src=data["src"], calib=data["calib"])
    tally(data)
    net = train(data, args.epochs, args.batch)
    cal = data["calib"]
    s = scores(net, data["x"][cal])
    src = data["src"][cal]
    threshold = threshold_for(s, src, args.lose)
    # under `doubt` a reading is read no surer than the net's score (the table asks about it)
    doubt = max(threshold, threshold_for(s, src, args.ask))
    print(
        f"threshold {threshold:.4f} (loses at most {args.lose:.1%} of each positive source's "
        "calibration dice)"
    )
    print(f"doubt {doubt:.4f} (asks about at most {args.ask:.1%} of each positive source's calibration dice)")
    for i, name in enumerate(SOURCES):
        sel = src == i
        if sel.any():
            kept = int((s[sel] >= threshold).sum())
            label = "die" if name in POSITIVE else "not a die"
            print(f"  calibration {name:18s}: {kept}/{int(sel.sum())} kept ({label})")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out_dir / NOTADIE_FILE
    import torch

    torch.onnx.export(
        net,
        (torch.zeros(1, 6, SIDE, SIDE),),
        str(onnx_path),
        input_names=["x"],
        output_names=["y"],
        dynamic_axes={"x": {0: "n"}, "y": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    meta = {
        "threshold": round(threshold, 6),
        "doubt": round(doubt, 6),
        "die": DIE,
        "context": CONTEXT,
        "side": SIDE,
        "seed": SEED,
        "renders": args.renders,
        "textures": args.textures,
        "epochs": args.epochs,
        "lose": args.lose,
        "ask": args.ask,
        "made_by": "nice -n 10 .venv/bin/python -m training.numbered.notadie (TRAIN splits only)",
    }
    onnx_path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size} bytes) and its .json")


if __name__ == "__main__":
    main()
