"""Die-angler: what the scenarios cannot say (secrecy, options, deck files, card conditions)."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.scenario import run_scenario, run_scenario_file
from engine import DataError, Input, InputKind, Outcome, RuleError, find_game
from engine.die_angler import DieAngler, FishCard, parse_deck

ROOT = Path(__file__).resolve().parent.parent.parent
DECK_FILE = ROOT / "decks" / "die-angler.example.toml"
SCENARIOS = sorted((ROOT / "tests" / "scenarios" / "die-angler").glob("*.jsonl"))
PLAYERS = ["ann", "bob", "cid"]


def raw_deck() -> dict[str, Any]:
    return tomllib.loads(DECK_FILE.read_text(encoding="utf-8"))


def deck() -> tuple[FishCard, ...]:
    return parse_deck(raw_deck(), str(DECK_FILE))


def new(players: list[str] | None = None, seed: int = 0, **options: Any) -> DieAngler:
    return DieAngler(players or PLAYERS, options, random.Random(seed), {"deck": deck()})


def inp(**data: Any) -> Input:
    return Input.from_json(data)


def play(game: DieAngler, *lines: dict[str, Any]) -> list[Outcome]:
    out: list[Outcome] = []
    for line in lines:
        out += game.apply(inp(**line))
    return out


def public_view(game: DieAngler, outcomes: list[Outcome]) -> str:
    """Everything a display, the API or a log line could show about the game."""
    return json.dumps(
        {"state": game.state, "expects": game.expects().to_json(), "out": [o.to_json() for o in outcomes]},
        sort_keys=True,
    )


def test_registered_under_its_table_name() -> None:
    assert find_game("die-angler") is DieAngler


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    assert run_scenario_file(path).inputs > 0


def test_there_is_a_scenario_for_every_rule_area() -> None:
    names = {p.stem for p in SCENARIOS}
    for needed in (
        "secret-selection",
        "roll-order",
        "conditions",
        "simultaneous-closest",
        "carry-over-chain",
        "reroll-rights",
        "lure",
        "d10-zero",
        "cooldown",
        "pass",
        "end-last-card-taken",
        "end-last-carry-over",
        "extra-game",
        "shared-victory",
        "five-players",
        "virtual-deck",
    ):
        assert needed in names


# -- secrecy -------------------------------------------------------------------


@pytest.mark.parametrize(
    "selection",
    [
        {"d6": 0},
        {"d6": 5, "specials": {"d10": "chum", "d20": "reapproach"}},
        {"d6": 2, "specials": {"d20": "lure"}},
        {"d6": 4, "specials": {"d10": "re-approach"}},
    ],
)
def test_nothing_of_a_selection_shows_before_everyone_has_confirmed(selection: dict[str, Any]) -> None:
    """Two tables where ann chose differently must look exactly alike until the reveal."""
    views = []
    for sel in ({"d6": 1}, selection):
        g = new(advanced=True)
        out = play(
            g,
            {"type": "reveal", "card": "aji"},
            {"type": "secret", "player": "ann", **sel},
            {"type": "secret", "player": "cid", "d6": 3},
        )
        views.append(public_view(g, out))
        assert g.state["confirmed"] == ["ann", "cid"]
        assert g.expects().players == ("bob",)
    assert views[0] == views[1]


def test_the_reveal_shows_every_selection_at_once_and_modes_when_called() -> None:
    g = new(advanced=True)
    play(
        g,
        {"type": "reveal", "card": "aji"},
        {"type": "secret", "player": "ann", "d6": 3, "specials": {"d10": "lure"}},
        {"type": "secret", "player": "bob", "d6": 1},
    )
    out = g.apply(inp(type="secret", player="cid", d6=2))
    reveal = next(o for o in out if o.event == "selections_revealed")
    assert reveal.detail["selections"]["ann"] == {
        "d6": 3,
        "specials": ["d10"],
        "count": 4,
        "special_count": 1,
    }
    assert reveal.detail["selections"]["cid"]["count"] == 2
    # bob rolls first; ann's lure is not public until her group is called.
    assert "lure" not in public_view(g, out)
    play(g, {"type": "roll", "player": "bob", "dice": [1]}, {"type": "roll", "player": "cid", "dice": [1, 1]})
    assert g.state["selections"]["ann"]["modes"] == {"d10": "lure"}


def test_option_modes_public_at_reveal() -> None:
    g = new(modes_public="reveal")
    out = play(
        g,
        {"type": "reveal", "card": "aji"},
        {"type": "secret", "player": "ann", "d6": 3, "specials": {"d20": "chum"}},
        {"type": "secret", "player": "bob", "d6": 1},
        {"type": "secret", "player": "cid", "d6": 2},
    )
    reveal = next(o for o in out if o.event == "selections_revealed")
    assert reveal.detail["selections"]["ann"]["modes"] == {"d20": "chum"}


@pytest.mark.parametrize(
    "bad",
    [
        {"d6": 4, "specials": {"d10": "lure"}},  # lure without the advanced rules
        {"d6": 9},
        {"d6": 4, "specials": {"d10": "chum"}, "note": "secret plan"},
        {"d6": 4, "specials": {"d10": 17}},
    ],
)
def test_a_refused_selection_is_not_quoted_in_the_error(bad: dict[str, Any]) -> None:
    g = new()
    play(g, {"type": "reveal", "card": "aji"})
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(RuleError) as err:
        g.apply(inp(type="secret", player="ann", **bad))
    msg = str(err.value)
    assert "<hidden>" in msg
    for key, value in bad.items():
        if key != "specials":
            assert repr(value) not in msg.replace("'d6'", "")
    assert "secret plan" not in msg and "'d6': 4" not in msg
    assert json.dumps(g.state, sort_keys=True) == before


def test_a_secret_out_of_turn_is_not_quoted_either() -> None:
    g = new()
    with pytest.raises(RuleError) as err:
        g.apply(inp(type="secret", player="ann", d6=4, specials={"d20": "reapproach"}))
    assert "reapproach" not in str(err.value) and "<hidden>" in str(err.value)


# -- setup and options -------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (["ann"], {}, "2-5 players"),
        (["a", "b", "c", "d", "e", "f"], {}, "2-5 players"),
        (PLAYERS, {"deck": "shuffled"}, "option 'deck' must be 'physical' or 'virtual'"),
        (PLAYERS, {"dek": "virtual"}, "unknown Die-angler option 'dek'"),
        (PLAYERS, {"advanced": "yes"}, "option 'advanced' must be true or false"),
        (PLAYERS, {"modes_public": "never"}, "option 'modes_public'"),
        (PLAYERS, {"colours": {"ann": "red", "bob": "blue"}}, "must map every player"),
        (PLAYERS, {"colours": {"ann": "red", "bob": "red", "cid": "blue"}}, "different colours"),
        (PLAYERS, {"colours": {"ann": "red", "bob": "pink", "cid": "blue"}}, "different colours"),
    ],
)
def test_bad_setup_is_refused_with_a_clear_message(
    players: list[str], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        DieAngler(players, options, random.Random(0), {"deck": deck()})


def test_the_deck_must_be_given_and_may_be_given_raw() -> None:
    with pytest.raises(ValueError, match=r"needs data\['deck'\]"):
        DieAngler(PLAYERS, {}, random.Random(0), {})
    g = DieAngler(PLAYERS, {}, random.Random(0), {"deck": raw_deck()})
    assert g.expects().detail["cards"][0] == "iwashi"
    bad = raw_deck()
    bad["cards"] = bad["cards"][:3]
    with pytest.raises(DataError, match="has 15 fish cards, got 3"):
        DieAngler(PLAYERS, {}, random.Random(0), {"deck": bad})


def test_virtual_deck_hides_face_down_and_removed_cards() -> None:
    g = new(deck="virtual", seed=11)
    hidden = g._hidden_deck + g._hidden_removed
    text = json.dumps(g.state)
    assert g.state["card"]["id"] not in hidden
    assert not [c for c in hidden if f'"{c}"' in text]
    with pytest.raises(RuleError, match="expected a secret input"):
        g.apply(inp(type="reveal", card=hidden[0]))


def test_same_seed_same_virtual_deck_other_seed_other_deck() -> None:
    order = [new(deck="virtual", seed=s)._hidden_deck for s in (1, 1, 2)]
    assert order[0] == order[1] and order[0] != order[2]


# -- the deck file -----------------------------------------------------------


def test_the_shipped_deck_is_a_marked_example_of_15_cards() -> None:
    raw = raw_deck()
    assert raw["example"] is True
    assert "EXAMPLE" in DECK_FILE.read_text(encoding="utf-8").splitlines()[0]
    cards = deck()
    assert len(cards) == 15 and len({c.id for c in cards}) == 15
    assert any(c.faces for c in cards) and any(c.equals for c in cards) and any(c.distinct for c in cards)


def _with_card(**changes: Any) -> dict[str, Any]:
    raw = raw_deck()
    raw["cards"][2] = {**raw["cards"][2], **changes}
    return raw


@pytest.mark.parametrize(
    ("raw", "entry", "field", "why"),
    [
        (_with_card(target=0), "aji", "target", "1-200"),
        (_with_card(target="7"), "aji", "target", "whole number"),
        (_with_card(id=""), "cards[2]", "id", "non-empty"),
        (_with_card(id="iwashi"), "iwashi", "id", "duplicate"),
        (_with_card(colour="red"), "aji", "colour", "unknown field"),
        (_with_card(name=3), "aji", "name", "non-empty string"),
        (_with_card(conditions=[1]), "aji", "conditions", "expected a table"),
        (_with_card(conditions={"faces": [0]}), "aji", "conditions.faces", "1-20"),
        (_with_card(conditions={"faces": "6"}), "aji", "conditions.faces", "list of whole numbers"),
        (_with_card(conditions={"equals": [1]}), "aji", "conditions.equals", "2-20"),
        (_with_card(conditions={"distinct": "yes"}), "aji", "conditions.distinct", "true or false"),
        (_with_card(conditions={"distinct": True, "equals": [2]}), "aji", "conditions.distinct", "at once"),
        (_with_card(conditions={"pairs": 2}), "aji", "conditions.pairs", "unknown condition"),
        ({**raw_deck(), "cards": "none"}, "-", "cards", "list of [[cards]]"),
        ({**raw_deck(), "example": "yes"}, "-", "example", "true or false"),
        ({**raw_deck(), "fish": []}, "-", "fish", "unknown top-level key"),
        ({"cards": [*raw_deck()["cards"], "tuna"]}, "cards[15]", "-", "expected a table"),
    ],
)
def test_bad_deck_entries_name_file_card_and_field(
    raw: dict[str, Any], entry: str, field: str, why: str
) -> None:
    with pytest.raises(DataError) as err:
        DieAngler.parse_data("deck", raw, "my-deck.toml")
    assert err.value.source == "my-deck.toml"
    assert (err.value.entry, err.value.field) == (entry, field)
    assert why in str(err.value)


def test_parse_data_only_knows_the_deck() -> None:
    with pytest.raises(DataError, match="only reads a 'deck'"):
        DieAngler.parse_data("board", {}, "x.toml")


# -- card conditions ---------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "values", "caught"),
    [
        (FishCard("a", "A", 7), [3, 4], True),
        (FishCard("a", "A", 7), [3, 3], False),
        (FishCard("a", "A", 8, faces=(4, 4)), [4, 4], True),
        (FishCard("a", "A", 8, faces=(4, 4)), [4, 5], False),
        (FishCard("a", "A", 6, faces=(1, 2, 3)), [3, 2, 1], True),
        (FishCard("a", "A", 6, equals=(2,)), [3, 3, 3], True),
        (FishCard("a", "A", 6, equals=(2, 2)), [3, 3, 3, 3], False),
        (FishCard("a", "A", 6, equals=(2, 2)), [3, 3, 2, 2], True),
        (FishCard("a", "A", 6, equals=(3, 2)), [3, 3, 3, 2, 2], True),
        (FishCard("a", "A", 6, equals=(3, 2)), [3, 3, 2, 2, 1], False),
        (FishCard("a", "A", 6, equals=(3,)), [6], False),
        (FishCard("a", "A", 9, distinct=True), [2, 3, 4], True),
        (FishCard("a", "A", 9, distinct=True), [2, 3, 4, 2], False),
        (FishCard("a", "A", 1, faces=(10,)), [10], True),
    ],
)
def test_card_conditions(card: FishCard, values: list[int], caught: bool) -> None:
    assert card.caught_by(values) is caught


# -- rolls and choices the scenarios do not cover -------------------------------


def _ann_rolls(g: DieAngler, selection: dict[str, Any], dice: list[Any], card: str = "aji") -> None:
    play(
        g,
        {"type": "reveal", "card": card},
        {"type": "secret", "player": "ann", **selection},
        {"type": "secret", "player": "bob", "d6": 0},
        {"type": "secret", "player": "cid", "d6": 0},
        {"type": "roll", "player": "ann", "dice": dice},
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"type": "roll", "player": "ann", "dice": [1]}, "picked up no dice"),
        ({"type": "choice", "player": "ann", "done": False}, "'done' must be true"),
        ({"type": "choice", "player": "ann", "reroll": "d10"}, "a reroll is"),
        (
            {"type": "choice", "player": "ann", "lure": {"by": "d20", "changes": [{"die": 0, "delta": 1}]}},
            "not in lure mode",
        ),
        ({"type": "choice", "player": "ann", "reroll": {"by": "d20", "dice": [True]}}, "no die True"),
        ({"type": "reveal", "card": "tai"}, "expected a roll or a choice"),
        ({"type": "start"}, "expected a roll or a choice"),
    ],
)
def test_illegal_choices_are_refused_and_change_nothing(line: dict[str, Any], message: str) -> None:
    g = new()
    _ann_rolls(g, {"d6": 1, "specials": {"d20": "reapproach"}}, [2, {"kind": "d20", "value": 4}])
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(RuleError, match=message):
        g.apply(inp(**line))
    assert json.dumps(g.state, sort_keys=True) == before


def test_a_lure_with_no_budget_left_is_refused() -> None:
    g = new(advanced=True)
    _ann_rolls(
        g,
        {"d6": 1, "specials": {"d10": "lure", "d20": "reapproach"}},
        [2, {"kind": "d10", "value": 1}, {"kind": "d20", "value": 4}],
    )
    with pytest.raises(RuleError, match="a lure delta"):
        g.apply(inp(type="choice", player="ann", lure={"by": "d10", "changes": [{"die": 0, "delta": "1"}]}))
    g.apply(inp(type="choice", player="ann", lure={"by": "d10", "changes": [{"die": 0, "delta": 1}]}))
    with pytest.raises(RuleError, match="ann's d10 has no lure left"):
        g.apply(inp(type="choice", player="ann", lure={"by": "d10", "changes": [{"die": 0, "delta": 1}]}))


def test_a_misread_die_is_a_clear_error() -> None:
    g = new()
    play(
        g,
        {"type": "reveal", "card": "aji"},
        {"type": "secret", "player": "ann", "d6": 2},
        {"type": "secret", "player": "bob", "d6": 0},
        {"type": "secret", "player": "cid", "d6": 0},
    )
    with pytest.raises(RuleError, match="d6 die cannot show 7"):
        g.apply(inp(type="roll", player="ann", dice=[7, 1]))
    with pytest.raises(RuleError, match=r"must roll \['d6', 'd6'\]"):
        g.apply(inp(type="roll", player="ann", dice=[{"kind": "d10p", "value": 10}, 1]))


def test_outcomes_tell_the_story_of_a_bout() -> None:
    g = new(["ann", "bob"])
    out = play(
        g,
        {"type": "reveal", "card": "saba"},
        {"type": "secret", "player": "ann", "d6": 2},
        {"type": "secret", "player": "bob", "d6": 3, "specials": {"d10": "chum"}},
        {"type": "roll", "player": "ann", "dice": [1, 1]},
        {"type": "roll", "player": "bob", "dice": [5, 5, 5, {"kind": "d10", "value": 0}]},
    )
    events = [o.event for o in out]
    assert events == [
        "card_revealed",
        "selection_confirmed",
        "selection_confirmed",
        "selections_revealed",
        "group_called",
        "rolled",
        "roll_counted",
        "group_called",
        "rolled",
        "roll_counted",
        "fish_on",
        "cooldown",
    ]
    fish_on = out[events.index("fish_on")]
    assert fish_on.player == "bob" and fish_on.detail["cards"] == ["saba"]
    assert out[-1].detail == {"resting": {"bob": ["d10"]}}


def test_result_ranks_every_player() -> None:
    replay = run_scenario_file(ROOT / "tests" / "scenarios" / "die-angler" / "end-last-card-taken.jsonl")
    result = replay.game.result()
    assert result is not None
    assert result.winners == ("ann",) and result.ranking == ("ann", "bob")
    assert "most fish cards (6)" in result.reason
    assert replay.game.expects().kind is None


def test_a_simultaneous_roller_who_is_done_waits_for_the_others() -> None:
    g = new(["ann", "bob"])
    play(
        g,
        {"type": "reveal", "card": "aji"},
        {"type": "secret", "player": "ann", "d6": 2},
        {"type": "secret", "player": "bob", "d6": 1, "specials": {"d10": "reapproach"}},
    )
    assert g.state["order"] == [["ann"], ["bob"]]
    g = new(["ann", "bob"])
    play(
        g,
        {"type": "reveal", "card": "aji"},
        {"type": "secret", "player": "ann", "d6": 1, "specials": {"d20": "chum"}},
        {"type": "secret", "player": "bob", "d6": 1, "specials": {"d10": "reapproach"}},
        {"type": "roll", "player": "bob", "dice": [6, {"kind": "d10", "value": 2}]},
    )
    exp = g.expects()
    assert (exp.kind, exp.players, exp.detail["choosing"]) == (InputKind.ROLL, ("ann",), ["bob"])
    # bob may use his right while ann has not rolled yet.
    play(
        g,
        {"type": "choice", "player": "bob", "reroll": {"by": "d10", "dice": [0]}},
        {"type": "roll", "player": "bob", "dice": [5]},
        {"type": "roll", "player": "ann", "dice": [1, {"kind": "d20", "value": 7}]},
    )
    with pytest.raises(RuleError, match=r"player .ann. has finished this roll"):
        g.apply(inp(type="choice", player="ann", done=True))
    with pytest.raises(RuleError, match="picked up no dice"):
        g.apply(inp(type="roll", player="ann", dice=[1, {"kind": "d20", "value": 7}]))
    exp = g.expects()
    assert (exp.kind, exp.players) == (InputKind.CHOICE, ("bob",))
    g.apply(inp(type="choice", player="bob", done=True))
    # ann 8 and bob 11 on a 7 (bob's re-approach d10 is not counted: 5): ann is closer.
    assert g.state["held"]["ann"] == ["aji"]


@pytest.mark.parametrize(("carry", "resting"), [(True, ["d20"]), (False, [])])
def test_option_cooldown_into_extra(carry: bool, resting: list[str]) -> None:
    path = ROOT / "tests" / "scenarios" / "die-angler" / "extra-game.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    upto = next(i for i, line in enumerate(lines) if '"type": "start"}' in line)
    setup = json.loads(lines[3])
    setup["setup"]["options"] = {"cooldown_into_extra": carry}
    game = run_scenario([json.dumps(setup), *lines[4 : upto + 1]], str(path)).game
    assert game.state["part"] == "extra"
    assert game.state["resting"]["ann"] == resting
    assert game.expects().kind is InputKind.REVEAL


def test_modes_of_players_who_never_rolled_stay_private_after_the_bout() -> None:
    g = new(["ann", "bob"])
    out = play(
        g,
        {"type": "reveal", "card": "iwashi"},
        {"type": "secret", "player": "ann", "d6": 1},
        {"type": "secret", "player": "bob", "d6": 2, "specials": {"d10": "reapproach"}},
        {"type": "roll", "player": "ann", "dice": [6]},
    )
    assert g.state["last_bout"]["selections"]["bob"] == {
        "d6": 2,
        "specials": ["d10"],
        "count": 3,
        "special_count": 1,
    }
    assert "reapproach" not in public_view(g, out)
    assert g.state["resting"]["bob"] == ["d10"]
