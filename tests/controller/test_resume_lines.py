"""A recorded session killed right after a scripted answer or control (`controller.ledger.resume_point`,
the ``position`` marks ``via`` "line"): resumed, the throw asked about is read again and each line the
log holds does to the table what it did, logged once; the game ends as an uninterrupted run ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.live import _seen
from controller.script import Scripted
from controller.session import mock_pins
from controller.table import Table

IMAGE = np.zeros((48, 64, 3), np.uint8)
PLAYERS = [
    {"name": "ann", "colour": "red"},
    {"name": "bob", "colour": "blue"},
    {"name": "cid", "colour": "green"},
]
#: ann's throw: two dice the camera is unsure of (the table asks about them)
THROW = [
    {"kind": "d6", "value": v, "confidence": c, "colour": "red", "center": [10.0 + 20 * i, 10.0]}
    for i, (v, c) in enumerate([(3, 0.99), (3, 0.3), (3, 0.99), (5, 0.3), (6, 0.99)])
]


def _table(db: Path, resume: bool) -> Table:
    players = [{**p, "pins": mock_pins(i).model_dump()} for i, p in enumerate(PLAYERS)]
    cfg = parse_config(
        {"table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3}, "players": players}
    )
    return Table(cfg, EventLog(db), reader=lambda image: [dict(d) for d in THROW], resume=resume)


def _play(table: Table, script: list[Scripted], until: float, point: dict[str, Any] | None = None) -> None:
    """The recording as `controller.live.play` feeds it: ann's throw settles at t=1 (read only if the
    resume point has not seen it), then ticks each half second to ``until``."""
    table.pending = list(script)
    if point is not None:
        table.skip_to(point)
    t = 1.0
    while t <= until:
        if point is None or not _seen(point, t):
            table.tick(t)
            if t == 1.0:
                table.on_settled(IMAGE, t, t)
        t += 0.5


def _rows(table: Table, **match: Any) -> int:
    return sum(
        1
        for e in table.log.events(table.game_no)
        if e.kind == "control" and all(e.data.get(k) == v for k, v in match.items())
    )


def _killed_and_resumed(
    tmp_path: Path, script: list[Scripted], kill: float, end: float
) -> tuple[Table, Table]:
    """An uninterrupted run of ``script`` to ``end``, and one killed after its tick at ``kill`` and
    resumed from its log to ``end``."""
    whole = _table(tmp_path / "whole.sqlite3", resume=False)
    _play(whole, script, end)
    first = _table(tmp_path / "t.sqlite3", resume=False)
    _play(first, script, kill)
    first.log.close()  # killed here
    table = _table(tmp_path / "t.sqlite3", resume=True)
    assert table.resumed
    _play(table, script, end, table.resume_point)
    return whole, table


def test_a_recording_killed_right_after_a_scripted_answer_answers_once(tmp_path: Path) -> None:
    """The first of two answers is logged, then a kill: the throw is read again and the answer changes
    it as it did, not logged again (it used to be fed and logged a second time)."""
    script = [
        Scripted(2.0, "admin", correction={"action": "set_value", "value": 4}, who="ref"),
        Scripted(3.0, "admin", correction={"action": "confirm"}, who="ref"),
    ]
    whole, table = _killed_and_resumed(tmp_path, script, kill=2.0, end=4.0)
    assert whole.game.state["dice"] == [3, 3, 4, 5, 6]
    assert table.game.state == whole.game.state
    assert _rows(table, correction="set_value") == 1 and _rows(table, correction="confirm") == 1
    assert [e.data for e in table.log.inputs(table.game_no)] == [
        e.data for e in whole.log.inputs(whole.game_no)
    ]
    whole.log.close()
    table.log.close()


def test_a_recording_killed_right_after_a_scripted_pause_pauses_once(tmp_path: Path) -> None:
    """A pause while the throw is asked about, then a kill: resumed, the throw is read again, the table
    pauses where it did (the pause not logged twice), starts again and the answer scores the throw."""
    script = [
        Scripted(1.5, "admin", correction={"action": "pause"}, who="ref"),
        Scripted(2.5, "admin", correction={"action": "start"}, who="ref"),
        Scripted(3.0, "admin", correction={"action": "set_value", "value": 4}, who="ref"),
        Scripted(3.5, "admin", correction={"action": "confirm"}, who="ref"),
    ]
    whole, table = _killed_and_resumed(tmp_path, script, kill=2.0, end=4.0)
    assert whole.game.state["dice"] == [3, 3, 4, 5, 6] and table.game.state == whole.game.state
    assert _rows(table, action="pause") == 1 and _rows(table, action="start") == 1
    whole.log.close()
    table.log.close()


def test_a_recording_killed_paused_resumes_paused(tmp_path: Path) -> None:
    script = [Scripted(1.5, "admin", correction={"action": "pause"}, who="ref")]
    first = _table(tmp_path / "t.sqlite3", resume=False)
    _play(first, script, 2.0)
    assert first.status == "paused"
    first.log.close()
    table = _table(tmp_path / "t.sqlite3", resume=True)
    point = table.resume_point
    assert point is not None and point["lines"] == [1]  # the pause's line, logged
    _play(table, script, 3.0, point)
    assert table.status == "paused" and _rows(table, action="pause") == 1
    table.log.close()


def test_a_recording_killed_right_after_a_scripted_end_stays_over(tmp_path: Path) -> None:
    script = [
        Scripted(2.0, "admin", correction={"action": "set_value", "value": 4}, who="ref"),
        Scripted(2.5, "admin", correction={"action": "end"}, who="ref"),
    ]
    whole, table = _killed_and_resumed(tmp_path, script, kill=2.5, end=3.0)
    assert whole.status == "over" and table.status == "over"
    assert _rows(table, action="end") == 1 and _rows(table, correction="set_value") == 1
    whole.log.close()
    table.log.close()


def test_the_resume_point_is_the_last_step_with_the_lines_logged_since() -> None:
    from controller.eventlog import Event
    from controller.ledger import START, resume_point

    def mark(seq: int, t: float, via: str, script: int, inputs: int) -> Event:
        data = {"action": "position", "t": t, "via": via, "script": script, "edges": 0, "inputs": inputs}
        return Event(seq=seq, game=1, t=0.0, kind="control", source="table", player=None, data=data)

    lines = [mark(1, 2.0, "line", 1, 0), mark(3, 2.5, "line", 2, 0)]
    assert resume_point(lines) == {**START, "lines": [1, 2]}  # answers before any step: from the start
    roll = Event(seq=5, game=1, t=0.0, kind="input", source="camera", player="ann", data={"type": "roll"})
    step = mark(4, 3.0, "camera", 2, 1)
    assert resume_point([*lines, step, roll]) == step.data
    assert resume_point([*lines, step, roll, mark(6, 4.0, "line", 3, 1)]) == {**step.data, "lines": [3]}
