"""`dicetable tournament` and `dicetable tournament-export` (registered by controller.cli)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from controller.cli_display import ALLOW_HOST_HELP

if TYPE_CHECKING:
    from controller.tournament import Tournament


def _fail(message: str) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(2)


def default_db(name: str) -> Path:
    from controller.config import data_dir

    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "tournament"
    return data_dir() / f"tournament-{slug}.sqlite3"


def _open(file: Path, db: Path | None, *, new: bool = False) -> Tournament:
    """The tournament of ``file`` with its state at ``db`` (default: the user data directory's).
    Only ``dicetable tournament`` (``new``) starts a state; the other commands refuse one that does
    not exist, naming where they looked, rather than make an empty tournament there."""
    from controller.tournament import Tournament
    from controller.tournament_file import load_tournament

    spec = load_tournament(file)
    path = db or default_db(spec.tournament.name)
    if not new and not path.is_file():
        given = "--db" if db else "the default state (no --db given)"
        raise ValueError(
            f"{path}: no tournament state there ({given}); give --db as 'dicetable tournament' was "
            "given, or start the tournament first"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    return Tournament(spec, path)


def _open_for(file: Path, db: Path | None, fmt: str, formats: tuple[str, ...]) -> Tournament:
    """The tournament to print in `fmt`, one of `formats`; a wrong format or file exits with a message."""
    if fmt not in formats:
        raise _fail(f"--format {fmt!r}: expected {', '.join(formats[:-1])} or {formats[-1]}")
    try:
        return _open(file, db)
    except ValueError as e:
        raise _fail(str(e)) from None


def tournament(
    file: Path = typer.Argument(..., help="The tournament file (TOML): players, rounds, tables, [mqtt]."),
    db: Path | None = typer.Option(None, help="Its SQLite state (default: in the user data directory)."),
    host: str = typer.Option("127.0.0.1", help="Address to serve the tournament page on."),
    port: int = typer.Option(8002, help="Port to serve the tournament page on."),
    admin_token: str | None = typer.Option(
        None, help="Organiser token; without one, organiser actions are loopback-only."
    ),
    allow_host: list[str] = typer.Option([], help=ALLOW_HOST_HELP),
) -> None:
    """Run a tournament in the hall: pair rounds, take results from the tables, show standings."""
    from controller.tournament import TournamentError
    from display.guard import host_names
    from display.hub import Hub
    from display.mqtt import Hall
    from display.server import serve
    from display.tournament_app import TournamentView, create_tournament_app

    try:
        t = _open(file, db, new=True)
        if t.spec.mqtt is None:
            raise ValueError(f"{file}: expected an [mqtt] section (how the hall reaches the tables' broker)")
        link = t.spec.mqtt.link("dicetable-hall")
    except (ValueError, TournamentError) as e:
        raise _fail(str(e)) from None
    hub = Hub()
    hall = Hall(link=link)
    view = TournamentView(t, hall, hub)
    hall.on_change = view.changed
    hall.on_result = view.on_result
    hall.on_connect = view.publish_pairings  # this round's pairings go to its tables (again) at every connect
    hall.start()
    st = t.state()
    print(
        f"{st['name']}: round {st['round']} of {st['rounds']} on http://{host}:{port}/",
        f"(broker {link.describe()})",
    )
    try:
        app = create_tournament_app(view, admin_token, allowed_hosts=host_names(host, allow_host))
        serve(app, host, port)
    finally:
        hall.stop()
        t.close()


def tournament_export(
    file: Path = typer.Argument(..., help="The tournament file."),
    db: Path | None = typer.Option(None, help="Its SQLite state (default: in the user data directory)."),
    fmt: str = typer.Option(
        "csv",
        "--format",
        help="csv (one row per player and match), standings (one row per player: rank, points, "
        "tie-breaks) or json (both, the round history and the winner).",
    ),
) -> None:
    """Print a tournament's results: every match and the standings."""
    t = _open_for(file, db, fmt, ("csv", "standings", "json"))
    try:
        if fmt == "json":
            sys.stdout.write(json.dumps(t.export_json(), indent=2) + "\n")
        else:
            sys.stdout.write(t.export_csv() if fmt == "csv" else t.export_standings_csv())
    finally:
        t.close()


def parse_scores(items: list[str]) -> dict[str, str]:
    """``--score ann=300`` (repeated) -> {"ann": "300"}; the tournament checks the numbers."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(f"--score {item!r}: expected PLAYER=SCORE, e.g. --score ann=300")
        if name.strip() in out:
            raise ValueError(f"--score {item!r}: {name.strip()} has a score already")
        out[name.strip()] = value.strip()
    return out


def tournament_result(
    file: Path = typer.Argument(..., help="The tournament file."),
    table: str = typer.Option(..., help="The table whose match this is (as the round assigned it)."),
    round_no: int = typer.Option(..., "--round", help="The round (must be the current one)."),
    score: list[str] = typer.Option(..., help="PLAYER=SCORE, once for each player of the match."),
    winner: list[str] = typer.Option(
        [], help="A winner (repeat for a shared victory); default: the highest score."
    ),
    by: str = typer.Option(..., help="Who enters it (logged with the time)."),
    override: bool = typer.Option(False, help="Replace a result the table (or someone) already gave."),
    reason: str | None = typer.Option(None, help="Why (required with --override; logged)."),
    db: Path | None = typer.Option(None, help="Its SQLite state (default: in the user data directory)."),
) -> None:
    """Enter a match's result as an organiser: a table that broke or had no camera, or a correction."""
    try:
        scores = parse_scores(score)
        t = _open(file, db)
    except ValueError as e:
        raise _fail(str(e)) from None
    try:
        m = t.enter_result(table, round_no, dict(scores), winner or None, by, override, reason)
        action = t.result_log()[-1]["action"].removesuffix(" an organiser").replace(" by", "")
    except ValueError as e:
        raise _fail(str(e)) from None
    finally:
        t.close()
    who = " and ".join(m["winners"]) + (" won" if len(m["winners"]) == 1 else " shared the victory")
    scored = ", ".join(f"{p} {m['scores'][p]}" for p in m["players"])
    print(f"round {m['round']}, {m['table']}: {who} ({scored}), {action} by {by}")


def tournament_log(
    file: Path = typer.Argument(..., help="The tournament file."),
    db: Path | None = typer.Option(None, help="Its SQLite state (default: in the user data directory)."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> None:
    """Print every change of a result: who, when, before and after, and why."""
    t = _open_for(file, db, fmt, ("text", "json"))
    try:
        log, refused = t.result_log(), t.refused_results()
    finally:
        t.close()
    if fmt == "json":
        print(json.dumps(log, indent=2))
        return
    for row in log:
        after = row["after"] or {}
        scores = ", ".join(f"{p} {s}" for p, s in (after.get("scores") or {}).items())
        why = f" because {row['reason']}" if row["reason"] else ""
        where = f"round {row['round']} {row['table']}"
        print(f"{row['at']}  {where}: {row['action']} ({row['who']}): {scores}{why}")
    for row in reversed(refused):  # oldest first, like the changes above
        print(f"{row['at']}  round {row['round']} {row['table']}: refused the table's result: {row['why']}")


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament)
    app.command("tournament-export")(tournament_export)
    app.command("tournament-result")(tournament_result)
    app.command("tournament-log")(tournament_log)
