"""The recorded referee: answers a recorded session's questions as the person at the table did.

A live table asks a person whenever a reading is unsure (and never scores it
silently).  A recorded session has nobody to ask, so its ``truth.json`` keeps
what the referee saw: the dice at rest after each roll and where they lay
(``settled``: ``file``, ``t0``/``t1``, ``dice`` as [value, colour],
``centers`` in pixels).  When the table asks about a die's value, the
recorded referee looks at the die nearest the reading and confirms it or
corrects it, through the same ``Table.correct`` the admin page uses; every
answer is a logged correction by ``referee (recorded)``.  It answers only
questions about a die's value: confident readings stand as the camera read
them, so a changed frame still changes the result.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

WHO = "referee (recorded)"
VALUE_QUESTIONS = ("unsure", "cocked")


class RecordedReferee:
    def __init__(self, settled: list[dict[str, Any]], reach_px: float = 30.0) -> None:
        self.settled = settled
        self.reach_px = reach_px
        self.answers: list[dict[str, Any]] = []

    @classmethod
    def from_session(cls, folder: Path) -> RecordedReferee | None:
        """The session's referee, or None when its truth records no dice at rest."""
        try:
            truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        settled = [s for s in truth.get("settled", []) if "centers" in s and "t0" in s]
        return cls(settled) if settled else None

    def _still_at(self, t: float) -> dict[str, Any] | None:
        for s in self.settled:
            if s["t0"] - 0.05 <= t <= s["t1"] + 0.05:
                return s
        return None

    def answer(self, table: Any) -> int:
        """Answer the table's pending value questions; returns how many answers were given."""
        given = 0
        for _ in range(16):  # each answer may raise the next question about another die
            q, rs = table.question, table.reading_set
            if q is None or rs is None or q.kind not in VALUE_QUESTIONS or not q.readings:
                break
            still = self._still_at(rs.t)
            if still is None:
                break
            reading = rs.by_id(q.readings[0])
            x, y = reading["center"]
            dist, k = min((math.hypot(x - cx, y - cy), i) for i, (cx, cy) in enumerate(still["centers"]))
            if dist > self.reach_px:
                break  # no die there: a question the referee cannot answer from the record
            value = int(still["dice"][k][0])
            if value == reading["value"]:
                command = {"action": "confirm", "reading": reading["id"]}
            else:
                command = {"action": "set_value", "reading": reading["id"], "value": value}
            try:
                table.correct(command, WHO)
            except ValueError:
                break
            self.answers.append({"t": rs.t, **command})
            given += 1
        return given
