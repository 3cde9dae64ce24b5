"""Run every scenario under tests/scenarios/ (all games) through the scenario runner.

Each ``*.jsonl`` file is one test: its inputs must be accepted (or refused with
the stated message, changing nothing) and every ``expect`` line must hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.scenario import run_scenario_file

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.jsonl"))


def test_scenarios_are_found() -> None:
    assert any(p.parent.name == "dice-hunter" for p in FILES), f"no scenarios found under {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario(path: Path) -> None:
    replay = run_scenario_file(path)
    assert replay.inputs > 0, f"{path} applies no input"
    game, result = replay.game, replay.game.result()
    if result is not None and len(game.players) > 1:  # the result a table would report fits the rules
        assert type(game).check_result(game.players, result.scores, result.winners, game.options) is None
