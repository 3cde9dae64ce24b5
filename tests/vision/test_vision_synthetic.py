"""Exact readings of dice drawn with known pips."""

from __future__ import annotations

import numpy as np
import pytest
from vision_helpers import draw_row

from hardware.drawn import draw_die, felt
from vision import DieReading, Palette, read_dice


def by_x(readings: list[DieReading]) -> list[DieReading]:
    return sorted(readings, key=lambda r: r.center[0])


def test_reads_all_six_values_in_order(table: np.ndarray) -> None:
    drawn = draw_row(table, [1, 2, 3, 4, 5, 6])
    got = by_x(read_dice(table))
    assert [r.value for r in got] == [1, 2, 3, 4, 5, 6]
    for r, d in zip(got, drawn, strict=True):
        assert abs(r.center[0] - d.center[0]) < 6 and abs(r.center[1] - d.center[1]) < 6
        assert 0.5 < r.confidence <= 1.0
        assert r.kind == "d6" and not r.cocked


def test_light_pips_on_dark_dice(table: np.ndarray) -> None:
    draw_row(table, [6, 5, 4, 3], body=(30, 30, 30), pip=(240, 240, 240))
    assert [r.value for r in by_x(read_dice(table))] == [6, 5, 4, 3]


def test_touching_dice_are_read_separately(table: np.ndarray) -> None:
    draw_row(table, [2, 5, 3, 6], gap=1.05, angle=0.0, body=(40, 40, 200), pip=(240, 240, 240))
    got = by_x(read_dice(table))
    assert [r.value for r in got] == [2, 5, 3, 6]


@pytest.mark.parametrize("colour", ["red", "blue", "green", "purple", "yellow", "white", "black"])
def test_body_colour_is_named_from_the_palette(colour: str) -> None:
    from vision.palette import DEFAULT_BGR

    img = felt(320, 320, (120, 120, 120))
    body = DEFAULT_BGR[colour]
    pip = (20, 20, 20) if sum(body) > 360 else (240, 240, 240)
    draw_die(img, (160, 160), 60, 5, angle_deg=20, body_bgr=body, pip_bgr=pip)
    got = read_dice(img)
    assert [(r.value, r.colour) for r in got] == [(5, colour)]


def test_custom_palette_changes_the_names(table: np.ndarray) -> None:
    draw_row(table, [4], body=(40, 40, 200), pip=(240, 240, 240))
    palette = Palette.from_dict({"crimson": [40, 40, 200], "snow": [240, 240, 240]})
    assert [r.colour for r in read_dice(table, palette)] == ["crimson"]


def test_quad_surrounds_the_top_face(table: np.ndarray) -> None:
    (drawn,) = draw_row(table, [3], size=80, angle=30)
    (got,) = read_dice(table)
    quad = np.array(got.quad)
    side = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    assert np.all(np.abs(side - 80) < 14), side
    assert np.linalg.norm(quad.mean(0) - np.array(drawn.center)) < 6


def test_empty_table_reads_no_dice(table: np.ndarray) -> None:
    assert read_dice(table) == []


def test_many_dice_on_a_large_frame() -> None:
    rng = np.random.default_rng(5)
    from hardware.drawn import random_scene

    img, drawn = random_scene(rng, 960, 1280, n=12, size_range=(60, 90))
    got = read_dice(img)
    assert sorted(r.value for r in got) == sorted(d.value for d in drawn)


@pytest.mark.parametrize(
    ("coarse", "fine", "wins"),
    [
        (0.8, [0.0, 0.0, 0.0], True),  # pips of one big die, read as "not a die"
        (0.9, [0.8], True),  # one fine box, read less surely than the coarse one
        (0.8, [0.95], False),  # ... the fine one is surer
        (0.98, [0.98, 0.96, 0.97], False),  # dice side by side, each read as a die
        (0.9, [0.88, 0.46], False),
        (0.9, [0.9, 0.0], True),  # one die and a part of it
        (0.0, [0.0, 0.0], False),  # the coarse box is no die either
    ],
)
def test_a_coarse_box_replaces_fine_ones_only_when_they_are_not_dice_themselves(
    coarse: float, fine: list[float], wins: bool
) -> None:
    from vision.reader import APART_SURE, coarse_wins

    assert APART_SURE == 0.3
    assert coarse_wins(coarse, np.array(fine)) is wins
