"""Nozoku Dice properties: replay determinism, dice and card conservation, illegal inputs change nothing.

A random player that only gives legal inputs (``legal_input``) drives whole games; junk inputs
(anything a confused camera or button panel might send) are mixed in and must change nothing.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.scenario import PACKAGE_ROOT, load_data_file
from engine import Input, RuleError
from engine.nozoku_dice import CARD_NUMBERS, DICE_PER_COLOUR, NozokuDice, parse_deck

DECK_FILE = PACKAGE_ROOT / "decks" / "nozoku-dice.example.toml"
PLAYERS = ["ann", "bob", "cid", "dan"]


def example_deck() -> Any:
    return parse_deck(load_data_file(DECK_FILE), str(DECK_FILE))


def new_game(players: list[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> NozokuDice:
    return NozokuDice(players, options, random.Random(seed), {"cards": example_deck()})


def dice(colours: Mapping[str, int], rnd: random.Random) -> list[dict[str, Any]]:
    return [
        {"kind": "d6", "value": rnd.randint(1, 6), "colour": c}
        for c, n in sorted(colours.items())
        for _ in range(n)
    ]


def action_inputs(game: NozokuDice, player: str, action: str) -> list[dict[str, Any]]:
    """Every legal way (up to a few) to carry out ``action`` now."""
    held = [d["value"] for d in game.state_json()["held"][player]]
    own = game.colour(player)
    out: list[dict[str, Any]] = []
    for i, v in enumerate(held):
        base = {"type": "choice", "player": player, "action": action, "die": i}
        if (
            action in ("flip", "reroll", "set_to_4")
            or (action == "up" and v < 6)
            or (action == "down" and v > 1)
        ):
            out.append(base)
        elif action == "exchange":
            for c in {d.value for d in game.centre if d.colour == own}:
                out.append({**base, "centre_value": c})
        elif action == "distribute" and v > 1:
            for j, w in enumerate(held):
                if j != i and w < 6:
                    out.append({**base, "raise": {str(j): 1}})
    return out


def legal_input(game: NozokuDice, rnd: random.Random) -> dict[str, Any]:
    """A random input the game accepts now (the game must not be over)."""
    exp = game.expects()
    detail = exp.detail
    player = rnd.choice(exp.players)
    kind = exp.kind.value if exp.kind else None
    if kind == "roll":
        if detail["roll"] == "hand":
            return {"type": "roll", "player": player, "dice": dice({game.colour(player): 2}, rnd)}
        if detail["roll"] == "held die":
            return {"type": "roll", "player": player, "dice": dice({detail["colour"]: 1}, rnd)}
        rolled = dice(detail["colours"], rnd)
        if detail["roll"] == "reroll" and rnd.random() < 0.3:
            faces = detail["faces"]
            kept = [d.to_json() for d in game.centre if d.value not in faces]
            rolled = kept + rolled
            rnd.shuffle(rolled)
        return {"type": "roll", "player": player, "dice": rolled}
    hand = game.private_json(player)["hand"]
    if kind == "secret":
        return {"type": "secret", "player": player, "card": rnd.choice(hand)}
    if "play" in detail:
        return {"type": "choice", "player": player, "card": rnd.choice(hand)}
    if "take" in detail:
        die = rnd.choice(game.centre)
        return {"type": "choice", "player": player, "take": {"value": die.value, "colour": die.colour}}
    options = action_inputs(game, player, detail["action"])
    if detail.get("may_skip") and (not options or rnd.random() < 0.2):
        return {"type": "choice", "player": player, "action": "skip"}
    return rnd.choice(options)


def play(game: NozokuDice, rnd: random.Random, limit: int = 400) -> list[dict[str, Any]]:
    """Play random legal inputs until the game ends (or ``limit``); return the inputs given."""
    given: list[dict[str, Any]] = []
    while game.result() is None and len(given) < limit:
        inp = legal_input(game, rnd)
        game.apply(Input.from_json(inp))
        given.append(inp)
    return given


def check_conservation(game: NozokuDice) -> None:
    """Every die is in exactly one place; every player's six cards are in exactly one place."""
    s = game.state
    where: Counter[str] = Counter()
    for d in s["centre"]:
        where[d["colour"]] += 1
    for held in s["held"].values():
        for d in held:
            where[d["colour"]] += 1
    for d in s.get("removed", []):
        where[d["colour"]] += 1
    for colour, boxed in s["box"].items():
        if s["phase"] in ("roll_hand", "roll_centre"):
            continue  # the centre dice are not rolled yet: they are in somebody's hand
        assert where[colour] + boxed == DICE_PER_COLOUR, f"{colour}: {where[colour]} placed + {boxed} boxed"
    for p in game.players:
        cards = game.hands[p] + game.played[p] + ([game.selections[p]] if p in game.selections else [])
        if p in game.selections:
            cards.remove(game.selections[p])  # a selection stays in the hand until the reveal
        assert sorted(cards) == list(CARD_NUMBERS), f"{p}'s cards: {cards}"
        assert s["hand_size"][p] + s["played_count"][p] == len(CARD_NUMBERS)
    assert s["scores"] == {p: sum(d["value"] for d in s["held"][p]) for p in game.players}
    if game.solo:
        assert s["hidden_wizard"] == sum(d["value"] for d in s["removed"])


junk_die = st.one_of(
    st.integers(-1, 8),
    st.fixed_dictionaries(
        {"value": st.integers(0, 7)},
        optional={
            "kind": st.sampled_from(["d6", "d10", "d20", "dX"]),
            "colour": st.sampled_from(["red", "blue", "green", "yellow", "purple"]),
        },
    ),
)
junk_input = st.fixed_dictionaries(
    {"type": st.sampled_from(["roll", "choice", "secret", "reveal", "throw", "start"])},
    optional={
        "player": st.sampled_from([*PLAYERS, "zed"]),
        "dice": st.one_of(st.lists(junk_die, max_size=5), st.text(max_size=3)),
        "card": st.one_of(st.integers(-1, 8), st.text(max_size=2), st.booleans()),
        "action": st.sampled_from(
            ["exchange", "flip", "reroll", "distribute", "up", "down", "set_to_4", "skip", "x"]
        ),
        "die": st.one_of(st.integers(-2, 12), st.text(max_size=2)),
        "centre_value": st.integers(0, 7),
        "raise": st.one_of(
            st.dictionaries(st.sampled_from(["0", "1", "2", "x"]), st.integers(-1, 7)), st.just(3)
        ),
        "take": st.one_of(st.fixed_dictionaries({"value": st.integers(0, 7)}), st.integers()),
    },
)
options = st.fixed_dictionaries(
    {},
    optional={
        "optional_actions": st.booleans(),
        "doubles_flip": st.booleans(),
        "prophecy": st.sampled_from(["choice", "random"]),
    },
)


def snapshot(game: NozokuDice) -> str:
    return json.dumps(
        {
            "state": game.state,
            "private": [game.private_json(p) for p in game.players],
            "rng": game.rng.getstate(),
        },
        sort_keys=True,
        default=str,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4), opts=options, data=st.data())
def test_random_games_conserve_dice_and_cards_and_refuse_junk_without_change(
    seed: int, n: int, opts: dict[str, Any], data: st.DataObject
) -> None:
    rnd = random.Random(seed)
    game = new_game(PLAYERS[:n], opts, seed)
    for _ in range(400):
        if game.result() is not None:
            break
        if rnd.random() < 0.25:
            junk = data.draw(junk_input)
            before = snapshot(game)
            try:
                game.apply(Input.from_json(junk))
            except RuleError:
                assert snapshot(game) == before, f"refused {junk!r} but the state changed"
            else:
                check_conservation(game)  # junk that happened to be legal
            continue
        game.apply(Input.from_json(legal_input(game, rnd)))
        check_conservation(game)
    check_conservation(game)
    result = game.result()
    if result is not None and len(game.players) > 1:  # a table's reported result fits the rules
        assert NozokuDice.check_result(game.players, result.scores, result.winners, game.options) is None
    # Any input after the end is refused.
    if game.result() is not None:
        before = snapshot(game)
        try:
            game.apply(Input.from_json(data.draw(junk_input)))
        except RuleError:
            pass
        else:  # pragma: no cover - the assertion below reports it
            raise AssertionError("a finished game accepted an input")
        assert snapshot(game) == before


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4), opts=options)
def test_replaying_the_inputs_rebuilds_the_same_game(seed: int, n: int, opts: dict[str, Any]) -> None:
    first = new_game(PLAYERS[:n], opts, seed)
    inputs = play(first, random.Random(seed))
    second = new_game(PLAYERS[:n], opts, seed)
    outcomes = [o.to_json() for inp in inputs for o in second.apply(Input.from_json(inp))]
    assert snapshot(second) == snapshot(first)
    third = new_game(PLAYERS[:n], opts, seed)
    assert [o.to_json() for inp in inputs for o in third.apply(Input.from_json(inp))] == outcomes


def test_random_solo_games_end_with_a_rated_result() -> None:
    """The hidden wizard removes at least one die a round, so a solo game always ends."""
    for seed in range(15):
        game = new_game(["ann"], {}, seed)
        play(game, random.Random(seed))
        res = game.result()
        assert res is not None, f"seed {seed}: a solo game did not end"
        magic, wizard = res.scores["ann"], res.scores["hidden-wizard"]
        assert res.winners == (("ann",) if magic > wizard else ("hidden-wizard",))
        assert game.state["rating"]["magic"] == magic
