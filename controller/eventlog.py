"""The table's append-only event log: SQLite in WAL mode, one row per event.

A game *is* its log: a ``setup`` row, then every ``input`` (with its source:
camera, button, admin, correction, scenario) and the ``outcome`` rows the
engine produced for it, plus ``undo`` and ``control`` rows.  Replaying the
inputs (minus the undone ones) rebuilds the state exactly; the logged
outcomes are checked against the recomputed ones on the way.

An input is *acknowledged* when ``append_input`` returns: by then the
transaction holding the input and its outcomes is committed with
``synchronous=FULL``, so a killed process or a power cut loses nothing that
was acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
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


def _plain(data: Any) -> Any:
    """The value as it comes back from the log (tuples become lists, keys strings)."""
    return json.loads(json.dumps(data, sort_keys=True))


class LogError(ValueError):
    """An event log that cannot be read or replayed; the message names the file and row."""


class EventLog:
    """Append-only SQLite event log; safe to share between threads."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise LogError(f"{self.path}: not a dicetable event log ({e})") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------
    def _insert(self, rows: Sequence[tuple[int, str, str, str | None, dict[str, Any]]]) -> list[int]:
        for _, source, kind, _, _ in rows:
            if source not in SOURCES or kind not in KINDS:
                raise ValueError(f"event source/kind must be in {SOURCES}/{KINDS}, got {source!r}/{kind!r}")
        t = self._clock()
        seqs = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for game, source, kind, player, data in rows:
                    cur = self._db.execute(
                        "INSERT INTO events (game, t, source, kind, player, data) VALUES (?, ?, ?, ?, ?, ?)",
                        (game, t, source, kind, player, json.dumps(data, sort_keys=True)),
                    )
                    seqs.append(int(cur.lastrowid or 0))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return seqs

    def start_game(self, setup: Setup, source: str = "table") -> int:
        """Begin a new game in this log; returns its number."""
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(game), 0) FROM events").fetchone()
        game = int(row[0]) + 1
        self._insert([(game, source, "setup", None, setup.to_json())])
        return game

    def append_input(self, game: int, inp: Input, outcomes: Sequence[Outcome], source: str) -> int:
        """Log an applied input and its outcomes in one transaction; returns the input's seq."""
        rows: list[tuple[int, str, str, str | None, dict[str, Any]]] = [
            (game, source, "input", inp.player, inp.to_json())
        ]
        rows += [(game, source, "outcome", o.player, o.to_json()) for o in outcomes]
        return self._insert(rows)[0]

    def append(
        self, game: int, kind: str, data: dict[str, Any], source: str, player: str | None = None
    ) -> int:
        """Log any other event (undo, control, reading, question)."""
        return self._insert([(game, source, kind, player, data)])[0]

    # -- reading -------------------------------------------------------------
    def latest_game(self) -> int | None:
        with self._lock:
            row = self._db.execute("SELECT MAX(game) FROM events").fetchone()
        return None if row[0] is None else int(row[0])

    def events(self, game: int | None = None, offset: int = 0, limit: int = 1_000_000) -> list[Event]:
        game = self.latest_game() if game is None else game
        if game is None:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, game, t, source, kind, player, data FROM events WHERE game = ? "
                "ORDER BY seq LIMIT ? OFFSET ?",
                (game, limit, offset),
            ).fetchall()
        return [Event(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6])) for r in rows]

    def count(self, game: int | None = None) -> int:
        game = self.latest_game() if game is None else game
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM events WHERE game = ?", (game,)).fetchone()
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
        events = self.events(game)
        undone = {e.data.get("undoes") for e in events if e.kind == "undo"}
        g = new_game(self.setup(game), base)
        pending: list[dict[str, Any]] | None = None
        for e in events:
            if e.kind == "outcome" and pending is not None:
                expected = pending.pop(0) if pending else None
                if expected != e.data:
                    raise LogError(
                        f"{self.path}: row {e.seq}: logged outcome {e.data!r} differs from "
                        f"the replayed one {expected!r}"
                    )
            if e.kind != "input":
                continue
            if e.seq in undone:
                pending = None
                continue
            try:
                pending = [_plain(o.to_json()) for o in g.apply(Input.from_json(e.data))]
            except (RuleError, ValueError) as err:
                raise LogError(f"{self.path}: row {e.seq}: input {e.data!r} does not replay: {err}") from None
        return g
