"""The table page across the room (TV mode, ``/tv`` or ``/?tv=1``) and the defects a player saw on
it, each checked in Debian's chromium on real tables: a DICETAR WARS game played from its recorded
session's throws (stacked dice, two halves, a finished game) and a Dice Hunter game played to its end.

The screenshots go to ``test-artifacts/display/``; with ``DICETABLE_WRITE_SCREENSHOTS=1`` also to
``docs/screenshots/``; the committed ones are made so:

    DICETABLE_WRITE_SCREENSHOTS=1 PYTHONPATH=$PWD .venv/bin/python -m pytest tests/display/test_tv_browser.py
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from table_rig import Rig

from controller.session import session_config
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

ROOT = Path(__file__).resolve().parents[2]
DICETAR = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
HUNTER = ROOT / "tests" / "scenarios" / "dice-hunter" / "three-players-virtual-deck.jsonl"
ARTIFACTS = ROOT / "test-artifacts" / "display"
SCREENS = ((1920, 1080), (1280, 720))

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    if os.environ.get("DICETABLE_WRITE_SCREENSHOTS") == "1":
        page.screenshot(path=str(ROOT / "docs" / "screenshots" / name))


def dicetar_game(make_rig: Callable[..., Rig]) -> Rig:
    """DICETAR WARS played to its end from the demo session's throws (placed on its real board)."""
    cfg = session_config(DICETAR)
    rig = make_rig(cfg=cfg.model_copy(update={"board": cfg.board.model_copy(update={"fit": "none"})}))
    truth = json.loads((DICETAR / "truth.json").read_text(encoding="utf-8"))
    for throw in truth["throws"]:
        dice = [
            {
                "kind": d["kind"],
                "value": d["value"],
                "colour": d["colour"],
                "quad": d["top_quad_px"],
                "center": np.mean(d["top_quad_px"], axis=0).tolist(),
            }
            for d in throw["dice"]
        ]
        rig.settle(dice, cv2.imread(str(DICETAR / throw["frame"])))
    assert rig.table.status == "over" and rig.table.question is None
    return rig


def hunter_game(make_rig: Callable[..., Rig]) -> Rig:
    """Dice Hunter for three, its tiles from the virtual deck, played to its end (a recorded scenario)."""
    lines = [json.loads(x) for x in HUNTER.read_text(encoding="utf-8").splitlines() if x.startswith("{")]
    rig = make_rig(options={"deck": "virtual"}, seed=lines[0]["setup"]["seed"])
    for raw in lines[1:]:
        if "expect" not in raw and "expect_error" not in raw:
            rig.play(raw)
    assert rig.table.status == "over"
    return rig


def served(rig: Rig) -> ServerThread:
    hub = Hub()
    rig.table.listeners.append(hub.notify)
    return ServerThread(create_app(rig.table, hub))


def open_page(browser: Any, url: str, size: tuple[int, int]) -> tuple[Any, list[str]]:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=15_000)
    expect(page.locator("#board .board-view")).to_have_count(1, timeout=15_000)
    expect(page.locator("#events li").first).to_be_visible(timeout=15_000)
    return page, errors


def rect(page: Any, selector: str) -> dict[str, float]:
    """The element's box on the screen (asked again if a newer snapshot redrew it meanwhile)."""
    for _ in range(20):
        box = page.locator(selector).first.bounding_box()
        if box is not None:
            return dict(box)
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} is not shown")


def inside(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    return (
        a["x"] >= b["x"] - slack
        and a["y"] >= b["y"] - slack
        and a["x"] + a["width"] <= b["x"] + b["width"] + slack
        and a["y"] + a["height"] <= b["y"] + b["height"] + slack
    )


def test_tv_mode_puts_the_scores_and_what_the_table_waits_for_first_in_large_type_on_a_full_screen(
    browser: Any, make_rig: Callable[..., Rig]
) -> None:
    rig = dicetar_game(make_rig)
    with served(rig) as server:
        for path in ("/tv", "/?tv=1"):
            for w, h in SCREENS:
                page, errors = open_page(browser, server.url + path, (w, h))
                assert "tv" in (page.locator("body").get_attribute("class") or "")
                scores = page.locator("td.score").evaluate_all(
                    "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"
                )
                assert len(scores) == 2 and min(scores) >= 48, scores
                waiting = float(
                    page.locator("#waiting").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
                )
                assert waiting >= 40, waiting
                assert page.locator("#waiting").inner_text() == "nothing: bob won"
                # first: what the table waits for at the top, the scores under it, both on the left
                wait_box, score_box = rect(page, "#waiting-section"), rect(page, "#scores-section")
                assert wait_box["y"] < 0.15 * h and wait_box["y"] < score_box["y"] < 0.4 * h
                # the screen is used: the game's picture fills the right to the bottom, nothing scrolls
                board = rect(page, "#board-section")
                assert board["x"] > wait_box["x"] + wait_box["width"] - 1
                assert board["x"] + board["width"] > 0.95 * w and board["y"] + board["height"] > 0.95 * h
                svg = rect(page, "#board svg.board")
                assert svg["width"] * svg["height"] > 0.25 * w * h, (svg, w, h)
                events = rect(page, "#events-section")
                assert events["y"] + events["height"] > 0.95 * h
                size = page.evaluate(
                    "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
                )
                assert size[0] <= w and size[1] <= h, size
                if path == "/tv":
                    shot(page, f"tv-dicetar-wars-{w}x{h}.png")
                assert errors == []
                page.close()
        # the normal page at the same sizes, for the record
        for w, h in SCREENS:
            page, errors = open_page(browser, server.url + "/", (w, h))
            assert "tv" not in (page.locator("body").get_attribute("class") or "")
            shot(page, f"table-dicetar-wars-{w}x{h}.png")
            page.close()


@pytest.mark.parametrize("path", ["/", "/tv"])
def test_dicetar_stacked_dice_halves_and_zones_read_cleanly(
    browser: Any, make_rig: Callable[..., Rig], path: str
) -> None:
    rig = dicetar_game(make_rig)
    truth = json.loads((DICETAR / "truth.json").read_text(encoding="utf-8"))
    with served(rig) as server:
        for size in SCREENS:
            page, errors = open_page(browser, server.url + path, size)
            # stacked dice: one label for the stack ("12 + 24"), and no two labels overprint ("1224")
            labels = page.locator("#board .points-label")
            texts = labels.evaluate_all("els => els.map(e => e.textContent)")
            assert any(" + " in t for t in texts), texts
            boxes = [b for b in (labels.nth(i).bounding_box() for i in range(labels.count())) if b]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    overlap_x = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
                    overlap_y = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
                    assert overlap_x <= 0 or overlap_y <= 0, (texts, a, b)
            # the halves' scores: whole, inside the game's section and the screen
            halves = page.locator("[data-halves]")
            first = truth["halves"][0]["scores"]
            assert f"half 1: ann {first['ann']}, bob {first['bob']}" in halves.inner_text(), (
                halves.inner_text()
            )
            line, section = rect(page, "[data-halves]"), rect(page, "#board-section")
            screen = {"x": 0, "y": 0, "width": size[0], "height": size[1]}
            assert inside(line, section) and (path == "/" or inside(line, screen)), (line, section)
            assert halves.evaluate("e => e.scrollWidth <= e.clientWidth")
            # the log names zones as people do, never by their ids
            log = page.locator("#events").inner_text()
            assert "row " in log and not re.search(r"\br\d+c\d+\b", log), log
            # a finished game says so, not the state of its last half
            info = page.locator("[data-info]").inner_text()
            assert info.startswith("game over") and "throws" not in info, info
            assert errors == []
            page.close()


@pytest.mark.parametrize("path", ["/", "/tv"])
def test_a_finished_dice_hunter_game_says_game_over_and_every_tile_label_fits_its_tile(
    browser: Any, make_rig: Callable[..., Rig], path: str
) -> None:
    rig = hunter_game(make_rig)
    with served(rig) as server:
        for size in SCREENS:
            page, errors = open_page(browser, server.url + path, size)
            info = page.locator("#board [data-info]").text_content() or ""
            assert info.startswith("game over"), info
            assert "round" not in info and "roll" not in info and "over game" not in info, info
            assert "no dice rolled yet" not in page.locator("#board").inner_text()
            tiles = page.locator("#board .tile")
            assert tiles.count() >= 10
            labels = []
            for i in range(tiles.count()):
                tile = tiles.nth(i)
                box = tile.locator("rect").bounding_box()
                for text in tile.locator("text").all():
                    tb = text.bounding_box()
                    assert box and tb and inside(tb, box), (text.text_content(), tb, box)
                labels.append(tile.locator("text").first.text_content() or "")
            assert any(len(t) > 14 for t in labels), labels  # the long one ("Reversal (1 Quintet)") too
            if path == "/tv":
                shot(page, f"tv-dice-hunter-{size[0]}x{size[1]}.png")
            assert errors == []
            page.close()


def test_the_camera_page_never_shows_a_broken_image(browser: Any, make_rig: Callable[..., Rig]) -> None:
    from playwright.sync_api import expect

    broken = (
        "() => [...document.images].filter(i => i.offsetParent !== null"
        " && (!i.complete || i.naturalWidth === 0)).length"
    )
    rig = make_rig(options={"deck": "virtual"})  # no frame settled yet
    with served(rig) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(server.url + "/camera", wait_until="domcontentloaded")  # before the WebSocket connects
        assert page.evaluate(broken) == 0
        expect(page.locator("#noframe")).to_be_visible()
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=15_000)
        assert page.evaluate(broken) == 0
        page.close()
    rig = dicetar_game(make_rig)
    with served(rig) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(server.url + "/camera")
        expect(page.locator("#frame")).to_be_visible(timeout=15_000)
        assert (
            page.evaluate(broken) == 0 and page.evaluate("document.getElementById('frame').naturalWidth") > 0
        )
        expect(page.locator("#noframe")).to_be_hidden()
        page.close()
