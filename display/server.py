"""Running a server: the guards below HTTP that every server shares, uvicorn in a thread (tests,
benchmark) and the CLI's player list.

Every server the project starts (table display, hall, tournament, stats, serve-fake) is run with
``server_config``: uvicorn trusts no ``X-Forwarded-For`` (unless ``forwarded_allow_ips`` names the
proxy), and each connection goes through ``guarded_protocol``:

* at most ``ConnectionLimits.per_client`` open connections per client address (an IPv6 client:
  its /64), fewer as more addresses connect (a fair share of the slots), and at most ``total`` in
  all (the open-file limit less a headroom the process keeps for its logs, camera and broker), of
  which ``reserved`` only this machine (loopback, the referee's own browser) may use; when every
  slot is taken, a newcomer's connection takes the place of one that is waiting for its request
  head (slow or idle) of the address holding the most, so many addresses holding slow
  connections cannot starve another; a connection past a cap is closed at once, which frees its
  file descriptor;
* a request's head (request line and headers) must arrive within ``head_timeout`` seconds of the
  connection opening or the previous answer, and be at most ``max_head`` bytes: else the
  connection is closed (a client that trickles its headers holds nothing for long).

The ASGI ``display.guard.Guard`` does the rest (Host, CSRF, tokens, the body's size and timeout).
"""

from __future__ import annotations

import asyncio
import ipaddress
import resource
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import uvicorn
from fastapi import FastAPI

from display import admin

#: uvicorn's sans-I/O websockets protocol: the quickest fan-out of the ones uvicorn ships
#: (see benchmarks/results/display.md)
WS_IMPL = "websockets-sansio"
#: pages send nothing over the WebSocket: a message larger than this closes it (uvicorn's default: 16 MB)
WS_MAX_SIZE = 64 * 1024


#: seconds an idle keep-alive connection stays open
KEEP_ALIVE_S = 5.0


#: file descriptors the process keeps for itself beside its connections (logs, camera, broker, models)
FD_HEADROOM = 128
#: a client address's share of the slots never shrinks below this many connections
MIN_SHARE = 4


def _default_total() -> int:
    """Connections in all: the open-file limit less what the process needs besides (logs, camera)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 4096
    return max(16, min(4096, soft - FD_HEADROOM))


def client_key(address: str) -> str:
    """What the caps count by: an IPv4 address, or an IPv6 client's /64 (one host holds a /64), as
    the admin's wrong tokens are counted (`display.admin.client_key`); ::1 is itself."""
    return admin.client_key(address, loopback_alone=True)


#: this machine's own addresses (the referee's browser, a kiosk's screen): the reserved slots are theirs.
#: Not all of 127.0.0.0/8: every 127.x address reaches loopback, so a local program could pose as many
LOCAL = frozenset({"127.0.0.1", "::1"})


def is_local(address: str) -> bool:
    """This machine's own address (``LOCAL``), also written as an IPv4-mapped IPv6 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip) in LOCAL


@dataclass(frozen=True)
class ConnectionLimits:
    """The guards below HTTP (module docstring); ``total=None``: from the open-file limit."""

    per_client: int = 32
    total: int | None = None
    head_timeout: float = 10.0
    max_head: int = 16 * 1024
    #: slots of ``total`` only this machine may use (None: a sixteenth of ``total``, at least 4)
    reserved: int | None = None


class _Waiting(Protocol):
    def waiting_since(self) -> float | None:
        """When the connection began waiting for a request head (None: a request or WebSocket is on)."""


class ConnectionBook:
    """The open connections per client (``client_key``), each a transport with its protocol (a closed
    one is dropped lazily: a connection upgraded to a WebSocket is closed by another protocol
    object); the module docstring says what is admitted."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.per_client = limits.per_client
        self.total = limits.total if limits.total is not None else _default_total()
        self.reserved = limits.reserved if limits.reserved is not None else max(4, self.total // 16)
        self.reserved = min(self.reserved, self.total - 1)
        self._by_client: dict[str, dict[asyncio.Transport, _Waiting | None]] = {}
        self._count = 0
        self.refused = 0
        self.evicted = 0

    def _prune(self) -> None:
        for client in list(self._by_client):
            live = {t: p for t, p in self._by_client[client].items() if not t.is_closing()}
            if live:
                self._by_client[client] = live
            else:
                del self._by_client[client]
        self._count = sum(len(v) for v in self._by_client.values())

    def share(self, key: str) -> int:
        """How many connections ``key`` may hold now: ``per_client``, less as more clients connect
        (the slots open to every client shared among them), never below ``MIN_SHARE``."""
        clients = len(self._by_client) + (key not in self._by_client)
        fair = (self.total - self.reserved) // max(1, clients)
        return max(MIN_SHARE, min(self.per_client, fair))

    def _victim(self, key: str) -> asyncio.Transport | None:
        """A connection to close for ``key``'s new one, when every slot is taken: one waiting for its
        request head (slow or idle), of the client holding the most (more than ``key`` holds after
        this one), the longest waiting first; never this machine's."""
        mine = len(self._by_client.get(key, ()))
        best: tuple[int, float, asyncio.Transport] | None = None
        for client, conns in self._by_client.items():
            if client == key or is_local(client) or len(conns) <= mine + 1:
                continue
            for transport, proto in conns.items():
                since = proto.waiting_since() if proto is not None else None
                if since is None or transport.is_closing():
                    continue
                rank = (-len(conns), since, transport)
                if best is None or rank[:2] < best[:2]:
                    best = rank
        return None if best is None else best[2]

    def admit(self, client: str, transport: asyncio.Transport, proto: _Waiting | None = None) -> bool:
        key = client_key(client)
        local = is_local(client)
        limit = self.total if local else self.total - self.reserved
        if len(self._by_client.get(key, ())) >= self.share(key) or self._count >= limit:
            self._prune()
            if len(self._by_client.get(key, ())) >= (self.per_client if local else self.share(key)):
                self.refused += 1
                return False
            if self._count >= limit:
                victim = self._victim(key)
                if victim is None:
                    self.refused += 1
                    return False
                victim.abort()  # frees its slot and file descriptor now
                self.evicted += 1
                self._prune()
        self._by_client.setdefault(key, {})[transport] = proto
        self._count += 1
        return True

    def release(self, client: str, transport: asyncio.Transport) -> None:
        mine = self._by_client.get(client_key(client))
        if mine is not None and transport in mine:
            del mine[transport]
            self._count -= 1
            if not mine:
                del self._by_client[client_key(client)]


def guarded_protocol(base: type[asyncio.Protocol], limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's HTTP protocol) with the caps on connections and the head's timeout and size.

    It relies on what both of uvicorn's HTTP protocols have: ``cycle`` (the request being answered,
    a new one once a request's head is complete), ``on_response_complete`` and ``loop``.
    """
    book = ConnectionBook(limits)

    class Guarded(base):  # type: ignore[valid-type, misc]
        connection_book = book
        _guard_client: str | None = None
        _head_timer: asyncio.TimerHandle | None = None
        _head_cycle: Any = None
        _head_bytes = 0
        _head_since = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:
            peer = transport.get_extra_info("peername")
            client = str(peer[0]) if isinstance(peer, tuple | list) and peer else ""
            if not book.admit(client, transport, self):
                transport.abort()  # frees the file descriptor now; the client sees a reset
                return
            self._guard_client = client
            super().connection_made(transport)
            self._arm_head()

        def _arm_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_cycle, self._head_bytes = self.cycle, 0
            self._head_since = time.monotonic()
            self._head_timer = self.loop.call_later(limits.head_timeout, self._head_expired)

        def waiting_since(self) -> float | None:
            """When this connection began waiting for a request head, or None (a request is being
            answered, or a WebSocket took it over): the book may close a waiting one."""
            if self._head_timer is None or not self._waiting_for_head():
                return None
            return self._head_since

        def _waiting_for_head(self) -> bool:
            """No request begun since the timer was armed (the connection is not a WebSocket now)."""
            cycle = self.cycle
            return (
                cycle is self._head_cycle
                and (cycle is None or cycle.response_complete)
                and self.transport.get_protocol() is self
            )

        def _head_expired(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing() and self._waiting_for_head():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._guard_client is None:
                return
            waiting = self._head_timer is not None and self._waiting_for_head()
            super().data_received(data)
            if not waiting:
                return
            if not self._waiting_for_head():  # the head is complete (or a WebSocket took over)
                if self._head_timer is not None:
                    self._head_timer.cancel()
                    self._head_timer = None
                return
            self._head_bytes += len(data)
            if self._head_bytes > limits.max_head and not self.transport.is_closing():
                self.transport.close()  # a head this long is not a request of ours

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm_head()  # the next request's head, on a kept-alive connection

        def connection_lost(self, exc: Exception | None) -> None:
            if self._guard_client is None:
                return
            book.release(self._guard_client, self.transport)
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().connection_lost(exc)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


def server_config(
    app: Any,
    host: str,
    port: int,
    *,
    limits: ConnectionLimits | None = None,
    forwarded_allow_ips: Sequence[str] | None = None,
    lifespan: str = "off",
    ws: str = WS_IMPL,
) -> uvicorn.Config:
    """uvicorn's settings for every server the project starts (module docstring).

    ``forwarded_allow_ips``: the reverse proxies whose ``X-Forwarded-For`` is believed (none by
    default: a client on this machine could otherwise claim any address and dodge the per-client
    limits).
    """
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan=lifespan,  # type: ignore[arg-type]
        ws=ws,
        ws_max_size=WS_MAX_SIZE,
        http=guarded_protocol(AutoHTTPProtocol, limits or ConnectionLimits()),
        proxy_headers=bool(forwarded_allow_ips),
        forwarded_allow_ips=list(forwarded_allow_ips or []) or None,
        timeout_keep_alive=int(KEEP_ALIVE_S),
        h11_max_incomplete_event_size=(limits or ConnectionLimits()).max_head,
        server_header=False,
    )


def serve(app: Any, host: str, port: int, **settings: Any) -> None:
    """Serve ``app`` on ``host:port`` with the guards (``server_config``) until Ctrl-C."""
    uvicorn.Server(server_config(app, host, port, **settings)).run()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class ServerThread:
    """A uvicorn server on ``host:port`` in a daemon thread, with the guards (``server_config``);
    ``with`` starts and stops it."""

    def __init__(
        self,
        app: FastAPI,
        host: str = "127.0.0.1",
        port: int | None = None,
        limits: ConnectionLimits | None = None,
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        config = server_config(app, self.host, self.port, limits=limits)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True, name=f"uvicorn:{self.port}")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the display server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def parse_players(text: str) -> list[tuple[str, str]]:
    """``ann:red,bob:blue`` -> [("ann", "red"), ("bob", "blue")]."""
    out = []
    for item in text.split(","):
        name, _, colour = item.strip().partition(":")
        if not name:
            raise ValueError(f"players {text!r}: expected NAME:COLOUR,NAME:COLOUR (e.g. ann:red,bob:blue)")
        out.append((name, colour or "white"))
    return out
