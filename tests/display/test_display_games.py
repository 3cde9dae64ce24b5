"""Each game's picture in real Chromium, from real engine states (the recorded scenarios)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from display.app import create_app
from display.backend import PX_PER_MM, FakeTable
from display.hub import Hub
from display.server import ServerThread

CHROMIUM = Path("/usr/bin/chromium")
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
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
COLOURS = ["red", "blue", "green", "purple", "yellow"]

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


def served(table: FakeTable) -> ServerThread:
    hub = Hub()
    table.add_listener(hub.notify)
    return ServerThread(create_app(table, hub))


def open_page(browser: Any, url: str) -> tuple[Any, list[str]]:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
    return page, errors


def cell(col: int, row: int, value: int, colour: str, zone: str | None) -> dict[str, Any]:
    """A die lying in the middle of a 50 mm board cell (board origin 60, 50 mm)."""
    cx, cy = (60 + 25 + col * 50) * PX_PER_MM, (50 + 25 + row * 50) * PX_PER_MM
    h = 8 * PX_PER_MM
    return {
        "kind": "d6",
        "value": value,
        "colour": colour,
        "field_status": "field" if zone else "off",
        "zones": [zone] if zone else [],
        "quad": [[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]],
    }


def test_dicetar_board_draws_each_die_in_place_with_its_points(browser: Any) -> None:
    from playwright.sync_api import expect

    table = FakeTable("table-7", "dicetar-wars", [("ann", "red"), ("bob", "blue")])
    table.correct({"action": "start"}, "ref")
    ann = [
        cell(0, 0, 3, "red", "r0c0"),
        cell(2, 1, 6, "red", "r1c2"),
        cell(4, 2, 5, "red", "r2c4"),
        cell(1, 3, 2, "red", "r3c1"),
        cell(5, 4, 4, "red", None),
    ]
    table.settle(ann, "ann")
    bob = [
        cell(1, 1, 4, "blue", "r1c1"),
        cell(3, 2, 6, "blue", "r2c3"),
        cell(5, 0, 1, "blue", "r0c5"),
        cell(2, 3, 3, "blue", "r3c2"),
        cell(0, 2, 5, "blue", "r2c0"),
    ]
    table.settle(ann + bob, "bob")
    with served(table) as server:
        page, errors = open_page(browser, server.url + "/")
        expect(page.locator('#board .die[data-owner="ann"]')).to_have_count(5)
        expect(page.locator('#board .die[data-owner="bob"]')).to_have_count(5)
        expect(page.locator('#board .die[data-points="48"]')).to_have_count(2)  # 6 on x8, for each player
        expect(page.locator('[data-score="ann"]')).to_have_text("0")  # totals count after the half
        assert "this half: ann 93, bob 103" in page.locator("#board").inner_text()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "table-dicetar-wars.png"), full_page=True)
        assert errors == []
        page.close()


def scenario_without_data(game: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    for path in sorted((SCENARIOS / game).glob("*.jsonl")):
        lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip() and x.strip()[0] == "{"]
        setup = lines[0]["setup"]
        if not setup.get("data"):
            inputs = [x for x in lines[1:] if "expect" not in x and "expect_error" not in x]
            if len(inputs) >= 4:
                return setup, inputs
    pytest.skip(f"no scenario of {game} without custom data files")


# DICETAR WARS has its own test above (its scenarios all use a custom board file)
@pytest.mark.parametrize("game", ["die-angler", "dice-fighter", "nozoku-dice", "dice-hunter"])
def test_every_game_renders_a_real_engine_state(browser: Any, game: str) -> None:
    from playwright.sync_api import expect

    if not SCENARIOS.joinpath(game).is_dir():
        pytest.skip(f"no scenarios for {game}")
    setup, inputs = scenario_without_data(game)
    players = [(p, COLOURS[i]) for i, p in enumerate(setup["players"])]
    table = FakeTable("t", game, players, setup.get("options"), setup.get("seed", 0))
    table.correct({"action": "start"}, "ref")
    fed = 0
    for raw in inputs[: max(4, len(inputs) * 2 // 3)]:
        try:
            table.feed(raw)
        except ValueError:
            break
        fed += 1
    assert fed >= 2, f"the scenario's inputs did not apply to {game}"
    with served(table) as server:
        page, errors = open_page(browser, server.url + "/")
        expect(page.locator("#board svg")).to_have_count(1)
        scores = table.snapshot()["state"]["scores"]
        for p, v in scores.items():
            expect(page.locator(f'[data-score="{p}"]')).to_have_text(str(v))
        page.screenshot(path=str(ARTIFACTS / f"game-{game}.png"), full_page=True)
        assert errors == [], errors
        page.close()
