"""Fixtures for the numbered-dice tests: the held-out rendered scenes and one shared reader."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

# tests/vision (a folder named like the package) can shadow `vision` as a namespace package
# when tests/ is on sys.path: put the project root first and forget any such namespace.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("vision"), "__file__", "") is None:
    for name in [m for m in sys.modules if m == "vision" or m.startswith("vision.")]:
        del sys.modules[name]

from vision.numbered.reader import NumberedReader  # noqa: E402

SCENES = ROOT / "tests" / "fixtures" / "numbered"  # 1280x960 video frames
STILLS = ROOT / "tests" / "fixtures" / "numbered_still"  # 3456x2592 stills of other throws


@pytest.fixture(scope="session")
def reader() -> NumberedReader:
    return NumberedReader()


def load_scene(name: str, folder: Path = SCENES) -> tuple[np.ndarray, dict[str, Any]]:
    truth: dict[str, Any] = json.loads((folder / f"{name}.json").read_text())
    img = cv2.imread(str(folder / truth["image"]))
    assert img is not None, f"{name}: image missing"
    return img, truth
