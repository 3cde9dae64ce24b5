"""A per-die reader on the OCR recogniser's own features (issue 44): does it lift a taught d20?

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.die_head \\
        --out benchmarks/results/die_head.md                   # seed 44 (tuned on) and 45 (untouched)

The idea: the learnt set matches the table's own die by a generic image embedding that tells numerals
apart poorly (34 % of the rendered later throws right from the top face); the OCR head reads ~63 %.
The recogniser's internal features are made for numerals: at `confirm` time (the taught crops, named)
fit a tiny per-die reader on them, and at read time combine its scores with the head's evidence (and
the set's likeness).  Measured first on cached crops, before any wiring.

Per roll (the RENDERED 20-face d20 of `benchmarks.learnt_render20`, the camera's true view stated:
tilt 45, nadir 90, lens 1.4286; each die's outline settled round its rendered box against the empty
table, `die_crop.settle`, as the reader does):

- the head's views of the top face as the CLI's head cuts them (`die_crop.TopFaces`, the small die
  magnified, 2 shares x 12 turns = 24 crops), and for each view the recogniser's per-step features
  (6 steps x 120: the tensor its last projection reads, `ocr.FEATURES`) and each d20 value's CTC
  probability (`ocr.ctc_scores`); the head's evidence and calibrated confidence (`OcrHead.value`);
- the set's crop (`die_crop.die_crop` on the top face, the crop `learn-dice see --config` keeps) and
  its embedding at 12 turns and pixels, for the learnt set's likeness (`DiceSet.per_face`, as `read`
  matches a small die: the embedding mixed with the pixels' template).

The ways (each a score over the 20 faces; its face the argmax; sure when the softmax of its scores is
at least the way's own threshold, the least on seed 44 with at most 1 sure wrong of 200):

- the head alone: ln(evidence);
- the set alone: likeness to each face's nearest taught crop (x SET_SCALE);
- today's combination: likeness + LEARNT_SMALL_WEIGHT ln(evidence), as `reader.learnt_face`;
- the per-die reader (`DieHead`): each taught roll's 24 views' features kept; a throw's likeness to a
  taught roll is the mean cosine of its views to the roll's views at the best cyclic shift of the 12
  turns (the die turned on the table turns its views), a face's the best of its rolls; combined as
  ln(evidence) + w x likeness x scale.

Figures: top-1, value right / read unasked / silent per 200.  Seed 44 (/tmp/dicetable-render20) was
the one looked at; seed 45 (/tmp/dicetable-render20-s45) is reported untouched.  RENDERS, not photos.
``--real`` adds the REAL d20_lurig 60 px dice (/tmp/ocr_small_dice.npz: `benchmarks.ocr_small`'s dice).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import harness
from benchmarks.harness import markdown_table, share

SEEDS = {
    "seed 44 (tuned on)": Path("/tmp/dicetable-render20"),
    "seed 45 (untouched)": Path("/tmp/dicetable-render20-s45"),
}
CACHE = Path(tempfile.gettempdir()) / "dicetable-die-head"
TILT, NADIR, FOCAL = 45.0, 90.0, 1.4286
FACES = tuple(range(1, 21))


def head_views(head: Any, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(views x T x 15 per-step probabilities as `OcrHead.steps` gives a small die's, views x T x 120
    features) of a small die's crops."""
    from vision.numbered.ocr import SIDE

    x = np.empty((len(crops), 3, SIDE, SIDE), np.float32)
    np.multiply(crops.transpose(0, 3, 1, 2), np.float32(2 / 255), out=x, casting="unsafe")
    x -= 1.0
    if head.small is None:
        raise SystemExit("the OCR head has no small head: its features are not exposed")
    p, feats = head.small.net.both(x)
    cols = head._cols
    kept = p[:, :, cols]
    rest = np.clip(1.0 - kept.sum(2, keepdims=True), 0.0, 1.0)
    steps = head.small.adjust(np.concatenate([kept, rest], 2), feats)
    return steps, np.asarray(feats, np.float32)


def collect(folder: Path, cache: Path, limit: int | None = None) -> dict[str, Any]:
    """Each rendered roll's head views (features, per-view value scores), head reading and set crop,
    cached in ``cache`` (a run with ``limit`` is never cached)."""
    mine = cache / f"{folder.name}.npz"
    if limit is None and mine.exists():
        with np.load(mine, allow_pickle=False) as z:
            return {k: np.asarray(z[k]) for k in z.files}
    from benchmarks.harness import imread
    from vision.numbered.die_crop import TopFaces, die_crop, settle
    from vision.numbered.ocr import ctc_scores
    from vision.numbered.reader import default_reader
    from vision.oblique import Tilt, resting_top

    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    empty = imread(folder / truth["empty"])
    reader = default_reader()
    head = reader.ocr
    if head is None:
        raise SystemExit("the numbered reader has no OCR head to read with")
    tilt = Tilt(TILT, NADIR, FOCAL)
    tops = TopFaces(tilt)
    rolls = truth["rolls"]
    if limit is not None:
        rolls = [r for r in rolls if r["part"] == "learn"][: 2 * limit] + [
            r for r in rolls if r["part"] == "later"
        ][:limit]
    keep: dict[str, list[Any]] = {
        k: [] for k in ("value", "learn", "feats", "scores", "evidence", "conf", "crop")
    }
    ms: list[float] = []
    for r in rolls:
        img = imread(folder / r["file"])
        found = settle(img, (float(r["centre"][0]), float(r["centre"][1])), float(r["side_px"]), empty)
        view = tilt.view(int(img.shape[1]), int(img.shape[0]))
        top = None if found is None else resting_top(view, found[0], found[1], "d20", 0.65)
        if found is None or top is None:
            continue
        longer = float(found[1])
        t0 = time.process_time()
        tops.remember(img, top[0], found)
        warped = tops(img, top[0], longer, "d20")
        assert warped is not None
        crops = head.small_crops(warped[0], warped[1], longer)
        steps, feats = head_views(head, crops)
        got = head.value("d20", steps, small=True)
        ms.append(1000 * (time.process_time() - t0))
        keep["value"].append(int(r["value"]))
        keep["learn"].append(r["part"] == "learn")
        keep["feats"].append(feats.astype(np.float16))
        keep["scores"].append(ctc_scores(steps, *head._labels["d20"]).astype(np.float32))
        keep["evidence"].append(np.asarray(got.evidence, np.float32))
        keep["conf"].append(float(got.confidence))
        keep["crop"].append(
            die_crop(img, tuple(r["centre"]), float(r["side_px"]), empty, view=view, kind="d20")
        )
    out = {k: np.asarray(v) for k, v in keep.items()}
    out["ms"] = np.asarray(ms, np.float32)
    emb = reader.embedder()
    from vision.numbered.embed import TURNS
    from vision.numbered.template import pixels_of

    out["turned"] = emb.embed(list(out["crop"]), TURNS)
    out["pixels"] = np.stack([pixels_of(c) for c in out["crop"]])
    if limit is None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(mine, **out)
    return out


#: the floor under the head's evidence (as `reader.EVIDENCE_FLOOR`)
FLOOR = 1e-3
#: the per-die reader's weight beside ln(evidence) (chosen on seed 44's teaching rolls, each read by
#: the others: leave one roll out)
WEIGHTS = (5.0, 10.0, 20.0, 40.0)
#: the learnt set's weight of ln(evidence) in today's combination (`ocr.LEARNT_SMALL_WEIGHT`)
TODAY_WEIGHT = 0.02
#: the set's likeness beside ln(evidence) and the per-die reader (a near-copy of a taught crop, as the
#: real proxy reads, is the set's strength): the shipped `die_head.SET_WEIGHT`
SET_WEIGHT = 25.0


def taught_mask(values: np.ndarray, learn: np.ndarray, per: int) -> np.ndarray:
    """The first ``per`` teaching rolls of each face."""
    seen: dict[int, int] = {}
    out = np.zeros(len(values), bool)
    for i in np.where(learn)[0]:
        seen[int(values[i])] = seen.get(int(values[i]), 0) + 1
        out[i] = seen[int(values[i])] <= per
    return out


def set_likeness(data: dict[str, Any], taught: np.ndarray, read: np.ndarray) -> np.ndarray:
    """R x 20: the learnt set's likeness of each read roll to each face (`DiceSet.per_face` as `read`
    matches a small die of a set that keeps pixels); -1 for a face not taught."""
    from vision.numbered import template
    from vision.numbered.learnt import DiceSet

    dice = DiceSet(
        "die",
        "d20",
        "blue",
        "",
        data["value"][taught],
        data["turned"][taught][:, 0],
        crop="die",
        pixels=data["pixels"][taught],
    )
    crops = list(data["crop"][read])
    turned = {
        "die": data["turned"][read],
        "pixels": template.turned(crops),
        "small": np.ones(len(crops), bool),
    }
    got = dice.per_face(turned)
    out = np.full((len(crops), 20), -1.0)
    for j, f in enumerate(dice.faces):
        out[:, f - 1] = got[:, j]
    return out


def die_likeness(data: dict[str, Any], taught: np.ndarray, read: np.ndarray, loo: bool = False) -> np.ndarray:
    """R x 20: the per-die reader's likeness (`DieHead`) fitted on ``taught``; ``loo``: ``read`` is
    ``taught`` and each roll is read by the others only."""
    from vision.numbered.die_head import DieHead, pooled

    feats = pooled(data["feats"])
    head = DieHead.fit(data["value"][taught], feats[taught])
    if not loo:
        return np.asarray(head.likeness(feats[read], FACES), np.float64)
    rolls = head.rolls(feats[read])
    np.fill_diagonal(rolls, -np.inf)
    out = np.full((len(rolls), 20), -1.0)
    for f in FACES:
        m = head.values == f
        if m.any():
            out[:, f - 1] = np.maximum(rolls[:, m].max(1), -1.0)
    return out


def margins(score: np.ndarray) -> np.ndarray:
    o = np.sort(score, 1)
    if o.shape[1] < 2:  # one face: nothing to tell it from
        return np.full(len(o), np.inf)
    return np.asarray(o[:, -1] - o[:, -2])


def least_margin(score: np.ndarray, truth: np.ndarray, silent: int = 1) -> float:
    """The least margin (top score over the runner-up) at which at most ``silent`` wrong readings
    are that sure."""
    return least_of(margins(score), np.argmax(score, 1) + 1 == truth, silent)


def least_of(margin: np.ndarray, ok: np.ndarray, silent: int = 1) -> float:
    """`least_margin` of readings' margins and whether each is right."""
    wrong = np.sort(margin[~ok])[::-1]
    return float(wrong[silent]) + 1e-9 if len(wrong) > silent else 0.0


def tally(score: np.ndarray, truth: np.ndarray, margin: float) -> tuple[int, int, int, int]:
    """(rolls, right, read unasked: right at ``margin``, silent: wrong at it)."""
    ok = np.argmax(score, 1) + 1 == truth
    sure = margins(score) >= margin
    return len(truth), int(ok.sum()), int((ok & sure).sum()), int((~ok & sure).sum())


def figures(count: int, right: int, unasked: int, silent: int) -> str:
    """value right / read unasked / silent per 200."""
    return f"{share(right, count, 1)} / {share(unasked, count, 1)} / {200 * silent / max(1, count):.1f}"


def ways(data: dict[str, Any], per: int, w: float) -> dict[str, np.ndarray]:
    """Each way's score of the later throws (R x 20)."""
    later = ~data["learn"].astype(bool)
    taught = taught_mask(data["value"], data["learn"].astype(bool), per)
    head = np.log(data["evidence"][later].astype(np.float64) + FLOOR)
    like = set_likeness(data, taught, later)
    die = die_likeness(data, taught, later)
    return {
        "the head alone": head,
        "the set alone": like,
        "today: the set + 0.02 ln(evidence)": like + TODAY_WEIGHT * head,
        "the per-die reader alone": die,
        f"the head + {w:g} x the per-die reader": head + w * die,
        f"today + {w:g} x the per-die reader": like + TODAY_WEIGHT * head + TODAY_WEIGHT * w * die,
        f"{SET_WEIGHT:g} x the set + the head + {w:g} x the per-die reader": SET_WEIGHT * like
        + head
        + w * die,
    }


def loo_choice(data: dict[str, Any], per: int) -> tuple[float, list[list[Any]]]:
    """The weight of the per-die reader chosen on the teaching rolls, each read by the others."""
    learn = data["learn"].astype(bool)
    taught = taught_mask(data["value"], learn, per)
    truth = data["value"][taught]
    head = np.log(data["evidence"][taught].astype(np.float64) + FLOOR)
    die = die_likeness(data, taught, taught, loo=True)
    rows: list[list[Any]] = [["the head alone", int((np.argmax(head, 1) + 1 == truth).sum())]]
    rows.append(["the per-die reader alone", int((np.argmax(die, 1) + 1 == truth).sum())])
    best, most = WEIGHTS[0], -1
    for w in WEIGHTS:
        right = int((np.argmax(head + w * die, 1) + 1 == truth).sum())
        rows.append([f"the head + {w:g} x the per-die reader", right])
        if right > most:
            best, most = w, right
    return best, [[r[0], f"{r[1]} of {len(truth)}"] for r in rows]


#: the REAL d20_lurig dice at 60 px with blur as `benchmarks.ocr_small` cuts them (its cache)
REAL_DICE = Path("/tmp/ocr_small_dice.npz")
TRAIN, HELD_OUT = ("d20_off-angle", "d20_color"), ("d20_top", "d20_wood")


def collect_real(cache: Path, limit: int | None = None) -> dict[str, Any]:
    """The head's views (features, evidence) of each REAL 60 px d20_lurig die of `benchmarks.ocr_small`'s
    cache (read at the die's centre as the table reads it with no view stated), cached in ``cache``."""
    mine = cache / "real.npz"
    if limit is None and mine.exists():
        with np.load(mine, allow_pickle=False) as z:
            return {k: np.asarray(z[k]) for k in z.files}
    if not REAL_DICE.exists():
        raise SystemExit(f"{REAL_DICE}: missing (run benchmarks.ocr_small once: it cuts the real dice)")
    from vision.numbered.ocr import MIN_SIDE
    from vision.numbered.reader import default_reader

    head = default_reader().ocr
    if head is None:
        raise SystemExit("the numbered reader has no OCR head to read with")
    with np.load(REAL_DICE, allow_pickle=False) as z:
        dice = {k: np.asarray(z[k]) for k in ("rois", "centres", "sides", "faces", "groups")}
    n = len(dice["faces"]) if limit is None else limit
    feats, evidence = [], []
    for i in range(n):
        side = float(dice["sides"][i])
        if side >= MIN_SIDE:
            raise SystemExit(
                f"{REAL_DICE}: die {i} is {side:.0f} px (expected a small die under {MIN_SIDE:.0f})"
            )
        crops = head.small_crops(dice["rois"][i], tuple(dice["centres"][i]), side)
        steps, f = head_views(head, crops)
        feats.append(f.astype(np.float16))
        evidence.append(np.asarray(head.value("d20", steps, small=True).evidence, np.float32))
    out = {
        "value": dice["faces"][:n],
        "group": dice["groups"][:n],
        "feats": np.asarray(feats),
        "evidence": np.asarray(evidence),
    }
    if limit is None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(mine, **out)
    return out


def real_split(data: dict[str, Any], group: str, per: int) -> tuple[np.ndarray, np.ndarray]:
    """(taught, read) of one set-up: each face's clip (one a face), ``per`` frames spread over its
    first half taught, its second half read (near-copies of the taught frames: one clip a face)."""
    taught = np.zeros(len(data["value"]), bool)
    read = np.zeros(len(data["value"]), bool)
    for f in sorted(set(data["value"][data["group"] == group].tolist())):
        idx = np.where((data["group"] == group) & (data["value"] == f))[0]
        half = len(idx) // 2
        taught[idx[np.linspace(0, half - 1, per).round().astype(int)]] = True
        read[idx[half:]] = True
    return taught, read


def real_rows(data: dict[str, Any], per: int, w: float) -> list[list[Any]]:
    """Per set-up: the head alone and + ``w`` x the per-die reader among the set-up's faces, the
    margins chosen on the TRAIN set-ups (at most 1 sure wrong in 200)."""
    scored: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for group in (*TRAIN, *HELD_OUT):
        if not (data["group"] == group).any():
            continue
        taught, read = real_split(data, group, per)
        faces = sorted(set(data["value"][taught].tolist()))
        cols = [f - 1 for f in faces]
        head = np.log(data["evidence"][read][:, cols].astype(np.float64) + FLOOR)
        die = die_likeness(data, taught, read)[:, cols]
        truth = np.searchsorted(faces, data["value"][read]) + 1  # 1-based index among the faces
        scored[group] = (head, die, truth)
    rows: list[list[Any]] = []
    for label, mix in (("the head alone", 0.0), (f"the head + {w:g} x the per-die reader", w)):
        train = [g for g in TRAIN if g in scored]
        if not train:
            continue
        both = [scored[g][0] + mix * scored[g][1] for g in train]
        ok = np.concatenate([np.argmax(b, 1) + 1 == scored[g][2] for b, g in zip(both, train, strict=True)])
        m = least_of(np.concatenate([margins(b) for b in both]), ok, len(ok) // 200)
        row: list[Any] = [label, f"{m:.3g}"]
        for g in (*TRAIN, *HELD_OUT):
            if g in scored:
                count, right, unasked, silent = tally(scored[g][0] + mix * scored[g][1], scored[g][2], m)
                row.append(figures(count, right, unasked, silent))
            else:
                row.append("-")
        rows.append(row)
    return rows


def cost(data: dict[str, Any], per: int) -> tuple[float, float]:
    """(ms to fit the per-die reader on the taught rolls, ms to score one die) on this core, the
    features given (the head's own pass is `collect`'s ``ms``)."""
    from vision.numbered.die_head import DieHead, pooled

    feats = pooled(data["feats"])
    taught = taught_mask(data["value"], data["learn"].astype(bool), per)
    t0 = time.process_time()
    head = DieHead.fit(data["value"][taught], feats[taught])
    fit = 1000 * (time.process_time() - t0)
    later = np.where(~data["learn"].astype(bool))[0]
    t0 = time.process_time()
    for i in later:
        head.likeness(feats[i : i + 1], FACES)
    return fit, 1000 * (time.process_time() - t0) / max(1, len(later))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="a per-die reader on the OCR recogniser's features (issue 44)")
    ap.add_argument(
        "--frames", type=Path, nargs="*", default=None, help="render folders: tuned, then untouched"
    )
    ap.add_argument("--per", type=int, nargs="+", default=[5, 4], help="teaching rolls a face")
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--collect-only", action="store_true")
    ap.add_argument(
        "--real", action="store_true", help="also the REAL d20_lurig dice (benchmarks.ocr_small's cache)"
    )
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    folders = {str(f): f for f in a.frames} if a.frames else SEEDS
    datas = {}
    for name, folder in folders.items():
        if not (folder / "truth.json").exists():
            print(f"{name}: no renders at {folder} (benchmarks.learnt_render20 says how to make them)")
            continue
        datas[name] = collect(folder, a.cache, 3 if a.smoke else None)
    real = collect_real(a.cache, 12 if a.smoke else None) if a.real else None
    if a.collect_only or not datas:
        return
    names = list(datas)
    texts: list[str] = []
    for per in a.per[:1] if a.smoke else a.per:
        tuned = datas[names[0]]
        w, loo = loo_choice(tuned, per)
        texts += [
            "",
            f"### {per} teaching rolls a face: the per-die reader's weight, chosen on {names[0]}'s teaching "
            "rolls, each read by the others (leave one roll out)",
            "",
            *markdown_table(["way", "teaching rolls read right"], loo),
            "",
            f"Chosen: {w:g}.",
        ]
        scored = {n: ways(d, per, w) for n, d in datas.items()}
        later = {n: d["value"][~d["learn"].astype(bool)] for n, d in datas.items()}
        rows = []
        for way, score in scored[names[0]].items():
            m = least_margin(score, later[names[0]])
            row: list[Any] = [way, f"{m:.3g}"]
            for n in names:
                count, right, unasked, silent = tally(scored[n][way], later[n], m)
                row.append(figures(count, right, unasked, silent))
            rows.append(row)
        fit, ms = cost(tuned, per)
        n_taught = int(taught_mask(tuned["value"], tuned["learn"].astype(bool), per).sum())
        texts += [
            "",
            f"Later throws, value right / read unasked / silent per 200 (sure: the margin over the runner-up "
            f"at least the way's own, the least on {names[0]} with at most 1 sure wrong):",
            "",
            *markdown_table(["way", "margin", *names], rows),
            "",
            f"Cost on one core: the head's pass with its features {float(np.median(tuned['ms'])):.1f} ms "
            f"a die (median; the features come with it); fitting the per-die reader on {n_taught} "
            f"taught rolls {fit:.1f} ms; scoring a die {ms:.2f} ms.",
        ]
        if real is not None:
            texts += [
                "",
                "REAL d20_lurig at 60 px with blur (`benchmarks.ocr_small`'s dice, the head at the die's "
                f"centre, no view), {per} frames of each face's clip's first half taught, its second half "
                "read (NEAR-COPIES of the taught frames: one clip a face); among the set-up's faces; the "
                "margin chosen on the TRAIN set-ups; value right / read unasked / silent per 200:",
                "",
                *markdown_table(
                    [
                        "way",
                        "margin",
                        *(f"{g} (train)" for g in TRAIN),
                        *(f"{g} (held out)" for g in HELD_OUT),
                    ],
                    real_rows(real, per, w),
                ),
            ]
    out = [
        "# A per-die reader on the OCR recogniser's own features (issue 44)",
        "",
        harness.run_header(),
        f"RENDERS (the 20-face d20 at 45 deg, the true view stated); {time.perf_counter() - t0:.0f} s.",
        *texts,
    ]
    harness.write("\n".join(out) + "\n", a.out)


if __name__ == "__main__":
    main()
