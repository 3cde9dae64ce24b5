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
from test_display_browser import ARTIFACTS

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
def context(browser: Any) -> Iterator[Any]:
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
            if proposed is not None:  # said with what backs it, never "like the rolls taught so far"
                reason = {
                    "ocr": "the numeral read on this picture, by two readers alike",
                    "both": "the numeral read on this picture, and most like the crops taught as that face",
                    "match": "most like the crops taught as that face, every face taught",
                }[table.teaching.rolls[-1].by]
                expect(page.locator("#learn-proposed")).to_have_text(
                    f"The table thinks it shows {proposed} ({reason})."
                )
                expect(page.locator("#learn-candidates figure").first).to_have_class("cand proposed")
            else:  # nothing backs a face, or the numeral read and the crops taught disagree
                said = "name different faces" if table.teaching.rolls[-1].by == "disagree" else "cannot tell"
                expect(page.locator("#learn-proposed")).to_contain_text(said)
                expect(page.locator("#learn-confirm")).to_be_hidden()
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
    # the table reads with the die just taught: its roster entry's learnt faces (issue 44 item 4)
    (entry,) = [d for d in table.roster.dice if d.owner == "ann" and d.kind == "d20"]
    learnt = table.perceiver.reader.learnt
    assert [s.name for s in getattr(learnt, "sets", [learnt])] == [entry.id]


@needs_real
def test_an_answer_for_a_roll_no_longer_shown_is_refused_with_409(tmp_path: Path) -> None:
    """Issue 44: an answer names the roll (and session) whose picture it was given for; when another
    roll has come to rest since, it is refused (409, saying which roll is shown now), nothing taught,
    never applied to the roll shown now."""
    table = _table(tmp_path)
    with served(table) as server:
        url, auth = server.url + "/api/admin/learn", {"X-Admin-Token": TOKEN}
        start = {"action": "start", "owner": "ann", "colour": "green", "kind": "d20"}
        session = httpx.post(url, headers=auth, json={"who": "ann", "command": start}).json()
        table.on_settled(roll(2, 3), 1.0, 1.0, empty=empty_table())
        first = httpx.get(url, headers=auth).json()["roll"]
        assert first["n"] == 1 and first["id"] == f"{first['session']}-1"
        table.on_settled(roll(5, 4), 2.0, 2.0, empty=empty_table())
        late = {"action": "answer", "roll": 1, "session": first["session"], "face": 2}
        got = httpx.post(url, headers=auth, json={"who": "ann", "command": late})
        assert got.status_code == 409, got.text
        assert got.json()["error"].startswith("roll 1 is no longer the roll shown: roll 2 came to rest since")
        assert got.json()["error_key"] == {"key": "learn.err.stale", "roll": 1, "latest": 2}
        other = {"action": "answer", "roll": 2, "session": first["session"] + 1, "face": 5}
        got = httpx.post(url, headers=auth, json={"who": "ann", "command": other})
        assert got.status_code == 409 and "is not of the session shown now" in got.json()["error"]
        skip = {"action": "skip", "roll": 1, "session": first["session"]}
        assert httpx.post(url, headers=auth, json={"who": "ann", "command": skip}).status_code == 409
        status = httpx.get(url, headers=auth).json()
        assert status["taught"] == 0 and not status["roll"]["answered"] and status["roll"]["n"] == 2
        assert [r.answered for r in table.teaching.rolls] == [False, False]
        assert [e.data["step"] for e in table.log.controls("teach")] == ["start", "roll", "roll"]
        # the roll shown now is answered as usual
        now = {"action": "answer", "roll": 2, "session": first["session"], "face": 5}
        assert httpx.post(url, headers=auth, json={"who": "ann", "command": now}).json()["taught"] == 1
        assert session["on"]


@needs_real
@pytest.mark.browser
def test_a_tap_answers_the_roll_whose_picture_it_was_shown_with(context: Any, tmp_path: Path) -> None:
    """The page moved on under the finger (issue 44): another roll came to rest while the page still
    showed the last one; the tap carries the roll it was drawn with, the table refuses it (409), the
    page says so and shows the new roll; nothing is taught to either roll."""
    from playwright.sync_api import expect

    table = _table(tmp_path)
    with served(table) as server:
        page = context.new_page()
        page.goto(server.url + "/learn")
        page.fill("#learn-token", TOKEN)
        page.click("#learn-token-ok")
        expect(page.locator("#learn-setup")).to_be_visible()
        page.fill("#learn-who", "ann")
        page.fill("#learn-owner", "ann")
        page.fill("#learn-colour", "green")
        page.select_option("#learn-kind", "d20")
        page.click("#learn-start")
        expect(page.locator("#learn-progress [data-face]")).to_have_count(20)
        table.on_settled(roll(2, 3), 1.0, 1.0, empty=empty_table())
        expect(page.locator("#learn-roll-no")).to_have_text("roll 1")
        # the candidates side by side: the head's reading of this picture first, none taught yet
        first = page.locator("#learn-candidates figure").first
        expect(first).to_have_attribute("data-face", str(table.teaching.rolls[0].ocr[0]))
        expect(first).to_contain_text("not taught yet")
        expect(page.locator("#learn-proposed")).not_to_contain_text("like the rolls taught so far")
        proposed = table.teaching.rolls[0].proposed
        tap = "#learn-confirm" if proposed is not None else '#learn-faces button[data-face="2"]'
        expect(page.locator(tap)).to_have_attribute("data-roll", "1")
        # the page cannot look again (its refresh lost) while roll 2 comes to rest
        page.route(
            "**/api/admin/learn",
            lambda route: route.abort() if route.request.method == "GET" else route.continue_(),
        )
        table.on_settled(roll(5, 4), 2.0, 2.0, empty=empty_table())
        expect(page.locator("#learn-msg")).to_have_text("The table did not answer; try again.")
        expect(page.locator("#learn-roll-no")).to_have_text("roll 1")  # still the old picture
        page.unroute("**/api/admin/learn")
        page.click(tap)
        expect(page.locator("#learn-msg")).to_contain_text(
            "roll 1 is no longer the roll shown: roll 2 came to rest since; nothing taught"
        )
        expect(page.locator("#learn-roll-no")).to_have_text("roll 2")  # the page looked again
        assert [r.answered for r in table.teaching.rolls] == [False, False]
        expect(page.locator("#learn-progress [data-taught='0']")).to_have_count(20)
        # the tap on roll 2's picture answers roll 2
        page.click('#learn-faces button[data-face="5"]')
        expect(page.locator("#learn-proposed")).to_have_text("Taught as 5.")
        assert [r.face for r in table.teaching.rolls] == [None, 5]
