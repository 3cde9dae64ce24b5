"""What the hall shows from the broker: checked field by field, bounded in number, forgotten when gone."""

from __future__ import annotations

import json
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.config import COLOURS
from display.hall_checks import COLOURS as HALL_COLOURS
from display.hall_checks import BadMessage, check_summary
from display.mqtt import Hall, result_topic, state_topic, status_topic


def good(table: str = "t1", **over: Any) -> dict[str, Any]:
    return {
        "table": table,
        "game": "dice-hunter",
        "players": [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}],
        "scores": {"ann": 300, "bob": 100},
        "status": "playing",
        "waiting_for": "roll from bob",
        "current_player": "bob",
        "round": 2,
        "winners": [],
        "seq": 41,
        "updated": "2026-11-21T21:04:05+00:00",
        **over,
    }


def message(topic: str, payload: Any) -> mqtt.MQTTMessage:
    msg = mqtt.MQTTMessage(topic=topic.encode())
    msg.payload = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return msg


class Clock:
    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def __call__(self) -> float:
        return self.t


def test_the_hall_and_the_config_know_the_same_colours() -> None:
    assert set(COLOURS) == HALL_COLOURS


def test_a_good_summary_passes_whole() -> None:
    assert check_summary("t1", good()) == good()


@pytest.mark.parametrize(
    "over, field",
    [
        ({"players": [{"name": "ann", "colour": "red;background:url(http://evil/x)"}]}, "players[0].colour"),
        ({"scores": {"ann": "99999"}}, "scores['ann']"),
        ({"scores": {"ann": 1e12}}, "scores['ann']"),
        ({"scores": {"mallory": 5}}, "scores"),
        ({"scores": {"ann": True}}, "scores['ann']"),
        ({"table": "t2"}, "table"),
        ({"status": "<b>over</b>"}, "status"),
        ({"waiting_for": "x" * 5000}, "waiting_for"),
        ({"round": "2"}, "round"),
        ({"winners": ["mallory"]}, "winners"),
        ({"players": [{"name": "a" * 100, "colour": "red"}]}, "players[0].name"),
        ({"game": "chess"}, "game"),
        ({"updated": "yesterday"}, "updated"),
    ],
)
def test_a_bad_field_refuses_the_whole_summary_naming_it(over: dict[str, Any], field: str) -> None:
    with pytest.raises(BadMessage) as e:
        check_summary("t1", good(**over))
    assert str(e.value).startswith(f"{field}: expected")


def test_the_hall_keeps_the_last_good_summary_and_counts_refusals() -> None:
    hall = Hall(clock=Clock())
    hall._on_message(None, None, message(state_topic("t1"), good()))  # type: ignore[arg-type]
    hall._on_message(None, None, message(state_topic("t1"), good(scores={"ann": 99999999})))  # type: ignore[arg-type]
    hall._on_message(None, None, message(state_topic("t1"), b"\xff garbage"))  # type: ignore[arg-type]
    hall._on_message(None, None, message(state_topic("x" * 80), good("x" * 80)))  # type: ignore[arg-type]
    hall._on_message(None, None, message("other/prefix/t9/state", good("t9")))  # type: ignore[arg-type]
    [entry] = hall.snapshot()["tables"]
    assert entry["table"] == "t1" and entry["summary"]["scores"] == {"ann": 300, "bob": 100}
    assert hall.refused == 3


def test_offline_tables_expire_and_a_flood_of_ids_cannot_grow_the_hall() -> None:
    clock = Clock()
    hall = Hall(clock=clock, expire_s=60, max_tables=5)

    def say(table: str, status: str, t: str | None = None) -> None:
        msg = {"table": table, "status": status, "t": t}
        hall._on_message(None, None, message(status_topic(table), msg))  # type: ignore[arg-type]

    say("real", "online")
    for i in range(1000):
        say(f"fake-{i}", "offline")
    tables = {t["table"] for t in hall.snapshot()["tables"]}
    assert len(tables) == 5 and "real" in tables  # the online table is never pushed out

    clock.t += 61
    assert [t["table"] for t in hall.snapshot()["tables"]] == ["real"]
    say("real", "offline")
    clock.t += 61
    assert hall.snapshot()["tables"] == []

    say("gone-long-ago", "offline", "2020-01-01T00:00:00+00:00")  # a retained goodbye from long ago
    assert hall.snapshot()["tables"] == []


def test_a_result_reaches_the_results_listener_checked() -> None:
    got: list[tuple[str, dict[str, Any]]] = []
    hall = Hall(clock=Clock(), on_result=lambda t, r: got.append((t, r)))
    result = {k: good()[k] for k in ("table", "game", "players", "scores", "seq")}
    result |= {"winners": ["ann"], "finished": "2026-11-21T21:30:00+00:00"}
    hall._on_message(None, None, message(result_topic("t1"), result))  # type: ignore[arg-type]
    hall._on_message(None, None, message(result_topic("t1"), {**result, "winners": "ann"}))  # type: ignore[arg-type]
    assert got == [("t1", result)]


def result_payload(table: str = "t1", **over: Any) -> dict[str, Any]:
    result = {k: good(table)[k] for k in ("table", "game", "players", "scores", "seq")}
    return {**result, "winners": ["ann"], "finished": "2026-11-21T21:30:00+00:00", **over}


DEEP = "[" * 8000 + "]" * 8000
#: (kind, JSON text) that once raised something other than ValueError inside the checks
HOSTILE: list[tuple[str, str]] = [
    ("state", json.dumps(good()).replace('"ann": 300', '"ann": 1' + "0" * 400)),  # 10**400
    ("result", json.dumps(result_payload()).replace('"ann": 300', '"ann": -1' + "0" * 400)),
    ("state", DEEP),
    ("state", json.dumps(good(players=[])).replace('"players": []', f'"players": {DEEP}')),
    ("state", json.dumps(good(players=[{"name": "ann", "colour": ["red"]}]))),
    ("state", json.dumps(good(players=[{"name": "ann", "colour": {"red": 1}}]))),
    ("result", json.dumps(result_payload(players=[{"name": "ann", "colour": []}]))),
    ("state", json.dumps(good(status=["playing"]))),
    ("state", json.dumps(good(status={"over": True}))),
    ("status", json.dumps({"table": "t1", "status": ["online"]})),
    ("status", json.dumps({"table": "t1", "status": {"online": 1}})),
    ("state", json.dumps(good(game=["dice-hunter"]))),
    ("state", json.dumps(good(game={"dice-hunter": 1}))),
    ("result", json.dumps(result_payload(game={}))),
    ("state", json.dumps(good(winners=[["ann"]]))),
    ("state", json.dumps(good(winners=[{"ann": 1}]))),
    ("result", json.dumps(result_payload(winners=[["ann"], {}]))),
    ("result", json.dumps(result_payload(winners={"ann": 1}))),
    ("state", json.dumps(good(current_player=["bob"]))),
    ("state", json.dumps(good(table=["t1"]))),
    ("state", json.dumps(good(updated="0001-01-01T00:00:00+14:00"))),
    ("status", json.dumps({"table": "t1", "status": "offline", "t": "0001-01-01T00:00:00+14:00"})),
    ("state", json.dumps(good(scores={"ann": float("nan")}))),
    ("state", json.dumps(good(scores=[300, 100]))),
    ("state", json.dumps(good(players={"ann": "red"}))),
    ("state", json.dumps(good(players=[["ann", "red"]]))),
    ("state", json.dumps(good(round=[2]))),
    ("result", json.dumps(result_payload(winners=["ann", "ann"]))),
    ("state", '{"table": "t1", "scores": {"ann": 1' + "0" * 5000 + "}}"),  # over Python's 4300 digits
    ("state", "[]"),
    ("state", "12"),
    ("state", ""),
]


@pytest.mark.parametrize("kind, text", HOSTILE, ids=[f"{k}-{i}" for i, (k, _) in enumerate(HOSTILE)])
def test_a_hostile_message_is_refused_with_why_and_raises_nothing_else(kind: str, text: str) -> None:
    got: list[Any] = []
    hall = Hall(clock=Clock(), on_result=lambda t, r: got.append(r))
    topic = {"state": state_topic, "status": status_topic, "result": result_topic}[kind]("t1")
    hall._on_message(None, None, message(topic, text.encode()))  # type: ignore[arg-type]
    assert hall.refused == 1 and hall.snapshot()["tables"] == [] and got == []
    why = hall.snapshot()["last_refused"]["why"]
    assert "expected" in why and "could not take it" not in why, why  # the checks refused it, not the net


def test_the_last_resort_keeps_the_hall_when_a_listener_or_check_fails() -> None:
    def broken(table: str, result: dict[str, Any]) -> None:
        raise RuntimeError("listener broke")

    hall = Hall(clock=Clock(), on_result=broken)
    hall._on_message(None, None, message(result_topic("t1"), result_payload()))  # type: ignore[arg-type]
    [entry] = hall.snapshot()["tables"]
    assert entry["result"]["scores"] == {"ann": 300, "bob": 100} and hall.refused == 0
