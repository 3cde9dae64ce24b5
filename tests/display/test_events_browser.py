"""The table page's event list in real Chromium: what happened in words, the raw record a click away."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_rig import ANGLERS, Rig, d6
from test_display_browser import ARTIFACTS, served

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_events_read_as_words_with_the_raw_record_a_click_away(browser: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
        expect(page.locator("#waiting")).to_have_text("choice from ann")
        roll = page.locator('#events li[data-kind="input"]').first
        expect(roll.locator(".text")).to_have_text("ann rolled 5 dice: 3, 3, 3, 5, 6")
        expect(page.locator('#events li[data-kind="outcome"] .text').first).to_have_text(
            "ann rolled 3, 3, 3, 5 and 6 (roll 1)"
        )
        expect(page.locator('#events li[data-kind="setup"] .text')).to_have_text(
            "A new game of Dice Hunter for ann, bob and cid"
        )
        assert "{" not in page.locator("#events summary").all_inner_texts().__str__()
        raw = roll.locator("pre.raw")
        expect(raw).to_be_hidden()
        roll.locator("summary").click()
        expect(raw).to_be_visible()
        expect(raw).to_contain_text('"type":"roll"')
        page.screenshot(path=str(ARTIFACTS / "table-events.png"), full_page=True)
        page.close()


def test_events_keep_a_secret_until_its_reveal(browser: Any, make_rig: Callable[..., Rig]) -> None:
    from playwright.sync_api import expect

    rig = make_rig(game="die-angler", players=ANGLERS, options={"deck": "virtual"}, table_id="t5")
    with served(rig, admin_token=None, loopback_only_admin=True) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        rig.press("ann", "up", "up", "up", "select", "up", "up", "confirm")  # 3 d6, the d10 to re-approach
        expect(page.locator('[data-confirmed="ann"]')).to_be_visible()
        page.locator("#events summary").first.click()  # open a raw record too: nothing secret in it
        assert "reapproach" not in page.content()
        rig.press("bob", "up", "confirm")
        expect(page.locator("#waiting")).to_have_text("roll from bob")
        expect(page.locator("#events")).to_contain_text("ann made a secret selection")
        expect(page.locator("#events")).to_contain_text("Selections revealed: ann 3 d6 + d10; bob 1 d6")
        page.screenshot(path=str(ARTIFACTS / "table-events-reveal.png"), full_page=True)
        page.close()
