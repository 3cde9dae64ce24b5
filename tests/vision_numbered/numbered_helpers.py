"""The held-out rendered scenes of the numbered-dice tests (imported by name: `conftest` would clash
with tests/calibration's when both folders run in one pytest call)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "tests" / "fixtures" / "numbered"  # 1280x960 video frames
STILLS = ROOT / "tests" / "fixtures" / "numbered_still"  # 3456x2592 stills of other throws


def load_scene(name: str, folder: Path = SCENES) -> tuple[np.ndarray, dict[str, Any]]:
    truth: dict[str, Any] = json.loads((folder / f"{name}.json").read_text())
    img = cv2.imread(str(folder / truth["image"]))
    assert img is not None, f"{name}: image missing"
    return img, truth
