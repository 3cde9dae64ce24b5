"""The hall over a real Mosquitto broker: summaries, last will, broker restart, no secrets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from fastapi.testclient import TestClient

from display.backend import FakeTable
from display.hall_app import create_hall_app
from display.hub import Hub
from display.mqtt import Hall, TablePublisher, parse_broker, summarise

pytestmark = pytest.mark.broker


def wait_until(check: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def hall_table(hall: Hall, table_id: str) -> dict[str, Any] | None:
    return next((t for t in hall.snapshot()["tables"] if t["table"] == table_id), None)


def hall_scores(hall: Hall, table_id: str) -> dict[str, int] | None:
    t = hall_table(hall, table_id)
    return None if t is None or t["summary"] is None else t["summary"]["scores"]


@pytest.fixture
def wired(broker: Any) -> Any:
    table = FakeTable("t1", "demo-sum", [("ann", "red"), ("bob", "blue")], {"rounds": 2})
    table.correct({"action": "start"}, "ref")
    pub = TablePublisher("t1", "127.0.0.1", broker.port, keepalive=2)
    table.add_listener(pub.publish)
    pub.start()
    pub.publish(table.snapshot())
    hall = Hall("127.0.0.1", broker.port, keepalive=2)
    hall.start()
    yield table, pub, hall
    hall.stop()
    pub.stop()


def test_hall_sees_scores_and_recovers_after_broker_restart(broker: Any, wired: Any) -> None:
    table, _pub, hall = wired
    wait_until(lambda: hall_scores(hall, "t1") == {"ann": 0, "bob": 0}, what="first summary")
    assert hall_table(hall, "t1")["online"] is True
    table.settle([{"kind": "d6", "value": 6}, {"kind": "d6", "value": 5}])
    wait_until(lambda: hall_scores(hall, "t1") == {"ann": 11, "bob": 0}, what="score after a roll")

    broker.stop()
    wait_until(lambda: not hall.connected, what="hall to notice the broker is gone")
    table.settle([{"kind": "d6", "value": 2}])  # bob scores while the broker is down
    broker.start()  # no persistence: every retained message is gone and must be re-sent
    wait_until(lambda: hall.connected, what="hall to reconnect", timeout=40)
    wait_until(lambda: hall_scores(hall, "t1") == {"ann": 11, "bob": 2}, what="restored score", timeout=40)
    assert hall_table(hall, "t1")["online"] is True


def test_table_that_drops_off_shows_offline_by_last_will(broker: Any, wired: Any) -> None:
    _table, pub, hall = wired
    wait_until(lambda: (hall_table(hall, "t1") or {}).get("online"), what="table online")
    pub.client.loop_stop()
    sock = pub.client.socket()
    assert sock is not None
    sock.close()  # the table vanishes without a DISCONNECT: the broker sends its will
    wait_until(lambda: hall_table(hall, "t1")["online"] is False, what="offline via last will")


def test_secret_selection_never_goes_to_mqtt(broker: Any) -> None:
    seen: list[str] = []
    spy = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    spy.on_message = lambda c, u, m: seen.append(m.topic + " " + m.payload.decode())
    spy.on_connect = lambda c, u, f, rc, p: c.subscribe("#")
    spy.connect("127.0.0.1", broker.port)
    spy.loop_start()
    table = FakeTable("t2", "demo-sum", [("ann", "red"), ("bob", "blue")])
    pub = TablePublisher("t2", "127.0.0.1", broker.port)
    table.add_listener(pub.publish)
    pub.start()
    try:
        table.begin_secret(["ann", "bob"])
        table.secret_select("ann", {"dice": 4, "mode": "lure-zebra"})
        wait_until(lambda: any("/t2/state" in s and '"seq": 2' in s for s in seen), what="summary after ann")
        assert not any("zebra" in s for s in seen), seen
    finally:
        pub.stop()
        spy.loop_stop()
        spy.disconnect()


def test_hall_ignores_garbage_and_serves_the_page(broker: Any) -> None:
    hub = Hub()
    hall = Hall("127.0.0.1", broker.port, on_change=hub.notify)
    hall.start()
    try:
        wait_until(lambda: hall.connected, what="hall connected")
        raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        raw.connect("127.0.0.1", broker.port)
        raw.loop_start()
        raw.publish("dicetable/v1/tables/bad/state", b"\xff not json", qos=1).wait_for_publish(5)
        summary = {"table": "ok", "game": "dice-hunter", "scores": {"ann": 300}, "players": []}
        raw.publish("dicetable/v1/tables/ok/state", json.dumps(summary), qos=1).wait_for_publish(5)
        raw.loop_stop()
        raw.disconnect()
        wait_until(lambda: hall_table(hall, "ok"), what="good table")
        assert hall_table(hall, "bad") is None
        client = TestClient(create_hall_app(hall, hub))
        tables = client.get("/api/tables").json()["tables"]
        assert [t["table"] for t in tables] == ["ok"]
        assert "Tournament hall" in client.get("/").text
    finally:
        hall.stop()


def test_summary_holds_only_public_fields() -> None:
    table = FakeTable("t3", "demo-sum", [("ann", "red")])
    summary = summarise(table.snapshot())
    assert set(summary) == {
        "table",
        "game",
        "players",
        "scores",
        "status",
        "waiting_for",
        "current_player",
        "round",
        "winners",
        "seq",
        "updated",
    }
    assert "state" not in summary


@pytest.mark.parametrize(
    "text, why",
    [("localhost:http", "not a number"), ("h:70000", "out of range"), (":1883", "expected HOST:PORT")],
)
def test_bad_broker_address_is_refused_clearly(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_broker(text)
    assert parse_broker("10.0.0.2:1884") == ("10.0.0.2", 1884)
    assert parse_broker("broker.local") == ("broker.local", 1883)


def test_concurrent_publishes_are_safe(broker: Any) -> None:
    pub = TablePublisher("t4", "127.0.0.1", broker.port)
    pub.start()
    table = FakeTable("t4", "demo-sum", [("ann", "red")])
    threads = [
        threading.Thread(target=lambda: [pub.publish(table.snapshot()) for _ in range(20)]) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pub.stop()


@pytest.mark.browser
@pytest.mark.slow
def test_hall_page_in_chromium_survives_broker_restart(broker: Any, wired: Any) -> None:
    from pathlib import Path

    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import expect, sync_playwright

    from display.server import ServerThread

    table, _pub, _ = wired
    hub = Hub()
    hall = Hall("127.0.0.1", broker.port, on_change=hub.notify, keepalive=2)
    hall.start()
    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    try:
        with ServerThread(create_hall_app(hall, hub)) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(chromium), args=args)
            page = browser.new_page(viewport={"width": 1100, "height": 520})
            page.goto(server.url + "/")
            expect(page.locator('[data-table="t1"]')).to_be_visible(timeout=20_000)
            table.settle([{"kind": "d6", "value": 4}])
            expect(page.locator('[data-score="t1/ann"]')).to_have_text("4", timeout=20_000)
            broker.stop()
            expect(page.locator("body")).to_have_attribute("data-broker", "down", timeout=20_000)
            table.settle([{"kind": "d6", "value": 5}])
            broker.start()
            expect(page.locator("body")).to_have_attribute("data-broker", "up", timeout=40_000)
            expect(page.locator('[data-score="t1/bob"]')).to_have_text("5", timeout=40_000)
            artifacts = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"
            artifacts.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(artifacts / "hall.png"), full_page=True)
            browser.close()
    finally:
        hall.stop()
