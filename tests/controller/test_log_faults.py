"""A full disk, read-only media and a damaged log: the real cause reaches the user, nothing shown is
unlogged, the table waits and carries on, and every intact event of a damaged log can be kept."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from controller.config import parse_config
from controller.eventlog import EventLog, LogError, LogWriteError
from controller.scenario import Setup
from controller.script import Scripted
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from engine import Input, InputKind

ROOT = Path(__file__).resolve().parents[2]
#: the table's camera (a file names one: issue 42); the demo recording, never opened past its first frame
CAMERA = f'[camera]\nsource = "recorded:{ROOT / "tests/fixtures/sessions/dice-hunter-demo"}"\n'
FULL = "database or disk is full"


def dicetable(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        **kw,
    )


def fill(ev: EventLog) -> None:
    """Make the log's file as full as a full disk: no page can be added, and every page is full.

    The padding goes to game 0, which no table plays (games are numbered from 1)."""
    ev._db.execute("PRAGMA max_page_count = 1")  # SQLite keeps it at the file's current size
    with contextlib.suppress(LogWriteError):
        for _ in range(10_000):
            ev.append(0, "control", {"padding": "x" * 40}, "table")


def space_returns(ev: EventLog) -> None:
    ev._db.execute("PRAGMA max_page_count = 1073741823")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hunter_table(tmp_path: Path, reader: Any = None, clock: Any = None) -> Table:
    cfg = parse_config(
        {
            "table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3},
            "players": [
                {"name": "ann", "colour": "red"},
                {"name": "bob", "colour": "blue"},
                {"name": "cid", "colour": "green"},
            ],
        }
    )
    return Table(cfg, EventLog(tmp_path / "t.sqlite3"), reader=reader, clock=clock or Clock())


# -- a full disk -------------------------------------------------------------------------------------------


def test_a_full_disk_names_the_real_cause_and_writes_nothing(tmp_path: Path) -> None:
    ev = EventLog(tmp_path / "t.sqlite3")
    game = ev.start_game(Setup("dice-hunter", ("ann", "bob", "cid"), {"deck": "virtual"}, 1))
    fill(ev)
    before = ev.count(game)
    roll = Input(InputKind.ROLL, "ann", {"dice": [1, 1, 5, 2, 3]})
    with pytest.raises(LogWriteError, match=FULL) as err:
        ev.append_inputs(game, [(roll, []), (roll, [])], "camera")
    assert "rollback" not in str(err.value) and str(ev.path) in str(err.value)
    assert ev.count(game) == before  # neither input of the group
    space_returns(ev)
    ev.append_input(game, roll, [], "camera")  # no transaction was left open
    assert ev.count(game) == before + 1
    ev.close()


def test_admin_pause_start_and_end_on_a_full_disk_answer_503_and_change_nothing(tmp_path: Path) -> None:
    table = hunter_table(tmp_path)
    client = TestClient(create_app(table, Hub()), client=("127.0.0.1", 5000))
    fill(table.log)
    for action in ("pause", "end"):
        reply = client.post("/api/admin/correct", json={"who": "ref", "command": {"action": action}})
        assert reply.status_code == 503, reply.text
        assert FULL in reply.json()["error"]
        assert client.get("/api/state").json()["status"] == "playing"
    space_returns(table.log)
    reply = client.post("/api/admin/correct", json={"who": "ref", "command": {"action": "pause"}})
    assert reply.status_code == 200 and client.get("/api/state").json()["status"] == "paused"
    assert [e.data["action"] for e in table.log.events(table.game_no) if e.kind == "control"] == ["pause"]
    table.log.close()


def test_a_throw_on_a_full_disk_waits_and_is_scored_when_space_returns(tmp_path: Path) -> None:
    clock = Clock()
    dice = [{"kind": "d6", "value": v, "confidence": 0.99, "colour": "red"} for v in (1, 1, 1, 5, 2)]
    table = hunter_table(tmp_path, reader=lambda image: dice, clock=clock)
    shown: list[dict[str, Any]] = []
    table.listeners.append(shown.append)
    state = json.dumps(table.game.state, sort_keys=True)
    seq = table.snapshot()["seq"]
    fill(table.log)
    frame = np.zeros((60, 80, 3), np.uint8)
    table.on_settled(frame, 10.0, 10.0)
    snap = table.snapshot()
    assert FULL in (snap["notice"] or "") and "tries again" in snap["notice"]
    assert snap["seq"] == seq and table.readings()["dice"] == []  # nothing shown that is not logged
    assert json.dumps(table.game.state, sort_keys=True) == state
    assert all(s["seq"] == seq for s in shown)
    clock.now += 5
    table.tick(11.0)  # still full: tried again, still held
    assert table.game.state["roll"] == 0 and FULL in (table.snapshot()["notice"] or "")
    space_returns(table.log)
    clock.now += 5
    table.tick(12.0)
    snap = table.snapshot()
    assert snap["notice"] is None and snap["seq"] > seq
    assert len(table.readings()["dice"]) == 5
    assert table.game.state != json.loads(state), "the held throw was scored once space returned"
    table.log.close()


def test_a_throw_that_settles_while_a_write_is_held_is_read_once_it_is_written(tmp_path: Path) -> None:
    """Issue 31 item 6: the dice still lie there when the held write succeeds, so they are read then."""
    clock = Clock()
    dice = [{"kind": "d6", "value": v, "confidence": 0.99, "colour": "red"} for v in (1, 1, 1, 5, 2)]
    table = hunter_table(tmp_path, reader=lambda image: [dict(d) for d in dice], clock=clock)
    frame = np.zeros((60, 80, 3), np.uint8)
    table.on_settled(frame, 10.0, 10.0)  # ann's roll, scored
    assert table.game.expects().kind is InputKind.CHOICE
    fill(table.log)
    table.pending = [Scripted(11.0, "admin", input=Input(InputKind.CHOICE, "ann", {"take": "trio"}))]
    table.tick(11.0)  # ann's choice cannot be logged: held
    assert FULL in (table.snapshot()["notice"] or "")
    dice[:] = [{"kind": "d6", "value": v, "confidence": 0.99, "colour": "blue"} for v in (4, 4, 4, 2, 6)]
    table.on_settled(frame, 12.0, 12.0)  # bob throws while the choice waits for the disk
    space_returns(table.log)
    clock.now += 5
    table.tick(13.0)
    assert table.snapshot()["notice"] is None
    rolls = [e.player for e in table.log.inputs(table.game_no) if e.data.get("type") == "roll"]
    assert rolls == ["ann", "bob"], "bob's throw was never read"
    assert table.readings()["dice"][0]["colour"] == "blue"
    assert table.game.expects().players == ("bob",)
    table.log.close()


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (96 * 1024, 96 * 1024))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)


@contextlib.contextmanager
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, Any, str]]:
    """A folder on a 160 KB disk (a tmpfs, as root: a real ENOSPC, which SQLite calls a full disk);
    else a file-size limit on the process (EFBIG, which SQLite calls a disk I/O error)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() == 0:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(disk)], capture_output=True
        )
        if mounted.returncode == 0:
            try:
                yield disk, None, FULL
            finally:
                subprocess.run(["umount", str(disk)], capture_output=True)
            return
    yield disk, _limit_file_size, "disk I/O error"


@pytest.mark.slow
def test_demo_on_a_full_disk_ends_with_the_real_cause_not_a_traceback(tmp_path: Path) -> None:
    with small_disk(tmp_path) as (disk, limit, cause):
        res = subprocess.run(
            [sys.executable, "-m", "controller", "demo", "--no-serve", "--db", str(disk / "d.sqlite3")],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
            preexec_fn=limit,
        )
    assert res.returncode == 2, res.stderr[-3000:]
    assert "Traceback" not in res.stderr
    assert cause in res.stderr and "d.sqlite3: the event log cannot be written" in res.stderr, res.stderr


# -- a damaged log -------------------------------------------------------------------------------------------


def long_log(path: Path, n: int = 1500) -> list[dict[str, Any]]:
    """A log of one game with ``n`` logged rows after its setup (several dozen pages)."""
    with EventLog(path) as ev:
        game = ev.start_game(Setup("dice-hunter", ("ann", "bob", "cid"), {"deck": "virtual"}, 1))
        for i in range(n):
            ev.append(game, "reading", {"t": i, "dice": [{"id": f"r{i}.1", "value": i % 6 + 1}]}, "camera")
        return [e.to_json() for e in ev.events(game)]


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    page = 4096
    mid = (len(data) // page // 2) * page
    rng = random.Random(7)
    if how == "random":  # random bytes over the middle of a page
        data[mid + 100 : mid + 1100] = bytes(rng.randrange(256) for _ in range(1000))
    else:  # a few flipped bytes in a page's header and cell pointers
        for off in (0, 1, 3, 5, 8, 9):
            data[mid + off] ^= 0xFF
    path.write_bytes(bytes(data))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("how", ["random", "flipped"])
def test_a_damaged_log_is_refused_clearly_everywhere_and_salvaged(how: str, tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    original = long_log(db)
    damage(db, how)
    sha = _sha(db)

    with pytest.raises(LogError, match="damaged") as err:
        EventLog(db)
    assert "dicetable log salvage" in str(err.value)
    res = dicetable("replay", str(db))
    assert res.returncode == 2 and "Traceback" not in res.stderr and "damaged" in res.stderr, res.stderr

    toml = tmp_path / "table.toml"
    toml.write_text(f'{CAMERA}[database]\npath = "{db}"\n[leds]\nurl = "emu://"\n', encoding="utf-8")
    res = dicetable("run", "--config", str(toml))
    assert res.returncode == 2 and "Traceback" not in res.stderr and "damaged" in res.stderr, res.stderr
    assert _sha(db) == sha, "run wrote to a damaged log"

    res = dicetable("log", "check", str(db))
    assert res.returncode == 1 and "DAMAGED" in res.stdout and "Traceback" not in res.stderr, res.stderr

    out = tmp_path / "salvaged.sqlite3"
    res = dicetable("log", "salvage", str(db), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert _sha(db) == sha, "salvage changed the damaged log"
    with EventLog(out) as ev:
        kept = [e.to_json() for e in ev.events(1)]
    assert kept, "nothing salvaged"
    assert all(e in original for e in kept), "salvage made up an event"
    lost = len(original) - len(kept)
    assert 0 < lost <= 120, f"{lost} events lost to one damaged page"
    assert dicetable("log", "check", str(out)).returncode == 0


def test_log_check_passes_a_sound_log_and_salvage_keeps_it_whole(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    original = long_log(db, 300)
    res = dicetable("log", "check", str(db))
    assert res.returncode == 0 and "OK" in res.stdout and "game 1: replays" in res.stdout
    out = tmp_path / "copy.sqlite3"
    assert dicetable("log", "salvage", str(db), "--out", str(out)).returncode == 0
    with EventLog(out) as ev:
        assert [e.to_json() for e in ev.events(1)] == original
    res = dicetable("log", "salvage", str(db), "--out", str(out))
    assert res.returncode == 2 and "already exists" in res.stderr


def test_not_a_log_is_named_clearly(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    for args in (("replay", str(junk)), ("log", "check", str(junk))):
        res = dicetable(*args)
        assert (
            res.returncode in (1, 2)
            and "Traceback" not in res.stderr
            and str(junk) in res.stderr + res.stdout
        )


# -- read-only media --------------------------------------------------------------------------------------


@contextlib.contextmanager
def read_only_media(tmp_path: Path, files: list[Path]) -> Iterator[Path]:
    """A folder holding ``files`` that cannot be written: a read-only bind mount when run as root
    (root ignores file modes), else a folder without write permission."""
    src = tmp_path / "media"
    src.mkdir()
    for f in files:
        shutil.copy2(f, src / f.name)
    if os.geteuid() != 0:
        for f in src.iterdir():
            f.chmod(0o444)
        src.chmod(0o555)
        try:
            yield src
        finally:
            src.chmod(0o755)
        return
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "--bind", str(src), str(mnt)], capture_output=True).returncode != 0:
        pytest.skip("running as root without permission to mount a read-only folder")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], check=True, capture_output=True)
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_replay_reads_a_log_on_read_only_media_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite3"
    res = dicetable("replay", str(ROOT / "tests/scenarios/dice-hunter/late-game-4p.jsonl"), "--log", str(db))
    assert res.returncode == 0, res.stderr
    want = json.loads(res.stdout)
    with read_only_media(tmp_path, [db]) as media:
        res = dicetable("replay", str(media / db.name))
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout) == want
    sha = _sha(db)
    names = sorted(p.name for p in tmp_path.iterdir())
    res = dicetable("replay", str(db))
    assert res.returncode == 0 and _sha(db) == sha and sorted(p.name for p in tmp_path.iterdir()) == names


def test_run_on_read_only_media_says_so_never_damaged_nor_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite3"
    res = dicetable("replay", str(ROOT / "tests/scenarios/dice-hunter/late-game-4p.jsonl"), "--log", str(db))
    assert res.returncode == 0, res.stderr
    with read_only_media(tmp_path, [db]) as media:
        for log in (media / db.name, media / "new" / "folder" / "t.sqlite3", media / "fresh.sqlite3"):
            toml = tmp_path / "table.toml"
            toml.write_text(f'{CAMERA}[database]\npath = "{log}"\n[leds]\nurl = "emu://"\n', encoding="utf-8")
            res = dicetable("run", "--config", str(toml))
            assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
            assert "damaged" not in res.stderr and str(log) in res.stderr, res.stderr
            assert "read-only" in res.stderr.lower() or "Read-only" in res.stderr, res.stderr
        assert sorted(p.name for p in media.iterdir()) == [db.name]


def test_stats_read_an_intact_log_on_read_only_media(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite3"
    res = dicetable("replay", str(ROOT / "tests/scenarios/dice-hunter/late-game-4p.jsonl"), "--log", str(db))
    assert res.returncode == 0, res.stderr
    with read_only_media(tmp_path, [db]) as media:
        res = dicetable("stats", str(media / db.name), "--json")
        assert res.returncode == 0 and "damaged" not in res.stderr, res.stderr
        json.loads(res.stdout)
