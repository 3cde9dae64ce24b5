"""Fixtures for the numbered-dice tests: one shared reader (the scenes: numbered_helpers)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# tests/vision (a folder named like the package) can shadow `vision` as a namespace package
# when tests/ is on sys.path: put the project root first and forget any such namespace.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("vision"), "__file__", "") is None:
    for name in [m for m in sys.modules if m == "vision" or m.startswith("vision.")]:
        del sys.modules[name]

from vision.numbered.reader import NumberedReader  # noqa: E402


@pytest.fixture(scope="session")
def reader() -> NumberedReader:
    return NumberedReader()
