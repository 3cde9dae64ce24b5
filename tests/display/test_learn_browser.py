"""Teaching the table a die on its page with the live camera (issue 29 item 4): the owner names the
die, rolls it; each settled roll shows its picture and the proposed face, the owner taps to confirm
or picks the right one; the page shows the faces still missing, says when the set is complete, and
saves it where the table reads it.  Real table, real reader on real photos, real Chromium; the API
behind the admin token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_display_browser import ARTIFACTS, browser  # noqa: F401  (the module's browser fixture)

from controller import teach
from controller.config import parse_config
from controller.eventlog import EventLog
from controller.session import mock_pins
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread
from tests.controller.teach_scene import empty_table, needs_real, roll
from vision.numbered.learnt import load_set

TOKEN = "teach-the-table-3f9b27c1d8e6"


def _table(folder: Path) -> Table:
    players = [
        {"name": n, "colour": c, "pins": mock_pins(i).model_dump()}
        for i, (n, c) in enumerate([("ann", "red"), ("bob", "blue")])
    ]
    table = {"game": "die-angler", "seed": 3, "kinds": ["d6", "d10", "d20"], "dice_set": "sets/g.json"}
    cfg = parse_config({"table": table, "players": players})
    return Table(cfg, EventLog(folder / "t.sqlite3"), resume=False)


def served(table: Table) -> ServerThread:
    hub = Hub()
    table.listeners.append(hub.notify)
    return ServerThread(create_app(table, hub, admin_token=TOKEN))


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    yield ctx
    ctx.close()


def test_the_teaching_api_is_admin_and_refuses_bad_steps_by_name(tmp_path: Path) -> None:
    table = _table(tmp_path)
    with served(table) as server:
        url = server.url + "/api/admin/learn"
        assert httpx.get(url).status_code == 401
        start = {"action": "start", "owner": "ann", "colour": "green", "kind": "d20"}
        assert httpx.post(url, json={"who": "ann", "command": start}).status_code == 401
        assert not table.teaching.on  # nothing done without the token
        auth = {"X-Admin-Token": TOKEN}
        got = httpx.get(url, headers=auth).json()
        assert got["on"] is False and got["kinds"] == ["d10", "d20"] and got["each"] == 4
        bad = httpx.post(url, headers=auth, json={"who": "ann", "command": {**start, "kind": "d6"}})
        assert bad.status_code == 400
        assert "numbered kinds the table's game 'die-angler' uses" in bad.json()["error"]
        bad = httpx.post(url, headers=auth, json={"who": "ann", "command": {"action": "answer", "roll": 1}})
        assert bad.status_code == 422 and "command.answer.face" in bad.json()["error"]
        ok = httpx.post(url, headers=auth, json={"who": "ann", "command": start})
        assert ok.status_code == 200 and ok.json()["on"] and ok.json()["missing"] == list(range(1, 21))
        assert httpx.get(server.url + "/api/state").json()["teaching"]["name"] == "ann's green d20"
        # the log in words says the step, never the crop's numbers
        texts = [e["text"] for e in httpx.get(server.url + "/api/events?limit=100").json()["events"]]
        assert "ann started teaching the table ann's green d20" in texts, texts[-3:]


@needs_real
@pytest.mark.browser
@pytest.mark.slow
def test_a_die_is_taught_on_the_page_roll_by_roll(
    context: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect

    # every face once completes the set here (the table's N_EACH is 4: 80 rolls of a d20)
    monkeypatch.setattr(teach, "N_EACH", 1)
    table = _table(tmp_path)
    with served(table) as server:
        page = context.new_page()
        page.goto(server.url + "/learn")
        expect(page.locator("#learn-token-row")).to_be_visible()  # the display has a token: asked once
        page.fill("#learn-token", TOKEN)
        page.click("#learn-token-ok")
        expect(page.locator("#learn-setup")).to_be_visible()
        expect(page.locator("#learn-kind option")).to_have_count(2)  # the game's numbered kinds
        page.fill("#learn-who", "ann")
        page.fill("#learn-owner", "ann")
        page.fill("#learn-colour", "green")
        page.select_option("#learn-kind", "d20")
        page.click("#learn-start")
        expect(page.locator("#learn-name")).to_have_text("Teaching ann's green d20")
        expect(page.locator("#learn-progress [data-face]")).to_have_count(20)
        table.on_settled(roll(3, 0, also=5), 1.0, 1.0, empty=empty_table())
        expect(page.locator("#learn-notice")).to_contain_text("2 dice are on the table: leave one die only")
        expect(page.locator("#learn-roll")).to_be_hidden()
        for i, face in enumerate(range(1, 21)):
            table.on_settled(roll(face, i), 2.0 + i, 2.0 + i, empty=empty_table())
            expect(page.locator("#learn-roll-no")).to_have_text(f"roll {i + 1}")
            expect(page.locator("#learn-notice")).to_be_hidden()
            assert page.eval_on_selector("#learn-crop", "i => i.complete && i.naturalWidth") > 0
            proposed = table.teaching.rolls[-1].proposed
            if i == 1:
                assert page.locator("#learn-missing").inner_text().startswith("Still missing: 2, 3, 4,")
                expect(page.locator("#learn-save")).to_be_disabled()
            if proposed == face:
                page.click("#learn-confirm")  # the face proposed is right: one tap
            else:
                page.click(f'#learn-faces button[data-face="{face}"]')  # corrected
            expect(page.locator("#learn-proposed")).to_have_text(f"Taught as {face}.")
            cell = page.locator(f'#learn-progress [data-face="{face}"]')
            expect(cell).to_have_attribute("data-taught", "1")
        expect(page.locator("#learn-complete")).to_contain_text("Complete: every face taught at least 1")
        expect(page.locator("#learn-missing")).to_have_text("")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "learn-die.png"), full_page=True)
        page.click("#learn-save")
        expect(page.locator("#learn-msg")).to_contain_text("saved ann's green d20 (20 crops)")
        expect(page.locator("#learn-msg")).to_contain_text("the table reads with it now")
        expect(page.locator("#learn-setup")).to_be_visible()
        texts = [e["text"] for e in httpx.get(server.url + "/api/events?limit=500").json()["events"]]
        assert "ann taught roll 20 as 20" in texts and not any("features" in t for t in texts)
    stored = load_set(table.cfg.dice_set_path)
    assert stored.name == "ann's green d20" and stored.faces == list(range(1, 21))
    assert table.perceiver.reader.learnt.name == "ann's green d20"
