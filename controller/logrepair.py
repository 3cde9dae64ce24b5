"""A damaged event log: what is intact in it (``dicetable log check``) and a new log of that
(``dicetable log salvage``).

Both read the file read-only and row by row (a lookup by ``seq`` touches only the pages on its
path), so a damaged page costs the events on it and no others.  An event is intact when its row
reads back whole, with a known source and kind and JSON data.  A game is replayable when its intact
events rebuild it with every logged outcome matching; a game with a lost input is not, and the
report says from which row.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from controller.eventlog import (
    SQLITE_MAGIC,
    Event,
    EventLog,
    LogError,
    LogWriteError,
    ReplayError,
    connect_read_only,
    parse_row,
    replay_events,
)


@dataclass
class LogReport:
    """What a log holds: SQLite's problems, the intact events, the rows lost, each game's replay."""

    path: Path
    problems: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # why each unreadable or damaged row is left out
    gaps: list[int] = field(default_factory=list)  # seqs without a row in a sound file (salvaged before)
    games: dict[int, str | None] = field(default_factory=dict)  # game -> why it does not replay
    left_out: dict[int, str] = field(default_factory=dict)  # game -> what salvage could not keep, and why
    written: int = 0  # events salvage wrote to the new log

    @property
    def ok(self) -> bool:
        return not self.problems and not self.lost and not any(self.games.values())

    def text(self) -> str:
        lines = [f"{self.path}: " + ("OK" if self.ok else "DAMAGED")]
        lines += [f"  sqlite: {p}" for p in self.problems[:10]]
        lines.append(f"  intact events: {len(self.events)}; rows lost: {len(self.lost)}")
        lines += [f"  lost: {why}" for why in self.lost[:10]]
        if self.gaps:
            lines.append(f"  rows absent from a sound file (a salvaged log): {len(self.gaps)}")
        if len(self.lost) > 10:
            lines.append(f"  ... and {len(self.lost) - 10} more")
        for game, why in sorted(self.games.items()):
            lines.append(f"  game {game}: " + ("replays" if why is None else f"does not replay ({why})"))
        for game, what in sorted(self.left_out.items()):
            lines.append(f"  game {game}: {what}")
        return "\n".join(lines)


def _highest_seq(db: sqlite3.Connection, path: Path) -> int:
    """The highest seq the log may hold, from whichever of its records still reads."""
    found = []
    for sql in ("SELECT MAX(seq) FROM events", "SELECT seq FROM sqlite_sequence WHERE name = 'events'"):
        try:
            row = db.execute(sql).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row and isinstance(row[0], int):
            found.append(row[0])
    if found:
        return max(found)
    return max(1, path.stat().st_size // 16)  # no row is smaller: probing past the end finds nothing


def _holds_events(db: sqlite3.Connection, path: Path) -> None:
    """Refuse an SQLite file whose (readable) schema has no events table: another program's database
    (a tournament's state, say) is not a damaged log."""
    try:
        names = {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError:
        return  # the schema itself is damaged: a log's damage, reported as such
    if "events" not in names:
        shown = ", ".join(sorted(names)[:5]) or "none"
        raise LogError(
            f"{path}: not a dicetable event log (an SQLite database without an events table; its "
            f"tables: {shown}); expected a table's .sqlite3 event log"
        )


def read_intact(path: Path) -> LogReport:
    """Every intact event of the log at ``path`` (read-only), and what could not be read."""
    report = LogReport(Path(path))
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as e:
        raise LogError(f"{path}: cannot read ({e})") from None
    if head != SQLITE_MAGIC:  # a text file, a picture: nothing to check or salvage, not "damaged"
        raise LogError(
            f"{path}: not a dicetable event log (not an SQLite file: it starts {head[:8]!r}); "
            "expected a table's .sqlite3 event log"
        )
    try:
        db = connect_read_only(path)
    except sqlite3.Error as e:
        report.problems.append(f"cannot open: {e}")
        return report
    try:
        _holds_events(db, path)
        try:
            problems = [str(r[0]) for r in db.execute("PRAGMA integrity_check(100)").fetchall()]
        except sqlite3.DatabaseError as e:
            problems = [str(e)]
        report.problems = [p for p in problems if p != "ok"]
        highest = _highest_seq(db, path)
        missing: list[int] = []
        last = 0  # the highest seq with a row at all
        for seq in range(1, highest + 1):
            try:
                row = db.execute(
                    "SELECT seq, game, t, source, kind, player, data FROM events WHERE seq = ?", (seq,)
                ).fetchone()
            except sqlite3.DatabaseError as e:
                report.lost.append(f"row {seq}: unreadable ({e})")
                last = seq
                continue
            if row is None:
                missing.append(seq)
                continue
            last = seq
            event = parse_row(row)
            if isinstance(event, str):
                report.lost.append(event)
            else:
                report.events.append(event)
        # seqs run on without gaps (a rolled-back write takes its seq back): in a damaged file a gap
        # is a lost row; in a sound one it was lost before (a salvaged log)
        gaps = [seq for seq in missing if seq < last]
        if report.problems or report.lost:
            report.lost += [f"row {seq}: missing" for seq in gaps]
        else:
            report.gaps = gaps
    finally:
        db.close()
    games: dict[int, list[Event]] = {}
    for event in report.events:
        games.setdefault(event.game, []).append(event)
    for game, events in games.items():
        try:
            replay_events(events, f"{path}: game {game}")
            report.games[game] = None
        except LogError as err:
            report.games[game] = str(err).split(": ", 2)[-1]
    return report


def replayable(events: list[Event], where: str) -> tuple[list[Event], str | None]:
    """The longest start of one game's ``events`` that replays, and what was left out (None: all kept).

    A lost input makes every later outcome of its game unprovable, so the game is cut before the
    first input that does not replay (or whose logged outcome differs): a salvaged log must replay."""
    kept = list(events)
    for _ in range(len(events) + 1):  # every cut removes at least one event
        try:
            replay_events(kept, where)
        except ReplayError as err:
            inputs = [e.seq for e in kept if e.kind == "input" and e.seq <= err.seq]
            cut = inputs[-1] if inputs else err.seq
            kept = [e for e in kept if e.seq < cut]
            continue
        except LogError as err:  # no setup row, or a setup that starts no game: nothing replays
            why = str(err).split(": ", 2)[-1]
            return [], f"left out all {len(events)} events: {why}"
        break
    if len(kept) == len(events):
        return kept, None
    first = events[len(kept)].seq
    return kept, (
        f"kept rows {events[0].seq}-{kept[-1].seq if kept else events[0].seq}, which replay; left out "
        f"{len(events) - len(kept)} events from row {first} on, which no longer replay after the lost "
        f"rows (they stay in the damaged file)"
    )


def salvage(path: Path, out: Path) -> LogReport:
    """Copy every intact event of ``path`` that replays into a new log ``out`` (seq, game, time kept).

    The new log always replays: a game whose events stop replaying after a lost row is kept up to
    there, and the report says exactly what was left out and why."""
    if out.exists():
        raise LogError(f"{out}: already exists; salvage writes a new log (choose another --out)")
    if Path(out).resolve() == Path(path).resolve():
        raise LogError(f"{out}: salvage never writes over the damaged log")
    report = read_intact(path)
    games: dict[int, list[Event]] = {}
    for event in report.events:
        games.setdefault(event.game, []).append(event)
    keep: list[Event] = []
    for game, events in sorted(games.items()):
        kept, left_out = replayable(events, f"{path}: game {game}")
        keep += kept
        if left_out:
            report.left_out[game] = left_out
    keep.sort(key=lambda e: e.seq)
    report.written = len(keep)
    try:
        with EventLog(out) as new:
            new.restore(keep)
    except LogWriteError as e:
        raise LogError(str(e)) from None
    return report
