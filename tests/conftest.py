"""Shared test fixtures: where the real photos are, and a tmp data dir."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "fixtures" / "real"
FIXTURES = ROOT / "tests" / "fixtures"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The upgrade check (marked ``upgrade``: it installs the newest allowed versions and runs the whole
    suite again) runs only when ``-m`` names it: ``./dev.sh test`` and CI deselect it.

    In a pytest-xdist worker (``./dev.sh test``: ``--dist loadfile --no-loadscope-reorder``), hand
    out the files with the most tests marked ``slow`` first, each file's tests in their own order: a
    long file (the crash sweep, the benchmarks' smoke runs) handed out last runs alone at the end while
    the other workers idle. Every worker sorts the same collection the same way, as xdist requires."""
    if "upgrade" not in (config.getoption("markexpr", "") or ""):
        upgrade = [item for item in items if item.get_closest_marker("upgrade")]
        if upgrade:
            config.hook.pytest_deselected(items=upgrade)
            items[:] = [item for item in items if not item.get_closest_marker("upgrade")]
    if not hasattr(config, "workerinput"):
        return
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    first_seen = {path: i for i, path in enumerate(dict.fromkeys(item.path for item in items))}
    items.sort(key=lambda item: (-slow[item.path], first_seen[item.path]))


@pytest.fixture(scope="session")
def real_fixtures() -> Path:
    """The shared real photographs; tests using them skip only when the folder is absent."""
    if not REAL.is_dir():
        pytest.skip(f"real photos not found at {REAL} (the shared/ folder is not beside the repo)")
    return REAL


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's database and user files out of the real user data directory."""
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path / "userdata"))


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let rich (typer's messages) lay out lines 200 columns wide, for CliRunner and subprocesses
    alike: at its default 80 it breaks a long path inside a word ("non│ e.toml"), so a check that a
    message names a tmp_path file passed or failed with the length of pytest's temp folder (longer
    under pytest-xdist: ``popen-gw1/``)."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(autouse=True)
def _close_button_panels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every table's button panels when its test ends: a gpiozero button keeps a hold thread
    polling ten times a second until it is closed, and a suite of tables would pile up thousands."""
    from controller.panels import PanelSet

    opened: list[PanelSet] = []
    init = PanelSet.__init__

    def tracked(self: PanelSet, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(PanelSet, "__init__", tracked)
    yield
    for panels in opened:
        panels.close()
