"""Dice Hunter properties: replay determinism, conservation, illegal inputs change nothing."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Input, RuleError
from engine.dice_hunter import REGULAR_TILES, TILES, DiceHunter

PLAYERS3 = ["ann", "bob", "cid"]
PLAYERS4 = ["ann", "bob", "cid", "dan"]
face = st.integers(1, 6)

# Anything a confused camera, button panel or referee might send.
junk_input = st.fixed_dictionaries(
    {"type": st.sampled_from(["roll", "choice", "reveal", "throw", "secret"])},
    optional={
        "player": st.sampled_from(["ann", "bob", "cid", "dan", "zed"]),
        "dice": st.one_of(st.lists(st.integers(-1, 8), max_size=7), st.text(max_size=3)),
        "keep": st.one_of(st.lists(st.integers(0, 7), max_size=6), st.just("all")),
        "take": st.one_of(st.sampled_from([*TILES, "joker"]), st.integers()),
        "from": st.sampled_from(["ann", "bob", "cid", "dan", "zed"]),
        "chips": st.one_of(st.booleans(), st.integers(0, 3)),
        "tile": st.sampled_from([*TILES, "joker"]),
    },
)


def legal_input(game: DiceHunter, data: st.DataObject) -> dict[str, Any]:
    """Draw an input the engine should accept right now."""
    state = game.state
    exp = state["expects"]
    player = state["current_player"]
    if exp["kind"] == "reveal":
        hidden = [t.id for t in REGULAR_TILES if t.id not in state["revealed"]]
        return {"type": "reveal", "tile": data.draw(st.sampled_from(hidden))}
    if exp["kind"] == "roll":
        kept = state["kept"]
        rest = data.draw(st.lists(face, min_size=5 - len(kept), max_size=5 - len(kept)))
        return {"type": "roll", "player": player, "dice": data.draw(st.permutations(kept + rest))}
    detail = exp["detail"]
    options: list[dict[str, Any]] = [{"chips": True}]
    options += [{"take": t} for t in detail["take"]]
    options += [{"take": s["tile"], "from": s["from"]} for s in detail["steal"]]
    if detail["can_keep"]:
        dice = state["dice"]
        mask = data.draw(st.lists(st.booleans(), min_size=5, max_size=5))
        keep = [d for d, m in zip(dice, mask, strict=True) if m][:4]
        options.append({"keep": keep})
    return {"type": "choice", "player": player, **data.draw(st.sampled_from(options))}


def check_conservation(game: DiceHunter) -> None:
    s = game.state
    held = [t for ts in s["holdings"].values() for t in ts]
    reserve = 1 if s["reversal"] == "reserve" else 0
    placed = s["face_up"] + held
    assert len(placed) == len(set(placed)), f"a tile is in two places: {placed}"
    assert len(placed) + s["deck_remaining"] + reserve == 17
    assert s["chip_supply"] + sum(s["chips"].values()) == 20
    assert len(s["dice"]) in (0, 5) and len(s["kept"]) <= 4
    assert s["scores"] == {
        p: sum(TILES[t].points for t in s["holdings"][p]) + 50 * s["chips"][p] for p in s["holdings"]
    }


def play(data: st.DataObject, game: DiceHunter, steps: int) -> list[dict[str, Any]]:
    """Play up to ``steps`` inputs, mixing in junk; return the inputs accepted."""
    accepted: list[dict[str, Any]] = []
    for _ in range(steps):
        if game.state["expects"]["kind"] is None:
            break
        if data.draw(st.integers(0, 4)) == 0:
            junk = data.draw(junk_input)
            before = json.dumps(game.state, sort_keys=True)
            try:
                game.apply(Input.from_json(junk))
            except RuleError:
                assert json.dumps(game.state, sort_keys=True) == before, f"refused {junk} changed the state"
            else:
                accepted.append(junk)
        else:
            raw = legal_input(game, data)
            game.apply(Input.from_json(raw))
            accepted.append(raw)
        check_conservation(game)
    return accepted


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), four=st.booleans(), virtual=st.booleans(), seed=st.integers(0, 2**16))
def test_replaying_the_accepted_inputs_rebuilds_the_same_state(
    data: st.DataObject, four: bool, virtual: bool, seed: int
) -> None:
    players = PLAYERS4 if four else PLAYERS3
    options = {"deck": "virtual" if virtual else "physical"}
    game = DiceHunter(players, options, random.Random(seed))
    accepted = play(data, game, 160)
    again = DiceHunter(players, options, random.Random(seed))
    for raw in accepted:
        again.apply(Input.from_json(raw))
    assert json.dumps(again.state, sort_keys=True) == json.dumps(game.state, sort_keys=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_a_game_of_legal_inputs_always_finishes_with_a_ranking(data: st.DataObject, seed: int) -> None:
    game = DiceHunter(PLAYERS4, {"deck": "virtual"}, random.Random(seed))
    for _ in range(600):
        if game.result() is not None:
            break
        game.apply(Input.from_json(legal_input(game, data)))
        check_conservation(game)
    result = game.result()
    assert result is not None, "the game did not end within 24 turns of at most 6 inputs"
    assert sorted(result.ranking) == sorted(PLAYERS4)
    assert result.winners == (result.ranking[0],)
    assert DiceHunter.check_result(game.players, result.scores, result.winners, game.options) is None


any_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.sampled_from(["value", "kind"]), inner),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["roll", "choice", "reveal"]),
    payload=st.dictionaries(st.sampled_from(["dice", "keep", "take", "from", "chips", "tile"]), any_json),
    rolled=st.booleans(),
)
def test_any_garbled_input_is_refused_cleanly_or_accepted(
    kind: str, payload: dict[str, Any], rolled: bool
) -> None:
    game = DiceHunter(PLAYERS3)
    game.apply(Input.from_json({"type": "reveal", "tile": "2-duo"}))
    if rolled:
        game.apply(Input.from_json({"type": "roll", "player": "ann", "dice": [1, 2, 2, 3, 4]}))
    before = json.dumps(game.state, sort_keys=True)
    try:
        game.apply(Input.from_json({"type": kind, "player": "ann", **payload}))
    except RuleError:
        assert json.dumps(game.state, sort_keys=True) == before
    else:
        check_conservation(game)
