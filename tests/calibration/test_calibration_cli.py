"""The calibration area's commands: board print/check, calibrate pose/check/colours, charuco sheet."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from calibration.board import load_board
from calibration.camera import load_calibration, save_calibration
from calibration.pose import detect_markers
from calibration.printing import FULL_STRIP_MM
from controller.cli_calibration import register

runner = CliRunner()


@pytest.fixture
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)
    return a


def png_ppm(data: bytes) -> int:
    i = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[i + 4 : i + 13])
    assert unit == 1 and x == y
    return x


def test_board_print_png_is_true_scale_with_readable_markers(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "dw.png"
    res = runner.invoke(app, ["board", "print", "dicetar-wars", "--out", str(out), "--px-per-mm", "4"])
    assert res.exit_code == 0, res.output
    assert "EXAMPLE" in res.output
    data = out.read_bytes()
    assert png_ppm(data) == 4000  # 4 px/mm = 4000 px/m: prints at true size
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == ((297 + FULL_STRIP_MM) * 4, 420 * 4)  # the board, then the ruler's strip
    board = load_board("dicetar-wars")
    assert sorted(detect_markers(img, board)) == [m.id for m in board.markers]


def test_board_print_pdf_page_is_the_board_size(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "df.pdf"
    res = runner.invoke(app, ["board", "print", "dice-fighter", "--out", str(out), "--px-per-mm", "2"])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert box is not None
    assert float(box.group(1)) == pytest.approx(560 / 25.4 * 72, abs=0.1)
    assert float(box.group(2)) == pytest.approx((380 + FULL_STRIP_MM) / 25.4 * 72, abs=0.1)
    # The image stream holds the whole board, and the cross-reference table points at each object.
    import zlib

    head = re.search(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data)
    assert head is not None
    w, h, n = (int(v) for v in head.groups())
    assert (w, h) == (560 * 2, (380 + FULL_STRIP_MM) * 2)
    assert len(zlib.decompress(data[head.end() : head.end() + n])) == w * h * 3
    xref = int(data.rsplit(b"startxref", 1)[1].split()[0])
    offsets = [int(line[:10]) for line in data[xref:].split(b"\n")[3:8]]
    assert [data[o : o + 7] for o in offsets] == [f"{i} 0 obj".encode() for i in range(1, 6)]


def test_board_commands_refuse_bad_input_clearly(app: typer.Typer, tmp_path: Path) -> None:
    res = runner.invoke(app, ["board", "print", "dicetar-wars", "--out", str(tmp_path / "x.jpg")])
    assert res.exit_code == 2 and "expected a file name ending in .png or .pdf" in res.output
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[outline]\npolygon = [[0, 0], [1, 1]]\n')
    res = runner.invoke(app, ["board", "check", str(bad)])
    assert res.exit_code == 2 and "'outline', field 'polygon'" in res.output
    assert not (tmp_path / "x.jpg").exists()
    res = runner.invoke(app, ["board", "check", "dice-fighter"])
    assert res.exit_code == 0 and "12 markers" in res.output and "4 card slots" in res.output


def test_calibrate_pose_then_check_detects_a_moved_board(
    app: typer.Typer, tmp_path: Path, make_scene, fighter_board
) -> None:
    empty = make_scene(fighter_board, (300, 200, -700), (280, 190))
    cal_path = tmp_path / "cal.json"
    save_calibration(empty.cal, cal_path)
    frame = tmp_path / "empty.png"
    cv2.imwrite(str(frame), empty.image)
    res = runner.invoke(
        app, ["calibrate", "pose", str(frame), "--calibration", str(cal_path), "--board", "dice-fighter"]
    )
    assert res.exit_code == 0, res.output
    assert load_calibration(cal_path).board_pose is not None
    res = runner.invoke(
        app, ["calibrate", "check", str(frame), "--calibration", str(cal_path), "--board", "dice-fighter"]
    )
    assert res.exit_code == 0 and "in place" in res.output
    moved = make_scene(fighter_board, (306, 200, -700), (286, 190))
    cv2.imwrite(str(frame), moved.image)
    res = runner.invoke(
        app, ["calibrate", "check", str(frame), "--calibration", str(cal_path), "--board", "dice-fighter"]
    )
    assert res.exit_code == 1 and "has moved" in res.output


def test_calibrate_refuses_corrupt_images_and_files(app: typer.Typer, tmp_path: Path) -> None:
    junk = tmp_path / "frame.jpg"
    junk.write_bytes(b"not a jpeg")
    cal = tmp_path / "cal.json"
    cal.write_text("{")
    res = runner.invoke(
        app, ["calibrate", "pose", str(junk), "--calibration", str(cal), "--board", "dice-fighter"]
    )
    assert res.exit_code == 2 and "not a readable image" in res.output
    res = runner.invoke(app, ["calibrate", "camera", str(junk), "--out", str(tmp_path / "o.json")])
    assert res.exit_code == 2 and "not a readable image" in res.output
    good = tmp_path / "ok.png"
    cv2.imwrite(str(good), np.zeros((96, 128, 3), np.uint8))
    res = runner.invoke(
        app, ["calibrate", "pose", str(good), "--calibration", str(cal), "--board", "dice-fighter"]
    )
    assert res.exit_code == 2 and "not valid JSON" in res.output
    assert cal.read_text() == "{"  # nothing changed


def test_calibrate_colours_learns_a_palette_vision_can_load(
    app: typer.Typer, tmp_path: Path, make_scene, die, dicetar_board
) -> None:
    from vision.palette import Palette

    dice = [die(v, "red" if v % 2 else "green", 80 + 45 * v, 120 + 20 * (v % 3)) for v in range(1, 7)]
    throw = make_scene(dicetar_board, (210, 150, -520), (210, 150), cubes=dice)
    empty = make_scene(dicetar_board, (210, 150, -520), (210, 150))
    tp, ep, out = tmp_path / "throw.png", tmp_path / "empty.png", tmp_path / "palette.json"
    cv2.imwrite(str(tp), throw.image)
    cv2.imwrite(str(ep), empty.image)
    res = runner.invoke(
        app,
        [
            "calibrate",
            "colours",
            str(tp),
            "--empty",
            str(ep),
            "--colour",
            "red",
            "--colour",
            "green",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    import json

    data = json.loads(out.read_text())
    assert set(data) == {"red", "green"} and data["red"]["samples"] == 3 and data["green"]["samples"] == 3
    palette = Palette.from_dict(data)
    # Each die's measured top face is nearest its own colour in the learnt palette.
    from calibration.colours import face_samples

    for cube in dice:
        quad = throw.px(cube.face_corners(cube.top_value()))
        assert palette.nearest_lab(face_samples(throw.image, quad).mean(axis=0))[0] == cube.colour
    res = runner.invoke(
        app,
        [
            "calibrate",
            "colours",
            str(tp),
            "--empty",
            str(ep),
            "--colour",
            "mauve",
            "--out",
            str(tmp_path / "p2.json"),
        ],
    )
    assert res.exit_code == 2 and "unknown colour" in res.output and not (tmp_path / "p2.json").exists()


def test_charuco_sheet_prints_at_true_scale_and_is_detectable(app: typer.Typer, tmp_path: Path) -> None:
    from calibration.camera import CharucoSpec

    out = tmp_path / "charuco.png"
    res = runner.invoke(app, ["calibrate", "charuco", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert png_ppm(data) == 10000
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    small = cv2.resize(img, None, fx=0.3, fy=0.3, interpolation=cv2.INTER_AREA)
    _, ids, _, _ = cv2.aruco.CharucoDetector(CharucoSpec().board()).detectBoard(small)
    assert ids is not None and len(ids) == 6 * 4  # every inner chessboard corner of the 7x5 sheet
    res = runner.invoke(app, ["calibrate", "charuco", "--out", str(out), "--marker-mm", "40"])
    assert res.exit_code == 2 and "--marker-mm" in res.output
