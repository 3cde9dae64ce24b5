"""The table's web display: live page, camera view, admin corrections and the JSON API.

``create_app(backend, hub, admin_token, loopback_only_admin)`` builds the
FastAPI app.  Public pages and APIs are read-only.  Admin (the corrections
page and ``POST /api/admin/*``) needs the configured token, as an
``X-Admin-Token`` header or the session cookie the login form sets (a random
id, never the token); with no token configured it is served only to clients on
this machine (loopback), and with ``loopback_only_admin`` it is loopback-only
even with a token.  Wrong tokens are limited per client, never for the right
token from another client (:mod:`display.admin`).

Before any route runs, the guard every server shares (:mod:`display.guard`)
checks what needs no body: the Host header against ``allowed_hosts`` (DNS
rebinding), that a POST comes from the table's own pages (CSRF: Origin,
Sec-Fetch-Site, a JSON body), for admin the token or session (so an
unauthorised body is never read), and the size of the body (413, counted while
it is read, never read whole first: ``max_body``).  Every answer forbids
framing (``frame-ancestors 'none'``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import math
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

from display.admin import GuessLimit, Sessions
from display.backend import AlreadyAnswered, TableBackend
from display.boards import board_picture, shipped_board
from display.describe import describe_events
from display.guard import MAX_BODY, Guard, Refusal, Scope, TokenGate, retry_after, scope_client
from display.hub import Hub
from display.i18n import page, page_lang
from display.learn_page import add_learn_routes
from display.names import Lang, backend_names, game_title
from display.offers import offers
from display.roster_page import add_roster_routes
from display.stats_page import add_stats_routes

STATIC = Path(__file__).resolve().parent / "static"
ADMIN_COOKIE = "dicetable_admin"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
#: the highest event offset asked for (no table logs a billion events; SQLite's integers end at 2**63)
MAX_OFFSET = 10**9


# -- request models (the OpenAPI schema documents them) --------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConfirmReading(_Strict):
    """Confirm an unsure reading as the camera read it."""

    action: Literal["confirm"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3'")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )


class SetValue(_Strict):
    """Change the value of a die the camera read."""

    action: Literal["set_value"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3'")
    value: StrictInt = Field(description="the face the die really shows")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )
    symbol: StrictBool = Field(
        False, description="a d6 face that is not pips: its picture is named `value` (the roster keeps it)"
    )


class SetThrower(_Strict):
    """Say who threw a die the camera cannot attribute (Dice Fighter's off-field dice)."""

    action: Literal["set_thrower"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3.2'")
    thrower: str = Field(min_length=1, max_length=40, description="the player who threw it")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )


class SetColour(_Strict):
    """Change the colour of a die the camera read (in a game that tells players' dice by colour)."""

    action: Literal["set_colour"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3.2'")
    colour: str = Field(min_length=1, max_length=20, description="the die's real colour, e.g. 'blue'")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )


class SetSupport(_Strict):
    """Say what a die the camera cannot tell the support of rests on (issue 45): the board, or one of
    the dice its reading offers (``support_options``)."""

    action: Literal["set_support"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3.2'")
    on: str = Field(min_length=1, max_length=40, description="'board', or the id of the die it rests on")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )


class NotADie(_Strict):
    """Answer that a reading is no die (a phantom: paper, a shadow): it leaves the throw, and the rest
    is scored or asked about again; a ``confirm`` or ``set_value`` of it later puts it back."""

    action: Literal["not_a_die"]
    reading: str = Field(min_length=1, max_length=40, description="reading id, e.g. 'r3.6'")
    version: StrictInt | None = Field(
        None, ge=0, description="the reading's version the answer is about (the reading's `version`)"
    )


class Unlearn(_Strict):
    """Forget the crops an answer about reading ``reading`` taught the table (issue 29: the referee's
    answers about numbered dice join its learnt set; this takes them out again, logged)."""

    action: Literal["unlearn"]
    reading: str = Field(min_length=1, max_length=40, description="the reading whose answer taught a crop")


class Undo(_Strict):
    """Undo the last input given to the game."""

    action: Literal["undo"]


class GameStatus(_Strict):
    """Start (or resume), pause or end the game."""

    action: Literal["start", "pause", "end"]


class AdminInput(_Strict):
    """Give the game an input from the admin page (a card reveal, a player's choice)."""

    action: Literal["input"]
    input: dict[str, Any] = Field(description='engine input JSON: {"type": ..., "player": ..., ...}')


Command = Annotated[
    ConfirmReading
    | SetValue
    | SetColour
    | SetThrower
    | SetSupport
    | NotADie
    | Unlearn
    | Undo
    | GameStatus
    | AdminInput,
    Field(discriminator="action"),
]


class CorrectionRequest(_Strict):
    who: str = Field(min_length=1, max_length=40, pattern=r"\S", description="who makes the correction")
    command: Command


class Login(_Strict):
    token: str = Field(min_length=1, max_length=200)


class CorrectionReply(BaseModel):
    ok: bool
    message: str
    seq: int


class EventsPage(BaseModel):
    offset: int
    limit: int
    total: int
    events: list[dict[str, Any]]


# -- errors: one clear sentence naming the field ----------------------------------------


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body",)) or "body"
        if err.get("type") == "json_invalid":
            parts.append("body: not valid JSON")
            continue
        got = err.get("input")
        shown = "" if isinstance(got, dict | list) or got is None else f" (got {got!r})"
        parts.append(f"{loc}: {err.get('msg')}{shown}")
    return "; ".join(parts) or "malformed request"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _page(name: str, lang: Lang = "en") -> HTMLResponse:
    """A static page with its sentences in ``lang`` (display/i18n.py: its catalogue inlined)."""
    return HTMLResponse(page(name, lang))


# -- the app ------------------------------------------------------------------------------


def create_app(
    backend: TableBackend,
    hub: Hub,
    admin_token: str | None = None,
    loopback_only_admin: bool = False,
    board: Mapping[str, Any] | None = None,
    *,
    allowed_hosts: Collection[str] | None = None,
    max_body: int | None = MAX_BODY,
    guesses: GuessLimit | None = None,
    language: Lang = "en",
) -> FastAPI:
    """The web display of one table (see the module docstring for the admin rules).

    ``board`` is the table's parsed board layout (TOML), drawn under the dice;
    without it the game's shipped example board is drawn, if it has one.
    ``allowed_hosts``: the names this table answers to (``None``: any, for tests and embedding;
    ``dicetable run`` always gives them); ``max_body``: the largest body taken (``None``: no limit,
    for the before/after measurement only); ``guesses``: the limit on wrong tokens; ``language``:
    the pages' language when the URL names none (``?lang=en|ja`` overrides it; table.toml's
    ``[display] language``).
    """
    app = FastAPI(
        title=f"dicetable {backend.table_id}",
        version="1",
        description="Live table display, camera view and referee corrections.",
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"error": _describe_validation(exc), "detail": jsonable(exc.errors())}, status_code=422
        )

    # Starlette's class: FastAPI raises that one too (e.g. for a body that is not UTF-8)
    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(exc.status_code, str(exc.detail))
        return HTMLResponse(_denied_page(exc.status_code, str(exc.detail)), status_code=exc.status_code)

    sessions = Sessions()
    gate = TokenGate(admin_token, loopback_only=loopback_only_admin, guesses=guesses, sessions=sessions)
    limit = gate.guesses

    def admin_refusal(client: str, header_token: str | None, session: str | None) -> Refusal | None:
        """Why an admin request is refused (status, message, headers), or None to let it in."""
        return gate.refusal(client, header_token, session)

    def admin_gate(scope: Scope) -> Refusal | None:
        if scope.get("path") == "/api/admin/login":  # its own checks, on a tiny body
            wait = limit.retry_after(scope_client(scope)) if admin_token is not None else 0
            if wait > 0:
                return 429, f"too many wrong admin tokens; try again in {wait:.0f} s", retry_after(wait)
            return None
        request = Request(scope)
        return admin_refusal(
            scope_client(scope), request.headers.get("x-admin-token"), request.cookies.get(ADMIN_COOKIE)
        )

    def admin_check(request: Request) -> None:
        refused = admin_refusal(
            request.client.host if request.client else "",
            request.headers.get("x-admin-token"),
            request.cookies.get(ADMIN_COOKIE),
        )
        if refused is not None:
            status, message, headers = refused
            raise HTTPException(status, message, headers={k.decode(): v.decode() for k, v in headers})

    # -- pages
    def lang_of(request: Request) -> Lang:
        return page_lang(request.query_params.get("lang"), language)

    def lang_param(lang: Lang | None) -> Lang:
        return language if lang is None else lang

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def table_page(request: Request) -> HTMLResponse:
        return _page("table.html", lang_of(request))

    @app.get("/tv", response_class=HTMLResponse, include_in_schema=False)
    def tv_page(request: Request) -> HTMLResponse:
        """The table page laid out for a TV across the room (also ``/?tv=1``): table.js reads the URL."""
        return _page("table.html", lang_of(request))

    @app.get("/camera", response_class=HTMLResponse, include_in_schema=False)
    def camera_page(request: Request) -> HTMLResponse:
        return _page("camera.html", lang_of(request))

    @app.get("/admin", response_class=HTMLResponse, include_in_schema=False)
    def admin_page(request: Request) -> HTMLResponse:
        try:
            admin_check(request)
        except HTTPException as e:
            if e.status_code == 401:
                return HTMLResponse(_page("login.html", lang_of(request)).body, status_code=401)
            raise
        return _page("admin.html", lang_of(request))

    teach = getattr(backend, "teach", None)
    if callable(teach):  # teaching the table a die of its own: /learn and /api/admin/learn
        add_learn_routes(app, teach, admin_check, language)
    roster_step = getattr(backend, "roster_step", None)
    if callable(roster_step):  # the table's roster of its dice, on the admin page (display.roster_page)
        add_roster_routes(app, roster_step, admin_check)

    fairness = getattr(backend, "fairness", None)
    if callable(fairness):  # dice fairness from the table's log: /stats and /api/stats
        add_stats_routes(app, fairness)

    # -- read-only API
    @app.get("/api/state", summary="The table's snapshot: game state, scores, status, what it waits for")
    def api_state() -> dict[str, Any]:
        return backend.snapshot()

    @app.get("/api/events", summary="The event log, paged", response_model=EventsPage)
    def api_events(
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="first event (0-based)")] = 0,
        limit: Annotated[int, Query(ge=1, le=500, description="how many events")] = 100,
        lang: Annotated[
            Lang | None, Query(description="the language of the texts: en or ja (default: the table's)")
        ] = None,
    ) -> EventsPage:
        snap = backend.snapshot()
        lang = lang_param(lang)
        names = backend_names(backend, lang)
        events = describe_events(backend.events(offset, limit), snap.get("game"), names, lang)  # with "text"
        return EventsPage(offset=offset, limit=limit, total=int(snap.get("seq", 0)), events=events)

    @app.get("/api/names", summary="The game's title and its cards' and tiles' names by id, in one language")
    def api_names(
        lang: Annotated[Lang | None, Query(description="en (English) or ja (Japanese)")] = None,
    ) -> dict[str, Any]:
        lang = lang_param(lang)
        game = str(backend.snapshot().get("game"))
        return {
            "lang": lang,
            "game": game,
            "title": game_title(game, lang),
            "names": backend_names(backend, lang),
        }

    @app.get("/api/board", summary="The board drawn under the dice: outline, zones, centre line (mm)")
    def api_board() -> dict[str, Any]:
        if board is not None:
            return board_picture(board)
        picture = shipped_board(str(backend.snapshot().get("game")))
        return picture or {"name": None, "outline": None, "zones": [], "centre_line": None}

    @app.get("/api/readings", summary="The latest settled frame's dice readings")
    def api_readings() -> dict[str, Any]:
        return backend.readings()

    @app.get(
        "/api/frame.jpg",
        summary="The latest settled frame (JPEG)",
        responses={200: {"content": {"image/jpeg": {}}}, 404: {"description": "no frame yet"}},
    )
    def api_frame() -> Response:
        jpeg = backend.frame_jpeg()
        if jpeg is None:
            return _error(404, "no settled frame yet")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    board_png = getattr(backend, "board_png", None)
    if callable(board_png):  # the board picture (controller.board_picture): on the camera page

        @app.get(
            "/api/board.png",
            summary="The latest settled frame with each die's zones, support and score drawn on it (PNG)",
            responses={200: {"content": {"image/png": {}}}, 404: {"description": "no frame yet"}},
        )
        def api_board_png() -> Response:
            png = board_png()
            if png is None:
                return _error(404, "no settled frame yet")
            return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    # -- admin API
    @app.post(
        "/api/admin/correct",
        response_model=CorrectionReply,
        dependencies=[Depends(admin_check)],
        summary=(
            "A referee correction: confirm/set a reading, unlearn what an answer taught, undo, "
            "start/pause/end, or an input"
        ),
    )
    def api_correct(body: CorrectionRequest) -> Any:
        try:
            command = body.command.model_dump()
            if command.get("version", 0) is None:
                del command["version"]  # no version named: taken only by a reading no one has answered
            reply = backend.correct(command, body.who.strip())
        except AlreadyAnswered as e:  # answered meanwhile by someone else: nothing changed
            return _error(409, str(e))
        except ValueError as e:
            return _error(400, str(e))
        except OSError as e:  # the table could not log it (a full disk): nothing was changed
            return _error(503, str(e))
        return reply

    @app.get("/api/admin/offers", summary="What the referee may enter now, from the engine's choices (admin)")
    def api_offers(
        lang: Annotated[Lang | None, Query(description="en (English) or ja (Japanese)")] = None,
    ) -> dict[str, Any]:
        return offers(backend, lang_param(lang))

    @app.post("/api/admin/login", summary="Check the admin token and start an admin session (cookie)")
    def api_login(body: Login, request: Request) -> Response:
        client = request.client.host if request.client else ""
        if admin_token is None or loopback_only_admin:
            refused = admin_refusal(client, None, None)
            if refused is not None and refused[0] == 403:
                return _error(403, refused[1])
            if admin_token is None:
                return JSONResponse({"ok": True})  # loopback: nothing to log into
        assert admin_token is not None
        wait = limit.retry_after(client)
        if wait > 0:
            resp = _error(429, f"too many wrong admin tokens; try again in {wait:.0f} s")
            resp.headers["Retry-After"] = str(int(wait) + 1)
            return resp
        if not hmac.compare_digest(body.token.encode("utf-8", "replace"), admin_token.encode()):
            limit.failed(client)
            return _error(401, "wrong admin token")
        resp = JSONResponse({"ok": True})
        sid, ttl = sessions.new(), int(sessions.ttl)
        resp.set_cookie(ADMIN_COOKIE, sid, max_age=ttl, httponly=True, samesite="strict", path="/")
        return resp

    # -- live push
    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        sub = hub.subscribe()
        try:
            first = await asyncio.to_thread(backend.snapshot)
            await websocket.send_text(json.dumps({"type": "snapshot", "snapshot": first}))
            await _pump(websocket, sub)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.unsubscribe(sub)

    app.add_middleware(
        Guard,
        max_body=max_body,
        allowed_hosts=allowed_hosts,
        admin_gate=admin_gate,
        guarded=lambda scope: str(scope.get("path", "")).startswith("/api/admin/"),
    )
    return app


async def watch_close(websocket: WebSocket, sub: Any) -> None:
    """Wait for a page to go away (pages send nothing), then mark its subscription closed and wake
    its sender with a final offer: run beside a sender, so that no task is created per message."""
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
    finally:
        sub.closed = True
        sub.offer("")


async def _pump(websocket: WebSocket, sub: Any) -> None:
    """Send every new snapshot until the page goes away (watch_close)."""
    closer = asyncio.create_task(watch_close(websocket, sub))
    try:
        while True:
            text = await sub.next()
            if sub.closed:
                return
            await websocket.send_text(text)
    finally:
        closer.cancel()


def jsonable(errors: Any) -> Any:
    """Pydantic error dicts may hold exceptions in 'ctx' and the input as sent (``Infinity`` and
    ``NaN`` are JSON to Python's parser, not to a JSON answer); keep them JSON-safe."""

    def safe(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        if isinstance(v, dict):
            return {str(k): safe(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [safe(x) for x in v]
        return v

    return json.loads(json.dumps(safe(errors), default=str))


def _denied_page(status: int, message: str) -> str:
    from html import escape

    return (
        f"<!doctype html><meta charset=utf-8><title>{status}</title>"
        f"<link rel=stylesheet href=/static/style.css><main class=denied><h1>{status}</h1>"
        f"<p>{escape(message)}</p><p><a href=/>Back to the table</a></p></main>"
    )
