"""Issue 47, item 5: `dicetable log salvage` reads the file's pages, not only its schema.  A damaged
header, schema or b-tree costs only the events whose own bytes are damaged, a truncated log keeps
every event on the pages it still holds, and the report says how many rows it lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.log_salvage import game_log
from controller.eventlog import EventLog, LogError, replay_events
from controller.logpages import _Pages
from controller.logrepair import read_intact, salvage
from controller.scenario import Setup

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("sound") / "sound.sqlite3"
    game_log(path)
    return path.read_bytes()


def replays(path: Path) -> None:
    assert read_intact(path).ok, read_intact(path).text()
    with EventLog(path, read_only=True) as ev:
        for game in {e.game for e in ev.events()}:
            replay_events(ev.events(game), str(path))


def test_every_single_byte_damage_of_the_header_keeps_every_event(tmp_path: Path, sound: bytes) -> None:
    total = len(read_intact(_write(tmp_path / "sound.sqlite3", sound)).events)
    short = []
    for at in range(100):  # the file header: magic, page size, versions, counters, schema cookie
        damaged = bytearray(sound)
        damaged[at] ^= 0xFF
        db = _write(tmp_path / f"h{at}.sqlite3", bytes(damaged))
        try:
            report = salvage(db, tmp_path / f"s{at}.sqlite3")
        except LogError as e:
            short.append((at, str(e)[:80]))
            continue
        if report.written != total or report.lost:
            short.append((at, f"{report.written} of {total} kept, {len(report.lost)} lost"))
    assert short == [], short
    replays(tmp_path / "s16.sqlite3")  # the page size's own bytes garbled: still a log that replays


def test_a_damaged_schema_or_b_tree_page_costs_no_event(tmp_path: Path, sound: bytes) -> None:
    total = len(read_intact(_write(tmp_path / "sound.sqlite3", sound)).events)
    for name, lo, hi in (("schema", 0, 4096), ("root", 4096, 8192), ("both", 0, 8192)):
        damaged = bytearray(sound)
        damaged[lo:hi] = bytes(hi - lo)  # the page(s) zeroed: sqlite_master, the events b-tree's root
        db = _write(tmp_path / f"{name}.sqlite3", bytes(damaged))
        report = salvage(db, tmp_path / f"s-{name}.sqlite3")
        assert (report.written, report.lost) == (total, []), (name, report.text())
        assert report.from_pages == total and "read from the file's pages" in report.text()
        replays(tmp_path / f"s-{name}.sqlite3")


def test_a_truncated_log_keeps_every_event_on_the_pages_it_holds_and_counts_the_rest(
    tmp_path: Path, sound: bytes
) -> None:
    cut = 40_000
    pages = _Pages(sound, 4096, 0)
    whole = cut // 4096  # the events on these pages are intact: every one must be kept
    on_whole = {rowid for no in range(1, whole + 1) for kind, rowid, v in pages.cells(no) if len(v) == 7}
    total = len(read_intact(_write(tmp_path / "sound.sqlite3", sound)).events)
    db = _write(tmp_path / "cut.sqlite3", sound[:cut])
    report = salvage(db, tmp_path / "salvaged.sqlite3")
    kept = {e.seq for e in report.events}
    assert on_whole <= kept and len(on_whole) > 50
    assert len(report.lost) == total - len(kept) and report.lost_exact  # exactly how many it lost
    assert f"rows lost: {total - len(kept)}" in report.text()
    assert report.written > 50
    replays(tmp_path / "salvaged.sqlite3")


def test_an_event_spilling_over_onto_overflow_pages_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.sqlite3"
    setup = Setup.from_json({"game": "dice-hunter", "players": ["ann", "bob", "cid"], "seed": 7})
    big = {"t": 1.0, "pad": "".join(f"{i:05d}" for i in range(4000))}  # 20 KB: five overflow pages
    with EventLog(path) as ev:
        game = ev.start_game(setup)
        ev.append(game, "reading", big, "camera")
        ev.append(game, "reading", {"t": 2.0}, "camera")
    damaged = bytearray(path.read_bytes())
    damaged[16:18] = b"\x00\x07"  # the page size: not one SQLite allows
    db = _write(tmp_path / "bad.sqlite3", bytes(damaged))
    report = read_intact(db)
    assert [e.data for e in report.events if e.kind == "reading"] == [big, {"t": 2.0}]
    assert report.lost == [] and report.problems


def test_not_a_log_is_still_refused_and_the_cli_says_what_it_salvaged(tmp_path: Path, sound: bytes) -> None:
    text = tmp_path / "notes.sqlite3"
    text.write_text("SQLite format 2 is a text file, not a log\n" * 200, encoding="utf-8")
    with pytest.raises(LogError, match="not a dicetable event log"):
        read_intact(text)
    damaged = bytearray(sound)
    damaged[0] ^= 0xFF  # the magic's first byte
    db = _write(tmp_path / "magic.sqlite3", bytes(damaged))
    out = tmp_path / "salvaged.sqlite3"
    res = subprocess.run(
        [sys.executable, "-m", "controller", "log", "salvage", str(db), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert "header is damaged" in res.stdout and "rows lost: 0" in res.stdout, res.stdout
    assert "intact events written; it replays" in res.stdout


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
