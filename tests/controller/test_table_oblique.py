"""With a board and a calibration the table tells the pip reader where the camera looks from
([vision] rectify_oblique, vision.oblique), so dice seen obliquely are read by their top face;
switched off, it reads them by their boxes as before.  Through the real Table on the DICETAR WARS
recorded session (a board, a calibration, a tilted camera)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from controller.config import TableConfig
from controller.eventlog import EventLog
from controller.live import load_script, play
from controller.session import session_config
from controller.table import Table
from hardware.frames import Frame, RecordedSource
from vision.oblique import View
from vision.reader import default_reader

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "dicetar-wars-demo"


class UntilRead:
    """The session's frames until the table's first reading."""

    def __init__(self, table: Table) -> None:
        self.src, self.table = RecordedSource(FOLDER), table
        self.name = self.src.name

    def read(self) -> Frame | None:
        return None if self.table.reading_set is not None else self.src.read()


def views_given(tmp_path: Path, **vision_cfg: Any) -> list[Any]:
    cfg = session_config(FOLDER)
    cfg = cfg.model_copy(update={"vision": cfg.vision.model_copy(update=vision_cfg)})
    seen: list[Any] = []

    class Reader:  # the pip reader, telling which view it was given
        def read(self, image: np.ndarray, palette: Any = None, where: Any = (), view: Any = None) -> Any:
            return self.examine(image, palette, where, view).readings

        def examine(self, image: np.ndarray, palette: Any = None, where: Any = (), view: Any = None) -> Any:
            seen.append(view)
            return default_reader().examine(image, palette, where, view)

    table = Table(
        TableConfig.model_validate(cfg.model_dump()),
        EventLog(tmp_path / "w.sqlite3"),
        reader=Reader(),
        resume=False,
    )
    table.pending = load_script(FOLDER / "script.jsonl")
    try:
        play(table, UntilRead(table))
    finally:
        table.log.close()
    assert seen, "the table never read a throw"
    return seen


def test_the_table_gives_the_reader_the_view_from_the_board_pose(tmp_path: Path) -> None:
    on = views_given(tmp_path / "on")  # on by default
    assert all(isinstance(v, View) for v in on)
    assert 0.0 < on[0].tilt_deg < 45.0  # the session's camera is tilted, not straight down
    off = views_given(tmp_path / "off", rectify_oblique=False)
    assert off == [None] * len(off)


def test_dicetable_read_with_a_board_reads_with_the_view_from_its_pose() -> None:
    from calibration.board import BOARDS_DIR
    from controller.cli_vision import _options_perceiver
    from hardware.imagefile import read_image
    from vision.reading import Examined

    perceiver = _options_perceiver(
        BOARDS_DIR / "dicetar-wars.example.toml",
        FOLDER / "camera.json",
        None,
        False,
        None,
        None,
        None,
        None,
        True,
    )
    views: list[Any] = []

    class Reader:  # notes the view `dicetable read` gives its reader
        def read(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
            return self.examine(image, palette, where, view).readings

        def examine(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
            views.append(view)
            return Examined([], [])

    perceiver.reader = Reader()
    frame = read_image(sorted(FOLDER.glob("*.jpg"))[0])
    perceiver.perceive(frame)
    perceiver.perceive(np.full_like(frame, 128))  # no markers seen: no pose, no view
    assert isinstance(views[0], View) and 0.0 < views[0].tilt_deg < 45.0
    assert views[1] is None
