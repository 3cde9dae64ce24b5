"""The table's roster of its dice on the admin page (issue 44 item 1): ``/api/admin/roster``.

The table keeps the roster (its backend's ``roster_step(command, who)``: ``controller.roster`` behind
``Table.roster_step``); the display checks each step's shape and passes it on.  The admin page lists
the entries (kind, owner, colour, size, notes, the faces taught) and edits them: rename the owner or
colour, set the size or the notes, remove a die.  Admin only (the guard's token or session).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

RosterStep = Callable[[dict[str, Any], str], dict[str, Any]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RosterEdit(_Strict):
    """A die's entry changed: any of its owner, colour, size (mm, null: not known) and notes."""

    action: Literal["edit"]
    id: str = Field(min_length=1, max_length=80)
    # (their lengths and ranges are the table's to check: its refusal names the field and the limit)
    owner: str | None = Field(None, max_length=400)
    colour: str | None = Field(None, max_length=400)
    size_mm: StrictFloat | StrictInt | None = None
    appearance: str | None = Field(None, max_length=2000)


class RosterRemove(_Strict):
    """A die no longer in play: its entry removed."""

    action: Literal["remove"]
    id: str = Field(min_length=1, max_length=80)


class RosterForgetSymbol(_Strict):
    """A die's symbol faces named for a value forgotten (issue 46 item 3: the referee's naming undone)."""

    action: Literal["forget_symbol"]
    id: str = Field(min_length=1, max_length=80)
    value: StrictInt


RosterCommand = Annotated[RosterEdit | RosterRemove | RosterForgetSymbol, Field(discriminator="action")]


class RosterRequest(_Strict):
    who: str = Field(min_length=1, max_length=40, pattern=r"\S", description="who takes the step")
    command: RosterCommand


def add_roster_routes(app: FastAPI, step: RosterStep, admin_check: Callable[[Request], None]) -> None:
    """``GET /api/admin/roster`` (the entries) and ``POST /api/admin/roster`` (an edit or a removal);
    ``admin_check``: the app's admin dependency."""

    @app.get(
        "/api/admin/roster",
        dependencies=[Depends(admin_check)],
        summary="The table's roster of its dice: one entry a die, with its learnt faces (admin)",
    )
    def api_roster() -> dict[str, Any]:
        return step({"action": "list"}, "")

    @app.post(
        "/api/admin/roster",
        dependencies=[Depends(admin_check)],
        summary="Edit a die of the roster (owner, colour, size, notes) or remove it (admin)",
    )
    def api_roster_step(body: RosterRequest) -> Any:
        command = body.command.model_dump(exclude_unset=True)
        command["action"] = body.command.action
        try:
            return step(command, body.who.strip())
        except ValueError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        except OSError as e:  # the table could not log or write it: nothing was changed
            return JSONResponse({"error": str(e)}, status_code=503)
