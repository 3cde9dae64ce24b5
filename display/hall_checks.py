"""What the hall accepts from the broker: every message checked field by field before it is shown.

Anything a client of the broker sends is untrusted (a table's credentials may
leak, a table may be buggy).  A message either passes whole, rebuilt from the
checked fields only, or is refused whole with a reason naming the field; the
hall then keeps the table's last good picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from engine import GAMES

#: the die colours a table may give a player (the same set as controller.config.COLOURS)
COLOURS = frozenset({"red", "blue", "green", "purple", "yellow", "orange", "white", "black"})
STATUSES = frozenset({"playing", "paused", "over"})
MAX_PLAYERS = 8
MAX_NAME = 32
MAX_TEXT = 200
MAX_SCORE = 10**7


class BadMessage(ValueError):
    """A broker message the hall refuses; the message names the field and what was expected."""


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_NAME or not value.isprintable():
        raise BadMessage(f"{what}: expected a name of 1-{MAX_NAME} printable characters, got {value!r:.60}")
    return value


def _text(value: Any, what: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT or not value.isprintable():
        raise BadMessage(
            f"{what}: expected text of at most {MAX_TEXT} printable characters, got {value!r:.60}"
        )
    return value


def _int(value: Any, what: str, lo: int, hi: int, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadMessage(f"{what}: expected a whole number {lo}..{hi}, got {value!r:.60}")
    return value


def _score(value: Any, what: str) -> int | float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or abs(value) > MAX_SCORE:
        raise BadMessage(f"{what}: expected a number within ±{MAX_SCORE}, got {value!r:.60}")
    return int(value) if isinstance(value, int) else float(value)


def _time(value: Any, what: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise BadMessage(f"{what}: expected an ISO 8601 time, got {value!r:.60}")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise BadMessage(f"{what}: expected an ISO 8601 time, got {value!r:.60}") from None
    return value


def _table(payload: Mapping[str, Any], table_id: str) -> None:
    if payload.get("table") != table_id:
        got = payload.get("table")
        raise BadMessage(f"table: expected {table_id!r} (the id in the topic), got {got!r:.60}")


def _players(payload: Mapping[str, Any]) -> list[dict[str, str]]:
    players = payload.get("players")
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        raise BadMessage(f"players: expected a list of at most {MAX_PLAYERS}, got {players!r:.60}")
    out = []
    for i, p in enumerate(players):
        if not isinstance(p, Mapping):
            raise BadMessage(f"players[{i}]: expected {{name, colour}}, got {p!r:.60}")
        colour = p.get("colour")
        if colour not in COLOURS:
            raise BadMessage(f"players[{i}].colour: expected one of {sorted(COLOURS)}, got {colour!r:.60}")
        out.append({"name": _name(p.get("name"), f"players[{i}].name"), "colour": str(colour)})
    names = [p["name"] for p in out]
    if len(set(names)) != len(names):
        raise BadMessage(f"players: names must differ, got {names}")
    return out


def _scores_and_winners(payload: Mapping[str, Any], names: list[str]) -> tuple[dict[str, Any], list[str]]:
    scores = payload.get("scores")
    if not isinstance(scores, Mapping) or not set(scores) <= set(names):
        raise BadMessage(f"scores: expected player -> number for the players {names}, got {scores!r:.80}")
    winners = payload.get("winners", [])
    if not isinstance(winners, list) or not set(winners) <= set(names) or len(winners) > len(names):
        raise BadMessage(f"winners: expected a list of the players {names}, got {winners!r:.80}")
    return {k: _score(v, f"scores[{k!r}]") for k, v in scores.items()}, [str(w) for w in winners]


def _game(payload: Mapping[str, Any]) -> str | None:
    game = payload.get("game")
    if game is not None and game not in GAMES:
        raise BadMessage(f"game: expected one of {sorted(GAMES)}, got {game!r:.60}")
    return game


def check_summary(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A table's ``state`` message, rebuilt from its checked fields."""
    _table(payload, table_id)
    players = _players(payload)
    names = [p["name"] for p in players]
    scores, winners = _scores_and_winners(payload, names)
    status = payload.get("status")
    if status not in STATUSES:
        raise BadMessage(f"status: expected one of {sorted(STATUSES)}, got {status!r:.60}")
    current = payload.get("current_player")
    if current is not None and current not in names:
        raise BadMessage(f"current_player: expected one of the players {names} or null, got {current!r:.60}")
    return {
        "table": table_id,
        "game": _game(payload),
        "players": players,
        "scores": scores,
        "status": status,
        "waiting_for": _text(payload.get("waiting_for"), "waiting_for"),
        "current_player": current,
        "round": _int(payload.get("round"), "round", 0, 10_000, optional=True),
        "winners": winners,
        "seq": _int(payload.get("seq"), "seq", 0, 10**9, optional=True),
        "updated": _time(payload.get("updated"), "updated"),
    }


def check_status(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A table's ``status`` message: online or offline, and when."""
    _table(payload, table_id)
    status = payload.get("status")
    if status not in ("online", "offline"):
        raise BadMessage(f"status: expected 'online' or 'offline', got {status!r:.60}")
    return {"table": table_id, "status": status, "t": _time(payload.get("t"), "t")}


def check_result(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A table's ``result`` message: the final scores and winners of a finished game."""
    _table(payload, table_id)
    players = _players(payload)
    if len(players) < 1:
        raise BadMessage("players: a result needs its players, got none")
    names = [p["name"] for p in players]
    scores, winners = _scores_and_winners(payload, names)
    finished = _time(payload.get("finished"), "finished", optional=False)
    return {
        "table": table_id,
        "game": _game(payload),
        "players": players,
        "scores": scores,
        "winners": winners,
        "seq": _int(payload.get("seq"), "seq", 0, 10**9),
        "finished": finished,
    }
