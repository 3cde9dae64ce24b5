"""What the hall accepts from the broker: every message checked field by field before it is shown.

Anything a client of the broker sends is untrusted (a table's credentials may
leak, a table may be buggy).  A message either passes whole, rebuilt from the
checked fields only, or is refused whole with a reason naming the field; the
hall then keeps the table's last good picture.

Every check takes any JSON value without raising anything but ``BadMessage``:
a list where a name belongs, a number of 400 digits, an array nested thousands
deep (``parse`` refuses nesting before ``json`` recurses into it).  A check that
raised anything else would end the MQTT client's network thread, and with it the
hall, at every restart while the message stays retained.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from typing import Any

from engine import GAMES

#: the die colours a table may give a player (the same set as controller.config.COLOURS)
COLOURS = frozenset({"red", "blue", "green", "purple", "yellow", "orange", "white", "black"})
STATUSES = frozenset({"playing", "paused", "over"})
MAX_PLAYERS = 8
MAX_NAME = 32
MAX_TEXT = 200
MAX_SCORE = 10**7


#: the deepest nesting of arrays and objects a message may have (a summary needs 3)
MAX_DEPTH = 8


class BadMessage(ValueError):
    """A broker message the hall refuses; the message names the field and what was expected."""


def parse(payload: bytes | bytearray, max_bytes: int) -> dict[str, Any]:
    """A message's JSON object, or BadMessage saying why not (never another error)."""
    if len(payload) > max_bytes:
        raise BadMessage(f"expected at most {max_bytes} bytes, got {len(payload)}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as e:
        why = f"{e.reason} at byte {e.start}"
        raise BadMessage(f"expected UTF-8 JSON, got bytes that are not UTF-8 ({why})") from None
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise BadMessage(f"expected JSON nested at most {MAX_DEPTH} deep, got {depth}")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:  # ValueError: bad JSON, or an integer of > 4300 digits
        raise BadMessage(f"expected a JSON object, got text that is not JSON ({str(e)[:80]})") from None
    if not isinstance(value, dict):
        raise BadMessage(f"expected a JSON object, got {type(value).__name__}")
    return value


def _depth(text: str) -> int:
    """How deep arrays and objects nest in JSON text (brackets inside strings do not count)."""
    brackets = text.count("[") + text.count("{")
    if brackets <= MAX_DEPTH:
        return brackets  # at most that deep: no need to look closer
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def _one_of(value: Any, allowed: Collection[str], what: str) -> str:
    """``value`` if it is one of the ``allowed`` strings (a list or a dict is not: no TypeError)."""
    if not isinstance(value, str) or value not in allowed:
        raise BadMessage(f"{what}: expected one of {sorted(allowed)}, got {value!r:.60}")
    return value


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
    # the range first: math.isfinite(10**400) raises OverflowError
    if not ok or not -MAX_SCORE <= value <= MAX_SCORE or not math.isfinite(value):
        raise BadMessage(f"{what}: expected a number within ±{MAX_SCORE}, got {value!r:.60}")
    return int(value) if isinstance(value, int) else float(value)


def _time(value: Any, what: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    expected = f"{what}: expected an ISO 8601 time with its UTC offset, in the years 2000-2999"
    if not isinstance(value, str) or len(value) > 40:
        raise BadMessage(f"{expected}, got {value!r:.60}")
    try:
        when = datetime.fromisoformat(value)
        utc = when.astimezone(UTC) if when.tzinfo is not None else None  # year 1 at +14:00 overflows
    except (ValueError, OverflowError, OSError):
        utc = None
    if utc is None or not 2000 <= utc.year <= 2999:
        raise BadMessage(f"{expected}, got {value!r:.60}")
    return value


def _table(payload: Mapping[str, Any], table_id: str) -> None:
    if not isinstance(payload.get("table"), str) or payload.get("table") != table_id:
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
        colour = _one_of(p.get("colour"), COLOURS, f"players[{i}].colour")
        out.append({"name": _name(p.get("name"), f"players[{i}].name"), "colour": colour})
    names = [p["name"] for p in out]
    if len(set(names)) != len(names):
        raise BadMessage(f"players: names must differ, got {names}")
    return out


def _scores_and_winners(payload: Mapping[str, Any], names: list[str]) -> tuple[dict[str, Any], list[str]]:
    scores = payload.get("scores")
    if not isinstance(scores, Mapping) or not set(scores) <= set(names):
        raise BadMessage(f"scores: expected player -> number for the players {names}, got {scores!r:.80}")
    winners = payload.get("winners", [])
    if (
        not isinstance(winners, list)
        or not all(isinstance(w, str) and w in names for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise BadMessage(f"winners: expected a list of the players {names}, each once, got {winners!r:.80}")
    return {k: _score(v, f"scores[{k!r}]") for k, v in scores.items()}, list(winners)


def _game(payload: Mapping[str, Any]) -> str | None:
    game = payload.get("game")
    return None if game is None else _one_of(game, GAMES, "game")


#: what a table may say it waits for (the engine's input kinds, and a question to a person)
WAIT_KINDS = ("roll", "throw", "secret", "reveal", "choice", "start", "question")


def _waits(value: Any, names: list[str]) -> dict[str, Any] | None:
    if value is None:
        return None
    kind = value.get("kind") if isinstance(value, Mapping) else None
    players = value.get("players") if isinstance(value, Mapping) else None
    if (
        not isinstance(value, Mapping)
        or (kind is not None and kind not in WAIT_KINDS)
        or not isinstance(players, list)
        or not all(isinstance(p, str) and p in names for p in players)
    ):
        raise BadMessage(
            f"waits: expected {{kind: one of {', '.join(WAIT_KINDS)} or null, players: some of {names}}}, "
            f"got {value!r:.80}"
        )
    return {"kind": kind, "players": list(players)}


def check_summary(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A table's ``state`` message, rebuilt from its checked fields."""
    _table(payload, table_id)
    players = _players(payload)
    names = [p["name"] for p in players]
    scores, winners = _scores_and_winners(payload, names)
    status = _one_of(payload.get("status"), STATUSES, "status")
    current = payload.get("current_player")
    if current is not None and not (isinstance(current, str) and current in names):
        raise BadMessage(f"current_player: expected one of the players {names} or null, got {current!r:.60}")
    waits = _waits(payload.get("waits"), names)
    return {
        "table": table_id,
        "game": _game(payload),
        "players": players,
        "scores": scores,
        "status": status,
        "waiting_for": _text(payload.get("waiting_for"), "waiting_for"),
        **({} if waits is None else {"waits": waits}),  # a table before issue 48 sends none
        "current_player": current,
        "round": _int(payload.get("round"), "round", 0, 10_000, optional=True),
        "winners": winners,
        "seq": _int(payload.get("seq"), "seq", 0, 10**9, optional=True),
        "updated": _time(payload.get("updated"), "updated"),
    }


def check_status(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A table's ``status`` message: online or offline, and when."""
    _table(payload, table_id)
    status = _one_of(payload.get("status"), ("online", "offline"), "status")
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


def check_pairing(table_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A tournament's ``pairing`` message for one table: the round, its game and the seated players.

    Seats are 1.. in order, each player once with a colour of the fixed set, two players at
    least; the game one of the engine's."""
    _table(payload, table_id)
    tournament = _text(payload.get("tournament"), "tournament", optional=False)
    if not tournament:
        raise BadMessage("tournament: expected the tournament's name, got ''")
    game = _one_of(payload.get("game"), GAMES, "game")
    players = _players(payload)
    if len(players) < 2:
        raise BadMessage(f"players: a pairing seats two players at least, got {len(players)}")
    raw = payload["players"]
    seats = [p.get("seat") for p in raw]
    if seats != list(range(1, len(players) + 1)):
        raise BadMessage(f"players[].seat: expected the seats 1..{len(players)} in order, got {seats!r:.60}")
    colours = [p["colour"] for p in players]
    if len(set(colours)) != len(colours):
        raise BadMessage(f"players[].colour: each player a colour of their own, got {colours}")
    return {
        "table": table_id,
        "tournament": tournament,
        "round": _int(payload.get("round"), "round", 1, 10_000),
        "game": game,
        "players": [dict(p, seat=i) for i, p in enumerate(players, start=1)],
        "paired": _time(payload.get("paired"), "paired", optional=False),
    }
