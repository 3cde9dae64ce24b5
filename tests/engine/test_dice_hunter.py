"""Dice Hunter: what the scenarios cannot say (options, hidden deck, outcomes)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine import Input, RuleError, find_game
from engine.dice_hunter import REGULAR_TILES, TILES, DiceHunter

PLAYERS = ["ann", "bob", "cid"]


def inp(**data: object) -> Input:
    return Input.from_json(data)


def test_registered_under_its_table_name() -> None:
    assert find_game("dice-hunter") is DiceHunter


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (["ann", "bob"], {}, "3-4 players"),
        (["a", "b", "c", "d", "e"], {}, "3-4 players"),
        (PLAYERS, {"deck": "shuffled"}, "option 'deck' must be 'physical' or 'virtual'"),
        (PLAYERS, {"dek": "virtual"}, "no option 'dek'"),
    ],
)
def test_bad_setup_is_refused_with_a_clear_message(
    players: list[str], options: dict[str, str], message: str
) -> None:
    with pytest.raises(RuleError, match=message):
        DiceHunter(players, options)


def test_virtual_deck_turns_up_a_seeded_tile_and_hides_the_rest() -> None:
    a = DiceHunter(PLAYERS, {"deck": "virtual"}, random.Random(1))
    b = DiceHunter(PLAYERS, {"deck": "virtual"}, random.Random(1))
    assert a.state == b.state
    first = a.state["revealed"]
    assert len(first) == 1 and TILES[first[0]].group == "regular"
    assert a.state["deck_remaining"] == 11
    # Nothing in the state depends on the hidden order beyond what was turned up.
    others = [DiceHunter(PLAYERS, {"deck": "virtual"}, random.Random(s)) for s in range(2, 40)]
    same_first = [g for g in others if g.state["revealed"] == first]
    assert same_first, "some other seed should turn up the same first tile"
    for g in same_first:
        assert json.dumps(g.state, sort_keys=True) == json.dumps(a.state, sort_keys=True)


def test_virtual_deck_reveals_every_regular_tile_once_over_the_early_game() -> None:
    game = DiceHunter(["ann", "bob", "cid", "dan"], {"deck": "virtual"}, random.Random(5))
    events = []
    while game.state["phase"] == "early":
        p = game.state["current_player"]
        game.apply(inp(type="roll", player=p, dice=[2, 3, 4, 6, 6]))
        events += game.apply(inp(type="choice", player=p, chips=True))
    revealed = game.state["revealed"]
    assert sorted(revealed) == sorted(t.id for t in REGULAR_TILES)
    assert [e.detail["tile"] for e in events if e.event == "tile_revealed"] == revealed[1:]
    assert any(e.event == "late_game_started" for e in events)


def test_outcomes_name_what_happened() -> None:
    game = DiceHunter(PLAYERS)
    assert game.apply(inp(type="reveal", tile="5-trio"))[0].to_json() == {
        "event": "tile_revealed",
        "detail": {"tile": "5-trio", "deck_remaining": 11},
    }
    game.apply(inp(type="roll", player="ann", dice=[5, 5, 1, 5, 2]))
    kept = game.apply(inp(type="choice", player="ann", keep=[5, 5, 5]))
    assert kept[0].to_json() == {"event": "kept", "player": "ann", "detail": {"kept": [5, 5, 5], "reroll": 2}}
    game.apply(inp(type="roll", player="ann", dice=[5, 5, 5, 5, 1]))
    taken = game.apply(inp(type="choice", player="ann", take="5-trio"))
    assert taken[0].to_json() == {
        "event": "tile_taken",
        "player": "ann",
        "detail": {"tile": "5-trio", "points": 350},
    }
    assert game.scores() == {"ann": 350, "bob": 0, "cid": 0}


def test_refusal_quotes_input_expectation_and_state() -> None:
    game = DiceHunter(PLAYERS)
    game.apply(inp(type="reveal", tile="5-trio"))
    with pytest.raises(RuleError) as err:
        game.apply(inp(type="roll", player="bob", dice=[1, 2, 3, 4, 5]))
    text = str(err.value)
    assert "'bob' may not give this input now" in text
    assert "roll from ann" in text and "'current_player': 'ann'" in text


def test_chips_stop_at_the_supply() -> None:
    game = DiceHunter(PLAYERS, {"deck": "virtual"})
    paid = []
    for _ in range(5):
        p = game.state["current_player"]
        game.apply(inp(type="roll", player=p, dice=[1, 1, 1, 1, 1]))
        out = game.apply(inp(type="choice", player=p, chips=True))
        paid.append(out[0].detail["chips"])
    assert paid == [5, 5, 5, 5, 0]
    assert game.state["chip_supply"] == 0
    assert sum(game.state["chips"].values()) == 20


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"type": "roll", "player": "ann", "dice": [{"kind": "d20", "value": 5}, 1, 2, 3, 4]}, "d6 only"),
        ({"type": "choice", "player": "ann", "keep": "5s"}, "'keep' must be a list of die values"),
        ({"type": "choice", "player": "ann", "keep": [True]}, "'keep' must be a list of die values"),
        ({"type": "choice", "player": "ann", "chips": True, "from": "bob"}, "'from' goes only with 'take'"),
        ({"type": "choice", "player": "ann", "take": 3}, "'take' must name a tile"),
        ({"type": "choice", "player": "ann", "take": "joker"}, "'take' must name a tile"),
        ({"type": "choice", "player": "ann", "take": "trio", "from": "zed"}, "must name another player"),
        ({"type": "reveal", "tile": "3-trio"}, "expected a choice input"),
    ],
)
def test_malformed_inputs_are_refused_and_change_nothing(bad: dict[str, object], message: str) -> None:
    game = DiceHunter(PLAYERS)
    game.apply(inp(type="reveal", tile="5-trio"))
    if bad["type"] != "roll":
        game.apply(inp(type="roll", player="ann", dice=[5, 5, 5, 1, 2]))
    before = json.dumps(game.state, sort_keys=True)
    with pytest.raises(RuleError, match=message):
        game.apply(Input.from_json(bad))
    assert json.dumps(game.state, sort_keys=True) == before


def test_cannot_steal_a_tile_the_named_player_does_not_hold() -> None:
    game = DiceHunter(PLAYERS, {"deck": "virtual"})
    first = True
    while game.state["phase"] == "early":
        p = game.state["current_player"]
        game.apply(inp(type="roll", player=p, dice=[6, 6, 6, 2, 3]))
        game.apply(
            inp(type="choice", player=p, take="trio") if first else inp(type="choice", player=p, chips=True)
        )
        first = False
    assert game.state["order"][0] == "ann"  # ann holds the Trio and leads
    game.apply(inp(type="roll", player="ann", dice=[2, 3, 4, 6, 6]))
    game.apply(inp(type="choice", player="ann", chips=True))
    second = game.state["current_player"]
    game.apply(inp(type="roll", player=second, dice=[4, 4, 4, 4, 1]))
    with pytest.raises(RuleError, match="'ann' does not hold it"):
        game.apply(inp(type="choice", player=second, take="quartet", **{"from": "ann"}))
    game.apply(inp(type="choice", player=second, take="trio", **{"from": "ann"}))
    assert game.state["holder"]["trio"] == second


def final_round_game() -> DiceHunter:
    """A 4-player game whose final round has just begun, everyone still on 0."""
    game = DiceHunter(["ann", "bob", "cid", "dan"], {"deck": "virtual"}, random.Random(3))
    while not game.state["final_round"]:
        p = game.state["current_player"]
        game.apply(inp(type="roll", player=p, dice=[2, 3, 4, 6, 6]))
        game.apply(inp(type="choice", player=p, chips=True))
    return game


def give(game: DiceHunter, player: str, tiles: list[str], chips: int = 0) -> None:
    for t in tiles:
        game.face_up.remove(t)
        game.holdings[player].append(t)
    game.chips[player] += chips
    game.chip_supply -= chips


def steals_with(game: DiceHunter, dice: list[int]) -> list[dict[str, str]]:
    trial = copy.deepcopy(game)
    p = trial.state["current_player"]
    trial.apply(inp(type="roll", player=p, dice=dice))
    return list(trial.expects().detail["steal"])


def test_final_round_first_example_of_the_rules() -> None:
    # 2nd place, 400 behind the leader who holds 200, 300 and 800: the 200 would only tie.
    game = final_round_game()
    top, you = game.state["order"][:2]
    give(game, top, ["trio", "quartet", "6-quintet"])
    give(game, you, [], chips=18)
    game.apply(inp(type="roll", player=top, dice=[2, 3, 4, 6, 6]))
    game.apply(inp(type="choice", player=top, chips=True))
    assert steals_with(game, [6, 6, 6, 6, 6]) == [
        {"tile": "quartet", "from": top},
        {"tile": "6-quintet", "from": top},
    ]


def test_final_round_second_example_of_the_rules() -> None:
    # 3rd place, 300 behind 2nd and 400 behind the top: 350+ from the top, 450+ from 2nd.
    game = final_round_game()
    top, second, you = game.state["order"][:3]
    give(game, top, ["5-trio", "3-trio", "2-trio"])  # 900
    give(game, second, ["6-quintet"])  # 800
    give(game, you, [], chips=10)  # 500
    for p in (top, second):
        game.apply(inp(type="roll", player=p, dice=[2, 3, 4, 6, 6]))
        game.apply(inp(type="choice", player=p, chips=True))
    assert steals_with(game, [5, 5, 5, 2, 2]) == [{"tile": "5-trio", "from": top}]
    assert steals_with(game, [3, 3, 3, 2, 2]) == []
    assert steals_with(game, [6, 6, 6, 6, 6]) == [{"tile": "6-quintet", "from": second}]
