"""The secret rule on every output: a hidden choice is shown only as "who has chosen" until its reveal.

Two real Dice Fighter tables play the same game on gpiozero MockFactory panels, up to the round's
attack declarations, where both players may declare a special.  On one ann declares a normal attack,
on the other her special; bob has not declared yet.  Everything a player can see (``/api/state``,
``/api/events`` with its texts, the table page, what MQTT publishes, the LED matrix's picture, the
table's log lines) must be the same on both tables until bob has declared too, and must tell them
apart after the reveal.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from table_rig import ANGLERS, Rig

from display.app import create_app
from display.hub import Hub
from display.mqtt import summarise
from hardware import patterns

TOKEN = "s3cret-token"
ADMIN = {"X-Admin-Token": TOKEN}


def _die(value: int, colour: str, side: str) -> dict[str, Any]:
    return {"kind": "d10p", "value": value, "colour": colour, "side": side, "field_status": "field"}


# ann (Street Brawler, special <20-><80+>) and bob (Champion, special <70><70>) both match their commands
BOTH_MATCH = [
    _die(20, "red", "a"),
    _die(80, "blue", "a"),
    _die(50, "green", "a"),
    _die(70, "red", "b"),
    _die(70, "green", "b"),
    _die(10, "blue", "b"),
]


class Fighters:
    """One Dice Fighter table at its attack declarations, with its display and what it showed."""

    def __init__(self, folder: Path) -> None:
        self.seat(folder)
        self.rig.play({"type": "throw", "dice": BOTH_MATCH})
        exp = self.rig.table.game.expects()
        assert exp.kind is not None and exp.kind.value == "choice" and exp.players == ("ann", "bob")
        assert exp.detail["options"]["ann"] == ["normal", "lv1-brawler"]

    def seat(self, folder: Path) -> None:
        """The table, its display, LED patterns and MQTT summaries watched; both fighters chosen."""
        folder.mkdir()
        self.rig = Rig(folder, game="dice-fighter", players=ANGLERS, options={"initial_power": {}})
        self.hub = Hub()
        self.rig.table.listeners.append(self.hub.notify)
        self.leds: list[np.ndarray] = []
        self.rig.table.listeners.append(lambda snap: self.leds.append(patterns.for_snapshot(snap, 16, 16)))
        self.published: list[dict[str, Any]] = []
        self.rig.table.listeners.append(lambda snap: self.published.append(summarise(snap)))
        app = create_app(self.rig.table, self.hub, admin_token=TOKEN, loopback_only_admin=False)
        self.client = TestClient(app)
        self.rig.play({"type": "secret", "player": "ann", "fighter": "lv1-brawler"})
        self.rig.play({"type": "secret", "player": "bob", "fighter": "lv3-champion"})

    def seen(self) -> dict[str, Any]:
        """Everything a player can see now, with the clock's readings left out."""
        state = self.client.get("/api/state").json()
        events = self.client.get("/api/events?offset=0&limit=500").json()
        events_ja = self.client.get("/api/events?offset=0&limit=500&lang=ja").json()  # told in Japanese
        for e in events["events"] + events_ja["events"]:
            e.pop("t")  # the wall clock when it was logged
        page = self.client.get("/").text + self.client.get("/tv?lang=ja").text
        mqtt = [{k: v for k, v in m.items() if k != "updated"} for m in self.published]
        return {
            "state": state,
            "events": events,
            "events_ja": events_ja,
            "page": page,
            "mqtt": mqtt,
            "leds": [frame.tolist() for frame in self.leds],
        }

    def close(self) -> None:
        self.rig.close()


@pytest.fixture
def two_tables(tmp_path: Path) -> Iterator[tuple[Fighters, Fighters]]:
    a, b = Fighters(tmp_path / "a"), Fighters(tmp_path / "b")
    yield a, b
    a.close()
    b.close()


def _attack_inputs(seen: dict[str, Any]) -> dict[str, str]:
    return {
        e["player"]: e["data"]["attack"]
        for e in seen["events"]["events"]
        if e["kind"] == "input" and "attack" in e["data"]
    }


def test_a_declared_attack_is_shown_only_as_who_has_declared_until_both_have(
    two_tables: tuple[Fighters, Fighters], caplog: pytest.LogCaptureFixture
) -> None:
    normal, special = two_tables
    caplog.set_level(logging.DEBUG)
    normal.rig.press("ann", "up", "up")  # two options: back to "attack normal"
    special.rig.press("ann", "up", "select")  # "attack lv1-brawler" highlighted
    assert normal.seen() == special.seen()  # not even her highlighted option shows
    caplog.clear()
    normal.rig.press("ann", "confirm")
    normal_log = [r.getMessage() for r in caplog.records]
    caplog.clear()
    special.rig.press("ann", "confirm")
    special_log = [r.getMessage() for r in caplog.records]

    before_a, before_b = normal.seen(), special.seen()
    # nothing a player sees tells the two tables apart: not the state, the events and their texts,
    # the page, MQTT, the LEDs or the log lines
    assert _attack_inputs(before_b) == {}
    assert not any("attack" in json.dumps(e["data"]) for e in before_b["events"]["events"])
    ja = [e["text"] for e in before_b["events_ja"]["events"]]
    assert ja and all(re.search("[\u3040-\u30ff\u4e00-\u9fff]", t) for t in ja), ja  # told in Japanese
    assert not any("攻撃" in t for t in ja), ja  # and not even that an attack was declared
    assert before_a == before_b
    assert normal_log == special_log
    # the table still waits for bob, and says that ann has declared
    assert before_b["state"]["secret"]["confirmed"] == ["ann"]
    assert before_b["state"]["secret"]["waiting"] == ["bob"]
    assert before_b["state"]["choice"] is None  # no one's highlighted option, not even bob's

    for table in two_tables:
        table.rig.press("bob", "up", "confirm")  # bob declares his special: the reveal
    after_a, after_b = normal.seen(), special.seen()
    assert _attack_inputs(after_a) == {"ann": "normal", "bob": "lv3-champion"}
    assert _attack_inputs(after_b) == {"ann": "lv1-brawler", "bob": "lv3-champion"}
    ja = [e["text"] for e in after_b["events_ja"]["events"] if e["data"].get("event") == "attacks_revealed"]
    assert ja == ["攻撃公開：ann Street Brawler、bob Champion"], ja  # the reveal says it, by name
    revealed = [e for e in after_b["events"]["events"] if e["data"].get("event") == "attacks_revealed"]
    assert revealed and revealed[0]["data"]["detail"] == {"ann": "lv1-brawler", "bob": "lv3-champion"}
    assert after_b["state"]["secret"] is None
    assert after_b["state"]["state"]["phase"] == "special_roll"


def test_a_declaration_entered_by_the_referee_is_held_too_and_a_wrong_one_is_refused_unquoted(
    two_tables: tuple[Fighters, Fighters],
) -> None:
    table = two_tables[0]

    def enter(attack: str) -> Any:
        command = {"action": "input", "input": {"type": "choice", "player": "ann", "attack": attack}}
        return table.client.post("/api/admin/correct", json={"who": "ref", "command": command}, headers=ADMIN)

    refused = enter("lv9-nobody")
    assert refused.status_code == 400 and "lv9-nobody" not in refused.text
    held = enter("lv1-brawler")
    assert held.status_code == 200 and "held until everyone asked has chosen" in held.json()["message"]
    seen = table.seen()
    assert seen["state"]["secret"]["confirmed"] == ["ann"] and _attack_inputs(seen) == {}
    assert enter("normal").status_code == 400  # a declaration is final
    table.rig.press("bob", "confirm")  # bob: a normal attack
    assert _attack_inputs(table.seen()) == {"ann": "lv1-brawler", "bob": "normal"}
