"""A whole roll or throw typed on the admin page (issue 34 item 2): a form made from what the engine
expects (``Game.entry_dice``: per die its value among its kind's faces, its colour among the colours
in play, its zone among the board's zones or its side of the centre line), never a box for engine
JSON; the API refuses a bad one with a sentence naming the die and what was expected, and changes
nothing.  Real tables; the browser test in Debian's chromium.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from table_rig import ANGLERS, Rig
from test_display_browser import ARTIFACTS, served

from controller.session import session_config
from display.app import create_app
from display.hub import Hub
from display.offers import offers
from engine import DieKind
from engine.entry import DieEntry, check_entered

ROOT = Path(__file__).resolve().parents[2]
DICETAR = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
STATIC = ROOT / "display" / "static"
TOKEN = "entry-form-token-1234"
ADMIN = {"X-Admin-Token": TOKEN}


def dicetar(make_rig: Callable[..., Rig]) -> Rig:
    cfg = session_config(DICETAR)
    return make_rig(cfg=cfg.model_copy(update={"board": cfg.board.model_copy(update={"fit": "none"})}))


def fighters(make_rig: Callable[..., Rig]) -> Rig:
    rig = make_rig(game="dice-fighter", players=ANGLERS, options={"initial_power": {}})
    rig.play({"type": "secret", "player": "ann", "fighter": "lv1-brawler"})
    rig.play({"type": "secret", "player": "bob", "fighter": "lv3-champion"})
    return rig


# -- what the engine expects, die by die -------------------------------------------------------


def test_the_form_is_made_from_what_each_game_expects(make_rig: Callable[..., Rig]) -> None:
    hunter = offers(make_rig(options={"deck": "virtual"}).table)
    (form,) = hunter["forms"]
    assert form["type"] == "roll" and form["player"] == "ann" and len(form["dice"]) == 5  # the kept dice too
    assert all(d["faces"] == {"d6": [1, 2, 3, 4, 5, 6]} and d["colours"] == [] for d in form["dice"])

    board = offers(dicetar(make_rig).table)
    (form,) = board["forms"]
    assert form["type"] == "throw" and form["player"] == "ann" and len(form["dice"]) == 5
    die = form["dice"][0]
    assert die["colours"] == ["red"] and "r3c0" in die["zones"] and not die["sides"]
    assert form["zone_names"]["r3c0"] == "row 4, column 1"  # never a zone's id on the page

    fight = offers(fighters(make_rig).table)
    assert [f["player"] for f in fight["forms"]] == ["ann", "bob"]  # either may enter the shared throw
    die = fight["forms"][0]["dice"][0]
    assert die["faces"] == {"d10p": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]}
    assert die["sides"] and die["throwers"] == ["ann", "bob"] and die["colours"] == ["red", "blue", "green"]


def test_the_admin_page_has_no_box_for_engine_json() -> None:
    page = (STATIC / "admin.html").read_text(encoding="utf-8") + (STATIC / "admin.js").read_text(
        encoding="utf-8"
    )
    assert "<textarea" not in page and '"textarea"' not in page
    assert "JSON.parse(" not in page  # nothing the referee types is read as JSON


def test_typed_dice_are_checked_die_by_die() -> None:
    d6 = DieEntry(kinds=(DieKind.D6,), colours=("red",), zones=("x3", "x4"))
    ok = {"kind": "d6", "value": 4, "colour": "red", "field_status": "field", "zones": ["x3"]}
    check_entered([d6, d6], [ok, {**ok, "field_status": "off", "zones": []}])
    cases = {
        "the throw needs 2 dice, got 1": [ok],
        "die 2: a d6 shows 1-6, got 0": [ok, {**ok, "value": 0}],
        "die 2: colour 'pink' is not one of the colours in play (red)": [ok, {**ok, "colour": "pink"}],
        "die 1: zone 'x9' is not one of the board's zones (x3, x4)": [{**ok, "zones": ["x9"]}, ok],
        "die 2: off the board it lies in no zone, got ['x3']": [ok, {**ok, "field_status": "off"}],
        "die 1: where it lies (field_status) must be 'field' or 'off', got None": [
            {k: v for k, v in ok.items() if k != "field_status"},
            ok,
        ],
    }
    for message, dice in cases.items():
        with pytest.raises(ValueError) as err:
            check_entered([d6, d6], dice)
        assert str(err.value) == message


# -- the API refuses a bad one and changes nothing -------------------------------------------------


def _client(rig: Rig) -> TestClient:
    return TestClient(create_app(rig.table, Hub(), admin_token=TOKEN), headers=ADMIN)


def _enter(client: TestClient, inp: dict[str, Any]) -> Any:
    return client.post(
        "/api/admin/correct", json={"who": "ref", "command": {"action": "input", "input": inp}}
    )


def _seen(client: TestClient) -> tuple[Any, Any]:
    return client.get("/api/state").json(), client.get("/api/events?limit=500").json()


@pytest.mark.parametrize(
    ("game", "change", "message"),
    [
        ("hunter", lambda d: d[:4], "the roll needs 5 dice, got 4"),
        ("hunter", lambda d: [*d[:4], {**d[4], "value": 7}], "die 5: a d6 shows 1-6, got 7"),
        ("hunter", lambda d: "3 3 3 5 6", "the roll needs its dice as a list, got '3 3 3 5 6'"),
        ("dicetar", lambda d: [{**d[0], "colour": "blue"}, *d[1:]], "die 1: colour 'blue' is not one of the"),
        (
            "dicetar",
            lambda d: [d[0], {**d[1], "zones": ["r9c9"]}, *d[2:]],
            "die 2: zone 'r9c9' is not one of",
        ),
        ("fighter", lambda d: [{**d[0], "side": None}, *d[1:]], "die 1: its side of the centre line must be"),
        (
            "fighter",
            lambda d: [*d[:5], {**d[5], "field_status": "off"}],
            "die 6: a die off the field needs who",
        ),
        ("hunter", lambda d: {"player": "bob"}, "the game refuses this roll: player 'bob' may not give"),
    ],
)
def test_a_bad_throw_is_refused_with_a_clear_message_and_changes_nothing(
    make_rig: Callable[..., Rig], game: str, change: Callable[[Any], Any], message: str
) -> None:
    good = {
        "hunter": [{"kind": "d6", "value": v} for v in (3, 3, 3, 5, 6)],
        "dicetar": [
            {"kind": "d6", "value": v, "colour": "red", "field_status": "field", "zones": ["r1c1"]}
            for v in (1, 2, 3, 4, 5)
        ],
        "fighter": [
            {"kind": "d10p", "value": 10 * (i + 1), "colour": c, "field_status": "field", "side": s}
            for i, (c, s) in enumerate(zip(["red", "blue", "green"] * 2, "aaabbb", strict=True))
        ],
    }[game]
    rig = {
        "hunter": lambda: make_rig(options={"deck": "virtual"}),
        "dicetar": lambda: dicetar(make_rig),
        "fighter": lambda: fighters(make_rig),
    }[game]()
    client = _client(rig)
    kind, player = ("roll", "ann") if game == "hunter" else ("throw", "ann")
    before = _seen(client)
    changed = change(good)
    inp = {"type": kind, "player": player, "dice": changed}
    if isinstance(changed, dict):
        inp = {"type": kind, "dice": good, **changed}
    refused = _enter(client, inp)
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error.startswith(message), error
    assert "state:" not in error and "{" not in error  # a sentence, not the engine's dump
    assert _seen(client) == before  # nothing changed, nothing logged
    # and the good one is taken
    taken = _enter(client, {"type": kind, "player": player, "dice": good})
    assert taken.status_code == 200, taken.text
    assert _seen(client) != before


# -- in chromium ------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_the_referee_types_a_roll_and_a_throw_on_the_admin_page(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    from playwright.sync_api import expect

    rig = make_rig(options={"deck": "virtual"})
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(server.url + "/admin")
        page.locator("#who").fill("referee Kim")
        form = page.locator('.entry-form[data-entry="roll"][data-player="ann"]')
        expect(form.locator("tr[data-die]")).to_have_count(5, timeout=10_000)
        assert form.locator("input, textarea").count() == 0  # every field a list of what the rules allow
        faces = form.locator('tr[data-die="1"] select[data-field="value"] option').all_inner_texts()
        assert faces == ["1", "2", "3", "4", "5", "6"]
        for n, v in enumerate((3, 3, 3, 5, 6), start=1):
            form.locator(f'tr[data-die="{n}"] select[data-field="value"]').select_option(str(v))
        form.locator("button[data-entry-send]").click()
        expect(page.locator("#msg")).to_have_text("roll applied")
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        assert rig.table.game.state["dice"] == [3, 3, 3, 5, 6]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    rig = dicetar(make_rig)
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(server.url + "/admin")
        page.locator("#who").fill("referee Kim")
        form = page.locator('.entry-form[data-entry="throw"][data-player="ann"]')
        expect(form.locator("tr[data-die]")).to_have_count(5, timeout=10_000)
        where = form.locator('tr[data-die="1"] select[data-field="where"] option').all_inner_texts()
        assert "in row 4, column 1" in where and "off the board" in where, where
        assert not [w for w in where if re.fullmatch(r"in r\d+c\d+", w)], where  # no zone ids
        assert form.locator('tr[data-die="1"] select[data-field="colour"] option').all_inner_texts() == [
            "red"
        ]
        picks = [(6, "zone:r0c0"), (5, "zone:r3c0"), (4, "field"), (2, "off"), (1, "zone:r1c2")]
        for n, (value, place) in enumerate(picks, start=1):
            form.locator(f'tr[data-die="{n}"] select[data-field="value"]').select_option(str(value))
            form.locator(f'tr[data-die="{n}"] select[data-field="where"]').select_option(place)
        page.screenshot(path=str(ARTIFACTS / "admin-throw-form.png"), full_page=True)
        form.locator("button[data-entry-send]").click()
        expect(page.locator("#msg")).to_have_text("throw applied")
        expect(page.locator("#waiting")).to_have_text("throw from bob")
        thrown = [e for e in rig.table.events(0, 100) if e["kind"] == "input"][-1]["data"]["dice"]
        assert [(d["value"], d.get("zones"), d["field_status"]) for d in thrown] == [
            (6, ["r0c0"], "field"),
            (5, ["r3c0"], "field"),
            (4, None, "field"),
            (2, None, "off"),
            (1, ["r1c2"], "field"),
        ]
