"""The ``dicetable`` command line.

Every command turns bad input into a clear one-paragraph message and a
non-zero exit status; no traceback reaches a user.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path

import typer

from controller.cli_errors import err, fail

app = typer.Typer(
    name="dicetable",
    help="A table controller for real dice games: camera -> dice -> rules engine -> score.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # help texts are plain text: "[vision]", "[table]" name config sections, not Rich markup
    rich_markup_mode="markdown",
)
AREAS = (
    "controller.cli_vision",
    "controller.cli_calibration",
    "controller.cli_hardware",
    "controller.cli_display",
    "controller.cli_tournament",
    "controller.cli_learn",
    "controller.cli_log",
    "controller.cli_stats",
    "controller.cli_service",
)


@app.command("check-config")
def check_config(
    file: Path = typer.Argument(..., help="The table.toml to check."),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="Do not open this machine's devices (camera, pins, the event log's folder): for a config "
        "written for another machine.",
    ),
) -> None:
    """Check a table.toml as ``run`` checks it before it starts (types, the camera it names, the
    game's options and players through the engine, the files it names; the camera opened for one
    frame, the pin factory loaded), print every problem at once with its key and what was expected,
    else what the table will use."""
    from controller.setup_check import check_table, kinds_line

    check = check_table(file, offline=offline)
    for key, msg in check.notes:
        print(f"{file}: note: {key}: {msg}")
    if check.cfg is not None:
        print(f"{file}: {kinds_line(check.cfg)}")
    if check.problems:
        for key, msg in check.problems:
            print(f"{file}: {key}: {msg}")
        raise fail(f"{file}: {len(check.problems)} problem(s)", 1) from None
    assert check.cfg is not None
    for key, what in check.uses:
        print(f"{file}: will use: {key}: {what}")
    cfg = check.cfg
    print(f"{file}: OK ({cfg.table.game}, {len(cfg.players)} players, camera {dict(check.uses)['camera']})")


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


@app.command()
def replay(
    source: Path = typer.Argument(..., help="A JSON-lines scenario or a table's SQLite event log."),
    log: Path | None = typer.Option(
        None,
        help="Also write the scenario's inputs to this event log; "
        "if it already holds a prefix of them, resume after it.",
    ),
    game: int | None = typer.Option(None, help="Which game of an event log (default: the latest)."),
    delay: float = typer.Option(0.0, help="Seconds to wait after each input (for demonstrations)."),
) -> None:
    """Rebuild a game from a scenario or an event log and print its final state as JSON."""
    from controller.eventlog import EventLog, LogError
    from controller.scenario import ScenarioError, run_scenario_file

    if not source.is_file():
        raise fail(f"{source}: no such file (expected a .jsonl scenario or a .sqlite3 event log)")
    try:
        if _is_sqlite(source):
            with EventLog(source, read_only=True) as ev:  # never written: replay works on read-only media
                g = ev.replay(game)
        elif log is not None:
            from controller.resume import replay_into_log

            g = replay_into_log(source, log, delay)
        else:
            g = run_scenario_file(source).game
    except (ScenarioError, LogError) as e:
        raise fail(str(e)) from None
    print(json.dumps(g.state, indent=2, sort_keys=True, ensure_ascii=False))


@app.command()
def demo(
    game: str = typer.Option("dice-hunter", help="Which game's recorded session to play."),
    serve: bool = typer.Option(True, "--serve/--no-serve", help="Serve the live display while playing."),
    as_json: bool = typer.Option(False, "--json", help="Print the final scores as JSON."),
    session: Path | None = typer.Option(None, help="A recorded session folder (default: the shipped one)."),
    db: Path | None = typer.Option(
        None, help="Event log file, appended to (default: a new one for each run in the user data directory)."
    ),
    host: str = typer.Option("127.0.0.1", help="Display host."),
    port: int = typer.Option(8000, help="Display port."),
    linger: float = typer.Option(
        -1, help="With --serve: seconds to keep serving after the game (default: until Ctrl-C)."
    ),
    realtime: bool = typer.Option(False, help="Play the frames at their recorded pace."),
    referee: bool = typer.Option(
        True,
        "--referee/--no-referee",
        help="Let the session's recorded referee answer the table's questions about unsure dice.",
    ),
    explain: bool = typer.Option(
        False,
        "--explain",
        help="Play without the display and print, throw by throw, what the camera read against the "
        "session's truth and what the table did with it.",
    ),
) -> None:
    """Play a complete game from a recorded session: frames -> vision -> engine -> log -> display."""
    from controller.demo import DemoError, run_demo

    if explain:
        from controller.diagnose import explain as explain_session

        try:
            report = explain_session(game, session=session, recorded_referee=referee)
        except DemoError as e:
            raise fail(str(e)) from None
        print(json.dumps(report.to_json(), ensure_ascii=False) if as_json else report.text())
        return

    try:
        result = run_demo(
            game=game,
            session=session,
            db=db,
            serve=serve,
            host=host,
            port=port,
            quiet=as_json,
            realtime=realtime,
            linger=linger,
            recorded_referee=referee,
        )
    except DemoError as e:
        raise fail(str(e)) from None
    if as_json:
        print(json.dumps(result, sort_keys=True, ensure_ascii=False))


@app.command()
def run(
    config: Path | None = typer.Option(
        None,
        "--config",
        "-c",
        help="table.toml (without one: the defaults, with the camera named by --camera).",
    ),
    camera: str | None = typer.Option(None, help="Override the camera, e.g. recorded:DIR."),
    hold: bool | None = typer.Option(
        None,
        "--hold/--no-hold",
        help="When a recorded camera ends before the game, keep the display up saying so until Ctrl-C "
        "(default: when run from a terminal).",
    ),
    realtime: bool = typer.Option(
        False,
        help="Play a recorded camera at its recorded pace, as a live camera (default: as fast as it reads).",
    ),
) -> None:
    """Run a table from its configuration until the game ends or Ctrl-C."""
    from controller.live import run_live
    from controller.setup_check import check_table
    from controller.table import TableError

    check = check_table(config, camera=camera)  # what check-config checks, the same function
    if check.problems:
        raise fail(str(check.error())) from None
    for key, msg in check.notes:
        err.print(f"note: {key}: {msg}", markup=False, highlight=False, soft_wrap=True)
    cfg = check.cfg
    assert cfg is not None
    try:
        run_live(cfg, camera=camera, hold=sys.stdin.isatty() if hold is None else hold, realtime=realtime)
    except TableError as e:
        raise fail(str(e)) from None


def _register_areas() -> None:
    for name in AREAS:
        try:
            module = importlib.import_module(name)
        except ImportError as e:  # an optional area whose dependencies are missing
            err.print(f"[yellow]warning:[/] commands of {name} unavailable: {e}")
            continue
        module.register(app)


_register_areas()


def main() -> None:
    """Console-script entry point."""
    start = time.perf_counter()
    try:
        app()
    except KeyboardInterrupt:
        err.print(f"interrupted after {time.perf_counter() - start:.1f} s")
        sys.exit(130)
