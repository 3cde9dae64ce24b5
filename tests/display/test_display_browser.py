"""One live server, real headless Chromium: the pages a player and a referee would use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_rig import ANGLERS, Rig, d6

from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def served(rig: Rig, **admin: Any) -> ServerThread:
    hub = Hub()
    rig.table.listeners.append(hub.notify)
    return ServerThread(create_app(rig.table, hub, **admin))


def test_live_page_admin_corrections_and_camera(browser: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # no token: admin only from loopback, which is where this browser is
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        ctx = browser.new_context(viewport={"width": 1280, "height": 860})
        page = ctx.new_page()
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        expect(page.locator("#waiting")).to_have_text("roll from ann")

        # the page follows the event log without a reload
        rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        expect(page.locator('.die[data-value="3"]')).to_have_count(3)

        # the referee corrects a die through the admin page: the scored roll is undone, 5 -> 3 is a quartet
        admin = ctx.new_page()
        admin.goto(server.url + "/admin")
        admin.fill("#who", "referee Kim")
        admin.dispatch_event("#who", "change")
        admin.click('button[data-action="undo"]')
        expect(admin.locator("#msg")).to_have_text("undid roll from ann")
        expect(page.locator("#waiting")).to_have_text("roll from ann")
        admin.fill('input[data-value-for="r1.4"]', "3")
        # the list is redrawn on every settled frame and answer: what the referee typed stays typed
        admin.evaluate("refreshReadings()")
        expect(admin.locator('input[data-value-for="r1.4"]')).to_have_value("3")
        admin.click('button[data-set="r1.4"]')
        expect(admin.locator("#msg")).to_have_text("reading r1.4 set from 5 to 3")
        expect(page.locator('.die[data-value="3"]')).to_have_count(4)
        # the rules' choices are buttons (display/offers.py), never a box of engine JSON
        expect(admin.locator("#input-json")).to_have_count(0)
        expect(admin.locator("#expects")).to_have_text("The game expects: choice from ann")
        admin.click('#offers button[data-player="ann"][data-offer="take quartet"]')
        expect(page.locator('[data-score="ann"]')).to_have_text("300")
        expect(page.locator('.tile[data-owner="ann"]')).to_have_count(1)

        # an unsure reading is asked about and confirmed from the admin page
        rig.settle([d6(1, "blue", confidence=0.5)] + [d6(v, "blue") for v in (1, 2, 4, 6)])
        expect(page.locator("#question")).to_be_visible()
        expect(page.locator("#waiting")).to_have_text(
            "a person: Is die r2.1 (blue d6) a 1? Confirm or correct it."
        )
        admin.click('button[data-confirm="r2.1"]')
        expect(page.locator("#waiting")).to_have_text("choice from bob")
        expect(page.locator("#question")).to_be_hidden()
        admin.click('#offers button[data-player="bob"][data-offer^="chips"]')
        expect(page.locator('[data-score="bob"]')).to_have_text("100")
        admin.click('button[data-action="undo"]')
        expect(page.locator('[data-score="bob"]')).to_have_text("0")
        expect(admin.locator("#msg")).to_have_text("undid choice from bob")
        admin.click('#offers button[data-player="bob"][data-offer^="chips"]')
        expect(page.locator('[data-score="bob"]')).to_have_text("100")
        page.screenshot(path=str(ARTIFACTS / "table-dice-hunter.png"), full_page=True)
        admin.screenshot(path=str(ARTIFACTS / "admin.png"), full_page=True)

        cam = ctx.new_page()
        rig.settle([d6(2, "green"), d6(5, "green", confidence=0.6)])
        cam.goto(server.url + "/camera")
        expect(cam.locator("g.reading")).to_have_count(2)
        expect(cam.locator("g.reading.unsure")).to_have_count(1)
        expect(cam.locator('g.reading.unsure[data-reading="r3.2"] text')).to_contain_text("? 5 · 60%")
        # the board picture (/api/board.png): the frame with each die drawn and labelled by the table
        expect(cam.locator("#boardpic")).to_be_visible(timeout=15_000)
        assert cam.locator("#boardpic").evaluate("(img) => img.naturalWidth") == 640
        cam.screenshot(path=str(ARTIFACTS / "camera.png"), full_page=True)
        ctx.close()


def test_secret_in_progress_shows_who_but_never_what(browser: Any, make_rig: Callable[..., Rig]) -> None:
    from playwright.sync_api import expect

    rig = make_rig(game="die-angler", players=ANGLERS, options={"deck": "virtual"}, table_id="t5")
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page()
        admin = browser.new_page()
        page.goto(server.url + "/")
        admin.goto(server.url + "/admin")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        rig.press("ann", "up", "up", "up", "select", "up", "up", "confirm")  # 3 d6, the d10 to re-approach
        expect(page.locator('[data-confirmed="ann"]')).to_be_visible()
        expect(page.locator('[data-pending="bob"]')).to_be_visible()
        expect(page.locator("#waiting")).to_have_text("secret from ann, bob")
        expect(admin.locator("#waiting")).to_have_text("secret from ann, bob")
        for p in (page, admin):
            assert "reapproach" not in p.content()
        page.screenshot(path=str(ARTIFACTS / "table-secret.png"), full_page=True)
        rig.press("bob", "up", "confirm")
        expect(page.locator("#secret")).to_be_hidden()
        expect(page.locator("#waiting")).to_have_text("roll from bob")  # one d6 each: bob has fewer dice
        page.close()
        admin.close()


def test_table_notice_is_shown_and_cleared(browser: Any, rig: Rig) -> None:
    """A frame the camera cannot read is said on the table page; the next read frame clears it."""
    from playwright.sync_api import expect

    def unreadable(image: Any, **_: Any) -> list[dict[str, Any]]:
        raise ValueError("the frame is 0x0 pixels, expected a BGR image")

    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        expect(page.locator("#notice")).to_be_hidden()
        good = rig.table.reader
        rig.table.reader = unreadable
        rig.settle([d6(3)])
        expect(page.locator("#notice")).to_be_visible()
        expect(page.locator("#notice")).to_contain_text("could not be read (the frame is 0x0 pixels")
        expect(page.locator("#waiting")).to_have_text("roll from ann")  # nothing was scored
        rig.table.reader = good
        rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
        expect(page.locator("#notice")).to_be_hidden()
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        page.close()


def test_page_reconnects_after_the_server_drops(browser: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    hub = Hub()
    rig.table.listeners.append(hub.notify)
    app = create_app(rig.table, hub)
    server = ServerThread(app).start()
    page = browser.new_page()
    try:
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        server.stop()
        expect(page.locator("body")).to_have_attribute("data-connected", "no", timeout=10_000)
        rig.settle([d6(v) for v in (6, 6, 6, 2, 3)])  # read and scored while the page is cut off
        rig.table.correct(
            {"action": "input", "input": {"type": "choice", "player": "ann", "take": "trio"}}, "ref"
        )
        server = ServerThread(app, port=server.port).start()
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=20_000)
        expect(page.locator('[data-score="ann"]')).to_have_text("200")  # re-fetched on reconnect
    finally:
        page.close()
        server.stop()
