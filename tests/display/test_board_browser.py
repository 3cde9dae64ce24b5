"""The live display draws the board the table is configured with (issue 28 item 6), in real Chromium,
from the app ``dicetable run`` serves (``controller.live.table_app``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.live import table_app
from controller.table import Table
from display.server import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CAMERA = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo" / "camera.json"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
#: the club's own board: wider than the shipped A3 example, its first square smaller and a ×8
OUTLINE = "0,0 440,0 440,297 0,297"
SQUARE = "65,55 105,55 105,95 65,95"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def club_board(folder: Path) -> Path:
    text = (ROOT / "boards" / "dicetar-wars.example.toml").read_text(encoding="utf-8")
    text = text.replace('name = "dicetar-wars"', 'name = "club-board"', 1)
    text = text.replace(
        "polygon = [[0, 0], [420, 0], [420, 297], [0, 297]]", f"polygon = {_toml(OUTLINE)}", 1
    )
    first = 'name = "r0c0"\nmultiplier = 3\npolygon = [[60, 50], [110, 50], [110, 100], [60, 100]]'
    assert first in text, "the shipped example changed: update this test's edit"
    text = text.replace(first, f'name = "r0c0"\nmultiplier = 8\npolygon = {_toml(SQUARE)}')
    path = folder / "club-board.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _toml(points: str) -> str:
    return "[" + ", ".join(f"[{p}]" for p in points.split()) + "]"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    cfg = parse_config(
        {
            "table": {"game": "dicetar-wars", "options": {"colours": {"ann": "red", "bob": "blue"}}},
            "players": [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}],
            "board": {"layout": str(club_board(tmp_path)), "calibration": str(CAMERA)},
        }
    )
    t = Table(cfg, EventLog(tmp_path / "t.sqlite3"))
    yield t
    t.close()
    t.log.close()


def test_the_live_page_draws_the_configured_board_not_the_shipped_example(table: Table) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    app, _hub = table_app(table, "127.0.0.1", None, ["127.0.0.1", "localhost"])
    with ServerThread(app) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[Any] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/")
            expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
            expect(page.locator(f'#board polygon[points="{OUTLINE}"]')).to_have_count(1)
            expect(page.locator(f'#board polygon[points="{SQUARE}"]')).to_have_count(1)
            expect(page.locator('#board polygon[points="60,50 110,50 110,100 60,100"]')).to_have_count(0)
            assert "×8" in page.locator("#board").inner_text()
            assert errors == []
        finally:
            browser.close()
