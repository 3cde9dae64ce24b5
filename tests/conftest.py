"""Shared test fixtures: where the real photos are, and a tmp data dir."""

from __future__ import annotations

from pathlib import Path

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
