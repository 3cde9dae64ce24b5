"""The admin login's parts: weak tokens, sessions, the limit on wrong guesses, the Host allow-list.

No web framework here (``controller.config`` checks tokens with it at load time).

* A token is **weak** when a guesser or a reader of the README would try it: shorter than
  16 characters, only a few different characters, blank, or an example such as ``change-me``.
  A table that serves admin beyond this machine refuses a weak token.
* A **session** is a random id the login sets as an HttpOnly cookie; the token itself never goes
  into a cookie, and a session ends after ``SESSION_S`` seconds.
* **Wrong guesses** of the token (at the login or in an ``X-Admin-Token`` header) are limited per
  client (its address; an IPv6 client's /64); past the limit that client's answer is 429 with
  ``Retry-After`` and the token is not even compared.  Other clients are never locked out.
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


def client_key(address: str, *, loopback_alone: bool = False) -> str:
    """Whom a wrong guess is counted against: the address, or its /64 network for IPv6 (one
    household or machine holds a whole /64, so counting single addresses would be no limit).
    ``loopback_alone``: IPv6 loopback (::1) is itself, not its /64 (`display.server.client_key`)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not (loopback_alone and ip.is_loopback):
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class GuessLimit:
    """At most ``per_client`` wrong tokens per client (``client_key``) per ``window`` seconds.

    There is no limit in total: guessers at other addresses never lock out the right token (a
    referee on another device logs in at once); the guesser's own address waits.
    """

    def __init__(
        self,
        per_client: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_client, self.window = per_client, window
        self._clock = clock
        self._by_client: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may guess again (0: now)."""
        now = self._clock()
        with self._lock:
            q = self._by_client.get(client_key(client))
            if q is None:
                return 0.0
            while q and q[0] <= now - self.window:
                q.popleft()
            return q[0] + self.window - now if len(q) >= self.per_client else 0.0

    def failed(self, client: str) -> None:
        now = self._clock()
        with self._lock:
            if len(self._by_client) > 10_000:  # bounded: forget the clients whose guesses are old
                stale = [c for c, q in self._by_client.items() if not q or q[-1] <= now - self.window]
                for c in stale or list(self._by_client)[:1000]:
                    del self._by_client[c]
            self._by_client.setdefault(client_key(client), deque()).append(now)


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
