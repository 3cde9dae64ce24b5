"""A running tournament: its rounds, pairings and results, kept in SQLite so a restarted hall loses nothing.

Results come from the tables themselves (their retained MQTT ``result``): a
result counts for a match when it comes from the match's table, names exactly
the match's players and finished after the round started.  It is ``reported``
until the organiser confirms it (or ``confirmed`` at once with ``confirm =
"table"``, when the table's own end of game is the confirmation).  Every write
is one SQLite transaction (WAL, synchronous=FULL).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.pairing import Finished, round_robin, standings, swiss
from controller.tournament_file import TournamentFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (no INTEGER PRIMARY KEY, game TEXT NOT NULL, started TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    round INTEGER NOT NULL, board INTEGER NOT NULL, table_id TEXT, players TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing', scores TEXT, winners TEXT, finished TEXT, confirmed_by TEXT,
    PRIMARY KEY (round, board)
);
"""


class TournamentError(ValueError):
    """A tournament action that cannot be done; the message says why."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Tournament:
    def __init__(self, spec: TournamentFile, db: Path) -> None:
        self.spec = spec
        self._lock = threading.RLock()
        self.db = sqlite3.connect(str(db), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        name = spec.tournament.name
        row = self.db.execute("SELECT value FROM meta WHERE key='name'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('name', ?)", (name,))
        elif row[0] != name:
            raise TournamentError(f"{db}: holds the tournament {row[0]!r}, not {name!r} (use another --db)")

    def close(self) -> None:
        self.db.close()

    # -- reading -------------------------------------------------------------------------------

    @property
    def round_no(self) -> int:
        (no,) = self.db.execute("SELECT COALESCE(MAX(no), 0) FROM rounds").fetchone()
        return int(no)

    def matches(self, round_no: int | None = None) -> list[dict[str, Any]]:
        q = "SELECT round, board, table_id, players, status, scores, winners, finished, confirmed_by"
        q += " FROM matches"
        args: tuple[Any, ...] = ()
        if round_no is not None:
            q, args = q + " WHERE round = ?", (round_no,)
        out = []
        for r in self.db.execute(q + " ORDER BY round, board", args):
            out.append(
                {
                    "round": r[0],
                    "board": r[1],
                    "table": r[2],
                    "players": json.loads(r[3]),
                    "status": r[4],
                    "scores": json.loads(r[5]) if r[5] else None,
                    "winners": json.loads(r[6]) if r[6] else None,
                    "finished": r[7],
                    "confirmed_by": r[8],
                }
            )
        return out

    def _finished(self) -> list[Finished]:
        return [
            Finished(tuple(m["players"]), m["scores"] or {}, tuple(m["winners"] or ()))
            for m in self.matches()
            if m["status"] == "confirmed"
        ]

    def state(self) -> dict[str, Any]:
        """What the hall page shows: the round, who plays where, the standings."""
        with self._lock:
            no = self.round_no
            return {
                "name": self.spec.tournament.name,
                "format": self.spec.tournament.format,
                "confirm": self.spec.tournament.confirm,
                "round": no,
                "rounds": len(self.spec.rounds),
                "game": self.spec.rounds[no - 1].game if no else None,
                "matches": self.matches(no) if no else [],
                "standings": [r.to_json() for r in standings(self.spec.player_names, self._finished())],
                "can_start_next": self._next_blocker() is None,
                "next_blocked_by": self._next_blocker(),
            }

    # -- writing -------------------------------------------------------------------------------

    def _next_blocker(self) -> str | None:
        no = self.round_no
        if no >= len(self.spec.rounds):
            return "the last round has been played" if no else None
        open_ = [m for m in self.matches(no) if m["status"] != "confirmed"]
        if open_:
            return f"round {no} has {len(open_)} match(es) without a confirmed result"
        return None

    def start_next_round(self) -> list[dict[str, Any]]:
        """Pair the next round and assign its tables (a TournamentError says why not)."""
        with self._lock:
            why = self._next_blocker()
            if why:
                raise TournamentError(f"cannot start round {self.round_no + 1}: {why}")
            no = self.round_no + 1
            names = self.spec.player_names
            if self.spec.tournament.format == "round-robin":
                pairs = round_robin(names, no)
            else:
                pairs = swiss(names, self._finished())
            tables = self.spec.round_tables(no)
            now = _now()
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute(
                    "INSERT INTO rounds VALUES (?, ?, ?)", (no, self.spec.rounds[no - 1].game, now)
                )
                for board, pair in enumerate(pairs):
                    if len(pair) == 1:  # a bye: confirmed at once, no table
                        self.db.execute(
                            "INSERT INTO matches (round, board, table_id, players, status, scores, winners, "
                            "finished, confirmed_by) VALUES (?, ?, NULL, ?, 'confirmed', '{}', ?, ?, 'bye')",
                            (no, 1000 + board, json.dumps(list(pair)), json.dumps(list(pair)), now),
                        )
                    else:
                        self.db.execute(
                            "INSERT INTO matches (round, board, table_id, players) VALUES (?, ?, ?, ?)",
                            (no, board, tables[board], json.dumps(list(pair))),
                        )
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            return self.matches(no)

    def take_result(self, table_id: str, result: dict[str, Any]) -> bool:
        """A table's final result (checked by the hall): recorded when it is this round's match's."""
        with self._lock:
            no = self.round_no
            if not no:
                return False
            (started,) = self.db.execute("SELECT started FROM rounds WHERE no = ?", (no,)).fetchone()
            match = next((m for m in self.matches(no) if m["table"] == table_id), None)
            names = sorted(p["name"] for p in result.get("players", []))
            if match is None or match["status"] != "playing" or names != sorted(match["players"]):
                return False
            if result.get("game") != self.spec.rounds[no - 1].game or result["finished"] < started:
                return False  # an earlier game at this table (its result is still retained)
            status = "confirmed" if self.spec.tournament.confirm == "table" else "reported"
            self.db.execute(
                "UPDATE matches SET status=?, scores=?, winners=?, finished=?, confirmed_by=? "
                "WHERE round=? AND board=?",
                (
                    status,
                    json.dumps(result["scores"]),
                    json.dumps(result["winners"]),
                    result["finished"],
                    "table" if status == "confirmed" else None,
                    no,
                    match["board"],
                ),
            )
            return True

    def confirm(self, table_id: str, who: str) -> dict[str, Any]:
        """The organiser confirms the result reported by ``table_id`` in the current round."""
        with self._lock:
            no = self.round_no
            match = next((m for m in self.matches(no) if m["table"] == table_id), None) if no else None
            if match is None:
                raise TournamentError(f"table {table_id!r} has no match in round {no}")
            if match["status"] != "reported":
                raise TournamentError(f"table {table_id!r}: the result is {match['status']}, not reported")
            self.db.execute(
                "UPDATE matches SET status='confirmed', confirmed_by=? WHERE round=? AND board=?",
                (who or "organiser", no, match["board"]),
            )
            return next(m for m in self.matches(no) if m["board"] == match["board"])

    # -- export --------------------------------------------------------------------------------

    def export_json(self) -> dict[str, Any]:
        st = self.state()
        return {
            "tournament": st["name"],
            "format": st["format"],
            "standings": st["standings"],
            "matches": self.matches(),
        }

    def export_csv(self) -> str:
        """One row per player and match: round, table, player, opponent, score, result, status."""
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["round", "game", "table", "player", "opponent", "score", "result", "status"])
        games = {i + 1: r.game for i, r in enumerate(self.spec.rounds)}
        for m in self.matches():
            for p in m["players"]:
                opp = next((o for o in m["players"] if o != p), "")
                winners = m["winners"] or []
                if m["status"] == "playing":
                    res = ""
                elif not opp:
                    res = "bye"
                else:
                    res = "win" if winners == [p] else "draw" if p in winners else "loss"
                score = (m["scores"] or {}).get(p, "")
                w.writerow([m["round"], games[m["round"]], m["table"] or "", p, opp, score, res, m["status"]])
        return out.getvalue()
