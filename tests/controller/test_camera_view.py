"""``[vision] camera_tilt_deg`` (issue 44): a camera stated to look at the table at an angle; bad values
refused by name, check-config says what it does, the reader the table builds carries the view."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.camera_view import view_notes
from controller.config import ConfigError, parse_config
from controller.perceive import viewed
from vision.oblique import Tilt


def _cfg(game: str = "die-angler", **vision: object) -> object:
    return parse_config({"table": {"game": game}, "vision": vision})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("camera_tilt_deg", 90),
        ("camera_tilt_deg", -5),
        ("camera_tilt_deg", "steep"),
        ("camera_nadir_deg", 360),
        ("camera_focal", 0.0),
    ],
)
def test_bad_view_settings_are_refused_by_name(key: str, value: object) -> None:
    with pytest.raises(ConfigError) as e:
        _cfg(**{key: value})
    assert [k for k, _ in e.value.problems] == [f"vision.{key}"]


def test_the_stated_view() -> None:
    assert _cfg().vision.camera_view() is None  # type: ignore[attr-defined]
    assert view_notes(_cfg()) == []
    cfg = _cfg(camera_tilt_deg=45, camera_nadir_deg=90)
    tilt = cfg.vision.camera_view()  # type: ignore[attr-defined]
    assert tilt == Tilt(45.0, 90.0, 0.98)
    view = tilt.view(1280, 720)
    assert abs(view.tilt_deg - 45.0) < 1e-9
    nx, ny = view.nadir()
    assert abs(nx - 640) < 1e-6 and ny > 720  # below the frame's centre, out of the frame
    (key, said), (lens, guessed) = view_notes(cfg)
    assert key == "vision.camera_tilt_deg" and "top face" in said and "below" in said
    assert lens == "vision.camera_focal" and "guessed" in guessed
    ((key, said),) = view_notes(_cfg(camera_tilt_deg=45, camera_focal=1.43))  # the lens stated: no guess
    assert key == "vision.camera_tilt_deg" and "1.43" in said
    ((_, d6),) = view_notes(_cfg("dicetar-wars", camera_tilt_deg=30))
    assert "changes nothing" in d6


def test_the_reader_carries_the_view_and_the_shared_one_does_not() -> None:
    class Reader:
        top_view = None

    shared = Reader()
    assert viewed(shared, None) is shared
    mine = viewed(shared, Tilt(45.0))
    assert mine is not shared and mine.top_view == Tilt(45.0) and shared.top_view is None


def test_the_readers_ocr_head_cuts_the_top_face_and_the_shared_one_does_not() -> None:
    from vision.numbered.die_crop import TopFaces

    class Head:
        rectify = None

    class Reader:
        top_view = None
        ocr = Head()

    shared = Reader()
    mine = viewed(shared, Tilt(30.0))
    assert isinstance(mine.ocr.rectify, TopFaces) and mine.ocr.rectify.top_view == Tilt(30.0)
    assert shared.ocr.rectify is None and mine.ocr is not shared.ocr


def test_the_dice_sizes_tell_the_lens_at_the_stated_tilt(tmp_path: Path) -> None:
    import json

    import numpy as np

    from controller.learn_dice import SEEN, lens_said
    from vision.oblique import lens_for_tilt

    w, h, lens, tilt = 1280, 720, 1.3, 40.0
    view = Tilt(tilt, 90.0, lens).view(w, h)
    rng = np.random.default_rng(44)
    px = rng.uniform([80, 60], [w - 80, h - 60], size=(40, 2))
    rays = np.column_stack([px, np.ones(len(px))]) @ view.kinv.T
    sides = view.camera_matrix[0, 0] * 1.8 * (rays @ view.down) / 60.0  # a die of 1.8 units, 60 units up
    sides *= rng.normal(1.0, 0.02, len(sides))
    told = lens_for_tilt(px, sides, w, h, tilt)
    assert told is not None and abs(told - lens) < 0.1
    assert lens_for_tilt(px[:10], sides[:10], w, h, tilt) is None  # too few dice
    assert lens_for_tilt(px, sides, w, h, 5.0) is None  # too little tilt
    (tmp_path / SEEN).write_text(json.dumps({"lens": round(told, 3)}), encoding="utf-8")
    said = lens_said(tmp_path, _cfg(camera_tilt_deg=40))  # type: ignore[arg-type]
    assert f"{round(told, 3):g}" in said and "not stated" in said
    (tmp_path / SEEN).write_text(json.dumps({"lens": None}), encoding="utf-8")
    assert "tell no lens" in lens_said(tmp_path, _cfg(camera_tilt_deg=40))  # type: ignore[arg-type]
