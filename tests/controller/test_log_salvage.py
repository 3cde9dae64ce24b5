"""`dicetable log salvage` yields a log that replays, and says exactly what it could not keep."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.log_salvage import damage, game_log
from controller.eventlog import EventLog, replay_events
from controller.logrepair import read_intact, salvage

ROOT = Path(__file__).resolve().parents[2]


def test_every_salvaged_log_replays_and_what_was_left_out_is_named(tmp_path: Path) -> None:
    sound = tmp_path / "sound.sqlite3"
    assert game_log(sound) > 20
    cut = 0
    for seed in range(16):
        db = tmp_path / f"d{seed}.sqlite3"
        db.write_bytes(sound.read_bytes())
        damage(db, seed)
        out = tmp_path / f"s{seed}.sqlite3"
        report = salvage(db, out)
        again = read_intact(out)
        assert again.ok, f"seed {seed}: the salvaged log is refused again:\n{again.text()}"
        with EventLog(out) as ev:
            for game in {e.game for e in ev.events()}:
                replay_events(ev.events(game), f"{out}: game {game}")
            assert len(ev.events()) == report.written
        if report.left_out:
            cut += 1
            assert all("left out" in why and "row" in why for why in report.left_out.values())
            assert "left out" in report.text()
    assert cut, "no damage cost an input: the sweep does not test what it should"


def test_the_salvage_command_says_what_it_left_out(tmp_path: Path) -> None:
    sound = tmp_path / "sound.sqlite3"
    game_log(sound)
    for seed in range(16):
        db = tmp_path / f"d{seed}.sqlite3"
        db.write_bytes(sound.read_bytes())
        damage(db, seed)
        probe = salvage(db, tmp_path / f"probe{seed}.sqlite3")
        if probe.left_out:
            break
    else:
        raise AssertionError("no seed cost an input")
    out = tmp_path / "salvaged.sqlite3"
    res = subprocess.run(
        [sys.executable, "-m", "controller", "log", "salvage", str(db), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert "it replays" in res.stdout and "left out" in res.stdout, res.stdout
    res = subprocess.run(
        [sys.executable, "-m", "controller", "replay", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert res.returncode == 0, res.stderr
    json.loads(res.stdout)
