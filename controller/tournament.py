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
import logging
import re
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from controller.pairing import Finished, places_below, round_robin, standings, swiss
from controller.tournament_file import TournamentFile, seat_range
from display.pairings import SEAT_COLOURS
from engine import find_game

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (no INTEGER PRIMARY KEY, game TEXT NOT NULL, started TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    round INTEGER NOT NULL, board INTEGER NOT NULL, table_id TEXT, players TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing', scores TEXT, winners TEXT, finished TEXT, confirmed_by TEXT,
    PRIMARY KEY (round, board)
);
CREATE TABLE IF NOT EXISTS refused_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, round INTEGER NOT NULL, table_id TEXT NOT NULL,
    why TEXT NOT NULL, result TEXT NOT NULL, UNIQUE (round, table_id, result)
);
CREATE TABLE IF NOT EXISTS seen_results (
    table_id TEXT NOT NULL, result TEXT NOT NULL, first_seen TEXT NOT NULL, PRIMARY KEY (table_id, result)
);
CREATE TABLE IF NOT EXISTS result_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, round INTEGER NOT NULL, board INTEGER NOT NULL,
    table_id TEXT, who TEXT NOT NULL, action TEXT NOT NULL, before TEXT, after TEXT, reason TEXT
);
"""

#: the standings CSV's columns: the tie-breaks in the order they decide (controller/pairing.py)
STANDINGS_COLUMNS = (
    "rank",
    "player",
    "points",
    "wins",
    "draws",
    "losses",
    "byes",
    "buchholz",
    "placement",
    "game_score",
)
#: the highest game score an organiser may enter (no game of the five comes near it)
MAX_SCORE = 100_000
MAX_WHO, MAX_REASON = 40, 200
#: how far ahead of the hall's clock a table's clock may be: a result that finished later is refused
MAX_CLOCK_AHEAD_S = 300
#: refused results shown with the round (the latest; every one stays in the database)
SHOWN_REFUSALS = 20
#: results remembered per table as seen before they could count (older ones are forgotten)
SEEN_PER_TABLE = 200
#: refused results kept per table and round (older ones are forgotten)
REFUSED_PER_TABLE = 100


class TournamentError(ValueError):
    """A tournament action that cannot be done; the message says why."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _moment(text: str) -> datetime:
    """An ISO 8601 time as an aware datetime (a time without its offset is taken as UTC)."""
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


class _Ignore(Exception):
    """A table's result that is not for this round's match (an earlier game's): logged, not shown."""


class _Refuse(Exception):
    """A table's result that claims this round's match and cannot count: shown to the organiser."""


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
        self._tables = {*spec.tournament.tables, *(t for r in spec.rounds for t in r.tables or ())}

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
                "started": self._started(no),
                "matches": self.matches(no) if no else [],
                "standings": self.standings(),
                "history": self.history(),
                "over": self.over(),
                "winner": self.winner(),
                "can_start_next": self._next_blocker() is None,
                "next_blocked_by": self._next_blocker(),
                "refused": [{k: r[k] for k in ("at", "table", "why")} for r in self.refused_results(no)][
                    :SHOWN_REFUSALS
                ]
                if no
                else [],
            }

    def standings(self) -> list[dict[str, Any]]:
        """Every player's row, best first, with its rank (1 = first; the tie-breaks decide every place)."""
        rows = standings(self.spec.player_names, self._finished())
        return [{"rank": i, **r.to_json()} for i, r in enumerate(rows, start=1)]

    def over(self) -> bool:
        """The last round has been played: it has started and every one of its matches is confirmed."""
        no = self.round_no
        return no == len(self.spec.rounds) and all(m["status"] == "confirmed" for m in self.matches(no))

    def winner(self) -> str | None:
        """The tournament's winner (first in the standings) once it is over; None before."""
        return self.standings()[0]["name"] if self.over() and self.spec.player_names else None

    def history(self) -> list[dict[str, Any]]:
        """Every round that has started, oldest first: its game, when it started, its matches and results."""
        matches = self.matches()
        return [
            {
                "round": no,
                "game": game,
                "started": started,
                "matches": [m for m in matches if m["round"] == no],
            }
            for no, game, started in self.db.execute("SELECT no, game, started FROM rounds ORDER BY no")
        ]

    def _started(self, no: int) -> str | None:
        """When round ``no`` was paired (UTC ISO 8601), None before it was."""
        row = self.db.execute("SELECT started FROM rounds WHERE no = ?", (no,)).fetchone()
        return None if row is None else str(row[0])

    # -- writing -------------------------------------------------------------------------------

    def _next_blocker(self) -> str | None:
        no = self.round_no
        open_ = [m for m in self.matches(no) if m["status"] != "confirmed"] if no else []
        last = no >= len(self.spec.rounds)
        if open_:
            which = f"round {no} (the last)" if last else f"round {no}"
            return f"{which} has {len(open_)} match(es) without a confirmed result"
        return "the last round has been played" if last and no else None

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
            now = datetime.now(UTC).isoformat()  # to the microsecond: results seen before it never count
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
        """A table's final result (checked by the hall): recorded when it is this round's match's.

        Anything a table sends is checked against the round and the game (``_judge``): a result
        that is not for this round's match (an earlier game at the table, another hall's table)
        is logged and ignored; one that claims the match but cannot count (the wrong players or
        game, winners the rules do not give for those scores, from the future, published before
        the round started, a second result for a match that has one) is refused, logged and
        shown to the organiser with why (``refused_results``).  The hall gives every result
        again at each restart: one already taken, ignored or refused changes nothing.
        """
        with self._lock:
            now = datetime.now(UTC)
            no = self.round_no
            try:
                match = self._judge(table_id, result, now)
            except _Ignore as e:
                log.info("result from table %s not for round %d: %s", table_id, no, e)
                if table_id in self._tables:  # another hall's table can never count here
                    self._seen(table_id, result, now)
                return False
            except _Refuse as e:
                self._refused(no, table_id, result, str(e), now)
                return False
            return self._record(match, result)

    def _judge(self, table_id: str, result: dict[str, Any], now: datetime) -> dict[str, Any]:
        """This round's match the result counts for; ``_Ignore`` or ``_Refuse`` saying why not."""
        no = self.round_no
        if not no:
            raise _Ignore("no round has started")
        match = next((m for m in self.matches(no) if m["table"] == table_id), None)
        if match is None:
            raise _Ignore(f"the table has no match in round {no}")
        game = self.spec.rounds[no - 1].game
        (started_text,) = self.db.execute("SELECT started FROM rounds WHERE no = ?", (no,)).fetchone()
        started, finished = _moment(started_text), _moment(result["finished"])
        names = [p["name"] for p in result.get("players", [])]
        ours = sorted(names) == sorted(match["players"]) and result.get("game") == game
        earlier = [m for m in self.matches() if m["table"] == table_id and m["round"] < no]
        if any(m["finished"] == result["finished"] for m in earlier):
            raise _Ignore("the result of the table's match in an earlier round")
        if finished < started.replace(microsecond=0):  # a table gives whole seconds
            if ours:  # the same players, the same game: a clock behind, or a replay
                raise _Refuse(
                    f"it finished at {result['finished']}, before round {no} started ({started_text}): "
                    "an earlier game's result, or the table's clock is behind"
                )
            raise _Ignore(f"an earlier game's result (finished {result['finished']}, before round {no})")
        if finished > now + timedelta(seconds=MAX_CLOCK_AHEAD_S):
            raise _Refuse(
                f"it finished at {result['finished']}, in the future (the hall's clock says "
                f"{now.isoformat(timespec='seconds')}; a table's clock may be {MAX_CLOCK_AHEAD_S} s ahead)"
            )
        seen = self._first_seen(table_id, result)
        if seen is not None and seen < started:
            raise _Refuse(
                f"it was published at {seen.isoformat(timespec='seconds')}, before round {no} started "
                f"({started_text}), yet says it finished at {result['finished']}"
            )
        if result.get("game") != game:
            raise _Refuse(f"it is a result of {result.get('game')}, round {no} plays {game}")
        if sorted(names) != sorted(match["players"]):
            raise _Refuse(f"its players are {names}, round {no} paired {match['players']} at this table")
        # each player's dice the colour of the seat the pairing gave them (display.pairings): a game
        # played with the colours swapped (a forged pairing) is not the match that was paired
        seated = {p: SEAT_COLOURS[i % len(SEAT_COLOURS)] for i, p in enumerate(match["players"])}
        played = {p["name"]: p.get("colour") for p in result.get("players", [])}
        if played != seated:
            shown = ", ".join(f"{p} {c}" for p, c in played.items())
            paired = ", ".join(f"{p} {c}" for p, c in seated.items())
            raise _Refuse(f"its players played as {shown}; round {no} seated {paired} at this table")
        why = find_game(game).check_result(names, result["scores"], result["winners"])
        if why is not None:
            raise _Refuse(f"the rules of {game} cannot give it: {why}")
        if match["status"] != "playing":
            if (match["scores"], match["winners"]) == (result["scores"], result["winners"]):
                raise _Ignore("the match has this result already")
            raise _Refuse(
                f"the match already has a result ({_describe(match)}); an organiser may override it"
            )
        return match

    def _record(self, match: dict[str, Any], result: dict[str, Any]) -> bool:
        no = match["round"]
        status = "confirmed" if self.spec.tournament.confirm == "table" else "reported"
        with self._write():  # only while still playing: an organiser (another process) may have entered it
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

    @staticmethod
    def _key(result: dict[str, Any]) -> str:
        return json.dumps(result, sort_keys=True, separators=(",", ":"))

    def _first_seen(self, table_id: str, result: dict[str, Any]) -> datetime | None:
        row = self.db.execute(
            "SELECT first_seen FROM seen_results WHERE table_id = ? AND result = ?",
            (table_id, self._key(result)),
        ).fetchone()
        return None if row is None else _moment(row[0])

    def _seen(self, table_id: str, result: dict[str, Any], now: datetime) -> None:
        """Remember when a result that could not count yet was first seen (so it never counts later)."""
        with self._write():
            self.db.execute(
                "INSERT OR IGNORE INTO seen_results VALUES (?, ?, ?)",
                (table_id, self._key(result), now.isoformat()),
            )
            self.db.execute(
                "DELETE FROM seen_results WHERE table_id = ? AND first_seen < COALESCE(("
                "SELECT first_seen FROM seen_results WHERE table_id = ? "
                "ORDER BY first_seen DESC LIMIT 1 OFFSET ?), '')",
                (table_id, table_id, SEEN_PER_TABLE - 1),
            )

    def _refused(self, no: int, table_id: str, result: dict[str, Any], why: str, now: datetime) -> None:
        with self._write():
            cur = self.db.execute(
                "INSERT OR IGNORE INTO refused_results (at, round, table_id, why, result) "
                "VALUES (?, ?, ?, ?, ?)",
                (now.isoformat(timespec="seconds"), no, table_id, why, self._key(result)),
            )
            self.db.execute(  # a flood of forgeries keeps only the latest few per table and round
                "DELETE FROM refused_results WHERE round = ? AND table_id = ? AND id <= COALESCE(("
                "SELECT id FROM refused_results WHERE round = ? AND table_id = ? "
                "ORDER BY id DESC LIMIT 1 OFFSET ?), -1)",
                (no, table_id, no, table_id, REFUSED_PER_TABLE),
            )
        if cur.rowcount:
            log.warning("refused the result of table %s in round %d: %s", table_id, no, why)

    def refused_results(self, round_no: int | None = None) -> list[dict[str, Any]]:
        """Results tables sent that could not count, newest first: when, round, table, why, the result."""
        q = "SELECT at, round, table_id, why, result FROM refused_results"
        args: tuple[int, ...] = ()
        if round_no is not None:
            q, args = q + " WHERE round = ?", (round_no,)
        rows = self.db.execute(q + " ORDER BY id DESC", args)
        return [
            {"at": r[0], "round": r[1], "table": r[2], "why": r[3], "result": json.loads(r[4])} for r in rows
        ]

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
            "rounds": st["rounds"],
            "rounds_played": st["round"],
            "over": st["over"],
            "winner": st["winner"],
            "standings": st["standings"],
            "history": st["history"],
            "matches": self.matches(),
            "result_log": self.result_log(),
            "refused_results": self.refused_results(),
        }

    def export_standings_csv(self) -> str:
        """One row per player, best first: rank, player, points, record and the tie-breaks in their order."""
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(STANDINGS_COLUMNS)
        keys = ("rank", "name", "points", "wins", "draws", "losses", "byes", "buchholz", "placement", "score")
        for r in self.standings():
            w.writerow([csv_cell(r[k]) for k in keys])
        return out.getvalue()

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
                row = [m["round"], games[m["round"]], m["table"] or "", p, opp, score, res, m["status"]]
                w.writerow([csv_cell(c) for c in [*row, place]])
        return out.getvalue()


FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet will not run: OWASP's CSV-injection rule, a text starting with ``=``, ``+``,
    ``-``, ``@``, TAB or CR gets a leading single quote (``=HYPERLINK(..)`` exports as ``'=HYPERLINK(..)``,
    readable, shown as text).  A number stays a number: an int or float, or a text that is only a plain
    decimal (``-3``, ``-0.5``), is written as it is: a spreadsheet reads it as that number and runs
    nothing, so a negative tie-break stays sortable (the one departure from OWASP, which quotes it too)."""
    if isinstance(value, bool) or not isinstance(value, str):
        return value
    if value.startswith(FORMULA_LEADS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


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
