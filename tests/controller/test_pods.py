"""Tables of three or more players (pods): sizes, byes, Swiss by standings, placement tie-break, the file."""

from __future__ import annotations

import csv
import io
import itertools
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from controller.pairing import Finished, places_below, pod_sizes, standings, swiss
from controller.tournament import Tournament
from controller.tournament_file import TournamentFile, load_tournament
from display.pairings import SEAT_COLOURS

TEN = [f"p{i}" for i in range(1, 11)]


@pytest.mark.parametrize(
    "players, seats, fewest, sizes, byes",
    [
        (10, 4, 3, [4, 3, 3], 0),  # fill with tables of three rather than sit anyone out
        (11, 4, 3, [4, 4, 3], 0),
        (9, 4, 3, [3, 3, 3], 0),
        (8, 4, 3, [4, 4], 0),
        (5, 4, 3, [4], 1),  # 3 + 2 is not a Dice Hunter table: one bye
        (5, 4, 2, [3, 2], 0),  # Die-angler seats two
        (7, 2, 2, [2, 2, 2], 1),  # pairs: the odd one out
        (6, 5, 2, [3, 3], 0),
    ],
)
def test_table_sizes_are_even_and_byes_as_few_as_the_game_allows(
    players: int, seats: int, fewest: int, sizes: list[int], byes: int
) -> None:
    assert pod_sizes(players, seats, fewest) == (sizes, byes)


def play(tables: list[tuple[str, ...]]) -> list[Finished]:
    """The best seed (lowest number) wins each table; game score falls with the seed."""
    out = []
    for t in tables:
        if len(t) == 1:
            out.append(Finished(t))
            continue
        best = min(t, key=lambda p: int(p[1:]))
        out.append(Finished(t, {p: 100 - int(p[1:]) for p in t}, (best,)))
    return out


def test_round_one_deals_the_seeding_round_the_tables() -> None:
    assert swiss(TEN, [], seats=4, fewest=3) == [
        ("p1", "p4", "p7", "p10"),
        ("p2", "p5", "p8"),
        ("p3", "p6", "p9"),
    ]


def test_later_rounds_fill_tables_down_the_standings_with_fewest_rematches() -> None:
    eight = TEN[:8]
    r1 = swiss(eight, [], seats=4, fewest=3)
    done = play(r1)
    r2 = swiss(eight, done, seats=4, fewest=3)
    assert sorted(len(t) for t in r2) == [4, 4] and sorted(itertools.chain(*r2)) == sorted(eight)
    first = {p: i for i, t in enumerate(r1) for p in t}
    for t in r2:  # two from each round-one table: the fewest rematches there can be
        assert sorted(first[p] for p in t) == [0, 0, 1, 1]
    assert r2[0][0] == "p1"  # the leader seats the first table


def test_byes_go_to_the_lowest_placed_and_to_no_one_twice_while_others_have_none() -> None:
    five = TEN[:5]
    done: list[Finished] = []
    byes = []
    for _ in range(5):
        tables = swiss(five, done, seats=4, fewest=3)
        [bye] = [t for t in tables if len(t) == 1]
        assert sorted(itertools.chain(*tables)) == sorted(five)
        if not done:
            assert bye == ("p5",)  # the lowest seed
        byes.append(bye[0])
        done += play(tables)
    assert sorted(byes) == sorted(five)


def test_pod_standings_points_buchholz_then_placement() -> None:
    pod = Finished(("a", "b", "c", "d"), {"a": 400, "b": 300, "c": 300, "d": 100}, ("a",))
    assert places_below(pod) == {"a": 3, "b": 1, "c": 1, "d": 0}  # b and c share second place
    rows = {r.name: r for r in standings(["a", "b", "c", "d"], [pod])}
    assert [rows[n].points for n in "abcd"] == [3, 0, 0, 0]
    assert rows["b"].buchholz == 3 and rows["a"].buchholz == 0  # every pod-mate is an opponent
    # level on points and Buchholz: placement decides before the game score
    x = Finished(("a", "b", "c"), {"a": 5, "b": 1, "c": 20}, ("a",))
    y = Finished(("d", "e", "f"), {"d": 5, "e": 1000, "f": 999}, ("d",))
    order = [r.name for r in standings(["a", "b", "c", "d", "e", "f"], [x, y])]
    # all losers have 0 points and Buchholz 3: the second places (c, e) come before the thirds,
    # c before f although f scored 999 to c's 20; within a place the game score decides
    assert order == ["a", "d", "e", "c", "f", "b"]
    shared = Finished(("a", "b", "c"), {"a": 9, "b": 9, "c": 1}, ("a", "b"))
    rows = {r.name: r for r in standings(["a", "b", "c"], [shared])}
    assert (rows["a"].points, rows["a"].draws, rows["a"].placement) == (1, 1, 1)


def result(table: str, players: tuple[str, ...], scores: list[int], winners: list[str]) -> dict[str, Any]:
    seat = SEAT_COLOURS
    return {
        "table": table,
        "game": "dice-hunter",
        # each player the colour of the seat the pairing gave them (the table plays with it)
        "players": [{"name": p, "colour": seat[i % len(seat)]} for i, p in enumerate(players)],
        "scores": dict(zip(players, scores, strict=True)),
        "winners": winners,
        "seq": 3,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def test_a_dice_hunter_tournament_seats_pods_and_ranks_by_the_tables_results(tmp_path: Path) -> None:
    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Pods", "tables": ["t1", "t2", "t3"], "confirm": "table"},
            "players": [{"name": n} for n in TEN],
            "rounds": [{"game": "dice-hunter"}, {"game": "dice-hunter", "seats": 3}],
        }
    )
    assert spec.rounds[0].table_size == 4  # Dice Hunter seats 3-4: four by default
    t = Tournament(spec, tmp_path / "pods.sqlite3")
    matches = t.start_next_round()
    assert [(m["table"], len(m["players"])) for m in matches] == [("t1", 4), ("t2", 3), ("t3", 3)]
    for m in matches:
        players = tuple(m["players"])
        scores = [500 - 100 * i for i in range(len(players))]
        assert t.take_result(m["table"], result(m["table"], players, scores, [players[0]]))
    rows = t.state()["standings"]
    assert [r["name"] for r in rows[:3]] == ["p1", "p2", "p3"]  # the winners; p1's table had four
    assert rows[0]["placement"] == 3 and rows[1]["placement"] == 2
    export = list(csv.DictReader(io.StringIO(t.export_csv())))
    p10 = next(r for r in export if r["player"] == "p10")
    assert (p10["opponent"], p10["result"], p10["place"]) == ("p1 p4 p7", "loss", "4")
    second = t.start_next_round()  # tables of three now: 9 seated, never below three, one bye
    assert sorted(len(m["players"]) for m in second) == [1, 3, 3, 3]
    t.close()


@pytest.mark.parametrize(
    "tournament, rounds, message",
    [
        ({}, [{"game": "dice-hunter", "seats": 5}], "round 1: dice-hunter seats 3-4 players a table, not 5"),
        ({"format": "round-robin"}, [{"game": "die-angler", "seats": 3}], "a round robin seats two players"),
        ({"tables": ["t1"]}, [{"game": "dice-hunter"}], "round 1: 2 matches need 2 tables, got 1"),
    ],
)
def test_a_bad_table_size_is_named_in_the_file(
    tmp_path: Path, tournament: dict[str, Any], rounds: list[dict[str, Any]], message: str
) -> None:
    def value(v: Any) -> str:
        return f'"{v}"' if isinstance(v, str) else str(v).replace("'", '"') if isinstance(v, list) else str(v)

    head = {"name": "X", "tables": ["t1", "t2", "t3"], **tournament}
    text = "[tournament]\n" + "".join(f"{k} = {value(v)}\n" for k, v in head.items())
    text += "".join(f'[[players]]\nname = "{n}"\n' for n in TEN[:6])
    text += "".join("[[rounds]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in r.items()) for r in rounds)
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_tournament(path)
