"""The dice fairness page (``/stats``) and its API (``/api/stats``), on any FastAPI app.

The numbers come from a callable that returns one verdict per die (as
``controller.fairness`` makes them); the display does not compute them. The
table's display adds these routes when its backend has a ``fairness()``
method; ``dicetable stats LOG... --serve`` serves them for a whole hall's logs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from display.guard import Guard
from display.i18n import page, page_lang

STATIC = Path(__file__).resolve().parent / "static"
Report = Callable[[], list[dict[str, Any]]]


def add_stats_routes(app: FastAPI, report: Report) -> None:
    """``GET /stats`` (the page: per die a bar plot with 95 % whiskers) and ``GET /api/stats``."""

    @app.get("/stats", response_class=HTMLResponse, include_in_schema=False)
    def stats_page(lang: str | None = None) -> HTMLResponse:
        return HTMLResponse(page("stats.html", page_lang(lang, "en")))

    @app.get("/api/stats", summary="Dice fairness: per die the face counts, 95 % intervals, χ² test, flag")
    def api_stats() -> dict[str, Any]:
        return {"dice": report()}


def create_stats_app(
    report: Report, title: str = "dice fairness", *, allowed_hosts: Collection[str] | None = None
) -> FastAPI:
    """A stand-alone app with only the fairness page (for a hall's logs), behind the guard every
    server shares (``display.guard``; ``allowed_hosts``: the names it answers to, ``None``: any)."""
    app = FastAPI(title=f"dicetable {title}", version="1")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    add_stats_routes(app, report)

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse('<meta http-equiv="refresh" content="0; url=/stats">')

    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    return app
