"""The admin page enters a game's input by the rules' own offers (issue 34 item 2): a choice from
``Game.choices``, a card or tile turned up from ``Game.reveals``; never typed engine JSON, never a
secret. Through FastAPI's test client over real tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from table_rig import ANGLERS, Rig, d6

from display.app import create_app
from display.hub import Hub

TOKEN = "offers-token-5d1f0c"
ADMIN = {"X-Admin-Token": TOKEN}


def client_of(rig: Rig) -> TestClient:
    return TestClient(create_app(rig.table, Hub(), admin_token=TOKEN, loopback_only_admin=False))


def enter(client: TestClient, offer: dict[str, Any]) -> Any:
    body = {"who": "ref", "command": {"action": "input", "input": offer["input"]}}
    return client.post("/api/admin/correct", json=body, headers=ADMIN)


def test_a_choice_is_offered_as_the_rules_list_it_with_names_not_ids(rig: Rig) -> None:
    client = client_of(rig)
    assert client.get("/api/admin/offers").status_code == 401  # the referee's, like every admin call
    got = client.get("/api/admin/offers", headers=ADMIN).json()
    assert got["expects"] == "roll" and got["offers"] == [] and "camera" in got["why"]
    rig.settle([d6(v) for v in (3, 3, 3, 3, 6)])
    got = client.get("/api/admin/offers", headers=ADMIN).json()
    labels = {o["choice"]: o["label"] for o in got["offers"]}
    assert labels["take quartet"] == "take Quartet" and "take trio" in labels
    ja = {
        o["choice"]: o["label"]
        for o in client.get("/api/admin/offers?lang=ja", headers=ADMIN).json()["offers"]
    }
    assert ja["take quartet"] == "take カルテット"
    quartet = next(o for o in got["offers"] if o["choice"] == "take quartet")
    assert quartet["input"] == {"type": "choice", "player": "ann", "take": "quartet"}
    assert enter(client, quartet).status_code == 200
    assert rig.table.game.state["holdings"]["ann"] == ["quartet"]


def test_a_card_to_turn_up_is_offered_and_a_secret_never_is(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(game="die-angler", players=ANGLERS)  # the physical deck: the referee turns up cards
    client = client_of(rig)
    got = client.get("/api/admin/offers", headers=ADMIN).json()
    assert got["expects"] == "reveal" and len(got["offers"]) == 15
    aji = next(o for o in got["offers"] if o["input"] == {"type": "reveal", "card": "aji"})
    assert aji["label"] == "turn up Horse mackerel"  # English only on an English page
    assert enter(client, aji).status_code == 200
    got = client.get("/api/admin/offers", headers=ADMIN).json()
    assert got["expects"] == "secret" and got["offers"] == [] and "panels" in got["why"]
