"""A table whose log cannot be written for a while (a full disk, read-only media): the table's tick.

While a write the log refused is held (`controller.ledger.HeldWrite`, `Table._held`), nothing else
moves: it is tried again every ``retry_s`` and the table carries on once it is written.  Then what
happened meanwhile is taken in the order it happened (issue 47 item 3): each throw that came to rest
meanwhile (deferred) is read at its own time, after the scripted presses and lines before it and
before those after it, each of them at its own time, so a press for a round that opens only once that
throw is scored is neither taken nor thrown away before the throw is: every secret selection is
logged with its true value.  Real panels were not read meanwhile and their presses cannot be put in
order with the throws, so none is taken and the table says so.  At the end of a recording a write
still held is tried a while longer (`drain_held`); `controller.live.run_live` refuses to end well with
input unwritten.
"""

from __future__ import annotations

import logging
import time
from typing import Any

log = logging.getLogger("dicetable.table")

#: how long the end of a recording waits for a write the log refused (controller.live.run_live)
HELD_WAIT_S = 10.0


def retry_held(table: Any) -> bool:
    """Try ``table``'s held write again when it is due; True while something is still held."""
    retry = table.held_write.due(table.clock())
    if retry is None:
        return bool(table.held_write.waiting)
    notice = table.notice
    retry()
    if not table.held_write.waiting and table.notice == notice:
        table.notice = None  # written: the table carries on
        table._emit()
    return bool(table.held_write.waiting)


def tick(table: Any, t: float) -> None:
    """`Table.tick`: time passes to ``t`` (see the module's doc)."""
    was_held = table.held_write.waiting
    if table._retry_held():
        return
    if was_held and not table.panels.scripted:
        drop_presses_made_while_held(table)
    while (due := table.held_write.next_deferred_t()) is not None:
        catch_up(table, min(due, t))
        if table.held_write.waiting:
            return
        table.on_settled(*table.held_write.next_deferred())
        if table.held_write.waiting:
            return
    catch_up(table, t)


def catch_up(table: Any, t: float) -> None:
    """The scripted presses and lines due by ``t``, and the panels' rounds: behind (a write was held),
    each press and line at its own time, as it would have been taken then; else once, at ``t``."""
    script, held = table.script, table.held_write
    behind = held.deferred or table._behind
    times = [e.t for e in script.edges if e.t <= t] + [s.t for s in script.lines if s.t <= t]
    for at in [*sorted(set(times)), t] if behind else [t]:
        if held.waiting:
            return
        for edge in script.due_edges(at):
            try:
                table.panels.drive(edge)
            except ValueError as err:
                log.warning("scripted press at t=%.2f ignored: %s", edge.t, err)
        table.feed_due(at)
        table._drive_secret(at)
    if not held.waiting and not held.deferred:
        table._behind = False


def drop_presses_made_while_held(table: Any) -> None:
    """Real panels' presses made while a write was held: none is taken, and the table says so (the
    players choose again; a round every player had settled before is written with what they settled)."""
    now = table.panels.now(0.0)
    dropped = sum(len(panel.poll(now)) for panel in table.panels.list())
    if dropped:
        log.warning("%d button events made while the log could not be written were not taken", dropped)
        table.tell(
            "Button presses made while the log could not be written were not taken: choose again.",
            "presses_dropped",
        )
        table._emit()


def drain_held(table: Any, t: float, wait_s: float | None = None) -> bool:
    """At the end of a recording: a write still held is tried again, every ``retry_s`` of real time
    for ``wait_s`` (default ``HELD_WAIT_S``) at most, with what came after it; True when nothing is
    left unwritten."""
    wait = HELD_WAIT_S if wait_s is None else wait_s
    for _ in range(int(wait / table.held_write.retry_s)):
        if not table.unwritten:
            break
        time.sleep(table.held_write.retry_s)
        table.tick(t)
    return not table.unwritten
