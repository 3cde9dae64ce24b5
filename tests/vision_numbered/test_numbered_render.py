"""The renderer's solids are the real ones, and its scenes are reproducible."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import cv2
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


def _same_truth(got: Any, want: Any, where: str = "truth") -> None:
    """The scene's truth as committed: every kind, value, colour and key exactly, every float within
    0.011 (one step of the 2-decimal pixel coordinates: a float computed a last bit differently by
    another numpy or OpenCV may round the other way; a die placed a hundredth of a pixel elsewhere
    does not pass)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for k in want:
            _same_truth(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same_truth(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, abs=0.011), where
    else:
        assert got == want, where


def _same_pixels(jpeg: bytes, committed: Path) -> None:
    """The regenerated scene looks as the committed one, decoded pixel by pixel. The JPEG bytes are not
    compared: another libjpeg-turbo in another OpenCV wheel encodes the same image differently, and
    OpenCV 5.1 anti-aliases a few edge pixels of the drawn dice otherwise than 5.0 did (measured,
    5.0.0.93 against 5.1.0.95: mean difference 0.09 of 255, 0.05-0.07 % of the pixels off by more than
    32, in specks of at most 109 pixels). Allowed: a mean difference under 0.5 and under 0.2 % of the
    pixels off by more than 32. A scene drawn one pixel to the side already fails both or the second
    (mean 1.0-2.3, 0.6-1.6 % of the pixels); another throw fails by far (mean 50-75)."""
    got = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    want = cv2.imdecode(np.frombuffer(committed.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert got.shape == want.shape
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16)).max(axis=2)
    assert float(diff.mean()) < 0.5, f"mean difference {diff.mean():.2f}"
    assert float((diff > 32).mean()) < 0.002, f"{(diff > 32).mean():.2%} of the pixels differ by more than 32"


def _committed_truth(jpeg_path: Path) -> dict[str, Any]:
    truth = json.loads(jpeg_path.with_suffix(".json").read_text(encoding="utf-8"))
    truth.pop("image", None)  # the file's own name, added when the generator wrote it
    return dict(truth)


def test_a_test_scene_regenerates_to_the_same_throw_and_pixels() -> None:
    from tools.render_numbered.generate import SEED
    from training.render.numbered.scenes import scene

    _, jpeg, truth = scene(SEED, 5, "dice-fighter")
    _same_truth(json.loads(json.dumps(truth)), _committed_truth(SCENES / "scene_0005.jpg"))
    _same_pixels(jpeg, SCENES / "scene_0005.jpg")
    assert truth["split"] == "test"


def test_a_still_scene_regenerates_to_the_same_throw_and_pixels() -> None:
    from tools.render_numbered.generate import STILL_SCALE, STILL_SEED
    from training.render.numbered.scenes import scene

    img, jpeg, truth = scene(STILL_SEED, 3, "dice-fighter", scale=STILL_SCALE)
    assert img.shape == (2592, 3456, 3) and truth["image_size"] == [3456, 2592]
    _same_truth(json.loads(json.dumps(truth)), _committed_truth(STILLS / "scene_0003.jpg"))
    _same_pixels(jpeg, STILLS / "scene_0003.jpg")


def test_the_pixel_comparison_sees_a_real_change(tmp_path: Path) -> None:
    """_same_pixels fails a scene drawn one pixel to the side, and another throw."""
    from tools.render_numbered.generate import SEED
    from training.render.numbered.scenes import scene

    img, jpeg, _ = scene(SEED, 5, "dice-fighter")
    moved = tmp_path / "moved.jpg"
    cv2.imwrite(str(moved), np.roll(img, 1, axis=1), [cv2.IMWRITE_JPEG_QUALITY, 95])
    with pytest.raises(AssertionError):
        _same_pixels(jpeg, moved)
    with pytest.raises(AssertionError):
        _same_pixels(scene(SEED, 6, "dice-fighter")[1], SCENES / "scene_0005.jpg")
