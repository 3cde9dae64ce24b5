"""Japanese on the table page (``?lang=ja``): a fish card's "カツオ" is drawn with glyphs, not empty boxes.

Debian's fonts-noto-cjk (dev.sh installs it) and the display's font stack naming "Noto Sans CJK JP".
Without a CJK font every katakana is the same empty box, so the label and the label with its
katakana in another order look the same; with one, they differ. Real Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from table_rig import ANGLERS, Rig
from test_display_browser import ARTIFACTS, served

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KATAKANA = re.compile(r"[\u30a0-\u30ff]+")


def test_a_fish_cards_japanese_name_renders_with_glyphs(
    browser: Any,
    make_rig: Callable[..., Rig],
) -> None:
    from playwright.sync_api import expect

    rig = make_rig(game="die-angler", players=ANGLERS, options={"deck": "virtual"}, table_id="t5")
    with served(rig) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/?lang=ja")  # the page in Japanese: the cards' Japanese names
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        name = page.locator(".fish-card text").first
        expect(name).to_have_text(KATAKANA, timeout=10_000)
        label = name.text_content() or ""
        kana = KATAKANA.search(label)
        assert kana is not None and len(kana.group()) >= 2, label
        # the page's font stack names the Japanese face, so Japanese gets Japanese glyph forms
        family = page.evaluate("getComputedStyle(document.querySelector('.fish-card text')).fontFamily")
        assert "Noto Sans CJK JP" in family, family
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "japanese-fish-card.png"))
        card = page.locator(".fish-card").first  # the card: the name alone may be drawn as nothing
        shown = card.screenshot()
        # The same label with its katakana reversed: another picture only if the glyphs are drawn.
        swapped = label.replace(kana.group(), kana.group()[::-1])
        assert swapped != label
        name.evaluate("(el, text) => { el.textContent = text; }", swapped)
        assert card.screenshot() != shown
        # Unassigned code points are empty boxes: the real label must not look like that.
        tofu = label.replace(kana.group(), "\U000e0fff" * len(kana.group()))
        name.evaluate("(el, text) => { el.textContent = text; }", tofu)
        assert card.screenshot() != shown
        # and the kanji of a game's name, too: 公 and 望 are told apart
        widths = page.evaluate(
            """() => {
                const c = document.createElement('canvas').getContext('2d');
                c.font = '40px ' + getComputedStyle(document.body).fontFamily;
                const ink = (t) => { c.clearRect(0, 0, 300, 80); c.fillText(t, 0, 50);
                  return Array.from(c.getImageData(0, 0, 300, 80).data).join(); };
                return [ink('公'), ink('望'), ink('\\u{e0fff}'), ink('\\u{e0ffe}')];
            }"""
        )
        assert widths[0] != widths[1]
        assert widths[2] == widths[3]  # (the check itself: two unknown characters are the same box)
