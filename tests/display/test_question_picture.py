"""The question shows the die it asks about (issue 48 item 1): on the table page, the TV and the
admin page, the asked die's picture is the die as the camera saw it, checked by its pixels (a
cloned ``<canvas>`` is blank: the page showed a black square), and the values the reader was torn
between stand beside it. Real table, real Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest
from table_rig import FRAME, Rig, d6
from test_display_browser import ARTIFACTS

from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ASKED = 2  # the third die (r1.3) is asked about: laid at x = 160, y = 60 (table_rig._laid)


def frame_with_a_white_die() -> np.ndarray:
    """The felt frame with the asked die drawn as a white square with one black pip."""
    img = FRAME.copy()
    x, y = 40 + 60 * ASKED, 60
    cv2.rectangle(img, (x - 20, y - 20), (x + 20, y + 20), (255, 255, 255), -1)
    cv2.circle(img, (x, y), 5, (0, 0, 0), -1)
    return img


PIXELS = """c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let drawn = 0, white = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] > 0) drawn++;
    if (d[i] > 230 && d[i + 1] > 230 && d[i + 2] > 230) white++;
  }
  return { drawn, white, all: d.length / 4 }; }"""


def pixels(page: Any, selector: str) -> dict[str, int]:
    from playwright.sync_api import expect

    expect(page.locator(selector)).to_have_count(1, timeout=10_000)
    return dict(page.locator(selector).first.evaluate(PIXELS))


def assert_the_die(px: dict[str, int]) -> None:
    # every pixel drawn (a blank canvas shows the black background), a good part of it the white die
    assert px["drawn"] == px["all"], px
    assert px["white"] > px["all"] * 0.15, px


@pytest.fixture
def server(rig: Rig) -> Iterator[ServerThread]:
    asked = d6(3, confidence=0.4, candidates=[3, 5])
    rig.settle([d6(3), d6(3), asked, d6(5), d6(6)], frame_with_a_white_die())
    assert rig.table.question is not None and rig.table.question.readings == ("r1.3",)
    hub = Hub()
    rig.table.listeners.append(hub.notify)
    with ServerThread(create_app(rig.table, hub, admin_token=None, loopback_only_admin=True)) as s:
        yield s


@pytest.mark.parametrize("path", ["/", "/tv", "/?lang=ja"])
def test_the_question_shows_the_asked_die_and_its_candidates(
    browser: Any,
    server: ServerThread,
    path: str,
) -> None:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    page.goto(server.url + path)
    expect(page.locator("#question")).to_be_visible(timeout=10_000)
    assert_the_die(pixels(page, '#asked-dice canvas[data-crop="r1.3"]'))
    expect(page.locator('#asked-dice [data-fix="r1.3"] [data-candidates]')).to_have_text("3 / 5")
    box = page.locator('#asked-dice canvas[data-crop="r1.3"]').bounding_box()
    if "tv" in path:  # the TV never scrolls: the die is on the screen
        assert box is not None and box["y"] + box["height"] <= 1080 and box["width"] >= 96, box
    name = "question-" + ("tv" if "tv" in path else "ja" if "ja" in path else "table") + ".png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    ctx.close()


def test_the_admin_page_shows_each_read_die(browser: Any, server: ServerThread) -> None:
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    page.goto(server.url + "/admin")
    assert_the_die(pixels(page, 'tr[data-reading="r1.3"] canvas[data-crop="r1.3"]'))
    other = pixels(page, 'tr[data-reading="r1.1"] canvas[data-crop="r1.1"]')
    assert other["drawn"] == other["all"] and other["white"] == 0, other  # the felt around r1.1, no white die
    page.screenshot(path=str(ARTIFACTS / "question-admin.png"))
    ctx.close()
