"""The recorded referee: answers a recorded session's questions as the person at the table did.

A live table asks a person whenever a reading is unsure (and never scores it
silently).  A recorded session has nobody to ask, so its ``truth.json`` keeps
what the referee saw: the dice at rest after each throw and where they lay.
Drawn sessions list them as ``settled`` (``file``, ``t0``/``t1``, ``dice`` as
[value, colour], ``centers`` in pixels); rendered ones as ``throws`` (``frame``,
``dice`` with ``top_quad_px``, and ``stack_level``/``center_mm`` on a board),
shown over the rows of ``frames.csv`` that name that frame.

The referee answers only what the table asks, through the same ``Table.correct``
the admin page uses; every answer is a logged correction by ``referee (recorded)``:

* a question about a die's value (``unsure``, ``cocked``): it looks at the die
  nearest the reading and confirms it or corrects its value;
* a question about a die's support (``support``, issue 45): what the record shows it rests on, the
  board or the die under it (``set_support``, or ``hidden`` for a die no reading shows); about a
  die between two players' colours (``colour``): the recorded die's colour (``set_colour``);
* a question about the number of dice (``count``): only when the record shows a
  die lying under another one, where no camera can see its top face, it tells the
  table that die's colour and value (``hidden``).  A die the camera simply missed
  is left unanswered: the game then waits, as a table would for a rethrow.

Confident readings stand as the camera read them, so a changed frame still
changes the result.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WHO = "referee (recorded)"
VALUE_QUESTIONS = ("unsure", "cocked")
COUNT_QUESTIONS = ("count",)


@dataclass(frozen=True)
class Still:
    """The true dice at rest over ``t0``..``t1``."""

    t0: float
    t1: float
    values: tuple[int, ...]
    colours: tuple[str, ...]
    centers: tuple[tuple[float, float], ...]
    #: for each die, the index of the die it lies under (its top face hidden), or None
    under: tuple[int | None, ...] = ()
    reach_px: float = 30.0
    #: for each die, the index of the die it rests on (None: on the board), when the record says
    rests: tuple[int | None, ...] = ()


def _stills_from_truth(truth: dict[str, Any], rows: list[tuple[str, float]]) -> list[Still]:
    out: list[Still] = []
    for s in truth.get("settled", []):
        if "centers" not in s or "t0" not in s:
            continue
        out.append(
            Still(
                float(s["t0"]),
                float(s["t1"]),
                tuple(int(v) for v, _ in s["dice"]),
                tuple(str(c) for _, c in s["dice"]),
                tuple((float(x), float(y)) for x, y in s["centers"]),
            )
        )
    spans = _spans(rows)
    for th in truth.get("throws", []):
        dice = th.get("dice", [])
        if not dice or not all("top_quad_px" in d for d in dice) or th.get("frame") not in spans:
            continue
        centers = [tuple(sum(p[k] for p in d["top_quad_px"]) / 4 for k in (0, 1)) for d in dice]
        sides = sorted(_side(d["top_quad_px"]) for d in dice)
        # a pip d6 shows its whole top face; a numbered die's top facet is a fraction of the die
        reach = (0.6 if all(d.get("kind", "d6") == "d6" for d in dice) else 1.2) * sides[len(sides) // 2]
        t0, t1 = spans[th["frame"]]
        out.append(
            Still(
                t0,
                t1,
                tuple(int(d["value"]) for d in dice),
                tuple(str(d["colour"]) for d in dice),
                tuple((float(x), float(y)) for x, y in centers),
                _hidden_under(dice),
                reach,
                _rests_on(dice),
            )
        )
    return out


def _rests_on(dice: list[dict[str, Any]]) -> tuple[int | None, ...]:
    """For each recorded die, the die it rests on (None: the board), as ``_hidden_under`` sees stacks."""
    under = _hidden_under(dice)
    return tuple(next((j for j, top in enumerate(under) if top == i), None) for i in range(len(dice)))


def _side(quad: list[list[float]]) -> float:
    """Mean edge length of a quad, in pixels."""
    return sum(math.dist(quad[i], quad[(i + 1) % len(quad)]) for i in range(len(quad))) / len(quad)


def _spans(rows: list[tuple[str, float]]) -> dict[str, tuple[float, float]]:
    """The last contiguous run of frames.csv rows showing each file: (first t, last t)."""
    spans: dict[str, tuple[float, float]] = {}
    prev = None
    for name, t in rows:
        spans[name] = (spans[name][0], t) if name == prev else (t, t)
        prev = name
    return spans


def _hidden_under(dice: list[dict[str, Any]]) -> tuple[int | None, ...]:
    """For each die on the ground, the die stacked right on it (its top face hidden from the camera)."""
    out: list[int | None] = []
    for d in dice:
        level, where = int(d.get("stack_level") or 0), d.get("center_mm")
        above = [
            j
            for j, e in enumerate(dice)
            if where is not None
            and e.get("center_mm") is not None
            and int(e.get("stack_level") or 0) == level + 1
            and math.dist(e["center_mm"], where) < 10.0
        ]
        out.append(above[0] if above else None)
    return tuple(out)


class RecordedReferee:
    def __init__(self, stills: list[Still]) -> None:
        self.stills = stills
        self.answers: list[dict[str, Any]] = []

    @classmethod
    def from_session(cls, folder: Path) -> RecordedReferee | None:
        """The session's referee, or None when its truth records no dice at rest."""
        from hardware.frames import FrameSourceError, read_frames_csv

        try:
            truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
            rows = read_frames_csv(folder)
        except (OSError, ValueError, FrameSourceError):
            return None
        stills = _stills_from_truth(truth, rows)
        return cls(stills) if stills else None

    def _still_at(self, t: float) -> Still | None:
        for s in self.stills:
            if s.t0 - 0.05 <= t <= s.t1 + 0.05:
                return s
        return None

    def answer(self, table: Any) -> int:
        """Answer the table's pending questions that the record can settle; returns how many."""
        given = 0
        for _ in range(16):  # each answer may raise the next question
            q, rs = table.question, table.reading_set
            if q is None or rs is None:
                break
            still = self._still_at(rs.t)
            if still is None:
                break
            if q.kind in VALUE_QUESTIONS and q.readings:
                command = self._value(still, rs.by_id(q.readings[0]))
            elif q.kind in COUNT_QUESTIONS:
                command = self._hidden(still, rs.dice)
            elif q.kind == "support" and q.readings:
                command = self._support(still, rs.dice, rs.by_id(q.readings[0]))
            elif q.kind == "colour" and q.readings and still.colours:
                command = self._colour(still, rs.by_id(q.readings[0]))
            else:
                command = None
            if command is None:
                break
            try:
                table.correct(command, WHO)
            except ValueError:
                break
            self.answers.append({"t": rs.t, **command})
            given += 1
        return given

    def _nearest(self, still: Still, xy: Any) -> int | None:
        """The visible recorded die nearest ``xy`` (a die under another shows no top face)."""
        x, y = xy
        near = [
            (math.hypot(x - cx, y - cy), i)
            for i, (cx, cy) in enumerate(still.centers)
            if not still.under or still.under[i] is None
        ]
        if not near:
            return None
        dist, k = min(near)
        return k if dist <= still.reach_px else None

    def _value(self, still: Still, reading: dict[str, Any]) -> dict[str, Any] | None:
        k = self._nearest(still, reading["center"])
        if k is None:
            return None  # no die there: a question the referee cannot answer from the record
        value = still.values[k]
        if value == reading["value"]:
            return {"action": "confirm", "reading": reading["id"]}
        return {"action": "set_value", "reading": reading["id"], "value": value}

    def _colour(self, still: Still, reading: dict[str, Any]) -> dict[str, Any] | None:
        """Whose a die between two players' colours is: the recorded die's colour (issue 45)."""
        k = self._nearest(still, reading["center"])
        if k is None:
            return None
        return {"action": "set_colour", "reading": reading["id"], "colour": still.colours[k]}

    def _support(
        self, still: Still, readings: list[dict[str, Any]], reading: dict[str, Any]
    ) -> dict[str, Any] | None:
        """What a die the camera could not tell the support of rests on, as the record says (issue 45):
        the board, the reading of the die under it, or (a die no reading shows) that die, ``hidden``."""
        k = self._nearest(still, reading["center"])
        if k is None or not still.rests:
            return None
        below = still.rests[k]
        if below is None:
            return {"action": "set_support", "reading": reading["id"], "on": "board"}
        for r in readings:
            if "center" in r and not r.get("hidden") and r is not reading:
                x, y = r["center"]
                cx, cy = still.centers[below]
                if math.hypot(x - cx, y - cy) <= still.reach_px:
                    return {"action": "set_support", "reading": reading["id"], "on": r["id"]}
        return {
            "action": "hidden",
            "under": reading["id"],
            "colour": still.colours[below],
            "value": still.values[below],
        }

    def _hidden(self, still: Still, readings: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The first recorded die hidden under another that the table has no reading for."""
        told = {r.get("under") for r in readings if r.get("hidden")}
        for i, top in enumerate(still.under):
            if top is None:
                continue
            upper = next(
                (
                    r
                    for r in readings
                    if "center" in r and not r.get("hidden") and self._nearest(still, r["center"]) == top
                ),
                None,
            )
            if upper is None or upper["id"] in told:
                continue
            return {
                "action": "hidden",
                "under": upper["id"],
                "colour": still.colours[i],
                "value": still.values[i],
            }
        return None
