"""A recorded session's script: what a person did at the table, due at its own times.

A :class:`Script` holds the lines not yet used (choices, card reveals, referee corrections) and the
button edges of raw presses, and counts what was used, so that a resumed recording skips exactly
what the log already acknowledged (the counts go into each input's ``position`` mark).  The table
(:mod:`controller.table`) decides when a line can be taken; the script only keeps the order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from controller.panels import Edge, press_edges
from engine import Input


@dataclass(frozen=True)
class Scripted:
    """One line of a recorded session's script, due at time ``t``.

    Exactly one of: ``input`` (a choice on a panel or the admin page, a card
    reveal), ``correction`` (a referee's answer or command on the admin page,
    by ``who``) or ``press`` (a raw button press on ``player``'s panel, held
    ``hold`` seconds; it goes through the real panel machinery).
    """

    t: float
    source: str
    input: Input | None = None
    correction: dict[str, Any] | None = None
    who: str = "referee"
    player: str | None = None
    press: str | None = None
    hold: float = 0.0


class Script:
    """The lines and button edges of a recorded session still to come, and how many were used."""

    def __init__(self) -> None:
        self.lines: list[Scripted] = []
        self.edges: list[Edge] = []
        self.consumed = 0  # scripted lines taken so far (for resuming a recording)
        self.edges_driven = 0  # button edges driven so far
        #: a resumed recording's lines the log already holds (answers, controls): their counts
        self.logged_lines: frozenset[int] = frozenset()

    def load(self, items: Sequence[Scripted]) -> bool:
        """Set the script: raw presses become button edges, the rest wait in order.  True when
        there are presses (the panels then take scripted edges)."""
        edges: list[Edge] = []
        rest: list[Scripted] = []
        for s in items:
            if s.press is not None:
                edges += press_edges(s.t, s.player or "", s.press, s.hold)
            else:
                rest.append(s)
        self.lines = rest
        self.edges = sorted(edges)
        return bool(edges)

    def skip_to(self, point: Mapping[str, Any]) -> None:
        """Drop the lines and edges a resumed game has already used (a ``position`` mark)."""
        n, e = int(point.get("script", 0)), int(point.get("edges", 0))
        self.lines, self.edges = self.lines[n:], self.edges[e:]
        self.consumed, self.edges_driven = n, e
        self.logged_lines = frozenset(int(c) for c in point.get("lines", ()))

    def logged(self) -> bool:
        """Whether the line just taken is one the log already holds (a resumed recording's answer or
        control, `controller.ledger.resume_point`): it does to the table what it did, and is not
        logged again."""
        return self.consumed in self.logged_lines

    def due_edges(self, t: float) -> Iterator[Edge]:
        """The button edges due by ``t``, in order; each counts as driven when it is handed out."""
        while self.edges and self.edges[0].t <= t:
            edge = self.edges.pop(0)
            self.edges_driven += 1
            yield edge

    def next_due(self, t: float) -> Scripted | None:
        """The next line if it is due by ``t`` (still waiting: `take` it when it can be used)."""
        return self.lines[0] if self.lines and self.lines[0].t <= t else None

    def take(self) -> Scripted:
        """Use the next line."""
        self.consumed += 1
        return self.lines.pop(0)

    def put_back(self, item: Scripted) -> None:
        """Return a line that could not be used (not logged, so not done): it comes next again."""
        self.lines.insert(0, item)
        self.consumed -= 1

    def times(self) -> list[float]:
        """When each remaining edge and line is due, in order."""
        return sorted([e.t for e in self.edges] + [s.t for s in self.lines])


def select_reading(dice: Sequence[Mapping[str, Any]] | None, asked: Sequence[str], die: Any) -> str | None:
    """The id of the reading a script names by ``{"colour", "center_mm"|"center_px"}`` among ``dice``
    (the current readings; None: none yet).

    Without ``die`` (or without readings): the first reading the current question is about
    (``asked``: its reading ids).  Raises ValueError naming a ``die`` of the wrong form.
    """
    if die is None or dice is None:
        return asked[0] if asked else None
    if not isinstance(die, Mapping):
        raise ValueError(f"'die' must be an object with colour and center_mm or center_px, got {die!r}")
    key, where = (
        ("board_center_mm", die["center_mm"]) if "center_mm" in die else ("center", die.get("center_px"))
    )
    candidates = [d for d in dice if key in d and ("colour" not in die or d.get("colour") == die["colour"])]
    if where is None or not candidates:
        return None
    best = min(candidates, key=lambda d: float(np.hypot(*(np.subtract(d[key], where)))))
    return str(best["id"])
