"""The admin login's parts: weak tokens, sessions, the limit on wrong guesses, the Host allow-list.

No web framework here (``controller.config`` checks tokens with it at load time).

* A token is **weak** when a guesser or a reader of the README would try it: shorter than
  16 characters, only a few different characters, blank, or an example such as ``change-me``.
  A table that serves admin beyond this machine refuses a weak token.
* A **session** is a random id the login sets as an HttpOnly cookie; the token itself never goes
  into a cookie, and a session ends after ``SESSION_S`` seconds.
* **Wrong guesses** of the token (at the login or in an ``X-Admin-Token`` header) are limited per
  client address and in total; past the limit the answer is 429 with ``Retry-After`` and the token
  is not even compared.
* A request's **Host** must be one of the table's names (or an IP address): a page on another
  site whose name is made to resolve to this machine (DNS rebinding) is refused.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Collection

MIN_TOKEN_CHARS = 16
#: tokens anyone would try first (the README's example among them)
WEAK_TOKENS = frozenset(
    {"change-me", "changeme", "change_me", "password", "admin", "secret", "token", "letmein", "dicetable"}
)
SESSION_S = 12 * 3600.0
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def weak_token_reason(token: str | None) -> str | None:
    """Why ``token`` is too weak to guard admin over a network, or None when it will do."""
    if token is None or not token.strip():
        return "it is empty"
    t = token.strip()
    if t.lower() in WEAK_TOKENS or any(w in t.lower() for w in ("change-me", "changeme")):
        return f"{t!r} is an example token anyone would try"
    if len(t) < MIN_TOKEN_CHARS:
        return f"it has {len(t)} characters; at least {MIN_TOKEN_CHARS} are needed"
    if len(set(t)) < 6:
        return f"it uses only {len(set(t))} different characters"
    return None


def is_loopback_host(host: str) -> bool:
    """Whether a bind address or client address is this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Sessions:
    """Admin sessions: random ids (the cookie's value), each valid for ``SESSION_S`` seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, ttl: float = SESSION_S) -> None:
        self._ids: dict[str, float] = {}
        self._lock = threading.Lock()
        self._clock, self.ttl = clock, ttl

    def new(self) -> str:
        sid = secrets.token_urlsafe(32)
        now = self._clock()
        with self._lock:
            self._ids = {k: v for k, v in self._ids.items() if v > now}  # forget the expired ones
            if len(self._ids) >= 1000:  # bounded: the oldest session goes
                self._ids.pop(min(self._ids, key=self._ids.__getitem__))
            self._ids[sid] = now + self.ttl
        return sid

    def valid(self, sid: str | None) -> bool:
        if not sid or len(sid) > 100:
            return False
        with self._lock:
            expires = self._ids.get(sid)
        return expires is not None and expires > self._clock()


class GuessLimit:
    """At most ``per_client`` wrong tokens per address and ``total`` in all per ``window`` seconds."""

    def __init__(
        self,
        per_client: int = 5,
        total: int = 30,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_client, self.total, self.window = per_client, total, window
        self._clock = clock
        self._by_client: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _prune(self, now: float) -> None:
        while self._all and self._all[0] <= now - self.window:
            self._all.popleft()
        for client in [c for c, q in self._by_client.items() if not q or q[-1] <= now - self.window]:
            del self._by_client[client]

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may guess again (0: now)."""
        now = self._clock()
        with self._lock:
            self._prune(now)
            waits = [0.0]
            q = self._by_client.get(client)
            if q is not None:
                while q and q[0] <= now - self.window:
                    q.popleft()
                if len(q) >= self.per_client:
                    waits.append(q[0] + self.window - now)
            if len(self._all) >= self.total:
                waits.append(self._all[0] + self.window - now)
            return max(waits)

    def failed(self, client: str) -> None:
        now = self._clock()
        with self._lock:
            self._all.append(now)
            q = self._by_client.setdefault(client, deque())
            q.append(now)
            if len(self._by_client) > 10_000:  # bounded, whoever fills it
                self._by_client.pop(next(iter(self._by_client)))


def host_allowed(host_header: str | None, allowed: Collection[str]) -> bool:
    """Whether a request's Host header names this table: an allowed name, or an IP address."""
    if not host_header:
        return False
    host = host_header.strip().lower()
    if host.startswith("["):  # [ipv6]:port
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    try:
        ipaddress.ip_address(host)
        return True  # an address is not a rebinding: the page's origin is that address itself
    except ValueError:
        pass
    return host.rstrip(".") in {a.lower().rstrip(".") for a in allowed}
