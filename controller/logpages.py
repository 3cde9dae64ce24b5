"""The event log's rows read from its SQLite pages directly, for `controller.logrepair`'s salvage of a
log whose header, schema or b-tree SQLite itself can no longer walk.

SQLite stores every row of a table in a *table b-tree leaf page* (type 13) as a cell: the payload's
length and the rowid as varints, then the record (a header of serial types, then the values), the
part that does not fit on the page in a chain of overflow pages
(https://www.sqlite.org/fileformat2.html, sections 1.6, 2.1 and 2.3).  :func:`scan` reads every page
of the file, takes every cell of every leaf page that parses, and keeps the records of the events
table's shape (``seq`` the rowid, then game, t, source, kind, player, data); a leaf of the
``events_game`` index (type 10) names the seqs that existed, and the ``sqlite_sequence`` row
(``'events'``, highest seq) how many there were, so the caller can say how many it lost.

Pure Python on purpose (no ``sqlite3`` CLI and its ``.recover``): it runs wherever the table runs,
it never needs the file's header or schema (the page size is found by trying the sizes SQLite allows
when the header's is damaged), and a truncated file is read up to its last whole page.
"""

from __future__ import annotations

import json
import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from controller.eventlog import KINDS, SOURCES, Event, parse_row

PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
TABLE_LEAF, INDEX_LEAF = 13, 10
#: pages tried per candidate page size before the whole file is read with the best
TRIAL_PAGES = 256


@dataclass
class PageScan:
    """What the pages hold: intact event records by seq, the seqs the index names, the highest seq
    ``sqlite_sequence`` names, and how many seqs had copies that differ (none kept)."""

    page_size: int = 0
    events: dict[int, Event] = field(default_factory=dict)
    indexed: set[int] = field(default_factory=set)
    sequence: int = 0
    conflicts: list[int] = field(default_factory=list)

    @property
    def highest(self) -> int:
        return max([self.sequence, *self.events, *self.indexed, *self.conflicts, 0])


def _varint(b: bytes, i: int, end: int) -> tuple[int, int]:
    """SQLite's varint at ``b[i:]`` (1 to 9 bytes, big-endian, 7 bits a byte but the ninth's 8)."""
    v = 0
    for k in range(9):
        if i >= end:
            raise ValueError("varint runs past the page")
        c = b[i]
        i += 1
        if k == 8:
            return (v << 8) | c, i
        v = (v << 7) | (c & 0x7F)
        if c < 0x80:
            return v, i
    raise AssertionError("unreachable")


_INT_SIZES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> list[Any]:
    """A record's values (NULL, int, float, text, blob); ValueError when it does not parse whole."""
    n = len(payload)
    size, i = _varint(payload, 0, n)
    if size < 1 or size > n:
        raise ValueError("record header out of range")
    types = []
    while i < size:
        t, i = _varint(payload, i, size)
        types.append(t)
    values: list[Any] = []
    at = size
    for t in types:
        if t == 0:
            values.append(None)
        elif t in _INT_SIZES:
            w = _INT_SIZES[t]
            if at + w > n:
                raise ValueError("value past the record")
            values.append(int.from_bytes(payload[at : at + w], "big", signed=True))
            at += w
        elif t == 7:
            if at + 8 > n:
                raise ValueError("value past the record")
            values.append(struct.unpack(">d", payload[at : at + 8])[0])
            at += 8
        elif t in (8, 9):
            values.append(t - 8)
        elif t >= 12:
            w = (t - 12) // 2
            if at + w > n:
                raise ValueError("value past the record")
            raw = payload[at : at + w]
            values.append(raw.decode("utf-8") if t % 2 else raw)  # strict: a garbled text is no row
            at += w
        else:
            raise ValueError(f"serial type {t} is reserved")
    if at != n:
        raise ValueError("record length differs from its payload")
    return values


class _Pages:
    def __init__(self, data: bytes, page_size: int, reserved: int) -> None:
        # a truncated file's last page is read as far as it goes (zeros after: no cell parses there)
        tail = -len(data) % page_size
        self.data = data + bytes(tail) if tail else data
        self.size, self.usable = page_size, page_size - reserved
        self.count = len(self.data) // page_size

    def page(self, no: int) -> bytes:
        return self.data[(no - 1) * self.size : no * self.size]

    def payload(self, page: bytes, i: int, length: int, table: bool) -> bytes:
        """A cell's payload at ``page[i:]``, its overflow chain followed; ValueError if broken."""
        u = self.usable
        x = u - 35 if table else ((u - 12) * 64 // 255) - 23
        if length <= x:
            if i + length > u:
                raise ValueError("cell runs past the page")
            return page[i : i + length]
        m = ((u - 12) * 32 // 255) - 23
        k = m + ((length - m) % (u - 4))
        local = k if k <= x else m
        if i + local + 4 > u:
            raise ValueError("cell runs past the page")
        parts = [page[i : i + local]]
        got = local
        nxt = int.from_bytes(page[i + local : i + local + 4], "big")
        seen: set[int] = set()
        while got < length:
            if not 1 < nxt <= self.count or nxt in seen:
                raise ValueError("overflow chain broken")
            seen.add(nxt)
            over = self.page(nxt)
            take = min(length - got, u - 4)
            parts.append(over[4 : 4 + take])
            got += take
            nxt = int.from_bytes(over[:4], "big")
        return b"".join(parts)

    def cells(self, no: int) -> Iterator[tuple[int, int | None, list[Any]]]:
        """(page type, rowid or None, values) of every cell of leaf page ``no`` that parses."""
        page = self.page(no)
        h = 100 if no == 1 else 0
        if len(page) < h + 8 or page[h] not in (TABLE_LEAF, INDEX_LEAF):
            return
        kind = page[h]
        n = int.from_bytes(page[h + 3 : h + 5], "big")
        for c in range(min(n, (self.usable - h - 8) // 2)):
            ptr = int.from_bytes(page[h + 8 + 2 * c : h + 10 + 2 * c], "big")
            if not h + 8 <= ptr < self.usable:
                continue
            try:
                length, i = _varint(page, ptr, self.usable)
                rowid = None
                if kind == TABLE_LEAF:
                    rowid, i = _varint(page, i, self.usable)
                values = _record(self.payload(page, i, length, kind == TABLE_LEAF))
            except (ValueError, UnicodeDecodeError):
                continue
            yield kind, rowid, values


def _event(rowid: int, values: list[Any]) -> Event | None:
    """The event a table record of the events table's shape holds (None: another shape, or damaged)."""
    if len(values) != 7 or values[0] is not None or not 0 < rowid < 2**62:
        return None
    game, t, source, kind, player, text = values[1:]
    if source not in SOURCES or kind not in KINDS:
        return None
    if isinstance(t, bool) or not isinstance(t, int | float) or not isinstance(text, str):
        return None
    event = parse_row((rowid, game, t, source, kind, player, text))
    return event if isinstance(event, Event) else None


def _read(pages: _Pages, limit: int | None = None) -> PageScan:
    scan = PageScan(pages.size)
    copies: dict[int, list[Event]] = {}
    last = pages.count if limit is None else min(pages.count, limit)
    for no in range(1, last + 1):
        for kind, rowid, values in pages.cells(no):
            if kind == INDEX_LEAF:
                if len(values) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                    scan.indexed.add(int(values[1]))  # events_game: (game, seq)
                continue
            assert rowid is not None
            if len(values) == 2 and values[0] == "events" and isinstance(values[1], int):
                scan.sequence = max(scan.sequence, values[1])  # sqlite_sequence
                continue
            event = _event(rowid, values)
            if event is not None:
                copies.setdefault(event.seq, []).append(event)
    for seq, found in copies.items():
        # a freed page may hold an old copy of a row: the log is append-only, so copies agree; a seq
        # whose copies differ is damaged in one of them, and neither is trusted
        keys = [json.dumps(e.to_json(), sort_keys=True) for e in found]
        (best, n), *rest = Counter(keys).most_common()
        if rest and rest[0][1] == n:
            scan.conflicts.append(seq)
        else:
            scan.events[seq] = found[keys.index(best)]
    return scan


def scan(data: bytes) -> PageScan:
    """Every intact event record on the pages of the SQLite file ``data`` (see the module's doc)."""
    header_size = int.from_bytes(data[16:18], "big") if len(data) >= 100 else 0
    header_size = 65536 if header_size == 1 else header_size
    reserved = data[20] if len(data) >= 100 else 0
    tries: list[tuple[int, int]] = []
    trusted = header_size in PAGE_SIZES and reserved < header_size // 8
    if trusted:
        tries.append((header_size, reserved))
    tries += [(size, 0) for size in PAGE_SIZES if (size, 0) not in tries]
    best: tuple[int, int] | None = None
    best_n = 0
    for k, (size, res) in enumerate(tries):
        if len(data) < size:
            continue
        n = len(_read(_Pages(data, size, res), TRIAL_PAGES).events)
        if n > best_n:
            best, best_n = (size, res), n
        if trusted and k == 0 and n:
            break  # the header's own page size reads events: no need to guess
    if best is None:
        return PageScan()
    return _read(_Pages(data, *best))
