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


@pytest.mark.slow
def test_the_heldout_variant_mixes_die_sizes_white_dice_and_a_coloured_light() -> None:
    gen = _generator()
    scenes = [gen.make_scene(i, 20261124, "heldout")[2] for i in (0, 1, 5)]
    for truth in scenes:
        sizes = {d["size_mm"] for d in truth["dice"]}
        assert sizes <= {14.0, 16.0, 19.0} and truth["die_sizes_mm"] == [14.0, 16.0, 19.0]
        assert truth["light"]["cast_bgr"] != [1.0, 1.0, 1.0]
        for d in truth["dice"]:  # a die stacks on one of its own size
            if d["rests_on"] is not None:
                assert d["size_mm"] == truth["dice"][d["rests_on"]]["size_mm"]
    assert any(len({d["size_mm"] for d in t["dice"]}) > 1 for t in scenes)
    wars = [t for t in scenes if t["board"] == "dicetar-wars"]
    assert wars and all(any(d["colour"] == "white" for d in t["dice"]) for t in wars)
    with pytest.raises(ValueError, match="variant"):
        gen.make_scene(0, 1, "other")


@pytest.mark.slow
def test_the_earlier_frame_shows_the_scene_before_its_stacked_dice_landed() -> None:
    gen = _generator()
    index = next(
        i for i in range(20) if any(d["stack_level"] for d in gen.make_scene(i, 20261124)[2]["dice"])
    )
    image, _, truth = gen.make_scene(index, 20261124)
    before_image, _, before = gen.make_scene(index, 20261124, earlier=True)
    assert before.get("earlier") is True and "earlier" not in truth and before["camera"] == truth["camera"]
    flat = [d for d in truth["dice"] if d["stack_level"] == 0]
    assert [(d["value"], d["colour"]) for d in before["dice"]] == [(d["value"], d["colour"]) for d in flat]
    assert len(before["dice"]) < len(truth["dice"]) and not np.array_equal(image, before_image)
