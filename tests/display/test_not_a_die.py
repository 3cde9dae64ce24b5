"""A question about something that is no die (issue 30's phantoms: a scrap of paper, a shadow the
empty table found and the reader could not rule out) gets a "not a die" answer on the table page's
picker, the admin page and the API: logged with who said it, the reading leaves the throw and the
rest is scored (or asked about again); like every answer it waits for an undo once the throw is
scored, and "it is a die after all" puts it back.  Before, the throw had to be typed on the admin
page.  Real table (tests/display/table_rig.py), real Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from table_rig import Rig, d6
from test_display_browser import ARTIFACTS
from test_fix_browser import context, served  # noqa: F401  (the page fixture)
from test_secret_rule import BOTH_MATCH, Fighters, _attack_inputs

from display.app import create_app
from display.hub import Hub

TOKEN = "not-a-die-5d1c0e7a9b33"
ADMIN = {"X-Admin-Token": TOKEN}
SECRET_TOKEN = "s3cret-token"
#: ann's roll of five dice, and a scrap of paper the camera could not rule out (asked about)
THROW = [d6(3), d6(3), d6(3), d6(5), d6(6), d6(1, colour="white", confidence=0.3)]


@pytest.fixture
def client(rig: Rig) -> TestClient:
    return TestClient(create_app(rig.table, Hub(), admin_token=TOKEN, loopback_only_admin=False))


def correct(client: TestClient, command: dict[str, Any], who: str = "referee Kim") -> Any:
    return client.post("/api/admin/correct", json={"who": who, "command": command}, headers=ADMIN)


def test_a_phantom_answered_not_a_die_leaves_the_throw_logged_and_undoable(
    client: TestClient, rig: Rig
) -> None:
    rig.settle(THROW)
    snap = client.get("/api/state").json()
    assert snap["question"] is not None and "r1.6" in snap["question"]["readings"], snap["question"]
    assert snap["state"]["expects"]["kind"] == "roll"  # nothing scored while it is asked
    reply = correct(client, {"action": "not_a_die", "reading": "r1.6"})
    assert reply.status_code == 200, reply.json()
    assert reply.json()["message"] == "reading r1.6 is not a die: left out of the throw"
    snap = client.get("/api/state").json()
    assert snap["question"] is None and snap["state"]["dice"] == [3, 3, 3, 5, 6]
    readings = client.get("/api/readings").json()
    assert [d["id"] for d in readings["dice"]] == ["r1.1", "r1.2", "r1.3", "r1.4", "r1.5"]
    assert [d["id"] for d in readings["not_dice"]] == ["r1.6"]
    events = client.get("/api/events?limit=100").json()["events"]
    said = [e for e in events if e["kind"] == "control" and e["data"].get("correction") == "not_a_die"]
    assert len(said) == 1 and said[0]["player"] == "referee Kim" and said[0]["source"] == "correction"
    assert said[0]["text"] == "referee Kim said reading r1.6 is not a die: left out of the throw"
    ja = client.get("/api/events?limit=100&lang=ja").json()["events"]
    assert "referee Kimが読み取りr1.6はダイスではないと答えた（スローから除外）" in [e["text"] for e in ja]

    # once scored, an answer waits for the undo, as every answer does; then it is a die after all
    refused = correct(client, {"action": "confirm", "reading": "r1.6"})
    assert refused.status_code == 400 and "undo the last input first" in refused.json()["error"]
    assert correct(client, {"action": "undo"}).status_code == 200
    # answered once (version 1): a second answer names the version it saw (issue 47, item 9)
    again = correct(client, {"action": "set_value", "reading": "r1.6", "value": 3})
    assert again.status_code == 409 and "already answered by referee Kim" in again.json()["error"]
    back = correct(client, {"action": "set_value", "reading": "r1.6", "value": 3, "version": 1})
    assert back.status_code == 200, back.json()
    readings = client.get("/api/readings").json()
    assert [d["id"] for d in readings["dice"]][-1] == "r1.6" and readings["not_dice"] == []
    snap = client.get("/api/state").json()  # six dice for a roll of five: asked again, not scored
    assert snap["question"] is not None and snap["state"]["expects"]["kind"] == "roll"


def test_a_not_a_die_answer_is_refused_by_name_and_changes_nothing(client: TestClient, rig: Rig) -> None:
    rig.settle(THROW)
    for command, words in (
        ({"action": "not_a_die", "reading": "r9.9"}, "reading 'r9.9' is not in the latest frame"),
        ({"action": "not_a_die"}, "command.not_a_die.reading"),
    ):
        bad = correct(client, command)
        assert bad.status_code in (400, 422) and words in bad.json()["error"], bad.json()
    assert correct(client, {"action": "not_a_die", "reading": "r1.6"}).status_code == 200
    again = correct(client, {"action": "not_a_die", "reading": "r1.6"})
    assert again.status_code == 400 and "already left out as not a die" in again.json()["error"]
    scored = correct(client, {"action": "not_a_die", "reading": "r1.2"})  # the throw is scored now
    assert scored.status_code == 400 and "already scored: undo the last input first" in scored.json()["error"]
    assert client.get("/api/state").json()["state"]["dice"] == [3, 3, 3, 5, 6]
    rows = [e for e in client.get("/api/events?limit=100").json()["events"] if e["source"] == "correction"]
    assert len(rows) == 1  # the refused ones left no trace


# -- in chromium -------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_the_phantom_is_answered_not_a_die_on_the_table_page_and_put_back_on_the_admin_page(
    context: Any,  # noqa: F811
    rig: Rig,
) -> None:
    from playwright.sync_api import expect

    rig.settle(THROW)
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#question")).to_be_visible(timeout=10_000)
        page.click('#asked-dice [data-fix="r1.6"]')
        dialog = page.locator("#fix-die")
        expect(dialog.locator("button[data-fix-not-die]")).to_have_text("It is not a die")
        page.fill("#fix-who", "referee Kim")
        dialog.locator("button[data-fix-not-die]").click()
        expect(page.locator("#question")).to_be_hidden(timeout=10_000)
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        expect(page.locator("#read-dice [data-fix]")).to_have_count(5)  # the paper is no die on the page
        assert rig.table.game.state["dice"] == [3, 3, 3, 5, 6]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "not-a-die-table.png"), full_page=True)

        # the admin page lists it as no die; "a die after all" (after the undo) puts it back
        admin = context.new_page()
        admin.goto(server.url + "/admin")
        admin.fill("#who", "referee Kim")
        row = admin.locator('#readings tr[data-not-die-reading="r1.6"]')
        expect(row).to_be_visible(timeout=10_000)
        admin.click('button[data-action="undo"]')
        expect(admin.locator("#msg")).to_have_text("undid roll from ann")
        row.locator("button[data-is-die]").click()
        expect(admin.locator("#msg")).to_have_text("reading r1.6 confirmed as 1")
        expect(admin.locator('#readings tr[data-reading="r1.6"]')).to_be_visible()
        expect(row).to_have_count(0)
        # asked again (six dice for five); answered from the admin page this time
        admin.locator('#readings tr[data-reading="r1.6"] button[data-not-die]').click()
        expect(admin.locator("#msg")).to_have_text("reading r1.6 is not a die: left out of the throw")
        expect(page.locator("#waiting")).to_have_text("choice from ann", timeout=10_000)
        assert rig.table.game.state["dice"] == [3, 3, 3, 5, 6]
        texts = [e["text"] for e in httpx.get(server.url + "/api/events?limit=200").json()["events"]]
        assert texts.count("referee Kim said reading r1.6 is not a die: left out of the throw") == 2


# -- secret choices are not touched ------------------------------------------------------------


class PhantomFighters(Fighters):
    """test_secret_rule's Dice Fighter table, its throw read by the camera with a phantom among the
    dice (a red scrap the reader could not rule out), answered "not a die" by the referee."""

    def __init__(self, folder: Path) -> None:
        self.seat(folder)
        phantom = {"kind": "d10p", "value": 0, "colour": "red", "side": "a", "field_status": "field"}
        self.rig.settle([*BOTH_MATCH, {**phantom, "confidence": 0.3}])
        assert self.rig.table.snapshot()["question"] is not None
        said = self.answer({"action": "not_a_die", "reading": "r1.7"})
        assert said.status_code == 200, said.json()
        exp = self.rig.table.game.expects()
        assert exp.kind is not None and exp.kind.value == "choice" and exp.players == ("ann", "bob")

    def answer(self, command: dict[str, Any]) -> Any:
        return self.client.post(
            "/api/admin/correct",
            json={"who": "ref", "command": command},
            headers={"X-Admin-Token": SECRET_TOKEN},
        )


def test_a_not_a_die_answer_leaves_the_secret_declarations_that_follow_secret(tmp_path: Path) -> None:
    """Two Dice Fighter tables whose throw had a phantom answered "not a die"; on one ann declares a
    normal attack, on the other her special: nothing a player sees tells them apart until bob has
    declared, a second "not a die" answer while the declarations are held included (refused alike:
    the throw is scored), and the reveal shows each."""
    normal, special = PhantomFighters(tmp_path / "a"), PhantomFighters(tmp_path / "b")
    try:
        assert normal.rig.table.game.state["dice"] == special.rig.table.game.state["dice"]
        normal.rig.press("ann", "up", "up", "confirm")
        special.rig.press("ann", "up", "select", "confirm")
        refused = [t.answer({"action": "not_a_die", "reading": "r1.6"}) for t in (normal, special)]
        assert refused[0].status_code == 400 and refused[0].json() == refused[1].json()
        assert normal.seen() == special.seen()
        assert normal.seen()["state"]["secret"]["confirmed"] == ["ann"]
        for table in (normal, special):
            table.rig.press("bob", "up", "confirm")
        assert _attack_inputs(normal.seen())["ann"] == "normal"
        assert _attack_inputs(special.seen())["ann"] == "lv1-brawler"
    finally:
        normal.close()
        special.close()
