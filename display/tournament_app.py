"""The tournament page in the hall: the round, who plays where, live table states, standings, export.

The display does not know how a tournament pairs or keeps its state: it talks
to a ``TournamentBackend`` (``controller.tournament.Tournament`` is the one
implementation) and to the ``Hall`` for the tables' live summaries.  Reading is
public; starting a round and confirming a result are the organiser's, allowed
with the ``X-Admin-Token`` header or, with no token configured, from this machine.
The guard every server shares (:mod:`display.guard`) checks the Host, that an
organiser's POST comes from this page (CSRF), the token (wrong ones limited per
client) and the body's size before a route runs or a body is read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection
from typing import Any, Protocol

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from display.admin import GuessLimit
from display.app import STATIC, _page, _pump
from display.guard import MAX_BODY, Guard, Scope, TokenGate
from display.hub import Hub
from display.i18n import page_lang
from display.mqtt import Hall
from display.pairings import publish_pairings


class TournamentBackend(Protocol):
    def state(self) -> dict[str, Any]: ...
    def start_next_round(self) -> list[dict[str, Any]]: ...
    def confirm(self, table_id: str, who: str) -> dict[str, Any]: ...
    def enter_result(
        self,
        table_id: str,
        round_no: int,
        scores: dict[str, Any],
        winners: list[str] | None = None,
        who: str = "organiser",
        override: bool = False,
        reason: str | None = None,
    ) -> dict[str, Any]: ...
    def result_log(self) -> list[dict[str, Any]]: ...
    def take_result(self, table_id: str, result: dict[str, Any]) -> bool: ...
    def export_json(self) -> dict[str, Any]: ...
    def export_csv(self) -> str: ...
    def export_standings_csv(self) -> str: ...


class Confirm(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: str = Field(min_length=1, max_length=64)
    who: str = Field("organiser", min_length=1, max_length=40)


class ResultIn(BaseModel):
    """An organiser's result for a match; the tournament checks the players, scores and round."""

    model_config = ConfigDict(extra="forbid")
    table: str = Field(min_length=1, max_length=64)
    round: int
    scores: dict[str, Any]  # checked by the tournament (whole numbers 0..MAX_SCORE, its players)
    winners: list[str] | None = None
    who: str = Field(min_length=1, max_length=40)
    override: bool = False
    reason: str | None = Field(None, max_length=200)


class TournamentView:
    """The page's picture: the tournament's state with each of this round's tables as the hall sees it."""

    def __init__(self, backend: TournamentBackend, hall: Hall, hub: Hub) -> None:
        self.backend, self.hall, self.hub = backend, hall, hub

    def view(self) -> dict[str, Any]:
        st = self.backend.state()
        tables = {t["table"]: t for t in self.hall.snapshot()["tables"]}
        hall = self.hall.snapshot()
        for m in st["matches"]:
            t = tables.get(m["table"] or "")
            m["live"] = None if t is None else {"online": t["online"], "summary": t["summary"]}
        return {**st, "broker": hall["broker"], "connected": hall["connected"]}

    def publish_pairings(self) -> int:
        """Push this round's pairing to each of its tables (retained; display/pairings.py)."""
        return publish_pairings(self.hall.client, self.backend.state(), self.hall.prefix)

    def changed(self, *_: Any) -> None:
        self.hub.notify(self.view())

    def on_result(self, table_id: str, result: dict[str, Any]) -> None:
        """The hall's result listener: hand the result to the tournament, then show the change
        (a result taken, or one refused: the page lists those with why)."""
        self.backend.take_result(table_id, result)
        self.changed()


def create_tournament_app(
    view: TournamentView,
    admin_token: str | None = None,
    *,
    allowed_hosts: Collection[str] | None = None,
    max_body: int | None = MAX_BODY,
    guesses: GuessLimit | None = None,
) -> FastAPI:
    """The tournament page; ``allowed_hosts``: the names it answers to (``None``: any, for tests)."""
    app = FastAPI(title="dicetable tournament", version="1", description="Rounds, pairings and standings.")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    backend = view.backend
    gate = TokenGate(admin_token, guesses=guesses, what="organiser")

    def organiser_action(scope: Scope) -> bool:
        """Every request that changes the tournament is the organiser's (the guard checks the token)."""
        return str(scope.get("method", "GET")).upper() not in ("GET", "HEAD", "OPTIONS")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(lang: str | None = None) -> HTMLResponse:
        return _page("tournament.html", page_lang(lang, "en"))

    @app.get("/api/tournament", summary="The round, its matches with live table states, the standings")
    def api_state() -> dict[str, Any]:
        return view.view()

    @app.get("/api/export.json", summary="Standings, round history, winner and every match")
    def export_json() -> JSONResponse:
        return JSONResponse(
            backend.export_json(), headers={"Content-Disposition": "attachment; filename=results.json"}
        )

    @app.get("/api/export.csv", summary="One row per player and match")
    def export_csv() -> Response:
        return Response(
            backend.export_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": "attachment; filename=results.csv"},
        )

    @app.get("/api/standings.csv", summary="One row per player: rank, points, record, tie-breaks")
    def standings_csv() -> Response:
        return Response(
            backend.export_standings_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": "attachment; filename=standings.csv"},
        )

    @app.post("/api/next-round", summary="Pair the next round (organiser)")
    def next_round() -> dict[str, Any]:
        try:
            matches = backend.start_next_round()
        except ValueError as e:
            raise HTTPException(409, str(e)) from None
        view.publish_pairings()
        view.changed()
        return {"matches": matches}

    @app.post("/api/confirm", summary="Confirm the result a table reported (organiser)")
    def confirm(body: Confirm) -> dict[str, Any]:
        try:
            match = backend.confirm(body.table, body.who)
        except ValueError as e:
            raise HTTPException(409, str(e)) from None
        view.changed()
        return match

    @app.post("/api/result", summary="Enter or correct a match's result (organiser; logged)")
    def enter_result(body: ResultIn) -> dict[str, Any]:
        try:
            match = backend.enter_result(
                body.table, body.round, dict(body.scores), body.winners, body.who, body.override, body.reason
            )
        except ValueError as e:
            raise HTTPException(409, str(e)) from None
        view.changed()
        return match

    @app.get("/api/result-log", summary="Every change of a result: who, when, before, after, why")
    def result_log() -> list[dict[str, Any]]:
        return backend.result_log()

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err["loc"] if x != "body") or "body"
            parts.append(f"{where}: {err['msg']}")
        return JSONResponse({"error": "; ".join(parts)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        sub = view.hub.subscribe()
        try:
            first = await asyncio.to_thread(view.view)
            await websocket.send_text(json.dumps({"type": "snapshot", "snapshot": first}))
            await _pump(websocket, sub)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            view.hub.unsubscribe(sub)

    app.add_middleware(
        Guard,
        allowed_hosts=allowed_hosts,
        max_body=max_body,
        admin_gate=gate.scope_refusal,
        guarded=organiser_action,
    )
    return app
