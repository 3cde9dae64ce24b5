"""Die-angler properties: replay determinism, 15 cards conserved, refused inputs change nothing.

A random but legal table is driven from ``expects()``: whatever the engine asks
for, the driver answers with a random legal-looking input; refusals are
skipped (the engine decides what is legal, the driver only proposes).
"""

from __future__ import annotations

import contextlib
import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Input, InputKind, RuleError
from engine.core import JSON
from engine.die_angler import DieAngler, parse_deck

pytestmark = pytest.mark.slow  # a few seconds each: dozens of whole random games

DECK_FILE = Path(__file__).resolve().parent.parent.parent / "decks" / "die-angler.example.toml"
DECK = parse_deck(tomllib.loads(DECK_FILE.read_text(encoding="utf-8")), str(DECK_FILE))
ALL_PLAYERS = ["ann", "bob", "cid", "dan", "eve"]
FACES = {"d6": range(1, 7), "d10": range(0, 10), "d20": range(1, 21)}
MAX_INPUTS = 400


def new_game(players: int, seed: int, options: dict[str, Any]) -> DieAngler:
    return DieAngler(ALL_PLAYERS[:players], options, random.Random(seed), {"deck": DECK})


def propose(game: DieAngler, rnd: random.Random) -> dict[str, Any]:
    """A random input answering what the game expects (usually legal)."""
    exp = game.expects()
    if exp.kind is InputKind.REVEAL:
        return {"type": "reveal", "card": rnd.choice(exp.detail["cards"])}
    if exp.kind is InputKind.START:
        return {"type": "start"}
    p = rnd.choice(exp.players)
    if exp.kind is InputKind.SECRET:
        modes = ["chum", "reapproach", "lure"] if exp.detail["lure"] else ["chum", "reapproach"]
        specials = {k: rnd.choice(modes) for k in exp.detail["available"][p] if rnd.random() < 0.4}
        # Favour few dice so that passes, failures and carry-overs all happen.
        return {
            "type": "secret",
            "player": p,
            "d6": rnd.choice([0, 1, 1, 2, 2, 3, 4, 5]),
            "specials": specials,
        }
    if exp.kind is InputKind.ROLL:
        dice = [{"kind": k, "value": rnd.choice(FACES[k])} for k in exp.detail["dice"][p]]
        rnd.shuffle(dice)
        return {"type": "roll", "player": p, "dice": dice}
    rights = exp.detail["rights"][p]
    n_dice = len(game.state["rolls"][p]["dice"])
    by = rnd.choice(sorted(rights))
    if rnd.random() < 0.3:
        return {"type": "choice", "player": p, "done": True}
    if rights[by]["mode"] == "reapproach":
        picked = rnd.sample(range(n_dice), rnd.randint(1, n_dice))
        return {"type": "choice", "player": p, "reroll": {"by": by, "dice": picked}}
    change = {"die": rnd.randrange(n_dice), "delta": rnd.choice([-2, -1, 1, 2])}
    return {"type": "choice", "player": p, "lure": {"by": by, "changes": [change]}}


def play_random(game: DieAngler, rnd: random.Random, outcomes: list[JSON] | None = None) -> list[JSON]:
    """Drive the game to its end (or MAX_INPUTS); return the accepted inputs."""
    accepted: list[JSON] = []
    for _ in range(MAX_INPUTS * 3):
        if game.expects().kind is None or len(accepted) >= MAX_INPUTS:
            break
        line = propose(game, rnd)
        try:
            out = game.apply(Input.from_json(line))
        except RuleError:
            continue
        accepted.append(line)
        if outcomes is not None:
            outcomes += [o.to_json() for o in out]
        check_conservation(game)
    return accepted


def check_conservation(game: DieAngler) -> None:
    s = game.state
    known = [*s["carried"], *s["unclaimed"]]
    for held in (s["held"], s["extra_held"]):
        for cards in held.values():
            known += cards
    if s["card"] is not None:
        known.append(s["card"]["id"])
    assert len(set(known)) == len(known), f"a card is in two places: {known}"
    assert s["face_down"] + s["removed"] + len(known) == 15, s
    assert sum(s["scores"].values()) == sum(len(v) for h in (s["held"], s["extra_held"]) for v in h.values())


def snapshot(game: DieAngler) -> str:
    """The public state plus what the engine hides (face-down deck, rng)."""
    return json.dumps(
        {
            "state": game.state,
            "deck": game._hidden_deck,
            "removed": game._hidden_removed,
            "rng": game.rng.getstate(),
        },
        sort_keys=True,
    )


game_setups = st.tuples(
    st.integers(2, 5),
    st.integers(0, 2**16),
    st.fixed_dictionaries({"deck": st.sampled_from(["physical", "virtual"]), "advanced": st.booleans()}),
    st.integers(0, 2**16),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups)
def test_a_replay_rebuilds_the_same_game(setup: tuple[int, int, dict[str, Any], int]) -> None:
    players, seed, options, driver_seed = setup
    game = new_game(players, seed, options)
    outcomes: list[JSON] = []
    inputs = play_random(game, random.Random(driver_seed), outcomes)
    again = new_game(players, seed, options)
    assert [o.to_json() for line in inputs for o in again.apply(Input.from_json(line))] == outcomes
    assert snapshot(again) == snapshot(game)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups)
def test_random_games_end_and_conserve_the_15_cards(setup: tuple[int, int, dict[str, Any], int]) -> None:
    players, seed, options, driver_seed = setup
    game = new_game(players, seed, options)
    play_random(game, random.Random(driver_seed))
    check_conservation(game)
    if game.expects().kind is None:
        result = game.result()
        assert result is not None and result.winners
        assert set(result.ranking) == set(game.players)
        assert DieAngler.check_result(game.players, result.scores, result.winners, game.options) is None
        held = game.state["held" if game.state["part"] == "main" else "extra_held"]
        best = max(len(v) for v in held.values())
        leaders = [p for p in game.players if len(held[p]) == best]
        if game.state["part"] == "extra" and best == 0:
            leaders = game.state["tied"]
        assert list(result.winners) == leaders


junk_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 25),
    st.text(max_size=4),
    st.sampled_from(["d6", "d10", "d20", "chum", "lure", "reapproach", "aji", "tai"]),
    st.lists(st.integers(-1, 21), max_size=6),
)
junk_payloads = st.dictionaries(
    st.sampled_from(["card", "d6", "specials", "dice", "reroll", "lure", "done", "part", "by"]),
    st.one_of(
        junk_values,
        st.dictionaries(st.sampled_from(["d10", "d20", "by", "dice", "changes"]), junk_values, max_size=3),
        st.lists(
            st.one_of(
                st.integers(0, 21),
                st.fixed_dictionaries(
                    {"kind": st.sampled_from(["d6", "d10", "d20"]), "value": st.integers(0, 21)}
                ),
            ),
            max_size=6,
        ),
    ),
    max_size=3,
)
junk_inputs = st.tuples(
    st.sampled_from([k.value for k in InputKind]),
    st.sampled_from(["ann", "bob", "cid", "zed", None]),
    junk_payloads,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups, st.lists(junk_inputs, min_size=1, max_size=25))
def test_a_refused_input_changes_nothing(
    setup: tuple[int, int, dict[str, Any], int], junk: list[tuple[str, str | None, dict[str, Any]]]
) -> None:
    players, seed, options, driver_seed = setup
    game = new_game(players, seed, options)
    rnd = random.Random(driver_seed)
    for kind, player, payload in junk:
        # Move the game on a little so the junk meets every phase.
        for _ in range(rnd.randint(0, 6)):
            if game.expects().kind is None:
                break
            with contextlib.suppress(RuleError):
                game.apply(Input.from_json(propose(game, rnd)))
        line: dict[str, Any] = {"type": kind, **payload}
        if player is not None:
            line["player"] = player
        before = snapshot(game)
        try:
            game.apply(Input.from_json(line))
        except RuleError as e:
            assert snapshot(game) == before, f"refused {line!r} ({e}) but the state changed"
        check_conservation(game)
