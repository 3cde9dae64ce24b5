"""`dicetable log check|salvage`: a damaged event log's intact events (registered by controller.cli)."""

from __future__ import annotations

from pathlib import Path

import typer

log_app = typer.Typer(
    name="log",
    help="Check an event log, or copy the intact events of a damaged one to a new log.",
    no_args_is_help=True,
)


def _fail(message: str, code: int = 2) -> typer.Exit:
    from controller.cli_errors import fail

    return fail(message, code)


@log_app.command("check")
def check(file: Path = typer.Argument(..., help="The event log (.sqlite3) to check.")) -> None:
    """Check every page and row of a log (read-only); exit 1 if anything is damaged."""
    from controller.eventlog import LogError
    from controller.logrepair import read_intact

    if not file.is_file():
        raise _fail(f"{file}: no such file (expected a table's .sqlite3 event log)")
    try:
        report = read_intact(file)
    except LogError as e:
        raise _fail(str(e)) from None
    print(report.text())
    if not report.ok:
        raise _fail(
            f"{file}: damaged; 'dicetable log salvage {file} --out NEW.sqlite3' keeps its "
            f"{len(report.events)} intact events",
            1,
        )


@log_app.command("salvage")
def salvage(
    file: Path = typer.Argument(..., help="The damaged event log (read only, never changed)."),
    out: Path = typer.Option(..., "--out", help="The new log to write (must not exist yet)."),
) -> None:
    """Copy every intact event of a log into a new log, keeping each event's seq, game and time."""
    from controller.eventlog import LogError
    from controller.logrepair import salvage as salvage_log

    if not file.is_file():
        raise _fail(f"{file}: no such file (expected a table's .sqlite3 event log)")
    try:
        report = salvage_log(file, out)
    except LogError as e:
        raise _fail(str(e)) from None
    print(report.text())
    left = len(report.events) - report.written
    print(
        f"{out}: {report.written} intact events written; it replays"
        + (f" ({left} intact events that no longer replay left out, see above)" if left else "")
    )


def register(app: typer.Typer) -> None:
    app.add_typer(log_app, name="log")
