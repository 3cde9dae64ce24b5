"""DICETAR WARS properties: replay determinism, score bookkeeping, illegal throws change nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Input, RuleError
from engine.dicetar_wars import DicetarWars, parse_board

BOARD = parse_board(
    {
        "zones": [
            {"name": n, "multiplier": m, "polygon": [[0, 0], [1, 0], [1, 1]]}
            for n, m in (("x3", 3), ("x4", 4), ("x6", 6), ("x8", 8))
        ]
    },
    "props",
)
COLOURS = {"ann": "red", "bob": "blue"}


def dice_for(data: st.DataObject, colours: list[str]) -> list[dict[str, Any]]:
    """Five dice of each colour, some off the board, some stacked on earlier dice."""
    out: list[dict[str, Any]] = []
    for colour in colours:
        for _ in range(5):
            d: dict[str, Any] = {"value": data.draw(st.integers(1, 6)), "colour": colour}
            bases = [i for i, b in enumerate(out) if "rests_on" not in b]
            if bases and data.draw(st.integers(0, 5)) == 0:
                d["rests_on"] = data.draw(st.sampled_from(bases))
                d["stack_level"] = 1
            elif data.draw(st.integers(0, 3)) == 0:
                d["field_status"] = "off"
            else:
                d["field_status"] = "field"
                d["zones"] = data.draw(st.lists(st.sampled_from(["x3", "x4", "x6", "x8"]), unique=True))
            out.append(d)
    return out


def legal_throw(game: DicetarWars, data: st.DataObject) -> dict[str, Any]:
    exp = game.state["expects"]
    step = exp["detail"]["step"]
    colours = [COLOURS[exp["players"][0]]] if step == "first_throw" else ["red", "blue"]
    return {"type": "throw", "player": exp["players"][0], "dice": dice_for(data, colours)}


def junk_throw(game: DicetarWars, data: st.DataObject) -> dict[str, Any]:
    """A plausible throw with one thing wrong (or a wrong-kind input)."""
    good = legal_throw(game, data)
    dice = good["dice"]
    i = data.draw(st.integers(0, len(dice) - 1))
    fault = data.draw(st.integers(0, 7))
    if fault == 0:
        del dice[i]
    elif fault == 1:
        dice[i]["colour"] = "green"
    elif fault == 2:
        dice[i]["value"] = data.draw(st.sampled_from([0, 7, -1, "six"]))
    elif fault == 3:
        dice[i]["rests_on"] = data.draw(st.sampled_from([i, len(dice), -1, "x"]))
    elif fault == 4:
        dice[i]["zones"] = ["nowhere"]
        dice[i]["field_status"] = "field"
    elif fault == 5:
        good["player"] = "bob" if good["player"] == "ann" else "ann"
    elif fault == 6:
        good["type"] = data.draw(st.sampled_from(["roll", "choice", "reveal"]))
    else:
        dice[i].pop("field_status", None)
        dice[i].pop("rests_on", None)
    return good


def check_books(game: DicetarWars) -> None:
    s = game.state
    for d in s["table"]:
        expected = 0 if d["multiplier"] is None else d["value"] * d["multiplier"] * (4 if d["stacked"] else 1)
        assert d["points"] == expected
    assert sum(s["provisional"].values()) == sum(d["points"] for d in s["table"])
    totals = {"ann": 0, "bob": 0}
    for h in s["halves"]:
        raw = {"ann": 0, "bob": 0}
        for d in h["dice"]:
            raw[d["owner"]] += d["points"]
        assert h["scores"][h["first"]] == raw[h["first"]]
        assert h["scores"][h["second"]] == raw[h["second"]] * (2 if h["doubled"] else 1)
        for p in totals:
            totals[p] += h["scores"][p]
    assert s["totals"] == totals == s["scores"]
    if s["result"] is not None:
        a, b = s["result"]["ranking"]
        assert totals[a] > totals[b]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_replaying_the_accepted_throws_rebuilds_the_same_state(data: st.DataObject) -> None:
    game = DicetarWars(["ann", "bob"], {"colours": COLOURS}, data={"board": BOARD})
    accepted: list[dict[str, Any]] = []
    for _ in range(40):
        if game.result() is not None:
            break
        if data.draw(st.integers(0, 2)) == 0:
            bad = junk_throw(game, data)
            before = json.dumps(game.state, sort_keys=True)
            try:
                game.apply(Input.from_json(bad))
            except RuleError:
                assert json.dumps(game.state, sort_keys=True) == before, f"refused {bad} changed the state"
            else:
                accepted.append(bad)
        else:
            good = legal_throw(game, data)
            game.apply(Input.from_json(good))
            accepted.append(good)
        check_books(game)
    result = game.result()
    if result is not None:  # what a table reports at the end is a result the rules give
        assert DicetarWars.check_result(game.players, result.scores, result.winners, game.options) is None
    again = DicetarWars(["ann", "bob"], {"colours": COLOURS}, data={"board": BOARD})
    for raw in accepted:
        again.apply(Input.from_json(raw))
    assert json.dumps(again.state, sort_keys=True) == json.dumps(game.state, sort_keys=True)


DIE_KEYS = [
    "value",
    "colour",
    "kind",
    "sides",
    "zones",
    "min_multiplier",
    "field_status",
    "stack_level",
    "rests_on",
]
any_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.sampled_from(DIE_KEYS), inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(player=st.sampled_from(["ann", "bob", None]), dice=any_json)
def test_any_garbled_throw_is_refused_cleanly_or_accepted(player: str | None, dice: Any) -> None:
    game = DicetarWars(["ann", "bob"], data={"board": BOARD})
    before = json.dumps(game.state, sort_keys=True)
    raw: dict[str, Any] = {"type": "throw", "dice": dice}
    if player is not None:
        raw["player"] = player
    try:
        game.apply(Input.from_json(raw))
    except RuleError as e:
        assert "die" in str(e) or "throw" in str(e) or "player" in str(e)
        assert json.dumps(game.state, sort_keys=True) == before
    else:
        assert len(game.state["dice"]) == 5
