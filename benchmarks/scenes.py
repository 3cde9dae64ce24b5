"""The rendered board scenes (tools/render/generate.py, committed with their seed in
tests/fixtures/rendered): loading a split, and matching readings to their true dice.  Shared by the
geometry, end-to-end and colour benchmarks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import RENDERED

SCENES = RENDERED


def load_scenes(split: str, folder: Path = SCENES) -> list[dict[str, Any]]:
    """The scenes of ``split`` (test, tune or all) in ``folder``, each its truth JSON with ``_dir``."""
    out = []
    for p in sorted(folder.glob("scene_*.json")):
        truth = json.loads(p.read_text())
        if split in ("all", truth["split"]):
            truth["_dir"] = str(folder)
            out.append(truth)
    return out


def empty_frame(truth: dict[str, Any]) -> np.ndarray:
    """The scene's empty table (same camera, board and light, no dice): ``_dir/empty/<image>`` when
    `tools/render/generate.py --empty` wrote it, else rendered now (`make_scene(..., empty=True)`:
    deterministic, ~0.3 s)."""
    path = Path(truth["_dir"]) / "empty" / truth["image"]
    if path.is_file():
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is not None:
            return np.asarray(img)
    from training.render.board_scenes import make_scene

    _, jpeg, _ = make_scene(
        int(truth["scene"]), int(truth["seed"]), truth.get("variant", "train"), empty=True
    )
    return np.asarray(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR))


def match(
    dice: list[dict[str, Any]], centres: list[np.ndarray], visible_first: bool = False
) -> dict[int, int]:
    """Truth die index -> reading index, one to one: nearest pairs first, each within 0.6 of the
    die's top-face side (px) of the die's top-face centre.  ``visible_first``: the dice whose top
    face the camera sees at least half of are matched first (a stack read as one die is its upper
    die, whose face was read, not the lower die hidden under it: issue 45)."""
    out: dict[int, int] = {}
    used: set[int] = set()
    passes = (True, False) if visible_first else (False,)
    for seen_only in passes:
        cands = []
        for i, d in enumerate(dice):
            if i in out or (seen_only and float(d.get("top_visible_fraction", 1.0)) < 0.5):
                continue
            q = np.asarray(d["top_quad_px"], np.float64)
            c = q.mean(axis=0)
            side = float(np.sqrt(abs(cv2.contourArea(q.astype(np.float32)))))
            for j, r in enumerate(centres):
                dist = float(np.linalg.norm(np.asarray(r, np.float64) - c))
                if j not in used and dist <= 0.6 * side:
                    cands.append((dist, i, j))
        for _, i, j in sorted(cands):
            if i not in out and j not in used:
                out[i] = j
                used.add(j)
    return out
