"""Nozoku Dice: the rating table, secrecy, data and option errors, and the edges scenarios cannot reach."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from controller.scenario import PACKAGE_ROOT, load_data_file
from engine import DataError, Input, RuleError, find_game
from engine import nozoku_dice as nz
from engine.nozoku_dice import CaveDie, HouseAcquisition, MagicCard, NozokuDice, parse_deck, rating

DECK_FILE = PACKAGE_ROOT / "decks" / "nozoku-dice.example.toml"
RAW_DECK = load_data_file(DECK_FILE)
CENTRE = "r1 r2 r3 r3 r4 r6 b3 b3 b5 b6 b1 b2 g4 g4 g5 g5 g6 g1"
COLOURS = {"r": "red", "b": "blue", "g": "green", "y": "yellow"}


def dice(text: str) -> list[dict[str, Any]]:
    return [{"kind": "d6", "value": int(t[1]), "colour": COLOURS[t[0]]} for t in text.split()]


def game(
    players: Sequence[str] = ("ann",), options: Mapping[str, Any] | None = None, seed: int = 0
) -> NozokuDice:
    return NozokuDice(list(players), options, random.Random(seed), {"cards": parse_deck(RAW_DECK, "example")})


def feed(g: NozokuDice, *inputs: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for inp in inputs:
        out += [o.to_json() for o in g.apply(Input.from_json(inp))]
    return out


def roll(player: str, text: str) -> dict[str, Any]:
    return {"type": "roll", "player": player, "dice": dice(text)}


def choice(player: str, **payload: Any) -> dict[str, Any]:
    return {"type": "choice", "player": player, **payload}


def solo_at_prophecy(hand: str = "r2 r5", options: Mapping[str, Any] | None = None) -> NozokuDice:
    g = game(("ann",), {"colours": {"ann": "red"}, **(options or {})})
    feed(g, roll("ann", hand), roll("ann", CENTRE))
    return g


# -- the rating table (評価) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("magic", "english", "japanese"),
    [
        (0, "almost human", "ほぼ人間"),
        (20, "almost human", "ほぼ人間"),  # the document lists 20 in two rows; the ruling says this one
        (21, "beginner", "初心者"),
        (24, "beginner", "初心者"),
        (25, "novice", "初級者"),
        (29, "novice", "初級者"),
        (30, "intermediate", "中級者"),
        (34, "intermediate", "中級者"),
        (35, "apprentice graduate", "見習い卒業"),
        (39, "apprentice graduate", "見習い卒業"),
        (40, "advanced", "上級者"),
        (49, "advanced", "上級者"),
        (50, "expert", "熟練者"),
        (59, "expert", "熟練者"),
        (60, "legendary", "伝説級"),
        (69, "legendary", "伝説級"),
        (70, "divine", "神の領域"),
        (150, "divine", "神の領域"),
    ],
)
def test_rating_table_follows_the_document(magic: int, english: str, japanese: str) -> None:
    assert rating(magic) == (english, japanese)


# -- secrets -------------------------------------------------------------------------------------


def two_players_at_selection() -> NozokuDice:
    g = game(("ann", "bob"))
    feed(
        g,
        roll("ann", "r3 r4"),
        roll("bob", "b1 b5"),
        roll("ann", "r4 r4 r2 r6 b2 b3 b4 b6 g1 g2 g3 g5 g6 g6"),
        roll("bob", "r4 b3 g2 g5"),
    )
    assert g.state["phase"] == "select"
    return g


def public_view(g: NozokuDice, outcomes: list[dict[str, Any]]) -> str:
    return json.dumps({"state": g.state, "outcomes": outcomes}, sort_keys=True)


def test_a_secret_card_shows_only_who_confirmed_until_the_reveal() -> None:
    views = []
    for card in (3, 5):
        g = two_players_at_selection()
        outcomes = feed(g, {"type": "secret", "player": "ann", "card": card})
        assert g.state["selected"] == ["ann"]
        assert g.expects().detail["confirmed"] == ["ann"]
        assert g.private_json("ann")["selected"] == card
        assert g.private_json("bob")["selected"] is None
        views.append(public_view(g, outcomes))
    # The state, expectation and outcomes everyone can see do not depend on which card ann chose.
    assert views[0] == views[1]


def test_a_refused_secret_never_quotes_the_card() -> None:
    messages = []
    for card in (8, 9):
        g = two_players_at_selection()
        with pytest.raises(RuleError) as err:
            g.apply(Input.from_json({"type": "secret", "player": "bob", "card": card}))
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "not in the player's hand" in messages[0]
    g = two_players_at_selection()
    feed(g, {"type": "secret", "player": "ann", "card": 6})
    with pytest.raises(RuleError) as err:
        g.apply(Input.from_json({"type": "secret", "player": "ann", "card": 2}))
    assert "already confirmed" in str(err.value) and "6" not in str(err.value).split("state:")[0]


def test_cards_are_revealed_together_and_hands_stay_hidden_in_multiplayer() -> None:
    g = two_players_at_selection()
    assert "hand" not in g.state and g.state["hand_size"] == {"ann": 6, "bob": 6}
    feed(g, {"type": "secret", "player": "bob", "card": 4})
    outcomes = feed(g, {"type": "secret", "player": "ann", "card": 3})
    revealed = [o for o in outcomes if o["event"] == "cards_revealed"]
    assert revealed[0]["detail"]["cards"]["ann"]["number"] == 3
    assert revealed[0]["detail"]["cards"]["bob"]["number"] == 4
    assert revealed[0]["detail"]["order"] == ["bob", "ann"]
    assert g.private_json("ann")["hand"] == [1, 2, 4, 5, 6]
    with pytest.raises(ValueError, match="unknown player 'zed'"):
        g.private_json("zed")


# -- data and options ----------------------------------------------------------------------------


def test_the_game_is_found_by_its_table_name() -> None:
    assert find_game("nozoku-dice") is NozokuDice


def deck_with(i: int, **changes: Any) -> dict[str, Any]:
    cards = [dict(c) for c in RAW_DECK["cards"]]
    cards[i].update(changes)
    return {"cards": cards}


@pytest.mark.parametrize(
    ("raw", "entry", "field_name"),
    [
        ({"cards": []}, "cards", "cards"),
        ({"cards": "six"}, "cards", "cards"),
        (deck_with(2, number=7), "cards[2]", "number"),
        (deck_with(1, main_face=0), "cards[1]", "main_face"),
        (deck_with(4, sub_face="six"), "cards[4]", "sub_face"),
        (deck_with(0, main_action="teleport"), "cards[0]", "main_action"),
        (deck_with(5, sub_action=None), "cards[5]", "sub_action"),
        (deck_with(5, number=1), "cards[5]", "number"),
        ({"cards": [1, 2, 3, 4, 5, 6]}, "cards[0]", "-"),
    ],
)
def test_a_bad_deck_names_the_file_entry_and_field(raw: dict[str, Any], entry: str, field_name: str) -> None:
    with pytest.raises(DataError) as err:
        NozokuDice.parse_data("cards", raw, "my-deck.toml")
    assert err.value.source == "my-deck.toml"
    assert (err.value.entry, err.value.field) == (entry, field_name)


def test_the_example_deck_is_loaded_and_raw_decks_are_parsed() -> None:
    deck = NozokuDice.parse_data("cards", RAW_DECK, str(DECK_FILE))
    assert sorted(deck) == [1, 2, 3, 4, 5, 6]
    assert isinstance(deck[3], MagicCard) and deck[3].main_action is nz.Action.FLIP
    g = NozokuDice(["ann"], {}, random.Random(0), {"cards": RAW_DECK})
    assert g.deck == deck
    assert NozokuDice.parse_data("other", {"x": 1}, "f") == {"x": 1}


def test_a_game_without_card_data_is_refused() -> None:
    with pytest.raises(RuleError, match="needs its card texts"):
        NozokuDice(["ann"])


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        ([], {}, "1-4 players"),
        (["a", "b", "c", "d", "e"], {}, "1-4 players"),
        (["hidden-wizard"], {}, "cannot be called 'hidden-wizard'"),
        (["ann"], {"colour": "red"}, "unknown nozoku-dice option(s) ['colour']"),
        (["ann"], {"palette": ["red", "red", "blue", "green"]}, "option 'palette'"),
        (["ann"], {"colours": {"ann": "pink"}}, "option 'colours'"),
        (["ann", "bob"], {"colours": {"ann": "red", "bob": "red"}}, "option 'colours'"),
        (["ann"], {"colours": {"zed": "red"}}, "option 'colours'"),
        (["ann"], {"extra_colours": ["blue"]}, "option 'extra_colours'"),
        (["ann"], {"colours": {"ann": "red"}, "extra_colours": ["red", "blue"]}, "option 'extra_colours'"),
        (["ann", "bob", "cid"], {"extra_colours": ["yellow"]}, "option 'extra_colours'"),
        (["ann"], {"prophecy": "tarot"}, "option 'prophecy'"),
        (["ann"], {"optional_actions": "yes"}, "option 'optional_actions'"),
        (["ann"], {"doubles_flip": 1}, "option 'doubles_flip'"),
        (["ann"], {"acquisition": "guess"}, "option 'acquisition'"),
    ],
)
def test_bad_players_or_options_are_refused_by_name(
    players: list[str], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(RuleError) as err:
        game(players, options)
    assert message in str(err.value)


def test_colours_and_dice_in_play_follow_the_player_count() -> None:
    solo = game(("ann",), {"colours": {"ann": "green"}, "extra_colours": ["yellow", "red"]})
    assert solo.state["in_play"] == {"green": 8, "yellow": 6, "red": 6}
    assert solo.state["box"] == {"red": 2, "blue": 8, "green": 0, "yellow": 2}
    pair = game(("ann", "bob"), {"palette": ["navy", "ivory", "jade", "gold"]})
    assert pair.state["colours"] == {"ann": "navy", "bob": "ivory"}
    assert pair.state["in_play"] == {"navy": 6, "ivory": 6, "jade": 6}


# -- rules the scenarios do not reach ----------------------------------------------------------


def test_without_doubles_flip_a_pair_stays_and_an_impossible_action_is_skipped() -> None:
    g = solo_at_prophecy("r6 r6", {"doubles_flip": False})
    assert [d["value"] for d in g.state["held"]["ann"]] == [6, 6]
    out = feed(g, choice("ann", card=6), roll("ann", "r6 r5 b3 b2"))
    # Up cannot raise a 6: the action is skipped and the game moves on to the acquisition.
    assert out[-1] == {
        "event": "action_impossible",
        "player": "ann",
        "detail": {"action": "up", "card": 6},
    }
    assert g.state["phase"] == "play"


def test_doubles_are_flipped_by_default() -> None:
    g = solo_at_prophecy("r6 r6")
    assert [d["value"] for d in g.state["held"]["ann"]] == [6, 1]


def test_compulsory_actions_refuse_a_skip() -> None:
    g = solo_at_prophecy(options={"optional_actions": False})
    feed(g, choice("ann", card=3), roll("ann", "r3 r5 b3 b6"))
    assert "may_skip" not in g.expects().detail
    with pytest.raises(RuleError, match="flip is compulsory here"):
        g.apply(Input.from_json(choice("ann", action="skip")))
    with pytest.raises(RuleError, match="main action is 'flip', not 'up'"):
        g.apply(Input.from_json(choice("ann", action="up", die=0)))
    feed(g, choice("ann", action="flip", die=0))
    assert g.state["held"]["ann"][0]["value"] == 5


def test_a_prophecy_that_empties_the_hand_takes_a_die_and_returns_the_cards_first() -> None:
    g = solo_at_prophecy()
    g.hands["ann"] = [3]  # as if the other five cards were played: 6 cards never empty on a prophecy
    g.played["ann"] = [1, 2, 4, 5, 6]
    feed(g, choice("ann", card=3))
    assert g.state["phase"] == "refill"
    with pytest.raises(RuleError, match="several colours show 3: name one of"):
        g.apply(Input.from_json(choice("ann", take={"value": 3})))
    feed(g, choice("ann", take={"value": 3, "colour": "blue"}))
    assert g.state["hand"] == {"ann": [1, 2, 3, 4, 5, 6]}
    assert g.state["prophecy"]["number"] == 3
    assert g.state["phase"] == "prep_reroll"
    # With one blue 3 gone, 1, 3, 4, 5 and 6 all show three times: all of them are rerolled.
    assert g.expects().detail["faces"] == [1, 3, 4, 5, 6]


def test_all_cards_played_with_an_empty_centre_only_returns_the_cards() -> None:
    g = solo_at_prophecy()
    feed(g, choice("ann", card=3), roll("ann", "r3 r5 b3 b6"), choice("ann", action="skip"))
    g.hands["ann"] = [5]
    g.played["ann"] = [1, 2, 3, 4, 6]
    g.centre = [CaveDie(5, "blue")]  # card 5 will take the last die of the centre
    out = feed(g, choice("ann", card=5), choice("ann", action="skip"))
    assert {"event": "cards_returned", "player": "ann", "detail": {"die": None}} in out
    assert g.state["phase"] == "over"
    assert g.hands["ann"] == [1, 2, 3, 4, 5, 6]


def test_the_random_prophecy_comes_from_the_seeded_rng() -> None:
    drawn = {}
    for seed in range(12):
        g = game(("ann",), {"prophecy": "random"}, seed)
        out = feed(g, roll("ann", "r2 r5"), roll("ann", CENTRE))
        card = g.state["prophecy"]["number"]
        assert card not in g.state["hand"]["ann"] and g.state["hand_size"]["ann"] == 5
        assert out[-1]["event"] == "prophecy_played" and out[-1]["detail"]["card"]["number"] == card
        again = game(("ann",), {"prophecy": "random"}, seed)
        feed(again, roll("ann", "r2 r5"), roll("ann", CENTRE))
        assert again.state["prophecy"]["number"] == card
        drawn[seed] = card
    assert len(set(drawn.values())) > 1


def test_malformed_choices_are_refused_without_a_traceback() -> None:
    g = solo_at_prophecy()
    feed(g, choice("ann", card=2), roll("ann", "r2 r5 b3 b6"))
    before = json.dumps(g.state, sort_keys=True)
    for bad in (
        choice("ann", action="distribute", die=1, raise_={"x": 1}),
        choice("ann", action="distribute", die=1, **{"raise": {"x": 1}}),
        choice("ann", action="distribute", die=1, **{"raise": {"0": True}}),
        choice("ann", action="distribute", die=None),
        {"type": "secret", "player": "ann", "card": 1},
        {"type": "roll", "player": "ann", "dice": "r1"},
    ):
        with pytest.raises(RuleError):
            g.apply(Input.from_json(bad))
        assert json.dumps(g.state, sort_keys=True) == before


# -- the extension point ------------------------------------------------------------------------


def test_house_start_player_is_the_lowest_total_with_ties_rotating() -> None:
    rules = HouseAcquisition()
    seats = ["ann", "bob", "cid"]
    assert rules.start_player({"ann": 9, "bob": 5, "cid": 7}, seats, None) == "bob"
    assert rules.start_player({"ann": 5, "bob": 9, "cid": 5}, seats, None) == "ann"
    assert rules.start_player({"ann": 5, "bob": 9, "cid": 5}, seats, "ann") == "cid"
    assert rules.start_player({"ann": 5, "bob": 9, "cid": 5}, seats, "cid") == "ann"


class OneDieOpenPlay(HouseAcquisition):
    """Another reading of the outline: open play in turn, a card takes one die, no peeking."""

    def secret_selection(self, players: int) -> bool:
        return False

    def take(self, centre: Sequence[CaveDie], card: MagicCard) -> list[CaveDie]:
        return [d for d in centre if d.value == card.main_face][:1]

    def peekers(
        self,
        actor: str,
        taken: Sequence[CaveDie],
        top_cards: Mapping[str, MagicCard | None],
        order: Sequence[str],
    ) -> list[str]:
        return []


def test_another_acquisition_reading_plugs_in_through_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(nz.ACQUISITION_RULES, "one-die", OneDieOpenPlay)
    g = game(("ann", "bob"), {"acquisition": "one-die"})
    feed(
        g,
        roll("ann", "r3 r4"),
        roll("bob", "b1 b5"),
        roll("ann", "r4 r4 r2 r6 b2 b3 b4 b6 g1 g2 g3 g5 g6 g6"),
        roll("bob", "r4 b3 g2 g5"),
    )
    assert g.state["acquisition"] == "one-die"
    exp = g.expects()
    assert exp.kind is not None and exp.kind.value == "choice" and exp.players == ("bob",)
    feed(g, choice("bob", card=4))
    assert len(g.state["held"]["bob"]) == 3  # one 4, not all four
    feed(g, choice("bob", action="skip"), choice("ann", card=3))
    assert len(g.state["held"]["ann"]) == 3
