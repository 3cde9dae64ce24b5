"""Dice Fighter: card data validation, secrecy, refusals, options and the rarer rule paths.

The everyday rules are covered by the scenarios in tests/scenarios/dice-fighter/.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from controller.scenario import load_data_file
from engine import DataError, Input, RuleError, find_game
from engine.dice_fighter import DiceFighter, parse_deck

ROOT = Path(__file__).resolve().parents[2]
DECK_FILE = ROOT / "decks" / "dice-fighter.example.toml"
RAW = load_data_file(DECK_FILE)
DECK = parse_deck(RAW, str(DECK_FILE))
QUICK_FILE = ROOT / "tests" / "scenarios" / "dice-fighter" / "quick-ko.toml"
QUICK = parse_deck(load_data_file(QUICK_FILE), str(QUICK_FILE))


def game(options: dict[str, Any] | None = None, deck: Any = DECK) -> DiceFighter:
    return DiceFighter(
        ["ann", "bob"], {"initial_power": {}} if options is None else options, data={"cards": deck}
    )


def die(token: str) -> dict[str, Any]:
    """``a70r`` (side a, 70, red), ``off10g:ann``, ``slot:ann-power-1:40b[:bob]``."""
    colours = {"r": "red", "b": "blue", "g": "green"}
    if token.startswith("slot:"):
        parts = token.split(":")
        out = {
            "kind": "d10p",
            "value": int(parts[2][:-1]),
            "colour": colours[parts[2][-1]],
            "field_status": "card_slot",
            "card_slot": parts[1],
        }
        if len(parts) > 3:
            out["thrower"] = parts[3]
        return out
    if token.startswith("off"):
        body, _, thrower = token[3:].partition(":")
        out = {"kind": "d10p", "value": int(body[:-1]), "colour": colours[body[-1]], "field_status": "off"}
        if thrower:
            out["thrower"] = thrower
        return out
    return {
        "kind": "d10p",
        "value": int(token[1:-1]),
        "colour": colours[token[-1]],
        "side": token[0],
        "field_status": "field",
    }


def send(g: DiceFighter, **payload: Any) -> list[Any]:
    return g.apply(Input.from_json(payload))


def throw(g: DiceFighter, dice: str, **extra: Any) -> list[Any]:
    return send(g, type="throw", dice=[die(t) for t in dice.split()], **extra)


def pick(g: DiceFighter, ann: str, bob: str) -> None:
    send(g, type="secret", player="ann", fighter=ann)
    send(g, type="secret", player="bob", fighter=bob)


def refused(g: DiceFighter, text: str, **payload: Any) -> str:
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(RuleError) as err:
        g.apply(Input.from_json(payload))
    assert text in str(err.value)
    assert json.dumps(g.state, sort_keys=True) == before
    return str(err.value)


# -- the shipped card file ------------------------------------------------------


def test_example_deck_is_marked_and_complete() -> None:
    assert RAW["example"] is True
    assert DECK_FILE.read_text(encoding="utf-8").startswith("# EXAMPLE")
    levels = sorted(f.level for f in DECK.fighters.values())
    assert levels == [1] * 4 + [2] * 4 + [3] * 4
    assert len(DECK.power) == 8 and sum(c.initial for c in DECK.power.values()) == 2
    assert sorted(g.colour for g in DECK.just_guard.values()) == sorted(["red", "blue", "green"] * 2)
    assert {s.id: s.level for s in DECK.supers} == {
        "super-triple-30": 3,
        "super-double-00": 2,
        "super-triple-90": 1,
    }
    assert find_game("dice-fighter") is DiceFighter


def test_rules_examples_of_commands() -> None:
    from engine.core import Die, DieKind

    def dice(*vals: tuple[int, str]) -> list[Die]:
        return [Die(DieKind.D10P, v, c) for v, c in vals]

    special2 = DECK.fighters["lv1-judoka"].specials[0]  # red <= 50, blue <= 50 and above red
    assert special2.match(dice((30, "red"), (40, "blue")))
    assert special2.match(dice((0, "red"), (50, "blue")))
    assert not special2.match(dice((40, "red"), (30, "blue")))
    assert not special2.match(dice((50, "red"), (60, "blue")))
    stairs = DECK.fighters["lv2-wrestler"].specials[0]  # <10-><20-><30->
    assert stairs.match(dice((30, "red"), (0, "blue"), (20, "green")))
    assert not stairs.match(dice((30, "red"), (30, "blue"), (20, "green")))


def edit(path: str, value: Any) -> dict[str, Any]:
    raw = copy.deepcopy(dict(RAW))
    *keys, last = path.split(".")
    node: Any = raw
    for k in keys:
        node = node[int(k)] if k.isdigit() else node[k]
    if value is None:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return raw


@pytest.mark.parametrize(
    ("path", "value", "entry", "field"),
    [
        ("fighter.0.level", 0, "lv1-brawler", "level"),
        ("fighter.0.hp", 55, "lv1-brawler", "hp"),
        ("fighter.0.support", "banana", "lv1-brawler", "support"),
        ("fighter.0.support", "just_guard:pink", "lv1-brawler", "support"),
        ("fighter.0.special.effect", "explode", "lv1-brawler", "effect"),
        ("fighter.0.special.command", [], "lv1-brawler", "command"),
        ("fighter.0.special.command", [5], "lv1-brawler", "command[0]"),
        ("fighter.0.special.command", [{"max": 25}], "lv1-brawler", "command[0].max"),
        ("fighter.0.special.command", [{"colour": "pink"}], "lv1-brawler", "command[0].colour"),
        ("fighter.0.special.command", [{"size": 3}], "lv1-brawler", "command[0]"),
        ("fighter.0.special.command", [{"above": 0}], "lv1-brawler", "command[0].above"),
        ("fighter.0.special", 3, "lv1-brawler", "special"),
        ("fighter.1.id", "lv1-brawler", "lv1-brawler", "id"),
        ("fighter.1.id", None, "fighter[1]", "id"),
        ("power.0.timing", "whenever", "guard-initial-1", "timing"),
        ("power.0.effect", "damage_add", "guard-initial-1", "effect"),
        ("power.0.amount", 15, "guard-initial-1", "amount"),
        ("power.0.initial", "yes", "guard-initial-1", "initial"),
        ("just_guard.0.colour", None, "jg-red-1", "colour"),
        ("centre_line.0.super.level", 0, "super-triple-30", "level"),
        ("centre_line.1.super.amount", None, "super-double-00", "amount"),
        ("centre_line.0.id", "lv1-brawler", "lv1-brawler", "id"),
        ("fighter", [], "fighter", "-"),
        ("power", {"a": 1}, "power", "-"),
    ],
)
def test_bad_card_data_names_file_entry_and_field(path: str, value: Any, entry: str, field: str) -> None:
    with pytest.raises(DataError) as err:
        DiceFighter.parse_data("cards", edit(path, value), "my-deck.toml")
    assert err.value.source == "my-deck.toml"
    assert err.value.entry == entry
    assert err.value.field == field
    assert "my-deck.toml" in str(err.value)


def test_unknown_data_key_and_entry_not_a_table() -> None:
    with pytest.raises(DataError, match="only the 'cards'"):
        DiceFighter.parse_data("board", RAW, "x.toml")
    with pytest.raises(DataError, match="expected a table"):
        parse_deck({"fighter": ["oops"]}, "x.toml")


def test_a_deck_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("[[fighter]\nid=", encoding="utf-8")
    with pytest.raises(DataError, match=r"broken\.toml"):
        load_data_file(bad)


# -- construction and options -----------------------------------------------------


@pytest.mark.parametrize(
    ("options", "text"),
    [
        ({"hand_size": 0}, "hand_size"),
        ({"end_flag_levels": "5"}, "end_flag_levels"),
        ({"sudden_death_hp": 15}, "multiple of 10"),
        ({"open_declarations": "yes"}, "open_declarations"),
        ({"hands": {"ann": ["lv1-brawler"]}}, "hands"),
        ({"hands": {"ann": ["nope"], "bob": []}}, "hands"),
        ({"hands": {"ann": ["lv1-brawler"], "bob": ["lv1-brawler"]}}, "share"),
        ({"power_slots": {"cid": ["x"]}}, "power_slots"),
        ({"initial_power": {"ann": "nope"}}, "initial_power"),
        ({"initial_power": {"ann": "nudge-1", "bob": "nudge-1"}}, "initial_power"),
        ({"initial_power": ["nudge-1"]}, "initial_power"),
        ({"initial_power": {"ann": 3}}, "initial_power"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, Any], text: str) -> None:
    with pytest.raises(RuleError, match=text):
        game(options)


def test_needs_two_players_and_card_data() -> None:
    with pytest.raises(RuleError, match="2-2 players"):
        DiceFighter(["ann"], data={"cards": DECK})
    with pytest.raises(RuleError, match="card data"):
        DiceFighter(["ann", "bob"])


# -- secrecy ----------------------------------------------------------------------


def test_fighter_pick_is_hidden_until_both_confirm() -> None:
    g = game()
    out = send(g, type="secret", player="ann", fighter="lv3-titan")
    public = json.dumps([g.state, g.expects().to_json(), [o.to_json() for o in out]], default=str)
    assert "lv3-titan" not in public
    assert g.state["fighter_selection"] == {"waiting": ["bob"], "confirmed": ["ann"]}
    for payload in (
        {"type": "secret", "player": "ann", "fighter": "lv3-titan"},  # twice
        {"type": "choice", "player": "bob", "fighter": "lv3-titan"},  # wrong kind
        {"type": "secret", "player": "cid", "fighter": "lv3-titan"},
    ):
        with pytest.raises(RuleError) as err:
            g.apply(Input.from_json(payload))
        assert "lv3-titan" not in str(err.value)
    out = send(g, type="secret", player="bob", fighter="lv3-monk")
    assert out[-1].detail == {"ann": "lv3-titan", "bob": "lv3-monk"}
    assert g.state["players"]["ann"]["fighter"] == "lv3-titan"


def test_two_picks_of_one_card_are_both_cleared() -> None:
    g = game()
    send(g, type="secret", player="ann", fighter="lv3-titan")
    out = send(g, type="secret", player="bob", fighter="lv3-titan")
    assert out[-1].to_json() == {
        "event": "fighter_clash",
        "detail": {"fighter": "lv3-titan", "pick_again": True},
    }
    assert g.state["fighter_selection"] == {"waiting": ["ann", "bob"], "confirmed": []}
    pick(g, "lv3-titan", "lv3-monk")
    assert g.phase == "throw"


def test_bad_picks_are_refused() -> None:
    g = game()
    refused(g, "not a fighter card", type="secret", player="ann", fighter="nope")
    refused(g, "exactly 'fighter'", type="secret", player="ann", fighter="lv1-boxer", extra=1)


def test_attack_declarations_hidden_unless_open() -> None:
    for open_ in (False, True):
        g = game({"initial_power": {}, "open_declarations": open_})
        pick(g, "lv1-brawler", "lv1-sprinter")
        throw(g, "a10r a90b a30g b40r b60b b50g")
        out = send(g, type="choice", player="ann", attack="lv1-brawler")
        public = json.dumps([g.state, g.expects().to_json(), [o.to_json() for o in out]], default=str)
        assert ("lv1-brawler" in json.dumps(g.state["declared"])) is open_
        assert ('"attack": "lv1-brawler"' in public) is open_
        err = refused(g, "must be one of", type="choice", player="bob", attack="lv1-brawler")
        assert ("'attack': 'lv1-brawler'" in err) is open_
        refused(g, "attack declaration", type="throw", player="bob", dice=[])


# -- the throw ----------------------------------------------------------------------


def test_documented_throw_example_is_accepted() -> None:
    text = (ROOT / "engine" / "SCENARIOS.md").read_text(encoding="utf-8")
    block = text.split('{"type": "throw", "dice": [', 1)[1].split("]}", 1)[0]
    example = json.loads('{"type": "throw", "dice": [' + block + "]}")
    g = game({})
    pick(g, "lv1-sprinter", "lv1-boxer")
    g.apply(Input.from_json(example))
    assert g.state["owners"] == ["ann", "ann", "bob", "bob", "bob", None]
    assert g.state["rung_out"] == {"ann": 1, "bob": 0}


@pytest.mark.parametrize(
    ("dice", "text"),
    [
        ("not a list", "all 6 dice"),
        ([{"kind": "d6", "value": 3}] * 6, "d10p"),
        ([{"kind": "d10p", "value": 75, "colour": "red"}] * 6, "cannot show"),
        ([{"kind": "d10p", "value": 70, "colour": "red"}] * 6, "field_status"),
        (
            [{"kind": "d10p", "value": 70, "colour": "red", "field_status": "off", "thrower": "zed"}] * 6,
            "thrower",
        ),
        ([{"kind": "d10p", "value": 70, "colour": "red", "field_status": "field"}] * 6, "side"),
        ([7] * 6, "cannot show"),
    ],
)
def test_malformed_throws_change_nothing(dice: Any, text: str) -> None:
    g = game()
    pick(g, "lv1-sprinter", "lv1-boxer")
    refused(g, text, type="throw", dice=dice)
    refused(
        g,
        "not at this table",
        type="throw",
        player="zed",
        dice=[die(t) for t in ["a0r", "a0b", "a0g", "b0r", "b0b", "b0g"]],
    )


def test_die_on_a_power_card_counts_for_the_card_owner_whatever_side_is_reported() -> None:
    g = game({})
    pick(g, "lv1-sprinter", "lv1-boxer")
    dice = [die(t) for t in ["a10r", "a20g", "b30r", "b40b", "b50g"]]
    # the brief's camera example: a blue 00 reported on side b, lying on ann's power card
    blue = {
        "kind": "d10p",
        "value": 0,
        "colour": "blue",
        "side": "b",
        "field_status": "card_slot",
        "card_slot": "ann-power-1",
    }
    send(g, type="throw", dice=[blue, *dice])
    assert g.state["owners"] == ["ann", "ann", "ann", "bob", "bob", "bob"]


def test_board_slot_names_and_mandatory_card_thrower() -> None:
    slots = {"ann": ["power-first-1", "power-first-2"], "bob": ["power-second-1", "power-second-2"]}
    g = game({"power_slots": slots, "require_card_thrower": True})
    pick(g, "lv1-sprinter", "lv1-boxer")
    assert [c["slot"] for c in g.state["players"]["ann"]["power_cards"]] == ["power-first-1"]
    refused(
        g,
        "needs its 'thrower'",
        type="throw",
        dice=[die(t) for t in ["slot:power-first-1:90r", "a10b", "a20g", "b30r", "b40b", "b50g"]],
    )
    throw(g, "slot:power-first-1:90r:ann a10b a20g b30r b40b slot:power-second-2:50g:bob")
    assert g.state["owners"] == ["ann", "ann", "ann", "bob", "bob", None]


# -- attacks, cards and rarer paths -------------------------------------------------


def test_fixed_damage_and_dice_sum_specials_take_cards() -> None:
    g = game({"initial_power": {"ann": "pursuit-1", "bob": "guard-1"}})
    pick(g, "lv2-archer", "lv2-karateka")
    throw(g, "a60r a70b a80g b50r b50b b10g")  # both specials match
    send(g, type="choice", player="bob", attack="lv2-karateka")
    send(g, type="choice", player="ann", attack="lv2-archer")
    # both Lv2; ann deals 40 against bob's 100 (50 + 50): bob decides first.
    assert g.state["card_turn"] == "bob"
    send(g, type="choice", player="bob", power="guard-1")
    send(g, type="choice", player="ann", power="pursuit-1")
    assert g.state["last_round"]["damage"] == {"ann": 100, "bob": 30}


def test_special_roll_refusals_and_rolling_onto_own_power_card() -> None:
    g = game({})
    pick(g, "lv1-brawler", "lv1-sprinter")
    throw(g, "a10r a90b b30g b40r b60b b50g")
    send(g, type="choice", player="ann", attack="lv1-brawler")
    send(g, type="choice", player="bob", attack="normal")
    refused(g, "exactly one die", type="throw", player="ann", dice=[])
    refused(g, "colour", type="throw", player="ann", dice=[die("a40g")])
    refused(
        g, "field_status", type="throw", player="ann", dice=[{"kind": "d10p", "value": 40, "colour": "red"}]
    )
    refused(
        g,
        "centre line",
        type="throw",
        player="ann",
        dice=[{"kind": "d10p", "value": 40, "colour": "red", "field_status": "field", "side": "line"}],
    )
    refused(g, "may not give", type="throw", player="bob", dice=[die("b40r")])
    send(g, type="throw", player="ann", dice=[die("slot:ann-power-1:40r")])
    # bob's Guard takes 20 off
    send(g, type="choice", player="bob", power="guard-initial-2")
    assert g.state["last_round"]["damage"] == {"ann": 0, "bob": 20}


def test_card_turn_and_order_roll_refusals() -> None:
    g = game({"initial_power": {"ann": ["guard-1"], "bob": ["pursuit-1"]}})
    pick(g, "lv1-brawler", "lv1-sprinter")
    throw(g, "a10r a90b b30g b40r b60b b50g")
    send(g, type="choice", player="ann", attack="lv1-brawler")
    send(g, type="choice", player="bob", attack="lv1-sprinter")
    send(g, type="throw", player="ann", dice=[die("a30r")])
    send(g, type="throw", player="bob", dice=[die("b30r")])
    assert g.phase == "order_roll"
    refused(g, "values", type="roll", values={"ann": 35, "bob": 10})
    refused(g, "values", type="roll", values=[1, 2])
    send(g, type="roll", player="ann", values={"ann": 90, "bob": 10})
    assert g.state["card_turn"] == "ann"
    refused(g, "expected 'pass'", type="choice", player="ann", power="pursuit-1")
    refused(g, "expected 'pass'", type="choice", player="ann", shout=True)
    send(g, type="choice", player="ann", **{"pass": True})
    send(g, type="choice", player="bob", power="pursuit-1")
    assert g.state["last_round"]["damage"] == {"ann": 40, "bob": 30}


def test_after_throw_refusals() -> None:
    g = game({"initial_power": {"ann": "nudge-1"}})
    pick(g, "lv1-sprinter", "lv1-boxer")
    throw(g, "a90r a10b a20g b30r b40b b50g")
    refused(g, "leaves 00..90", type="choice", player="ann", power="nudge-1", die=0, shift=10)
    refused(g, "'shift'", type="choice", player="ann", power="nudge-1", die=0, shift=True)
    refused(g, "'die'", type="choice", player="ann", power="nudge-1", die="0", shift=10)
    refused(g, "may not give", type="choice", player="bob", **{"pass": True})
    send(g, type="choice", player="ann", power="nudge-1", die=1, shift=-10)
    assert g.state["dice"][1]["value"] == 0 and g.phase == "throw"


def test_just_guard_and_power_supply_run_out() -> None:
    deck = parse_deck(
        {
            **RAW,
            "just_guard": [{"id": "jg-only", "colour": "red"}],
            "power": [p for p in RAW["power"] if p.get("initial")],
        },
        "small.toml",
    )
    g = game(deck=deck)
    pick(g, "lv1-judoka", "lv2-archer")  # judoka: red just-guard icon
    throw(g, "a30r a20b a10g b90r b40b b50g")  # 60 damage, judoka HP 50: KO
    assert g.state["players"]["ann"]["just_guards"] == [{"card": "jg-only", "colour": "red", "used": False}]
    send(g, type="secret", player="ann", fighter="lv1-boxer")  # boxer: blue icon, none in the supply
    throw(g, "a30r a20b a10g b90r b40b b50g")
    assert g.expects().detail["cards"] == {"just_guard": ["jg-only"]}  # bob's red 90
    send(g, type="choice", player="ann", **{"pass": True})
    assert g.state["players"]["ann"]["just_guards"] == [{"card": "jg-only", "colour": "red", "used": False}]
    send(g, type="secret", player="ann", fighter="lv1-brawler")  # brawler: power icon, deck empty
    throw(g, "a30r a20b a10g b90r b40b b50g")
    send(g, type="choice", player="ann", **{"pass": True})
    assert g.phase == "select_fighter" and g.state["power_deck_left"] == 0


def test_set_hp_at_the_target_already_adds_nothing() -> None:
    g = game()
    pick(g, "lv2-karateka", "lv1-brawler")
    throw(g, "a90r a10b a10g b10r b0b b0g")  # ann 90 - 10 = 80: bob (HP 50) KO'd
    send(g, type="reveal", player="bob", power_card="pursuit-1")
    send(g, type="secret", player="bob", fighter="lv2-fencer")
    throw(g, "a90r a10b a10g b20r b20b b20g")  # 70 on HP 80: 10 left
    throw(g, "a0r a0b a10g b20r b20b b20g")
    send(g, type="choice", player="ann", attack="super-double-00")
    assert g.state["players"]["bob"]["hp_left"] == 10
    assert g.state["players"]["bob"]["damage_tokens"] == 7
    assert g.state["last_round"]["damage"] == {"ann": 0, "bob": 0}


def test_running_out_of_fighters_before_the_end_flag_loses() -> None:
    g = game({"hand_size": 1, "end_flag_levels": 99}, deck=QUICK)
    pick(g, "q1a", "q1b")
    throw(g, "a90r a10b a10g b20r b20b b20g")
    assert g.result() is not None and g.result().reason == "no_fighters_left"  # type: ignore[union-attr]
    assert g.result().winners == ("ann",)  # type: ignore[union-attr]
    g2 = game({"hand_size": 1, "end_flag_levels": 99}, deck=QUICK)
    pick(g2, "q1a", "q1b")
    throw(g2, "a90r a10b off10g:ann b20r b20b b20g")  # both KO'd, both hands empty
    assert g2.super_sudden_death and g2.phase == "throw"
    throw(g2, "a90r a10b a10g b20r b20b b20g")
    assert g2.result().winners == ("ann",)  # type: ignore[union-attr]


def test_sudden_death_single_ko_by_either_player() -> None:
    g = game({}, deck=QUICK)
    pick(g, "q3a", "q3b")
    throw(g, "a90r a10b off10g:ann b20r b20b b20g")
    pick(g, "q2a", "q2b")
    throw(g, "a90r a10b off10g:ann b20r b20b b20g")
    assert g.sudden_death
    pick(g, "q1a", "q1b")
    throw(g, "a10r a10b a10g b90r b20b b20g")
    assert g.result().winners == ("bob",) and g.result().reason == "sudden_death"  # type: ignore[union-attr]
