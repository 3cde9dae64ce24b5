"""A tournament's end: the last round is not over when it starts, the winner, the round history, and
exports (CSV and JSON, page and CLI) that carry the standings with rank, points and tie-breaks."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from typer.testing import CliRunner

from controller.tournament import Tournament
from controller.tournament_file import TournamentFile

PLAYERS = ("ann", "bob", "cid", "dan")
FILE = (
    '[tournament]\nname = "Open"\ntables = ["t1", "t2"]\n'
    + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS)
    + '[[rounds]]\ngame = "die-angler"\n' * 3
)


def spec() -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": ["t1", "t2"]},
            "players": [{"name": n} for n in PLAYERS],
            "rounds": [{"game": "die-angler"}] * 3,
        }
    )


def play_round(t: Tournament, points: dict[str, int]) -> None:
    """Every match of the round entered by the organiser: each player scores ``points[name]``."""
    for m in t.matches(t.round_no):
        t.enter_result(m["table"], m["round"], {p: points[p] for p in m["players"]}, who="Yuki")


def test_the_last_round_is_not_over_when_it_starts_and_the_winner_shows_once_it_is(tmp_path: Path) -> None:
    t = Tournament(spec(), tmp_path / "t.sqlite3")
    points = {"ann": 500, "bob": 400, "cid": 300, "dan": 200}  # ann wins every match she plays
    for _ in (1, 2):
        t.start_next_round()
        play_round(t, points)
    t.start_next_round()
    st = t.state()
    assert st["round"] == 3 and not st["over"] and st["winner"] is None
    assert st["next_blocked_by"] == "round 3 (the last) has 2 match(es) without a confirmed result"
    assert not st["can_start_next"]
    play_round(t, points)
    st = t.state()
    assert st["over"] and st["next_blocked_by"] == "the last round has been played"
    assert st["winner"] == "ann" == st["standings"][0]["name"]
    assert [r["rank"] for r in st["standings"]] == [1, 2, 3, 4]
    # the round history: every round, its game, its pairings and their results
    assert [(r["round"], r["game"]) for r in st["history"]] == [
        (1, "die-angler"),
        (2, "die-angler"),
        (3, "die-angler"),
    ]
    for r in st["history"]:
        assert len(r["matches"]) == 2 and r["started"]
        for m in r["matches"]:
            assert m["status"] == "confirmed" and m["scores"] == {p: points[p] for p in m["players"]}
            assert m["winners"] == [max(m["players"], key=points.__getitem__)]
    assert st["history"][0]["matches"][0]["players"] == ["ann", "cid"]  # seeding: top half v bottom half
    t.close()


def test_the_exports_carry_the_standings_with_rank_points_and_tie_breaks(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    t = Tournament(spec(), db)
    for _ in range(3):
        t.start_next_round()
        play_round(t, {"ann": 500, "bob": 400, "cid": 300, "dan": 200})
    rows = list(csv.DictReader(io.StringIO(t.export_standings_csv())))
    want = t.state()["standings"]
    assert list(rows[0]) == [
        "rank", "player", "points", "wins", "draws", "losses", "byes", "buchholz", "placement", "game_score"
    ]  # fmt: skip
    assert [(r["rank"], r["player"], r["points"], r["buchholz"]) for r in rows] == [
        (str(w["rank"]), w["name"], str(w["points"]), str(w["buchholz"])) for w in want
    ]
    assert rows[0]["player"] == "ann" and rows[0]["points"] == "9" and rows[0]["wins"] == "3"
    exported = t.export_json()
    assert exported["winner"] == "ann" and exported["over"] is True
    assert exported["standings"][0]["rank"] == 1 and len(exported["history"]) == 3
    t.close()

    file = tmp_path / "open.toml"
    file.write_text(FILE, encoding="utf-8")
    runner = CliRunner()
    from controller.cli import app

    out = runner.invoke(app, ["tournament-export", str(file), "--db", str(db), "--format", "standings"])
    assert out.exit_code == 0, out.output
    assert [r["player"] for r in csv.DictReader(io.StringIO(out.output))] == [w["name"] for w in want]
    out = runner.invoke(app, ["tournament-export", str(file), "--db", str(db), "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.output)["winner"] == "ann"
    bad = runner.invoke(app, ["tournament-export", str(file), "--db", str(db), "--format", "xls"])
    assert bad.exit_code == 2 and "--format 'xls': expected csv, standings or json" in bad.output
