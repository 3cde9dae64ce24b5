"""The cause of the hall page's stuck score: a slow state fetch answered before a push, shown after it.

A page connects, asks ``/api/tables`` for the state and meanwhile gets a push of a newer state; when
the fetch's answer arrived after the push, the page showed the older state and kept it until the next
push (``test_hall_page_in_chromium_survives_broker_restart`` saw the hall score stuck at 0).  Here the
fetch is answered late on purpose, so the order that was rare is certain.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from display.hall_app import create_hall_app
from display.hub import Hub
from display.server import ServerThread

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


class StillHall:
    """A hall whose picture the test sets (no broker: this is about the page, not MQTT)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.score = 0
        self.version = 1

    def set_score(self, score: int) -> None:
        with self._lock:
            self.score, self.version = score, self.version + 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            summary = {
                "game": "dice-hunter",
                "players": [{"name": "ann", "colour": "red"}],
                "scores": {"ann": self.score},
            }
            return {
                "broker": "test",
                "connected": True,
                "tables": [{"table": "t1", "online": True, "summary": summary, "v": self.version}],
            }

    def changes(self, since: int = 0) -> dict[str, Any]:
        snap = self.snapshot()
        version = snap["tables"][0]["v"]
        return {**snap, "version": version, "full": since == 0, "gone": []}


@pytest.mark.browser
@pytest.mark.slow
def test_a_late_state_fetch_never_replaces_a_newer_push() -> None:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import expect, sync_playwright

    hall, hub = StillHall(), Hub()
    app = create_hall_app(hall, hub)  # type: ignore[arg-type]

    @app.middleware("http")
    async def late_state(request: Any, call_next: Any) -> Any:
        response = await call_next(request)  # computed now, with the state as it is now ...
        if request.url.path == "/api/tables":
            await asyncio.sleep(3.0)  # ... and delivered after the push below
        return response

    with ServerThread(app) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page()
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=20_000)
        expect(page.locator('[data-score="t1/ann"]')).to_have_text("0", timeout=20_000)
        hall.set_score(4)
        hub.notify({"v": hall.version})  # the wake-up the real hall's on_update gives
        expect(page.locator('[data-score="t1/ann"]')).to_have_text("4", timeout=20_000)
        page.wait_for_timeout(4_000)  # the late fetch (score 0) has landed by now
        assert page.locator('[data-score="t1/ann"]').inner_text() == "4"
        browser.close()
