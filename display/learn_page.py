"""Teaching the table a die of its own (issue 29 item 4): the page ``/learn`` and its admin API.

The owner names a die ("ann's red d20"), rolls it again and again in view of the camera, and
confirms or corrects the face proposed for each roll's crop (proposed only from evidence about that
crop, its candidates shown side by side; each answer names the roll it was shown with, and one for a
roll no longer shown is refused with 409); the page shows which faces are still
missing and when the set is complete, then saves it.  The table does the work (its backend's
``teach(command, who)``: ``controller.teach`` behind ``Table.teach``); the display only checks the
shape of each step and passes it on.  The page is public (like the table page's tap-to-fix); its API
is admin, under ``/api/admin/`` (the guard's token or session, before any body is read).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from display.i18n import page, page_lang
from display.names import Lang

STATIC = Path(__file__).resolve().parent / "static"
Teach = Callable[[dict[str, Any], str], dict[str, Any]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TeachStart(_Strict):
    """Start teaching a die: whose, its colour and its kind (one of the game's numbered kinds)."""

    action: Literal["start"]
    owner: str = Field(min_length=1, max_length=40, description="whose die, e.g. 'ann'")
    colour: str = Field(min_length=1, max_length=20, description="its colour, e.g. 'red'")
    kind: str = Field(min_length=1, max_length=8, description="d10, d10p or d20 (the game's)")
    replace: StrictBool = Field(False, description="replace a stored set of another kind")


class TeachAnswer(_Strict):
    """The face a roll's die shows (the one proposed, or the right one)."""

    action: Literal["answer"]
    roll: StrictInt = Field(description="the number of the roll whose picture was shown")
    session: StrictInt | None = Field(None, description="the session the roll is of (the page sends it)")
    face: StrictInt = Field(description="the face the die shows")


class TeachSkip(_Strict):
    """A roll whose crop is not the die being taught: left out."""

    action: Literal["skip"]
    roll: StrictInt
    session: StrictInt | None = None


class TeachEnd(_Strict):
    """Save the set (once complete) where the table keeps it, or stop without saving."""

    action: Literal["save", "cancel"]


TeachCommand = Annotated[TeachStart | TeachAnswer | TeachSkip | TeachEnd, Field(discriminator="action")]


class TeachRequest(_Strict):
    who: str = Field(min_length=1, max_length=40, pattern=r"\S", description="who takes the step")
    command: TeachCommand


def add_learn_routes(
    app: FastAPI, teach: Teach, admin_check: Callable[[Request], None], language: Lang = "en"
) -> None:
    """``GET /learn`` (the page), ``GET /api/admin/learn`` (the session) and ``POST /api/admin/learn``
    (a step); ``admin_check``: the app's admin dependency; ``language``: the page's language when
    the URL names none (``?lang=`` overrides it).  The table says each sentence in English and names
    it by its catalogue key beside it (``*_key``, ``error_key``: ``controller.teach.Said``): the page
    says it in its own language from ``display/lang/<lang>.json``'s ``learn.*``."""

    @app.get("/learn", response_class=HTMLResponse, include_in_schema=False)
    def learn_page(lang: str | None = None) -> HTMLResponse:
        return HTMLResponse(page("learn.html", page_lang(lang, language)))

    @app.get(
        "/api/admin/learn",
        dependencies=[Depends(admin_check)],
        summary="The die being taught: its rolls, the faces still missing, whether it is complete (admin)",
    )
    def api_learn() -> dict[str, Any]:
        return teach({"action": "status"}, "")

    @app.post(
        "/api/admin/learn",
        dependencies=[Depends(admin_check)],
        summary="A step of teaching the table a die: start, answer or skip a roll, save, cancel (admin)",
    )
    def api_learn_step(body: TeachRequest) -> Any:
        try:
            return teach(body.command.model_dump(), body.who.strip())
        except ValueError as e:  # 409: the roll answered is no longer the one shown (nothing taught)
            status = getattr(e, "status", 400)
            return JSONResponse({"error": str(e), "error_key": getattr(e, "said", None)}, status_code=status)
        except OSError as e:  # the table could not log or save it: nothing was changed
            return JSONResponse({"error": str(e)}, status_code=503)
