"""Fixtures for the vision tests."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

# This folder is named like the package it tests: with tests/ on sys.path, `import vision`
# could find tests/vision as a namespace package. Put the project root first and forget
# any such namespace so the real package is imported.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("vision"), "__file__", "") is None:
    for name in [m for m in sys.modules if m == "vision" or m.startswith("vision.")]:
        del sys.modules[name]
sys.path.insert(0, str(Path(__file__).parent))  # vision_helpers

from hardware.drawn import felt  # noqa: E402


@pytest.fixture
def table() -> np.ndarray:
    """An empty green felt table, 640x480."""
    return felt(480, 640, (60, 110, 40))
