"""The games' pure queries: what a player may choose now, which dice and colours a game uses,
what a throw means, and which expectations are secret.  The table asks these instead of reading a
game's internals."""

from __future__ import annotations

from typing import Any

import pytest

from controller.scenario import Setup, new_game
from engine import ChoiceField, DieKind, Expectation, Input, InputKind, RuleError
from engine.dice_fighter import DiceFighter
from engine.dice_hunter import DiceHunter
from engine.die_angler import DieAngler


def make(name: str, players: list[str], options: dict[str, Any] | None = None) -> Any:
    """A game with its shipped data files loaded, as a table starts it."""
    return new_game(Setup(name, tuple(players), dict(options or {}), 0, {}))


def inp(**data: Any) -> Input:
    return Input.from_json(data)


def fighter_die(value: int, colour: str, side: str) -> dict[str, Any]:
    return {"kind": "d10p", "value": value, "colour": colour, "side": side, "field_status": "field"}


def fighters_at_declarations(**options: Any) -> DiceFighter:
    game = make("dice-fighter", ["ann", "bob"], {"initial_power": {}, **options})
    game.apply(inp(type="secret", player="ann", fighter="lv1-brawler"))
    game.apply(inp(type="secret", player="bob", fighter="lv3-champion"))
    dice = [
        fighter_die(20, "red", "a"),
        fighter_die(80, "blue", "a"),
        fighter_die(50, "green", "a"),
        fighter_die(70, "red", "b"),
        fighter_die(70, "green", "b"),
        fighter_die(10, "blue", "b"),
    ]
    game.apply(inp(type="throw", dice=dice))
    return game


def test_an_expectation_is_secret_for_a_secret_selection_or_a_hidden_choice() -> None:
    assert Expectation(InputKind.SECRET, ("ann",)).secret
    assert Expectation(InputKind.CHOICE, ("ann",), hidden=True).secret
    assert not Expectation(InputKind.CHOICE, ("ann",)).secret
    assert Expectation(InputKind.CHOICE, ("ann",), hidden=True).to_json()["secret"] is True
    assert "secret" not in Expectation(InputKind.ROLL, ("ann",)).to_json()


def test_dice_fighter_declarations_are_secret_unless_the_table_plays_them_open() -> None:
    game = fighters_at_declarations()
    assert game.expects().secret and game.expects().players == ("ann", "bob")
    assert game.choices("ann") == [
        ("attack normal", {"attack": "normal"}),
        ("attack lv1-brawler", {"attack": "lv1-brawler"}),
    ]
    assert game.choices("nobody") == []
    open_game = fighters_at_declarations(open_declarations=True)
    assert not open_game.expects().secret


def test_dice_fighter_offers_the_fighters_not_in_play_or_the_players_hand() -> None:
    game = make("dice-fighter", ["ann", "bob"], {"initial_power": {}})
    (field,) = game.secret_fields("ann")
    assert field.name == "fighter" and ("lv1-brawler", "lv1-brawler") in field.options
    assert game.secret_payload({"fighter": "lv1-brawler"}) == {"fighter": "lv1-brawler"}
    deck = [v for _, v in field.options]
    hands = {"ann": deck[:6], "bob": deck[6:12]}
    dealt = make("dice-fighter", ["ann", "bob"], {"initial_power": {}, "hands": hands})
    assert [v for _, v in dealt.secret_fields("bob")[0].options] == sorted(deck[6:12])
    with pytest.raises(RuleError, match="no secret selection"):
        fighters_at_declarations().secret_fields("ann")  # it expects declarations now


def test_dice_fighter_passes_or_uses_a_card_in_a_card_window() -> None:
    game = make("dice-fighter", ["ann", "bob"], {"initial_power": {}})
    assert game.choices("ann") == []  # a secret selection is not a choice
    assert DiceFighter.dice_kinds == (DieKind.D10P,) and DiceFighter.die_kind() is DieKind.D10P
    assert game.dice_colours({"ann": "yellow"}) == {"red", "blue", "green"}
    assert game.board_colours({"ann": "yellow"}) == {"red", "blue", "green"}
    assert DiceFighter.hidden_choices == {"attack"}


def test_dice_hunter_choices_and_what_a_roll_with_kept_dice_means() -> None:
    game = DiceHunter(["ann", "bob", "cid"], {"deck": "virtual"})
    assert game.choices("ann") == []  # it expects a roll
    game.apply(inp(type="roll", player="ann", dice=[3, 3, 3, 5, 6]))
    options = dict(game.choices("ann"))
    assert options["keep 3 3 3"] == {"keep": [3, 3, 3]} and options["keep 6"] == {"keep": [6]}
    assert game.choices("bob") == []
    game.apply(inp(type="choice", player="ann", keep=[3, 3, 3]))
    assert game.shows_unthrown_dice
    rolled = game.thrown(inp(type="roll", player="ann", dice=[3, 3, 3, 1, 2]))
    assert [d.value for d in rolled] == [1, 2]  # the kept 3s were shown again, not rolled
    assert DiceHunter.die_kind() is DieKind.D6 and game.dice_colours({"ann": "red"}) is None


def test_die_angler_secret_fields_build_the_selection_the_engine_takes() -> None:
    game = make("die-angler", ["ann", "bob"])
    with pytest.raises(RuleError):
        game.secret_fields("ann")  # a card is revealed first
    game.apply(inp(type="reveal", card=game.expects().detail["cards"][0]))
    fields = game.secret_fields("ann")
    assert [f.name for f in fields] == ["d6", "d10", "d20"]
    assert [v for _, v in fields[0].options] == [0, 1, 2, 3, 4, 5]
    assert [label for label, _ in fields[1].options] == ["none", "chum", "reapproach"]
    payload = game.secret_payload({"d6": 3, "d10": "chum", "d20": None})
    assert payload == {"d6": 3, "specials": {"d10": "chum"}}
    game.apply(Input(InputKind.SECRET, "ann", payload))
    assert DieAngler.die_kind() is None and set(DieAngler.dice_kinds) == {
        DieKind.D6,
        DieKind.D10,
        DieKind.D20,
    }
    assert game.dice_colours({"ann": "Red", "bob": "blue"}) == {"red", "blue"}


def test_die_angler_offers_done_when_a_player_may_stop() -> None:
    game = make("die-angler", ["ann", "bob"], {"advanced": True})
    game.apply(inp(type="reveal", card="tako"))
    assert game.secret_fields("ann")[1].options[-1] == ("lure", "lure")
    game.apply(inp(type="secret", player="ann", d6=2, specials={"d10": "lure"}))
    game.apply(inp(type="secret", player="bob", d6=0))
    game.apply(inp(type="roll", player="ann", dice=[3, 4, {"kind": "d10", "value": 5}]))
    assert game.expects().kind is InputKind.CHOICE
    assert game.choices("ann") == [("done", {"done": True})] and game.choices("bob") == []


def test_nozoku_offers_the_players_own_hand_and_names_the_colours_in_play() -> None:
    game = make("nozoku-dice", ["ann", "bob"])
    assert game.dice_colours({}) == {"red", "blue", "green"}  # two players: three colours
    with pytest.raises(RuleError):
        game.secret_fields("ann")  # the hands are rolled first


def test_a_game_without_the_query_answers_the_default() -> None:
    game = make("dicetar-wars", ["ann", "bob"])
    assert game.choices("ann") == [] and game.secret_payload({"x": 1}) == {"x": 1}
    with pytest.raises(RuleError, match="no secret selection"):
        game.secret_fields("ann")
    assert game.throw_shows_board and game.dice_colours({"ann": "Red"}) == {"red"}
    assert ChoiceField("x", (("a", 1),)).options == (("a", 1),)
    with pytest.raises(ValueError, match="at least one option"):
        ChoiceField("x", ())
