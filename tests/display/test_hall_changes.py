"""The hall sends a page only what changed: versions, removed ids, a full resend for a page far behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_hall_checks import Clock, good, message

from display.hall_app import create_hall_app, wake_hub
from display.hub import Hub
from display.mqtt import Hall, state_topic, status_topic

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def say(hall: Hall, table: str, status: str) -> None:
    hall._on_message(None, None, message(status_topic(table), {"table": table, "status": status}))  # type: ignore[arg-type]


def state(hall: Hall, table: str, **over: Any) -> None:
    hall._on_message(None, None, message(state_topic(table), good(table, **over)))  # type: ignore[arg-type]


def test_changes_since_a_version_hold_only_what_changed() -> None:
    hall = Hall(clock=Clock())
    state(hall, "t1")
    state(hall, "t2")
    first = hall.changes(0)
    assert first["full"] and [t["table"] for t in first["tables"]] == ["t1", "t2"]
    state(hall, "t2", scores={"ann": 350, "bob": 100})
    patch = hall.changes(first["version"])
    assert not patch["full"] and patch["gone"] == []
    assert [(t["table"], t["summary"]["scores"]["ann"]) for t in patch["tables"]] == [("t2", 350)]
    assert patch["version"] > first["version"]
    nothing = hall.changes(patch["version"])
    assert nothing["tables"] == [] and nothing["gone"] == [] and nothing["version"] == patch["version"]


def test_removed_tables_are_listed_as_gone_and_a_page_too_far_behind_gets_everything() -> None:
    clock = Clock()
    hall = Hall(clock=clock, expire_s=60, max_tables=3)
    hall.MAX_GONE = 2  # type: ignore[misc]
    say(hall, "real", "online")
    v0 = hall.changes(0)["version"]
    for name in ("f1", "f2", "f3"):  # f3 pushes out f1, the longest offline
        say(hall, name, "offline")
    patch = hall.changes(v0)
    assert patch["gone"] == ["f1"] and [t["table"] for t in patch["tables"]] == ["f2", "f3"]
    clock.t += 61  # f2 and f3 expire: 3 removals, only 2 remembered
    behind = hall.changes(v0)
    assert behind["full"] and [t["table"] for t in behind["tables"]] == ["real"]
    latest = hall.changes(patch["version"])  # this page already knew f1 went: the two removals will do
    assert not latest["full"] and latest["gone"] == ["f2", "f3"] and latest["tables"] == []
    say(hall, "f2", "online")  # an id that went and came back is an entry again, not gone
    back = hall.changes(latest["version"])
    assert back["gone"] == [] and [t["table"] for t in back["tables"]] == ["f2"]


def test_the_page_socket_sends_the_whole_hall_then_only_changes() -> None:
    hub = Hub()
    hall = Hall(clock=Clock(), on_update=wake_hub(hub))
    for i in range(20):
        state(hall, f"t{i:02d}")
    client = TestClient(create_hall_app(hall, hub))
    with client.websocket_connect("/ws") as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "hall" and first["full"] and len(first["tables"]) == 20
        state(hall, "t07", scores={"ann": 999, "bob": 100})
        patch = json.loads(ws.receive_text())
        assert patch["type"] == "hall" and not patch["full"]
        assert [t["table"] for t in patch["tables"]] == ["t07"]
        assert patch["tables"][0]["summary"]["scores"]["ann"] == 999
        assert len(ws_text := json.dumps(patch)) < len(json.dumps(first)) / 10, ws_text


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_applies_changes_in_chromium_new_tables_in_order_gone_ones_removed() -> None:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import expect, sync_playwright

    from display.server import ServerThread

    clock = Clock()
    hub = Hub()
    hall = Hall(clock=clock, expire_s=60, on_update=wake_hub(hub))
    for name in ("t1", "t3"):
        say(hall, name, "online")
        state(hall, name)
    say(hall, "t4", "offline")
    with ServerThread(create_hall_app(hall, hub)) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page()
        page.goto(server.url + "/")
        cards = page.locator("[data-table]")
        expect(cards).to_have_count(3, timeout=20_000)
        card = page.locator('[data-table="t3"]').element_handle()
        state(hall, "t3", scores={"ann": 450, "bob": 100})
        expect(page.locator('[data-score="t3/ann"]')).to_have_text("450", timeout=20_000)
        assert card.evaluate(
            "e => e.isConnected"
        )  # same game and players: the card's texts rewritten in place
        say(hall, "t2", "online")
        state(hall, "t2")
        clock.t += 61  # t4 has been offline for longer than expire_s
        state(hall, "t1", scores={"ann": 500, "bob": 100})  # the next change carries t4's removal
        expect(page.locator('[data-score="t1/ann"]')).to_have_text("500", timeout=20_000)
        expect(cards).to_have_count(3, timeout=20_000)
        assert [cards.nth(i).get_attribute("data-table") for i in range(3)] == ["t1", "t2", "t3"]
        assert page.locator('[data-score="t3/ann"]').inner_text() == "450"
        players = [{"name": "cid", "colour": "green"}, {"name": "dan", "colour": "white"}]
        state(hall, "t3", players=players, scores={"cid": 7, "dan": 0}, current_player="dan")
        expect(page.locator('[data-score="t3/cid"]')).to_have_text(
            "7", timeout=20_000
        )  # a new game: a new card
        assert not card.evaluate("e => e.isConnected") and page.locator('[data-score="t3/ann"]').count() == 0
        browser.close()
