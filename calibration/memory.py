"""Dice the camera saw before and that a newly thrown die now covers.

In DICETAR WARS the dice stay where they land, and a die thrown later may land on one
of them.  The lower die's top face is then hidden from any camera above the table, but
the table saw it, value and place, in an earlier frame.  :func:`carry_covered` finds
those dice: a die of the earlier frame that the new frame no longer shows, whose top
face lies under the outline of a die the new frame does show, while its colour is now
one die short.  The die is carried into the new frame as it was seen (value, colour,
footprint on the board) and marked ``hidden`` and ``carried``; :func:`calibration.geometry.place`
takes it as a ``known`` die, so that the die over it is placed one level up.

A die that was carried, or that a person said lies hidden, is carried again while the die
over it stays.  Nothing is carried when the count of a colour does not say a die is
missing: a die knocked away shows up elsewhere, and one picked up leaves no die over its
spot.  The camera must not move between the frames (the centres are compared in pixels),
and only dice placed on the board before (with a ``footprint_mm``) are carried.

Readings are dicts as the table and ``dicetable read`` use them: ``center`` and ``quad`` in
pixels, ``colour``, ``value``, and after placing ``footprint_mm`` and ``stack_level``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from calibration import polygons as pg

#: A die of the earlier frame is still seen when a die of its colour lies this close (pixels).
SAME_PLACE_PX = 12.0

Reading = dict[str, Any]

#: How many dice of which colours a throw shows, as the game says (`expected_counts`): each key the
#: colours a group of dice may come in, joined by "|" ("red": a player's dice; "blue|green|red"), its
#: value how many there are (JSON as it is).
Expected = dict[str, int]


def carry_covered(
    before: Sequence[Reading], now: Sequence[Reading], colours: Iterable[str] | None = None
) -> list[tuple[Reading, int]]:
    """The dice of ``before`` that lie covered under a die of ``now``.

    Returns ``(die, i)`` pairs: a copy of the earlier die, marked ``hidden`` and ``carried``,
    and the index in ``now`` of the die over it.  Only dice of ``colours`` (None: every
    colour) are considered.

    (Issue 45 tried the game's count of dice instead of the earlier frame's to say a colour is
    short, and carrying a die off-centre under a new one or under a die of its own colour showing
    another face: on a fresh held-out seed it made more dice silently wrong than it saved questions,
    benchmarks/RESULTS.md; not kept.)
    """
    wanted = None if colours is None else {str(c).lower() for c in colours}
    old = [d for d in before if wanted is None or _colour(d) in wanted]
    short = Counter(_colour(d) for d in old)
    short.subtract(_colour(d) for d in now)
    seen = _still_seen(old, now)
    out: list[tuple[Reading, int]] = []
    for i, d in enumerate(old):
        if i in seen or short[_colour(d)] <= 0 or d.get("footprint_mm") is None:
            continue
        over = _over(i, old, now, seen)
        if over is None:
            continue
        carried = {k: v for k, v in d.items() if k not in ("rests_on", "unsure")}
        carried.update(hidden=True, carried=True, under=now[over].get("id", over))
        if d.get("id") is not None:
            carried["seen_as"] = d.get("seen_as", d["id"])
        out.append((carried, over))
        short[_colour(d)] -= 1
    return out


def _colour(d: Reading) -> str:
    return str(d.get("colour", "")).lower()


def _centre(d: Reading) -> tuple[float, float] | None:
    c = d.get("center")
    try:
        x, y = float(c[0]), float(c[1])  # type: ignore[index]
    except (TypeError, ValueError, IndexError):
        return None
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


def _still_seen(old: Sequence[Reading], now: Sequence[Reading]) -> dict[int, int]:
    """Which earlier dice the new frame still shows: old index -> new index (nearest first, one to
    one, same colour, within SAME_PLACE_PX)."""
    pairs = sorted(
        (math.dist(a, b), i, j)
        for i, d in enumerate(old)
        for j, n in enumerate(now)
        if _colour(d) == _colour(n)
        and (a := _centre(d)) is not None
        and (b := _centre(n)) is not None
        and math.dist(a, b) <= SAME_PLACE_PX
    )
    seen: dict[int, int] = {}
    for _, i, j in pairs:
        if i not in seen and j not in seen.values():
            seen[i] = j
    return seen


def _over(i: int, old: Sequence[Reading], now: Sequence[Reading], seen: dict[int, int]) -> int | None:
    """The index in ``now`` of the die lying over ``old[i]``, if one does."""
    d = old[i]
    if d.get("hidden"):
        # it was under a die then: still under it if that die is still seen where it was
        top = next(
            (k for k, o in enumerate(old) if o.get("id") is not None and o.get("id") == d.get("under")), None
        )
        if top is not None and top in seen:
            return seen[top]
    c = _centre(d)
    if c is None:
        return None
    best: tuple[float, int] | None = None
    for j, n in enumerate(now):
        nc = _centre(n)
        try:
            poly = pg.as_poly(np.asarray(n.get("quad"), np.float64))
        except (TypeError, ValueError):
            continue
        if nc is None or poly.shape[0] < 3 or not pg.point_in_polygon(np.asarray(c), poly):
            continue
        if best is None or math.dist(c, nc) < best[0]:
            best = (math.dist(c, nc), j)
    return None if best is None else best[1]


def known_dice(carried: Sequence[tuple[Reading, int]]) -> list[tuple[Any, int]]:
    """The ``known`` argument of :func:`calibration.geometry.place` for carried dice: each one's
    footprint in board mm and stack level, as placed when it was seen."""
    return [(d["footprint_mm"], int(d.get("stack_level") or 0)) for d, _ in carried]


def check_expected(expected: Any) -> Expected:
    """``expected`` as :data:`Expected` (raises ValueError naming what was expected)."""
    if not isinstance(expected, dict):
        raise ValueError(f"expected dice: a mapping of colours to counts, got {expected!r}")
    out: Expected = {}
    for k, n in expected.items():
        colours = str(k).split("|") if isinstance(k, str) else []
        if not colours or not all(colours) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(
                f"expected dice: each entry colours joined by '|' ('red', 'blue|green') and a count "
                f">= 0, got {k!r}: {n!r}"
            )
        out["|".join(sorted({c.strip().lower() for c in colours}))] = n
    return out


def expected_counts(entries: Iterable[Any]) -> Expected:
    """The dice a throw shows by colour, from the game's ``entry_dice`` (`engine.core.DieEntry`, each
    with the colours that die may come in): DICETAR WARS five of each thrower's colour, Dice Fighter
    six of its three colours.  Entries with no colour are not counted."""
    out: Counter[str] = Counter()
    for e in entries:
        colours = sorted({str(c).lower() for c in getattr(e, "colours", ())})
        if colours:
            out["|".join(colours)] += 1
    return dict(out)


def short_by(readings: Sequence[Reading], expected: Expected) -> dict[str, int]:
    """How many dice of each group of ``expected`` the readings (carried dice included) lack: a die
    of the game no frame shows (under another die, or lost)."""
    seen = {k: sum(1 for d in readings if _colour(d) in k.split("|")) for k in expected}
    return {k: n - seen[k] for k, n in expected.items() if n > seen[k]}


def settle_supports(readings: list[Reading], expected: Expected | None) -> list[int]:
    """Issue 45 item 4: a die can rest on a die no frame shows only when a die of the game is not
    seen.  When every die the game expects is seen (or carried: the table's memory), the ``"hidden"``
    choice is struck from the ``support_options`` of each die placed on the board or on a die the
    frame shows, and a die left with one choice is sure (it lies as placed).  A die placed raised on
    a die no frame shows (``support_hidden``: its sides say raised) is still asked: the die under it
    may be one the frame shows but the step did not tell apart (on the rendered tune split, placing
    those on the board made more silent errors than questions saved).  Returns the indices of the
    readings changed.  Nothing changes without ``expected``, or while a die is short."""
    if not expected or short_by(readings, expected):
        return []
    changed = []
    for i, d in enumerate(readings):
        options = d.get("support_options")
        if d.get("support_hidden") or not options or not any(o.get("on") == "hidden" for o in options):
            continue
        left = [o for o in options if o.get("on") != "hidden"]
        if len(left) <= 1:
            d.pop("support_options", None)
        else:
            d["support_options"] = left
        changed.append(i)
    return changed


#: what a support choice sets on a reading (as `controller.corrections` sets it)
_PLACE_KEYS = ("zones", "min_multiplier", "side", "field_status", "card_slot")


def ask_over_carried(readings: list[Reading]) -> list[int]:
    """A die the memory says lies over a carried die (its ``under``) but that the frame placed on
    the board (the carried die off-centre under it) is asked (issue 45 item 4): on the carried die,
    or on the board; one its sides place raised with no die seen under it rests on the carried die.
    ``readings`` is the whole list (``rests_on`` and the choices' ``on`` index it).  Returns the
    indices asked."""
    ids = {d.get("id"): i for i, d in enumerate(readings) if d.get("id") is not None}
    asked = []
    for k, c in enumerate(readings):
        if not c.get("carried") or c.get("under") not in ids:
            continue
        i = ids[c["under"]]
        d = readings[i]
        if d.get("rests_on") is not None or d.get("support_options") or d.get("confirmed"):
            continue  # on the carried die, or on another the frame shows under it: as placed
        if d.get("support_hidden"):
            # raised with no die seen under it (its sides), and the memory's die under it: told
            d.update(
                rests_on=k,
                stack_level=int(c.get("stack_level") or 0) + 1,
                field_status=c.get("field_status"),
                card_slot=c.get("card_slot"),
            )
            d.pop("support_hidden", None)
            continue
        here = {key: d.get(key) for key in _PLACE_KEYS}
        on = "board" if d.get("rests_on") is None else d["rests_on"]
        level = int(d.get("stack_level") or 0)
        over = {**here, "field_status": c.get("field_status"), "card_slot": c.get("card_slot")}
        d["support_options"] = [
            {"on": k, "stack_level": int(c.get("stack_level") or 0) + 1, **over},
            {"on": on, "stack_level": level, **here},
        ]
        asked.append(i)
    return asked
