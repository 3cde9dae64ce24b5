"""Fixtures of the display tests: a real table (table_rig), a live server, a real Mosquitto broker,
a headless Chromium (`browser`)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from broker import MOSQUITTO, Broker
from table_rig import Rig

from controller.table import Table
from display.hub import Hub

CHROMIUM = Path("/usr/bin/chromium")
#: Debian's chromium as the browser tests drive it: headless, nothing fetched beside the pages
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for a module's browser tests (skipped where it is not installed)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """Open real tables (``Rig(tmp_path, ...)``); each is closed when the test ends."""
    rigs: list[Rig] = []

    def make(**kw: Any) -> Rig:
        rigs.append(Rig(tmp_path, **kw))
        return rigs[-1]

    yield make
    for rig in rigs:
        rig.close()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    """Dice Hunter for ann, bob and cid, its tiles from the virtual deck."""
    return make_rig(options={"deck": "virtual"})


@pytest.fixture
def table(rig: Rig) -> Table:
    return rig.table


@pytest.fixture
def hub(table: Table) -> Hub:
    hub = Hub()
    table.listeners.append(hub.notify)
    return hub


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if not MOSQUITTO.exists() and shutil.which("mosquitto") is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    b = Broker(tmp_path)
    b.start()
    try:
        yield b
    finally:
        b.stop()
