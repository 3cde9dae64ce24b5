"""Shared test fixtures: where the real photos are, and a tmp data dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "fixtures" / "real"
FIXTURES = ROOT / "tests" / "fixtures"


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
