"""Property tests for Dice Fighter: replay determinism, conservation, refused inputs change nothing.

A random but legal table (hypothesis draws every decision the players and the
camera could make) plays games; garbage inputs are thrown in between.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.scenario import load_data_file
from engine import Input, RuleError
from engine.dice_fighter import COLOURS, DiceFighter, OutcomeKind, parse_deck

DECK_FILE = Path(__file__).resolve().parents[2] / "decks" / "dice-fighter.example.toml"
DECK = parse_deck(load_data_file(DECK_FILE), str(DECK_FILE))
VALUES = list(range(0, 100, 10))


def new_game(options: Mapping[str, Any] | None = None) -> DiceFighter:
    return DiceFighter(["ann", "bob"], dict(options or {}), data={"cards": DECK})


def snapshot(game: DiceFighter) -> str:
    return json.dumps(game.state, sort_keys=True)


def draw_die(data: st.DataObject, game: DiceFighter, colour: str, thrower: str) -> dict[str, Any]:
    die: dict[str, Any] = {"kind": "d10p", "value": data.draw(st.sampled_from(VALUES)), "colour": colour}
    where = data.draw(st.sampled_from(["a", "a", "b", "b", "off", "slot"]))
    if where in ("a", "b"):
        die.update(side=where, field_status="field")
    elif where == "off":
        die.update(field_status="off", thrower=thrower)
    else:
        owner = data.draw(st.sampled_from(game.players))
        n = len(game.power_laid[owner])
        if n == 0:
            die.update(field_status="off", thrower=thrower)
        else:
            die.update(
                field_status="card_slot", card_slot=game.slot_name(owner, data.draw(st.integers(0, n - 1)))
            )
            if data.draw(st.booleans()):
                die["thrower"] = thrower
    return die


def legal_input(data: st.DataObject, game: DiceFighter) -> dict[str, Any]:
    """One input the rules allow now (the table's side of the protocol)."""
    exp = game.expects()
    phase = game.phase
    if phase == "select_fighter":
        who = data.draw(st.sampled_from(exp.players))
        taken = {f for s in game.fighters.values() for f in s} | set(game._secret_picks.values())
        free = sorted(set(DECK.fighters) - taken)
        return {"type": "secret", "player": who, "fighter": data.draw(st.sampled_from(free))}
    if phase == "draw_power":
        return {
            "type": "reveal",
            "player": exp.players[0],
            "power_card": data.draw(st.sampled_from(game.power_deck())),
        }
    if phase == "throw":
        dice = [draw_die(data, game, c, p) for c in COLOURS for p in game.players]
        return {"type": "throw", "dice": data.draw(st.permutations(dice))}
    if phase == "after_throw":
        who = data.draw(st.sampled_from(exp.players))
        if data.draw(st.booleans()):
            return {"type": "choice", "player": who, "pass": True}
        own = [i for i, t in enumerate(game.dice) if t.owner == who]
        i = data.draw(st.sampled_from(own))
        shift = -10 if game.dice[i].die.value == 90 else 10
        card = game.unused_power(who, "after_throw")[0]
        return {"type": "choice", "player": who, "power": card, "die": i, "shift": shift}
    if phase == "attack":
        who = data.draw(st.sampled_from(exp.players))
        return {
            "type": "choice",
            "player": who,
            "attack": data.draw(st.sampled_from(exp.detail["options"][who])),
        }
    if phase == "special_roll":
        who = data.draw(st.sampled_from(exp.players))
        colour = data.draw(st.sampled_from(sorted({d.colour or "" for d in game.usable(who)})))
        return {"type": "throw", "player": who, "dice": [draw_die(data, game, colour, who)]}
    if phase == "order_roll":
        return {"type": "roll", "values": {p: data.draw(st.sampled_from(VALUES)) for p in game.players}}
    who = exp.players[0]
    moves: list[dict[str, Any]] = [{"pass": True}]
    moves += [{"power": c} for c in exp.detail["cards"].get("power", [])]
    moves += [{"just_guard": c} for c in exp.detail["cards"].get("just_guard", [])]
    return {"type": "choice", "player": who, **data.draw(st.sampled_from(moves))}


GARBAGE = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["roll", "throw", "secret", "reveal", "choice", "start"]),
            "player": st.sampled_from(["ann", "bob", "zed"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("throw"),
            "dice": st.lists(
                st.sampled_from(
                    [
                        {
                            "kind": "d10p",
                            "value": 30,
                            "colour": "red",
                            "side": "line",
                            "field_status": "field",
                        },
                        {"kind": "d6", "value": 3},
                        {"kind": "d10p", "value": 30},
                        7,
                        "x",
                        {
                            "kind": "d10p",
                            "value": 30,
                            "colour": "red",
                            "field_status": "off",
                            "thrower": "zed",
                        },
                    ]
                ),
                max_size=7,
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("choice"),
            "player": st.sampled_from(["ann", "bob"]),
            "attack": st.sampled_from(["nope", 3, None]),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("choice"),
            "player": st.sampled_from(["ann", "bob"]),
            "power": st.sampled_from(["nudge-1", "guard-1", "nope"]),
            "die": st.integers(-1, 7),
            "shift": st.sampled_from([0, 10, -10, 15, 100]),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("secret"),
            "player": st.sampled_from(["ann", "bob"]),
            "fighter": st.sampled_from(["nope", 1, "lv1-brawler"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("roll"),
            "values": st.dictionaries(
                st.sampled_from(["ann", "bob", "zed"]), st.integers(-10, 95), max_size=3
            ),
        }
    ),
)


def play(data: st.DataObject, game: DiceFighter, steps: int) -> list[dict[str, Any]]:
    """Play up to ``steps`` legal inputs, poking garbage in between; return the accepted log."""
    log: list[dict[str, Any]] = []
    placed = cleared = 0
    for _ in range(steps):
        if game.result() is not None:
            break
        if data.draw(st.booleans()):
            junk = data.draw(GARBAGE)
            before = snapshot(game)
            try:
                game.apply(Input.from_json(junk))
            except RuleError:
                assert snapshot(game) == before, f"refused {junk!r} changed the state"
            else:
                log.append(junk)
            continue
        inp = legal_input(data, game)
        outcomes = game.apply(Input.from_json(inp))
        log.append(inp)
        check_conservation(game, inp, outcomes)
        placed += sum(1 for o in outcomes if o.event == OutcomeKind.BURST)
        cleared += sum(o.detail["burst_tokens"] for o in outcomes if o.event == OutcomeKind.BURST_CLEARED)
        assert placed == cleared + game.burst, "burst tokens placed = cleared + on the table"
    result = game.result()
    if result is not None:  # what a table reports at the end is a result the rules give
        assert DiceFighter.check_result(game.players, result.scores, result.winners, game.options) is None
    return log


def check_conservation(game: DiceFighter, inp: dict[str, Any], outcomes: list[Any]) -> None:
    for p in game.players:
        assert game.tokens[p] + game.tokens_cleared[p] == game.damage_taken[p]
        assert game.tokens[p] >= 0
    dealt = sum(
        o.detail["damage"] for o in outcomes if o.event in (OutcomeKind.DAMAGE, OutcomeKind.RING_OUT_DAMAGE)
    )
    assert dealt % 10 == 0
    if inp["type"] == "throw" and "player" not in inp:
        owned = [t for t in game.dice if t.owner is not None]
        rung = [t for t in game.dice if t.owner is None]
        assert len(owned) + len(rung) == 6, "every die of a throw is owned by a side or rung out"
        assert all(t.thrower in game.players for t in rung), "a rung-out die always has its thrower"
        assert sorted(t.die.colour for t in game.dice) == sorted(COLOURS * 2)


SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@SETTINGS
@given(st.data())
def test_replay_rebuilds_the_same_state(data: st.DataObject) -> None:
    game = new_game()
    log = play(data, game, 40)
    again = new_game()
    for inp in log:
        again.apply(Input.from_json(inp))
    assert snapshot(again) == snapshot(game)


@pytest.mark.slow
@SETTINGS
@given(st.data(), st.booleans())
def test_conservation_and_refusals_hold_all_game(data: st.DataObject, quick: bool) -> None:
    # with no initial power cards the game moves faster toward KOs and the end flag
    game = new_game({"initial_power": {}} if quick else {})
    play(data, game, 80)
    total_levels = sum(game.ko_levels.values())
    assert total_levels == sum(DECK.fighters[f].level for fs in game.kod.values() for f in fs)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_secret_picks_never_show_before_the_reveal(data: st.DataObject) -> None:
    game = new_game()
    pick = data.draw(st.sampled_from(sorted(DECK.fighters)))
    out = game.apply(Input.from_json({"type": "secret", "player": "ann", "fighter": pick}))
    seen = json.dumps([game.state, game.expects().to_json(), [o.to_json() for o in out]], default=str)
    assert pick not in seen
    try:
        game.apply(Input.from_json({"type": "secret", "player": "ann", "fighter": pick}))
    except RuleError as e:
        assert pick not in str(e)
    else:  # pragma: no cover - a second pick must be refused
        raise AssertionError("a second pick was accepted")
