"""The nadir (the point below the camera) for the top-face net: from a board pose, or fitted to dice."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import pi_camera3_calibration
from training.render.numbered.scenes import nadir_px, window_nadir
from training.render.synthetic import look_at, project
from vision.numbered.reader import MODELS, NumberedReader
from vision.numbered.topface import (
    F_SIDE,
    KAPPA,
    MAX_TILT,
    TILT_SIGMA,
    TOP_NADIR_FILE,
    nadir_fit,
    nadir_from_pose,
    nadir_ray,
)

W, H = 1280, 960
F = F_SIDE * W


def _camera(tilt_deg: float, az_deg: float, height: float = 600.0) -> tuple[np.ndarray, np.ndarray]:
    off = height * math.tan(math.radians(tilt_deg))
    a = math.radians(az_deg)
    return look_at([off * math.cos(a), off * math.sin(a), -height], [0.0, 0.0, 0.0], 3.0)


@pytest.mark.parametrize(("tilt", "az"), [(0.0, 0.0), (12.0, 40.0), (30.0, 200.0)])
def test_the_nadir_from_a_board_pose_is_where_vertical_edges_meet(tilt: float, az: float) -> None:
    r, t = _camera(tilt, az)
    k = pi_camera3_calibration(W, H).camera_matrix
    rvec, _ = cv2.Rodrigues(r)
    n = nadir_from_pose(rvec.ravel(), k)
    assert n == pytest.approx(nadir_px(r, k), abs=1e-9)
    # the camera looks straight down at no tilt: the nadir is the frame's centre
    assert (math.dist(n, (W / 2, H / 2)) < 1e-6) == (tilt == 0.0)
    f = k[0, 0]
    assert math.dist(n, (W / 2, H / 2)) == pytest.approx(f * math.tan(math.radians(tilt)), abs=1e-6)
    for x, y in [(-60.0, 30.0), (80.0, 55.0), (5.0, -70.0)]:
        foot, top = project(np.array([[x, y, 0.0], [x, y, -20.0]]), r, t, k)
        towards, up = np.subtract(n, foot), top - foot
        assert abs(towards[0] * up[1] - towards[1] * up[0]) < 1e-6 * np.linalg.norm(towards) * np.linalg.norm(
            up
        )
        assert np.dot(towards, up) < 0  # the top leans away from the nadir


def test_the_training_windows_nadir_is_replayed_from_the_seed() -> None:
    a = window_nadir(np.random.default_rng([9, 3]))
    assert a == window_nadir(np.random.default_rng([9, 3]))
    assert a != window_nadir(np.random.default_rng([9, 4]))


def _dice(nadir: tuple[float, float], kappa: float, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """Dice laid out on the frame whose top faces sit exactly where the model puts them."""
    rng = np.random.default_rng(seed)
    boxes = np.column_stack([rng.uniform(80, W - 80, n), rng.uniform(80, H - 80, n)])
    sides = rng.uniform(40, 70, n)
    tops = boxes + kappa * sides[:, None] * (boxes - np.array(nadir)) / F
    return boxes, tops, sides


@pytest.mark.parametrize("nadir", [(640.0, 480.0), (900.0, 300.0), (250.0, 820.0)])
def test_the_fit_finds_the_nadir_of_dice_that_follow_the_model(nadir: tuple[float, float]) -> None:
    boxes, tops, sides = _dice(nadir, KAPPA, 40, 1)
    got = nadir_fit(boxes, tops, sides, np.ones(40), W, H)[:2]
    # the priors (kappa, and the frame's centre) pull it by a few pixels with 40 dice
    assert math.dist(got, nadir) < 0.005 * F


def test_dice_whose_top_face_is_off_their_axis_count_little() -> None:
    nadir = (900.0, 300.0)
    boxes, tops, sides = _dice(nadir, KAPPA, 12, 2)
    # three dice (a d10's tilted kite, a misfound face) with their top face 0.3 of the box astray
    tops[:3] += np.array([[0.3, 0.0], [0.0, -0.3], [-0.2, 0.2]]) * sides[:3, None]
    robust = nadir_fit(boxes, tops, sides, np.ones(12), W, H)[:2]
    plain = nadir_fit(boxes, tops, sides, np.ones(12), W, H, iterations=1)[:2]
    assert math.dist(robust, nadir) < 0.01 * F
    assert math.dist(plain, nadir) > 3 * math.dist(robust, nadir)
    # a die with weight 0 is ignored altogether
    ignored = nadir_fit(boxes, tops, sides, np.array([0.0] * 3 + [1.0] * 9), W, H)[:2]
    assert ignored == pytest.approx(nadir_fit(boxes[3:], tops[3:], sides[3:], np.ones(9), W, H)[:2], abs=1e-6)


def test_no_dice_or_a_die_with_nothing_to_tell_gives_the_frame_centre() -> None:
    empty = np.zeros((0, 2))
    centre = pytest.approx((W / 2, H / 2), abs=1e-9)
    assert nadir_fit(empty, empty, np.zeros(0), np.zeros(0), W, H)[:2] == centre
    one = np.array([[W / 2, H / 2]])
    assert nadir_fit(one, one, np.array([50.0]), np.ones(1), W, H)[:2] == centre


def test_the_spread_says_how_sure_the_fit_is() -> None:
    empty = np.zeros((0, 2))
    assert nadir_fit(empty, empty, np.zeros(0), np.zeros(0), W, H)[2] == pytest.approx(TILT_SIGMA)
    spreads = []
    for n in (1, 3, 10, 40):
        boxes, tops, sides = _dice((900.0, 300.0), KAPPA, n, 4)
        spreads.append(nadir_fit(boxes, tops, sides, np.ones(n), W, H)[2])
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[0] < TILT_SIGMA and spreads[-1] < 0.06


def test_the_fit_is_kept_within_max_tilt_of_the_centre() -> None:
    far = (W / 2 + 1.5 * F, H / 2)
    boxes, tops, sides = _dice(far, KAPPA, 30, 3)
    got = nadir_fit(boxes, tops, sides, np.ones(30), W, H)[:2]
    assert math.dist(got, (W / 2, H / 2)) == pytest.approx(MAX_TILT * F, abs=1e-6)
    assert got[0] > W / 2 and got[1] == pytest.approx(H / 2, abs=0.5)


def test_the_nadir_ray_is_the_die_from_the_nadir_over_f() -> None:
    assert nadir_ray(W / 2 + F * 0.2, H / 2, (W / 2, H / 2), W, H) == pytest.approx((0.2, 0.0))
    assert nadir_ray(100.0, 200.0, (100.0 - F * 0.1, 200.0 + F * 0.3), W, H) == pytest.approx((0.1, -0.3))


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match=r"nadir_fit: expected as many boxes.*3, 2"):
        nadir_fit(np.zeros((3, 2)), np.zeros((2, 2)), np.ones(3), np.ones(3), W, H)
    k = pi_camera3_calibration(W, H).camera_matrix
    with pytest.raises(ValueError, match=r"rvec: expected 3 finite numbers"):
        nadir_from_pose([0.0, 1.0], k)
    with pytest.raises(ValueError, match=r"camera_matrix: expected a finite 3 x 3"):
        nadir_from_pose([0.0, 0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match=r"rvec: the camera looks along the table"):
        nadir_from_pose([math.pi / 2, 0.0, 0.0], k)


@pytest.fixture(scope="module")
def nadir_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder with a nadir-aware top-face net (here the older net's file: same inputs)."""
    d = tmp_path_factory.mktemp("models")
    for name in ("numbered_detector.onnx", "numbered_classifier.onnx", "numbered_topface.onnx"):
        shutil.copy(MODELS / name, d / name)
    shutil.copy(MODELS / "numbered_topface.onnx", d / TOP_NADIR_FILE)
    return d


def test_the_reader_takes_a_nadir_and_rejects_a_bad_one(nadir_models: Path) -> None:
    reader = NumberedReader(models=nadir_models)
    assert reader.has_nadir_net
    img = np.full((240, 320, 3), 120, np.uint8)
    cv2.rectangle(img, (140, 100), (175, 135), (30, 30, 200), -1)
    assert isinstance(reader.read(img, nadir=(160.0, 120.0)), list)
    with pytest.raises(ValueError, match=r"nadir: expected two numbers"):
        reader.read(img, nadir=(1.0,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"nadir: expected finite frame pixels"):
        reader.read(img, nadir=(float("nan"), 3.0))
    with pytest.raises(FileNotFoundError, match=r"top_face_nadir.*nope\.onnx"):
        NumberedReader(top_face_nadir=nadir_models / "nope.onnx")
    assert not NumberedReader().has_nadir_net or (MODELS / TOP_NADIR_FILE).is_file()


def test_the_nadir_net_sees_each_die_from_the_nadir(nadir_models: Path) -> None:
    """With the nadir given, the net's view planes are the dice's rays from it (the same net and
    dice read with the nadir at the frame's centre give the older net's rays, so the same)."""
    from vision.numbered.reader import Found

    reader = NumberedReader(models=nadir_models, estimate_nadir=False)
    img = np.random.default_rng(0).integers(0, 255, (480, 640, 3), np.uint8)
    found = [
        Found((100.0, 120.0), 40.0, 44.0, 0.9, (102.0, 118.0)),
        Found((500.0, 300.0), 50.0, 50.0, 0.8, (498.0, 310.0)),
    ]
    old = reader.locate(img, found)  # no nadir, not estimating: the older net, rays from the centre
    centred = reader.locate(img, found, nadir=(320.0, 240.0))
    assert np.allclose([f.center for f in centred], [f.center for f in old], atol=1e-3)
    moved = reader.locate(img, found, nadir=(320.0 + 0.4 * F_SIDE * 640, 240.0))
    assert any(math.dist(a.center, b.center) > 1e-3 for a, b in zip(moved, old, strict=True))
    # estimated: each die's nadir from the other die; the spread decides which net reads it
    est = NumberedReader(models=nadir_models, max_spread=0.0)
    located, nadirs = est.locate_nadir(img, found)
    assert nadirs == [None, None]  # no fit is that sure: the older net read both
    assert np.allclose([f.center for f in located], [f.center for f in old], atol=1e-3)
    located, nadirs = NumberedReader(models=nadir_models, max_spread=None).locate_nadir(img, found)
    assert nadirs is not None and all(n is not None for n in nadirs)


@pytest.mark.parametrize(
    ("board_name", "tilt", "az"), [("dice-fighter", 25.0, 30.0), ("dicetar-wars", 15.0, 200.0)]
)
def test_a_calibrated_board_pose_gives_the_nadir_to_a_pixel(board_name: str, tilt: float, az: float) -> None:
    """What the table's calibration knows: the nadir from the board pose found in a frame."""
    from calibration.board import load_board
    from calibration.pose import estimate_board_pose
    from calibration.printing import render_board_image
    from training.render.synthetic import Light, render_scene

    board = load_board(board_name)
    x0, y0, x1, y1 = board.bounds()
    target = ((x0 + x1) / 2, (y0 + y1) / 2)
    off, a = 600 * math.tan(math.radians(tilt)), math.radians(az)
    r, t = look_at(
        [target[0] + off * math.cos(a), target[1] + off * math.sin(a), -600.0], [*target, 0.0], 3.0
    )
    cal = pi_camera3_calibration()
    light = Light(np.array([0.3, 0.2, -0.93]) / np.linalg.norm([0.3, 0.2, -0.93]))
    img, _ = render_scene(render_board_image(board, 3.0), 3.0, [], r, t, cal, light, np.random.default_rng(0))
    pose = estimate_board_pose(img, cal, board)
    got = nadir_from_pose(pose.rvec, cal.camera_matrix)
    assert math.dist(got, nadir_px(r, cal.camera_matrix)) < 1.0
