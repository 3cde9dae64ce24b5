"""One live server, real headless Chromium: the pages a player and a referee would use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from display.app import create_app
from display.backend import FakeTable
from display.hub import Hub
from display.server import ServerThread

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def hunter_table() -> tuple[FakeTable, Hub]:
    table = FakeTable(
        "table-3", "dice-hunter", [("ann", "red"), ("bob", "blue"), ("cid", "green")], {"deck": "virtual"}
    )
    hub = Hub()
    table.add_listener(hub.notify)
    return table, hub


def test_live_page_admin_corrections_and_secret(browser: Any) -> None:
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    table, hub = hunter_table()
    # no token: admin only from loopback, which is where this browser is
    app = create_app(table, hub, admin_token=None, loopback_only_admin=True)
    with ServerThread(app) as server:
        ctx = browser.new_context(viewport={"width": 1280, "height": 860})
        page = ctx.new_page()
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        expect(page.locator("#waiting")).to_have_text("the referee to start the game")

        # the page follows the event log without a reload
        table.correct({"action": "start"}, "ref")
        table.settle([{"kind": "d6", "value": v, "colour": "red"} for v in (3, 3, 3, 5, 6)], "ann")
        expect(page.locator("#waiting")).to_have_text("a choice from ann")
        expect(page.locator('.die[data-value="3"]')).to_have_count(3)

        # the referee corrects a die through the admin page: 5 -> 3 makes a quartet
        admin = ctx.new_page()
        admin.goto(server.url + "/admin")
        admin.fill("#who", "referee Kim")
        admin.dispatch_event("#who", "change")
        admin.fill('input[data-value-for="r4"]', "3")
        admin.click('button[data-set="r4"]')
        expect(admin.locator("#msg")).to_have_text("reading r4 set from 5 to 3")
        admin.fill("#input-json", '{"type": "choice", "player": "ann", "take": "quartet"}')
        admin.click("#send-input")
        expect(page.locator('[data-score="ann"]')).to_have_text("300")
        expect(page.locator('.tile[data-owner="ann"]')).to_have_count(1)

        # an unsure reading is shown as unsure and confirmed from the admin page
        table.settle(
            [{"kind": "d6", "value": 1, "colour": "blue", "confidence": 0.5}]
            + [{"kind": "d6", "value": v, "colour": "blue"} for v in (1, 2, 4, 6)],
            "bob",
        )
        expect(page.locator("#question")).to_be_visible()
        expect(page.locator("#waiting")).to_have_text("a referee to confirm reading r6")
        admin.click('button[data-confirm="r6"]')
        expect(page.locator("#waiting")).to_have_text("a choice from bob")
        admin.fill("#input-json", '{"type": "choice", "player": "bob", "chips": true}')
        admin.click("#send-input")
        expect(page.locator('[data-score="bob"]')).to_have_text("100")
        admin.click('button[data-action="undo"]')
        expect(page.locator('[data-score="bob"]')).to_have_text("0")
        expect(admin.locator("#msg")).to_have_text("undid choice from bob")
        admin.fill("#input-json", '{"type": "choice", "player": "bob", "chips": true}')
        admin.click("#send-input")
        expect(page.locator('[data-score="bob"]')).to_have_text("100")

        # a secret selection in progress: who has confirmed, never what
        table.begin_secret(["ann", "bob", "cid"])
        table.secret_select("ann", {"dice": 4, "mode": "zebra-lure"})
        expect(page.locator('[data-confirmed="ann"]')).to_be_visible()
        expect(page.locator('[data-pending="cid"]')).to_be_visible()
        expect(page.locator("#waiting")).to_have_text("secret selections from bob, cid")
        for p in (page, admin):
            assert "zebra" not in p.content()
        page.screenshot(path=str(ARTIFACTS / "table-dice-hunter.png"), full_page=True)
        admin.screenshot(path=str(ARTIFACTS / "admin.png"), full_page=True)

        cam = ctx.new_page()
        table.settle(
            [
                {"kind": "d6", "value": 2, "colour": "green"},
                {"kind": "d6", "value": 5, "colour": "green", "confidence": 0.6},
            ],
            "cid",
        )
        cam.goto(server.url + "/camera")
        expect(cam.locator("g.reading")).to_have_count(2)
        expect(cam.locator("g.reading.unsure")).to_have_count(1)
        expect(cam.locator('g.reading.unsure[data-reading="r12"] text')).to_contain_text("? 5 · 60%")
        cam.screenshot(path=str(ARTIFACTS / "camera.png"), full_page=True)
        ctx.close()


def test_page_reconnects_after_the_server_drops(browser: Any) -> None:
    from playwright.sync_api import expect

    table = FakeTable("t9", "demo-sum", [("ann", "red"), ("bob", "blue")])
    hub = Hub()
    table.add_listener(hub.notify)
    app = create_app(table, hub)
    server = ServerThread(app).start()
    page = browser.new_page()
    try:
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        server.stop()
        expect(page.locator("body")).to_have_attribute("data-connected", "no", timeout=10_000)
        table.correct({"action": "start"}, "ref")
        table.settle(
            [{"kind": "d6", "value": 6}, {"kind": "d6", "value": 6}]
        )  # logged while the page is cut off
        server = ServerThread(app, port=server.port).start()
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=20_000)
        expect(page.locator('[data-score="ann"]')).to_have_text("12")  # re-fetched on reconnect
    finally:
        page.close()
        server.stop()
