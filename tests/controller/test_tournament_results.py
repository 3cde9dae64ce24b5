"""An organiser enters or corrects a match's result: checked whole, logged with who and when, never silent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from controller.tournament import Tournament, TournamentError
from controller.tournament_file import TournamentFile
from display.pairings import SEAT_COLOURS

PLAYERS = ("ann", "bob", "cid", "dan")


def spec() -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1", "t2"]},
            "players": [{"name": n} for n in PLAYERS],
            "rounds": [{"game": "die-angler"}, {"game": "dicetar-wars"}],
        }
    )


def table_result(
    table: str, players: list[str], scores: list[int], game: str = "die-angler"
) -> dict[str, Any]:
    best = max(scores)
    return {
        "table": table,
        "game": game,
        # each player the colour of the seat the pairing gave them (the table plays with it)
        "players": [
            {"name": p, "colour": SEAT_COLOURS[i % len(SEAT_COLOURS)]} for i, p in enumerate(players)
        ],
        "scores": dict(zip(players, scores, strict=True)),
        "winners": [p for p, s in zip(players, scores, strict=True) if s == best],
        "seq": 9,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }


@pytest.fixture
def t(tmp_path: Path) -> Any:
    tour = Tournament(spec(), tmp_path / "t.sqlite3")
    tour.start_next_round()  # round 1: ann v cid at t1, bob v dan at t2
    yield tour
    tour.close()


def everything(t: Tournament) -> tuple[Any, ...]:
    return (t.matches(), t.result_log(), t.state()["standings"])


def test_an_organiser_enters_the_result_of_a_table_without_a_camera(t: Tournament) -> None:
    m1 = t.matches(1)[0]
    assert (m1["table"], m1["players"]) == ("t1", ["ann", "cid"])
    m = t.enter_result("t1", 1, {"ann": 300, "cid": 500}, who="Yuki")
    assert (m["status"], m["scores"], m["winners"], m["confirmed_by"]) == (
        "confirmed",
        {"ann": 300, "cid": 500},
        ["cid"],  # no winners given: the highest score
        "Yuki",
    )
    [entry] = t.result_log()
    assert (entry["who"], entry["action"], entry["round"], entry["table"]) == (
        "Yuki",
        "entered by an organiser",
        1,
        "t1",
    )
    assert entry["before"] is None and entry["after"]["scores"] == {"ann": 300, "cid": 500} and entry["at"]
    rows = {r["name"]: r for r in t.state()["standings"]}
    assert rows["cid"]["points"] == 3 and rows["ann"]["points"] == 0
    # a result the table sends later (its camera came back) does not replace the organiser's
    assert not t.take_result("t1", table_result("t1", ["ann", "cid"], [900, 0]))
    assert t.matches(1)[0]["scores"] == {"ann": 300, "cid": 500} and len(t.result_log()) == 1
    # the winners may be given (a game whose winner is not the highest score)
    m = t.enter_result("t2", 1, {"bob": 4, "dan": 4}, winners=["dan"], who="Yuki")
    assert m["winners"] == ["dan"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("t9", 1, {"ann": 1, "cid": 2}), "table 't9' has no match in round 1 (its tables: t1, t2)"),
        (
            ("t1", 2, {"ann": 1, "cid": 2}),
            "round 2 has not started: results are entered for the current round, 1",
        ),
        (("t1", 0, {"ann": 1, "cid": 2}), "round 0 is closed"),
        (("t1", 1, {"ann": 1, "eve": 2}), "player 'eve' is not at table 't1' (its players: ann, cid)"),
        (("t1", 1, {"ann": 1}), "no score for cid (give one for each of ann, cid)"),
        (
            ("t1", 1, {"ann": -5, "cid": 2}),
            "score of ann: -5 is impossible (expected a whole number 0..100000)",
        ),
        (("t1", 1, {"ann": 2.5, "cid": 2}), "score of ann: 2.5 is impossible"),
        (("t1", 1, {"ann": "lots", "cid": 2}), "score of ann: 'lots' is impossible"),
        (("t1", 1, {"ann": 10**9, "cid": 2}), "score of ann: 1000000000 is impossible"),
        (("t1", 1, {"ann": True, "cid": 2}), "score of ann: True is impossible"),
        (
            ("t1", 1, {"ann": 1, "cid": 2}, ["bob"]),
            "winner 'bob' is not at table 't1' (its players: ann, cid)",
        ),
        (("t1", 1, {"ann": 1, "cid": 2}, ["ann", "ann"]), "winners: each player once"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message_and_changes_nothing(
    t: Tournament, args: tuple[Any, ...], message: str
) -> None:
    before = everything(t)
    with pytest.raises(TournamentError) as e:
        t.enter_result(*args, who="Yuki")
    assert message in str(e.value)
    assert everything(t) == before


def test_a_result_the_table_reported_is_replaced_only_with_an_override_and_a_reason(
    tmp_path: Path, t: Tournament
) -> None:
    assert t.take_result("t1", table_result("t1", ["ann", "cid"], [700, 200]))
    before = everything(t)
    with pytest.raises(
        TournamentError, match=r"already has a result \(reported by the table: ann 700, cid 200\)"
    ):
        t.enter_result("t1", 1, {"ann": 200, "cid": 700}, who="Yuki")
    with pytest.raises(TournamentError, match="replacing a result needs a reason"):
        t.enter_result("t1", 1, {"ann": 200, "cid": 700}, who="Yuki", override=True, reason="  ")
    assert everything(t) == before
    m = t.enter_result(
        "t1", 1, {"ann": 200, "cid": 700}, who="Yuki", override=True, reason="the camera swapped the colours"
    )
    assert (m["status"], m["winners"], m["confirmed_by"]) == ("confirmed", ["cid"], "Yuki")
    reported, overridden = t.result_log()
    assert (reported["who"], reported["action"]) == ("table", "reported by the table")
    assert overridden["action"] == "overridden by an organiser" and overridden["who"] == "Yuki"
    assert overridden["before"] == {
        "scores": {"ann": 700, "cid": 200},
        "winners": ["ann"],
        "status": "reported",
    }
    assert overridden["after"]["scores"] == {"ann": 200, "cid": 700}
    assert overridden["reason"] == "the camera swapped the colours"
    # a confirmed result needs the same; the log and the override survive a restart
    with pytest.raises(TournamentError, match="already has a result"):
        t.enter_result("t1", 1, {"ann": 1, "cid": 2}, who="Kenji")
    t.close()
    again = Tournament(spec(), tmp_path / "t.sqlite3")
    assert again.matches(1)[0]["scores"] == {"ann": 200, "cid": 700}
    assert [e["action"] for e in again.result_log()] == [
        "reported by the table",
        "overridden by an organiser",
    ]
    assert again.export_json()["result_log"][1]["reason"] == "the camera swapped the colours"
    again.close()


def test_the_cli_enters_a_result_and_refuses_bad_input_clearly(tmp_path: Path) -> None:
    from controller.cli import app

    file = tmp_path / "open.toml"
    file.write_text(
        '[tournament]\nname = "Open"\ntables = ["t1", "t2"]\n'
        + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS)
        + '[[rounds]]\ngame = "die-angler"\n',
        encoding="utf-8",
    )
    db = tmp_path / "open.sqlite3"
    t = Tournament(spec(), db)
    t.start_next_round()
    t.close()
    runner = CliRunner()
    base = ["tournament-result", str(file), "--db", str(db), "--table", "t1", "--round", "1"]
    bad = runner.invoke(app, [*base, "--score", "ann=300", "--score", "eve=2", "--by", "Yuki"])
    assert bad.exit_code == 2 and "player 'eve' is not at table 't1'" in bad.output
    bad = runner.invoke(app, [*base, "--score", "ann300", "--by", "Yuki"])
    assert bad.exit_code == 2 and "--score 'ann300': expected PLAYER=SCORE" in bad.output
    ok = runner.invoke(app, [*base, "--score", "ann=300", "--score", "cid=500", "--by", "Yuki"])
    assert ok.exit_code == 0, ok.output
    assert "round 1, t1: cid won (ann 300, cid 500), entered by Yuki" in ok.output
    again = runner.invoke(app, [*base, "--score", "ann=301", "--score", "cid=500", "--by", "Yuki"])
    assert again.exit_code == 2 and "override it and give a reason" in again.output
    log = runner.invoke(app, ["tournament-log", str(file), "--db", str(db), "--format", "json"])
    assert log.exit_code == 0
    [entry] = json.loads(log.output)
    assert (entry["who"], entry["action"], entry["after"]["scores"]) == (
        "Yuki",
        "entered by an organiser",
        {"ann": 300, "cid": 500},
    )
