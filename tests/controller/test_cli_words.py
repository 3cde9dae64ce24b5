"""The smaller defects of issue 34, each as a user met it on the command line: ``--help`` of
``tournament`` and ``hall`` lost ``[mqtt]`` to Rich markup; ``tournament-result`` without ``--db``
silently made a new, empty tournament; ``log check`` on a file that is not a log called it "DAMAGED"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.tournament import Tournament
from controller.tournament_file import load_tournament


def dicetable(*args: str, data_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="100")
    if data_dir is not None:
        env["DICETABLE_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize(
    ("command", "words"), [("tournament", "tables, [mqtt]"), ("hall", "whose [mqtt] section")]
)
def test_help_keeps_the_mqtt_section_name(command: str, words: str) -> None:
    res = dicetable(command, "--help")
    assert res.returncode == 0, res.stderr
    assert words in " ".join(res.stdout.replace("│", " ").split()), res.stdout


def _tournament_file(tmp_path: Path) -> Path:
    file = tmp_path / "open.toml"
    file.write_text(
        '[tournament]\nname = "Open"\ntables = ["t1", "t2"]\n'
        + "".join(f'[[players]]\nname = "{p}"\n' for p in ("ann", "bob", "cid", "dan"))
        + '[[rounds]]\ngame = "die-angler"\n',
        encoding="utf-8",
    )
    return file


def test_a_result_without_the_tournaments_state_is_refused_and_makes_no_new_one(tmp_path: Path) -> None:
    file = _tournament_file(tmp_path)
    data = tmp_path / "data"
    entry = ["--table", "t1", "--round", "1", "--score", "ann=3", "--score", "cid=5", "--by", "Yuki"]
    for extra in ([], ["--db", str(tmp_path / "elsewhere.sqlite3")]):
        res = dicetable("tournament-result", str(file), *entry, *extra, data_dir=data)
        assert res.returncode == 2, res.stdout + res.stderr
        assert "no tournament state there" in res.stderr and "--db" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
    for command in ("tournament-log", "tournament-export"):
        res = dicetable(command, str(file), data_dir=data)
        assert res.returncode == 2 and "no tournament state there" in res.stderr, res.stdout + res.stderr
    assert not list(tmp_path.rglob("*.sqlite3"))  # nothing made: not in the data directory, not at --db
    # where the tournament keeps its state, the result is taken
    data.mkdir()
    t = Tournament(load_tournament(file), data / "tournament-open.sqlite3")
    t.start_next_round()
    t.close()
    res = dicetable("tournament-result", str(file), *entry, data_dir=data)
    assert res.returncode == 0 and "round 1, t1: cid won" in res.stdout, res.stdout + res.stderr


def test_log_check_says_a_file_that_is_not_a_log_is_not_one(tmp_path: Path) -> None:
    notes = tmp_path / "notes.sqlite3"
    notes.write_text("hello\n", encoding="utf-8")
    other = tmp_path / "standings.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE standings (player TEXT)")
    for path, why in (
        (notes, "not an SQLite file"),
        (other, "without an events table; its tables: standings"),
    ):
        for args in (
            ("log", "check", str(path)),
            ("log", "salvage", str(path), "--out", str(tmp_path / "n.db")),
        ):
            res = dicetable(*args)
            out = res.stdout + res.stderr
            assert res.returncode == 2, out
            assert f"{path}: not a dicetable event log" in out and why in out, out
            assert "DAMAGED" not in out and "Traceback" not in out
    assert not (tmp_path / "n.db").exists()
