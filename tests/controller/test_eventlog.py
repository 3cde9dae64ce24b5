"""The event log: append-only, replayable, nothing acknowledged is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.eventlog import EventLog, LogError
from controller.scenario import Setup, run_scenario_file
from engine import Input, InputKind

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests" / "scenarios" / "dice-hunter" / "late-game-4p.jsonl"


def dicetable(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        **kw,
    )  # type: ignore[call-overload]


def _setup() -> Setup:
    return Setup("dice-hunter", ("ann", "bob", "cid"), {"deck": "virtual"}, 3)


def test_append_and_replay_rebuild_the_state(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    game_no = log.start_game(_setup())
    from controller.scenario import new_game

    game = new_game(_setup())
    for inp in (
        Input(InputKind.ROLL, "ann", {"dice": [3, 3, 3, 5, 6]}),
        Input(InputKind.CHOICE, "ann", {"take": "trio"}),
    ):
        log.append_input(game_no, inp, game.apply(inp), "camera")
    log.close()
    again = EventLog(tmp_path / "t.sqlite3").replay()
    assert again.state == game.state
    assert again.scores()["ann"] == 200


def test_undo_is_an_event_and_replay_skips_the_undone_input(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    game_no = log.start_game(_setup())
    from controller.scenario import new_game

    game = new_game(_setup())
    inp = Input(InputKind.ROLL, "ann", {"dice": [1, 2, 3, 4, 6]})
    seq = log.append_input(game_no, inp, game.apply(inp), "camera")
    log.append(game_no, "undo", {"undoes": seq, "who": "ref"}, "correction", "ref")
    replayed = log.replay()
    assert replayed.state["roll"] == 0
    kinds = [e.kind for e in log.events()]
    assert kinds == ["setup", "input", "outcome", "undo"] or kinds[:2] == ["setup", "input"]


def test_the_standing_inputs_are_counted_as_inputs_lists_them(tmp_path: Path) -> None:
    """``standing_inputs`` (what the table counts at every logged step, in SQL) agrees with the
    inputs the log lists: an undone input is not counted, another game's inputs are not either."""
    from controller.scenario import new_game

    log = EventLog(tmp_path / "t.sqlite3")
    other = log.start_game(_setup())
    log.append_input(other, Input(InputKind.ROLL, "ann", {"dice": [1, 1, 1, 5, 6]}), [], "camera")
    game_no = log.start_game(_setup())
    assert log.standing_inputs(game_no) == 0
    game = new_game(_setup())
    seqs = []
    for inp in (
        Input(InputKind.ROLL, "ann", {"dice": [3, 3, 3, 5, 6]}),
        Input(InputKind.CHOICE, "ann", {"take": "trio"}),
    ):
        seqs.append(log.append_input(game_no, inp, game.apply(inp), "camera"))
    assert log.standing_inputs(game_no) == len(list(log.inputs(game_no))) == 2
    log.append(game_no, "undo", {"undoes": seqs[1], "who": "ref"}, "correction", "ref")
    log.append(game_no, "undo", {"undoes": None, "who": "ref"}, "correction", "ref")  # (undoes no row)
    assert log.standing_inputs(game_no) == len(list(log.inputs(game_no))) == 1
    assert log.standing_inputs(other) == 1


def test_the_log_is_append_only(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    log.start_game(_setup())
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")


def test_wal_mode(tmp_path: Path) -> None:
    EventLog(tmp_path / "t.sqlite3").close()
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_tampered_outcome_is_reported(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    game_no = log.start_game(_setup())
    inp = Input(InputKind.ROLL, "ann", {"dice": [1, 2, 3, 4, 6]})
    from engine import Outcome

    log.append_input(game_no, inp, [Outcome("made_up")], "camera")
    with pytest.raises(LogError, match="differs from the replayed one"):
        log.replay()


def test_not_a_log(tmp_path: Path) -> None:
    f = tmp_path / "junk.sqlite3"
    f.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(LogError, match="not a dicetable event log"):
        EventLog(f)


def test_replay_command_scenario_and_log(tmp_path: Path) -> None:
    res = dicetable("replay", str(SCENARIO))
    assert res.returncode == 0, res.stderr
    state = json.loads(res.stdout)
    assert state["result"] is not None and state["scores"]
    db = tmp_path / "game.sqlite3"
    res2 = dicetable("replay", str(SCENARIO), "--log", str(db))
    assert json.loads(res2.stdout) == state
    res3 = dicetable("replay", str(db))
    assert json.loads(res3.stdout) == state


def test_replay_command_names_the_bad_line(tmp_path: Path) -> None:
    lines = SCENARIO.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    idx = next(i for i, line in enumerate(lines) if '"roll"' in line)
    lines[idx] = lines[idx].replace('"dice": [', '"dice": [9, ')
    bad.write_text("\n".join(lines) + "\n")
    res = dicetable("replay", str(bad))
    assert res.returncode == 2
    assert f"bad.jsonl:{idx + 1}:" in res.stderr
    assert "Traceback" not in res.stderr
    res = dicetable("replay", str(tmp_path / "absent.jsonl"))
    assert res.returncode == 2 and "no such file" in res.stderr


@pytest.mark.slow
def test_killed_replay_resumes_from_the_log_with_the_same_final_state(tmp_path: Path) -> None:
    expected = run_scenario_file(SCENARIO).game.state
    db = tmp_path / "killed.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "replay", str(SCENARIO), "--log", str(db), "--delay", "0.05"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    acknowledged = 0
    while time.monotonic() < deadline:
        if db.exists():
            try:
                acknowledged = len(list(EventLog(db).inputs()))
            except (LogError, sqlite3.DatabaseError):
                acknowledged = 0
            if acknowledged >= 10:
                break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    log = EventLog(db)
    kept = len(list(log.inputs()))
    assert kept >= acknowledged >= 10  # nothing acknowledged was lost
    total = sum(
        1
        for line in SCENARIO.read_text().splitlines()
        if line.strip().startswith("{") and '"type"' in line and "expect_error" not in line
    )
    assert kept < total, "the replay finished before it was killed; the test proves nothing"
    log.close()
    res = dicetable("replay", str(SCENARIO), "--log", str(db))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == expected
    assert len(list(EventLog(db).inputs())) == total
