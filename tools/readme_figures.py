"""The README's figures are produced, not typed (issue 32 item 6).

    .venv/bin/python -m tools.readme_figures            # check: exit 1 naming each disagreement
    .venv/bin/python -m tools.readme_figures --write    # play the demo, regenerate both, then check

``--write`` plays ``dicetable demo --no-serve --json`` (this checkout's code, a fresh event log in
a temporary data directory), stores its output in ``docs/generated/demo-dice-hunter.json`` (with
the command, the revision and the date) and writes that output into the README's demo block.
The event log's path is shown as a user's default data directory has it
(``~/.local/share/dicetable/...``), not the temporary one; ``seconds`` is the wall time of that
run, which varies with the machine and its load (the README says so).

The check (``tests/test_readme.py`` runs it, without playing the demo): the README's demo block is
the generated file's output; the prose's counts of that run (rolls read, referee answers) are the
generated file's; every other speed or accuracy figure the README quotes is found in
``benchmarks/RESULTS.md``'s summary table (``FIGURES``); and every number with a unit of time,
a per cent or a rate in the README is one of those or a setting the README states
(``NOT_FIGURES``), so a new typed figure fails until it is tied to a result here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
GENERATED = ROOT / "docs" / "generated" / "demo-dice-hunter.json"
#: the command whose output the README shows
DEMO = ["demo", "--no-serve", "--json"]
#: where a user's event log of the demo lies (controller.config.data_dir's default on Linux)
SHOWN_DATA_DIR = "~/.local/share/dicetable"
#: the README's demo block: the fenced JSON right after the sentence introducing it
BLOCK = re.compile(r"(`\./dev\.sh demo --no-serve --json` plays the game\s.*?```json\n)(.*?)(\n```)", re.S)
#: a number with a unit of time, a per cent or a rate (what a speed or accuracy figure looks like)
NUMBER = re.compile(r"~?\d+(?:[.,]\d+)*\s?(?:ms\b|%|fps\b|s\b|seconds\b)")
NUMBER_WORDS = {0: "none", 1: "once", 2: "twice"}


@dataclass(frozen=True)
class Figure:
    """A figure the README quotes (``readme``: a pattern whose group 1 is the number, in the README's
    text) and where RESULTS.md's summary table has it: the row whose first cell contains ``row``,
    its cell ``column``, the pattern ``result`` (group 1: the number)."""

    name: str
    readme: str
    row: str
    column: str
    result: str


FIGURES = (
    Figure(
        'the top-face image search\'s cost a die ([board] fit = "image")',
        r"a little more exact, ~(\d+) ms a die",
        "live table's top faces from the d6 reader's boxes",
        "result",
        r'`fit="image"`, (\d+(?:\.\d+)?) ms a die',
    ),
)
#: numbers with a unit in the README that are settings or facts it states, not measurements:
#: (a snippet of the text around the number that must contain it)
NOT_FIGURES = (
    "printer kept 100 %",  # the board's ruler: print at 100 %
    "95 % intervals",  # the fairness statistics' confidence level
    "(0.5, 1, 2, 5 s apart)",  # the camera's reconnect schedule
    "they stall for 10 s",  # the servers' body timeout
    "must arrive within 10 s",  # the servers' head timeout
)


def demo_block(output: dict[str, Any]) -> str:
    """The demo's output as `dicetable demo --json` prints it."""
    return json.dumps(output, sort_keys=True, ensure_ascii=False)


def summary_rows(results: str) -> list[dict[str, str]]:
    """RESULTS.md's summary table as rows of {column: cell}."""
    part = results.split("## Summary", 1)[-1].split("\n## ", 1)[0]
    lines = [ln for ln in part.splitlines() if ln.startswith("|")]
    if len(lines) < 3:
        return []

    def cells(line: str) -> list[str]:
        # a cell may hold `\|` (an escaped bar); split on the others
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]

    head = cells(lines[0])
    return [dict(zip(head, cells(ln), strict=False)) for ln in lines[2:]]


def as_number(text: str) -> float:
    return float(text.replace(",", ""))


def problems(readme: str, generated: dict[str, Any], results: str) -> list[str]:
    """Every way the README disagrees with the generated demo output and RESULTS.md (empty: none)."""
    out: list[str] = []
    output = generated.get("output")
    if not isinstance(output, dict):
        return [f"{GENERATED.name}: no 'output' object (regenerate: python -m tools.readme_figures --write)"]
    block = BLOCK.search(readme)
    if block is None:
        out.append(
            "README.md: the demo's JSON block (after '`./dev.sh demo --no-serve --json` plays the game') "
            "is gone"
        )
    elif block.group(2).strip() != demo_block(output):
        out.append(
            "README.md: the demo block is not the generated output "
            f"(README: {block.group(2).strip()!r}; {GENERATED.relative_to(ROOT)}: {demo_block(output)!r}); "
            "run python -m tools.readme_figures --write"
        )
    covered: list[tuple[int, int]] = [block.span()] if block else []
    rolls = re.search(r"The scores come from the pixels:\s+(\d+)\s+rolls", readme)
    if rolls is None or int(rolls.group(1)) != output.get("rolls_read"):
        out.append(
            f"README.md: 'The scores come from the pixels: N rolls' says "
            f"{rolls.group(1) if rolls else 'nothing'}, the demo read {output.get('rolls_read')}"
        )
    asked = re.search(r"recorded referee answers\s+\(here\s+(\w+(?: times)?)[,;]", readme)
    n = output.get("referee_answers")
    want = NUMBER_WORDS.get(n, f"{n} times") if isinstance(n, int) else str(n)
    if asked is None or asked.group(1) != want:
        out.append(
            f"README.md: 'recorded referee answers (here ...,' says "
            f"{asked.group(1) if asked else 'nothing'!r}, the demo's run answered {want!r}"
        )
    rows = summary_rows(results)
    for fig in FIGURES:
        said = re.search(fig.readme, readme)
        if said is None:
            out.append(f"README.md: {fig.name}: no text matching {fig.readme!r}")
            continue
        covered.append(said.span(0))
        row = next((r for r in rows if fig.row in r.get("area", "")), None)
        found = re.search(fig.result, row.get(fig.column, "")) if row else None
        if found is None:
            out.append(f"benchmarks/RESULTS.md: {fig.name}: no summary row {fig.row!r} with {fig.result!r}")
        elif as_number(said.group(1)) != round(as_number(found.group(1)), 1):
            out.append(
                f"README.md: {fig.name} is {said.group(1)}, benchmarks/RESULTS.md ({fig.row!r}) says "
                f"{found.group(1)}"
            )
    allowed = [(m.start(), m.end()) for s in NOT_FIGURES for m in re.finditer(re.escape(s), readme)]
    for m in NUMBER.finditer(readme):
        if any(a <= m.start() < b for a, b in covered + allowed):
            continue
        line = readme.count("\n", 0, m.start()) + 1
        out.append(
            f"README.md:{line}: {m.group(0)!r} is not checked: tie it to a RESULTS.md row "
            "(tools/readme_figures.py FIGURES) or, if it is a setting, list it in NOT_FIGURES"
        )
    return out


def check() -> list[str]:
    try:
        generated = json.loads(GENERATED.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        return [f"{GENERATED}: {e} (regenerate: python -m tools.readme_figures --write)"]
    return problems(README.read_text(encoding="utf-8"), generated, RESULTS.read_text(encoding="utf-8"))


def revision() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def regenerate() -> dict[str, Any]:
    """Play the demo as the README shows it; store its output and write it into the README."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "DICETABLE_DATA_DIR": tmp, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(
            [sys.executable, "-m", "controller", *DEMO], cwd=ROOT, env=env, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise SystemExit(f"dicetable {' '.join(DEMO)} failed:\n{proc.stderr[-3000:]}")
        output = json.loads(proc.stdout.strip().splitlines()[-1])
        output["event_log"] = output["event_log"].replace(tmp, SHOWN_DATA_DIR)
    generated = {
        "command": "dicetable " + " ".join(DEMO),
        "made_by": "python -m tools.readme_figures --write",
        "revision": revision(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "note": "seconds is this run's wall time: it varies with the machine and its load",
        "load_average": [round(v, 1) for v in os.getloadavg()],
        "cpus": os.cpu_count(),
        "output": output,
    }
    GENERATED.parent.mkdir(parents=True, exist_ok=True)
    GENERATED.write_text(json.dumps(generated, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    if BLOCK.search(readme) is None:
        raise SystemExit("README.md: the demo's JSON block is gone; nothing written into it")
    README.write_text(
        BLOCK.sub(lambda m: m.group(1) + demo_block(output) + m.group(3), readme, count=1), "utf-8"
    )
    return generated


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="play the demo and regenerate both, then check")
    args = ap.parse_args(argv)
    if args.write:
        made = regenerate()
        print(f"wrote {GENERATED.relative_to(ROOT)} and README.md's demo block: {demo_block(made['output'])}")
    found = check()
    for p in found:
        print(p, file=sys.stderr)
    if not found:
        print("README.md's figures agree with the generated demo output and benchmarks/RESULTS.md")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
