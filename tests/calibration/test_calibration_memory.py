"""Dice seen in one frame and covered by a die thrown later (calibration.memory), and ``place(known=...)``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.geometry import GeometryError, place
from calibration.memory import carry_covered, known_dice


def reading(colour: str, value: int, x: float, y: float, half: float = 20.0, **kw: Any) -> dict[str, Any]:
    quad = [[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]]
    fp = [[x / 4 - 8, y / 4 - 8], [x / 4 + 8, y / 4 - 8], [x / 4 + 8, y / 4 + 8], [x / 4 - 8, y / 4 + 8]]
    return {"colour": colour, "value": value, "center": [x, y], "quad": quad, "footprint_mm": fp, **kw}


BEFORE = [reading("red", 4, 400, 300, id="r1.1"), reading("red", 2, 600, 300, id="r1.2")]


def test_a_die_covered_by_a_new_die_is_carried_with_its_value() -> None:
    now = [reading("red", 2, 601, 299, id="r2.1"), reading("blue", 6, 410, 292, id="r2.2")]
    got = carry_covered(BEFORE, now)
    assert len(got) == 1
    die, over = got[0]
    assert over == 1 and (die["colour"], die["value"]) == ("red", 4)
    assert die["hidden"] and die["carried"] and die["under"] == "r2.2" and die["seen_as"] == "r1.1"
    assert BEFORE[0].get("hidden") is None  # the earlier reading is not changed


def test_nothing_is_carried_when_no_die_of_its_colour_is_missing() -> None:
    # the red 4 was knocked away and shows elsewhere: the count is whole, nothing lies hidden
    now = [reading("red", 2, 601, 299), reading("blue", 6, 410, 292), reading("red", 4, 800, 500)]
    assert carry_covered(BEFORE, now) == []


def test_a_die_picked_up_is_not_carried() -> None:
    # no die lies over where the red 4 was: it was taken away (a rethrow), not covered
    now = [reading("red", 2, 601, 299), reading("blue", 6, 900, 700)]
    assert carry_covered(BEFORE, now) == []


def test_a_carried_die_stays_while_the_die_over_it_stays() -> None:
    second = [reading("red", 2, 601, 299, id="r2.1"), reading("blue", 6, 410, 292, id="r2.2")]
    (die, _), *_ = carry_covered(BEFORE, second)
    die["id"] = "r2.h1"
    # a die a person named as hidden has no place of its own beyond the die over it: still carried
    third = [reading("red", 2, 601, 299, id="r3.1"), reading("blue", 6, 411, 293, id="r3.2")]
    got = carry_covered([*second, die], third)
    assert [(d["value"], d["under"], d["seen_as"]) for d, _ in got] == [(4, "r3.2", "r1.1")]
    # the die over it was thrown away: what it covered is not there to be carried
    fourth = [reading("red", 2, 601, 299), reading("blue", 6, 900, 700)]
    assert carry_covered([*second, die], fourth) == []


def test_only_the_games_colours_and_placed_dice_are_carried() -> None:
    now = [reading("red", 2, 601, 299), reading("blue", 6, 410, 292)]
    assert carry_covered(BEFORE, now, colours={"green", "blue"}) == []
    unplaced = [{k: v for k, v in d.items() if k != "footprint_mm"} for d in BEFORE]
    assert carry_covered(unplaced, now) == []


def test_junk_in_the_readings_is_ignored_not_raised() -> None:
    junk = [{"colour": "red", "center": "nowhere"}, {"colour": "red", "center": [np.nan, 1]}, {}]
    now = [reading("red", 2, 601, 299), {"colour": "blue", "quad": "x", "center": [410, 292]}]
    assert carry_covered([*BEFORE, *junk], now) == []


def test_a_known_die_holds_up_the_die_over_it(make_scene, die, dicetar_board) -> None:
    """The upper die of a stack alone in the frame: with the lower one known, it is placed one level up
    (its footprint at that height, so its board centre is right) and rests on the known die."""
    lower, upper = die(4, "red", 240, 175), die(6, "blue", 244, 178, level=1, yaw=40)
    scene = make_scene(dicetar_board, (230, 170, -620), (210, 150), cubes=[lower, upper])
    quad = scene.px(upper.face_corners(upper.top_value()))
    alone = place([quad], ["d6"], scene.cal, dicetar_board, image=scene.image)
    first = make_scene(dicetar_board, (230, 170, -620), (210, 150), cubes=[lower])
    seen = place(
        [first.px(lower.face_corners(lower.top_value()))], ["d6"], first.cal, dicetar_board, image=first.image
    )
    got = place(
        [quad], ["d6"], scene.cal, dicetar_board, image=scene.image, known=[(seen[0].footprint_mm, 0)]
    )
    assert len(got) == 2 and got[0].stack_level == 1 and got[0].rests_on == 1
    assert got[1].stack_level == 0 and got[1].zones == ("r2c3",)
    assert np.hypot(*(np.asarray(got[0].board_center_mm) - upper.centre[:2])) < 1.0
    # without it the die floats at level 0 or pays for an unseen support: either way it is not where it lies
    assert alone[0].stack_level == 0 or alone[0].rests_on is None


@pytest.mark.parametrize(
    "known, words",
    [
        ([("not a footprint", 0)], "known die 0"),
        ([([[0, 0], [1, 0], [1, 1], [0, 1]], -1)], "stack level must be an integer"),
        ([([[0, 0], [1, 0], [1, 1], [0, 1]], True)], "stack level must be an integer"),
        ([([[0, 0], [1, 0]], 0)], "polygon of finite area"),
        ([(1, 2, 3)], "expected (footprint in board mm"),
    ],
)
def test_a_bad_known_die_is_named(known: Any, words: str, dicetar_board) -> None:  # type: ignore[no-untyped-def]
    from calibration.camera import pi_camera3_calibration
    from calibration.pose import BoardPose

    cal = pi_camera3_calibration(1280, 960)
    pose = BoardPose(np.zeros(3), np.array([0.0, 0.0, 700.0]))
    quad = [[600, 400], [640, 400], [640, 440], [600, 440]]
    with pytest.raises(GeometryError, match=words.replace("(", r"\(")):
        place([quad], ["d6"], cal, dicetar_board, pose=pose, known=known)


def test_known_dice_lists_each_carried_die_s_footprint_and_level() -> None:
    d = reading("red", 4, 400, 300, stack_level=1)
    assert known_dice([(d, 0)]) == [(d["footprint_mm"], 1)]
