"""Dice fairness rule (controller.fairness) on simulated rolls.

* fair d6, d10, d20 rolled ``--rolls`` times each (a tournament's worth for one die):
  the share ever flagged by the rule (its false-flag rate), beside a naive rule that
  tests after every roll once n >= 10 per face;
* a d6 loaded by 5 points on one face (that face 1/6 + 0.05, the others equal):
  rolls until the rule flags it (median, p90) and the share caught within ``--rolls``.

Counts at the looks are drawn as multinomial increments between looks (the same
distribution as rolling one die at a time).  The rule's own code decides:
``controller.fairness.looks`` and ``chi2_uniform`` at each look.

    nice -n 10 .venv/bin/python -m benchmarks.fairness --out benchmarks/results/fairness.md
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import add_smoke, run_header, write
from controller.fairness import ALPHA, LOOK_RATIO, LOOKS_BELOW, MIN_PER_FACE, chi2_uniform, looks
from controller.fairness import first_flag as rule_flag


def flags(rng: np.random.Generator, probs: np.ndarray, upto: int, rules: tuple[int, ...]) -> list[int | None]:
    """Rolls at which each rule (so many looks in a row below α) first flags one simulated die, or None."""
    counts = np.zeros(len(probs), dtype=np.int64)
    done = 0
    ps: list[float] = []
    found: dict[int, int | None] = dict.fromkeys(rules)
    for n in looks(len(probs), upto):
        counts += rng.multinomial(n - done, probs)
        done = n
        ps.append(chi2_uniform(counts.tolist())[1])
        for r in rules:
            if found[r] is None and rule_flag(ps, r) is not None:
                found[r] = n
        if all(v is not None for v in found.values()):
            break
    return [found[r] for r in rules]


def naive_false_rate(rng: np.random.Generator, faces: int, dice: int, rolls: int) -> float:
    """Share of fair dice flagged by testing after every roll from n = 10 per face."""
    flagged = 0
    start = MIN_PER_FACE * faces
    for _ in range(dice):
        values = rng.integers(0, faces, size=rolls)
        cum = np.cumsum(np.eye(faces, dtype=np.int32)[values], axis=0)[start - 1 :]
        n = np.arange(start, rolls + 1)[:, None]
        stat = (((cum - n / faces) ** 2) / (n / faces)).sum(axis=1)
        # the p-value is monotone in the statistic: compare with the critical value once
        crit = _critical(faces - 1)
        flagged += bool((stat > crit).any())
    return flagged / dice


def _critical(df: int) -> float:
    from controller.fairness import chi2_sf

    lo, hi = 0.0, 500.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if chi2_sf(mid, df) > ALPHA else (lo, mid)
    return hi


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rolls", type=int, default=3000, help="rolls of one die in a tournament")
    ap.add_argument("--fair", type=int, default=4000, help="simulated fair dice per kind")
    ap.add_argument("--naive", type=int, default=400, help="fair d6 for the naive every-roll rule")
    ap.add_argument("--loaded", type=int, default=2000, help="simulated loaded d6")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--out", type=Path)
    add_smoke(ap)
    a = ap.parse_args()
    if a.smoke:  # a few dice, a short tournament
        a.rolls, a.fair, a.naive, a.loaded = (
            min(a.rolls, 300),
            min(a.fair, 10),
            min(a.naive, 5),
            min(a.loaded, 5),
        )
    rng = np.random.default_rng(a.seed)
    t0 = time.perf_counter()
    lines = [
        "# Dice fairness: the flag rule on simulated dice",
        "",
        f"Rule (`controller/fairness.py`): test once n >= {MIN_PER_FACE} per face, then at looks "
        f"growing by x{LOOK_RATIO}; flag when the χ² p-value < {ALPHA} at {LOOKS_BELOW} looks in a row "
        "and on all rolls so far.",
        f"Seed {a.seed}; {a.rolls} rolls per die (a tournament's worth for one die).",
        "",
        "## Fair dice: false flags",
        "",
        "| die | dice simulated | flagged within rolls | false-flag rate "
        "| same dice, one look below enough | looks |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    rules = (LOOKS_BELOW, 1)
    for faces in (6, 10, 20):
        probs = np.full(faces, 1 / faces)
        got = [flags(rng, probs, a.rolls, rules) for _ in range(a.fair)]
        hits = [sum(g[j] is not None for g in got) for j in range(len(rules))]
        lines.append(
            f"| d{faces} | {a.fair} | {hits[0]} | {hits[0] / a.fair:.2%} | {hits[1] / a.fair:.2%} | "
            f"{len(looks(faces, a.rolls))} |"
        )
    naive = naive_false_rate(rng, 6, a.naive, a.rolls)
    lines += [
        "",
        f"For contrast, testing a fair d6 after every roll (from n = 60 to {a.rolls}, same α): "
        f"{naive:.1%} of {a.naive} fair dice flagged.",
        "",
        "## A d6 loaded by 5 points on one face (1/6 + 0.05; the other faces share the rest)",
        "",
    ]
    probs = np.full(6, (1 - (1 / 6 + 0.05)) / 5)
    probs[5] = 1 / 6 + 0.05
    cap = 50_000
    needed = [flags(rng, probs, cap, rules) for _ in range(a.loaded)]
    lines += [
        "| rule | loaded d6 simulated | rolls to flag: median | p90 | caught within "
        f"{a.rolls} rolls | never within {cap} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for j, r in enumerate(rules):
        got = np.array([n[j] if n[j] is not None else cap * 10 for n in needed])
        name = f"{r} look{'s' if r > 1 else ''} in a row" + (" (the rule)" if r == LOOKS_BELOW else "")
        lines.append(
            f"| {name} | {a.loaded} | {int(np.median(got))} | {int(np.percentile(got, 90))} | "
            f"{float(np.mean(got <= a.rolls)):.1%} | {int(np.sum(got > cap))} |"
        )
    lines += [
        "",
        "Rolls to flag are look counts (the rule tests only at looks), so they step by ~25 %.",
        "",
        run_header() + f"The run took {time.perf_counter() - t0:.0f} s.",
    ]
    write("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
