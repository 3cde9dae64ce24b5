"""DICETAR WARS: board data, options and the rulings the scenarios do not reach."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.scenario import ScenarioError, Setup, new_game, run_scenario
from engine import DataError, Input, RuleError, find_game
from engine.dicetar_wars import Board, DicetarWars, parse_board

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]
BOARD = parse_board(
    {
        "zones": [
            {"name": "x3", "multiplier": 3, "polygon": SQUARE},
            {"name": "x8", "multiplier": 8, "polygon": SQUARE},
        ]
    },
    "test",
)


def die(
    value: int, colour: str, zones: list[str] | None = None, status: str | None = "field", **kw: Any
) -> dict[str, Any]:
    d: dict[str, Any] = {"value": value, "colour": colour, **kw}
    if status is not None:
        d["field_status"] = status
    if zones:
        d["zones"] = zones
    return d


def throw(game: DicetarWars, player: str, dice: list[dict[str, Any]]) -> list[str]:
    return [o.event for o in game.apply(Input.from_json({"type": "throw", "player": player, "dice": dice}))]


def test_registered_under_its_table_name() -> None:
    assert find_game("dicetar-wars") is DicetarWars


@pytest.mark.parametrize(
    ("raw", "entry", "field"),
    [
        ({}, "zones", "zones"),
        ({"zones": []}, "zones", "zones"),
        ({"zones": ["x3"]}, "zones[0]", "-"),
        ({"zones": [{"multiplier": 3, "polygon": SQUARE}]}, "zones[0]", "name"),
        ({"zones": [{"name": "a", "multiplier": 0, "polygon": SQUARE}]}, "zones[0] (a)", "multiplier"),
        ({"zones": [{"name": "a", "multiplier": 2.5, "polygon": SQUARE}]}, "zones[0] (a)", "multiplier"),
        ({"zones": [{"name": "a", "multiplier": True, "polygon": SQUARE}]}, "zones[0] (a)", "multiplier"),
        (
            {
                "zones": [
                    {"name": "a", "multiplier": 3, "polygon": SQUARE},
                    {"name": "a", "multiplier": 4, "polygon": SQUARE},
                ]
            },
            "zones[1] (a)",
            "name",
        ),
    ],
)
def test_a_bad_board_file_names_the_entry_and_field(raw: dict[str, Any], entry: str, field: str) -> None:
    with pytest.raises(DataError) as err:
        DicetarWars.parse_data("board", raw, "my-board.toml")
    assert (err.value.source, err.value.entry, err.value.field) == ("my-board.toml", entry, field)
    assert str(err.value).startswith(f"my-board.toml: entry {entry!r}, field {field!r}: ")


@pytest.mark.parametrize(
    "shape",
    [
        {"polygon": SQUARE},
        {"circle": {"center": [5, 5], "radius": 5}},
        {"annular_sector": {"center": [0, 0], "inner": 10, "outer": 20, "start": 0, "end": 90}},
        {},  # an SVG import's zone path, or any shape: calibration's to check, not the rules'
    ],
)
def test_a_zone_needs_only_its_name_and_multiplier_whatever_shape_it_is_drawn_with(
    shape: dict[str, Any],
) -> None:
    board = DicetarWars.parse_data("board", {"zones": [{"name": "bull", "multiplier": 8, **shape}]}, "b.toml")
    assert isinstance(board, Board) and board.multipliers == {"bull": 8}
    game = DicetarWars(["ann", "bob"], data={"board": board})
    reds = [die(3, "red", ["bull"]) for _ in range(5)]
    throw(game, "ann", reds)
    assert throw(game, "bob", reds + [die(2, "blue", ["bull"]) for _ in range(5)]) == [
        "thrown",
        "half_scored",
    ]
    assert game.state["last_half"]["scores"] == {"ann": 5 * 3 * 8, "bob": 5 * 2 * 8}


def test_only_a_board_data_file_is_read() -> None:
    with pytest.raises(DataError, match="reads only a 'board'"):
        DicetarWars.parse_data("deck", {}, "deck.toml")


def test_a_bad_board_in_a_scenario_setup_is_reported_with_the_file(tmp_path: Path) -> None:
    bad = '[[zones]]\nname = "x"\nmultiplier = -1\npolygon = [[0, 0], [1, 0], [1, 1]]\n'
    (tmp_path / "b.toml").write_text(bad)
    setup = {"setup": {"game": "dicetar-wars", "players": ["ann", "bob"], "data": {"board": "b.toml"}}}
    with pytest.raises(ScenarioError, match=r"b\.toml: entry 'zones\[0\] \(x\)', field 'multiplier'"):
        run_scenario([json.dumps(setup)], "s.jsonl", tmp_path)


def test_the_shipped_example_board_is_loaded_by_default_and_scores() -> None:
    game = new_game(Setup.from_json({"game": "dicetar-wars", "players": ["ann", "bob"]}))
    assert isinstance(game, DicetarWars) and game.board is not None
    zones = game.board.multipliers
    assert zones and all(m > 0 for m in zones.values())
    name, mult = next(iter(zones.items()))
    throw(game, "ann", [die(5, "red", [name])] + [die(1, "red")] * 4)
    assert game.state["provisional"] == {"ann": 5 * mult, "bob": 0}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colours": {"ann": "red"}}, "must map each of"),
        ({"colours": {"ann": "red", "bob": "RED"}}, "different colours"),
        ({"colours": {"ann": "red", "bob": 3}}, "colour names"),
        ({"advanced": "yes"}, "'advanced' must be true or false"),
        ({"stacked": True}, "no option 'stacked'"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleError, match=message):
        DicetarWars(["ann", "bob"], options, data={"board": BOARD})


def test_three_players_are_refused() -> None:
    with pytest.raises(RuleError, match="2-2 players"):
        DicetarWars(["ann", "bob", "cid"])


def test_data_that_is_not_a_parsed_board_is_refused() -> None:
    with pytest.raises(RuleError, match="must be a parsed board"):
        DicetarWars(["ann", "bob"], data={"board": {"zones": []}})


def test_without_a_board_zones_need_their_multiplier() -> None:
    game = DicetarWars(["ann", "bob"])
    with pytest.raises(RuleError, match="no board is loaded"):
        throw(game, "ann", [die(2, "red", ["x3"])] * 5)
    throw(game, "ann", [die(2, "red", ["x3"], min_multiplier=3)] + [die(2, "red", min_multiplier=8)] * 4)
    assert game.state["provisional"]["ann"] == 6 + 4 * 16


def five(colour: str, value: int = 1) -> list[dict[str, Any]]:
    return [die(value, colour, ["x3"]) for _ in range(5)]


def test_stacked_dice_stay_for_scoring_unless_the_option_says_otherwise() -> None:
    stack = [*five("red")[:4], die(2, "red", ["x3"], status=None, stack_level=1, rests_on=0)]
    kept = DicetarWars(["ann", "bob"], data={"board": BOARD})
    throw(kept, "ann", stack)
    assert throw(kept, "bob", stack + five("blue")) == ["thrown", "half_scored"]
    assert kept.state["last_half"]["scores"] == {"ann": 12 + 2 * 3 * 4, "bob": 15}

    literal = DicetarWars(["ann", "bob"], {"stacked_dice_on_board": False}, data={"board": BOARD})
    throw(literal, "ann", stack)
    assert throw(literal, "bob", stack + five("blue")) == ["thrown", "rethrow_needed"]
    assert literal.state["to_rethrow"] == 1


def test_a_stack_on_a_die_off_the_board_scores_nothing_and_is_rethrown() -> None:
    game = DicetarWars(["ann", "bob"], data={"board": BOARD})
    dice = [die(6, "red", status="off"), *five("red")[1:]]
    throw(game, "ann", dice)
    stacked = die(5, "blue", status=None, stack_level=1, rests_on=0)
    assert throw(game, "bob", dice + five("blue")[1:] + [stacked]) == ["thrown", "rethrow_needed"]
    assert game.state["to_rethrow"] == 2
    assert game.state["table"][9]["points"] == 0


def test_unmarked_rethrow_counts_the_dice_off_the_board() -> None:
    game = DicetarWars(["ann", "bob"], data={"board": BOARD})
    throw(game, "ann", five("red"))
    after = five("red") + five("blue")[:4] + [die(4, "blue", status="off")]
    throw(game, "bob", after)
    # The rethrown blue 4 lands on x8: bob's 4 x 3 + 4 x 8 is not doubled.
    landed = five("red") + five("blue")[:4] + [die(4, "blue", ["x8"])]
    assert throw(game, "ann", landed)[-1] == "half_scored"
    assert game.state["last_half"]["scores"] == {"ann": 15, "bob": 12 + 32}
    assert game.state["last_half"]["doubled"] is False


def test_first_throw_of_the_second_half_replaces_the_table() -> None:
    game = DicetarWars(["ann", "bob"], data={"board": BOARD})
    throw(game, "ann", five("red"))
    throw(game, "bob", five("red") + five("blue"))
    assert len(game.state["table"]) == 10  # the finished half stays on show
    throw(game, "bob", five("blue", 2))
    assert game.state["provisional"] == {"ann": 0, "bob": 30}
    assert game.state["totals"] == {"ann": 15, "bob": 15}


def test_board_value_lists_its_multipliers() -> None:
    assert Board(BOARD.zones, "test") == BOARD
    assert BOARD.multipliers == {"x3": 3, "x8": 8}


def test_a_die_between_the_players_colours_is_asked_not_counted() -> None:
    """Issue 45 item 3: a die whose colour lies between two players' colours is asked
    never counted silently for the nearer one (``colour``); named by a person, it counts."""
    from engine.core import Context, Expectation, InputKind, Question
    from engine.dicetar_wars import DicetarWars

    colours = {"ann": "red", "bob": "pink"}
    dice = [{"id": f"r1.{i}", "value": 3, "confidence": 0.99, "colour": "red"} for i in range(5)]
    dice += [{"id": f"r1.{i}", "value": 4, "confidence": 0.99, "colour": "pink"} for i in range(5, 10)]
    dice[2] = {**dice[2], "colour_near": "pink"}
    ctx = Context(
        "dicetar_wars",
        Expectation(InputKind.THROW, ("bob",), {"step": "second_throw"}),
        ("ann", "bob"),
        colours,
    )
    q = DicetarWars.read_throw(ctx, dice)
    assert isinstance(q, Question) and q.kind == "colour" and q.readings == ("r1.2",)
    assert "red or pink" in q.text
    dice[2] = {**dice[2], "colour_confirmed": True}
    assert not isinstance(DicetarWars.read_throw(ctx, dice), Question)
    # a colour near only one that is no player's is not asked
    dice[2] = {**dice[2], "colour_confirmed": False, "colour_near": "white"}
    assert not isinstance(DicetarWars.read_throw(ctx, dice), Question)
