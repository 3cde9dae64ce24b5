"""The game's count of dice and the table's questions (issue 45 items 4 and 1): when every die the game
expects is seen no die is asked about resting on a die no frame shows, a die the memory carries under
a die placed flat is asked."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from calibration.geometry import HIDDEN, _support_doubts
from calibration.memory import (
    ask_over_carried,
    check_expected,
    expected_counts,
    settle_supports,
    short_by,
)
from controller.perceive import throw_colours
from engine.dicetar_wars import DicetarWars


def reading(colour: str, value: int, x: float, y: float, half: float = 20.0, **kw: Any) -> dict[str, Any]:
    quad = [[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]]
    fp = [[x / 4 - 8, y / 4 - 8], [x / 4 + 8, y / 4 - 8], [x / 4 + 8, y / 4 + 8], [x / 4 - 8, y / 4 + 8]]
    return {"colour": colour, "value": value, "center": [x, y], "quad": quad, "footprint_mm": fp, **kw}


def _asked(**kw: Any) -> dict[str, Any]:
    place = {"zones": [], "min_multiplier": None, "side": "a", "field_status": "field", "card_slot": None}
    return reading(
        "red",
        3,
        100,
        100,
        support_options=[
            {"on": "board", "stack_level": 0, **place},
            {"on": "hidden", "stack_level": 1, **place},
        ],
        **kw,
    )


def test_every_die_seen_strikes_the_hidden_die_from_the_questions() -> None:
    dice = [_asked(), *(reading("red", 2, 200 + 50 * i, 300) for i in range(4))]
    dice += [reading("blue", 1, 200 + 50 * i, 500) for i in range(5)]
    counts = {"red": 5, "blue": 5}
    kept = copy.deepcopy(dice)
    assert settle_supports(kept, None) == [] and kept == dice  # not told the count: nothing changes
    short = copy.deepcopy(dice[:-1])  # a blue die not seen: it may lie under the red one
    assert short_by(short, counts) == {"blue": 1}
    assert settle_supports(short, counts) == [] and short == dice[:-1]
    assert settle_supports(dice, counts) == [0]
    assert "support_options" not in dice[0]  # only the board is left: sure, as placed
    # a die raised on a die no frame shows is still asked (the die under it may be one seen)
    raised = [_asked(support_hidden=True), *copy.deepcopy(dice[1:])]
    assert settle_supports(raised, counts) == [] and len(raised[0]["support_options"]) == 2


def test_the_games_count_comes_from_its_expected_dice() -> None:
    game = DicetarWars(["ann", "bob"], {"colours": {"ann": "red", "bob": "blue"}})
    colours = {"ann": "red", "bob": "blue"}
    assert throw_colours(game, colours)["expected"] == {"red": 5}  # the first throw: ann's five
    assert expected_counts(game.entry_dice("ann", colours)) == {"red": 5}
    assert check_expected({"Blue|green": 6, "red": 5}) == {"blue|green": 6, "red": 5}


@pytest.mark.parametrize("bad", [{"red": -1}, {"red": True}, {"": 2}, {"red|": 1}, ["red", 5], {"red": 1.5}])
def test_a_bad_count_is_named(bad: Any) -> None:
    with pytest.raises(ValueError, match="expected dice"):
        check_expected(bad)


def test_a_die_placed_flat_over_a_carried_die_is_asked() -> None:
    over = reading(
        "blue", 6, 425, 275, id="r2.2", stack_level=0, rests_on=None, zones=["x2"], field_status="field"
    )
    carried = reading("red", 4, 400, 300, id="r2.h1", carried=True, hidden=True, under="r2.2", stack_level=0)
    carried["field_status"] = "field"
    dice = [reading("red", 2, 601, 299, id="r2.1", stack_level=0, rests_on=None), over, carried]
    assert ask_over_carried(dice) == [1]
    assert [(o["on"], o["stack_level"]) for o in over["support_options"]] == [(2, 1), ("board", 0)]
    # raised by its sides with no die seen under it: the memory tells what holds it up
    raised = copy.deepcopy(dice)
    del raised[1]["support_options"]
    raised[1].update(stack_level=1, support_hidden=True)
    assert ask_over_carried(raised) == []
    assert (raised[1]["rests_on"], raised[1]["stack_level"], "support_hidden" in raised[1]) == (2, 1, False)


def _square(x: float, y: float, s: float = 16.0) -> Any:
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float64)


def test_with_every_die_seen_the_die_under_is_one_the_frame_shows() -> None:
    # die 0's sides are half full (0.35, near the 0.4 threshold): it may lie on the board or on a die;
    # die 1 lies flat 20 mm away (within 1.5 edges), die 2 far off
    prints = {0: _square(100, 100), 1: _square(120, 100), 2: _square(300, 300)}
    levels = {0: 0, 1: 0, 2: 0}
    quads = [p * 4 for p in prints.values()]
    args = (quads, levels, prints, [prints[i] for i in range(3)], [16.0] * 3, {}, set())
    cues = ([0.35, 0.0, 0.0], [None] * 3, [True] * 3)
    assert _support_doubts(*args, *cues)[0] == (None, HIDDEN)  # not told the count
    assert _support_doubts(*args, *cues, all_seen=True)[0] == (None, 1)  # the nearest die, not a hidden one
    far = {0: prints[0], 1: _square(200, 200), 2: prints[2]}
    args = (quads, levels, far, [far[i] for i in range(3)], [16.0] * 3, {}, set())
    assert 0 not in _support_doubts(*args, *cues, all_seen=True)  # no die near: on the board, sure
