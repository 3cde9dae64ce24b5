"""Fixtures for the vision tests."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # vision_helpers

from vision.synth import felt


@pytest.fixture
def table() -> np.ndarray:
    """An empty green felt table, 640x480."""
    return felt(480, 640, (60, 110, 40))
