"""The table reads a die only where a die can be ([vision] in table.toml, controller.where): each step
through the real Table, motion gate and reader on the Dice Hunter recorded session, on and off.

Something die-like is painted into every frame of the session (so into the empty table the gate sees
before the first throw as well): a white die left on the table, board art five times a die's size, a
die beyond a tray's edge. With the step on the table's first reading holds only the thrown dice; with
it off the painted thing is read as a die too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.config import TableConfig
from controller.eventlog import EventLog
from controller.live import load_script, play
from controller.session import session_config
from controller.table import Table, TableError
from hardware.drawn import draw_die
from hardware.frames import Frame, RecordedSource

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "dice-hunter-demo"
TRUTH = json.loads((FOLDER / "truth.json").read_text(encoding="utf-8"))
FIRST = TRUTH["settled"][0]  # the first throw: five dice, none near the bottom right corner
WHITE, BLACK = (235, 235, 235), (25, 25, 25)
#: a die in the bottom right corner (800 x 600 frames; the session's dice are about 50 px)
DIE_AT = (720.0, 530.0)


def left_die(img: np.ndarray) -> None:
    draw_die(img, DIE_AT, 50, 5, angle_deg=12, body_bgr=WHITE, pip_bgr=BLACK)


def board_art(img: np.ndarray) -> None:
    draw_die(img, (640, 470), 230, 6, angle_deg=4, body_bgr=WHITE, pip_bgr=BLACK)


class Painted:
    """The session's frames with `paint` applied to each; it ends after the table's first reading."""

    def __init__(self, paint: Any, table: Table) -> None:
        self.src, self.paint, self.table = RecordedSource(FOLDER), paint, table
        self.name = self.src.name

    def read(self) -> Frame | None:
        frame = None if self.table.reading_set is not None else self.src.read()
        if frame is None:
            return None
        img = frame.image_bgr.copy()
        self.paint(img)
        return Frame(img, frame.t, frame.source)


def first_reading(tmp_path: Path, paint: Any, **vision: Any) -> list[dict[str, Any]]:
    cfg = session_config(FOLDER)
    cfg = cfg.model_copy(update={"vision": cfg.vision.model_copy(update=vision)})
    table = Table(
        TableConfig.model_validate(cfg.model_dump()), EventLog(tmp_path / "w.sqlite3"), resume=False
    )
    table.pending = load_script(FOLDER / "script.jsonl")
    seen: list[list[dict[str, Any]]] = []
    table.reading_listeners.append(lambda rs, _exp: seen.append(rs.dice))
    try:
        play(table, Painted(paint, table))
    finally:
        table.log.close()
    assert seen, "the table never read a throw"
    return seen[0]


def near(readings: list[dict[str, Any]], xy: tuple[float, float], r: float = 40.0) -> list[int]:
    return [d["value"] for d in readings if np.hypot(d["center"][0] - xy[0], d["center"][1] - xy[1]) < r]


def thrown(readings: list[dict[str, Any]]) -> list[int]:
    return sorted(
        v for (v, _), xy in zip(FIRST["dice"], FIRST["centers"], strict=True) for v in near(readings, xy)
    )


def test_a_die_left_on_the_empty_table_is_not_read_with_the_empty_table_step(tmp_path: Path) -> None:
    off = first_reading(tmp_path / "off", left_die, empty_table=False)
    assert near(off, DIE_AT) == [5]
    on = first_reading(tmp_path / "on", left_die)  # on by default
    assert near(on, DIE_AT) == []
    assert thrown(on) == sorted(v for v, _ in FIRST["dice"])


def test_board_art_is_not_read_with_the_die_size_step(tmp_path: Path) -> None:
    off = first_reading(tmp_path / "off", board_art, empty_table=False, die_size=False, die_size_px=(30, 90))
    assert 6 in near(off, (640, 470), 60)
    on = first_reading(tmp_path / "on", board_art, empty_table=False, die_size_px=(30, 90))
    assert near(on, (640, 470), 60) == []
    assert thrown(on) == sorted(v for v, _ in FIRST["dice"])


def test_a_die_beyond_the_tray_is_not_read_with_the_play_area_step(tmp_path: Path) -> None:
    tray = [(20.0, 20.0), (780.0, 20.0), (780.0, 480.0), (20.0, 480.0)]
    off = first_reading(tmp_path / "off", left_die, empty_table=False, play_area=False, play_area_px=tray)
    assert near(off, DIE_AT) == [5]
    on = first_reading(tmp_path / "on", left_die, empty_table=False, play_area_px=tray)
    assert near(on, DIE_AT) == []
    assert thrown(on) == sorted(v for v, _ in FIRST["dice"])


def test_an_empty_table_frame_from_calibrate_empty_is_used_before_the_gate_sees_one(tmp_path: Path) -> None:
    """`dicetable calibrate empty` writes the frame; [vision] empty_table_frame names it; a table
    given a settled frame with no gate behind it (e.g. serve-fake) compares against it."""
    empty = cv2.imread(str(FOLDER / "00001.jpg"))  # the session starts on the empty table
    left_die(empty)
    path = tmp_path / "empty.png"
    from typer.testing import CliRunner

    from controller.cli import app

    shot = tmp_path / "shot.png"
    cv2.imwrite(str(shot), empty)
    res = CliRunner().invoke(app, ["calibrate", "empty", str(shot), "--out", str(path)])
    assert res.exit_code == 0, res.output
    assert "empty_table_frame" in res.output

    frame = cv2.imread(str(FOLDER / FIRST["file"]))
    left_die(frame)
    for on, want in ((False, [5]), (True, [])):
        cfg = session_config(FOLDER)
        vision = cfg.vision.model_copy(update={"empty_table": on, "empty_table_frame": str(path)})
        table = Table(
            cfg.model_copy(update={"vision": vision}), EventLog(tmp_path / f"{on}.sqlite3"), resume=False
        )
        table.tick(0.0)
        table.on_settled(frame, 1.0, 1.0)
        assert table.reading_set is not None
        assert near(table.reading_set.dice, DIE_AT) == want
        table.log.close()


def test_a_missing_empty_table_frame_is_named(tmp_path: Path) -> None:
    cfg = session_config(FOLDER)
    vision = cfg.vision.model_copy(update={"empty_table_frame": str(tmp_path / "nope.png")})
    with pytest.raises(TableError, match=r"vision.empty_table_frame .*nope.png.*calibrate empty"):
        Table(cfg.model_copy(update={"vision": vision}), EventLog(tmp_path / "x.sqlite3"), resume=False)
