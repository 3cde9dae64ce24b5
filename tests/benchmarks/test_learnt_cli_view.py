"""benchmarks/learnt_cli.py's taught table states the camera's view when asked (`learnt_cli.VIEW`, the
'view' way of benchmarks/learnt_cli_small.py, issue 44): the table.toml it writes parses, and the
table's reader cuts a d20 on its top face by that view; without it, no view (the table as before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import learnt_cli
from controller.config import load_config


def _config(tmp_path: Path, view: tuple[float, float, float] | None, empty: bool) -> object:
    was = learnt_cli.VIEW
    learnt_cli.VIEW = view
    try:
        text = learnt_cli.table_toml(tmp_path / "empty.png" if empty else None, "absent.roster.json")
    finally:
        learnt_cli.VIEW = was
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize("empty", [True, False])
def test_the_view_is_written_into_the_table(tmp_path: Path, empty: bool) -> None:
    cfg = _config(tmp_path, (45.0, 90.0, 10.0), empty)
    tilt = cfg.vision.camera_view()  # type: ignore[attr-defined]
    assert (tilt.tilt_deg, tilt.towards_deg, tilt.f_side) == (45.0, 90.0, 10.0)
    assert str(cfg.table.roster).endswith("absent.roster.json")  # type: ignore[attr-defined]
    assert (cfg.vision.empty_table_frame is not None) == empty  # type: ignore[attr-defined]


def test_no_view_unless_asked(tmp_path: Path) -> None:
    cfg = _config(tmp_path, None, True)
    assert cfg.vision.camera_view() is None  # type: ignore[attr-defined]
    assert cfg.vision.empty_table_frame is not None  # type: ignore[attr-defined]


def test_the_table_learns_the_view_when_asked(tmp_path: Path) -> None:
    was = learnt_cli.LEARN_VIEW
    learnt_cli.LEARN_VIEW = True
    try:
        cfg = _config(tmp_path, None, True)
    finally:
        learnt_cli.LEARN_VIEW = was
    assert cfg.vision.learn_camera_view is True and cfg.vision.camera_view() is None  # type: ignore[attr-defined]
    assert _config(tmp_path, None, True).vision.learn_camera_view is False  # type: ignore[attr-defined]


def test_dice_laid_in_perspective_look_bigger_nearer_the_camera() -> None:
    was = learnt_cli.PERSPECTIVE
    learnt_cli.PERSPECTIVE = (45.0, 1.4286)
    try:
        w, h = learnt_cli.FRAME
        assert abs(learnt_cli.perspective_scale((w / 2, h / 2)) - 1.0) < 1e-9
        near, far = learnt_cli.perspective_scale((w / 2, h - 60)), learnt_cli.perspective_scale((w / 2, 60))
        assert near > 1.1 and far < 0.9  # the nadir below the frame: the bottom is nearer
    finally:
        learnt_cli.PERSPECTIVE = was
