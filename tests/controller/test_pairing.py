"""Pairings and standings as an organiser would check them, and the tournament file's errors."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.pairing import Finished, round_robin, standings, swiss
from controller.tournament import Tournament, TournamentError
from controller.tournament_file import TournamentFile, load_tournament
from display.pairings import SEAT_COLOURS

SIX = ["p1", "p2", "p3", "p4", "p5", "p6"]


def play(pairs: list[tuple[str, ...]], scores: dict[str, int] | None = None) -> list[Finished]:
    """The better seed (lower number) wins every game, unless scores say otherwise."""
    out = []
    for pair in pairs:
        if len(pair) == 1:
            out.append(Finished(pair))
            continue
        winner = min(pair, key=lambda p: int(p[1:]))
        out.append(Finished(pair, {p: (10 if p == winner else 5) for p in pair}, (winner,)))
    return out


def test_swiss_round_one_is_top_half_against_bottom_half_then_winners_meet() -> None:
    r1 = swiss(SIX, [])
    assert r1 == [("p1", "p4"), ("p2", "p5"), ("p3", "p6")]
    done = play(r1)
    r2 = swiss(SIX, done)
    assert r2[0] == ("p1", "p2")  # the two best of round one
    met = {frozenset(m.players) for m in done}
    assert not any(frozenset(p) in met for p in r2)


def test_swiss_never_repeats_a_match_while_one_can_be_avoided_and_gives_each_bye_once() -> None:
    five = SIX[:5]
    done: list[Finished] = []
    for _ in range(4):
        pairs = swiss(five, done)
        assert sorted(itertools.chain(*pairs)) == five
        done += play(pairs)
    games = [frozenset(m.players) for m in done if not m.bye]
    assert len(games) == len(set(games))
    byes = [m.players[0] for m in done if m.bye]
    assert len(byes) == len(set(byes)) == 4


def test_tie_breaks_points_then_buchholz_then_game_score_then_seed() -> None:
    rows = standings(
        ["a", "b", "c", "d"],
        [
            Finished(("a", "b"), {"a": 10, "b": 1}, ("a",)),
            Finished(("c", "d"), {"c": 50, "d": 1}, ("c",)),
            Finished(("a", "d"), {"a": 1, "d": 2}, ("d",)),
            Finished(("b", "c"), {"b": 3, "c": 2}, ("b",)),
        ],
    )
    # all on 3 points and Buchholz 6: the game score decides (c 52, a 11, b 4, d 3)
    assert [(r.name, r.points, r.buchholz) for r in rows] == [
        ("c", 3, 6),
        ("a", 3, 6),
        ("b", 3, 6),
        ("d", 3, 6),
    ]
    shared = standings(["a", "b"], [Finished(("a", "b"), {"a": 5, "b": 5}, ("a", "b"))])
    assert [(r.name, r.points, r.draws) for r in shared] == [("a", 1, 1), ("b", 1, 1)]


def test_round_robin_meets_everyone_once() -> None:
    five = SIX[:5]
    rounds = [round_robin(five, n) for n in range(1, 6)]
    games = [frozenset(p) for r in rounds for p in r if len(p) == 2]
    assert sorted(map(sorted, games)) == sorted(map(sorted, itertools.combinations(five, 2)))
    assert sorted(p[0] for r in rounds for p in r if len(p) == 1) == five
    with pytest.raises(ValueError, match=r"rounds 1\.\.5"):
        round_robin(five, 6)


def spec(**tournament: object) -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1", "t2"], **tournament},
            "players": [{"name": n} for n in ("ann", "bob", "cid")],
            "rounds": [{"game": "dice-fighter"}, {"game": "dicetar-wars"}],
        }
    )


def result(
    table: str, players: tuple[str, str], winner: str, game: str = "dice-fighter"
) -> dict[str, object]:
    return {
        "table": table,
        "game": game,
        # each player the colour of the seat the pairing gave them (the table plays with it)
        "players": [
            {"name": p, "colour": SEAT_COLOURS[i % len(SEAT_COLOURS)]} for i, p in enumerate(players)
        ],
        "scores": {p: 1 for p in players},
        "winners": [winner],
        "seq": 9,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def test_a_tournament_takes_only_its_matchs_result_and_keeps_it_across_a_restart(tmp_path: Path) -> None:
    t = Tournament(spec(confirm="table"), tmp_path / "t.sqlite3")
    [match, bye] = t.start_next_round()
    assert match["table"] == "t1" and bye["players"] == ["cid"] and bye["status"] == "confirmed"
    a, b = match["players"]
    assert not t.take_result("t2", result("t2", (a, b), a))  # not this match's table
    assert not t.take_result("t1", result("t1", (a, "cid"), a))  # not its players
    assert not t.take_result("t1", result("t1", (a, b), a, game="dicetar-wars"))  # another game
    assert t.take_result("t1", result("t1", (a, b), a))
    t.close()
    again = Tournament(spec(confirm="table"), tmp_path / "t.sqlite3")
    st = again.state()
    assert st["round"] == 1 and st["matches"][0]["status"] == "confirmed"
    assert [r["name"] for r in st["standings"]][:1] in ([a], ["cid"])
    with pytest.raises(TournamentError, match="holds the tournament 'Open'"):
        Tournament(
            TournamentFile.model_validate(
                {**spec().model_dump(), "tournament": {"name": "Other", "tables": ["t1"]}}
            ),
            tmp_path / "t.sqlite3",
        )


def test_a_bad_tournament_file_names_each_problem(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "X"\nformat = "knockout"\n\n[[players]]\nname = "ann"\n\n'
        '[[players]]\nname = "bob"\n\n[[rounds]]\ngame = "chess"\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as e:
        load_tournament(path)
    text = str(e.value)
    assert "tournament.format" in text and "'swiss' or 'round-robin'" in text
    assert "rounds.0.game" in text and "got 'chess'" in text
