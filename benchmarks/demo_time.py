"""How long the headless demo takes, this checkout against other revisions in one run.

    nice -n 10 .venv/bin/python -m benchmarks.demo_time [--game dice-hunter] [--runs 5]
        [--vs REV ...] [--out FILE.md] [--smoke]

Plays ``python -m controller demo --game GAME --no-serve --json`` as a user's ``./dev.sh demo
--no-serve --json`` does, each run a fresh process with a fresh event log, and takes from each
run the demo's own ``seconds`` (the play, from the first frame to the score), the whole process's
wall time, and its CPU time (user + system, the operating system's account of the finished
process and its threads).  ``--vs REV`` plays the same demo at the git revision ``REV`` (checked
out into a temporary worktree beside this one, so ``../shared`` resolves), the revisions in turn
(A B A B ...), so that every revision sees the same load.  Each run's scores are checked against
the first run's: a faster demo that scores otherwise is reported as such.  The machine is shared:
quote the medians, and the load average the report gives.  ``--smoke``: one run of this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header, write


def play(tree: Path, game: str, db: Path) -> dict[str, Any]:
    """One headless demo at ``tree``: its summary, with the process's wall and CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [
        sys.executable,
        "-m",
        "controller",
        "demo",
        "--game",
        game,
        "--no-serve",
        "--json",
        "--db",
        str(db),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"the demo at {tree} failed (exit {res.returncode}):\n{res.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {**out, "wall": wall, "cpu": cpu}


def trees(revs: list[str], tmp: Path) -> list[tuple[str, Path]]:
    """(name, checkout) for this checkout and each revision (a detached worktree in ``tmp``'s
    sibling of this repository, removed by ``remove``)."""
    out = [("this checkout", ROOT)]
    for rev in revs:
        short = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True
        )
        if short.returncode != 0:
            raise SystemExit(f"--vs {rev!r}: not a git revision of {ROOT} ({short.stderr.strip()})")
        path = ROOT.parent / f".demo-time-{short.stdout.strip()}-{tmp.name}"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(path), rev], check=True
        )
        out.append((short.stdout.strip(), path))
    return out


def remove(checkouts: list[tuple[str, Path]]) -> None:
    for _, path in checkouts[1:]:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


def report(game: str, runs: dict[str, list[dict[str, Any]]], loads: list[float]) -> str:
    first = next(iter(runs.values()))[0]
    rows = []
    for name, rs in runs.items():
        same = all(
            (r["scores"], r["winners"], r["status"]) == (first["scores"], first["winners"], first["status"])
            for r in rs
        )
        rows.append(
            [
                name,
                len(rs),
                " ".join(f"{r['seconds']:.2f}" for r in rs),
                f"**{statistics.median(r['seconds'] for r in rs):.2f}**",
                f"{statistics.median(r['wall'] for r in rs):.2f}",
                f"{statistics.median(r['cpu'] for r in rs):.2f}",
                "yes" if same else "**no**",
            ]
        )
    head = [
        "code",
        "runs",
        "demo seconds, each run",
        "median",
        "process wall s, median",
        "process CPU s, median",
        "same scores",
    ]
    lines = [
        f"# The headless {game} demo: time",
        "",
        run_header(),
        f"Load average (1 min) at each run's start: {min(loads):.1f}-{max(loads):.1f}, "
        f"{os.cpu_count()} cores.",
        "",
        *markdown_table(head, rows),
        "",
        f"Scores: {json.dumps(first['scores'])}; winners {first['winners']}; "
        f"{first['rolls_read']} rolls read.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="dice-hunter", help="the demo to play (default dice-hunter)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each revision (default 5)")
    ap.add_argument("--vs", action="append", default=[], metavar="REV", help="a git revision to play too")
    ap.add_argument("--out", type=Path, help="store the report here")
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.runs < 1:
        raise SystemExit(f"--runs must be at least 1, got {args.runs}")
    n = 1 if args.smoke else args.runs
    with tempfile.TemporaryDirectory(prefix="demo-time-") as tmp:
        checkouts = trees([] if args.smoke else args.vs, Path(tmp))
        try:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in checkouts}
            loads = []
            for i in range(n):
                for name, tree in checkouts:
                    loads.append(os.getloadavg()[0])
                    db = Path(tmp) / f"{len(loads)}.sqlite3"
                    runs[name].append(play(tree, args.game, db))
                    print(f"run {i + 1} {name}: {runs[name][-1]['seconds']:.2f} s", file=sys.stderr)
        finally:
            remove(checkouts)
    write(report(args.game, runs, loads), None if args.smoke and args.out is None else args.out)


if __name__ == "__main__":
    main()
