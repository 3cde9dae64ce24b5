"""``dicetable demo``: play a complete game from a recorded session, end to end.

The session's frames go through the real motion gate and the real vision
reader; its ``script.jsonl`` plays the players' button presses.  The scores
come from the pixels: change a frame and the result changes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from controller.config import PACKAGE_ROOT, data_dir
from controller.eventlog import EventLog, LogError, LogWriteError
from controller.live import led_listener, load_script, play, serve_display
from controller.referee import RecordedReferee
from controller.session import SessionError, read_session, session_config
from controller.table import Table, TableError
from engine import game_name

SESSIONS = PACKAGE_ROOT / "tests" / "fixtures" / "sessions"


class DemoError(RuntimeError):
    """The demo cannot run; the message says why."""


def session_dir(game: str) -> Path:
    with contextlib.suppress(ValueError):  # a Japanese name finds its game's session; unknown: below
        game = game_name(game)
    folder = SESSIONS / f"{game}-demo"
    if not folder.is_dir():
        have = sorted(p.name.removesuffix("-demo") for p in SESSIONS.glob("*-demo"))
        raise DemoError(f"no recorded demo session for game {game!r}; sessions exist for {have}")
    return folder


def own_log(folder: Path, game: str) -> Path:
    """A new event log for one demo run, ``demo-<game>-<UTC time>.sqlite3`` in ``folder`` (``-2``, ``-3``
    ... when another run took that name in the same second): made empty here, so that two demos
    started at once never write one file, and each run's /stats is its own."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(1, 1000):
            path = folder / f"demo-{game}-{stamp}{'' if n == 1 else f'-{n}'}.sqlite3"
            try:
                path.open("x").close()  # taken atomically: the other run gets the next name
            except FileExistsError:
                continue
            return path
    except OSError as e:
        why = f"{folder}: cannot make the demo's event log there ({e}); name one with --db"
        raise DemoError(why) from None
    raise DemoError(f"{folder}: 999 demo logs of {game} started in one second; name one with --db")


def shown(path: Path) -> str:
    """A path as a person reads it: the home directory as ``~``."""
    with contextlib.suppress(ValueError):
        return str(Path("~") / path.resolve().relative_to(Path.home().resolve()))
    return str(path)


def run_demo(
    game: str = "dice-hunter",
    session: Path | None = None,
    db: Path | None = None,
    serve: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    quiet: bool = False,
    realtime: bool = False,
    linger: float = -1,
    recorded_referee: bool = True,
    observe: Callable[[Table], None] | None = None,
) -> dict[str, Any]:
    """Play the session; return the final scores, winners and what was read.

    ``observe`` is called with the table before play starts (e.g. to watch its readings).
    """
    from hardware.frames import read_frames_csv
    from hardware.stills import recorded

    folder = session or session_dir(game)
    try:
        meta = read_session(folder)
    except SessionError as e:
        raise DemoError(str(e)) from None
    try:
        cfg = session_config(folder, meta)
    except (KeyError, ValueError) as e:
        raise DemoError(f"{folder}/session.json: bad setup ({e})") from None
    db = db or own_log(data_dir(), cfg.table.game)  # each run its own log, unless --db names one
    console = Console(stderr=True, quiet=quiet)
    try:
        ev = EventLog(db)
    except LogError as e:
        raise DemoError(str(e)) from None
    try:
        source = recorded(folder, realtime=realtime)  # with its stills, when it has them
    except (ValueError, OSError) as e:
        raise DemoError(f"{folder}: {e}") from None
    with ev, source:
        try:
            table = Table(cfg, ev, resume=False)
        except (LogError, LogWriteError, TableError) as e:
            raise DemoError(str(e)) from None
        table.pending = load_script(folder / "script.jsonl")
        if observe is not None:
            observe(table)
        led = led_listener(cfg)
        if led is not None:
            table.listeners.append(led)
        referee = RecordedReferee.from_session(folder) if recorded_referee else None
        rows = read_frames_csv(folder)
        total = max(1e-6, rows[-1][1] if rows else 0.0)
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[what]}"),
            TimeElapsedColumn(),
            console=console,
            transient=quiet,
        )

        def run() -> None:
            with progress:
                task = progress.add_task(f"{cfg.table.game} demo", total=total, what="")

                def tick(t: float, what: str) -> None:
                    if referee is not None:
                        referee.answer(table)
                    progress.update(task, completed=min(t, total), what=what[:60])

                play(table, source, progress=tick)
                progress.update(task, completed=total)

        started = time.perf_counter()
        if serve:
            try:
                with serve_display(table, host, port, cfg.display.admin_token):
                    # one line each, never broken inside an address (an 80-column terminal)
                    console.print(f"display: http://{host}:{port}", soft_wrap=True)
                    console.print(f"event log: {shown(db)}", soft_wrap=True)
                    run()
                    _linger(console, table, linger)
            except TableError as e:
                raise DemoError(str(e)) from None
        else:
            run()
        elapsed = time.perf_counter() - started
        waiting_for = table.snapshot()["waiting_for"]
    result = table.game.result()
    summary = {
        "game": cfg.table.game,
        "scores": table.game.scores(),
        "winners": list(result.winners) if result else [],
        "status": table.status,
        "rolls_read": len(table.rest_times),
        "referee_answers": len(referee.answers) if referee is not None else 0,
        # of which: a die's value confirmed or corrected (the camera was unsure), corrected (the camera
        # was wrong), a hidden die named
        "referee_values": sum(1 for a in referee.answers if a["action"] in ("confirm", "set_value"))
        if referee is not None
        else 0,
        "referee_corrections": sum(1 for a in referee.answers if a["action"] == "set_value")
        if referee is not None
        else 0,
        "referee_hidden": sum(1 for a in referee.answers if a["action"] == "hidden")
        if referee is not None
        else 0,
        "event_log": str(db),
        "seconds": round(elapsed, 2),
    }
    if not quiet:
        console.print(f"final scores: {summary['scores']}  winners: {summary['winners']}")
    if result is None:
        why = f" ({table.notice})" if table.notice else ""
        raise DemoError(
            f"the session ended before the game did (waiting for {waiting_for}){why}; "
            f"scores so far: {summary['scores']}"
        )
    return summary


def _linger(console: Console, table: Table, linger: float) -> None:
    if linger == 0:
        return
    console.print(
        "game over; the display stays up " + ("until Ctrl-C" if linger < 0 else f"for {linger:.0f} s")
    )
    deadline = time.monotonic() + (linger if linger > 0 else float("inf"))
    try:
        while time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
