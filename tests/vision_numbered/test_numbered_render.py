"""The renderer's solids are the real ones, and its scenes are reproducible."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numbered_helpers import SCENES, STILLS

from training.render.numbered.solids import SHAPES, VALUES, Die


@pytest.mark.parametrize(
    ("kind", "faces", "total"), [("d6", 6, 7), ("d10", 10, 9), ("d10p", 10, 90), ("d20", 20, 21)]
)
def test_faces_and_opposite_sums(kind: str, faces: int, total: int) -> None:
    s = SHAPES[kind]
    assert len(s.faces) == faces
    assert sorted(s.values) == sorted(VALUES[kind])
    for f in range(faces):  # every face has a parallel opposite face; their values sum like real dice
        opp = min(range(faces), key=lambda g: float(np.dot(s.normal(g), s.normal(f))))
        assert np.dot(s.normal(f), s.normal(opp)) == pytest.approx(-1.0)
        assert s.values[f] + s.values[opp] == total


@pytest.mark.parametrize("kind", ["d10", "d20"])
def test_faces_are_planar_and_convex(kind: str) -> None:
    s = SHAPES[kind]
    for f, face in enumerate(s.faces):
        p = s.vertices[list(face)]
        n = s.normal(f)
        assert np.ptp(p @ n) < 1e-9
        assert all(np.dot(s.vertices[v] - p[0], n) <= 1e-9 for v in range(len(s.vertices)))


def test_placed_die_shows_the_value_up_and_rests_on_the_table() -> None:
    for kind, value, yaw in itertools.product(["d10", "d10p", "d20"], [0, 1, 9, 10, 16, 20], [0.0, 37.0]):
        if value not in VALUES[kind]:
            continue
        d = Die.placed(kind, value, "red", 20.0, (50.0, 60.0), yaw)
        assert d.top_value() == value
        v = d.vertices()
        assert v[:, 2].max() == pytest.approx(0.0)  # lowest point on the board (z into the table)
        bottom = [f for f in range(len(d.shape.faces)) if np.allclose(d.face_points(f)[:, 2], 0.0)]
        assert len(bottom) == 1  # lies flat on one face


def test_a_test_scene_regenerates_byte_for_byte() -> None:
    from tools.render_numbered.generate import SEED
    from training.render.numbered.scenes import scene

    _, jpeg, truth = scene(SEED, 5, "dice-fighter")
    assert jpeg == (SCENES / "scene_0005.jpg").read_bytes()
    assert truth["split"] == "test"


def test_a_still_scene_regenerates_byte_for_byte() -> None:
    from tools.render_numbered.generate import STILL_SCALE, STILL_SEED
    from training.render.numbered.scenes import scene

    img, jpeg, truth = scene(STILL_SEED, 3, "dice-fighter", scale=STILL_SCALE)
    assert img.shape == (2592, 3456, 3) and truth["image_size"] == [3456, 2592]
    assert jpeg == (STILLS / "scene_0003.jpg").read_bytes()
