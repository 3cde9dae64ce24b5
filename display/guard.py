"""The guards every server of the project shares (table display, hall, tournament, stats, serve-fake).

``Guard`` is ASGI middleware that checks, before a route runs and before any body is read:

* the **Host** header against the server's names (DNS rebinding): 421;
* for a request that changes something (a method other than GET/HEAD/OPTIONS): that it comes from
  the server's own pages (**CSRF**): a browser's ``Sec-Fetch-Site`` must be ``same-origin`` (or
  ``none``: typed or bookmarked) and its ``Origin``, when sent, must be this server: else 403;
* for a guarded path (the table's admin, the tournament's organiser actions): the token or session
  (``TokenGate``: wrong tokens limited per client, never the right one from another client), and a
  JSON body (``Content-Type: application/json``: a type no HTML form and no cross-site ``fetch``
  can send without the browser asking first): else 401/403/429/415;
* the body: a ``Content-Length`` over ``max_body`` is refused unread (413), a body without one is
  counted while it streams in (413 past the limit), and one whose next part takes longer than
  ``body_timeout`` seconds is dropped (408).

Every answer forbids framing.  The header timeout and the caps on connections are below HTTP, in
``display.server`` (a connection that has not sent its request's head in time is closed).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
from collections.abc import Awaitable, Callable, Collection, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException

from display.admin import GuessLimit, Sessions, host_allowed, is_loopback_host

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]
#: why a request is refused: (status, message, extra headers)
Refusal = tuple[int, str, Headers]

#: the largest request body taken (the admin and organiser bodies are a few hundred bytes)
MAX_BODY = 64 * 1024
#: seconds the next part of a request's body may take
BODY_TIMEOUT = 10.0
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SECURITY_HEADERS: Headers = [
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodyTooSlow(HTTPException):
    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body stalled for more than {seconds:g} s")


def host_names(bind_host: str, extra: Iterable[str] = ()) -> list[str]:
    """Every name a request's Host header may carry for a server bound to ``bind_host``: that host,
    localhost, this machine's name (and ``NAME.local``) and ``extra``; IP addresses are always taken."""
    name = socket.gethostname()
    names = {"localhost", "127.0.0.1", "::1", bind_host, name, f"{name}.local", *extra}
    return sorted(n for n in names if n)


def cross_site_reason(headers: dict[str, str]) -> str | None:
    """Why a request that changes something did not come from this server's own pages, or None."""
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return f"a {site.strip()[:20]} request may not change anything here (Sec-Fetch-Site)"
    origin = headers.get("origin")
    if origin is None:
        return None
    netloc = urlsplit(origin.strip()).netloc.lower() if origin.strip() != "null" else ""
    if not netloc or netloc != headers.get("host", "").strip().lower():
        return f"a page of {origin[:80]!r} may not change anything here (Origin is not this server)"
    return None


def is_json(content_type: str | None) -> bool:
    """Whether a Content-Type is JSON (``application/json`` or ``application/*+json``)."""
    if not content_type:
        return False
    main = content_type.split(";", 1)[0].strip().lower()
    return main == "application/json" or (main.startswith("application/") and main.endswith("+json"))


def always_false(scope: Scope) -> bool:
    return False


class Guard:
    """ASGI middleware: the checks that need no body, before a route reads one (module docstring).

    ``guarded(scope)``: whether a request needs ``admin_gate(scope)`` (a ``Refusal`` or None) and a
    JSON body; ``allowed_hosts=None`` takes any Host (tests and embedding only).
    """

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Collection[str] | None,
        max_body: int | None = MAX_BODY,
        admin_gate: Callable[[Scope], Refusal | None] | None = None,
        guarded: Callable[[Scope], bool] = always_false,
        body_timeout: float | None = BODY_TIMEOUT,
    ) -> None:
        self.app, self.max_body, self.allowed_hosts = app, max_body, allowed_hosts
        self.admin_gate, self.guarded, self.body_timeout = admin_gate, guarded, body_timeout

    def refusal(self, scope: Scope, headers: dict[str, str]) -> Refusal | None:
        """Why a request is refused before it reaches a route, or None."""
        if self.allowed_hosts is not None and not host_allowed(headers.get("host"), self.allowed_hosts):
            return 421, f"this server does not answer to the host {headers.get('host', '')[:80]!r}", []
        if scope["type"] == "websocket" or str(scope.get("method", "GET")).upper() not in SAFE_METHODS:
            why = cross_site_reason(headers)
            if why is not None:
                return 403, why, []
        if scope["type"] == "websocket" or not self.guarded(scope):
            return None
        if self.admin_gate is not None:
            refused = self.admin_gate(scope)
            if refused is not None:
                return refused
        if str(scope.get("method", "GET")).upper() not in SAFE_METHODS and not is_json(
            headers.get("content-type")
        ):
            got = headers.get("content-type")
            return 415, f"expected Content-Type: application/json (got {got[:60] if got else 'none'!r})", []
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refused = self.refusal(scope, headers)
        if refused is not None:
            await refuse(scope, send, *refused)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        limit = self.max_body
        if limit is not None:
            length = headers.get("content-length")
            if length is not None and (not length.strip().isdigit() or int(length) > limit):
                why = "is not a number" if not length.strip().isdigit() else f"is over {limit} bytes"
                await refuse(scope, send, 413, f"Content-Length {length[:30]!r} {why}")
                return
        await self.app(scope, self._counted(receive, limit), _secured(send))

    def _counted(self, receive: Receive, limit: int | None) -> Receive:
        received, done = 0, False
        timeout = self.body_timeout

        async def counted() -> Message:
            nonlocal received, done
            if done or timeout is None:
                message = await receive()  # after the body: waits for the client to go away
            else:
                try:
                    message = await asyncio.wait_for(receive(), timeout)
                except TimeoutError:
                    raise BodyTooSlow(timeout) from None
            if message["type"] == "http.request":
                done = not message.get("more_body", False)
                received += len(message.get("body", b""))
                if limit is not None and received > limit:
                    raise BodyTooLarge(limit)
            return message

        return counted


def _secured(send: Send) -> Send:
    async def secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
        await send(message)

    return secured


async def refuse(scope: Scope, send: Send, status: int, message: str, headers: Headers | None = None) -> None:
    """Answer ``{"error": message}`` with ``status`` and close (a WebSocket: close code 1008)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *SECURITY_HEADERS,
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def retry_after(wait: float) -> Headers:
    return [(b"retry-after", str(int(wait) + 1).encode())]


def scope_client(scope: Scope) -> str:
    """The address of the connection (never a forwarded header: uvicorn trusts none unless configured)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def scope_header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k.lower() == name:
            return str(v.decode("latin-1"))
    return None


class TokenGate:
    """Who may use a server's guarded actions: the token (or a session) from anywhere, or with no
    token configured (or ``loopback_only``) only this machine.  Wrong tokens are limited per client
    (``GuessLimit``): a guesser waits, the right token from another client never does."""

    def __init__(
        self,
        token: str | None,
        *,
        loopback_only: bool = False,
        guesses: GuessLimit | None = None,
        sessions: Sessions | None = None,
        what: str = "admin",
    ) -> None:
        self.token, self.loopback_only = token, loopback_only
        self.guesses = guesses or GuessLimit()
        self.sessions, self.what = sessions, what

    def refusal(self, client: str, header_token: str | None, session: str | None = None) -> Refusal | None:
        """Why a guarded request is refused (status, message, headers), or None to let it in."""
        if self.token is None or self.loopback_only:
            if not is_loopback_host(client):
                why = f"no {self.what} token is configured" if self.token is None else "loopback-only"
                return 403, f"{self.what} actions are served only to this machine ({why})", []
            if self.token is None:
                return None
        if header_token is None and self.sessions is not None and self.sessions.valid(session):
            return None
        wait = self.guesses.retry_after(client)
        if wait > 0:
            return 429, f"too many wrong {self.what} tokens; try again in {wait:.0f} s", retry_after(wait)
        if header_token is not None and self.right(header_token):
            return None
        if header_token is not None:
            self.guesses.failed(client)
        how = "X-Admin-Token header or login" if self.sessions is not None else "X-Admin-Token header"
        return 401, f"{self.what} actions need the {self.what} token ({how})", []

    def right(self, given: str) -> bool:
        assert self.token is not None
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def scope_refusal(self, scope: Scope, session: str | None = None) -> Refusal | None:
        return self.refusal(scope_client(scope), scope_header(scope, b"x-admin-token"), session)
