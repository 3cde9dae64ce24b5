"""A running tournament: its rounds, pairings and results, kept in SQLite so a restarted hall loses nothing.

Results come from the tables themselves (their retained MQTT ``result``): a
result counts for a match when it comes from the match's table, names exactly
the match's players and finished after the round started.  It is ``reported``
until the organiser confirms it (or ``confirmed`` at once with ``confirm =
"table"``, when the table's own end of game is the confirmation).  Every write
is one SQLite transaction (WAL, synchronous=FULL).

An organiser may enter a match's result instead (``enter_result``: a table that
broke, or played without a camera).  It is checked whole (the current round, a
table of that round, exactly its players, whole scores 0..MAX_SCORE, winners
among them) and refused whole with a message saying what was expected; a match
that already has a result is replaced only with ``override`` and a reason.
Every change of a match's result (reported by its table, confirmed, entered or
overridden by an organiser) is written to ``result_log`` in the same transaction,
with who, when, the result before and after, and the reason.
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

from controller.pairing import Finished, places_below, round_robin, standings, swiss
from controller.tournament_file import TournamentFile, seat_range

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (no INTEGER PRIMARY KEY, game TEXT NOT NULL, started TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    round INTEGER NOT NULL, board INTEGER NOT NULL, table_id TEXT, players TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing', scores TEXT, winners TEXT, finished TEXT, confirmed_by TEXT,
    PRIMARY KEY (round, board)
);
CREATE TABLE IF NOT EXISTS result_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, round INTEGER NOT NULL, board INTEGER NOT NULL,
    table_id TEXT, who TEXT NOT NULL, action TEXT NOT NULL, before TEXT, after TEXT, reason TEXT
);
"""

#: the highest game score an organiser may enter (no game of the five comes near it)
MAX_SCORE = 100_000
MAX_WHO, MAX_REASON = 40, 200


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

    def _write(self) -> Any:
        """``with self._write():`` one IMMEDIATE transaction, committed whole or rolled back."""
        return _Transaction(self.db)

    def _log(
        self,
        match: dict[str, Any],
        who: str,
        action: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        reason: str | None = None,
    ) -> None:
        self.db.execute(
            "INSERT INTO result_log (at, round, board, table_id, who, action, before, after, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _now(),
                match["round"],
                match["board"],
                match["table"],
                who,
                action,
                None if before is None else json.dumps(before),
                None if after is None else json.dumps(after),
                reason,
            ),
        )

    def result_log(self) -> list[dict[str, Any]]:
        """Every change of a result, oldest first: who, when, what it was before and after, why."""
        rows = self.db.execute(
            "SELECT id, at, round, table_id, who, action, before, after, reason FROM result_log ORDER BY id"
        )
        return [
            {
                "id": r[0],
                "at": r[1],
                "round": r[2],
                "table": r[3],
                "who": r[4],
                "action": r[5],
                "before": json.loads(r[6]) if r[6] else None,
                "after": json.loads(r[7]) if r[7] else None,
                "reason": r[8],
            }
            for r in rows
        ]

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
                game = self.spec.rounds[no - 1]
                fewest, _ = seat_range(game.game)
                pairs = swiss(
                    names, self._finished(), seats=game.table_size, fewest=min(fewest, game.table_size)
                )
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
            with (
                self._write()
            ):  # only while still playing: an organiser (another process) may have entered it
                cur = self.db.execute(
                    "UPDATE matches SET status=?, scores=?, winners=?, finished=?, confirmed_by=? "
                    "WHERE round=? AND board=? AND status='playing'",
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
                if cur.rowcount != 1:
                    return False
                after = {"scores": result["scores"], "winners": result["winners"], "status": status}
                self._log(match, "table", "reported by the table", None, after)
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
            who = _who(who)
            with self._write():
                cur = self.db.execute(
                    "UPDATE matches SET status='confirmed', confirmed_by=? "
                    "WHERE round=? AND board=? AND status='reported'",
                    (who, no, match["board"]),
                )
                if cur.rowcount != 1:
                    raise TournamentError(f"table {table_id!r}: the result changed meanwhile; look again")
                before = _picture(match)
                self._log(match, who, "confirmed", before, {**before, "status": "confirmed"})
            return next(m for m in self.matches(no) if m["board"] == match["board"])

    def enter_result(
        self,
        table_id: str,
        round_no: int,
        scores: dict[str, Any],
        winners: list[str] | None = None,
        who: str = "organiser",
        override: bool = False,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """An organiser's result for ``table_id``'s match in the current round, confirmed at once.

        ``winners`` default to the players with the highest score; give them for a game
        whose winner is decided otherwise (Die-angler's extra catches, for one).  A match
        that already has a result (reported by its table, or confirmed) is replaced only
        with ``override=True`` and a ``reason``; both the old and new result are logged.
        Any bad input raises TournamentError naming it, and nothing is changed.
        """
        with self._lock:
            who = _who(who)
            reason = (reason or "").strip() or None
            if reason is not None and (len(reason) > MAX_REASON or not reason.isprintable()):
                raise TournamentError(f"reason: expected at most {MAX_REASON} printable characters")
            with self._write():  # read and write in one transaction: another process may write too
                no = self.round_no
                if not no:
                    raise TournamentError("no round has started yet: start round 1 before entering a result")
                if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no != no:
                    when = "has not started" if isinstance(round_no, int) and round_no > no else "is closed"
                    raise TournamentError(
                        f"round {round_no!r} {when}: results are entered for the current round, {no}"
                    )
                matches = [m for m in self.matches(no) if m["table"]]
                match = next((m for m in matches if m["table"] == table_id), None)
                if match is None:
                    tables = ", ".join(m["table"] for m in matches)
                    raise TournamentError(
                        f"table {table_id!r} has no match in round {no} (its tables: {tables})"
                    )
                checked = _check_scores(table_id, match["players"], scores)
                winners = _check_winners(table_id, match["players"], checked, winners)
                had = match["status"] in ("reported", "confirmed")
                if had and not override:
                    raise TournamentError(
                        f"table {table_id!r} already has a result ({_describe(match)}); "
                        "to replace it, override it and give a reason"
                    )
                if had and reason is None:
                    raise TournamentError(f"table {table_id!r}: replacing a result needs a reason")
                after = {"scores": checked, "winners": winners, "status": "confirmed"}
                self.db.execute(
                    "UPDATE matches SET status='confirmed', scores=?, winners=?, finished=?, confirmed_by=? "
                    "WHERE round=? AND board=?",
                    (json.dumps(checked), json.dumps(winners), _now(), who, no, match["board"]),
                )
                action = "overridden by an organiser" if had else "entered by an organiser"
                self._log(match, who, action, _picture(match) if had else None, after, reason)
            return next(m for m in self.matches(no) if m["board"] == match["board"])

    # -- export --------------------------------------------------------------------------------

    def export_json(self) -> dict[str, Any]:
        st = self.state()
        return {
            "tournament": st["name"],
            "format": st["format"],
            "standings": st["standings"],
            "matches": self.matches(),
            "result_log": self.result_log(),
        }

    def export_csv(self) -> str:
        """One row per player and match: round, table, player, opponent(s), score, result, status, place."""
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["round", "game", "table", "player", "opponent", "score", "result", "status", "place"])
        games = {i + 1: r.game for i, r in enumerate(self.spec.rounds)}
        for m in self.matches():
            done = m["status"] != "playing"
            below = places_below(Finished(tuple(m["players"]), m["scores"] or {}, tuple(m["winners"] or ())))
            for p in m["players"]:
                opp = " ".join(o for o in m["players"] if o != p)  # at a pod, every other player
                winners = m["winners"] or []
                if not done:
                    res = ""
                elif not opp:
                    res = "bye"
                else:
                    res = "win" if winners == [p] else "draw" if p in winners else "loss"
                place = 1 + sum(b > below[p] for b in below.values()) if done and opp else ""
                score = (m["scores"] or {}).get(p, "")
                w.writerow(
                    [m["round"], games[m["round"]], m["table"] or "", p, opp, score, res, m["status"], place]
                )
        return out.getvalue()


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")


def _who(who: str | None) -> str:
    who = (who or "").strip() or "organiser"
    if len(who) > MAX_WHO or not who.isprintable():
        raise TournamentError(
            f"who: expected a name of at most {MAX_WHO} printable characters, got {who!r:.60}"
        )
    return who


def _picture(match: dict[str, Any]) -> dict[str, Any]:
    return {"scores": match["scores"], "winners": match["winners"], "status": match["status"]}


def _describe(match: dict[str, Any]) -> str:
    scores = ", ".join(f"{p} {(match['scores'] or {}).get(p, '?')}" for p in match["players"])
    by = match["confirmed_by"] or "the table"
    return f"{match['status']} by {by}: {scores}"


def _check_scores(table_id: str, players: list[str], scores: Any) -> dict[str, int]:
    """One whole score 0..MAX_SCORE for each of the match's players, and no one else's."""
    names = ", ".join(players)
    if not isinstance(scores, dict) or not scores:
        raise TournamentError(f"scores: expected one score for each of {names}")
    for name in scores:
        if name not in players:
            raise TournamentError(f"player {name!r} is not at table {table_id!r} (its players: {names})")
    missing = [p for p in players if p not in scores]
    if missing:
        raise TournamentError(f"no score for {', '.join(missing)} (give one for each of {names})")
    out = {}
    for name in players:
        value = scores[name]
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            raise TournamentError(
                f"score of {name}: {value!r} is impossible (expected a whole number 0..{MAX_SCORE})"
            )
        out[name] = value
    return out


def _check_winners(table_id: str, players: list[str], scores: dict[str, int], winners: Any) -> list[str]:
    """The given winners (players of the match, at least one), or those with the highest score."""
    if winners is None or winners == []:
        best = max(scores.values())
        return [p for p in players if scores[p] == best]
    if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
        raise TournamentError(f"winners: expected a list of the players of table {table_id!r}")
    for w in winners:
        if w not in players:
            raise TournamentError(
                f"winner {w!r} is not at table {table_id!r} (its players: {', '.join(players)})"
            )
    if len(set(winners)) != len(winners):
        raise TournamentError(f"winners: each player once, got {winners}")
    return [p for p in players if p in winners]
