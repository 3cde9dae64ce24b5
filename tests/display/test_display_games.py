"""Each game's picture in real Chromium, from real tables: a recorded session's frames and the
recorded scenarios' inputs."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from table_rig import Rig

from controller.session import session_config
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
DICETAR = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "dicetar-wars-demo"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"
COLOURS = ["red", "blue", "green", "purple", "yellow"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def served(table: Table) -> ServerThread:
    hub = Hub()
    table.listeners.append(hub.notify)
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


def as_read(die: dict[str, Any]) -> dict[str, Any]:
    """A die of the session's truth as a reader reports it: its top face's corners in the frame."""
    quad = die["top_quad_px"]
    return {
        "kind": die["kind"],
        "value": die["value"],
        "colour": die["colour"],
        "quad": quad,
        "center": np.mean(quad, axis=0).tolist(),
    }


def test_dicetar_board_draws_each_die_in_place_with_its_points(
    browser: Any, make_rig: Callable[..., Rig]
) -> None:
    from playwright.sync_api import expect

    cfg = session_config(DICETAR)  # its board layout and camera calibration: the table places the dice
    rig = make_rig(cfg=cfg.model_copy(update={"board": cfg.board.model_copy(update={"fit": "none"})}))
    truth = json.loads((DICETAR / "truth.json").read_text(encoding="utf-8"))
    for throw in truth["throws"][:2]:  # ann's first throw, then bob's onto the same board
        rig.settle([as_read(d) for d in throw["dice"]], cv2.imread(str(DICETAR / throw["frame"])))
    state = rig.table.game.state
    assert rig.table.question is None and len(state["table"]) == 10
    with served(rig.table) as server:
        page, errors = open_page(browser, server.url + "/")
        expect(page.locator('#board .die[data-owner="ann"]')).to_have_count(5)
        expect(page.locator('#board .die[data-owner="bob"]')).to_have_count(5)
        for points, n in Counter(
            d["points"] for d in state["table"]
        ).items():  # e.g. bob's 5 stacked on x6: 120
            expect(page.locator(f'#board .die[data-points="{points}"]')).to_have_count(n)
        expect(page.locator('[data-score="ann"]')).to_have_text("0")  # totals count after the half
        half = state["provisional"]
        assert f"this half: ann {half['ann']}, bob {half['bob']}" in page.locator("#board").inner_text()
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


# DICETAR WARS has its own test above: its dice drawn where the table placed them on its board
@pytest.mark.parametrize("game", ["die-angler", "dice-fighter", "nozoku-dice", "dice-hunter"])
def test_every_game_renders_a_real_engine_state(
    browser: Any, game: str, make_rig: Callable[..., Rig]
) -> None:
    from playwright.sync_api import expect

    if not SCENARIOS.joinpath(game).is_dir():
        pytest.skip(f"no scenarios for {game}")
    setup, inputs = scenario_without_data(game)
    players = [(p, COLOURS[i]) for i, p in enumerate(setup["players"])]
    rig = make_rig(game=game, players=players, options=setup.get("options"), seed=setup.get("seed", 0))
    table = rig.table
    fed = 0
    for raw in inputs[: max(4, len(inputs) * 2 // 3)]:
        try:
            rig.play(raw)
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
