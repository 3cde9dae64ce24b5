"""The rendered 20-face table of issue 44 (training/render/blender/table20.py): its pure parts, without
Blender: the symmetry that poses a thrown die for a wanted face, the teaching plan, and the composing
of a roll's rendered patch onto the empty table with its truth."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from training.render.blender import table20
from training.render.blender.dice_geometry import SHAPES


def test_every_face_can_be_posed_up_from_any_resting_face() -> None:
    shape = SHAPES["d20"]
    for have in range(20):
        # a resting pose with face `have` up: its normal turned onto +z
        n = np.asarray(shape.normal(have))
        axis = np.cross(n, [0.0, 0.0, 1.0])
        s, c = np.linalg.norm(axis), float(n[2])
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        rest = np.eye(3) + k + k @ k * ((1 - c) / (s * s)) if s > 1e-9 else np.diag([1.0, -1.0, -1.0])
        assert shape.up_face(rest.tolist())[0] == have
        for want in (1, 6, 9, 11, 16, 17, 19, 20):
            for turn in range(3):
                g = np.asarray(table20.symmetry(shape, shape.face_of(want), have, turn))
                f, tilt = shape.up_face((rest @ g).tolist())
                assert shape.values[f] == want and tilt < 1e-6


def test_a_map_that_is_no_symmetry_is_refused() -> None:
    shape = SHAPES["d20"]
    # faces listed in the wrong turning order: a reflection, not a rotation of the solid
    faces = (shape.faces[0][::-1], *shape.faces[1:])
    flipped = type(shape)(shape.kind, shape.vertices, faces, shape.values, shape.up_vertex)
    with pytest.raises(ValueError, match="not a rotation"):
        table20.symmetry(flipped, 0, 5, 0)


def test_the_plan_teaches_every_face_the_same_number_of_times_first() -> None:
    plan = table20.plan(rolls=4, later=7)
    learn = [want for _, part, want in plan if part == "learn"]
    assert sorted(learn) == sorted(list(range(1, 21)) * 4) and learn[:20] == list(range(1, 21))
    assert [want for _, part, want in plan if part == "later"] == [None] * 7
    assert [i for i, _, _ in plan] == list(range(87))


def test_a_patch_is_laid_where_it_was_rendered_and_its_truth_written(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    w, h = table20.WIDTH, table20.HEIGHT
    Image.fromarray(np.full((h, w, 3), 120, np.uint8)).save(raw / "empty.png")
    patch = np.full((80, 100, 3), 120, np.uint8)
    patch[30:50, 40:60] = (20, 30, 200)  # the die
    Image.fromarray(patch).save(raw / "0000.png")
    border = [500, 300, 600, 380]
    (raw / "0000.json").write_text(
        json.dumps({"index": 0, "value": 16, "part": "learn", "border": border, "centre": [550, 340]})
    )
    got = table20.compose(tmp_path)
    assert got["rolls"][0]["file"] == "frames/learn_0000_16.jpg"
    assert json.loads((tmp_path / "truth.json").read_text())["rolls"][0]["value"] == 16
    frame = np.asarray(Image.open(tmp_path / got["rolls"][0]["file"]), np.float32)
    assert frame.shape == (h, w, 3)
    die = frame[335:345, 545:555].mean(axis=(0, 1))
    assert die[2] > 150 and die[0] < 60  # the die where it was rendered (RGB: blue)
    assert abs(frame[100:200, 100:200].mean() - 120) < 8  # the table elsewhere, within gain and noise
    assert (tmp_path / "empty.jpg").exists()


def test_compose_takes_the_renders_own_seed(tmp_path: Path) -> None:
    """A fresh render seed's frames are composed with that seed (raw/run.json), not 44's."""
    raw = tmp_path / "raw"
    raw.mkdir()
    w, h = table20.WIDTH, table20.HEIGHT
    Image.fromarray(np.full((h, w, 3), 120, np.uint8)).save(raw / "empty.png")

    def empty_with(seed: int | None) -> np.ndarray:
        table20.compose(tmp_path, seed)
        return np.asarray(Image.open(tmp_path / "empty.jpg"), np.int16)

    (raw / "run.json").write_text(json.dumps({"seed": 45}))
    own = empty_with(None)
    assert np.array_equal(own, empty_with(45)) and not np.array_equal(own, empty_with(44))
    (raw / "run.json").unlink()
    assert np.array_equal(empty_with(None), empty_with(44))
