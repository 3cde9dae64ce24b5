"""The dice fairness page: the table's /api/stats, and the /stats bar plot in real Chromium."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from table_rig import Rig, d6
from test_display_browser import ARTIFACTS

from controller.cli_stats import fairness_report
from controller.eventlog import EventLog
from controller.scenario import Setup
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread
from display.stats_page import create_stats_app
from engine import Input, InputKind


def hall_log(path: Path) -> Path:
    """600 rolls each of a red d6 loaded towards 6 and a fair green d6, and 200 of a fair d20."""
    rng = random.Random(7)
    log = EventLog(path)
    game = log.start_game(Setup("nozoku-dice", ("ann", "bob", "cid"), {}, 0))  # read without a replay
    for i in range(120):
        red = [
            {"kind": "d6", "value": 6 if rng.random() < 0.4 else rng.randint(1, 5), "colour": "red"}
            for _ in range(5)
        ]
        green = [{"kind": "d6", "value": rng.randint(1, 6), "colour": "green"} for _ in range(5)]
        blue = [{"kind": "d20", "value": rng.randint(1, 20), "colour": "blue"}] if i % 3 == 0 else []
        log.append_input(game, Input(InputKind.ROLL, "ann", {"dice": red}), [], "camera")
        log.append_input(game, Input(InputKind.ROLL, "bob", {"dice": green + blue}), [], "camera")
    log.close()
    return path


def test_the_tables_display_serves_its_dice_stats(rig: Rig) -> None:
    client = TestClient(create_app(rig.table, Hub()))
    assert client.get("/api/stats").json() == {"dice": []}
    rig.settle([d6(v) for v in (3, 3, 3, 5, 6)])
    (die,) = client.get("/api/stats").json()["dice"]
    assert die["table"] == rig.table.table_id and die["kind"] == "d6" and die["rolls"] == 5
    assert [f["count"] for f in die["faces"]] == [0, 0, 3, 0, 1, 1]
    assert not die["enough"] and "needs 60" in die["note"]
    assert client.get("/stats").status_code == 200


@pytest.mark.browser
@pytest.mark.slow
def test_stats_page_draws_each_die_and_flags_the_loaded_one(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    log = hall_log(tmp_path / "table-7.sqlite3")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with ServerThread(create_stats_app(lambda: fairness_report([log]))) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url + "/stats")
        expect(page.locator("body")).to_have_attribute("data-loaded", "yes", timeout=10_000)
        expect(page.locator("#summary")).to_have_text("3 dice, 1 flagged")
        red = page.locator('[data-die="table-7/red/d6"]')
        expect(red).to_have_attribute("data-flagged", "yes")
        expect(red.locator(".verdict")).to_contain_text("FLAGGED")
        expect(red.locator("rect.bar")).to_have_count(6)
        expect(red.locator("line.whisker")).to_have_count(18)
        green = page.locator('[data-die="table-7/green/d6"]')
        expect(green).to_have_attribute("data-flagged", "no")
        expect(green.locator(".verdict")).to_have_text("no sign of bias")
        blue = page.locator('[data-die="table-7/blue/d20"]')
        expect(blue.locator("rect.bar")).to_have_count(20)
        expect(blue.locator(".verdict")).to_have_text("too few rolls to test (needs 200)")
        # the loaded face's bar stands higher than a fair face's
        six = red.locator('rect.bar[data-face="6"]').bounding_box()
        one = red.locator('rect.bar[data-face="1"]').bounding_box()
        assert six is not None and one is not None and six["height"] > 1.8 * one["height"]
        page.screenshot(path=str(ARTIFACTS / "stats.png"), full_page=True)
        page.close()
