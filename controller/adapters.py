"""The table's readings of a settled frame, and the plan for them: a game's inputs, or a question.

:func:`plan` asks the game what the throw means (``engine.Game.read_throw``: each game's
camera adapter lives with its rules, the checks they share in ``engine.throws``) for what the
engine ``expects()`` now; a :class:`Question` goes to a person, never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Input, InputKind, find_game
from engine.core import Context, Question, Reading

__all__ = ["NOT_DICE", "Context", "Question", "Reading", "TableReadings", "plan"]


@dataclass
class TableReadings:
    """The readings of one settled frame as the table scores them: the dice of the frame's
    `controller.perceive.ReadingSet` in their dict form (`Reading.to_json`), with the human's
    confirmations, and whether (and by which inputs) they were scored."""

    seq: int
    t: float
    dice: list[dict[str, Any]] = field(default_factory=list)
    applied: bool = False  # scored: the engine has these dice
    #: the log seqs of the inputs that scored these dice (a camera throw, or a roll typed over it)
    input_seqs: tuple[int, ...] = ()
    #: readings a person said are not dice (a phantom: paper, a shadow), with the place each had
    #: among ``dice``: out of the throw until a person says it is a die after all
    left_out: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def by_id(self, rid: Any, left_out: bool = False) -> dict[str, Any]:
        """The reading ``rid`` among the dice (and, with ``left_out``, among those left out)."""
        for d in [*self.dice, *(d for _, d in self.left_out)] if left_out else self.dice:
            if d["id"] == rid:
                return d
        ids = [d["id"] for d in self.dice]
        out = f"; not dice: {[d['id'] for _, d in self.left_out]}" if self.left_out else ""
        raise ValueError(f"reading {rid!r} is not in the latest frame (readings: {ids}{out})")

    def leave_out(self, d: dict[str, Any]) -> None:
        """``d`` is no die: out of the throw (kept, to be put back by `put_back`)."""
        at = self.dice.index(d)
        self.left_out.append((at, self.dice.pop(at)))

    def put_back(self, d: dict[str, Any]) -> bool:
        """``d`` is a die after all: in the throw again, where it was; False if it was not left out."""
        for k, (at, was) in enumerate(self.left_out):
            if was is d:
                del self.left_out[k]
                self.dice.insert(min(at, len(self.dice)), d)
                return True
        return False


#: colours no game die has here unless the game says so: what the reader calls other things
#: on the table (markers, board art) keeps its own name instead of the nearest die colour's
NOT_DICE = ("white", "black")


def plan(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    """The inputs for a settled throw given what the game expects now, or the question to ask first."""
    if ctx.expected.kind not in (InputKind.ROLL, InputKind.THROW):
        raise ValueError(f"the game expects {ctx.expected.describe()}, not a throw")
    return find_game(ctx.game).read_throw(ctx, readings)
