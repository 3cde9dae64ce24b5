"""The JSON API and the admin rules, through FastAPI's test client."""

from __future__ import annotations

import json
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from display.app import create_app
from display.backend import FakeTable
from display.hub import Hub

TOKEN = "s3cret-token"
ADMIN = {"X-Admin-Token": TOKEN}


@pytest.fixture
def client(table: FakeTable, hub: Hub) -> TestClient:
    return TestClient(create_app(table, hub, admin_token=TOKEN, loopback_only_admin=False))


def correct(client: TestClient, command: dict[str, Any], who: str = "ref") -> Any:
    return client.post("/api/admin/correct", json={"who": who, "command": command}, headers=ADMIN)


def test_state_reports_game_players_and_what_the_table_waits_for(client: TestClient) -> None:
    snap = client.get("/api/state").json()
    assert snap["table"] == "t1" and snap["game"] == "demo-sum"
    assert snap["players"] == [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]
    assert snap["status"] == "waiting"
    assert snap["waiting_for"] == "the referee to start the game"
    assert correct(client, {"action": "start"}).status_code == 200
    snap = client.get("/api/state").json()
    assert snap["status"] == "playing" and snap["waiting_for"] == "a roll from ann"


def test_unsure_reading_waits_for_confirmation_then_scores(client: TestClient, table: FakeTable) -> None:
    correct(client, {"action": "start"})
    table.settle([{"kind": "d6", "value": 4}, {"kind": "d6", "value": 6, "confidence": 0.4}])
    snap = client.get("/api/state").json()
    assert snap["question"]["reading"] == "r2"
    assert snap["state"]["scores"]["ann"] == 0  # never silently scored
    readings = client.get("/api/readings").json()["dice"]
    assert [r["unsure"] for r in readings] == [False, True]
    reply = correct(client, {"action": "confirm", "reading": "r2"})
    assert reply.status_code == 200, reply.text
    snap = client.get("/api/state").json()
    assert snap["question"] is None and snap["state"]["scores"]["ann"] == 10
    assert snap["waiting_for"] == "a roll from bob"


def test_set_value_rescores_and_undo_takes_the_roll_back(client: TestClient, table: FakeTable) -> None:
    correct(client, {"action": "start"})
    table.settle([{"kind": "d6", "value": 5}, {"kind": "d6", "value": 5}])
    assert client.get("/api/state").json()["state"]["scores"]["ann"] == 10
    assert correct(client, {"action": "set_value", "reading": "r1", "value": 1}).status_code == 200
    assert client.get("/api/state").json()["state"]["scores"]["ann"] == 6
    assert correct(client, {"action": "undo"}).status_code == 200
    snap = client.get("/api/state").json()
    assert snap["state"]["scores"]["ann"] == 0 and snap["waiting_for"] == "a roll from ann"
    kinds = [e["kind"] for e in client.get("/api/events?offset=0&limit=100").json()["events"]]
    assert kinds.count("correction") == 3 and "undone" in kinds
    who = {e["player"] for e in client.get("/api/events").json()["events"] if e["kind"] == "correction"}
    assert who == {"ref"}


def test_refused_correction_changes_nothing(client: TestClient, table: FakeTable) -> None:
    correct(client, {"action": "start"})
    table.settle([{"kind": "d6", "value": 3}])
    before = client.get("/api/state").json()
    for command, why in [
        ({"action": "set_value", "reading": "r1", "value": 7}, "cannot show 7"),
        ({"action": "confirm", "reading": "r99"}, "'r99' is not in the latest frame"),
        ({"action": "start"}, "already playing"),
        ({"action": "input", "input": {"type": "roll", "player": "ann", "dice": [1]}}, "may not give"),
        ({"action": "input", "input": {"type": "secret", "player": "ann"}}, "button panels"),
        ({"action": "input", "input": {"type": "dance"}}, "not one of"),
    ]:
        reply = correct(client, command)
        assert reply.status_code == 400, (command, reply.text)
        assert why in reply.json()["error"]
    assert client.get("/api/state").json() == before


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


def test_events_are_paged(client: TestClient, table: FakeTable) -> None:
    for i in range(7):
        table.log_event("test", "note", None, {"i": i})
    page = client.get("/api/events?offset=2&limit=3").json()
    assert page["total"] == 7
    assert [e["data"]["i"] for e in page["events"]] == [2, 3, 4]
    assert [e["seq"] for e in page["events"]] == [3, 4, 5]


def test_admin_needs_the_token(client: TestClient) -> None:
    body = {"who": "mallory", "command": {"action": "start"}}
    assert client.post("/api/admin/correct", json=body).status_code == 401
    assert client.post("/api/admin/correct", json=body, headers={"X-Admin-Token": "guess"}).status_code == 401
    assert client.get("/api/state").json()["status"] == "waiting"
    page = client.get("/admin")
    assert page.status_code == 401 and "admin token" in page.text  # the login form
    assert client.post("/api/admin/login", json={"token": "guess"}).status_code == 401
    assert client.post("/api/admin/login", json={"token": TOKEN}).status_code == 200  # sets the cookie
    assert client.get("/admin").status_code == 200
    assert client.post("/api/admin/correct", json=body).status_code == 200


def test_without_token_admin_is_loopback_only(table: FakeTable, hub: Hub) -> None:
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


def test_frame_is_a_jpeg_with_the_dice(client: TestClient, table: FakeTable) -> None:
    assert client.get("/api/frame.jpg").status_code == 404
    table.settle([{"kind": "d6", "value": 6, "colour": "red"}])
    reply = client.get("/api/frame.jpg")
    assert reply.headers["content-type"] == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(reply.content, np.uint8), cv2.IMREAD_COLOR)
    quad = np.array(client.get("/api/readings").json()["dice"][0]["quad"])
    x0, y0 = quad.min(axis=0).astype(int)
    x1, y1 = quad.max(axis=0).astype(int)
    patch = img[y0 + 8 : y1 - 8, x0 + 8 : x1 - 8].reshape(-1, 3).astype(int)
    red = (patch[:, 2] > 150) & (patch[:, 1] < 110)
    assert red.mean() > 0.3  # a red die is drawn where its reading says


def test_openapi_lists_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/state", "/api/events", "/api/readings", "/api/frame.jpg", "/api/admin/correct"):
        assert p in paths


def test_websocket_pushes_each_new_event(client: TestClient, table: FakeTable) -> None:
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "snapshot" and first["snapshot"]["seq"] == 0
        table.log_event("camera", "note")
        assert ws.receive_json()["snapshot"]["seq"] == 1


def test_secret_in_progress_shows_who_but_never_what(client: TestClient, table: FakeTable) -> None:
    correct(client, {"action": "start"})
    table.begin_secret(["ann", "bob"])
    table.secret_select("ann", {"dice": 4, "special": "zebra-mode"})
    snap = client.get("/api/state").json()
    assert snap["secret"] == {"confirmed": ["ann"], "pending": ["bob"]}
    assert snap["waiting_for"] == "secret selections from bob"
    everything = (
        json.dumps(snap) + client.get("/api/events?limit=500").text + client.get("/api/readings").text
    )
    assert "zebra" not in everything
    table.secret_select("bob", {"dice": 2})
    assert "zebra" in client.get("/api/events?limit=500").text  # revealed once everyone is in
    assert client.get("/api/state").json()["secret"] is None


def test_die_angler_selection_stays_hidden_until_everyone_chose(hub: Hub) -> None:
    table = FakeTable("t5", "die-angler", [("ann", "red"), ("bob", "blue")])
    table.add_listener(hub.notify)
    client = TestClient(create_app(table, hub, admin_token=TOKEN))
    correct(client, {"action": "start"})
    table.feed({"type": "reveal", "card": "maguro"})
    table.feed({"type": "secret", "player": "ann", "d6": 3})
    snap = client.get("/api/state").json()
    assert snap["secret"] == {"confirmed": ["ann"], "pending": ["bob"]}
    seen = client.get("/api/state").text + client.get("/api/events?limit=500").text
    assert '"d6":3' not in seen.replace(" ", "")
    table.feed({"type": "secret", "player": "bob", "d6": 2})
    after = client.get("/api/state").json()
    assert after["secret"] is None
    assert after["state"]["selections"]["ann"]["count"] == 3  # the engine shows it after the reveal


def test_loopback_only_with_a_token_needs_both(table: FakeTable, hub: Hub) -> None:
    app = create_app(table, hub, admin_token=TOKEN, loopback_only_admin=True)
    body = {"who": "x", "command": {"action": "start"}}
    assert TestClient(app).post("/api/admin/correct", json=body, headers=ADMIN).status_code == 403
    local = TestClient(app, client=("127.0.0.1", 50000))
    assert local.post("/api/admin/correct", json=body).status_code == 401
    assert local.post("/api/admin/correct", json=body, headers=ADMIN).status_code == 200


def test_board_endpoint_serves_the_dicetar_zones(hub: Hub) -> None:
    table = FakeTable("t6", "dicetar-wars", [("ann", "red"), ("bob", "blue")])
    board = TestClient(create_app(table, hub)).get("/api/board").json()
    assert board["outline"] == [[0, 0], [420, 0], [420, 297], [0, 297]]
    assert {z["multiplier"] for z in board["zones"]} == {3, 4, 6, 8}
    custom = {
        "outline": {"polygon": [[0, 0], [10, 0], [10, 10]]},
        "zones": [{"name": "z", "multiplier": 2, "polygon": [[0, 0], [1, 0], [1, 1]]}, {"name": "bad"}],
    }
    board = TestClient(create_app(table, hub, board=custom)).get("/api/board").json()
    assert [z["name"] for z in board["zones"]] == ["z"]  # a malformed zone is left out, not drawn wrong
