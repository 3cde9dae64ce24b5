"""Names in one language per page (issue 34): an English page names cards and tiles in English and
never by their ids; ``?lang=ja`` names every one in Japanese. Real tables, real Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from table_rig import ANGLERS, Rig
from test_display_browser import ARTIFACTS, served

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "die-angler" / "two-players-basic.jsonl"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
ROMAJI_IDS = ("iwashi", "ebi", "aji", "tako", "saba", "fugu", "ika", "kani", "katsuo", "hirame", "maguro")


def anglers(make_rig: Callable[..., Rig]) -> Rig:
    """Die-angler for ann and bob, played from a recorded scenario until fish have been landed."""
    lines = [json.loads(x) for x in SCENARIO.read_text(encoding="utf-8").splitlines() if x.startswith("{")]
    rig = make_rig(game="die-angler", players=ANGLERS, seed=lines[0]["setup"].get("seed", 0))
    for raw in lines[1:]:
        if "expect" not in raw and "expect_error" not in raw:
            rig.play(raw)
        st = rig.table.game.state
        if any(st.get("held", {}).values()) and st.get("card") and rig.table.status == "playing":
            return rig  # a fish landed and the next card is up
    raise AssertionError(f"{SCENARIO.name}: no fish landed with a card up")


def page_text(browser: Any, url: str) -> tuple[Any, str]:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
    expect(page.locator("#events li").first).to_be_visible(timeout=10_000)
    expect(page.locator(".fish-card")).to_have_count(1, timeout=10_000)
    text = page.locator("body").inner_text() + " ".join(
        page.locator("svg text").evaluate_all("els => els.map(e => e.textContent)")
    )
    return page, text


def test_an_english_page_names_fish_in_english_and_a_japanese_page_in_japanese(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    rig = anglers(make_rig)
    with served(rig) as server:
        events = httpx.get(server.url + "/api/events?limit=500").json()["events"]
        landed = [e["text"] for e in events if "lands" in e["text"]]
        assert landed, [e["text"] for e in events][-20:]
        page, text = page_text(browser, server.url + "/")
        assert not JAPANESE.search(text), JAPANESE.findall(text)
        words = set(re.findall(r"[a-z]+", text))
        assert not words & set(ROMAJI_IDS), words & set(ROMAJI_IDS)  # never a card's id
        card = page.locator(".fish-card text").first.text_content() or ""
        assert card and not JAPANESE.search(card) and "(" not in card, card
        assert "Die-angler" in page.locator("#title").inner_text()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "names-en.png"))
        page.close()

        page, text = page_text(browser, server.url + "/?lang=ja")
        assert page.evaluate("document.documentElement.lang") == "ja"
        assert page.locator("#title").inner_text().endswith("ダイ公望")
        card = page.locator(".fish-card text").first.text_content() or ""
        assert card and JAPANESE.search(card) and not re.search(r"[A-Za-z]", card), card
        ja_events = page.locator("#events").inner_text()
        fish = re.findall(
            r"フィッシュオン！\w+?が([^\n]+)を釣り上げた", ja_events
        )  # the sentence in Japanese too
        assert fish and all(JAPANESE.search(f) and not re.search(r"[a-z]{3}", f) for f in fish), fish
        english = ("Sardine", "Shrimp", "Mackerel", "Octopus", "Tuna", "Swordfish", "Pufferfish")
        assert not any(name in text for name in english), text
        page.screenshot(path=str(ARTIFACTS / "names-ja.png"))
        page.close()
        bad = httpx.get(server.url + "/api/names?lang=fr")
        assert bad.status_code == 422 and "lang" in bad.text
