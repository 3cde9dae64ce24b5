"""The secret rule: a choice is shown only as "who has chosen" until its reveal.

When the game's expectation is secret (``Expectation.secret``: a secret
selection, or a choice the game keeps hidden until everyone has chosen, like
Dice Fighter's attack declarations), the table does not give the game one
player's input on its own: :class:`HeldInputs` holds it, checked against the
rules on a copy of the game, until every player asked has given theirs; then
the whole group is applied and logged as one step.  So nothing a player chose
is in the game's state or the event log before the reveal, and every output
made from them (the API's state and events, the page, MQTT, the LED matrix,
the log lines) can show only the names in :meth:`HeldInputs.progress`.

A held input lives only in memory: if the game moves on without it (an undo, a
correction) or the table stops, it is forgotten and the player chooses again,
as with a secret round on the panels.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from engine import Game, Input, RuleError


class HeldInputs:
    """The inputs of one secret expectation, held until every player asked has given one."""

    def __init__(self) -> None:
        self._expected: dict[str, Any] | None = None
        self._inputs: dict[str, Input] = {}

    def _current(self, game: Game) -> dict[str, Any] | None:
        """The expectation the held inputs answer, or None (forgetting them) when the game moved on."""
        exp = game.expects()
        now = exp.to_json() if exp.secret else None
        if now != self._expected:
            self._expected, self._inputs = now, {}
        return now

    def players(self, game: Game) -> list[str]:
        """Who has chosen (never what)."""
        self._current(game)
        return sorted(self._inputs)

    def hold(self, game: Game, inputs: Sequence[Input]) -> list[Input] | None:
        """Hold ``inputs`` for the game's secret expectation; the whole group once everyone has chosen.

        Each input is checked on a copy of the game first: a ``RuleError`` is raised for an input the
        rules refuse (nothing is held then).  Returns None while someone asked has not chosen yet.
        """
        exp = self._current(game)
        if exp is None:
            raise ValueError("the game does not expect a secret choice now")
        pending = dict(self._inputs)
        for inp in inputs:
            if inp.player in pending:
                raise RuleError(f"player {inp.player!r} has already chosen; the choice is final")
            pending[str(inp.player)] = inp
        trial = copy.deepcopy(game)
        for inp in pending.values():
            trial.apply(inp)  # a RuleError here leaves the held inputs as they were
        if any(p not in pending for p in game.expects().players):
            self._inputs = pending
            return None
        # everyone has chosen: the caller applies the group, then forgets (a failed write keeps it held)
        return list(pending.values())  # in the order the copy of the game took them

    def forget(self) -> None:
        self._expected, self._inputs = None, {}

    def progress(self, game: Game, base: dict[str, Any] | None) -> dict[str, Any] | None:
        """The public progress of the secret choice: ``base`` (a panel round's public status) with the
        held players added to who has confirmed; None when the game expects no secret choice."""
        exp = game.expects()
        if not exp.secret:
            return base
        held = self.players(game)
        confirmed = sorted({*(base or {}).get("confirmed", []), *held})
        out = dict(base or {"status": "selecting"})
        out["confirmed"] = confirmed
        out["waiting"] = [p for p in exp.players if p not in confirmed]
        return out
