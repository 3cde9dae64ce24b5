"""A tournament in the hall, end to end: two recorded tables via `dicetable run` over the shipped broker
config (passwords, ACL, TLS), a hall restart mid-round, the organiser confirming in chromium, the export."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from secure_broker import ROOT, SecureBroker, available, toml_text

from controller.session import session_config
from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.hub import Hub
from display.mqtt import Hall
from display.server import ServerThread, free_port
from display.tournament_app import TournamentView, create_tournament_app

pytestmark = [pytest.mark.broker, pytest.mark.browser, pytest.mark.slow]
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "display"
RUN = (sys.executable, "-m", "controller", "run")


def wait_until(check: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def secure(tmp_path: Path) -> Iterator[SecureBroker]:
    why = available() or (None if CHROMIUM.exists() else "chromium is not installed")
    if why:
        pytest.skip(why)
    b = SecureBroker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


class HallProcess:
    """The hall's tournament side, as `dicetable tournament` wires it; stop() is a hall going down."""

    def __init__(self, spec: TournamentFile, db: Path, secure: SecureBroker) -> None:
        self.tournament = Tournament(spec, db)
        self.hall = Hall(link=secure.link("hall"))
        self.view = TournamentView(self.tournament, self.hall, Hub())
        self.hall.on_change, self.hall.on_result = self.view.changed, self.view.on_result
        self.hall.start()
        self.server = ServerThread(create_tournament_app(self.view)).start()
        self.url = self.server.url

    def match(self) -> dict[str, Any]:
        [m] = httpx.get(self.url + "/api/tournament").json()["matches"]
        return m

    def stop(self) -> None:
        self.server.stop()
        self.hall.stop()
        self.tournament.close()


def run_table(tmp: Path, secure: SecureBroker, session: str, table_id: str) -> subprocess.Popen[str]:
    cfg = session_config(SESSIONS / session, table_id=table_id).model_dump()
    cfg["database"] = {"path": str(tmp / f"{table_id}.sqlite3")}
    cfg["display"] = {"host": "127.0.0.1", "port": free_port()}
    cfg["mqtt"] = secure.mqtt_section(table_id)
    path = tmp / f"{table_id}.toml"
    path.write_text(toml_text(cfg), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [*RUN, "--config", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def final_of(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_a_tournament_takes_results_from_the_tables_and_survives_a_hall_restart(
    secure: SecureBroker, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Test Open", "format": "swiss"},
            "players": [{"name": "ann"}, {"name": "bob"}],
            "rounds": [
                {"game": "dice-fighter", "tables": ["table-1"]},
                {"game": "dicetar-wars", "tables": ["table-2"]},
            ],
        }
    )
    db = tmp_path / "tournament.sqlite3"
    hall = HallProcess(spec, db, secure)
    try:
        assert httpx.post(hall.url + "/api/next-round", json={}).status_code == 200
        assert hall.match()["players"] == ["ann", "bob"] and hall.match()["table"] == "table-1"
        first = final_of(run_table(tmp_path, secure, "dice-fighter-demo", "table-1"))
        m = wait_until(lambda: hall.match()["status"] == "reported" and hall.match(), what="round 1 reported")
        assert (m["scores"], m["winners"]) == (first["scores"], first["winners"])
        refused = httpx.post(hall.url + "/api/next-round", json={})  # not before the organiser confirms
        assert refused.status_code == 409 and "without a confirmed result" in refused.json()["error"]
        assert httpx.post(hall.url + "/api/confirm", json={"table": "table-1"}).status_code == 200
        assert httpx.post(hall.url + "/api/next-round", json={}).status_code == 200

        table2 = run_table(tmp_path, secure, "dicetar-wars-demo", "table-2")
        hall.stop()  # the hall goes down mid-round, while table-2 plays
        hall = HallProcess(spec, db, secure)
        second = final_of(table2)
        wait_until(lambda: hall.match()["status"] == "reported", what="round 2 reported after the restart")
        assert hall.match()["scores"] == second["scores"]

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 640})
            page.goto(hall.url + "/")
            expect(page.locator("#round")).to_have_text("round 2 of 2: DICETAR WARS", timeout=20_000)
            expect(page.locator('[data-match="table-2"]')).to_contain_text("(to confirm)")
            page.click('button[data-confirm="table-2"]')
            expect(page.locator('[data-match="table-2"]')).to_have_attribute("data-status", "confirmed")
            expect(page.locator("#next")).to_have_text("the last round has been played")
            page.screenshot(path=str(ARTIFACTS / "tournament.png"), full_page=True)
            order = page.locator("[data-standing]").evaluate_all("rows => rows.map(r => r.dataset.standing)")
            points = {n: page.locator(f'[data-points="{n}"]').inner_text() for n in ("ann", "bob")}
            browser.close()

        # the standings are the tables' results: a win each, then the game score decides
        wins = {p: sum(f["winners"] == [p] for f in (first, second)) for p in ("ann", "bob")}
        assert points == {p: str(3 * w) for p, w in wins.items()}
        total = {p: first["scores"][p] + second["scores"][p] for p in ("ann", "bob")}
        assert order == sorted(total, key=lambda p: (-3 * wins[p], -total[p]))

        rows = list(csv.DictReader(io.StringIO(httpx.get(hall.url + "/api/export.csv").text)))
        assert [(r["round"], r["table"], r["player"], r["score"], r["status"]) for r in rows] == [
            ("1", "table-1", "ann", str(first["scores"]["ann"]), "confirmed"),
            ("1", "table-1", "bob", str(first["scores"]["bob"]), "confirmed"),
            ("2", "table-2", "ann", str(second["scores"]["ann"]), "confirmed"),
            ("2", "table-2", "bob", str(second["scores"]["bob"]), "confirmed"),
        ]
        exported = httpx.get(hall.url + "/api/export.json").json()
        assert [r["name"] for r in exported["standings"]] == order
    finally:
        hall.stop()
