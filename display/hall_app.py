"""The tournament hall page: every table's game, scores and status, live from MQTT."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from display.app import STATIC, _page, _pump
from display.hub import Hub
from display.mqtt import Hall


def create_hall_app(hall: Hall, hub: Hub) -> FastAPI:
    """Read-only: the hall page, ``/api/tables`` and the ``/ws`` push of the same."""
    app = FastAPI(
        title="dicetable hall",
        version="1",
        description="Every table of the tournament hall, from the MQTT broker.",
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def hall_page() -> HTMLResponse:
        return _page("hall.html")

    @app.get("/api/tables", summary="Every table the hall has heard of, and whether the broker is up")
    def api_tables() -> dict[str, Any]:
        return hall.snapshot()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        sub = hub.subscribe()
        try:
            first = await asyncio.to_thread(hall.snapshot)
            await websocket.send_text(json.dumps({"type": "snapshot", "snapshot": first}))
            await _pump(websocket, sub)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.unsubscribe(sub)

    return app
