"""A table restarted from its event log comes back with the status the referee left it in
(`controller.ledger.logged_status`): paused stays paused (no throw scored until started again),
ended stays ended, the last control logged wins; a live table and a resumed recording alike, and
the display's /api/state says so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.script import Scripted
from controller.session import mock_pins
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from tests.controller.test_resume_lines import _play  # a recording fed as controller.live.play feeds it

IMAGE = np.zeros((48, 64, 3), np.uint8)
PLAYERS = [
    {"name": "ann", "colour": "red"},
    {"name": "bob", "colour": "blue"},
    {"name": "cid", "colour": "green"},
]
#: a throw the camera reads sure: scored at once while playing
SURE = [
    {"kind": "d6", "value": v, "confidence": 0.99, "colour": "red", "center": [10.0 + 20 * i, 10.0]}
    for i, v in enumerate([2, 3, 4, 5, 6])
]


def _table(db: Path, resume: bool = True) -> Table:
    players = [{**p, "pins": mock_pins(i).model_dump()} for i, p in enumerate(PLAYERS)]
    cfg = parse_config(
        {"table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3}, "players": players}
    )
    return Table(cfg, EventLog(db), reader=lambda image: [dict(d) for d in SURE], resume=resume)


def _killed(table: Table) -> None:
    table.panels.close()
    table.log.close()


def _rolls(table: Table) -> int:
    return sum(1 for e in table.log.inputs(table.game_no) if e.data.get("type") == "roll")


def test_a_paused_live_table_restarts_paused_and_scores_nothing_until_started(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    first = _table(db, resume=False)
    first.correct({"action": "pause"}, "ref")
    _killed(first)
    table = _table(db)
    assert table.resumed and table.status == "paused"  # it came back "playing"
    client = TestClient(create_app(table, Hub(), admin_token="tok", loopback_only_admin=False))
    snap = client.get("/api/state").json()
    assert snap["status"] == "paused" and snap["waiting_for"] == "the referee to resume (paused)"
    table.on_settled(IMAGE, 2.0, 2.0)
    assert _rolls(table) == 0 and table.readings()["dice"] == []  # a paused table reads no throw
    with pytest.raises(ValueError, match="only a playing game can be paused"):
        table.correct({"action": "pause"}, "ref")
    assert table.correct({"action": "start"}, "ref")["message"] == "game playing"
    table.on_settled(IMAGE, 3.0, 3.0)
    assert _rolls(table) == 1 and table.game.state["dice"] == [2, 3, 4, 5, 6]
    _killed(table)


def test_an_ended_live_table_restarts_ended_and_stays_so(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    first = _table(db, resume=False)
    first.correct({"action": "end"}, "ref")
    state = first.game.state
    _killed(first)
    table = _table(db)
    assert table.resumed and table.status == "over"
    snap = table.snapshot()
    assert snap["status"] == "over" and snap["waiting_for"] == "nothing: the game was ended"
    table.on_settled(IMAGE, 1.0, 1.0)
    assert _rolls(table) == 0 and table.game.state == state
    with pytest.raises(ValueError, match="the game is over"):
        table.correct({"action": "start"}, "ref")
    _killed(table)
    again = _table(db)  # and again: still the same ended game
    assert again.game_no == table.game_no and again.status == "over"
    _killed(again)


@pytest.mark.parametrize(
    ("controls", "status"),
    [
        (["pause", "start"], "playing"),
        (["pause", "end"], "over"),
        (["pause", "start", "pause"], "paused"),
        (["pause", "undo"], "playing"),  # an undo reopens the game, as it does at the table
    ],
)
def test_the_last_control_logged_wins(tmp_path: Path, controls: list[str], status: str) -> None:
    db = tmp_path / "t.sqlite3"
    first = _table(db, resume=False)
    first.on_settled(IMAGE, 1.0, 1.0)
    for action in controls:
        first.correct({"action": action}, "ref")
    assert first.status == status
    _killed(first)
    table = _table(db)
    assert table.status == status
    _killed(table)


def test_a_recording_paused_from_the_admin_page_resumes_paused(tmp_path: Path) -> None:
    """The referee pauses a recorded session on the admin page (no line of its script, so nothing
    feeds it again): the resumed recording is paused too."""
    db = tmp_path / "t.sqlite3"
    first = _table(db, resume=False)
    _play(first, [], 2.0)
    assert _rolls(first) == 1
    first.correct({"action": "pause"}, "ref")
    _killed(first)
    table = _table(db)
    point = table.resume_point
    assert point is not None
    _play(table, [], 3.0, point)
    assert table.status == "paused" and _rolls(table) == 1
    _killed(table)


def test_a_recording_resumed_before_its_logged_pause_line_pauses_once(tmp_path: Path) -> None:
    """A scripted pause the log holds is fed again by the resumed recording (`commands.again`): the
    status restored from the log leaves it out, so it is not refused as a second pause."""
    db = tmp_path / "t.sqlite3"
    script = [Scripted(1.5, "admin", correction={"action": "pause"}, who="ref")]
    first = _table(db, resume=False)
    _play(first, script, 2.0)
    assert first.status == "paused"
    _killed(first)
    table = _table(db)
    assert table.status == "paused"  # as the log left it
    point = table.resume_point
    assert point is not None and point.get("lines") == [1]
    seen: list[str] = []
    table.listeners.append(lambda snap: seen.append(snap["status"]))
    _play(table, script, 3.0, point)
    assert seen[-1] == "paused" and table.status == "paused" and _rolls(table) == 1
    assert sum(1 for e in table.log.events(table.game_no) if e.data.get("action") == "pause") == 1
    _killed(table)
