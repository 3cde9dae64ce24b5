"""A final result given from elsewhere (a table's MQTT result) is checked against the game's own rules."""

from __future__ import annotations

from typing import Any

import pytest

from engine import find_game


@pytest.mark.parametrize(
    "game, scores, winners, options, why",
    [
        # the forgery: the lower score (0 v 5) wins
        ("dicetar-wars", {"ann": 0, "bob": 5}, ["ann"], {}, "not more than bob's 5"),
        ("dicetar-wars", {"ann": 5, "bob": 5}, ["ann"], {}, "equal totals are replayed"),
        ("dicetar-wars", {"ann": 5, "bob": 5}, ["ann", "bob"], {}, "one winner"),
        ("nozoku-dice", {"ann": 0, "bob": 5}, ["ann"], {}, "so ['bob']"),
        ("nozoku-dice", {"ann": 5, "bob": 5}, ["ann"], {}, "so ['ann', 'bob']"),
        ("dice-fighter", {"ann": 0, "bob": 5}, ["ann"], {}, "bob reached the end flag (5)"),
        ("dice-fighter", {"ann": 3, "bob": 6}, ["ann"], {"end_flag_levels": 6}, "end flag (6)"),
        ("dice-fighter", {"ann": 5, "bob": 5}, ["ann", "bob"], {}, "one winner"),
        ("dice-hunter", {"ann": 0, "bob": 5, "cid": 0}, ["ann"], {}, "a multiple of 50"),
        ("dice-hunter", {"ann": 100, "bob": 50, "cid": 0}, ["ann", "bob"], {}, "one winner"),
        ("die-angler", {"ann": 0, "bob": 5}, ["ann"], {"extra_game": False}, "so ['bob']"),
        # the shape, for every game
        ("dicetar-wars", {"ann": 7, "bob": 2, "eve": 0}, ["ann"], {}, "seats 2-2"),
        ("dicetar-wars", {"ann": 7, "bob": -2}, ["ann"], {}, "score of bob"),
        ("dicetar-wars", {"ann": 7.5, "bob": 2}, ["ann"], {}, "score of ann"),
        ("dicetar-wars", {"ann": 7, "bob": 2}, [], {}, "winners: expected one or more"),
        ("dicetar-wars", {"ann": 7, "bob": 2}, ["eve"], {}, "winners: expected one or more"),
    ],
)
def test_a_result_the_rules_cannot_give_is_refused_with_why(
    game: str, scores: dict[str, Any], winners: list[str], options: dict[str, Any], why: str
) -> None:
    got = find_game(game).check_result(list(scores), scores, winners, options)
    assert got is not None and why in got, got


@pytest.mark.parametrize(
    "game, scores, winners, options",
    [
        ("dicetar-wars", {"ann": 9, "bob": 5}, ["ann"], {}),
        ("nozoku-dice", {"ann": 5, "bob": 5, "cid": 2}, ["ann", "bob"], {}),
        ("dice-fighter", {"ann": 3, "bob": 2}, ["bob"], {}),  # bob's opponent ran out of fighters
        ("dice-fighter", {"ann": 7, "bob": 7}, ["bob"], {}),  # super sudden death from equal levels
        ("dice-hunter", {"ann": 0, "bob": 650, "cid": 50}, ["ann"], {}),  # ann took the reversal tile
        ("die-angler", {"ann": 2, "bob": 4}, ["ann"], {}),  # the extra game's catches decide
    ],
)
def test_a_result_the_rules_can_give_passes(
    game: str, scores: dict[str, Any], winners: list[str], options: dict[str, Any]
) -> None:
    assert find_game(game).check_result(list(scores), scores, winners, options) is None


def test_a_result_must_score_exactly_the_players_it_names() -> None:
    why = find_game("nozoku-dice").check_result(["ann", "bob", "cid"], {"ann": 7, "bob": 2}, ["ann"])
    assert why is not None and why.startswith("scores: expected one for each of ['ann', 'bob', 'cid']")
