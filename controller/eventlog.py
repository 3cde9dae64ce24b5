"""The table's append-only event log: SQLite in WAL mode, one row per event.

A game *is* its log: a ``setup`` row, then every ``input`` (with its source:
camera, button, admin, correction, scenario) and the ``outcome`` rows the
engine produced for it, plus ``undo`` and ``control`` rows.  Replaying the
inputs (minus the undone ones) rebuilds the state exactly; the logged
outcomes are checked against the recomputed ones on the way.

An input is *acknowledged* when ``append_input`` (or ``append_inputs``, for a
group the engine takes as one step: a reveal, a throw of several players)
returns: by then the transaction holding the inputs and their outcomes is
committed with ``synchronous=FULL``, so a killed process or a power cut loses
nothing that was acknowledged, and a group is logged whole or not at all.

Every open checks the file (``PRAGMA quick_check``) and refuses a damaged log
with a message that names it and the way out (``dicetable log check`` and
``dicetable log salvage``, see :mod:`controller.logrepair`).  A write that
fails (a full disk, read-only media) raises :class:`LogWriteError` with
SQLite's own reason, and nothing of it is written.  ``read_only=True`` opens a
log without writing anything (``dicetable replay``), also on read-only media.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.scenario import Setup, new_game
from engine import Game, Input, Outcome, RuleError

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    game    INTEGER NOT NULL,
    t       REAL    NOT NULL,
    source  TEXT    NOT NULL,
    kind    TEXT    NOT NULL,
    player  TEXT,
    data    TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events (game, seq);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""

#: SQLite's integers are 64-bit: a larger offset or limit is clamped to this (no log is that long)
MAX_ROWS = 2**62

SOURCES = ("camera", "button", "admin", "correction", "scenario", "table")
KINDS = ("setup", "input", "outcome", "undo", "control", "reading", "question")


@dataclass(frozen=True)
class Event:
    seq: int
    game: int
    t: float
    source: str
    kind: str
    player: str | None
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "game": self.game,
            "t": self.t,
            "source": self.source,
            "kind": self.kind,
            "player": self.player,
            "data": self.data,
        }


def parse_row(r: Sequence[Any]) -> Event | str:
    """A row as an Event, or why it is not an intact one."""
    seq, game, t, source, kind, player, text = r
    if not isinstance(seq, int) or not isinstance(game, int) or not isinstance(t, int | float):
        return f"row {seq!r}: seq, game and time must be numbers"
    if source not in SOURCES or kind not in KINDS or not (player is None or isinstance(player, str)):
        return f"row {seq}: unknown source/kind {source!r}/{kind!r}"
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as e:
        return f"row {seq}: data is not JSON ({e})"
    if not isinstance(data, dict):
        return f"row {seq}: data is not a JSON object"
    return Event(seq, game, float(t), source, kind, player, data)


def _plain(data: Any) -> Any:
    """The value as it comes back from the log (tuples become lists, keys strings)."""
    return json.loads(json.dumps(data, sort_keys=True))


SQLITE_MAGIC = b"SQLite format 3\x00"
COLUMNS = ("seq", "game", "t", "source", "kind", "player", "data")

#: rows to write: (game, source, kind, player, data)
Row = tuple[int, str, str, str | None, dict[str, Any]]


class LogError(ValueError):
    """An event log that cannot be read or replayed; the message names the file and row."""


class ReplayError(LogError):
    """A game's events do not replay from row ``seq`` on (a lost input, an outcome that differs)."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


class LogWriteError(OSError):
    """The event log cannot be written now (a full disk, read-only media, a damaged file).

    The message names the file and SQLite's own reason; nothing of the failed write is in the log,
    so the caller must not show or apply what it was logging.
    """

    def __init__(self, path: Path, cause: sqlite3.Error) -> None:
        self.reason = str(cause)
        super().__init__(
            f"{path}: the event log cannot be written ({self.reason}); nothing of this change was saved"
        )


def damaged_message(path: Path, why: str) -> str:
    return (
        f"{path}: the event log is damaged ({why}); nothing was changed. "
        f"'dicetable log check {path}' lists what is intact, and "
        f"'dicetable log salvage {path} --out NEW.sqlite3' copies every intact event to a new log"
    )


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` without writing to it or beside it (read-only media too); raises sqlite3.Error.

    Without a ``-wal`` file beside it no connection is writing the log (a writer keeps one while it
    is open), so the file is read as it stands and nothing (not even a ``-shm``) is made.  With one,
    the log is read through it, as a live table's log must be.
    """
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    immutable = f"{uri}?mode=ro&immutable=1"
    if not path.with_name(path.name + "-wal").exists():
        return sqlite3.connect(immutable, uri=True, check_same_thread=False, isolation_level=None)
    db = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        # on read-only media its -shm cannot be made: read the file as it stands
        db.close()
    return sqlite3.connect(immutable, uri=True, check_same_thread=False, isolation_level=None)


def _check_magic(path: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as e:
        raise LogError(f"{path}: cannot read the event log ({e})") from None
    if head != SQLITE_MAGIC:
        raise LogError(f"{path}: not a dicetable event log (not an SQLite file: it starts {head[:8]!r})")


def _unwritable(path: Path, existed: bool) -> str | None:
    """Why a table could not write the log at ``path`` (read-only media, no permission), or None.

    SQLite would call such a log "unable to open": an intact log on read-only media is not damaged,
    so say what it is and what reads it."""
    folder = path.parent
    if os.access(folder, os.W_OK) and (not existed or os.access(path, os.W_OK)):
        return None
    what = "the event log" if existed else "a new event log"
    where = path if existed and not os.access(path, os.W_OK) else folder
    return (
        f"{path}: {what} cannot be written here ({where} is read-only or not writable); a table writes "
        f"its log: choose a writable path for it (database.path in table.toml)"
        + (f" ('dicetable replay {path}' reads this one as it stands)" if existed else "")
    )


def check_file(path: Path, db: sqlite3.Connection) -> None:
    """Refuse a file that is not a sound dicetable event log (raises LogError naming the file)."""
    try:
        problems = [str(r[0]) for r in db.execute("PRAGMA quick_check(5)").fetchall()]
    except sqlite3.DatabaseError as e:
        raise LogError(damaged_message(path, str(e))) from None
    if problems != ["ok"]:
        raise LogError(damaged_message(path, "; ".join(problems)))
    try:
        cols = tuple(str(r[1]) for r in db.execute("PRAGMA table_info(events)").fetchall())
    except sqlite3.DatabaseError as e:
        raise LogError(damaged_message(path, str(e))) from None
    if cols and cols != COLUMNS:
        raise LogError(f"{path}: not a dicetable event log (its events table has columns {list(cols)})")


class EventLog:
    """Append-only SQLite event log; safe to share between threads."""

    def __init__(
        self, path: Path, clock: Callable[[], float] = time.time, *, read_only: bool = False
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._clock = clock
        self._lock = threading.Lock()
        if read_only:
            self._db = self._open_read_only()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LogError(
                f"{self.path}: cannot make the event log's folder {self.path.parent} ({e.strerror}); "
                "a table writes its log: choose a writable path for it (database.path in table.toml)"
            ) from None
        existed = self.path.is_file() and self.path.stat().st_size > 0
        if existed:
            _check_magic(self.path)
        unwritable = _unwritable(self.path, existed)
        if unwritable:
            raise LogError(unwritable)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            raise LogError(f"{self.path}: cannot open the event log ({e})") from None
        try:
            if existed:
                check_file(self.path, self._db)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except LogError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as e:
            self._db.close()
            if existed:
                raise LogError(damaged_message(self.path, str(e))) from None
            raise LogError(f"{self.path}: cannot create an event log here ({e})") from None

    def _open_read_only(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise LogError(f"{self.path}: no such event log")
        _check_magic(self.path)
        try:
            db = connect_read_only(self.path)
        except sqlite3.Error as e:
            raise LogError(f"{self.path}: cannot open the event log read-only ({e})") from None
        try:
            check_file(self.path, db)
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone():
                raise LogError(f"{self.path}: not a dicetable event log (it has no events table)")
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------
    def _insert(self, rows: Sequence[Row]) -> list[int]:
        """Write the rows in one transaction: all of them, or (raising) none."""
        for _, source, kind, _, _ in rows:
            if source not in SOURCES or kind not in KINDS:
                raise ValueError(f"event source/kind must be in {SOURCES}/{KINDS}, got {source!r}/{kind!r}")
        if self.read_only:
            raise LogError(f"{self.path}: opened read-only; nothing can be logged")
        texts = [json.dumps(data, sort_keys=True) for *_, data in rows]  # a bad value fails before writing
        t = self._clock()
        seqs = []
        with self._transaction():
            for (game, source, kind, player, _), text in zip(rows, texts, strict=True):
                cur = self._db.execute(
                    "INSERT INTO events (game, t, source, kind, player, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (game, t, source, kind, player, text),
                )
                seqs.append(int(cur.lastrowid or 0))
        return seqs

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction under the lock: committed whole, or rolled back and the real cause
        raised (LogWriteError for SQLite's own errors)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                self._rollback()
                raise LogWriteError(self.path, e) from e
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        """Undo an unfinished transaction; SQLite may have rolled it back itself (e.g. on a full disk)."""
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def start_game(self, setup: Setup, source: str = "table") -> int:
        """Begin a new game in this log; returns its number."""
        row = self._query("SELECT COALESCE(MAX(game), 0) FROM events")[0]
        game = int(row[0]) + 1
        self._insert([(game, source, "setup", None, setup.to_json())])
        return game

    def append_input(self, game: int, inp: Input, outcomes: Sequence[Outcome], source: str) -> int:
        """Log an applied input and its outcomes in one transaction; returns the input's seq."""
        return self.append_inputs(game, [(inp, outcomes)], source)[0]

    def append_inputs(
        self,
        game: int,
        applied: Sequence[tuple[Input, Sequence[Outcome]]],
        source: str,
        before: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> list[int]:
        """Log a group of applied inputs (one step of the game) in one transaction: all or nothing.

        ``before``: (kind, data) rows written first in the same transaction (the table's position
        mark). Returns the inputs' seqs.
        """
        rows: list[Row] = [(game, "table", kind, None, data) for kind, data in before]
        first = len(rows)
        at: list[int] = []
        for inp, outcomes in applied:
            at.append(len(rows) - first)
            rows.append((game, source, "input", inp.player, inp.to_json()))
            rows += [(game, source, "outcome", o.player, o.to_json()) for o in outcomes]
        seqs = self._insert(rows)[first:]
        return [seqs[i] for i in at]

    def append(
        self,
        game: int,
        kind: str,
        data: dict[str, Any],
        source: str,
        player: str | None = None,
        before: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> int:
        """Log any other event (undo, control, reading, question); ``before``: (kind, data) rows
        written first in the same transaction (a scripted undo's position mark), as `append_inputs`."""
        rows: list[Row] = [(game, "table", k, None, d) for k, d in before]
        return self._insert([*rows, (game, source, kind, player, data)])[-1]

    def restore(self, events: Sequence[Event]) -> None:
        """Write events with their own seq, game and time, in one transaction (``dicetable log
        salvage`` copies the intact events of a damaged log this way); the log must not hold them."""
        if self.read_only:
            raise LogError(f"{self.path}: opened read-only; nothing can be logged")
        with self._transaction():
            self._db.executemany(
                "INSERT INTO events (seq, game, t, source, kind, player, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (e.seq, e.game, e.t, e.source, e.kind, e.player, json.dumps(e.data, sort_keys=True))
                    for e in events
                ],
            )

    # -- reading -------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of a read; a damaged file becomes a LogError naming it (never a raw sqlite3 error)."""
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as e:
                raise LogError(damaged_message(self.path, str(e))) from None

    def latest_game(self) -> int | None:
        row = self._query("SELECT MAX(game) FROM events")[0]
        return None if row[0] is None else int(row[0])

    def events(self, game: int | None = None, offset: int = 0, limit: int = 1_000_000) -> list[Event]:
        game = self.latest_game() if game is None else game
        if game is None:
            return []
        rows = self._query(
            "SELECT seq, game, t, source, kind, player, data FROM events WHERE game = ? "
            "ORDER BY seq LIMIT ? OFFSET ?",
            (game, min(limit, MAX_ROWS), min(offset, MAX_ROWS)),
        )
        return self._parsed(rows)

    def controls(self, action: str) -> list[Event]:
        """Every game's ``control`` rows of one ``action``, in order: what spans games, such as a
        table being taught its dice (controller.teach)."""
        rows = self._query(
            "SELECT seq, game, t, source, kind, player, data FROM events WHERE kind = 'control' "
            "AND json_valid(data) AND json_extract(data, '$.action') = ? ORDER BY seq",
            (action,),
        )
        return self._parsed(rows)

    def _parsed(self, rows: Iterable[Any]) -> list[Event]:
        """The rows as events; a row that cannot be read raises LogError naming the log."""
        out = []
        for r in rows:
            event = parse_row(r)
            if isinstance(event, str):
                raise LogError(damaged_message(self.path, event))
            out.append(event)
        return out

    def count(self, game: int | None = None) -> int:
        game = self.latest_game() if game is None else game
        row = self._query("SELECT COUNT(*) FROM events WHERE game = ?", (game,))[0]
        return int(row[0])

    def standing_inputs(self, game: int) -> int:
        """How many of the game's inputs still stand (undone ones left out): ``len(list(inputs(game)))``
        counted by SQLite, without reading and parsing every row of the game (the table counts them
        at every step it logs: parsing the whole game each time grew with the square of its length)."""
        row = self._query(
            "SELECT COUNT(*) FROM events WHERE game = ? AND kind = 'input' AND seq NOT IN ("
            "SELECT json_extract(data, '$.undoes') FROM events WHERE game = ? AND kind = 'undo' "
            "AND json_valid(data) AND json_extract(data, '$.undoes') IS NOT NULL)",
            (game, game),
        )[0]
        return int(row[0])

    def inputs(self, game: int | None = None) -> Iterator[Event]:
        """The game's inputs that still stand (undone ones left out), in order."""
        events = self.events(game)
        undone = {e.data.get("undoes") for e in events if e.kind == "undo"}
        return (e for e in events if e.kind == "input" and e.seq not in undone)

    def setup(self, game: int | None = None) -> Setup:
        events = self.events(game, limit=1)
        if not events or events[0].kind != "setup":
            raise LogError(f"{self.path}: game {game} has no setup row")
        return Setup.from_json(events[0].data)

    def replay(self, game: int | None = None, base: Path | None = None) -> Game:
        """Rebuild the game's state from its log, checking logged outcomes on the way."""
        game = self.latest_game() if game is None else game
        if game is None:
            raise LogError(f"{self.path}: the log holds no game")
        return replay_events(self.events(game), str(self.path), base)


def replay_events(events: Sequence[Event], where: str, base: Path | None = None) -> Game:
    """Rebuild a game from its events (setup row first), checking logged outcomes; raises LogError."""
    if not events or events[0].kind != "setup":
        raise LogError(f"{where}: game {events[0].game if events else '?'} has no setup row")
    try:
        setup = Setup.from_json(events[0].data)
        g = new_game(setup, base)
    except ValueError as err:
        raise LogError(f"{where}: row {events[0].seq}: the setup does not start a game: {err}") from None
    undone = {e.data.get("undoes") for e in events if e.kind == "undo"}
    pending: list[dict[str, Any]] | None = None
    for e in events:
        if e.kind == "outcome" and pending is not None:
            expected = pending.pop(0) if pending else None
            if expected != e.data:
                raise ReplayError(
                    f"{where}: row {e.seq}: logged outcome {e.data!r} differs from "
                    f"the replayed one {expected!r}",
                    e.seq,
                )
        if e.kind != "input":
            continue
        if e.seq in undone:
            pending = None
            continue
        try:
            pending = [_plain(o.to_json()) for o in g.apply(Input.from_json(e.data))]
        except (RuleError, ValueError) as err:
            raise ReplayError(
                f"{where}: row {e.seq}: input {e.data!r} does not replay: {err}", e.seq
            ) from None
    return g
