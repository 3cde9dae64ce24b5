"""A table's credentials cannot forge its result: what a table sends is checked against the round and the
game's rules, and a refused result is shown to the organiser with why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.tournament import Tournament
from controller.tournament_file import TournamentFile


def spec(confirm: str = "organiser") -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1"], "confirm": confirm},
            "players": [{"name": "ann"}, {"name": "bob"}],
            "rounds": [{"game": "dicetar-wars"}, {"game": "dicetar-wars"}],
        }
    )


def sent(
    scores: dict[str, int],
    winners: list[str],
    finished: datetime | None = None,
    game: str = "dicetar-wars",
    players: tuple[str, ...] = ("ann", "bob"),
) -> dict[str, Any]:
    """A result as the hall passes it on (already through display.hall_checks)."""
    return {
        "table": "t1",
        "game": game,
        "players": [{"name": p, "colour": c} for p, c in zip(players, ("red", "blue"), strict=True)],
        "scores": scores,
        "winners": winners,
        "seq": 40,
        "finished": (finished or datetime.now(UTC)).isoformat(timespec="seconds"),
    }


def refused(t: Tournament) -> list[str]:
    return [r["why"] for r in t.state()["refused"]]


def test_a_result_dated_2099_retained_before_round_1_never_counts(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    t = Tournament(spec(), db)
    forged = sent({"ann": 90, "bob": 10}, ["ann"], datetime(2099, 1, 1, tzinfo=UTC))
    assert not t.take_result("t1", forged)  # before round 1: not for any match
    t.start_next_round()
    t.close()
    t = Tournament(spec(), db)  # the hall restarts: the broker gives the retained forgery again
    assert not t.take_result("t1", forged)
    [why] = refused(t)
    assert "2099-01-01T00:00:00+00:00, in the future" in why
    assert t.matches(1)[0]["status"] == "playing"
    genuine = sent({"ann": 12, "bob": 31}, ["bob"])
    assert t.take_result("t1", genuine)  # and it blocks nothing
    assert (t.matches(1)[0]["status"], t.matches(1)[0]["winners"]) == ("reported", ["bob"])
    assert not t.take_result("t1", forged) and len(refused(t)) == 1  # again and again: shown once
    t.close()


def test_a_result_published_before_the_round_started_never_counts(tmp_path: Path) -> None:
    """Dated plausibly (a minute into the round), but the hall saw it before the round began."""
    db = tmp_path / "t.sqlite3"
    t = Tournament(spec(), db)
    forged = sent({"ann": 90, "bob": 10}, ["ann"], datetime.now(UTC) + timedelta(seconds=60))
    assert not t.take_result("t1", forged)
    t.start_next_round()
    t.close()
    t = Tournament(spec(), db)
    assert not t.take_result("t1", forged)
    [why] = refused(t)
    assert "before round 1 started" in why and "yet says it finished at" in why
    assert t.take_result("t1", sent({"ann": 12, "bob": 31}, ["bob"]))
    t.close()


def test_a_winner_the_rules_do_not_give_is_not_confirmed_even_with_confirm_table(tmp_path: Path) -> None:
    t = Tournament(spec(confirm="table"), tmp_path / "t.sqlite3")
    t.start_next_round()
    assert not t.take_result("t1", sent({"ann": 0, "bob": 5}, ["ann"]))
    [why] = refused(t)
    assert why.startswith("the rules of dicetar-wars cannot give it: winner ann has 0, not more than bob's 5")
    rows = {r["name"]: r["points"] for r in t.state()["standings"]}
    assert rows == {"ann": 0, "bob": 0} and t.matches(1)[0]["status"] == "playing"
    assert t.take_result("t1", sent({"ann": 0, "bob": 5}, ["bob"]))
    assert {r["name"]: r["points"] for r in t.state()["standings"]} == {"ann": 0, "bob": 3}
    t.close()


@pytest.mark.parametrize(
    "change, why",
    [
        ({"scores": {"ann": 9, "cid": 2}, "players": ("ann", "cid")}, "round 1 paired ['ann', 'bob']"),
        ({"game": "dice-fighter"}, "a result of dice-fighter, round 1 plays"),
        ({"scores": {"ann": 9, "bob": 9}, "winners": ["ann", "bob"]}, "(equal totals are replayed)"),
        ({"finished": timedelta(hours=1)}, "in the future"),
    ],
)
def test_a_result_that_cannot_be_this_matchs_is_refused_with_why(
    change: dict[str, Any], why: str, tmp_path: Path
) -> None:
    t = Tournament(spec(confirm="table"), tmp_path / "t.sqlite3")
    t.start_next_round()
    given = {"scores": {"ann": 9, "bob": 2}, "winners": ["ann"], **change}
    given["finished"] = datetime.now(UTC) + given.get("finished", timedelta(0))
    result = sent(**given)
    before = (t.matches(), t.result_log())
    assert not t.take_result("t1", result)
    assert (t.matches(), t.result_log()) == before
    [shown] = refused(t)
    assert why in shown, shown
    [kept] = t.export_json()["refused_results"]
    assert kept["table"] == "t1" and kept["round"] == 1 and kept["result"] == result
    t.close()


def test_a_second_result_for_a_match_is_shown_and_last_rounds_result_is_not(tmp_path: Path) -> None:
    t = Tournament(spec(), tmp_path / "t.sqlite3")
    t.start_next_round()
    first = sent({"ann": 12, "bob": 31}, ["bob"])
    assert t.take_result("t1", first)
    assert not t.take_result("t1", first) and refused(t) == []  # given again after a restart: nothing new
    assert not t.take_result("t1", sent({"ann": 40, "bob": 31}, ["ann"]))
    [why] = refused(t)
    assert "the match already has a result (reported by the table: ann 12, bob 31)" in why
    t.confirm("t1", "Yuki")
    t.start_next_round()  # round 2 at the same table, the same players and game
    assert not t.take_result("t1", first)  # round 1's result, still retained: not shown as refused
    assert refused(t) == []
    t.close()


def test_a_result_with_the_players_colours_swapped_is_refused(tmp_path: Path) -> None:
    """Issue 47 item 2: a game played under a forged pairing with the colours swapped (ann on blue,
    bob on red) is not the match the hall paired (ann seat 1 red, bob seat 2 blue): refused, named."""
    t = Tournament(spec(), tmp_path / "t.sqlite3")
    t.start_next_round()
    assert t.matches(1)[0]["players"] == ["ann", "bob"]
    swapped = sent({"ann": 90, "bob": 10}, ["ann"])
    swapped["players"] = [{"name": "ann", "colour": "blue"}, {"name": "bob", "colour": "red"}]
    assert not t.take_result("t1", swapped)
    [why] = refused(t)
    assert why == "its players played as ann blue, bob red; round 1 seated ann red, bob blue at this table"
    assert t.matches(1)[0]["status"] == "playing"
    assert t.take_result("t1", sent({"ann": 90, "bob": 10}, ["ann"]))  # as paired: counts
    t.close()
