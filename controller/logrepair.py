"""A damaged event log: what is intact in it (``dicetable log check``) and a new log of that
(``dicetable log salvage``).

Both read the file read-only and row by row (a lookup by ``seq`` touches only the pages on its
path), so a damaged page costs the events on it and no others; when the header, the schema or the
b-tree above the rows is damaged, the rows are read from the file's pages themselves
(`controller.logpages`), and the rows lost are counted from the highest seq any record names.
An event is intact when its row reads back whole, with a known source and kind and JSON data.  A
game is replayable when its intact events rebuild it with every logged outcome matching; a game
with a lost input is not, and the report says from which row.
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
from controller.logpages import PageScan
from controller.logpages import scan as scan_pages


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
    from_pages: int = 0  # intact events read from the file's pages where SQLite could not read them
    #: False when no record of the highest seq survived: ``lost`` counts only up to the last event read
    lost_exact: bool = True

    @property
    def ok(self) -> bool:
        return not self.problems and not self.lost and not any(self.games.values())

    def text(self) -> str:
        lines = [f"{self.path}: " + ("OK" if self.ok else "DAMAGED")]
        lines += [f"  sqlite: {p}" for p in self.problems[:10]]
        at_least = "" if self.lost_exact else "at least "
        lines.append(f"  intact events: {len(self.events)}; rows lost: {at_least}{len(self.lost)}")
        if self.from_pages:
            lines.append(f"  of them read from the file's pages (SQLite could not): {self.from_pages}")
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


def _highest_seq(db: sqlite3.Connection) -> int | None:
    """The highest seq the log may hold, from whichever of its records still reads (None: neither)."""
    found = []
    for sql in ("SELECT MAX(seq) FROM events", "SELECT seq FROM sqlite_sequence WHERE name = 'events'"):
        try:
            row = db.execute(sql).fetchone()
        except (sqlite3.Error, UnicodeDecodeError):
            continue
        if row and isinstance(row[0], int):
            found.append(row[0])
    return max(found) if found else None


def _tables(db: sqlite3.Connection) -> set[str] | None:
    """The names of the tables the (readable) schema lists; None: the schema itself is damaged."""
    try:
        return {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (sqlite3.Error, UnicodeDecodeError):
        return None


def _not_a_log(path: Path, why: str) -> LogError:
    return LogError(f"{path}: not a dicetable event log ({why}); expected a table's .sqlite3 event log")


class _Pages:
    """The page scan (`controller.logpages.scan`), made once and only when it is needed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._scan: PageScan | None = None

    def get(self) -> PageScan:
        if self._scan is None:
            try:
                self._scan = scan_pages(self.path.read_bytes())
            except OSError as e:
                raise LogError(f"{self.path}: cannot read ({e})") from None
        return self._scan


def _read_rows(
    db: sqlite3.Connection, highest: int, events: dict[int, Event], lost: dict[int, str]
) -> tuple[list[int], int]:
    """Rows 1..``highest`` read one by one through SQLite (a damaged page costs only its rows):
    intact ones into ``events``, the others' reasons into ``lost``; (seqs without a row, last seq)."""
    missing: list[int] = []
    last = 0  # the highest seq with a row at all
    for seq in range(1, highest + 1):
        try:
            row = db.execute(
                "SELECT seq, game, t, source, kind, player, data FROM events WHERE seq = ?", (seq,)
            ).fetchone()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            lost[seq] = f"row {seq}: unreadable ({e})"
            last = seq
            continue
        if row is None:
            missing.append(seq)
            continue
        last = seq
        event = parse_row(row)
        if isinstance(event, str):
            lost[seq] = event
        else:
            events[seq] = event
    return missing, last


def read_intact(path: Path) -> LogReport:
    """Every intact event of the log at ``path`` (read-only), and what could not be read.

    Rows are read through SQLite first; when anything is damaged, the file's pages are read as well
    (`controller.logpages`: every leaf page's records of the events table's shape), so a damaged
    header, schema or b-tree costs only the rows whose own bytes are damaged, and the rows lost are
    counted from the highest seq any record names."""
    report = LogReport(Path(path))
    path = Path(path)
    pages = _Pages(path)
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as e:
        raise LogError(f"{path}: cannot read ({e})") from None
    events: dict[int, Event] = {}
    lost: dict[int, str] = {}
    missing: list[int] = []
    highest = last = 0
    if head != SQLITE_MAGIC:
        # a text file, a picture: not a log, not "damaged"; a log whose header lost a byte: damaged
        if not pages.get().events:
            raise _not_a_log(path, f"not an SQLite file: it starts {head[:8]!r}")
        report.problems.append(f"the file's header is damaged (it starts {head!r}, not SQLite's)")
    else:
        try:
            db = connect_read_only(path)
        except sqlite3.Error as e:
            report.problems.append(f"cannot open: {e}")
        else:
            try:
                names = _tables(db)
                if names is not None and "events" not in names:
                    if not pages.get().events:  # another program's database (a tournament's state)
                        shown = ", ".join(sorted(names)[:5]) or "none"
                        why = f"an SQLite database without an events table; its tables: {shown}"
                        raise _not_a_log(path, why)
                    shown = ", ".join(sorted(names)[:5]) or "none"
                    report.problems.append(f"the schema names no events table (its tables: {shown})")
                try:
                    problems = [str(r[0]) for r in db.execute("PRAGMA integrity_check(100)").fetchall()]
                except (sqlite3.Error, UnicodeDecodeError) as e:
                    problems = [str(e)]
                report.problems += [p for p in problems if p != "ok"]
                found = _highest_seq(db)
                if found is not None:
                    highest = found
                    missing, last = _read_rows(db, found, events, lost)
            finally:
                db.close()
    if report.problems or lost:
        # damaged: every leaf page read for the rows SQLite could not give (never over one it gave)
        scan = pages.get()
        for seq, event in scan.events.items():
            if seq not in events:
                events[seq] = event
                lost.pop(seq, None)
                report.from_pages += 1
        for seq in scan.conflicts:
            if seq not in events:
                lost.setdefault(seq, f"row {seq}: two copies on its pages differ; neither is trusted")
        report.lost_exact = bool(highest or scan.sequence)  # else rows after the last read are unknown
        highest = max(highest, scan.highest)
        # seqs run on without gaps (a rolled-back write takes its seq back): a gap is a lost row
        for seq in range(1, highest + 1):
            if seq not in events and seq not in lost:
                lost[seq] = f"row {seq}: missing (on no page that reads)"
    else:
        # in a sound file a gap was lost before (a salvaged log)
        report.gaps = [seq for seq in missing if seq < last]
    report.events = [events[seq] for seq in sorted(events)]
    report.lost = [lost[seq] for seq in sorted(lost)]
    games: dict[int, list[Event]] = {}
    for event in report.events:
        games.setdefault(event.game, []).append(event)
    for game, game_events in games.items():
        try:
            replay_events(game_events, f"{path}: game {game}")
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
