"""Stacks asked, never silent (issue 45 item 4): a die whose support the frame cannot tell (on the
board, or on which die) is asked with one tap an answer, never scored flat or stacked silently."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from benchmarks.end_to_end import evaluate
from benchmarks.harness import RENDERED
from benchmarks.scenes import empty_frame, load_scenes
from controller.adapters import TableReadings
from controller.corrections import answer
from engine.core import Context, Expectation, InputKind, Question
from engine.dicetar_wars import DicetarWars
from vision.reader import default_reader

#: rendered scenes (tests/fixtures/rendered) each with an upper die of a stack that the table's one
#: frame, read with its empty table, placed flat without a word before issue 45
FLAT_BEFORE = (12, 23, 26)


@pytest.mark.slow
def test_stacked_dice_the_frame_cannot_tell_are_asked() -> None:
    scenes = [s for s in load_scenes("all", RENDERED) if s["scene"] in FLAT_BEFORE]
    assert len(scenes) == len(FLAT_BEFORE)
    res = evaluate(scenes, default_reader(), empty=empty_frame)
    upper = [d for d in res["dice"] if d["stacked"] and d["found"]]
    assert upper
    assert [d for d in upper if not (d["stack_got"] or d.get("support_asked"))] == []
    assert any(d.get("support_asked") and not d["stack_got"] for d in upper)  # placed flat, but asked


def _dice() -> list[dict[str, Any]]:
    """Ten dice of a DICETAR WARS second throw; r1.9 lies flat on the field as placed, but the frame
    cannot tell whether it rests on r1.4 (then it scores by r1.4's field) or on the board."""
    dice: list[dict[str, Any]] = []
    for i in range(10):
        dice.append(
            {
                "id": f"r1.{i}",
                "kind": "d6",
                "value": 3,
                "confidence": 0.99,
                "colour": "red" if i < 5 else "blue",
                "zones": [],
                "min_multiplier": None,
                "side": "a",
                "field_status": "field",
                "card_slot": None,
                "stack_level": 0,
                "rests_on": None,
            }
        )
    place = {"zones": [], "min_multiplier": None, "side": "a", "field_status": "field", "card_slot": None}
    dice[9]["support_options"] = [
        {"on": "board", "stack_level": 0, **place},
        {"on": 4, "stack_level": 1, **place},
    ]
    return dice


def _ctx() -> Context:
    return Context(
        "dicetar_wars",
        Expectation(InputKind.THROW, ("bob",), {"step": "second_throw"}),
        ("ann", "bob"),
        {"ann": "red", "bob": "blue"},
    )


def test_a_die_of_unsure_support_is_asked_with_its_answers() -> None:
    q = DicetarWars.read_throw(_ctx(), _dice())
    assert isinstance(q, Question) and q.kind == "support" and q.readings == ("r1.9",)
    assert "on the board" in q.text and "on die r1.4" in q.text


def test_the_referees_one_tap_places_the_die() -> None:
    rs = TableReadings(1, 0.0, _dice())
    a = answer(
        "set_support",
        {"action": "set_support", "reading": "r1.9", "on": "r1.4"},
        rs,
        "ref",
        "d6",
        ["ann", "bob"],
    )
    a.apply()
    d = rs.by_id("r1.9")
    assert (d["stack_level"], d["rests_on"], d["support_confirmed"]) == (1, 4, True)
    got = DicetarWars.read_throw(_ctx(), rs.dice)
    assert not isinstance(got, Question)
    thrown = got[0].data["dice"]
    assert thrown[9]["rests_on"] == 4 and thrown[9]["stack_level"] == 1
    # on the board instead
    rs2 = TableReadings(1, 0.0, _dice())
    answer(
        "set_support",
        {"action": "set_support", "reading": "r1.9", "on": "board"},
        rs2,
        "ref",
        "d6",
        ["ann", "bob"],
    ).apply()
    assert rs2.by_id("r1.9")["stack_level"] == 0 and rs2.by_id("r1.9")["rests_on"] is None
    assert not isinstance(DicetarWars.read_throw(_ctx(), rs2.dice), Question)


def test_a_support_not_offered_is_refused_naming_the_choices() -> None:
    rs = TableReadings(1, 0.0, _dice())
    before = copy.deepcopy(rs.dice)
    with pytest.raises(ValueError, match=r"'on' must be one of \['board', 'r1.4'\]"):
        answer(
            "set_support",
            {"action": "set_support", "reading": "r1.9", "on": "r1.7"},
            rs,
            "ref",
            "d6",
            ["ann", "bob"],
        )
    with pytest.raises(ValueError, match="nothing to answer"):
        answer(
            "set_support",
            {"action": "set_support", "reading": "r1.3", "on": "board"},
            rs,
            "ref",
            "d6",
            ["ann", "bob"],
        )
    assert rs.dice == before
