"""A recorded session resumed after an undo (`controller.ledger.resume_point`, the ``position`` marks):
it goes on from where the recording stood, replaying nothing the log already holds, undone or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.ledger import resume_point
from controller.script import Scripted
from controller.session import mock_pins
from controller.table import Table

IMAGE = np.zeros((48, 64, 3), np.uint8)
PLAYERS = [
    {"name": "ann", "colour": "red"},
    {"name": "bob", "colour": "blue"},
    {"name": "cid", "colour": "green"},
]


class Camera:
    def __init__(self) -> None:
        self.next: list[dict[str, Any]] = []

    def __call__(self, image: np.ndarray) -> list[dict[str, Any]]:
        return [dict(d) for d in self.next]


def _table(db: Path, resume: bool) -> tuple[Table, Camera]:
    players = [{**p, "pins": mock_pins(i).model_dump()} for i, p in enumerate(PLAYERS)]
    cfg = parse_config(
        {"table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3}, "players": players}
    )
    cam = Camera()
    return Table(cfg, EventLog(db), reader=cam, resume=resume), cam


def _roll(values: tuple[int, ...]) -> list[dict[str, Any]]:
    return [
        {"kind": "d6", "value": v, "confidence": 0.99, "colour": "red", "center": [10.0 + 20 * i, 10.0]}
        for i, v in enumerate(values)
    ]


SCRIPT = [Scripted(2.0, "admin", correction={"action": "undo"}, who="ref")]


def _standing(table: Table) -> list[int]:
    return [e.seq for e in table.log.inputs(table.game_no)]


def test_a_recording_resumed_after_a_scripted_undo_does_not_undo_again(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    first, cam = _table(db, resume=False)
    first.pending = list(SCRIPT)
    cam.next = _roll((3, 3, 3, 5, 6))
    first.on_settled(IMAGE, 1.0, 1.0)  # ann's roll: logged with its position mark
    choice = first.game.expects()
    assert choice.kind.value == "choice"
    first.tick(2.0)  # the referee's scripted undo: the roll is undone
    assert _standing(first) == [] and first.game.expects().kind.value == "roll"
    cam.next = _roll((2, 2, 4, 4, 6))
    first.on_settled(IMAGE, 3.0, 3.0)  # the roll read again
    kept = _standing(first)
    assert len(kept) == 1
    first.log.close()  # killed here

    table, _ = _table(db, resume=True)
    assert table.resumed
    point = table.resume_point
    assert point is not None and point["t"] == 3.0  # the last mark, though an input before it is undone
    table.pending = list(SCRIPT)
    table.skip_to(point)
    table.tick(3.5)
    assert _standing(table) == kept  # the undo is not fed again: the roll read after it stands
    assert table.game.state["dice"] == [2, 2, 4, 4, 6]
    table.log.close()


def test_a_recording_killed_right_after_a_scripted_undo_resumes_past_it(tmp_path: Path) -> None:
    """The undo is logged in its own step; killed before anything else is logged, the recording used
    to resume at the mark before it and feed its line again, undoing the roll as well."""
    from engine import Input

    script = [
        Scripted(1.5, "button", input=Input.from_json({"type": "choice", "player": "ann", "take": "trio"})),
        Scripted(2.0, "admin", correction={"action": "undo"}, who="ref"),
    ]
    db = tmp_path / "t.sqlite3"
    first, cam = _table(db, resume=False)
    first.pending = list(script)
    cam.next = _roll((3, 3, 3, 5, 6))
    first.on_settled(IMAGE, 1.0, 1.0)
    first.tick(1.5)  # ann takes the trio
    assert first.game.state["holdings"]["ann"] == ["trio"]
    first.tick(2.0)  # the referee's scripted undo takes the choice back; then a kill
    roll = _standing(first)
    assert len(roll) == 1 and first.game.expects().kind.value == "choice"
    first.log.close()

    table, _ = _table(db, resume=True)
    point = table.resume_point
    assert point is not None
    table.pending = list(script)
    table.skip_to(point)
    table.tick(2.5)
    assert _standing(table) == roll  # the roll stands: the undo was not fed a second time
    assert len([e for e in table.log.events(table.game_no) if e.kind == "undo"]) == 1
    assert table.game.expects().kind.value == "choice"
    table.log.close()


def test_every_mark_of_a_whole_log_is_within_its_input_rows() -> None:
    """The marks count the inputs standing after their step; `resume_point` compares them with every
    input row the log holds (undone ones too): rows only grow, so a whole log's last mark is always
    taken.  Compared with the standing inputs instead, a mark before an undo would be passed over and
    the recording replayed from an earlier point (the undone throw read again)."""
    from controller.eventlog import Event

    def ev(seq: int, kind: str, data: dict[str, Any]) -> Event:
        return Event(seq=seq, game=1, t=0.0, kind=kind, source="camera", player=None, data=data)

    marks = [
        ev(
            2,
            "control",
            {"action": "position", "t": 1.0, "via": "camera", "script": 0, "edges": 0, "inputs": 1},
        ),
        ev(3, "input", {"type": "roll"}),
        ev(
            4,
            "control",
            {"action": "position", "t": 2.0, "via": "camera", "script": 0, "edges": 0, "inputs": 2},
        ),
        ev(5, "input", {"type": "choice"}),
        ev(6, "undo", {"undoes": 5}),
    ]
    assert resume_point(marks) == marks[2].data
