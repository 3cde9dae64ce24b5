"""One image-size guard for every command that reads images (issue 47, item 7): a picture whose header
claims too many pixels is refused with a message naming the file, before a pixel is decoded, by
`learn-dice see`, `read --empty`, a table.toml's empty-table frame (`run`, `read --config`) and the
calibration commands; the command's memory stays far below what decoding would take."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests import peak_memory
from tests.controller.test_hostile_inputs import png_claiming

ROOT = Path(__file__).resolve().parents[2]
#: far below the 1.2 GB a 20000 x 20000 picture takes decoded (BGR), above what the CLI itself takes
MAX_RSS_MB = 900


def jpeg_claiming(width: int, height: int) -> bytes:
    """A JPEG of a few bytes whose frame header (SOF0) says width x height."""
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + sof + b"\xff\xd9"


def measured(*args: str) -> tuple[int, str, int]:
    """``dicetable ARGS``: (exit code, stdout + stderr, the command's own peak memory in MB)."""
    rc, out, mb, _ = peak_memory.measured(*args)
    return rc, out, mb


@pytest.fixture
def huge(tmp_path: Path) -> dict[str, Path]:
    files = {"png": tmp_path / "huge.png", "jpg": tmp_path / "huge.jpg"}
    files["png"].write_bytes(png_claiming(20_000, 20_000))  # 1.2 GB decoded
    files["jpg"].write_bytes(jpeg_claiming(65_000, 65_000))  # OpenCV's own error, a traceback before
    return files


def _refused(rc: int, out: str, mb: int, path: Path) -> None:
    assert rc != 0, out
    assert "Traceback" not in out and "cv2.error" not in out, out
    assert str(path) in out.replace("\n", "") and "megapixels" in out, out
    assert mb < MAX_RSS_MB, f"{mb} MB"


@pytest.mark.parametrize("fmt", ["png", "jpg"])
def test_learn_dice_see_refuses_a_huge_image_naming_it(
    fmt: str, huge: dict[str, Path], tmp_path: Path
) -> None:
    path = huge[fmt]
    rc, out, mb = measured(
        "learn-dice", "see", str(path), "--set", "red", "--kind", "d20", "--session", str(tmp_path / "s")
    )
    _refused(rc, out, mb, path)


def test_learn_dice_see_refuses_a_huge_empty_table(huge: dict[str, Path], tmp_path: Path) -> None:
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.full((120, 160, 3), 90, np.uint8))
    rc, out, mb = measured(
        "learn-dice", "see", str(frame), "--set", "red", "--kind", "d20",
        "--session", str(tmp_path / "s"), "--empty", str(huge["png"]),
    )  # fmt: skip
    _refused(rc, out, mb, huge["png"])


def test_read_refuses_a_huge_empty_table(huge: dict[str, Path], tmp_path: Path) -> None:
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.full((120, 160, 3), 90, np.uint8))
    rc, out, mb = measured("read", str(frame), "--empty", str(huge["png"]))
    _refused(rc, out, mb, huge["png"])


def test_a_configured_empty_table_frame_too_large_is_refused(huge: dict[str, Path], tmp_path: Path) -> None:
    from controller.where import load_empty_frame

    with pytest.raises(ValueError, match="megapixels"):
        load_empty_frame(huge["jpg"])
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        f'[vision]\nempty_table = true\nempty_table_frame = "{huge["png"]}"\n'
        f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n',
        encoding="utf-8",
    )
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.full((120, 160, 3), 90, np.uint8))
    rc, out, mb = measured("read", str(frame), "--config", str(cfg))
    _refused(rc, out, mb, huge["png"])


def test_calibrate_empty_refuses_a_huge_frame(huge: dict[str, Path], tmp_path: Path) -> None:
    rc, out, mb = measured("calibrate", "empty", str(huge["jpg"]), "--out", str(tmp_path / "e.png"))
    _refused(rc, out, mb, huge["jpg"])


def test_the_learnt_empty_picture_and_a_crop_are_read_through_the_guard(
    huge: dict[str, Path], tmp_path: Path
) -> None:
    from controller.corrections import _decoded
    from controller.empty_learn import load_learnt

    assert load_learnt(huge["png"], None) is None  # logged and learnt again, never decoded
    assert _decoded(huge["jpg"].read_bytes()) is None
    ok, buf = cv2.imencode(".jpg", np.full((40, 40, 3), 128, np.uint8))
    crop = _decoded(buf.tobytes())
    assert ok and crop is not None and crop.shape == (40, 40, 3)
