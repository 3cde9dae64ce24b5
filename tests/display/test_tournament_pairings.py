"""Pairings pushed to the tables over MQTT (issue 34 item 1): a Swiss tournament's tables take each
round's players from the broker and start the game themselves, with no table.toml edited between
rounds; a malformed pairing changes nothing and says why; a result naming other players is refused
and shown to the organiser with why."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from broker import Broker

from controller.config import TableConfig, parse_config
from controller.eventlog import EventLog
from controller.mqtt_settings import start_publisher
from controller.pairings import PairingFollower, follow_pairings
from controller.table import Table
from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.broker import BrokerLink
from display.hub import Hub
from display.mqtt import Hall, TablePublisher, result_topic
from display.pairings import pairing_messages, pairing_topic
from display.server import ServerThread
from display.tournament_app import TournamentView, create_tournament_app
from engine import Input, InputKind, RuleError

pytestmark = [pytest.mark.broker, pytest.mark.slow]


def wait_until(check: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def table_config(table_id: str, port: int | None = None) -> TableConfig:
    """A table.toml as the venue writes it once: two seats whose names the pairings replace."""
    raw: dict[str, Any] = {
        "table": {"id": table_id, "game": "die-angler"},
        "players": [{"name": "seat-a", "colour": "red"}, {"name": "seat-b", "colour": "blue"}],
    }
    if port is not None:
        raw["mqtt"] = {"host": "127.0.0.1", "port": port, "keepalive": 2, "pairings": True}
    return parse_config(raw, f"{table_id}.toml")


def play_out(table: Table, seed: int) -> None:
    """Play the table's Die-angler game to its end with legal inputs, as its players would."""
    rnd = random.Random(seed)
    for _ in range(5000):
        exp = table.game.expects()
        if exp.kind is None or table.status == "over":
            return
        if exp.kind is InputKind.REVEAL:
            line: dict[str, Any] = {"type": "reveal", "card": rnd.choice(exp.detail["cards"])}
        elif exp.kind is InputKind.START:
            line = {"type": "start"}
        else:
            p = rnd.choice(exp.players)
            if exp.kind is InputKind.SECRET:
                line = {"type": "secret", "player": p, "d6": rnd.choice([1, 2, 3]), "specials": {}}
            elif exp.kind is InputKind.ROLL:
                dice = [{"kind": k, "value": rnd.randint(1, 6)} for k in exp.detail["dice"][p]]
                line = {"type": "roll", "player": p, "dice": dice}
            else:
                line = {"type": "choice", "player": p, "done": True}
        try:
            table.apply(Input.from_json(line), "button")
        except (RuleError, ValueError):
            continue
    raise AssertionError(f"table {table.table_id}'s game did not end")


class PairedTable:
    """A table as `dicetable run` wires one with ``[mqtt] pairings = true``: publisher and follower."""

    def __init__(self, tmp: Path, port: int, table_id: str) -> None:
        cfg = table_config(table_id, port)
        self.events = EventLog(tmp / f"{table_id}.sqlite3")
        self.table = Table(cfg, self.events, resume=False)
        assert cfg.mqtt is not None
        self.publisher = start_publisher(cfg.mqtt, self.table)
        self.follower = follow_pairings(self.table, self.publisher)

    def names(self) -> list[str]:
        return [p["name"] for p in self.table.snapshot()["players"]]

    def close(self) -> None:
        self.follower.stop()
        self.publisher.stop(wait_s=5)
        self.table.panels.close()
        self.events.close()


@pytest.fixture
def hall_of(broker: Broker, tmp_path: Path) -> Iterator[Callable[[TournamentFile], Any]]:
    opened: list[Any] = []

    def open_hall(spec: TournamentFile) -> Any:
        t = Tournament(spec, tmp_path / "tournament.sqlite3")
        hall = Hall(link=BrokerLink("127.0.0.1", broker.port, keepalive=2))
        view = TournamentView(t, hall, Hub())
        # wired as `dicetable tournament` wires it (controller/cli_tournament.py)
        hall.on_change, hall.on_result, hall.on_connect = view.changed, view.on_result, view.publish_pairings
        hall.start()
        server = ServerThread(create_tournament_app(view)).start()
        opened.append((server, hall, t))
        wait_until(lambda: hall.connected, what="the hall connected")
        return server.url, t

    yield open_hall
    for server, hall, t in opened:
        server.stop()
        hall.stop()
        t.close()


def spec_of(players: list[str], tables: list[str], rounds: int) -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Pairing Open", "format": "swiss", "confirm": "table", "tables": tables},
            "players": [{"name": n} for n in players],
            "rounds": [{"game": "die-angler"} for _ in range(rounds)],
        }
    )


def run_swiss(
    broker: Broker, tmp: Path, hall_of: Any, players: list[str], n_tables: int, rounds: int
) -> None:
    """The tournament pairs each round on the organiser's page; every table starts the paired game on
    its own, plays it out, and its result counts; no table's file is touched between rounds."""
    ids = [f"table-{i}" for i in range(1, n_tables + 1)]
    url, tournament = hall_of(spec_of(players, ids, rounds))
    tables = {i: PairedTable(tmp, broker.port, i) for i in ids}
    met: set[frozenset[str]] = set()
    try:
        for no in range(1, rounds + 1):
            assert httpx.post(url + "/api/next-round", json={}).status_code == 200
            matches = {m["table"]: m["players"] for m in tournament.matches(no)}
            assert sorted(matches) == ids
            for table_id, names in matches.items():
                pt = tables[table_id]
                line = f"{table_id} · round {no} · {' vs '.join(names)}"
                wait_until(lambda pt=pt, line=line: pt.table.snapshot()["pairing"] == line, what=line)
                snap = pt.table.snapshot()  # before the first throw: the pairing, a fresh game
                assert snap["status"] == "playing" and snap["seq"] == 1
                assert pt.names() == names
                assert [p["colour"] for p in snap["players"]] == ["red", "blue"]
                setup = pt.events.setup(pt.table.game_no)  # logged as a new game with these players
                assert list(setup.players) == names and setup.game == "die-angler"
                pair = frozenset(names)
                assert pair not in met, f"round {no} paired {names} again"
                met.add(pair)
            # results carry whole seconds, and the tournament ignores one that finished in the second of
            # an earlier match at the table (or before the round): real games take minutes, these none
            time.sleep(1.1)
            for k, pt in enumerate(tables.values()):
                play_out(pt.table, seed=no * 10 + k)
            wait_until(
                lambda no=no: all(m["status"] == "confirmed" for m in tournament.matches(no)),
                what=f"round {no}'s results taken from the tables",
            )
            for m in tournament.matches(no):
                game = tables[m["table"]].table.game.result()
                assert game is not None and m["scores"] == game.scores and m["winners"] == list(game.winners)
        assert tournament.state()["next_blocked_by"] == "the last round has been played"
        played = {p for m in tournament.matches() for p in m["players"]}
        assert played == set(players)
    finally:
        for pt in tables.values():
            pt.close()


def test_four_players_on_two_tables_take_two_rounds_from_the_broker(
    broker: Broker, tmp_path: Path, hall_of: Any
) -> None:
    run_swiss(broker, tmp_path, hall_of, ["ann", "bob", "cid", "dan"], 2, 2)


def test_eight_players_on_four_tables_play_three_swiss_rounds(
    broker: Broker, tmp_path: Path, hall_of: Any
) -> None:
    run_swiss(broker, tmp_path, hall_of, ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"], 4, 3)


def test_a_pairing_waits_for_the_game_in_play_and_a_wrong_result_is_shown_to_the_organiser(
    broker: Broker, tmp_path: Path, hall_of: Any
) -> None:
    url, tournament = hall_of(spec_of(["ann", "bob"], ["table-1"], 2))
    pt = PairedTable(tmp_path, broker.port, "table-1")
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    try:
        assert httpx.post(url + "/api/next-round", json={}).status_code == 200
        line = "table-1 · round 1 · ann vs bob"
        wait_until(lambda: pt.table.snapshot()["pairing"] == line, what="round 1 at the table")
        first_game = pt.table.game_no
        # a result naming players not paired at this table: refused, and the page's state says why
        forged = {
            "table": "table-1",
            "game": "die-angler",
            "players": [{"name": "ann", "colour": "red"}, {"name": "zed", "colour": "blue"}],
            "scores": {"ann": 3, "zed": 1},
            "winners": ["ann"],
            "seq": 99,
            "finished": _now(),
        }
        raw.publish(result_topic("table-1"), json.dumps(forged), qos=1, retain=True).wait_for_publish(5)
        refused = wait_until(
            lambda: httpx.get(url + "/api/tournament").json()["refused"], what="the refusal on the page"
        )
        assert refused[0]["table"] == "table-1" and "players" in refused[0]["why"], refused
        assert tournament.matches(1)[0]["status"] == "playing"
        # a throw is in: a new pairing (the same round again from a second message) does not restart it
        play_one_input(pt.table)
        again = pairing_messages(tournament.state())["table-1"]
        again["round"] = 2
        raw.publish(pairing_topic("table-1"), json.dumps(again), qos=1).wait_for_publish(5)
        wait_until(lambda: pt.follower.waiting is not None, what="the pairing kept for later")
        time.sleep(0.5)
        assert pt.table.game_no == first_game and pt.table.status == "playing"
        play_out(pt.table, seed=3)  # the game ends: then the waiting pairing starts the next game
        wait_until(lambda: pt.table.game_no != first_game, what="the next game started after the end")
        assert pt.table.snapshot()["pairing"] == "table-1 · round 2 · ann vs bob"
    finally:
        raw.loop_stop()
        raw.disconnect()
        pt.close()


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def play_one_input(table: Table) -> None:
    exp = table.game.expects()
    assert exp.kind is InputKind.REVEAL, exp
    table.apply(Input.from_json({"type": "reveal", "card": exp.detail["cards"][0]}), "button")


GOOD = {
    "table": "table-1",
    "tournament": "Open",
    "round": 1,
    "game": "die-angler",
    "players": [{"name": "ann", "seat": 1, "colour": "red"}, {"name": "bob", "seat": 2, "colour": "blue"}],
    "paired": "2026-11-27T04:00:00+00:00",
}


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"table": "table-2"}, "table: expected 'table-1'"),
        ({"round": 0}, "round: expected a whole number 1..10000"),
        ({"round": "2"}, "round: expected a whole number"),
        ({"game": "chess"}, "game: expected one of"),
        ({"players": [{"name": "ann", "seat": 1, "colour": "red"}]}, "two players at least"),
        (
            {
                "players": [
                    {"name": "ann", "seat": 2, "colour": "red"},
                    {"name": "bob", "seat": 1, "colour": "blue"},
                ]
            },
            "seats 1..2 in order",
        ),
        (
            {
                "players": [
                    {"name": "ann", "seat": 1, "colour": "red"},
                    {"name": "bob", "seat": 2, "colour": "red"},
                ]
            },
            "a colour of their own",
        ),
        (
            {
                "players": [
                    {"name": "ann", "seat": 1, "colour": "red"},
                    {"name": "ann", "seat": 2, "colour": "blue"},
                ]
            },
            "names must differ",
        ),
        ({"players": "ann,bob"}, "players: expected a list"),
        ({"paired": "yesterday"}, "paired: expected an ISO 8601 time"),
        ({"tournament": ["x"]}, "tournament: expected text"),
        ({"game": "dice-hunter"}, "dice-hunter"),  # the game itself refuses two players
    ],
)
def test_a_malformed_pairing_changes_nothing_and_says_why(
    tmp_path: Path, change: dict[str, Any], why: str
) -> None:
    cfg = table_config("table-1")
    with EventLog(tmp_path / "events.sqlite3") as events:
        table = Table(cfg, events, resume=False)
        try:
            follower = PairingFollower(table, TablePublisher("table-1", "127.0.0.1", 1))  # not started
            before = (table.game_no, [p.name for p in table.cfg.players])
            assert not follower.offer(json.dumps({**GOOD, **change}))
            assert why in follower.refusals[-1]["why"], follower.refusals[-1]
            assert follower.waiting is None and not follower.start_waiting()
            assert (table.game_no, [p.name for p in table.cfg.players]) == before
            assert table.snapshot()["pairing"] is None
            for bad in (b"", b"not json", b"[1, 2]", b"\xff"):
                assert not follower.offer(bad)
            assert follower.offer(json.dumps(GOOD)) and follower.start_waiting()  # a good one still does
            assert [p.name for p in table.cfg.players] == ["ann", "bob"] and table.game_no == before[0] + 1
            assert table.snapshot()["pairing"] == "table-1 · round 1 · ann vs bob"
        finally:
            table.panels.close()


def test_over_the_shipped_broker_only_the_hall_pairs_a_table_and_only_that_table_reads_it(
    tmp_path: Path,
) -> None:
    """deploy/mosquitto's ACL (TLS, passwords): the hall writes pairings, table-1 takes its own;
    table-2 can neither write table-1's pairing nor read it."""
    from secure_broker import SecureBroker, available

    why = available()
    if why:
        pytest.skip(why)
    secure = SecureBroker(tmp_path / "broker")
    secure.start()
    raw = {
        **table_config("table-1").model_dump(),
        "mqtt": {**secure.mqtt_section("table-1"), "pairings": True},
    }
    cfg = parse_config(raw, "table-1.toml")
    events = EventLog(tmp_path / "table-1.sqlite3")
    table = Table(cfg, events, resume=False)
    assert cfg.mqtt is not None
    publisher = start_publisher(cfg.mqtt, table)
    follower = follow_pairings(table, publisher)
    seen: list[bytes] = []
    clients = []
    try:
        for name in ("hall", "table-2"):
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
            link = secure.link(name)
            c.username_pw_set(link.username, link.password)
            c.tls_set(ca_certs=link.ca_file, certfile=link.cert_file, keyfile=link.key_file)
            c.connect("127.0.0.1", secure.port, keepalive=5)
            c.loop_start()
            wait_until(c.is_connected, what=f"{name} connected")
            clients.append(c)
        hall, other = clients
        other.on_message = lambda c, u, m: seen.append(m.payload)
        other.subscribe(pairing_topic("table-1"), qos=1)
        wait_until(publisher.client.is_connected, what="table-1 connected")
        time.sleep(0.5)  # table-1's subscription is in
        forged = {
            **GOOD,
            "players": [
                {"name": "eve", "seat": 1, "colour": "red"},
                {"name": "zed", "seat": 2, "colour": "blue"},
            ],
        }
        other.publish(pairing_topic("table-1"), json.dumps(forged), qos=1, retain=True).wait_for_publish(5)
        hall.publish(pairing_topic("table-1"), json.dumps(GOOD), qos=1, retain=True).wait_for_publish(5)
        wait_until(
            lambda: table.snapshot()["pairing"] == "table-1 · round 1 · ann vs bob", what="the pairing"
        )
        time.sleep(0.5)
        assert [p.name for p in table.cfg.players] == ["ann", "bob"] and seen == []
        assert not follower.refusals
    finally:
        for c in clients:
            c.loop_stop()
            c.disconnect()
        follower.stop()
        publisher.stop(wait_s=5)
        table.panels.close()
        events.close()
        secure.stop()


@pytest.mark.browser
def test_the_table_page_shows_the_pairing_before_the_first_throw(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from controller.live import serve_display
    from display.server import free_port

    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("chromium is not installed")
    with EventLog(tmp_path / "events.sqlite3") as events:
        table = Table(table_config("table-3"), events, resume=False)
        try:
            follower = PairingFollower(table, TablePublisher("table-3", "127.0.0.1", 1))  # not started
            port = free_port()
            with serve_display(table, "127.0.0.1", port, None), sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=str(chromium), args=["--headless", "--no-sandbox"]
                )
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                expect(page.locator("#pairing")).to_be_hidden()  # no tournament yet
                assert follower.offer(json.dumps({**GOOD, "table": "table-3", "round": 2}))
                assert follower.start_waiting()
                expect(page.locator("#pairing")).to_have_text("table-3 · round 2 · ann vs bob")
                expect(page.locator("#waiting")).to_contain_text("reveal")  # nothing thrown yet
                browser.close()
        finally:
            table.panels.close()


def test_a_paired_table_restarted_mid_game_resumes_it_and_its_pairing_lets_it_play_on(tmp_path: Path) -> None:
    from controller.live import open_table

    raw = {**table_config("table-1").model_dump(), "mqtt": {"host": "127.0.0.1", "port": 1, "pairings": True}}
    raw["database"] = {"path": str(tmp_path / "table-1.sqlite3")}
    cfg = parse_config(raw, "table-1.toml")
    table, events = open_table(cfg)
    try:
        follower = PairingFollower(table, TablePublisher("table-1", "127.0.0.1", 1), cfg)  # not started
        assert follower.offer(json.dumps(GOOD)) and follower.start_waiting()
        play_one_input(table)
        game_no, seq = table.game_no, table.snapshot()["seq"]
    finally:
        table.panels.close()
        events.close()
    table, events = open_table(cfg)  # the restart: table.toml still names seat-a and seat-b
    try:
        assert table.resumed and table.game_no == game_no and table.snapshot()["seq"] == seq
        assert [p.name for p in table.cfg.players] == ["ann", "bob"]
        follower = PairingFollower(table, TablePublisher("table-1", "127.0.0.1", 1), cfg)
        assert follower.offer(json.dumps(GOOD))  # the retained pairing again
        assert follower.waiting is None and not follower.start_waiting() and table.game_no == game_no
        assert table.snapshot()["pairing"] == "table-1 · round 1 · ann vs bob"
        play_out(table, seed=5)  # then round 2's pairing starts the next game, seats from table.toml
        assert follower.offer(json.dumps({**GOOD, "round": 2})) and follower.start_waiting()
        assert table.game_no == game_no + 1 and table.snapshot()["pairing"].endswith("round 2 · ann vs bob")
    finally:
        table.panels.close()
        events.close()


def test_a_tables_next_game_of_as_many_events_still_publishes_its_result() -> None:
    """Seq alone does not tell two games apart: a tournament table's round-2 game of as many
    events as round 1's must still publish its result (not taken for round 1's, sent already)."""
    publisher = TablePublisher("table-1", "127.0.0.1", 1)  # not started: it keeps what it would send

    def over(a: str, b: str) -> dict[str, Any]:
        players = [{"name": a, "colour": "red"}, {"name": b, "colour": "blue"}]
        state = {"scores": {a: 3, b: 1}, "result": {"winners": [a]}}
        return {
            "table": "table-1",
            "game": "die-angler",
            "players": players,
            "state": state,
            "status": "over",
            "seq": 40,
        }

    publisher.publish(over("ann", "cid"))
    first = publisher._result
    publisher.publish(over("ann", "cid"))  # the same game again: nothing new
    assert publisher._result is first
    publisher.publish(over("ann", "bob"))
    assert publisher._result is not None and [p["name"] for p in publisher._result["players"]] == [
        "ann",
        "bob",
    ]


def test_a_newer_pairing_for_the_round_replaces_one_nothing_was_played_under_and_every_refusal_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 47 item 2: a forged retained pairing (colours swapped, or other players) was taken first
    (a broker without the shipped ACL); the hall's genuine pairing for that round then replaces it
    while no input is logged under it, and once one is, it is refused with a log line, never
    ignored without a word."""
    cfg = table_config("table-1")
    swapped = {**GOOD, "players": [{"name": "ann", "seat": 1, "colour": "blue"},
                                   {"name": "bob", "seat": 2, "colour": "red"}]}  # fmt: skip
    strangers = {**GOOD, "players": [{"name": "eve", "seat": 1, "colour": "red"},
                                     {"name": "zed", "seat": 2, "colour": "blue"}]}  # fmt: skip
    with EventLog(tmp_path / "events.sqlite3") as events:
        table = Table(cfg, events, resume=False)
        try:
            follower = PairingFollower(table, TablePublisher("table-1", "127.0.0.1", 1))  # not started
            assert follower.offer(json.dumps(strangers)) and follower.start_waiting()
            assert [p.name for p in table.cfg.players] == ["eve", "zed"]
            assert follower.offer(json.dumps(GOOD)) and follower.start_waiting()  # nothing played: replaced
            assert [(p.name, p.colour) for p in table.cfg.players] == [("ann", "red"), ("bob", "blue")]
            assert follower.offer(json.dumps(GOOD)) and follower.waiting is None  # the same again: kept
            play_one_input(table)
            game_no = table.game_no
            with caplog.at_level(logging.WARNING, logger="dicetable.pairings"):
                assert not follower.offer(json.dumps(swapped))  # played under the genuine one: refused
            assert "has inputs logged already: not taken" in follower.refusals[-1]["why"]
            assert "refused the pairing" in caplog.text and "round 1" in caplog.text
            assert not follower.start_waiting() and table.game_no == game_no
            assert [(p.name, p.colour) for p in table.cfg.players] == [("ann", "red"), ("bob", "blue")]
        finally:
            table.panels.close()
