"""Die sizes belong to the dice set in the table's config, not to the board: 14, 16 and 19 mm at one table."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from calibration import polygons as pg
from calibration.board import load_board
from calibration.diceset import DiceSet, DiceSetError
from calibration.geometry import GeometryError, place
from controller.config import ConfigError, parse_config
from controller.perceive import BoardGeometry


@pytest.mark.parametrize(
    ("sizes", "why"),
    [
        ([], "one or more die edges"),
        ([16, 16], "listed twice"),
        ([4], "between 5 and 60 mm"),
        (["16"], "numbers"),
        ([True], "numbers"),
    ],
)
def test_a_bad_dice_set_is_refused_naming_the_value(sizes: list[object], why: str) -> None:
    with pytest.raises(DiceSetError, match=why):
        DiceSet(tuple(sizes))  # type: ignore[arg-type]


def test_the_table_config_names_the_dice_sets_sizes() -> None:
    assert parse_config({}).dice.sizes_mm is None
    assert parse_config({"dice": {"sizes_mm": [14, 16, 19]}}).dice.sizes_mm == [14.0, 16.0, 19.0]
    with pytest.raises(ConfigError) as e:
        parse_config({"dice": {"sizes_mm": [16, 70]}}, "t.toml")
    assert e.value.problems[0][0] == "dice.sizes_mm" and "between 5 and 60 mm" in e.value.problems[0][1]


def test_dice_of_three_sizes_at_one_table_each_land_where_they_are(make_scene, die, dicetar_board) -> None:  # type: ignore[no-untyped-def]
    cubes = [
        die(3, "red", 135, 125, size=14),
        die(4, "blue", 240, 175, size=16),
        die(5, "green", 285, 225, size=19),
        die(2, "red", 60, 230, size=19),
        die(6, "blue", 185, 75, size=14),
    ]
    scene = make_scene(dicetar_board, (215, 150, -600), (210, 150), cubes=cubes)
    quads = [scene.px(c.face_corners(c.top_value())) for c in cubes]
    mixed = place(quads, ["d6"] * 5, scene.cal, dicetar_board, image=scene.image, die_size_mm=[14, 16, 19])
    for c, g in zip(cubes, mixed, strict=True):
        assert np.hypot(*(np.asarray(g.board_center_mm) - c.centre[:2])) < 0.5, (c.size, g.board_center_mm)
        assert np.sqrt(pg.area(g.footprint_mm)) == pytest.approx(c.size, rel=0.03)
        assert g.stack_level == 0
    # one size for the whole set: the 14 and 19 mm dice are placed at the wrong height
    one = place(quads, ["d6"] * 5, scene.cal, dicetar_board, image=scene.image, die_size_mm=16)
    off = [np.hypot(*(np.asarray(g.board_center_mm) - c.centre[:2])) for c, g in zip(cubes, one, strict=True)]
    assert max(off) > 1.0


def test_place_refuses_a_bad_die_size(make_scene, dicetar_board) -> None:  # type: ignore[no-untyped-def]
    scene = make_scene(dicetar_board, (215, 150, -600), (210, 150))
    quad = [[600, 400], [620, 400], [620, 420], [600, 420]]
    with pytest.raises(GeometryError, match="between 5 and 60 mm"):
        place([quad], ["d6"], scene.cal, dicetar_board, image=scene.image, die_size_mm=[16, 80])


def test_a_board_that_gives_a_die_size_still_plays_and_the_table_says_it_moved(tmp_path: Path) -> None:
    text = Path(load_board("dicetar-wars").source).read_text() + "\n[die]\nsize_mm = 19\n"
    (tmp_path / "old.toml").write_text(text)
    cal = Path(__file__).parents[1] / "fixtures" / "sessions" / "dicetar-wars-demo" / "camera.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        geo = BoardGeometry(str(tmp_path / "old.toml"), str(cal))
    assert geo.board.die_size_mm == 19.0
    (w,) = [w for w in caught if issubclass(w.category, FutureWarning)]
    assert "[die] size_mm is deprecated" in str(w.message) and "[dice] sizes_mm = [19]" in str(w.message)
