"""Board layouts: the shipped examples, validation errors, and what a footprint touches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.board import BoardError, load_board
from calibration.geometry import classify, is_borderline

GOOD = """
name = "tiny"
[outline]
polygon = [[0, 0], [200, 0], [200, 100], [0, 100]]
[[markers]]
id = 0
center = [20, 20]
size = 20
[[markers]]
id = 1
center = [180, 20]
size = 20
[[zones]]
name = "low"
multiplier = 3
polygon = [[40, 40], [100, 40], [100, 90], [40, 90]]
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "layout.toml"
    p.write_text(text)
    return p


def test_shipped_layouts_load_and_say_they_are_examples() -> None:
    dw = load_board("dicetar-wars")
    assert dw.example and dw.name == "dicetar-wars"
    assert {z.multiplier for z in dw.zones} == {3, 4, 6, 8}
    assert dw.centre_line is None and len(dw.markers) >= 4
    df = load_board("dice-fighter")
    assert df.example and df.centre_line is not None
    assert {c.owner for c in df.card_slots} == {df.centre_line.side_a_name, df.centre_line.side_b_name}


def test_a_good_minimal_layout_defaults_its_field_to_the_outline(tmp_path: Path) -> None:
    b = load_board(write(tmp_path, GOOD))
    assert [f.name for f in b.fields] == ["board"]
    assert b.die_size_mm is None and not b.notes and not b.example


def test_a_board_that_still_gives_a_die_size_loads_with_a_note_that_it_moved(tmp_path: Path) -> None:
    b = load_board(write(tmp_path, GOOD + "[die]\nsize_mm = 19\n"))
    assert b.die_size_mm == 19.0
    (note,) = b.notes
    assert str(tmp_path / "layout.toml") in note and "[die] size_mm is deprecated" in note
    assert "[dice] sizes_mm = [19]" in note and "table.toml" in note


@pytest.mark.parametrize(
    ("old", "new", "entry", "field"),
    [
        ("multiplier = 3", "multiplier = 0", "zones[0] ('low')", "multiplier"),
        ("multiplier = 3", 'multiplier = "3"', "zones[0] ('low')", "multiplier"),
        ("multiplier = 3", "multiplier = true", "zones[0] ('low')", "multiplier"),
        (
            "[[40, 40], [100, 40], [100, 90], [40, 90]]",
            "[[40, 40], [100, 90], [100, 40], [40, 90]]",
            "zones[0] ('low')",
            "polygon",
        ),
        (
            "[[40, 40], [100, 40], [100, 90], [40, 90]]",
            "[[40, 40], [100, 40]]",
            "zones[0] ('low')",
            "polygon",
        ),
        ("center = [180, 20]", "center = [199, 20]", "markers[1] (id 1)", "center"),
        ("id = 1", "id = 0", "markers[1] (id 0)", "id"),
        ("id = 1", "id = 99", "markers[1] (id 99)", "id"),
        ('name = "tiny"', "name = 5", "(top)", "name"),
    ],
)
def test_validation_errors_name_file_entry_and_field(
    tmp_path: Path, old: str, new: str, entry: str, field: str
) -> None:
    assert old in GOOD
    p = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(BoardError) as e:
        load_board(p)
    msg = str(e.value)
    assert str(p) in msg and repr(entry) in msg and repr(field) in msg, msg


def test_unknown_marker_dictionary_and_bad_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BoardError, match="'markers_dict', field 'name'"):
        load_board(write(tmp_path, GOOD + '\n[markers_dict]\nname = "DICT_NOPE"\n'))
    with pytest.raises(BoardError, match="not valid TOML"):
        load_board(write(tmp_path, GOOD + "\n[[zones]\n"))
    with pytest.raises(BoardError, match="cannot read"):
        load_board(tmp_path / "absent.toml")


def square(cx: float, cy: float, s: float = 16.0) -> np.ndarray:
    h = s / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])


def test_zones_touched_use_the_lowest_multiplier() -> None:
    b = load_board("dicetar-wars")
    inside = classify(square(135, 125), b)  # the middle of square r1c1 (x6)
    assert inside.zones == ("r1c1",) and inside.min_multiplier == 6
    corner = classify(square(110, 150), b)  # where 4, 6, 3 and 8 meet (the rules' example)
    assert sorted(corner.zones) == ["r1c0", "r1c1", "r2c0", "r2c1"] and corner.min_multiplier == 3
    blank = classify(square(30, 150), b)  # on the sheet, in no zone
    assert blank.zones == () and blank.min_multiplier is None and blank.field_status == "field"
    off = classify(square(440, 150), b)
    assert off.field_status == "off" and off.zones == ()


def test_a_die_touching_an_edge_only_does_not_touch_the_zone() -> None:
    b = load_board("dicetar-wars")
    assert classify(square(52, 125), b).zones == ()  # right edge exactly on the zone's left edge x=60
    assert classify(square(52.5, 125), b).zones == ("r1c0",)


def test_centre_line_sides_and_card_slots() -> None:
    b = load_board("dice-fighter")
    assert classify(square(150, 200), b).side == "a"  # left half: the first player's
    assert classify(square(400, 200), b).side == "b"
    assert classify(square(280, 200), b).side == "line"
    on_card = classify(square(38, 110), b)
    assert on_card.field_status == "card_slot" and on_card.card_slot == "power-first-1"
    assert classify(square(38, 360 - 170), b).field_status == "off"  # between the slots, off the field


def test_borderline_means_a_boundary_within_a_millimetre() -> None:
    b = load_board("dicetar-wars")
    assert is_borderline(square(52.5, 125), b)  # 0.5 mm over the zone edge
    assert not is_borderline(square(55, 125), b)  # 3 mm over it: clearly touching
    assert not is_borderline(square(135, 125), b)
