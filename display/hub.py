"""The push hub: the controller calls ``hub.notify(snapshot)``; every open page gets it.

``notify`` may be called from any thread.  The snapshot is serialised once and
handed to each WebSocket client's sender task through its event loop.  A slow
client never holds up the others: each keeps only the newest snapshot it has
not sent yet (a page only ever needs the latest state), so memory stays bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class Subscription:
    """One connected page: the newest unsent message and a wake-up event."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._pending: str | None = None
        self._ready = asyncio.Event()
        self.closed = False

    def offer(self, text: str) -> None:
        """Called on the subscription's loop: keep the newest message, wake the sender."""
        self._pending = text
        self._ready.set()

    async def next(self) -> str:
        """Wait for the next message (the newest one if several arrived meanwhile)."""
        while self._pending is None:
            self._ready.clear()
            await self._ready.wait()
        text, self._pending = self._pending, None
        self._ready.clear()
        return text


def _offer_all(subs: list[Subscription], text: str) -> None:
    for sub in subs:
        sub.offer(text)


class Hub:
    """Fan-out of table snapshots to WebSocket pages and in-process listeners."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._latest: str | None = None

    @property
    def latest(self) -> str | None:
        """The last message pushed, as JSON text (sent first to a new page)."""
        return self._latest

    @property
    def client_count(self) -> int:
        with self._lock:
            return len(self._subs)

    def add_listener(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call ``listener(snapshot)`` on every notify (e.g. the MQTT publisher)."""
        self._listeners.append(listener)

    def notify(self, snapshot: dict[str, Any]) -> None:
        """Push a snapshot to every connected page; safe from any thread."""
        text = json.dumps({"type": "snapshot", "snapshot": snapshot}, separators=(",", ":"))
        with self._lock:
            self._latest = text
            subs = list(self._subs)
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = {}
        for sub in subs:
            by_loop.setdefault(sub.loop, []).append(sub)
        for loop, group in by_loop.items():
            try:  # one wake-up per event loop, not one per page
                loop.call_soon_threadsafe(_offer_all, group, text)
            except RuntimeError:  # that loop has closed: its pages are going away
                for sub in group:
                    self.unsubscribe(sub)
        for listener in list(self._listeners):
            try:
                listener(snapshot)
            except Exception:  # a broken listener must not stop the table
                log.exception("hub listener %r failed", listener)

    def subscribe(self) -> Subscription:
        """Register the calling coroutine's page (call from its event loop)."""
        sub = Subscription(asyncio.get_running_loop())
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        with self._lock:
            self._subs.discard(sub)
