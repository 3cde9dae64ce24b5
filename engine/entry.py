"""A roll or throw typed in by a person (the admin page's form): what the rules let each die be,
and the check of what was typed, before the game sees it.

``Game.entry_dice(player, colours)`` answers, for the roll or throw the game expects now, one
``DieEntry`` per die: the kinds it may be, the colours it may be, and where it may lie (a board's
zones, or a side of the centre line) when the game places dice.  ``check_entered`` checks typed dice
against them and says what is wrong with which die in one sentence; the game's own rules then
judge the throw as they judge the camera's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import OFF, DieEntry, DieKind

__all__ = ["OFF", "DieEntry", "check_die", "check_entered"]


def _one(options: Sequence[str]) -> str:
    return ", ".join(options)


def check_die(entry: DieEntry, raw: Any, n: int) -> str | None:
    """What is wrong with die number ``n`` (from 1) as typed, or None."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = {"value": raw}  # a bare number: a die of the usual kind showing it
    if not isinstance(raw, Mapping):
        return f"die {n}: expected its kind, value and colour, got {raw!r}"
    kind = raw.get("kind", entry.kinds[0].value)
    if kind not in [k.value for k in entry.kinds]:
        return f"die {n}: kind {kind!r} is not one of this game's ({_one([k.value for k in entry.kinds])})"
    faces = DieKind(kind).face_range()
    value = raw.get("value")
    if not isinstance(value, int) or isinstance(value, bool) or value not in faces:
        return f"die {n}: a {kind} shows {faces[0]}-{faces[-1]}, got {value!r}"
    colour = raw.get("colour")
    if entry.colours and (colour is not None or entry.zones or entry.sides) and colour not in entry.colours:
        return f"die {n}: colour {colour!r} is not one of the colours in play ({_one(entry.colours)})"
    if entry.zones or entry.sides:
        return _where(entry, raw, n)
    return None


def _where(entry: DieEntry, raw: Mapping[str, Any], n: int) -> str | None:
    status = raw.get("field_status")
    if status not in ("field", OFF):
        return f"die {n}: where it lies (field_status) must be 'field' or 'off', got {status!r}"
    if entry.zones:
        zones = raw.get("zones", [])
        if not isinstance(zones, list) or not all(isinstance(z, str) for z in zones):
            return f"die {n}: zones must be a list of the board's zones, got {zones!r}"
        wrong = [z for z in zones if z not in entry.zones]
        if wrong:
            return f"die {n}: zone {wrong[0]!r} is not one of the board's zones ({_one(entry.zones)})"
        if status == OFF and zones:
            return f"die {n}: off the board it lies in no zone, got {zones!r}"
    if entry.sides:
        if status == OFF:
            if raw.get("thrower") not in entry.throwers:
                return f"die {n}: a die off the field needs who threw it ({_one(entry.throwers)})"
        elif raw.get("side") not in ("a", "b"):
            return f"die {n}: its side of the centre line must be 'a' or 'b', got {raw.get('side')!r}"
    return None


def check_entered(entries: Sequence[DieEntry], dice: Any, what: str = "throw") -> None:
    """Refuse (``ValueError``, one sentence naming the die and what was expected) typed ``dice``
    that are not ``entries``: their number, each die's kind, face, colour and place."""
    if not isinstance(dice, list):
        raise ValueError(f"the {what} needs its dice as a list, got {dice!r}")
    if len(dice) != len(entries):
        raise ValueError(f"the {what} needs {len(entries)} dice, got {len(dice)}")
    for n, (entry, raw) in enumerate(zip(entries, dice, strict=True), start=1):
        problem = check_die(entry, raw, n)
        if problem:
            raise ValueError(problem)
