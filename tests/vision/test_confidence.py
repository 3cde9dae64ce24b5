"""Issue 35: a confidence that knows when it does not know (a reading the reader cannot be sure of is
read below the table's asking threshold, 0.8, so the table asks instead of scoring it).

Real photo: a byler_d6 held-out photo cut through a die by the frame's left edge (the die's right
half left: a 4 whose two pips left read surely as a 2 before).  Renders: training.render.oblique
scenes of issue 35's tuning seed seen 30-60 degrees off vertical, no calibration given to the reader.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.dataset import load_byler, read_image
from training.render.oblique import STEEP, STEEP_TUNE_SEED, make_scene
from vision.oblique import TILTS, TOWARDS, View, hypotheses, neighbours, size_tilt
from vision.reader import UNSURE, Candidate, DiceReader, cut_by_edge

ASK = 0.8  # the table's default asking threshold (table.confidence_threshold)
PHOTO = "IMG_20191208_111246.jpg"
DIE = (409, 268, 446, 306)  # the labelled 4's box in PHOTO


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def photo(real: Path) -> tuple[np.ndarray, int]:
    item = next(i for i in load_byler(real) if i.path.name == PHOTO)
    die = next(d for d in item.dice if tuple(int(v) for v in d.box) == DIE)
    return read_image(item.path), die.value


def test_a_die_cut_by_the_frames_edge_in_a_real_photo_is_asked(
    real_fixtures: Path, reader: DiceReader
) -> None:
    img, value = photo(real_fixtures)
    x0, y0, x1, y1 = DIE
    cut = (x0 + x1) // 2
    half = img[:, cut:].copy()
    near = [r for r in reader.read(half) if r.center[0] < x1 - cut + 5 and y0 <= r.center[1] <= y1]
    assert near, "the half die is still found"
    assert all(r.confidence < ASK for r in near)  # before issue 35: a 2 at 0.93, scored unasked
    # the same die whole, away from the edge, is read as before: right and sure
    whole = [r for r in reader.read(img) if x0 <= r.center[0] <= x1 and y0 <= r.center[1] <= y1]
    assert [r.value for r in whole] == [value] and whole[0].confidence >= ASK


def test_the_edge_rule_is_a_die_box_reaching_the_frame() -> None:
    assert cut_by_edge(Candidate((10.0, 100.0), 30.0, 30.0, 1.0), 640, 480)
    assert cut_by_edge(Candidate((320.0, 465.0), 30.0, 30.0, 1.0), 640, 480)
    assert not cut_by_edge(Candidate((320.0, 240.0), 30.0, 30.0, 1.0), 640, 480)
    assert not cut_by_edge(Candidate((20.0, 20.0), 30.0, 30.0, 1.0), 640, 480)  # 5 px clear


def test_neighbouring_views_wrap_round_the_directions() -> None:
    views = hypotheses(1280, 960)
    assert len(views) == len(TILTS) * len(TOWARDS)
    assert {round(v.tilt_deg) for v in views} == {15, 30, 40, 50, 60}
    first = neighbours(0)  # 15 degrees, towards 0: tilts 15 and 30, towards 315, 0 and 45
    assert sorted(first) == sorted([7, 0, 1, 15, 8, 9])
    middle = neighbours(2 * len(TOWARDS) + 3)
    assert len(middle) == 9 and 2 * len(TOWARDS) + 3 in middle


@pytest.mark.parametrize("scene", [7, 9])
def test_steeply_seen_far_dice_without_a_calibration_are_asked_not_scored(scene: int) -> None:
    """Scenes 7 and 9 of the tuning seed, camera 59-60 degrees off vertical: before issue 35 the tilt
    estimated from the dice read three far dice wrong at 0.91-0.96 (a 5 as 4, a 4 as 2, a 6 as 4)."""
    img, truth = make_scene(scene, STEEP_TUNE_SEED, STEEP)
    assert truth["camera"]["tilt_deg"] > 55
    readings = DiceReader(estimate_view=True).read(img)
    for r in readings:
        x, y = r.center
        boxes = [(d["box_px"], d["value"]) for d in truth["dice"]]
        on = [v for (x0, y0, x1, y1), v in boxes if x0 <= x <= x1 and y0 <= y <= y1]
        if r.confidence >= ASK:
            assert on and r.value == on[0], (r, on)
    assert any(r.confidence <= UNSURE for r in readings)


@pytest.mark.parametrize(("tilt", "towards"), [(0.0, 0.0), (35.0, 90.0), (55.0, 200.0)])
def test_the_dice_sizes_tell_the_cameras_tilt(tilt: float, towards: float) -> None:
    """Dice of one size on a plane seen by a camera tilted `tilt` degrees: their sizes alone give the
    tilt back (exact sides here; the reader's boxes are noisier, hence only a check)."""
    k = np.array([[1000.0, 0.0, 640.0], [0.0, 1000.0, 480.0], [0.0, 0.0, 1.0]])
    down = View.from_tilt(tilt, towards, k).down
    rng = np.random.default_rng(3)
    px = rng.uniform((100, 100), (1180, 860), (6, 2))
    rays = np.column_stack([px, np.ones(len(px))]) @ np.linalg.inv(k).T
    depth = (500.0 / (rays @ down)) * rays[:, 2]  # the plane d . X = 500 mm
    sides = 1000.0 * 16.0 / depth  # a 16 mm die
    told = size_tilt(px, sides, k)
    assert told is not None and abs(told - tilt) < 1.0
    assert size_tilt(px[:2], sides[:2], k) is None  # two dice tell nothing
