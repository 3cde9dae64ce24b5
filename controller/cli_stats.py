"""`dicetable stats`: per die, face counts, 95 % intervals and a χ² test (registered by controller.cli)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from controller.cli_display import ALLOW_HOST_HELP


def _fail(message: str) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(2)


def fairness_report(logs: list[Path]) -> list[dict[str, object]]:
    """The verdicts of every die in these logs; a clear error for a file that is not a log."""
    from controller.eventlog import LogError
    from controller.fairness import collect

    for log in logs:
        if not log.is_file():
            raise ValueError(f"{log}: no such file (expected a table's SQLite event log)")
        with log.open("rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                raise ValueError(f"{log}: not an SQLite event log (expected a table's .sqlite3 log)")
    try:
        return [d.verdict() for d in collect(logs)]
    except LogError as e:
        raise ValueError(str(e)) from None


def _bar(share: float, expected: float, width: int = 30) -> str:
    scale = width / max(2 * expected, share, 1e-9)
    return "#" * round(share * scale)


def stats(
    logs: list[Path] = typer.Argument(..., help="One or more tables' SQLite event logs."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    serve: bool = typer.Option(
        False, "--serve", help="Serve the /stats page for these logs (re-read on load)."
    ),
    host: str = typer.Option("127.0.0.1", help="Address to serve on (with --serve)."),
    port: int = typer.Option(8003, help="Port to serve on (with --serve)."),
    allow_host: list[str] = typer.Option([], help=ALLOW_HOST_HELP),
) -> None:
    """Dice fairness: per die (table, colour, kind) the face counts, 95 % intervals, χ² test and flag."""
    try:
        report = fairness_report(logs)
    except ValueError as e:
        raise _fail(str(e)) from None
    if serve:
        from display.guard import host_names
        from display.server import serve as serve_app
        from display.stats_page import create_stats_app

        print(f"dice fairness of {len(logs)} log(s) on http://{host}:{port}/stats")
        app = create_stats_app(lambda: fairness_report(logs), allowed_hosts=host_names(host, allow_host))
        serve_app(app, host, port)
        return
    if as_json:
        print(json.dumps({"dice": report}, indent=2))
        return
    if not report:
        print("no scored dice in these logs")
        return
    for d in report:
        faces = d["faces"]
        assert isinstance(faces, list)
        expected = float(d["expected_share"])  # type: ignore[arg-type]
        print(
            f"{d['die']}: {d['rolls']} rolls, χ²={float(d['chi2']):.1f} (df {d['df']}), "  # type: ignore[arg-type]
            f"p={float(d['p']):.3g} - {d['note']}"  # type: ignore[arg-type]
        )
        for f in faces:
            print(
                f"  {f['face']:>3}: {f['count']:>5}  {f['share']:6.1%} "
                f"[{f['low']:5.1%}, {f['high']:5.1%}]  {_bar(f['share'], expected)}"
            )
    flagged = [d["die"] for d in report if d["flagged"]]
    if flagged:
        print(f"flagged: {', '.join(map(str, flagged))}")


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)
