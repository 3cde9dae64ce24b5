"""The hall over the shipped Mosquitto config (passwords, ACL, TLS) and two tables via `dicetable run`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from secure_broker import ROOT, SecureBroker, available, toml_text

from controller.session import session_config
from display.broker import new_client
from display.mqtt import Hall, state_topic
from display.server import free_port

pytestmark = pytest.mark.broker
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
RUN = (sys.executable, "-m", "controller", "run")


def wait_until(check: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureBroker]:
    why = available()
    if why:
        pytest.skip(why)
    b = SecureBroker(tmp_path_factory.mktemp("secure-broker"))
    b.start()
    yield b
    b.stop()


def connected(link: Any, client_id: str, on_message: Any = None) -> mqtt.Client:
    client = new_client(link, client_id)
    if on_message is not None:
        client.on_message = on_message
        client.on_connect = lambda c, u, f, rc, p: c.subscribe("dicetable/#", 1)
    client.connect(link.host, link.port, keepalive=5)
    client.loop_start()
    wait_until(client.is_connected, what=f"{link.username} connected")
    return client


def summary(table: str, score: int) -> str:
    players = [{"name": "ann", "colour": "red"}]
    return json.dumps({"table": table, "players": players, "scores": {"ann": score}, "status": "playing"})


def test_a_table_cannot_write_another_tables_topic_and_the_hall_only_reads(secure: SecureBroker) -> None:
    seen: list[tuple[str, bytes]] = []
    hall = connected(secure.link("hall"), "spy", lambda c, u, m: seen.append((m.topic, m.payload)))
    table1 = connected(secure.link("table-1"), "t1")
    try:
        table1.publish(state_topic("table-2"), summary("table-2", 99999), qos=1).wait_for_publish(5)
        hall.publish(state_topic("table-1"), summary("table-1", 99999), qos=1).wait_for_publish(5)
        table1.publish(state_topic("table-1"), summary("table-1", 7), qos=1).wait_for_publish(5)  # its own
        wait_until(lambda: seen, what="table-1's own summary")
        time.sleep(0.5)  # anything the broker let through would have arrived with or before it
        assert [t for t, _ in seen] == [state_topic("table-1")]
        assert json.loads(seen[0][1])["scores"] == {"ann": 7}
    finally:
        table1.loop_stop()
        table1.disconnect()
        hall.loop_stop()
        hall.disconnect()


def test_only_the_hall_writes_a_tables_pairing(secure: SecureBroker) -> None:
    """Issue 47 item 2: a table's own credentials cannot re-pair it (a forged retained pairing, the
    colours swapped); the hall's pairing arrives.  table-1 reads its pairing as a paired table does."""
    from display.pairings import pairing_topic

    seen: list[bytes] = []

    def pairing(*seated: tuple[str, str]) -> dict[str, Any]:
        players = [{"name": n, "seat": i, "colour": c} for i, (n, c) in enumerate(seated, start=1)]
        at = {"tournament": "Open", "round": 1, "game": "dice-fighter", "table": "table-1"}
        return {**at, "players": players}

    forged, genuine = pairing(("eve", "blue"), ("zed", "red")), pairing(("ann", "red"), ("bob", "blue"))
    forger = connected(secure.link("table-1"), "t1-forger")
    try:
        forger.publish(pairing_topic("table-1"), json.dumps(forged), qos=1, retain=True).wait_for_publish(5)
    finally:
        forger.loop_stop()
        forger.disconnect()
    hall = connected(secure.link("hall"), "hall-pairs")
    reader = new_client(secure.link("table-1"), "t1-reader")
    reader.on_message = lambda c, u, m: seen.append(m.payload)
    reader.on_connect = lambda c, u, f, rc, p: c.subscribe(pairing_topic("table-1"), 1)
    reader.connect("127.0.0.1", secure.port, keepalive=5)
    reader.loop_start()
    try:
        wait_until(reader.is_connected, what="table-1 connected")
        time.sleep(0.5)  # a retained forgery, had the broker kept it, arrives on subscribing
        assert seen == []
        hall.publish(pairing_topic("table-1"), json.dumps(genuine), qos=1, retain=True).wait_for_publish(5)
        wait_until(lambda: seen, what="the hall's pairing")
        assert [json.loads(m)["players"][0]["name"] for m in seen] == ["ann"]
    finally:
        hall.publish(pairing_topic("table-1"), b"", qos=1, retain=True).wait_for_publish(5)  # cleared
        for c in (reader, hall):
            c.loop_stop()
            c.disconnect()


def test_wrong_password_and_a_stolen_client_id_do_not_get_in(secure: SecureBroker) -> None:
    refused: list[Any] = []
    bad = new_client(dataclasses.replace(secure.link("table-1"), password="not-it"), "x")
    bad.on_connect = lambda c, u, f, rc, p: refused.append(rc)
    bad.connect("127.0.0.1", secure.port, keepalive=5)
    bad.loop_start()
    wait_until(lambda: refused, what="an answer to a wrong password")
    bad.loop_stop()
    assert refused[0].is_failure

    # table-2's credentials with table-1's client id: the broker uses user names as client ids,
    # so table-1 is not knocked off (and its last will does not fire)
    t1 = connected(secure.link("table-1", client_id="dicetable-table-table-1"), "t1")
    t2 = connected(secure.link("table-2", client_id="dicetable-table-table-1"), "t2")
    try:
        time.sleep(1.0)
        assert t1.is_connected() and t2.is_connected()
    finally:
        for c in (t1, t2):
            c.loop_stop()
            c.disconnect()


def table_toml(folder: Path, secure: SecureBroker, session: str, table_id: str) -> Path:
    cfg = session_config(SESSIONS / session, table_id=table_id).model_dump()
    cfg["database"] = {"path": str(folder / f"{table_id}.sqlite3")}
    cfg["display"] = {"host": "127.0.0.1", "port": free_port()}
    cfg["mqtt"] = secure.mqtt_section(table_id)
    path = folder / f"{table_id}.toml"
    path.write_text(toml_text(cfg), encoding="utf-8")
    return path


@pytest.mark.slow
def test_two_recorded_tables_run_and_the_hall_has_their_results(secure: SecureBroker, tmp_path: Path) -> None:
    results: dict[str, dict[str, Any]] = {}
    hall = Hall(link=secure.link("hall"), on_result=lambda t, r: results.__setitem__(t, r))
    hall.start()
    tables = {"table-1": "dice-fighter-demo", "table-2": "dicetar-wars-demo"}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        procs = {
            tid: subprocess.Popen(
                [*RUN, "--config", str(table_toml(tmp_path, secure, s, tid))],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=env,
            )
            for tid, s in tables.items()
        }
        finals = {}
        for tid, proc in procs.items():
            out, errs = proc.communicate(timeout=240)
            assert proc.returncode == 0, errs
            assert f"publishing to mqtts://{tid}@127.0.0.1:{secure.port}" in out
            finals[tid] = json.loads(out.strip().splitlines()[-1])
            assert finals[tid]["status"] == "over"
        wait_until(lambda: set(results) == set(tables), what="both results at the hall")
        for tid, final in finals.items():
            assert results[tid]["scores"] == final["scores"]
            assert results[tid]["winners"] == final["winners"]
        snap = {t["table"]: t for t in hall.snapshot()["tables"]}
        wait_until(lambda: not any(t["online"] for t in hall.snapshot()["tables"]), what="both said goodbye")
        assert {t: snap[t]["summary"]["status"] for t in tables} == {"table-1": "over", "table-2": "over"}
        assert hall.refused == 0
    finally:
        hall.stop()
