"""Issue 47, item 9: two referees answering one die at once.  An answer names the version of the
reading it saw; a second answer to a reading already answered is refused (409 over HTTP) naming who
answered it, and the throw is scored with the first answer's value, the one its referee was told."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from table_rig import Rig, d6

from display.app import create_app
from display.backend import AlreadyAnswered
from display.hub import Hub

TOKEN = "a-long-referee-token-4711"
ADMIN = {"X-Admin-Token": TOKEN}
UNSURE = [d6(2, confidence=0.4), d6(3), d6(4), d6(5), d6(6)]  # r1.1 is asked about


def test_two_answers_racing_for_one_die_the_second_is_refused_and_the_first_is_scored(rig: Rig) -> None:
    """Referee A's answer is logged and applied; before the table scores it, referee B answers the
    same die (the interleaving the probe hit in 2 of 3 races, made certain here)."""
    table = rig.table
    rig.settle(UNSURE)
    assert table.snapshot()["question"] is not None
    a_applied, b_done = threading.Event(), threading.Event()
    scoring = table._try_score

    def slow_score(*args: Any, **kw: Any) -> None:
        if threading.current_thread().name == "referee-A":
            a_applied.set()
            b_done.wait(10)  # A's answer is in; the throw is not scored yet
        scoring(*args, **kw)

    table._try_score = slow_score  # type: ignore[method-assign]
    said: dict[str, Any] = {}

    def referee_a() -> None:
        said["A"] = table.correct({"action": "set_value", "reading": "r1.1", "value": 1, "version": 0}, "Ann")

    a = threading.Thread(target=referee_a, name="referee-A")
    a.start()
    assert a_applied.wait(10)
    try:
        with pytest.raises(AlreadyAnswered, match=r"r1\.1 was already answered by Ann") as refused:
            table.correct({"action": "set_value", "reading": "r1.1", "value": 5, "version": 0}, "Bea")
        assert refused.value.who == "Ann"
    finally:
        b_done.set()
        a.join(10)
    assert said["A"]["message"] == "reading r1.1 set from 2 to 1"
    assert table.game.state["dice"] == [1, 3, 4, 5, 6]  # the value A was told was set
    rows = [e["data"] for e in table.events(0, 100) if e["kind"] == "control" and "correction" in e["data"]]
    assert [(r["correction"], r["to"], r["who"]) for r in rows] == [("set_value", 1, "Ann")]  # B: not logged


def test_over_http_a_stale_answer_is_a_409_naming_who_answered_and_a_fresh_one_is_taken(rig: Rig) -> None:
    client = TestClient(create_app(rig.table, Hub(), admin_token=TOKEN, loopback_only_admin=False))

    def post(command: dict[str, Any], who: str) -> Any:
        return client.post("/api/admin/correct", json={"who": who, "command": command}, headers=ADMIN)

    # two dice asked about: answering one leaves the throw unscored, so the race stays open
    rig.settle([d6(2, confidence=0.4), d6(3, confidence=0.4), d6(4), d6(5), d6(6)])
    seen = {d["id"]: d["version"] for d in client.get("/api/readings").json()["dice"]}
    assert seen == {f"r1.{i}": 0 for i in range(1, 6)}  # every reading names its version
    first = post({"action": "set_value", "reading": "r1.1", "value": 1, "version": seen["r1.1"]}, "Ann")
    assert first.status_code == 200, first.json()
    second = post({"action": "set_value", "reading": "r1.1", "value": 5, "version": seen["r1.1"]}, "Bea")
    assert second.status_code == 409
    assert "reading r1.1 was already answered by Ann" in second.json()["error"]
    unnamed = post({"action": "confirm", "reading": "r1.1"}, "Bea")  # no version: only a fresh reading
    assert unnamed.status_code == 409 and "already answered by Ann" in unnamed.json()["error"]
    now = {d["id"]: d for d in client.get("/api/readings").json()["dice"]}
    assert now["r1.1"]["value"] == 1 and now["r1.1"]["version"] == 1 and now["r1.1"]["answered_by"] == "Ann"
    # Bea sees Ann's answer (version 1) and still corrects it: taken
    again = post({"action": "set_value", "reading": "r1.1", "value": 6, "version": 1}, "Bea")
    assert again.status_code == 200, again.json()
    bad = post({"action": "confirm", "reading": "r1.2", "version": -1}, "Bea")
    assert bad.status_code == 422 and "version" in bad.text
    assert post({"action": "confirm", "reading": "r1.2", "version": 0}, "Bea").status_code == 200
    assert sorted(rig.table.game.state["dice"]) == [3, 4, 5, 6, 6]  # Bea's 6 for r1.1
