"""The README's figures are produced, not typed (issue 32 item 6): its demo block is the output
`python -m tools.readme_figures --write` stored (docs/generated/demo-dice-hunter.json), and its
other speed and accuracy figures are benchmarks/RESULTS.md's. No demo is played here."""

from __future__ import annotations

import json
import re

import pytest

from tools.readme_figures import GENERATED, README, RESULTS, demo_block, problems, summary_rows


@pytest.fixture
def texts() -> tuple[str, dict, str]:
    return (
        README.read_text(encoding="utf-8"),
        json.loads(GENERATED.read_text(encoding="utf-8")),
        RESULTS.read_text(encoding="utf-8"),
    )


def test_the_readme_agrees_with_the_generated_output_and_the_results(texts: tuple[str, dict, str]) -> None:
    assert problems(*texts) == []


def test_the_generated_output_is_the_demo_as_the_readme_shows_it(texts: tuple[str, dict, str]) -> None:
    _, generated, _ = texts
    assert generated["command"] == "dicetable demo --no-serve --json"
    out = generated["output"]
    assert out["game"] == "dice-hunter" and out["status"] == "over"
    assert out["event_log"].startswith("~/.local/share/dicetable/")
    assert demo_block(out) in texts[0]


def test_a_changed_demo_block_is_found(texts: tuple[str, dict, str]) -> None:
    readme, generated, results = texts
    seconds = generated["output"]["seconds"]
    changed = readme.replace(f'"seconds": {seconds}', f'"seconds": {seconds + 1}', 1)
    assert changed != readme
    assert any("demo block is not the generated output" in p for p in problems(changed, generated, results))
    other = {**generated, "output": {**generated["output"], "rolls_read": 30}}
    found = problems(readme, other, results)
    assert any("demo block" in p for p in found) and any("rolls" in p for p in found)


def test_a_changed_count_in_the_prose_is_found(texts: tuple[str, dict, str]) -> None:
    readme, generated, results = texts
    n = generated["output"]["rolls_read"]
    changed = re.sub(r"pixels:(\s+)\d+ rolls", rf"pixels:\g<1>{n + 1} rolls", readme, count=1)
    assert changed != readme
    assert any("N rolls" in p for p in problems(changed, generated, results))
    other = generated["output"]["referee_answers"] + 5  # a count the run did not answer
    answered = re.sub(r"\(here(\s+)\w+;", rf"(here\g<1>{other} times;", readme, count=1)
    assert answered != readme
    assert any("referee answers" in p for p in problems(answered, generated, results))


def test_a_figure_that_differs_from_the_results_is_found(texts: tuple[str, dict, str]) -> None:
    readme, generated, results = texts
    changed = re.sub(r"~(\d+) ms a die", lambda m: f"~{int(m.group(1)) + 5} ms a die", readme, count=1)
    assert changed != readme
    assert any("RESULTS.md" in p and "says" in p for p in problems(changed, generated, results))
    # and the other way round: RESULTS.md's figure moves, the README's stays
    moved = re.sub(r'`fit="image"`, (\d+) ms a die', '`fit="image"`, 70 ms a die', results, count=1)
    assert moved != results
    assert any("says 70" in p for p in problems(readme, generated, moved))


def test_a_new_typed_figure_is_found(texts: tuple[str, dict, str]) -> None:
    readme, generated, results = texts
    typed = readme.replace("## Hardware", "It reads 99.9 % of dice in 12 ms.\n\n## Hardware", 1)
    found = problems(typed, generated, results)
    assert any("'99.9 %' is not checked" in p for p in found)
    assert any("'12 ms' is not checked" in p for p in found)


def test_the_summary_table_is_parsed() -> None:
    rows = summary_rows(RESULTS.read_text(encoding="utf-8"))
    assert len(rows) > 20
    assert all({"area", "figure", "result", "target", "met", "details"} <= set(r) for r in rows)
    # an escaped bar inside a cell does not split it
    assert summary_rows("## Summary\n\n| area | result |\n|---|---|\n| a \\| b | 1 |\n") == [
        {"area": "a | b", "result": "1"}
    ]
