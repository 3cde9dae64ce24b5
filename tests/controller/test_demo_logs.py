"""Each `dicetable demo` run writes its own event log unless ``--db`` names one, and the dice
statistics never count two runs of one recording twice (issue 48 item 6): every run used to append
to one ``demo-<game>.sqlite3``, two demos at once wrote the same file, and a run still playing (or
stopped part way) beside a finished one of the same recording was counted as another game."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.demo import DemoError, own_log, run_demo
from controller.eventlog import EventLog
from controller.fairness import collect, log_report
from engine import Input

pytestmark = pytest.mark.slow


def test_two_demo_runs_write_two_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path / "data"))
    first = run_demo("dice-fighter", serve=False, quiet=True)
    second = run_demo("dice-fighter", serve=False, quiet=True)
    assert first["event_log"] != second["event_log"]
    logs = sorted((tmp_path / "data").glob("demo-dice-fighter-*.sqlite3"))
    assert [str(p) for p in logs] == sorted([first["event_log"], second["event_log"]])
    for p in logs:
        with EventLog(p, read_only=True) as log:
            assert log.latest_game() == 1  # one run, one game
    # --db names a log: the runs go there, one game after the other
    db = tmp_path / "named.sqlite3"
    assert run_demo("dice-fighter", db=db, serve=False, quiet=True)["event_log"] == str(db)


def test_two_runs_started_in_one_second_take_two_names(tmp_path: Path) -> None:
    names = {own_log(tmp_path, "dice-hunter") for _ in range(5)}
    assert len(names) == 5 and all(p.is_file() and p.name.startswith("demo-dice-hunter-") for p in names)


def test_a_log_that_cannot_be_made_is_said_naming_the_folder(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    with pytest.raises(DemoError, match=r"a-file.*--db"):
        own_log(blocked, "dice-hunter")


def test_stats_never_mix_a_run_stopped_part_way_with_a_whole_run_of_one_recording(tmp_path: Path) -> None:
    whole = Path(
        run_demo("dice-fighter", db=tmp_path / "whole.sqlite3", serve=False, quiet=True)["event_log"]
    )
    once = {(d.colour, d.kind): len(d.values) for d in collect([whole])}
    db = tmp_path / "demo.sqlite3"
    with EventLog(whole, read_only=True) as src, EventLog(db) as dst:  # a run stopped after 5 inputs
        game = dst.start_game(src.setup(1))
        for e in list(src.inputs(1))[:5]:
            dst.append_input(game, Input.from_json(e.data), [], "camera")
    with EventLog(db, read_only=True) as log:
        partial = {(d["colour"], d["kind"]): d["rolls"] for d in log_report(log, "demo")}
    assert partial and partial != once  # some dice thrown already, not all
    run_demo("dice-fighter", db=db, serve=False, quiet=True)  # the whole run after it: game 2
    with EventLog(db, read_only=True) as log:
        assert log.latest_game() == 2
        report = {(d["colour"], d["kind"]): d["rolls"] for d in log_report(log, "demo")}
    assert report == once
    assert {(d.colour, d.kind): len(d.values) for d in collect([db, whole])} == once  # across logs too
