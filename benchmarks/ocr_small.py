"""The OCR head on small real dice (issue 44 item 4): how often its top value is right on a d20 of
~60 px with motion blur, and how well its confidence tells right from wrong, at several ways of
magnifying the die before the head reads it.

    nice -n 15 .venv/bin/python -m benchmarks.ocr_small --out benchmarks/results/ocr_small.md
    nice -n 15 .venv/bin/python -m benchmarks.ocr_small --variants "as is" "small head"  # before / after
    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.ocr_small --variants "as is" "small head"

Each d20_lurig photo is shown as `benchmarks.roster_read --die-px 60 --blur` shows it (the photo
shrunk so that its die, measured in the first 20 of the set-up's taught photos, is 60 px wide, a 5 px
motion blur at a turn of its own, laid in a 1280x720 frame), read by the numbered reader (kinds d6,
d10, d20, no head), and the reading nearest the frame's middle is the die (its centre and box side as
the head would get them).  The head then reads it as each variant says:

- "as is": `OcrHead.read` on the frame with the wheel's projection (`small_head=None`: a die under
  `ocr.MIN_SIDE` magnified x2 cubic before its crops are cut, `ocr.MAGNIFY`);
- "small head": the same, read with the refitted projection and calibration (`ocr.SMALL_HEAD`, as the
  table reads a small learnt die; made by training/numbered/ocr_small_head.py on the train set-ups);
- "small body": the same, read with the recogniser's last block, layer norm and kept rows fine-tuned
  (`--small-body`, made by training/numbered/ocr_small_body.py on the train set-ups and renders; none
  ships);
- "x2 cubic", "x3 lanczos", ...: the die's surroundings first magnified by that factor and filter;
- "+ sharpen": then an unsharp mask (amount 1, sigma 1 px of the magnified image);
- shares: the head's crop sides as a share of the die's box (SHARES, 0.3 and 0.4, by default).

Per variant and set-up: dice read, the head's top value right, its calibrated confidence's AUC (right
against wrong), the right and wrong at or above 0.8 (the table's asking threshold) and at or above
`reader.LEARNT_OCR_SURE` (0.4: a small learnt die is sure when the set's nearest face and the head so
sure agree), the most right with no wrong above a threshold.

The cost, in the same run: each variant's CPU ms a die (the variants take turns die by die), what
making each head cost once (the small head loads the recogniser with the `onnx` package to expose its
features and checksums it), and a Pi 4's on paper (x3, not measured); run it with OMP_NUM_THREADS=1
(the third command) for one core.

Choices are made on the TRAIN set-ups (d20_off-angle, d20_color) only; d20_top and d20_wood are held
out (reported, never tuned on).  The dice found are cached (``--cache``): cutting them is the slow part.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from benchmarks import harness, roster_read
from benchmarks.harness import REAL, imread
from training.numbered.real import GROUPS, HELD_OUT_GROUPS, load_lurig
from vision.numbered.ocr import REC_FILE, SHARES, SMALL_HEAD, OcrHead, OcrValue, rapidocr_models
from vision.numbered.reader import LEARNT_OCR_SURE
from vision.runtime import file_sha256

#: the die's width in the camera's frame and how far round it is kept (box sides)
DIE_PX = 60
ROI = 2.0
SURE = 0.8
KINDS = ("d6", "d10", "d20")
CACHE = Path("/tmp/ocr_small_dice.npz")
#: the fine-tuned body "small body" reads (training/numbered/ocr_small_body.py fit --write)
SMALL_BODY = Path("/tmp/ocr_small_body.npz")
#: a Pi 4 on paper: this machine's CPU ms times PI (an assumption, not measured)
PI = 3.0


def cut(real: Path, step: int, limit: int | None, measured: int = 20) -> dict[str, np.ndarray]:
    """Each d20_lurig photo's die as the table finds it at DIE_PX with blur: its surroundings (a
    square ROI box sides across), the die's centre in them, its box side, face and set-up."""
    from vision.numbered.reader import NumberedReader

    reader = NumberedReader(ocr=False)
    scene = roster_read.Scene(DIE_PX, True)
    lurig = load_lurig(real)
    rois, centres, sides, faces, groups = [], [], [], [], []
    for group in GROUPS:
        mine = [x for x in lurig if x.group == group]
        taught, _ = roster_read.split(mine, roster_read.ROLLS, 1)
        side_px = roster_read.measure([x.path for x in taught[:measured]])
        mine = mine[::step][:limit]
        for n, x in enumerate(mine):
            photo = imread(x.path)
            frame = scene.frames(photo, side_px, n)[0]
            dice = reader.read(frame, kinds=KINDS)
            die = roster_read.central(dice, scene.centre(), scene.reach(photo, side_px))
            if die is None:
                continue
            q = np.asarray(die.quad, np.float64).reshape(-1, 2)
            side = float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))
            r = math.ceil(ROI * side / 2)
            cx, cy = (round(v) for v in die.center)
            pad = cv2.copyMakeBorder(frame, r, r, r, r, cv2.BORDER_REPLICATE)
            roi = pad[cy : cy + 2 * r + 1, cx : cx + 2 * r + 1]
            rois.append(
                cv2.resize(roi, (192, 192), interpolation=cv2.INTER_AREA) if roi.shape[0] > 192 else roi
            )
            k = rois[-1].shape[0] / roi.shape[0]
            centres.append((die.center[0] - cx + r) * k)
            centres.append((die.center[1] - cy + r) * k)
            sides.append(side * k)
            faces.append(x.face)
            groups.append(group)
    size = max(r.shape[0] for r in rois)
    stack = np.zeros((len(rois), size, size, 3), np.uint8)
    for i, r in enumerate(rois):
        stack[i, : r.shape[0], : r.shape[1]] = r
    return {
        "rois": stack,
        "centres": np.asarray(centres, np.float64).reshape(-1, 2),
        "sides": np.asarray(sides, np.float64),
        "faces": np.asarray(faces, np.int64),
        "groups": np.asarray(groups),
    }


def magnified(roi: np.ndarray, factor: float, flt: str, sharpen: float) -> np.ndarray:
    """``roi`` magnified ``factor`` times with ``flt`` (cubic, lanczos, linear), then unsharp-masked."""
    if factor == 1.0 and not sharpen:
        return roi
    interp = {"cubic": cv2.INTER_CUBIC, "lanczos": cv2.INTER_LANCZOS4, "linear": cv2.INTER_LINEAR}[flt]
    x = roi if factor == 1.0 else cv2.resize(roi, None, fx=factor, fy=factor, interpolation=interp)
    if sharpen:
        soft = cv2.GaussianBlur(x, (0, 0), max(0.5, factor * 0.5))
        x = cv2.addWeighted(x, 1 + sharpen, soft, -sharpen, 0)
    return x


def auc(right: np.ndarray, score: np.ndarray) -> float:
    """The chance a right reading scores above a wrong one (ties half)."""
    pos, neg = score[right], score[~right]
    if not len(pos) or not len(neg):
        return float("nan")
    gt = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(gt / (len(pos) * len(neg)))


#: (factor, filter, sharpen, shares, the small-die refit: "" the wheel's, "head" `ocr.SMALL_HEAD`, "body"
#: `--small-body`): every variant but "small head" and "small body" reads with the wheel's recogniser
VARIANTS: dict[str, tuple[float, str, float, tuple[float, ...], bool]] = {
    "as is": (1.0, "linear", 0.0, SHARES, ""),
    "small head": (1.0, "linear", 0.0, SHARES, "head"),
    "small body": (1.0, "linear", 0.0, SHARES, "body"),
    "x2 cubic": (2.0, "cubic", 0.0, SHARES, ""),
    "x3 cubic": (3.0, "cubic", 0.0, SHARES, ""),
    # the die magnified to ~177 px (all but 1 of the 912 cached dice over 100 px), read by the head the
    # table makes (`OcrHead()`): a die of 100 px or more is read with the wheel's projection through
    # the refit's two-output net (the cost of that net for a large die, against "x3 cubic")
    "x3 cubic, small head": (3.0, "cubic", 0.0, SHARES, "head"),
    "x3 lanczos": (3.0, "lanczos", 0.0, SHARES, ""),
    "x3 lanczos + sharpen": (3.0, "lanczos", 1.0, SHARES, ""),
    "x2 cubic + sharpen": (2.0, "cubic", 1.0, SHARES, ""),
    "as is, shares 0.4 0.5": (1.0, "linear", 0.0, (0.4, 0.5), ""),
    "as is, shares 0.25 0.35": (1.0, "linear", 0.0, (0.25, 0.35), ""),
    "x3 lanczos, shares 0.4 0.5": (3.0, "lanczos", 0.0, (0.4, 0.5), ""),
}
#: a head is made once per (shares, small-die refit)
HeadKey = tuple[tuple[float, ...], str]


def load_heads(
    names: Sequence[str], small_body: Path = SMALL_BODY
) -> tuple[dict[HeadKey, OcrHead], dict[HeadKey, tuple[float, float]]]:
    """The heads the variants read with, each made once, and what making it cost (CPU ms, wall ms):
    the wheel's projection loads the recogniser (onnxruntime); the small head also loads it with the
    `onnx` package to expose its 120 features a step and checksums it (SHA-256) against the refit."""
    import onnxruntime  # noqa: F401  (imported before the clock: the reader has it loaded at a table)

    heads: dict[HeadKey, OcrHead] = {}
    cost: dict[HeadKey, tuple[float, float]] = {}
    for name in names:
        _, _, _, shares, small = VARIANTS[name]
        file = {"head": SMALL_HEAD, "body": small_body}.get(small)
        if small and file is None:
            raise SystemExit(f"variant {name!r}: vision.numbered.ocr.SMALL_HEAD is None (no refit to read)")
        key = (shares, small)
        if key in heads:
            continue
        c0, w0 = time.process_time(), time.perf_counter()
        heads[key] = OcrHead(
            shares=shares,
            small_head=file if small == "head" else None,
            small_body=file if small == "body" else None,
        )
        cost[key] = (1000 * (time.process_time() - c0), 1000 * (time.perf_counter() - w0))
        if (small == "head" and heads[key].small is None) or (small == "body" and heads[key].body is None):
            raise SystemExit(f"variant {name!r}: the small {small} {file} cannot be read here (see the log)")
    return heads, cost


def evaluate(
    data: dict[str, np.ndarray], names: Sequence[str], heads: dict[HeadKey, OcrHead] | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """Each variant's (value, confidence, features, evidence, CPU ms) per die.  The variants read each
    die in turn (the order reversed every other die), so a change of the machine's load falls on all
    of them alike; each head reads the first die once before the clock (its first run's set-up)."""
    heads = heads if heads is not None else load_heads(names)[0]
    cols: dict[str, dict[str, list[object]]] = {
        n: {"value": [], "conf": [], "feats": [], "evidence": [], "ms": []} for n in names
    }
    dice = list(zip(data["rois"], data["centres"], data["sides"], strict=True))
    for name in names:  # warm-up, not timed
        if dice:
            _read(heads, name, *dice[0])
    for i, (roi, c, s) in enumerate(dice):
        for name in names if i % 2 == 0 else list(reversed(names)):
            t0 = time.process_time()
            v = _read(heads, name, roi, c, s)
            ms = 1000 * (time.process_time() - t0)
            col = cols[name]
            col["value"].append(v.value)
            col["conf"].append(v.confidence)
            col["feats"].append(v.features)
            col["evidence"].append(v.evidence)
            col["ms"].append(ms)
    return {n: {k: np.asarray(v) for k, v in col.items()} for n, col in cols.items()}


def _read(heads: dict[HeadKey, OcrHead], name: str, roi: np.ndarray, c: np.ndarray, s: float) -> OcrValue:
    factor, flt, sharpen, shares, small = VARIANTS[name]
    x = magnified(roi, factor, flt, sharpen)
    return heads[(shares, small)].read(x, [((c[0] * factor, c[1] * factor), s * factor, "d20")])[0]


def cost_lines(
    got: dict[str, dict[str, np.ndarray]], load: dict[HeadKey, tuple[float, float]], sha_ms: float
) -> list[str]:
    """Each variant's CPU ms a die (every die, all set-ups), what loading its head cost, and a Pi 4's
    on paper (x3, an assumption, not measured)."""
    rows = []
    for name, g in got.items():
        ms = g["ms"]
        _, _, _, shares, small = VARIANTS[name]
        cpu, wall = load.get((shares, small), (float("nan"), float("nan")))
        rows.append(
            (
                name,
                len(ms),
                f"{np.median(ms):.1f}" if len(ms) else "-",
                f"{np.percentile(ms, 90):.1f}" if len(ms) else "-",
                f"{PI * np.median(ms):.0f}" if len(ms) else "-",
                f"{cpu:.0f} / {wall:.0f}",
            )
        )
    return [
        "### Cost: CPU ms a die on one core (`time.process_time` round each die's read), the variants",
        "taking turns die by die in this one run",
        "",
        *harness.markdown_table(
            (
                "variant",
                "dice",
                "ms a die (median)",
                "p90",
                f"Pi 4 on paper (x{PI:g}, median)",
                "loading its head once: CPU / wall ms",
            ),
            rows,
        ),
        "",
        f"The recogniser's SHA-256 alone (the small head's check at load): {sha_ms:.0f} ms wall.",
    ]


def report(
    data: dict[str, np.ndarray],
    got: dict[str, dict[str, np.ndarray]],
    seconds: float,
    cost: Sequence[str] = (),
) -> str:
    rows = []
    for name, g in got.items():
        for label, groups in (  # held out first
            *[(f"{x} (held out)", [x]) for x in HELD_OUT_GROUPS],
            ("train", [x for x in GROUPS if x not in HELD_OUT_GROUPS]),
        ):
            m = np.isin(data["groups"], groups)
            right = g["value"][m] == data["faces"][m]
            conf = g["conf"][m]
            wrong_top = float(conf[~right].max()) if (~right).any() else 0.0
            learnt_sure = conf >= LEARNT_OCR_SURE
            # the head's evidence among the faces the set-up shows (a learnt die's faces)
            within = 0
            for grp in groups:
                g_m = data["groups"] == grp
                shown = sorted(set(data["faces"][g_m].tolist()))
                ev = g["evidence"][g_m][:, [f - 1 for f in shown]]
                within += int((np.asarray(shown)[ev.argmax(1)] == data["faces"][g_m]).sum())
            rows.append(
                (
                    name,
                    label,
                    int(m.sum()),
                    f"{int(right.sum())} ({100 * right.mean():.1f} %)",
                    f"{auc(right, conf):.3f}",
                    int((right & (conf >= SURE)).sum()),
                    int((~right & (conf >= SURE)).sum()),
                    f"{int((right & learnt_sure).sum())} / {int((~right & learnt_sure).sum())}",
                    int((right & (conf > wrong_top)).sum()),
                    f"{within} ({100 * within / max(1, int(m.sum())):.1f} %)",
                )
            )
    head = (
        "variant",
        "set-ups",
        "dice",
        "top value right",
        "AUC",
        "right >= 0.8",
        "wrong >= 0.8",
        f"right / wrong >= {LEARNT_OCR_SURE} (a small learnt die's)",
        "right above every wrong",
        "right among the set-up's faces",
    )
    lines = [
        "# The OCR head on ~60 px real d20s with motion blur (issue 44 item 4)",
        "",
        harness.run_header(),
        "",
        *harness.markdown_table(head, rows),
        "",
        f"Median box side read: {np.median(data['sides']):.0f} px (of the ROI as cached). {seconds:.0f} s.",
        *(["", *cost] if cost else []),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="the OCR head on small real d20s")
    ap.add_argument("--step", type=int, default=1, help="every n-th photo of a set-up")
    ap.add_argument("--cache", type=Path, default=CACHE, help="the dice found (made when missing)")
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS), help=f"of {list(VARIANTS)}")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="each variant's readings as an .npz too")
    ap.add_argument("--small-body", type=Path, default=SMALL_BODY, help='the refit "small body" reads')
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    bad = [v for v in a.variants if v not in VARIANTS]
    if bad:
        ap.error(f"--variants: unknown {bad}, expected some of {list(VARIANTS)}")
    t0 = time.perf_counter()
    if a.smoke:
        data = cut(REAL, 50, 2, measured=3)
    elif a.cache.is_file():
        data = dict(np.load(a.cache))
    else:
        data = cut(REAL, a.step, None)
        np.savez_compressed(a.cache, **data)
    names = a.variants[:2] if a.smoke else a.variants
    heads, load = load_heads(names, a.small_body)
    w0 = time.perf_counter()
    file_sha256(rapidocr_models() / REC_FILE)
    sha_ms = 1000 * (time.perf_counter() - w0)
    got = evaluate(data, names, heads)
    if a.dump is not None:
        np.savez(a.dump, **{f"{n}|{k}": v for n, g in got.items() for k, v in g.items()})
    harness.write(report(data, got, time.perf_counter() - t0, cost_lines(got, load, sha_ms)) + "\n", a.out)


if __name__ == "__main__":
    main()
