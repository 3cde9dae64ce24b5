"""The pixels checked before play (issue 43, item 4): hw-check tells the die's size in pixels at the
board's centre and corners in the still and the video frame, and warns in one sentence when a numbered
die would be under the numbered reader's minimum."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from controller.cli import app
from vision.numbered.ocr import MIN_SIDE

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "boards" / "dice-fighter.example.toml"
runner = CliRunner()


def _hw_check(tmp_path: Path, game: str, still: str) -> tuple[int, str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    cfg = tmp_path / "table.toml"
    camera = f'[camera]\nsource = "v4l2:0"\nstill = "{still}"\n\n'
    cfg.write_text(f'[table]\ngame = "{game}"\n\n{camera}[dice]\nsizes_mm = [16, 20]\n', encoding="utf-8")
    res = runner.invoke(
        app, ["hw-check", "--fake", "--config", str(cfg), "--board", str(BOARD), "--out", str(tmp_path / "o")]
    )
    return res.exit_code, res.output


def _sides(output: str, what: str) -> list[float]:
    (line,) = [x for x in output.splitlines() if x.startswith(f"ok: die size: a 16 mm die in the {what} ")]
    assert all(p in line for p in ("centre", "top-left corner", "bottom-right corner")), line
    return [float(v) for v in re.findall(r"(?:centre|corner) (\d+)", line)]


def test_hw_check_tells_the_die_size_in_the_still_and_the_video_frame(tmp_path: Path) -> None:
    """The fake camera sees the printed board at 2 px a mm: a 16 mm die ~32 px in its 1120x760 frame,
    ~4.1 times that in a 4608-wide still: enough for the numbered reader, nothing to warn of."""
    code, out = _hw_check(tmp_path, "die-angler", "4608x3456")
    assert code == 0, out
    video, still = _sides(out, "video frame"), _sides(out, "still")
    assert len(video) == len(still) == 5
    assert all(28 <= v <= 40 for v in video), video
    assert all(abs(s / v - 4608 / 1120) < 0.2 for s, v in zip(still, video, strict=True))
    assert min(still) >= MIN_SIDE and "move the camera" not in out


def test_hw_check_warns_in_one_sentence_when_a_numbered_die_is_too_small(tmp_path: Path) -> None:
    code, out = _hw_check(tmp_path, "die-angler", "2240x1520")
    assert code == 1
    (warning,) = [x for x in out.splitlines() if "under the reader's" in x]
    assert warning.startswith("PROBLEM: a numbered die would be ")
    assert "in the still (2240x1520)" in warning and f"under the reader's {MIN_SIDE:.0f} px" in warning
    assert re.search(r'move the camera to \d+ cm, or set `\[camera\] still = "max"`$', warning), warning
    # a game of pip dice alone: the same pixels, nothing to warn of
    code, out = _hw_check(tmp_path / "pips", "dice-hunter", "2240x1520")
    assert code == 0 and "under the reader's" not in out and "ok: die size: a 16 mm die in the still" in out


def test_the_table_page_is_given_the_die_size_in_the_still_and_the_video_frame() -> None:
    """The Dice Fighter demo's board and calibration (1280x960 renders): its percentile d10s ~40 px in
    the video frame, under the reader's minimum; a 4608-wide still of the same view makes them ~3.6
    times larger, and the warning goes."""
    import json

    import cv2

    from controller.perceive import Perceiver
    from controller.pixels import table_pixels
    from controller.session import session_config

    fighter = ROOT / "tests" / "fixtures" / "sessions" / "dice-fighter-demo"
    cfg = session_config(fighter)
    frame = cv2.imread(str(fighter / json.loads((fighter / "truth.json").read_text())["throws"][0]["frame"]))
    geometry = Perceiver.from_config(cfg).geometry
    video = table_pixels(geometry, frame, None, [16.0], numbered=True)
    assert video is not None and [v["what"] for v in video["views"]] == ["video frame"]
    sides = list(video["views"][0]["sides"].values())
    assert len(sides) == 5 and all(15 < s < MIN_SIDE for s in sides), sides
    assert video["small"]["what"] == "video frame" and video["small"]["side"] < MIN_SIDE
    assert 'or set `[camera] still = "max"`' in video["warning"]
    still = table_pixels(geometry, frame, (4608, 3456), [16.0], numbered=True)
    assert still is not None and [v["what"] for v in still["views"]] == ["still", "video frame"]
    big = list(still["views"][0]["sides"].values())
    assert all(abs(b / s - 3.6) < 0.05 for b, s in zip(big, sides, strict=True))
    assert still["warning"] is None and still["small"] is None
    # pip dice alone: the same pixels, nothing to warn of
    assert table_pixels(geometry, frame, None, [16.0], numbered=False)["warning"] is None  # type: ignore[index]
