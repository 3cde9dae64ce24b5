"""A table with an ``[mqtt]`` hall follows the hall's pairings without being told (issue 48 item 4):
a tournament said "table-2 bob v dee v eve" while the table kept its own players, because
``pairings = true`` was a key nobody had set. Now it is the default; ``pairings = false`` opts out.
`dicetable run` on a real Mosquitto broker, the pairing published retained as the hall publishes it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from broker import Broker
from secure_broker import ROOT, toml_text

from controller.config import parse_config
from controller.session import session_config
from display.pairings import pairing_topic
from display.server import free_port

pytestmark = [pytest.mark.broker, pytest.mark.slow]
DEMO = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"


def test_pairings_are_on_by_default_and_false_opts_out() -> None:
    on = parse_config({"table": {"id": "table-2"}, "mqtt": {"host": "hall.local"}}).mqtt
    off = parse_config({"table": {"id": "table-2"}, "mqtt": {"host": "hall.local", "pairings": False}}).mqtt
    assert on is not None and on.pairings is True
    assert off is not None and off.pairings is False


def test_the_readme_example_says_so() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    mqtt_example = readme[readme.index("[mqtt]                  # optional") :].split("```")[0]
    assert "pairings = true" in mqtt_example and "false" in mqtt_example


def publish_pairing(port: int) -> None:
    """What `dicetable tournament` publishes for table-2 in round 1 (retained, as the hall does)."""
    msg = {
        "table": "table-2",
        "tournament": "Test Open",
        "round": 1,
        "game": "dice-hunter",
        "players": [
            {"name": "bob", "seat": 1, "colour": "red"},
            {"name": "dee", "seat": 2, "colour": "blue"},
            {"name": "eve", "seat": 3, "colour": "green"},
        ],
        "paired": "2026-12-06T05:00:00+00:00",
    }
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-hall")
    c.connect("127.0.0.1", port)
    c.loop_start()
    c.publish(pairing_topic("table-2"), json.dumps(msg), qos=1, retain=True).wait_for_publish(10)
    c.loop_stop()
    c.disconnect()


def test_a_table_with_a_hall_takes_the_halls_pairing(broker: Broker, tmp_path: Path) -> None:
    publish_pairing(broker.port)
    cfg: dict[str, Any] = session_config(DEMO, table_id="table-2").model_dump()
    assert [p["name"] for p in cfg["players"]] != ["bob", "dee", "eve"]
    port = free_port()
    cfg["database"] = {"path": str(tmp_path / "table-2.sqlite3")}
    cfg["display"] = {"host": "127.0.0.1", "port": port}
    cfg["mqtt"] = {"host": "127.0.0.1", "port": broker.port, "keepalive": 2}  # no `pairings` key
    path = tmp_path / "table-2.toml"
    path.write_text(toml_text(cfg), encoding="utf-8")
    # at the recording's pace, so that the table is still up when the pairing comes
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(path), "--realtime", "--no-hold"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    state: dict[str, Any] = {}
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and proc.poll() is None:
            try:
                state = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=2).json()
            except httpx.HTTPError:
                state = {}
            if state.get("pairing"):
                break
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
    said = (state.get("pairing"), err[-2000:])
    assert state.get("pairing") == "table-2 · round 1 · bob vs dee vs eve", said
    assert [p["name"] for p in state["players"]] == ["bob", "dee", "eve"]


@pytest.mark.parametrize("session", ["dicetar-wars-demo", "dice-fighter-demo", "die-angler-demo"])
def test_a_tables_per_player_options_go_to_the_paired_players_seat_by_seat(session: str) -> None:
    """A table whose game options name its players (DICETAR WARS' and Die-angler's colours, Dice
    Fighter's power slots) takes a pairing of other players: each seat's option goes to its new player."""
    from controller.pairings import paired_config

    cfg = session_config(ROOT / "tests" / "fixtures" / "sessions" / session, table_id="table-2")
    seated = [p.name for p in cfg.players]
    new = ["bob", "dee", "eve", "fay"][: len(seated)]
    colours = ["red", "blue", "green", "yellow"]
    pairing = {
        "game": cfg.table.game,
        "players": [{"name": n, "seat": i + 1, "colour": colours[i]} for i, n in enumerate(new)],
    }
    paired = paired_config(cfg, pairing)  # on main: refused, the options name ann and bob
    assert [p.name for p in paired.players] == new
    for key, value in cfg.table.options.items():
        if key == "colours":
            assert paired.table.options["colours"] == dict(zip(new, colours, strict=False))
        elif isinstance(value, dict) and set(value) <= set(seated):
            assert paired.table.options[key] == {new[seated.index(k)]: v for k, v in value.items()}
