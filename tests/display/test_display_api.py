"""The JSON API and the admin rules, through FastAPI's test client, over a real table."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from table_rig import ANGLERS, FRAME, Rig, d6

from controller.table import Table
from display.app import create_app
from display.hub import Hub

TOKEN = "s3cret-token"
ADMIN = {"X-Admin-Token": TOKEN}
HUNTERS = [
    {"name": "ann", "colour": "red"},
    {"name": "bob", "colour": "blue"},
    {"name": "cid", "colour": "green"},
]


@pytest.fixture
def client(table: Table, hub: Hub) -> TestClient:
    return TestClient(create_app(table, hub, admin_token=TOKEN, loopback_only_admin=False))


def correct(client: TestClient, command: dict[str, Any], who: str = "ref") -> Any:
    return client.post("/api/admin/correct", json={"who": who, "command": command}, headers=ADMIN)


def state(client: TestClient) -> Any:
    return client.get("/api/state").json()


def test_state_reports_game_players_and_what_the_table_waits_for(client: TestClient) -> None:
    snap = state(client)
    assert snap["table"] == "t1" and snap["game"] == "dice-hunter"
    assert snap["players"] == HUNTERS
    assert snap["status"] == "playing" and snap["waiting_for"] == "roll from ann"
    assert correct(client, {"action": "pause"}).json()["message"] == "game paused"
    snap = state(client)
    assert snap["status"] == "paused" and snap["waiting_for"] == "the referee to resume (paused)"
    assert correct(client, {"action": "start"}).status_code == 200
    assert state(client)["waiting_for"] == "roll from ann"


def test_unsure_reading_waits_for_confirmation_then_scores(client: TestClient, rig: Rig) -> None:
    rig.settle([d6(3), d6(3), d6(3, confidence=0.4), d6(5), d6(6)])
    snap = state(client)
    assert snap["question"] == {
        "kind": "unsure",
        "readings": ["r1.3"],
        "text": "Is die r1.3 (red d6) a 3? Confirm or correct it.",
    }
    assert snap["waiting_for"] == "a person: " + snap["question"]["text"]
    assert snap["state"]["expects"]["kind"] == "roll"  # never silently scored
    readings = client.get("/api/readings").json()["dice"]
    assert [r["unsure"] for r in readings] == [False, False, True, False, False]
    reply = correct(client, {"action": "confirm", "reading": "r1.3"})
    assert reply.status_code == 200 and reply.json()["message"] == "reading r1.3 confirmed as 3"
    snap = state(client)
    assert snap["question"] is None and snap["state"]["dice"] == [3, 3, 3, 5, 6]
    assert snap["waiting_for"] == "choice from ann"
    correct(client, {"action": "input", "input": {"type": "choice", "player": "ann", "take": "trio"}})
    snap = state(client)
    assert snap["state"]["scores"]["ann"] == 200 and snap["waiting_for"] == "roll from bob"


def test_set_value_rescores_after_undo_of_the_scored_roll(client: TestClient, rig: Rig) -> None:
    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
    assert state(client)["state"]["dice"] == [3, 3, 3, 5, 6]
    refused = correct(client, {"action": "set_value", "reading": "r1.4", "value": 3})
    assert refused.status_code == 400
    assert "already scored: undo the last input first" in refused.json()["error"]
    assert correct(client, {"action": "undo"}).json()["message"] == "undid roll from ann"
    assert state(client)["waiting_for"] == "roll from ann"
    reply = correct(client, {"action": "set_value", "reading": "r1.4", "value": 3})
    assert reply.json()["message"] == "reading r1.4 set from 5 to 3"
    snap = state(client)
    assert snap["state"]["dice"] == [3, 3, 3, 3, 6] and snap["waiting_for"] == "choice from ann"
    correct(client, {"action": "input", "input": {"type": "choice", "player": "ann", "take": "quartet"}})
    assert state(client)["state"]["scores"]["ann"] == 300
    events = client.get("/api/events?offset=0&limit=500").json()["events"]
    corrections = [e for e in events if e["source"] == "correction"]
    assert [e["kind"] for e in corrections] == ["undo", "control"]  # the refused one left no trace
    assert {e["player"] for e in corrections} == {"ref"}


def test_refused_correction_changes_nothing(client: TestClient, rig: Rig) -> None:
    rig.settle([d6(3, confidence=0.4), d6(3), d6(3), d6(5), d6(6)])
    before = state(client)
    assert before["question"] is not None
    for command, why in [
        ({"action": "set_value", "reading": "r1.1", "value": 7}, "cannot show 7"),
        ({"action": "confirm", "reading": "r99"}, "'r99' is not in the latest frame"),
        (
            {"action": "input", "input": {"type": "roll", "player": "bob", "dice": [1, 2, 3, 4, 5]}},
            "may not give",
        ),
        (
            {"action": "input", "input": {"type": "roll", "player": "ann", "dice": [1]}},
            "the roll needs 5 dice, got 1",
        ),
        ({"action": "input", "input": {"type": "secret", "player": "ann"}}, "button panels"),
        ({"action": "input", "input": {"type": "dance"}}, "not one of"),
    ]:
        reply = correct(client, command)
        assert reply.status_code == 400, (command, reply.text)
        assert why in reply.json()["error"]
    assert state(client) == before
    assert client.get("/api/readings").json()["dice"][0]["value"] == 3


@pytest.mark.parametrize(
    "body, field",
    [
        ({"who": "ref", "command": {"action": "set_value", "reading": "r1", "value": "six"}}, "value"),
        ({"who": "ref", "command": {"action": "fly"}}, "command"),
        ({"who": "", "command": {"action": "undo"}}, "who"),
        ({"command": {"action": "undo"}}, "who"),
        ({"who": "ref", "command": {"action": "confirm"}}, "reading"),
        ({"who": "ref", "command": {"action": "undo", "extra": 1}}, "extra"),
    ],
)
def test_malformed_correction_gets_422_naming_the_field(client: TestClient, body: Any, field: str) -> None:
    reply = client.post("/api/admin/correct", json=body, headers=ADMIN)
    assert reply.status_code == 422
    assert field in reply.json()["error"]


def test_not_json_body_is_named(client: TestClient) -> None:
    reply = client.post(
        "/api/admin/correct", content=b"{nope", headers={**ADMIN, "Content-Type": "application/json"}
    )
    assert reply.status_code == 422 and "not valid JSON" in reply.json()["error"]


@pytest.mark.parametrize(
    "query, field",
    [("offset=-1", "offset"), ("limit=0", "limit"), ("limit=501", "limit"), ("offset=abc", "offset")],
)
def test_events_paging_is_validated(client: TestClient, query: str, field: str) -> None:
    reply = client.get(f"/api/events?{query}")
    assert reply.status_code == 422 and f"query.{field}" in reply.json()["error"]


def test_events_are_paged(client: TestClient) -> None:
    for _ in range(3):
        correct(client, {"action": "pause"})
        correct(client, {"action": "start"})
    everything = client.get("/api/events?limit=500").json()["events"]
    page = client.get("/api/events?offset=2&limit=3").json()
    assert page["total"] == len(everything) == 7  # the setup, then six corrections
    assert page["events"] == everything[2:5]
    assert [e["data"]["action"] for e in page["events"]] == ["start", "pause", "start"]
    assert [e["seq"] - everything[0]["seq"] for e in page["events"]] == [2, 3, 4]


def test_admin_needs_the_token(client: TestClient) -> None:
    body = {"who": "mallory", "command": {"action": "pause"}}
    assert client.post("/api/admin/correct", json=body).status_code == 401
    assert client.post("/api/admin/correct", json=body, headers={"X-Admin-Token": "guess"}).status_code == 401
    assert state(client)["status"] == "playing"
    page = client.get("/admin")
    assert page.status_code == 401 and "admin token" in page.text  # the login form
    assert client.post("/api/admin/login", json={"token": "guess"}).status_code == 401
    assert client.post("/api/admin/login", json={"token": TOKEN}).status_code == 200  # sets the cookie
    assert client.get("/admin").status_code == 200
    assert client.post("/api/admin/correct", json=body).status_code == 200
    assert state(client)["status"] == "paused"


def test_without_token_admin_is_loopback_only(table: Table, hub: Hub) -> None:
    app = create_app(table, hub, admin_token=None, loopback_only_admin=True)
    remote = TestClient(app)  # the test client's address is "testclient", not loopback
    assert remote.get("/admin").status_code == 403
    assert (
        remote.post("/api/admin/correct", json={"who": "x", "command": {"action": "start"}}).status_code
        == 403
    )
    local = TestClient(app, client=("127.0.0.1", 50000))
    assert local.get("/admin").status_code == 200
    assert (
        local.post("/api/admin/correct", json={"who": "x", "command": {"action": "start"}}).status_code == 200
    )


def test_public_pages_are_read_only(client: TestClient) -> None:
    assert client.post("/api/state", json={}).status_code == 405
    assert client.put("/api/events").status_code == 405
    for page in ("/", "/camera"):
        assert client.get(page).status_code == 200


def test_frame_is_the_settled_frame_as_jpeg(client: TestClient, rig: Rig) -> None:
    assert client.get("/api/frame.jpg").status_code == 404
    quad = [[300, 150], [340, 150], [340, 190], [300, 190]]
    frame = FRAME.copy()
    cv2.fillConvexPoly(frame, np.array(quad, np.int32), (40, 40, 200))  # a red die where it is read
    rig.settle([d6(6, "red", quad=quad, center=[320, 170])], frame)
    reply = client.get("/api/frame.jpg")
    assert reply.headers["content-type"] == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(reply.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == FRAME.shape
    read = np.array(client.get("/api/readings").json()["dice"][0]["quad"], int)
    (x0, y0), (x1, y1) = read.min(axis=0), read.max(axis=0)
    patch = img[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4].reshape(-1, 3).astype(int)
    assert ((patch[:, 2] > 150) & (patch[:, 1] < 110)).mean() > 0.9  # the red die is where its reading says
    assert np.abs(img.astype(int) - FRAME).mean() < 3  # and the rest is the felt the camera saw


def test_openapi_lists_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/state", "/api/events", "/api/readings", "/api/frame.jpg", "/api/admin/correct"):
        assert p in paths


def test_websocket_pushes_each_new_event(client: TestClient, table: Table) -> None:
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "snapshot" and first["snapshot"]["seq"] == 1  # the setup row
        table.correct({"action": "pause"}, "ref")
        pushed = ws.receive_json()["snapshot"]
        assert pushed["seq"] == 2 and pushed["status"] == "paused"


def test_secret_in_progress_shows_who_but_never_what(make_rig: Callable[..., Rig], hub: Hub) -> None:
    rig = make_rig(game="die-angler", players=ANGLERS, table_id="t5")
    rig.table.listeners.append(hub.notify)
    client = TestClient(create_app(rig.table, hub, admin_token=TOKEN))
    correct(client, {"action": "input", "input": {"type": "reveal", "card": "maguro"}})
    rig.press("ann", "up", "up", "up", "select", "up", "up", "confirm")  # 3 d6, the d10 to re-approach
    snap = state(client)
    assert snap["secret"] == {"status": "selecting", "confirmed": ["ann"], "waiting": ["bob"]}
    assert snap["waiting_for"] == "secret from ann, bob"
    seen = json.dumps(snap) + client.get("/api/events?limit=500").text + client.get("/api/readings").text
    assert "reapproach" not in seen and '"d6":3' not in seen.replace(" ", "")
    rig.press("bob", "up", "confirm")
    after = state(client)
    assert after["secret"] is None
    assert after["state"]["selections"]["ann"]["count"] == 4  # the engine shows the counts after the reveal
    assert "reapproach" in client.get("/api/events?limit=500").text  # the log holds the choices now


def test_loopback_only_with_a_token_needs_both(table: Table, hub: Hub) -> None:
    app = create_app(table, hub, admin_token=TOKEN, loopback_only_admin=True)
    body = {"who": "x", "command": {"action": "start"}}
    assert TestClient(app).post("/api/admin/correct", json=body, headers=ADMIN).status_code == 403
    local = TestClient(app, client=("127.0.0.1", 50000))
    assert local.post("/api/admin/correct", json=body).status_code == 401
    assert local.post("/api/admin/correct", json=body, headers=ADMIN).status_code == 200


def test_board_endpoint_serves_the_dicetar_zones(make_rig: Callable[..., Rig], hub: Hub) -> None:
    table = make_rig(game="dicetar-wars", players=ANGLERS, table_id="t6").table
    board = TestClient(create_app(table, hub)).get("/api/board").json()
    assert board["outline"] == [[0, 0], [420, 0], [420, 297], [0, 297]]
    assert {z["multiplier"] for z in board["zones"]} == {3, 4, 6, 8}
    custom = {
        "outline": {"polygon": [[0, 0], [10, 0], [10, 10]]},
        "zones": [{"name": "z", "multiplier": 2, "polygon": [[0, 0], [1, 0], [1, 1]]}, {"name": "bad"}],
    }
    board = TestClient(create_app(table, hub, board=custom)).get("/api/board").json()
    assert [z["name"] for z in board["zones"]] == ["z"]  # a malformed zone is left out, not drawn wrong


def test_unlearn_is_a_correction_the_api_takes_and_checks_like_the_others(client: TestClient) -> None:
    # issue 29: `unlearn` (forget the crops an answer taught) reaches the table, which answers it
    refused = correct(client, {"action": "unlearn", "reading": "r1.1"})
    assert refused.status_code == 400  # this table reads no numbered dice: nothing was ever learnt
    assert refused.json()["error"] == (
        "'unlearn': this table learns no crops from the referee (no numbered dice reader)"
    )
    # a malformed unlearn is refused by the API with the field named, never a traceback
    missing = correct(client, {"action": "unlearn"})
    assert missing.status_code == 422
    assert missing.json()["error"].startswith("command.unlearn.reading: Field required")
    extra = correct(client, {"action": "unlearn", "reading": "r1.1", "value": 3})
    assert extra.status_code == 422 and "command.unlearn.value" in extra.json()["error"]
    empty = correct(client, {"action": "unlearn", "reading": ""})
    assert empty.status_code == 422 and "command.unlearn.reading" in empty.json()["error"]


def test_set_colour_is_a_correction_the_api_takes_and_checks(client: TestClient) -> None:
    # issue 34 item 2: a die's colour is corrected like its value; the table checks the colour
    unknown = correct(client, {"action": "set_colour", "reading": "r1.1", "colour": "mauve"})
    assert unknown.status_code == 400 and "'colour' must be one of" in unknown.json()["error"]
    missing = correct(client, {"action": "set_colour", "reading": "r1.1"})
    assert missing.status_code == 422
    assert missing.json()["error"].startswith("command.set_colour.colour: Field required")
