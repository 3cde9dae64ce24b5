"""The README's picture of the table page (docs/screenshots/display-dice-hunter.png), made from a real
table as `dicetable serve-fake` runs one: its drawn camera throws real-looking dice (seed 2: ann takes
the Trio, bob keeps two 3s and throws again, and the table asks about one die of that throw). The page
is checked for what the picture is meant to show before it is taken:

    DICETABLE_WRITE_SCREENSHOTS=1 PYTHONPATH=$PWD .venv/bin/python -m pytest \\
        tests/display/test_readme_screenshot.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_question_picture import pixels
from test_tv_browser import shot

from controller.cli_display import fake_config
from controller.drawn_camera import DrawnCamera, throw_for_the_table
from controller.eventlog import EventLog
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread
from engine import Input

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_readme_picture_of_the_table_page(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    cfg = fake_config("dice-hunter", "ann:red,bob:blue,cid:green", ["deck=virtual"], "table-1")
    camera = DrawnCamera(2)
    table = Table(cfg, EventLog(tmp_path / "events.sqlite3"), reader=camera.read, resume=False)
    hub = Hub()
    table.listeners.append(hub.notify)
    try:
        for t in range(1, 12):
            if throw_for_the_table(table, camera, float(t)):
                continue
            snap = table.snapshot()
            if snap["question"] is not None:
                break
            player = snap["state"]["expects"]["players"][0]
            choices = table.game.choices(player)
            _, payload = next((c for c in choices if c[0].startswith(("take", "keep"))), choices[0])
            table.apply(Input.from_json({"type": "choice", "player": player, **payload}), "button")
        asked = table.snapshot()["question"]
        assert asked is not None and table.game.state["holdings"]["ann"] == ["trio"]
        with ServerThread(create_app(table, hub, admin_token=None, loopback_only_admin=True)) as server:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(server.url + "/")
            expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=15_000)
            expect(page.locator("#question")).to_be_visible(timeout=15_000)
            expect(page.locator('#board [data-tile="trio"][data-owner="ann"]')).to_have_count(1)
            expect(page.locator("#events li").first).to_be_visible(timeout=15_000)
            reading = asked["readings"][0]
            px = pixels(page, f'#asked-dice canvas[data-crop="{reading}"]')  # the die, not a black square
            assert px["drawn"] == px["all"], px
            page.wait_for_timeout(300)
            shot(page, "display-dice-hunter.png")
            page.close()
    finally:
        table.panels.close()
        table.log.close()
