"""Feed a scenario into an event log, resuming after whatever the log already holds.

This is the crash-safety path in miniature: every input is acknowledged only
once it is committed to the log, so a process killed at any point resumes
from the log and reaches the same final state as an uninterrupted run.
"""

from __future__ import annotations

import time
from pathlib import Path

from controller.eventlog import EventLog, LogError
from controller.scenario import ScenarioError, Setup, parse_lines, subset_mismatch
from engine import Game, Input, RuleError


def replay_into_log(scenario: Path, log_path: Path, delay: float = 0.0) -> Game:
    """Apply ``scenario``'s inputs to the game in ``log_path`` that it began, resuming if it exists."""
    try:
        lines = scenario.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(str(scenario), 0, "", f"cannot read: {e}") from None
    parsed = list(parse_lines(lines, str(scenario)))
    if not parsed or not isinstance(parsed[0][2], dict) or "setup" not in parsed[0][2]:
        raise ScenarioError(
            str(scenario), 1, lines[0] if lines else "", 'the first line must be {"setup": ...}'
        )
    try:
        setup = Setup.from_json(parsed[0][2]["setup"])
    except ValueError as e:
        raise ScenarioError(str(scenario), parsed[0][0], parsed[0][1], f"bad setup: {e}") from None
    with EventLog(log_path) as log:
        game_no = log.latest_game()
        if game_no is None or log.setup(game_no) != Setup.from_json(setup.to_json()):
            game_no = log.start_game(setup, source="scenario")
        done = [e.data for e in log.inputs(game_no)]
        game = log.replay(game_no, base=scenario.parent)
        seen = 0
        for no, text, obj in parsed[1:]:
            if not isinstance(obj, dict):
                raise ScenarioError(str(scenario), no, text, "each line must be a JSON object")
            if "expect" in obj:
                if seen >= len(done):
                    why = subset_mismatch(obj["expect"], game.state)
                    if why:
                        raise ScenarioError(str(scenario), no, text, f"expectation failed: {why}")
                continue
            if "expect_error" in obj:
                continue  # refusals change nothing and are not logged
            inp = Input.from_json(obj)
            if seen < len(done):
                if done[seen] != inp.to_json():
                    raise LogError(
                        f"{log_path}: logged input {seen + 1} {done[seen]!r} is not the "
                        f"scenario's line {no} {inp.to_json()!r}"
                    )
                seen += 1
                continue
            try:
                outcomes = game.apply(inp)
            except RuleError as e:
                raise ScenarioError(str(scenario), no, text, f"illegal input: {e}") from None
            log.append_input(game_no, inp, outcomes, source="scenario")
            seen += 1
            if delay:
                time.sleep(delay)
    return game
