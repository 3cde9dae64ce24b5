"""The hall over a real Mosquitto broker: summaries, last will, broker restart, no secrets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from fastapi.testclient import TestClient
from table_rig import ANGLERS, Rig, d6

from display.hall_app import create_hall_app, wake_hub
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


def roll_and_take(rig: Rig, player: str, dice: list[int], choice: dict[str, Any]) -> None:
    """A Dice Hunter turn: the camera reads the roll, the player's choice comes from the admin page."""
    rig.settle([d6(v) for v in dice])
    rig.table.correct({"action": "input", "input": {"type": "choice", "player": player, **choice}}, "ref")


@pytest.fixture
def wired(broker: Any, rig: Rig) -> Iterator[tuple[Rig, TablePublisher, Hall]]:
    pub = TablePublisher("t1", "127.0.0.1", broker.port, keepalive=2)
    rig.table.listeners.append(pub.publish)
    pub.start()
    pub.publish(rig.table.snapshot())
    hall = Hall("127.0.0.1", broker.port, keepalive=2)
    hall.start()
    yield rig, pub, hall
    hall.stop()
    pub.stop()


def test_hall_sees_scores_and_recovers_after_broker_restart(broker: Any, wired: Any) -> None:
    rig, _pub, hall = wired
    wait_until(lambda: hall_scores(hall, "t1") == {"ann": 0, "bob": 0, "cid": 0}, what="first summary")
    assert hall_table(hall, "t1")["online"] is True
    roll_and_take(rig, "ann", [3, 3, 3, 5, 6], {"take": "trio"})
    wait_until(lambda: hall_scores(hall, "t1") == {"ann": 200, "bob": 0, "cid": 0}, what="score after a turn")

    broker.stop()
    wait_until(lambda: not hall.connected, what="hall to notice the broker is gone")
    roll_and_take(rig, "bob", [1, 1, 2, 4, 6], {"chips": True})  # bob scores while the broker is down
    broker.start()  # no persistence: every retained message is gone and must be re-sent
    wait_until(lambda: hall.connected, what="hall to reconnect", timeout=40)
    restored = {"ann": 200, "bob": 100, "cid": 0}
    wait_until(lambda: hall_scores(hall, "t1") == restored, what="restored score", timeout=40)
    assert hall_table(hall, "t1")["online"] is True


def test_table_that_drops_off_shows_offline_by_last_will(broker: Any, wired: Any) -> None:
    _table, pub, hall = wired
    wait_until(lambda: (hall_table(hall, "t1") or {}).get("online"), what="table online")
    pub.client.loop_stop()
    sock = pub.client.socket()
    assert sock is not None
    sock.close()  # the table vanishes without a DISCONNECT: the broker sends its will
    wait_until(lambda: hall_table(hall, "t1")["online"] is False, what="offline via last will")


def test_secret_selection_never_goes_to_mqtt(broker: Any, make_rig: Callable[..., Rig]) -> None:
    seen: list[str] = []
    spy = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    spy.on_message = lambda c, u, m: seen.append(m.topic + " " + m.payload.decode())
    spy.on_connect = lambda c, u, f, rc, p: c.subscribe("#")
    spy.connect("127.0.0.1", broker.port)
    spy.loop_start()
    rig = make_rig(game="die-angler", players=ANGLERS, table_id="t2")
    table = rig.table
    pub = TablePublisher("t2", "127.0.0.1", broker.port)
    table.listeners.append(pub.publish)
    pub.start()
    try:
        wait_until(lambda: pub.client.is_connected(), what="table connected")
        table.correct({"action": "input", "input": {"type": "reveal", "card": "maguro"}}, "ref")
        rig.press("ann", "up", "up", "up", "select", "up", "up", "confirm")  # 3 d6, the d10 to re-approach
        assert table.snapshot()["secret"]["confirmed"] == ["ann"]
        table.correct({"action": "pause"}, "ref")  # published after ann's confirmation: a mark to wait for
        wait_until(lambda: any("/t2/state" in s and '"status": "paused"' in s for s in seen), what="mark")
        table.correct({"action": "start"}, "ref")
        rig.press("bob", "up", "confirm")  # the reveal: now the table's state and log hold the choices
        assert "reapproach" in json.dumps(table.events(0, 500))
        seq = table.snapshot()["seq"]
        wait_until(lambda: any("/t2/state" in s and f'"seq": {seq}' in s for s in seen), what="after reveal")
        assert not any("reapproach" in s or '"d6"' in s for s in seen), seen
    finally:
        pub.stop()
        spy.loop_stop()
        spy.disconnect()


def test_hall_ignores_garbage_and_serves_the_page(broker: Any) -> None:
    hub = Hub()
    hall = Hall("127.0.0.1", broker.port, on_update=wake_hub(hub))
    hall.start()
    try:
        wait_until(lambda: hall.connected, what="hall connected")
        raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        raw.connect("127.0.0.1", broker.port)
        raw.loop_start()
        raw.publish("dicetable/v1/tables/bad/state", b"\xff not json", qos=1).wait_for_publish(5)
        players = [{"name": "ann", "colour": "red"}]
        summary = {"table": "ok", "game": "dice-hunter", "scores": {"ann": 300}, "players": players}
        summary["status"] = "playing"
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


def test_summary_holds_only_public_fields(table: Any) -> None:
    summary = summarise(table.snapshot())
    assert set(summary) == {
        "table",
        "game",
        "players",
        "scores",
        "status",
        "waiting_for",
        "waits",
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


def test_concurrent_publishes_are_safe(broker: Any, table: Any) -> None:
    pub = TablePublisher("t4", "127.0.0.1", broker.port)
    pub.start()
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
def test_hall_page_in_chromium_survives_broker_restart(broker: Any, wired: Any, browser: Any) -> None:
    from pathlib import Path

    from playwright.sync_api import expect

    from display.server import ServerThread

    rig, _pub, _ = wired
    hub = Hub()
    hall = Hall("127.0.0.1", broker.port, on_update=wake_hub(hub), keepalive=2)
    hall.start()
    try:
        with ServerThread(create_hall_app(hall, hub)) as server:
            page = browser.new_page(viewport={"width": 1100, "height": 520})
            page.goto(server.url + "/")
            expect(page.locator('[data-table="t1"]')).to_be_visible(timeout=20_000)
            roll_and_take(rig, "ann", [3, 3, 3, 5, 6], {"take": "trio"})
            expect(page.locator('[data-score="t1/ann"]')).to_have_text("200", timeout=20_000)
            broker.stop()
            expect(page.locator("body")).to_have_attribute("data-broker", "down", timeout=20_000)
            roll_and_take(rig, "bob", [1, 1, 2, 4, 6], {"chips": True})
            broker.start()
            expect(page.locator("body")).to_have_attribute("data-broker", "up", timeout=40_000)
            expect(page.locator('[data-score="t1/bob"]')).to_have_text("100", timeout=40_000)
            artifacts = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"
            artifacts.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(artifacts / "hall.png"), full_page=True)
            page.close()
    finally:
        hall.stop()


def test_retained_hostile_messages_stop_neither_hall_nor_tournament(broker: Any, tmp_path: Any) -> None:
    """Each hostile payload retained on its own table's topic, so all are re-delivered at every start;
    the hall and `dicetable tournament`'s wiring refuse each with why and still take a genuine result."""
    from datetime import UTC, datetime

    from test_hall_checks import HOSTILE, result_payload

    from controller.tournament import Tournament
    from controller.tournament_file import TournamentFile
    from display.tournament_app import TournamentView

    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()

    def publish(table: str, kind: str, text: str, retain: bool = True) -> None:
        text = text.replace('"t1"', json.dumps(table))  # the topic's table id, so the deep checks run
        topic = f"dicetable/v1/tables/{table}/{kind}"
        raw.publish(topic, text.encode(), qos=1, retain=retain).wait_for_publish(5)

    for i, (kind, text) in enumerate(HOSTILE):
        publish(f"x{i}", kind, text)
    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1"], "confirm": "table"},
            "players": [{"name": "ann"}, {"name": "bob"}],
            "rounds": [{"game": "dicetar-wars"}],
        }
    )
    tournament = Tournament(spec, tmp_path / "t.sqlite3")
    tournament.start_next_round()
    try:
        kept = sum(1 for _, text in HOSTILE if text)  # an empty retained publish deletes, not keeps
        for restart in range(2):  # retained: every start of the hall meets them all again
            hall = Hall("127.0.0.1", broker.port, keepalive=2)
            view = TournamentView(tournament, hall, Hub())
            hall.on_change, hall.on_result = view.changed, view.on_result
            hall.start()
            try:
                retained = f"every retained hostile message, start {restart}"
                wait_until(lambda h=hall, n=kept: h.refused >= n, what=retained)
                for kind, text in HOSTILE:  # and live, not retained, on the table's own topics
                    publish("t1", kind, text, retain=False)
                both = kept + len(HOSTILE)
                wait_until(lambda h=hall, n=both: h.refused >= n, what="the live hostile messages")
                assert hall.connected and hall.snapshot()["tables"] == []
                assert "expected" in hall.snapshot()["last_refused"]["why"]
            finally:
                if restart == 0:
                    hall.stop()
        genuine = result_payload(
            game="dicetar-wars",
            players=[{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}],
            finished=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        publish("t1", "result", json.dumps(genuine))
        wait_until(lambda: tournament.matches(1)[0]["status"] == "confirmed", what="the genuine result taken")
        assert tournament.matches(1)[0]["scores"] == {"ann": 300, "bob": 100}
        assert hall_table(hall, "t1")["result"]["winners"] == ["ann"]
        hall.stop()
    finally:
        raw.loop_stop()
        raw.disconnect()
        tournament.close()


def test_a_forged_result_retained_before_round_1_is_refused_after_a_hall_restart(
    broker: Any, tmp_path: Any
) -> None:
    """A table's own credentials publish a result dated 2099 before round 1; the hall restarts in the
    round: the forgery is refused and shown on the tournament page with why, the genuine result counts."""
    from datetime import UTC, datetime

    from test_hall_checks import result_payload

    from controller.tournament import Tournament
    from controller.tournament_file import TournamentFile
    from display.tournament_app import TournamentView, create_tournament_app

    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1"], "confirm": "table"},
            "players": [{"name": "ann"}, {"name": "bob"}],
            "rounds": [{"game": "dicetar-wars"}],
        }
    )
    players = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()

    def publish(result: dict[str, Any]) -> None:
        topic = "dicetable/v1/tables/t1/result"
        raw.publish(topic, json.dumps(result), qos=1, retain=True).wait_for_publish(5)

    def hall_for(tournament: Tournament) -> tuple[Hall, TournamentView]:
        hall = Hall("127.0.0.1", broker.port, keepalive=2)
        view = TournamentView(tournament, hall, Hub())
        hall.on_change, hall.on_result = view.changed, view.on_result
        hall.start()
        return hall, view

    forged = result_payload(game="dicetar-wars", players=players, finished="2099-01-01T00:00:00+00:00")
    forged["scores"], forged["winners"] = {"ann": 0, "bob": 5}, ["ann"]  # the lower score wins, too
    publish(forged)
    tournament = Tournament(spec, tmp_path / "t.sqlite3")
    hall, _ = hall_for(tournament)
    try:
        wait_until(lambda: (hall_table(hall, "t1") or {}).get("result"), what="the forgery reaches the hall")
        hall.stop()
        tournament.start_next_round()
        hall, view = hall_for(tournament)  # restarted during round 1: the broker re-delivers the forgery
        client = TestClient(create_tournament_app(view))
        shown = wait_until(lambda: client.get("/api/tournament").json()["refused"], what="the refusal shown")
        assert shown[0]["table"] == "t1" and "in the future" in shown[0]["why"], shown
        assert tournament.matches(1)[0]["status"] == "playing"
        genuine = {**forged, "winners": ["bob"], "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        publish(genuine)
        wait_until(lambda: tournament.matches(1)[0]["status"] == "confirmed", what="the genuine result")
        points = {r["name"]: r["points"] for r in client.get("/api/tournament").json()["standings"]}
        assert points == {"ann": 0, "bob": 3}
    finally:
        hall.stop()
        raw.loop_stop()
        raw.disconnect()
        tournament.close()
