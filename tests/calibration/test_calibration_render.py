"""The committed rendered scenes come from the seeded generator, and their truth is self-consistent."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RENDERED = ROOT / "tests" / "fixtures" / "rendered"


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "render_generate", ROOT / "tools" / "render" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_a_committed_scene_regenerates_from_its_seed() -> None:
    committed = json.loads((RENDERED / "scene_0007.json").read_text())
    _, _, truth = _generator().make_scene(7, committed["seed"])
    assert truth["board"] == committed["board"] and len(truth["dice"]) == len(committed["dice"])
    for a, b in zip(truth["dice"], committed["dice"], strict=True):
        assert (a["value"], a["colour"], a["stack_level"], a["cocked"]) == (
            b["value"],
            b["colour"],
            b["stack_level"],
            b["cocked"],
        )
        assert np.allclose(a["top_quad_px"], b["top_quad_px"], atol=0.01)


def test_the_committed_set_covers_what_the_benchmark_needs() -> None:
    truths = [json.loads(p.read_text()) for p in sorted(RENDERED.glob("scene_*.json"))]
    assert len(truths) >= 200
    assert sum(t["split"] == "test" for t in truths) == 150
    dice = [d for t in truths for d in t["dice"]]
    levels = {d["stack_level"] for d in dice}
    assert {1, 2} <= levels  # stacks of 2 and 3
    assert any(d["cocked"] for d in dice)
    assert any(d["field_status"] == "off" for d in dice)
    assert any(d["field_status"] == "card_slot" for d in dice)
    assert any(d["side"] == "line" for d in dice)
    assert any(len(d["zones"]) >= 2 for d in dice)
    for t in truths:
        assert (RENDERED / t["image"]).is_file()
