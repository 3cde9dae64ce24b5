"""Camera calibration files and ChArUco calibration on rendered views with known intrinsics."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import (
    CalibrationError,
    CameraCalibration,
    CharucoSpec,
    calibrate_charuco,
    load_calibration,
    pi_camera3_calibration,
    save_calibration,
)
from training.render.synthetic import look_at, render_plane


def test_pi_camera_module_3_intrinsics_at_1280x960() -> None:
    cal = pi_camera3_calibration(1280, 960)
    # 4.74 mm / (1.4 um * 3456 / 1280) = 1253.97 px; the centre of the frame.
    assert cal.camera_matrix[0, 0] == pytest.approx(1253.97, abs=0.01)
    assert cal.camera_matrix[1, 1] == pytest.approx(1253.97, abs=0.01)
    assert (cal.camera_matrix[0, 2], cal.camera_matrix[1, 2]) == (640.0, 480.0)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    cal = pi_camera3_calibration()
    p = tmp_path / "cal.json"
    save_calibration(cal, p)
    back = load_calibration(p)
    assert np.allclose(back.camera_matrix, cal.camera_matrix) and back.image_size == (1280, 960)


def test_scaled_to_another_frame_size_and_refused_for_another_aspect() -> None:
    cal = pi_camera3_calibration(1280, 960)
    half = cal.for_image(640, 480)
    assert half.camera_matrix[0, 0] == pytest.approx(cal.camera_matrix[0, 0] / 2)
    with pytest.raises(CalibrationError, match="aspect"):
        cal.for_image(1920, 1080)


def good() -> dict[str, object]:
    return json.loads(json.dumps(pi_camera3_calibration().to_json()))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"camera_matrix": [[1, 0], [0, 1]]}, "camera_matrix"),
        ({"camera_matrix": [[-5, 0, 640], [0, 900, 480], [0, 0, 1]]}, "camera_matrix"),
        ({"camera_matrix": [[900, 0, 4000], [0, 900, 480], [0, 0, 1]]}, "camera_matrix"),
        ({"dist_coeffs": [0.1, 0.2, 0.3]}, "dist_coeffs"),
        ({"dist_coeffs": "none"}, "dist_coeffs"),
        ({"image_size": ["1280", 960]}, "image_size"),
        ({"reprojection_error": -1}, "reprojection_error"),
        ({"board_pose": {"board": "x", "rvec": [0, 0], "tvec": [0, 0, 500]}}, "board_pose.rvec"),
    ],
)
def test_wrong_values_name_the_file_and_field(tmp_path: Path, change: dict[str, object], field: str) -> None:
    data = good()
    data.update(change)
    p = tmp_path / "cal.json"
    p.write_text(json.dumps(data))
    with pytest.raises(CalibrationError) as e:
        load_calibration(p)
    assert str(p) in str(e.value) and repr(field) in str(e.value)


def test_corrupt_and_missing_files(tmp_path: Path) -> None:
    p = tmp_path / "cal.json"
    p.write_bytes(b"\x89PNG\r\n not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration(p)
    p.write_text("{}")
    with pytest.raises(CalibrationError, match="'camera_matrix': missing"):
        load_calibration(p)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "nope.json")


@pytest.mark.slow
def test_charuco_views_recover_known_intrinsics_and_distortion(tmp_path: Path) -> None:
    k = np.array([[1000.0, 0, 652.0], [0, 1000.0, 471.0], [0, 0, 1]])
    truth = CameraCalibration(k, np.array([-0.12, 0.05, 0.0, 0.0, 0.0]), (1280, 960))
    spec = CharucoSpec()
    ppm = 4.0
    sheet = spec.image(px_per_mm=ppm, margin_mm=0.0)
    centre = (spec.squares_x * spec.square_mm / 2, spec.squares_y * spec.square_mm / 2, 0.0)
    rng = np.random.default_rng(7)
    views = []
    for i in range(9):
        tilt = np.radians(rng.uniform(10, 35))
        az = rng.uniform(0, 2 * np.pi)
        dist = rng.uniform(330, 420)
        cam = np.array(centre) + dist * np.array(
            [np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az), -np.cos(tilt)]
        )
        aim = np.array(centre) + np.array([rng.uniform(-40, 40), rng.uniform(-30, 30), 0])
        r, t = look_at(cam, aim, rng.uniform(-20, 20))
        views.append((f"view{i}", render_plane(sheet, ppm, r, t, truth)))
    res = calibrate_charuco(views, spec)
    got = res.calibration
    assert res.views_used >= 8
    assert got.reprojection_error < 0.5
    assert got.camera_matrix[0, 0] == pytest.approx(1000.0, rel=0.01)
    assert got.camera_matrix[1, 1] == pytest.approx(1000.0, rel=0.01)
    assert got.camera_matrix[0, 2] == pytest.approx(652.0, abs=6)
    assert got.camera_matrix[1, 2] == pytest.approx(471.0, abs=6)
    assert got.dist_coeffs[0] == pytest.approx(-0.12, abs=0.03)

    # The same views through `dicetable calibrate camera`, as files.
    import cv2
    import typer
    from typer.testing import CliRunner

    from controller.cli_calibration import register

    app = typer.Typer()
    register(app)
    files = []
    for name, img in views[:5]:
        files.append(str(tmp_path / f"{name}.png"))
        cv2.imwrite(files[-1], img)
    out = tmp_path / "cal.json"
    res = CliRunner().invoke(app, ["calibrate", "camera", *files, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "5 views, reprojection error" in res.output
    assert load_calibration(out).camera_matrix[0, 0] == pytest.approx(1000.0, rel=0.02)


def test_too_few_usable_views_is_a_clear_error() -> None:
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match=r"need at least 3 views.*rejected: \['a', 'b'\]"):
        calibrate_charuco([("a", blank), ("b", blank)])
