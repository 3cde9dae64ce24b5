"""The organiser's result form on the tournament page, in Debian's chromium: entered, refused, overridden."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.hub import Hub
from display.mqtt import Hall
from display.server import ServerThread
from display.tournament_app import TournamentView, create_tournament_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "display"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Tournament]]:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed")
    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1", "t2"]},
            "players": [{"name": n} for n in ("ann", "bob", "cid", "dan")],
            "rounds": [{"game": "die-angler"}, {"game": "dicetar-wars"}],
        }
    )
    t = Tournament(spec, tmp_path / "t.sqlite3")
    hall = Hall()  # not started: no broker, the tables are "not reporting"
    view = TournamentView(t, hall, Hub())
    with ServerThread(create_tournament_app(view)) as server:
        yield server.url, t
    t.close()


def submit(page: Any, table: str, scores: dict[str, str], who: str = "Yuki") -> None:
    page.click(f'button[data-enter="{table}"]')
    for name, value in scores.items():
        page.fill(f'[data-score-of="{name}"]', value)
    page.fill("#result-who", who)
    page.click("#result-submit")


def test_an_organiser_enters_and_corrects_results_on_the_page(served: tuple[str, Tournament]) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, t = served
    assert httpx.post(url + "/api/next-round", json={}).status_code == 200  # ann v cid at t1, bob v dan at t2
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "/")
        expect(page.locator('[data-match="t1"]')).to_have_attribute("data-status", "playing", timeout=20_000)

        submit(page, "t1", {"ann": "300", "cid": "500"})
        expect(page.locator('[data-match="t1"]')).to_have_attribute(
            "data-status", "confirmed", timeout=20_000
        )
        expect(page.locator('[data-state="t1"]')).to_contain_text("confirmed: cid won (by Yuki)")
        expect(page.locator('[data-points="cid"]')).to_have_text("3")
        expect(page.locator("#result-form")).to_be_hidden()

        submit(page, "t2", {"bob": "-5", "dan": "200"})  # impossible: refused, nothing changes
        expect(page.locator("#result-error")).to_contain_text("score of bob: -5 is impossible")
        expect(page.locator("#result-form")).to_be_visible()
        assert t.matches(1)[1]["status"] == "playing"
        page.click("#result-cancel")

        submit(page, "t1", {"ann": "500", "cid": "300"}, who="Kenji")  # a correction without saying so
        expect(page.locator("#result-error")).to_contain_text("override it and give a reason")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "tournament-result-form.png"), full_page=True)
        page.check("#result-override")
        page.fill("#result-reason", "scores were swapped")
        page.click("#result-submit")
        expect(page.locator('[data-state="t1"]')).to_contain_text(
            "confirmed: ann won (by Kenji)", timeout=20_000
        )
        expect(page.locator('[data-points="ann"]')).to_have_text("3")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "tournament-result.png"), full_page=True)
        browser.close()

    log = httpx.get(url + "/api/result-log").json()
    assert [(e["who"], e["action"]) for e in log] == [
        ("Yuki", "entered by an organiser"),
        ("Kenji", "overridden by an organiser"),
    ]
    assert log[1]["reason"] == "scores were swapped" and log[1]["before"]["scores"] == {
        "ann": 300,
        "cid": 500,
    }


def test_the_result_api_refuses_bad_bodies_clearly_and_wants_the_organiser(
    served: tuple[str, Tournament],
) -> None:
    url, t = served
    httpx.post(url + "/api/next-round", json={})
    r = httpx.post(url + "/api/result", json={"table": "t1", "round": "one", "scores": {}, "who": "Y"})
    assert r.status_code == 422 and "round:" in r.json()["error"]
    r = httpx.post(
        url + "/api/result", json={"table": "t1", "round": 1, "scores": {"ann": 1, "cid": 2}, "who": "Y"}
    )
    assert r.status_code == 200 and r.json()["status"] == "confirmed"
    r = httpx.post(url + "/api/result", json={"table": "t9", "round": 1, "scores": {"ann": 1}, "who": "Y"})
    assert r.status_code == 409 and "table 't9' has no match in round 1" in r.json()["error"]
    assert len(t.result_log()) == 1


def test_the_page_shows_every_round_and_the_winner_once_the_last_round_is_confirmed(
    served: tuple[str, Tournament],
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, t = served

    def play(no: int, scores: dict[str, int]) -> None:
        for m in t.matches(no):
            body = {
                "table": m["table"],
                "round": no,
                "scores": {p: scores[p] for p in m["players"]},
                "who": "Y",
            }
            assert httpx.post(url + "/api/result", json=body).status_code == 200

    assert httpx.post(url + "/api/next-round", json={}).status_code == 200
    play(1, {"ann": 10, "bob": 20, "cid": 5, "dan": 1})  # ann and bob win
    assert httpx.post(url + "/api/next-round", json={}).status_code == 200  # the last of two rounds
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "/")
        expect(page.locator("#next")).to_have_text(
            "round 2 (the last) has 2 match(es) without a confirmed result", timeout=20_000
        )
        expect(page.locator("#winner")).to_be_hidden()
        expect(page.locator('[data-history-match="1:t1"]')).to_contain_text("ann 10  v  cid 5")
        expect(page.locator('[data-history-match="1:t1"]')).to_contain_text("ann won")
        expect(page.locator('[data-history-match="2:t1"]')).to_contain_text("playing")
        play(2, {"ann": 30, "bob": 20, "cid": 5, "dan": 1})  # ann beats bob
        expect(page.locator("#winner")).to_be_visible(timeout=20_000)
        expect(page.locator("[data-winner]")).to_have_text("ann")
        expect(page.locator("#next")).to_have_text("the last round has been played")
        expect(page.locator("#round")).to_have_text("over: 2 rounds played")
        expect(page.locator("[data-history-round]")).to_have_count(2)
        expect(page.locator('[data-history-match="2:t1"]')).to_contain_text("bob 20  v  ann 30")
        expect(page.locator('[data-standing="ann"]')).to_have_attribute("data-rank", "1")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "tournament-over.png"), full_page=True)
        browser.close()
    rows = list(csv.DictReader(io.StringIO(httpx.get(url + "/api/standings.csv").text)))
    assert (rows[0]["rank"], rows[0]["player"], rows[0]["points"]) == ("1", "ann", "6")
