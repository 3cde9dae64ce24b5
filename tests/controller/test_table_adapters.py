"""Adapters from readings to engine inputs: only the dice that matter, and which were thrown again."""

from __future__ import annotations

from typing import Any

from controller.adapters import Context, Question, plan
from engine import Expectation, InputKind


def die(rid: str, value: int, colour: str, x: float, y: float = 50.0, **kw: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "kind": "d6",
        "value": value,
        "colour": colour,
        "confidence": 0.99,
        "center": [x, y],
        **kw,
    }


COLOURS = {"ann": "red", "bob": "blue"}


def test_a_die_angler_reroll_sends_only_the_die_that_moved() -> None:
    before = [die("r1.1", 3, "red", 100), die("r1.2", 5, "red", 200), die("r1.3", 2, "blue", 300)]
    now = [die("r2.1", 3, "red", 101), die("r2.2", 6, "red", 420), die("r2.3", 2, "blue", 300)]
    exp = Expectation(InputKind.ROLL, ("ann",), {"dice": {"ann": ["d6"]}})
    out = plan(Context("die-angler", exp, ("ann", "bob"), COLOURS, 0.8, before), now)
    assert not isinstance(out, Question)
    assert [i.data["dice"] for i in out] == [[{"kind": "d6", "value": 6, "colour": "red"}]]


def test_a_reroll_that_cannot_be_told_apart_is_asked() -> None:
    before = [die("r1.1", 3, "red", 100), die("r1.2", 5, "red", 200)]
    now = [die("r2.1", 4, "red", 150), die("r2.2", 6, "red", 420)]  # both moved, one was rerolled
    exp = Expectation(InputKind.ROLL, ("ann",), {"dice": {"ann": ["d6"]}})
    out = plan(Context("die-angler", exp, ("ann", "bob"), COLOURS, 0.8, before), now)
    assert isinstance(out, Question) and out.kind == "count"


def test_nozoku_held_die_reroll_takes_the_new_die_of_that_colour() -> None:
    before = [die("r1.1", 2, "red", 100), die("r1.2", 4, "red", 200)]
    now = [die("r2.1", 2, "red", 100), die("r2.2", 1, "red", 260)]
    exp = Expectation(InputKind.ROLL, ("ann",), {"roll": "held die", "die": 1, "colour": "red"})
    out = plan(Context("nozoku-dice", exp, ("ann",), {"ann": "red"}, 0.8, before), now)
    assert not isinstance(out, Question)
    assert out[0].data["dice"] == [{"kind": "d6", "value": 1, "colour": "red"}]


def test_nozoku_centre_must_match_the_colours_expected() -> None:
    exp = Expectation(
        InputKind.ROLL, ("ann", "bob"), {"roll": "centre", "dice": 3, "colours": {"red": 2, "blue": 1}}
    )
    seen = [die("r1.1", 1, "red", 10), die("r1.2", 2, "blue", 20), die("r1.3", 3, "blue", 30)]
    out = plan(Context("nozoku-dice", exp, ("ann", "bob"), COLOURS), seen)
    assert isinstance(out, Question) and out.kind == "count" and "'red': 2" in out.text


def test_dicetar_stack_indices_follow_the_dice_kept() -> None:
    exp = Expectation(InputKind.THROW, ("bob",), {"step": "second_throw", "dice": 5, "colour": "blue"})
    marker = die("r1.1", 6, "black", 5)
    reds = [die(f"r1.{i + 2}", 1, "red", 10 * i, field_status="field") for i in range(5)]
    blues = [die(f"r1.{i + 7}", 2, "blue", 60 + 10 * i, field_status="field") for i in range(4)]
    top = die("r1.11", 6, "blue", 11, stack_level=1, rests_on=2)  # on reds[1], index 2 of the camera's list
    out = plan(Context("dicetar-wars", exp, ("ann", "bob"), COLOURS), [marker, *reds, *blues, top])
    assert not isinstance(out, Question)
    dice = out[0].data["dice"]
    assert len(dice) == 10 and dice[-1]["rests_on"] == 1 and dice[1]["value"] == 1
