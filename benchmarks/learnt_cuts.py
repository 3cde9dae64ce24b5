"""Several cuts of a small learnt die pooled before the sure rule (issue 44: read unasked), measured on
`benchmarks.learnt_trust`'s recorded evidence in one run.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.learnt_cuts --train \
        --cache /tmp/learnt_trust --out benchmarks/results/learnt_cuts.md

`benchmarks.learnt_trust` records, while `read --config` reads each set-up's later rolls, where `read`
cut each die's own crop (its box's centre and side, `die_crop.die_cut`) beside the evidence the reader
weighed.  Here each such die is cut again from its frame: once as `read` cut it (its likeness to each
stored crop must equal the recorded one: a check), and at jittered cuts of its settled outline (the
centre moved, the side scaled, the crop turned by less than the template's turn step).  Each cut's
likeness to every stored crop of the set (the mix of the embedding's and the template's, as
`DiceSet.mixed`) is pooled (the mean over cuts), and the small-die sure rule is replayed on the pooled
evidence (`learnt_trust.derived`, `learnt_trust.sure`), alone or with the cuts' agreement (every cut's
own nearest face the same).  Per set-up and table: right faces read unasked and silent readings, one
cut (the rule on main) and pooled.  TRAIN set-ups (d20_off-angle, d20_color) choose; the held-out
ones (d20_top, d20_wood, ``--held-out``) are reported only.  The extra cost of the cuts per die is timed
on one core (a benchmark figure, never a test's).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import learnt_cli, learnt_trust
from benchmarks.harness import add_smoke, imread, markdown_table, run_header, share, write

#: the cuts, (dx, dy as shares of the die's side, scale, turn in degrees); the first is `read`'s own
CUTS: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 0.0, 1.0, 0.0),
    (0.04, 0, 1, 0),
    (-0.04, 0, 1, 0),
    (0, 0.04, 1, 0),
    (0, -0.04, 1, 0),
    (0, 0, 1, 7.5),
    (0, 0, 1, -7.5),
    *((0.0, 0.0, s, 0.0) for s in (0.93, 1.07)),
)
#: the cuts a way pools (indices into CUTS)
SHIFTS, TURNED, SCALED, ALL = [0, 1, 2, 3, 4], [0, 5, 6], [0, 7, 8], list(range(9))


def cut_rows(
    image: np.ndarray, cut: list[float], empty: np.ndarray | None, dice: Any
) -> tuple[np.ndarray, np.ndarray, float]:
    """K x S mixed and embedding likenesses of the die's K cuts (CUTS) to the set's S stored crops, and
    the seconds the shipped further cuts (`template.CUT_SCALES`) take as `read` makes them (cut,
    embedded, templated, each face's nearest)."""
    from vision.numbered import template
    from vision.numbered.crop import CROP, crop_die
    from vision.numbered.die_crop import PAD, die_cut
    from vision.numbered.learnt import likeness
    from vision.numbered.reader import TURNS, default_reader

    embedder = default_reader().embedder()
    first, found = die_cut(image, (cut[0], cut[1]), cut[2], empty)
    centre, longer, angle = found if found is not None else ((cut[0], cut[1]), cut[2], 0.0)
    crops = [first]
    for dx, dy, s, da in CUTS[1:]:
        c = (centre[0] + dx * longer, centre[1] + dy * longer)
        crops.append(crop_die([image], c, longer * PAD * s, angle + da, out=CROP))
    emb = likeness(embedder.embed(crops, TURNS), dice.features)
    kept = template.likeness(template.turned(crops), template.stored(dice.pixels))
    mix = (1 - template.WEIGHT) * emb + template.WEIGHT * kept
    t0 = time.perf_counter()  # the shipped cuts alone, as `NumberedReader.cut_again` makes them
    again = [crop_die([image], centre, longer * PAD * s, angle, out=CROP) for s in template.CUT_SCALES]
    turned = {
        "die": embedder.embed(again, TURNS),
        "pixels": template.turned(again),
        "small": np.ones(2, bool),
    }
    dice.per_face(turned)
    return np.asarray(mix), np.asarray(emb), time.perf_counter() - t0


def evidence_of(e: dict[str, Any], mix: np.ndarray, emb: np.ndarray) -> dict[str, Any]:
    return {**e, "mix": [float(x) for x in mix], "emb": [float(x) for x in emb]}


def per_face(e: dict[str, Any], mix: np.ndarray, drop: int | None = None) -> tuple[list[int], np.ndarray]:
    """The set's faces (less ``drop``) and each cut's likeness to each (K x F)."""
    vals = np.array(e["values"])
    faces = [f for f in e["faces"] if f != drop]
    return faces, np.stack([mix[:, vals == f].max(1) for f in faces], 1)


def cut_rule(
    e: dict[str, Any], mix: np.ndarray, emb: np.ndarray, drop: int | None = None
) -> tuple[Any, bool]:
    """The derived evidence of `read`'s own cut and whether the tried rule reads it surely: the rule
    on main (`learnt_trust.sure`) or, for a match `template.cut_again` names (at `template.CUT_MARGIN`),
    its face the set's nearest, as alike as SURE, and `reader.cuts_agree` at `template.CUT_SCALES`."""
    from vision.numbered import template
    from vision.numbered.reader import cuts_agree

    x = learnt_trust.derived(evidence_of(e, mix[0], emb[0]), drop)
    if x is None:
        return None, False
    if learnt_trust.sure(x, False):
        return x, True
    if x["face"] != x["nearest"] or x["like"] < learnt_trust.SURE:
        return x, False
    if not template.cut_again(x["support"], x["gap"], x["embedding_gap"], x["taught"]):
        return x, False
    faces, rows = per_face(e, mix[SCALED], drop)
    head = dict(zip(e["faces"], e["head_evidence"], strict=True))
    ev = [head.get(f, 0.0) for f in faces]
    return x, cuts_agree(faces, x["face"], rows[0], rows[1:], ev, e["weight"])


def replay(records: list[dict[str, Any]], folder: Path, has_empty: bool) -> dict[str, Any]:
    """Counts of the ways (right faces read unasked, silent readings; each later roll as if its face
    were never taught: sure readings), the check of the first cut against the record, the cuts' cost."""
    from vision.numbered import template
    from vision.numbered.learnt import load_set

    c: Counter[str] = Counter()
    seconds: list[float] = []
    dice = load_set(folder / ("with-empty" if has_empty else "no-empty") / "data" / "sets" / "d20.json")
    empty = imread(folder / "empty.png") if has_empty else None
    for r in records:
        c["frames"] += 1
        d, e = r["die"], r["evidence"]
        if d is None:
            continue
        right = d["kind"] == "d20" and d["value"] == r["face"]
        c["right"] += right
        recorded = float(d.get("confidence") or 0.0) >= learnt_trust.SURE
        if e is None or "mix" not in e or d["value"] != e["value"] or not e.get("cut"):
            for w in WAYS:
                c[f"{w} unasked"] += right and recorded
                c[f"{w} silent"] += recorded and not right
            continue
        mix, emb, sec = cut_rows(imread(Path(e["call"])), e["cut"], empty, dice)
        seconds.append(sec)
        c["checked"] += 1
        c["check off"] += not np.allclose(mix[0], e["mix"], atol=2e-3)
        truth = r["face"]
        x0, main_sure = cut_rule(e, mix, emb)
        was = template.CUT_MARGIN
        template.CUT_MARGIN = None
        try:
            before = learnt_trust.derived(e)
            before_sure = before is not None and learnt_trust.sure(before, False)
            y = learnt_trust.derived(e, drop=truth)
            c["untaught before"] += y is not None and learnt_trust.sure(y, False)
        finally:
            template.CUT_MARGIN = was
        c["untaught"] += 1
        c["untaught after"] += cut_rule(e, mix, emb, truth)[1]
        pooled = learnt_trust.derived(evidence_of(e, mix[ALL].mean(0), emb[ALL].mean(0)))
        pooled_sure = pooled is not None and learnt_trust.sure(pooled, False)
        faces, rows = per_face(e, mix[SCALED])
        nearest_all = x0 is not None and all(faces[int(np.argmax(row))] == x0["face"] for row in rows)
        plain = before_sure or (
            x0 is not None
            and x0["face"] == x0["nearest"]
            and x0["like"] >= learnt_trust.SURE
            and template.cut_again(x0["support"], x0["gap"], x0["embedding_gap"], x0["taught"])
            and nearest_all
        )
        for w, (face, ok) in {
            "before": (None if before is None else before["face"], before_sure),
            "pooled": (None if pooled is None else pooled["face"], pooled_sure),
            "nearest": (None if x0 is None else x0["face"], plain),
            "cuts": (None if x0 is None else x0["face"], main_sure),
        }.items():
            c[f"{w} unasked"] += ok and face == truth
            c[f"{w} silent"] += ok and face != truth
    return {"counts": dict(c), "ms": 1000 * float(np.median(seconds)) if seconds else 0.0}


#: the ways replayed, and what each is
WAYS = {
    "before": "one cut, the rule on main (TRUST_MARGIN 0.07)",
    "pooled": "tried: the 9 cuts' likenesses pooled (their mean), the rule before",
    "nearest": "tried: CUT_MARGIN, the set's nearest face the same at the scaled cuts",
    "cuts": "tried: CUT_MARGIN, the face by CUT_HEAD_MARGIN at the scaled cuts, the head's evidence weighed",
}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="the train set-ups (d20_off-angle, d20_color)")
    ap.add_argument("--held-out", action="store_true", help="the held-out set-ups too (report only)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/learnt_trust"), help="learnt_trust's records")
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    a = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    a.cache.mkdir(parents=True, exist_ok=True)
    groups = (list(learnt_cli.HELD_OUT) if a.held_out else []) + (
        list(learnt_trust.TRAIN) if a.train or not a.held_out else []
    )
    rows, ms = [], []
    from vision.numbered import template

    counted = [
        (group, variant, has_empty, learnt_trust.cached(group, has_empty, a.cache, a.smoke))
        for group in (groups[:1] if a.smoke else groups)
        for variant, has_empty in (learnt_cli.VARIANTS[:1] if a.smoke else learnt_cli.VARIANTS)
    ]  # recorded as `read` reads on main (no second cuts)
    was = template.CUT_MARGIN
    template.CUT_MARGIN = template.TRIED_CUT_MARGIN  # the tried rule (shipped off: CUT_MARGIN None)
    try:
        results = [(g, v, replay(records, a.cache / "work" / g, e)) for g, v, e, records in counted]
    finally:
        template.CUT_MARGIN = was
    for group, variant, got in results:
        c = got["counts"]
        ms.append(got["ms"])
        n = max(1, c["frames"])
        split = "held out" if group in learnt_cli.HELD_OUT else "train"
        rows.append(
            [
                f"{group} ({split})",
                variant,
                c["frames"],
                share(c.get("right", 0), n, places=1),
                *(
                    f"{share(c.get(f'{w} unasked', 0), n, places=1)} / {c.get(f'{w} silent', 0)}"
                    for w in WAYS
                ),
                f"{c.get('untaught before', 0)} -> {c.get('untaught after', 0)} of {c.get('untaught', 0)}",
                f"{c.get('check off', 0)} of {c.get('checked', 0)}",
            ]
        )
    text = [
        "# A small learnt die cut again before the sure rule (issue 44: read unasked)",
        "",
        run_header(),
        "",
        *(f"- {w}: {what}" for w, what in WAYS.items()),
        "",
        *markdown_table(
            (
                "set-up",
                "table.toml",
                "frames",
                "value right",
                *(f"{w}: read unasked / silent" for w in WAYS),
                "its face untaught: sure before -> cuts",
                "check: the first cut off the record",
            ),
            rows,
        ),
        "",
        f"The further cuts (`template.CUT_SCALES`) a die cut again, median, one core: "
        f"{np.median(ms) if ms else 0:.1f} ms.",
        f"\n{time.perf_counter() - t0:.0f} s.",
    ]
    write("\n".join(text) + "\n", a.out)


if __name__ == "__main__":
    main()
