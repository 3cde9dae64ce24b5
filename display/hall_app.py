"""The tournament hall page: every table's game, scores and status, live from MQTT."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Collection
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from display.app import STATIC, watch_close
from display.guard import Guard
from display.hub import Hub, Subscription
from display.i18n import page, page_lang
from display.mqtt import Hall
from display.names import game_title
from engine import GAMES


def wake_hub(hub: Hub) -> Callable[[int], None]:
    """The hall's ``on_update``: a tiny wake-up for every page's sender, nothing serialised per page."""
    return lambda version: hub.notify({"v": version})


def create_hall_app(hall: Hall, hub: Hub, *, allowed_hosts: Collection[str] | None = None) -> FastAPI:
    """Read-only: the hall page, ``/api/tables`` and the ``/ws`` push of the same, behind the guard
    every server shares (``display.guard``; ``allowed_hosts``: the names it answers to, ``None``: any).

    The hall must wake the hub on each change: ``Hall(on_update=lambda v: hub.notify({"v": v}))``
    (``wake_hub`` below).  The pushes are ``{"type": "hall", ...hall.changes(since)}``.
    """
    app = FastAPI(
        title="dicetable hall",
        version="1",
        description="Every table of the tournament hall, from the MQTT broker.",
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def hall_page(lang: str | None = None) -> HTMLResponse:
        lang_ = page_lang(lang, "en")
        html = page("hall.html", lang_)  # and the games' titles in its language (hall.js HALL_TITLES)
        titles = json.dumps({g: game_title(g, lang_) for g in GAMES}, ensure_ascii=False).replace(
            "<", "\\u003c"
        )
        return HTMLResponse(
            html.replace(
                '<script type="application/json" id="game-titles">{}</script>',
                f'<script type="application/json" id="game-titles">{titles}</script>',
                1,
            )
        )

    @app.get("/api/tables", summary="Every table the hall has heard of, and whether the broker is up")
    def api_tables() -> dict[str, Any]:
        return hall.snapshot()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        sub = hub.subscribe()
        try:
            await follow(websocket, sub, hall)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.unsubscribe(sub)

    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    return app


async def follow(websocket: WebSocket, sub: Subscription, hall: Hall) -> None:
    """Send the page the whole hall, then only what changed, until it goes away.

    The hub only wakes this sender (the hall's ``on_update``); what to send comes
    from ``hall.changes(version the page has)``, so a page that is slow to read gets
    everything that changed meanwhile in one message, and nothing queues up.
    """
    closer = asyncio.create_task(watch_close(websocket, sub))
    since = 0
    try:
        while not sub.closed:
            change = hall.changes(since)  # a lock and a scan of at most max_tables entries: no thread hop
            if change["version"] != since or change["full"]:
                change["sent"] = round(time.time(), 4)  # the hall's clock as it hands the push over
                await websocket.send_text(json.dumps({"type": "hall", **change}, separators=(",", ":")))
                since = change["version"]
            await sub.next()
    finally:
        closer.cancel()
