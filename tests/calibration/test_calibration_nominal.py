"""`dicetable calibrate camera --nominal NAME`: datasheet intrinsics good enough to place dice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from calibration.camera import CalibrationError, CameraCalibration, load_calibration, pi_camera3_calibration
from calibration.nominal import CAMERAS, nominal_calibration
from calibration.pose import estimate_board_pose
from controller.cli_calibration import register


@pytest.fixture
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)
    return a


def test_the_pi_camera_3_datasheet_gives_the_intrinsics_the_renders_use() -> None:
    got, want = nominal_calibration("pi-camera-3", 1280, 960), pi_camera3_calibration(1280, 960)
    assert np.allclose(got.camera_matrix, want.camera_matrix)


@pytest.mark.parametrize(
    ("name", "axis", "fov"),
    # the datasheets' fields of view: Pi Camera 2 62.2° x 48.8° (4:3, the whole sensor); Pi Camera 3
    # 66° x 41° and 3 Wide 102° x 67° at 16:9, whose 4:3 output keeps the height (so the 41° / 67°)
    [
        ("pi-camera-2", 0, 62.2),
        ("pi-camera-2", 1, 48.8),
        ("pi-camera-3", 1, 41.0),
        ("pi-camera-3-wide", 1, 67.0),
    ],
)
def test_each_camera_sees_the_field_of_view_its_datasheet_gives(name: str, axis: int, fov: float) -> None:
    cal = nominal_calibration(name, 1280, 960)
    half = (640, 480)[axis]
    got = np.degrees(2 * np.arctan(half / cal.camera_matrix[axis, axis]))
    assert got == pytest.approx(fov, abs=1.0)


def test_a_webcam_by_its_diagonal_field_of_view() -> None:
    cal = nominal_calibration("webcam-78", 1920, 1080)
    diag = np.degrees(2 * np.arctan(np.hypot(960, 540) / cal.camera_matrix[0, 0]))
    assert diag == pytest.approx(78.0) and tuple(cal.camera_matrix[:2, 2]) == (960, 540)


def test_a_datasheet_two_percent_off_still_places_board_points_within_a_millimetre(  # type: ignore[no-untyped-def]
    make_scene, dicetar_board
) -> None:
    scene = make_scene(dicetar_board, (230, 140, -640), (210, 150), roll=3)  # the lens as built
    nominal = nominal_calibration("pi-camera-3", 1280, 960)
    off = CameraCalibration(nominal.camera_matrix * [[1.02], [1.02], [1]], nominal.dist_coeffs, (1280, 960))
    pose = estimate_board_pose(scene.image, off, dicetar_board)  # the markers fix the pose
    grid = np.array([[x, y] for x in (60, 210, 360) for y in (50, 150, 250)], np.float64)
    px = scene.px(np.column_stack([grid, np.zeros(len(grid))]))
    assert np.abs(pose.backproject(px, 0.0, off) - grid).max() < 1.0


def test_the_cli_writes_a_calibration_file_and_names_the_cameras_it_knows(
    app: typer.Typer, tmp_path: Path
) -> None:
    out = tmp_path / "cal.json"
    res = CliRunner().invoke(
        app, ["calibrate", "camera", "--nominal", "pi-hq-16mm", "--size", "2028x1520", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    cal = load_calibration(out)
    assert cal.image_size == (2028, 1520) and cal.camera_matrix[0, 0] == pytest.approx(
        16 / 1.55e-3 / 2, rel=1e-3
    )
    res = CliRunner().invoke(app, ["calibrate", "camera", "--nominal", "pi-camera-9", "--out", str(out)])
    assert res.exit_code == 2 and "pi-camera-9" in res.output and all(n in res.output for n in CAMERAS)
    res = CliRunner().invoke(
        app, ["calibrate", "camera", "--nominal", "webcam-78", "--size", "big", "--out", str(out)]
    )
    assert res.exit_code == 2 and "WIDTHxHEIGHT" in res.output
    res = CliRunner().invoke(app, ["calibrate", "camera", "--out", str(out)])
    assert res.exit_code == 2 and "--nominal" in res.output


def test_an_impossible_field_of_view_is_refused() -> None:
    with pytest.raises(CalibrationError, match="20-170"):
        nominal_calibration("webcam-190", 640, 480)
