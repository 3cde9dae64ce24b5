"""Fix a misread die from the play screen (issue 34 item 2): tap the die on the table page or the
camera view, see its picture, pick the face it shows; the table takes the same correction the
admin page sends. The admin token is asked once on a device. Real table, real Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from table_rig import Rig, d6
from test_display_browser import ARTIFACTS

from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TOKEN = "fix-from-the-table-7c1e9a2b44d0"


def served(rig: Rig, **admin: Any) -> ServerThread:
    hub = Hub()
    rig.table.listeners.append(hub.notify)
    return ServerThread(create_app(rig.table, hub, **admin))


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


def crop_ink(page: Any, selector: str) -> int:
    """How much of the die's picture is drawn (0: an empty canvas)."""
    return int(
        page.locator(selector).first.evaluate(
            "c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            " let n = 0; for (let i = 3; i < d.length; i += 4) n += d[i] > 0; return n; }"
        )
    )


def test_a_misread_die_is_fixed_by_tapping_it_and_the_token_is_asked_once(context: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])  # the 5 was a 3: a quartet missed
    with served(rig, admin_token=TOKEN) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#waiting")).to_have_text("choice from ann", timeout=10_000)
        expect(page.locator("#read-dice [data-fix]")).to_have_count(5)
        page.click('#read-dice [data-fix="r1.4"]')
        dialog = page.locator("#fix-die")
        expect(dialog).to_be_visible()
        expect(dialog.locator("[data-read-as]")).to_contain_text("read as red 5")
        assert (
            crop_ink(page, '#fix-die canvas[data-crop="r1.4"]') > 1000
        )  # the die's picture, cut from the frame
        expect(dialog.locator("button[data-face]")).to_have_count(6)
        expect(dialog.locator("[data-undo-note]")).to_be_visible()  # scored already: said before it is undone
        expect(page.locator("#fix-token-row")).to_be_hidden()  # not asked before the display wants it
        page.fill("#fix-who", "referee Kim")
        page.click('#fix-die button[data-face="3"]')
        expect(page.locator("#fix-token-row")).to_be_visible()  # the display has a token: asked once
        expect(page.locator("#fix-msg")).to_contain_text("token")
        assert rig.table.game.state["dice"] == [3, 3, 3, 5, 6]  # nothing changed without it
        page.fill("#fix-token", TOKEN)
        page.click('#fix-die button[data-face="3"]')
        expect(page.locator("#fix-msg")).to_have_text("reading r1.4 set from 5 to 3")
        expect(page.locator('#board .die[data-value="3"]')).to_have_count(4)
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        expect(dialog).to_be_hidden()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "fix-die-table.png"), full_page=True)
        log = [e["text"] for e in httpx.get(server.url + "/api/events?limit=100").json()["events"]]
        assert any("referee Kim" in t for t in log), log[-6:]

        # the same device later: its name and token are remembered, nothing is asked
        page.reload()
        expect(page.locator("#read-dice [data-fix]")).to_have_count(5, timeout=10_000)
        page.click('#read-dice [data-fix="r1.4"]')
        expect(page.locator("#fix-who")).to_have_value("referee Kim")
        page.click('#fix-die button[data-face="5"]')
        expect(page.locator("#fix-msg")).to_have_text("reading r1.4 set from 3 to 5")
        expect(page.locator("#fix-token-row")).to_be_hidden()
        expect(page.locator('#board .die[data-value="3"]')).to_have_count(3)
        assert rig.table.game.state["dice"] == [3, 3, 3, 5, 6]

        # once a later input stands (ann ended her turn), a fix would undo that, not the throw: refused
        rig.play({"type": "choice", "player": "ann", "chips": True})
        expect(page.locator("#waiting")).to_have_text("roll from bob", timeout=10_000)
        page.click('#read-dice [data-fix="r1.4"]')
        expect(page.locator("#fix-die [data-undo-note]")).to_contain_text("The game has moved on")
        expect(page.locator('#fix-die button[data-face="3"]')).to_be_disabled()
        assert rig.table.game.state["holdings"]["ann"] == []


def test_an_unsure_die_is_answered_by_tapping_it_in_the_question(context: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    rig.settle([d6(3), d6(3), d6(3, confidence=0.4), d6(5), d6(6)])  # the table asks about r1.3
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#question")).to_be_visible(timeout=10_000)
        expect(page.locator('#asked-dice [data-fix="r1.3"]')).to_have_count(1)
        page.click('#asked-dice [data-fix="r1.3"]')
        dialog = page.locator("#fix-die")
        expect(dialog.locator("button[data-fix-confirm]")).to_be_visible()
        expect(dialog.locator("[data-undo-note]")).to_have_count(0)  # an answer, nothing undone
        page.fill("#fix-who", "referee Kim")
        page.click('#fix-die button[data-face="5"]')
        expect(page.locator("#question")).to_be_hidden(timeout=10_000)
        assert rig.table.game.state["dice"] == [3, 3, 5, 5, 6]
        page.close()

        # the camera view: a die on the frame is tapped the same way
        rig.play({"type": "choice", "player": "ann", "chips": True})
        rig.settle(
            [d6(2, "blue"), d6(4, "blue", confidence=0.5), *(d6(v, "blue") for v in (1, 5, 6))]
        )  # r2.2 asked
        cam = context.new_page()
        cam.goto(server.url + "/camera")
        expect(cam.locator("g.reading")).to_have_count(5, timeout=10_000)
        cam.click('g.reading[data-fix="r2.2"]')
        expect(cam.locator("#fix-die [data-read-as]")).to_contain_text("read as blue 4")
        assert crop_ink(cam, '#fix-die canvas[data-crop="r2.2"]') > 1000
        expect(cam.locator("#fix-token-row")).to_be_hidden()  # no token at this display
        cam.click("#fix-die button[data-fix-confirm]")
        expect(cam.locator("#fix-msg")).to_contain_text("r2.2")
        cam.screenshot(path=str(ARTIFACTS / "fix-die-camera.png"), full_page=True)
        assert rig.table.question is None


def test_a_die_the_reader_was_torn_about_offers_both_values_first(context: Any, rig: Rig) -> None:
    """Issue 29: a die the classifier and the OCR head read differently is asked with both values
    (its reading's ``candidates``): the question's picker on the table page and the admin page's
    readings offer them first, one tap each; the admin page lists the answers that taught the table
    a die's picture, each with a button that posts ``unlearn``."""
    from playwright.sync_api import expect

    rig.settle([d6(3), d6(3), d6(3, confidence=0.4, candidates=[5, 3]), d6(5), d6(6)])
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        page.click('#asked-dice [data-fix="r1.3"]')
        dialog = page.locator("#fix-die")
        expect(dialog.locator("button[data-candidate]")).to_have_text(["5", "3"])
        assert dialog.locator("button[data-face]").all_inner_texts()[:3] == ["5", "3", "1"]
        assert dialog.locator('button[data-face="3"]').count() == 1  # offered once, first
        page.fill("#fix-who", "referee Kim")
        dialog.locator('button[data-candidate][data-face="5"]').click()
        expect(page.locator("#question")).to_be_hidden(timeout=10_000)
        assert rig.table.game.state["dice"] == [3, 3, 5, 5, 6]
        page.close()

        rig.play({"type": "choice", "player": "ann", "chips": True})
        rig.settle(
            [
                d6(2, "blue"),
                d6(4, "blue", confidence=0.5, candidates=[4, 2]),
                *(d6(v, "blue") for v in (1, 5, 6)),
            ]
        )
        # an answer that taught the table a crop, as RefereeLearning logs it (this table reads d6 only)
        learnt = {"kind": "d20", "value": 9, "embedder": "x", "features": [0.0]}
        row = {"correction": "set_value", "reading": "r1.3", "value": 5, "who": "ref", "learnt": learnt}
        rig.table.log.append(rig.table.game_no, "control", row, "correction")
        admin = context.new_page()
        admin.goto(server.url + "/admin")
        admin.fill("#who", "referee Kim")
        torn = admin.locator('tr[data-reading="r2.2"] button[data-candidate-for]')
        expect(torn).to_have_text(["4", "2"], timeout=10_000)
        expect(admin.locator("tr[data-reading='r2.1'] button[data-candidate-for]")).to_have_count(0)
        forget = admin.locator('#taught button[data-unlearn="r1.3"]')
        expect(forget).to_have_text("Forget what this answer taught")
        forget.click()  # the same correction reaches the table, which learns nothing here
        expect(admin.locator("#msg")).to_contain_text("this table learns no crops from the referee")
        torn.nth(1).click()
        expect(admin.locator("#msg")).to_contain_text("r2.2")
        assert rig.table.question is None and rig.table.game.state["dice"] == [1, 2, 2, 5, 6]


def test_a_die_read_in_the_wrong_colour_is_fixed_by_tapping_its_colour(context: Any, make_rig: Any) -> None:
    """Die-angler tells the players' dice by colour: the picker offers the colours in play; a game
    that does not (Dice Hunter) offers none."""
    from playwright.sync_api import expect

    rig = make_rig(game="die-angler", players=[("ann", "red"), ("bob", "blue")], options={"deck": "virtual"})
    rig.press("ann", "up", "confirm")
    rig.press("bob", "up", "confirm")
    assert rig.table.game.expects().kind.value == "roll"
    rig.settle([d6(4, "red"), d6(6, "red")])  # bob's blue 6 read as red: two red dice, one asked for
    assert rig.table.question is not None
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator('#asked-dice [data-fix="r1.2"]')).to_have_count(1, timeout=10_000)
        page.click('#asked-dice [data-fix="r1.2"]')
        dialog = page.locator("#fix-die")
        expect(dialog.locator("button[data-colour]")).to_have_count(2)
        page.fill("#fix-who", "referee Kim")
        page.click('#fix-die button[data-colour="blue"]')
        expect(page.locator("#question")).to_be_hidden(timeout=10_000)
        rolls = rig.table.game.state["last_bout"]["rolls"]
        assert [d["value"] for d in rolls["bob"]["dice"]] == [6]
        log = [e["text"] for e in httpx.get(server.url + "/api/events?limit=200").json()["events"]]
        assert any("is blue, not red" in t for t in log), log[-6:]
        page.close()


def test_a_game_that_does_not_tell_dice_by_colour_offers_no_colour(context: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#read-dice [data-fix]")).to_have_count(5, timeout=10_000)
        page.click('#read-dice [data-fix="r1.4"]')
        expect(page.locator("#fix-die button[data-face]")).to_have_count(6)
        expect(page.locator("#fix-die button[data-colour]")).to_have_count(0)
        page.close()


def test_a_die_whose_support_the_camera_cannot_tell_is_answered_with_one_tap(
    context: Any, make_rig: Any
) -> None:
    """Issue 45 item 4: a DICETAR WARS die that may lie on the board or on another die is asked with
    its picture; the picker offers "on the board" and "on die r1.4", one tap each."""
    from playwright.sync_api import expect

    rig = make_rig(game="dicetar-wars", players=[("ann", "red"), ("bob", "blue")])
    place = {"zones": [], "min_multiplier": None, "side": "a", "field_status": "field", "card_slot": None}
    laid = {**place, "stack_level": 0, "rests_on": None, "board_center_mm": [0.0, 0.0], "footprint_mm": []}
    dice = [d6(v, "red", **laid) for v in (1, 2, 3, 4)]
    options = [{"on": "board", "stack_level": 0, **place}, {"on": 3, "stack_level": 1, **place}]
    dice.append(d6(5, "red", **laid, support_options=options))
    rig.settle(dice)
    assert rig.table.question is not None and rig.table.question.kind == "support"
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator('#asked-dice [data-fix="r1.5"]')).to_have_count(1, timeout=10_000)
        page.click('#asked-dice [data-fix="r1.5"]')
        dialog = page.locator("#fix-die")
        expect(dialog.locator("button[data-support]")).to_have_count(2)
        expect(dialog.locator('button[data-support="board"]')).to_have_text("on the board")
        expect(dialog.locator('button[data-support="r1.4"]')).to_have_text("on die r1.4")
        page.fill("#fix-who", "referee Kim")
        page.click('#fix-die button[data-support="r1.4"]')
        expect(page.locator("#question")).to_be_hidden(timeout=10_000)
        log = [e["text"] for e in httpx.get(server.url + "/api/events?limit=200").json()["events"]]
        assert any("r1.5 rests on die r1.4" in t for t in log), log[-6:]
        page.close()
