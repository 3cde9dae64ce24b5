"""The referee's answers about a die's colour join the roster's looks (issue 44 items 4 and 5).

A table whose roster gives every colour a learnt look names each die by the nearest sighting
(`vision.looks.LearntPalette`) and asks about a die between two colours.  When the referee answers
such a question (``set_colour``: whose die it is), the look the die was named by (the perception
step keeps it by reading, `controller.perceive.Perceiver.looks`: its detector's box at the frame's
own pixels, balanced by the light) joins the sightings of the colour answered, pooled as the palette
pools the dice of one colour, so the next die like it is named without a question: the table asks
less the longer it plays.

Logged and undoable as the numbered dice's crops are (`controller.corrections.RefereeLearning`): the
answer's row carries the look (``look``: its colour and numbers); it joins the palette once the row
is logged; ``unlearn`` of the reading (a logged answer too) takes it out again; a restarted table
learns the log's looks again (`replay`).  The roster's file is not changed: what the referee taught
lives in the game's log, like the referee's crops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any


class LearntByReading:
    """What the referee's logged answers taught, one row a reading (its id first in ``added``), and
    ``_install`` telling the reader: the part `LookLearning` (looks) and
    `controller.corrections.RefereeLearning` (numbered dice's crops) share."""

    added: list[Any]

    def _install(self) -> None:
        raise NotImplementedError

    def remove(self, reading: str) -> int:
        """What was learnt from ``reading`` taken out (the reader told when anything was); how many."""
        n = self._drop(reading)
        if n:
            self._install()
        return n

    def _replayed(self) -> int:
        """After a replay of the log: the reader told of what it taught, if anything; how many now."""
        if self.added:
            self._install()
        return len(self.added)

    def _drop(self, reading: Any) -> int:
        """What was learnt from ``reading`` taken out, the reader not told yet; how many."""
        before = len(self.added)
        self.added = [a for a in self.added if a[0] != reading]
        return before - len(self.added)


class LookLearning(LearntByReading):
    """The roster's learnt looks grown by the referee's colour answers (see the module's doc).

    ``perceiver``: the table's perception step; learning is on when it names colours by learnt
    looks (its ``learnt`` palette, with no measured palette)."""

    def __init__(self, perceiver: Any) -> None:
        self.perceiver = perceiver
        self.base: Any = perceiver.learnt if getattr(perceiver, "palette", None) is None else None
        self.on = self.base is not None
        #: each look learnt: (reading id, colour, look)
        self.added: list[tuple[str, str, tuple[float, ...]]] = []

    def answer(self, checked: Any, action: str, command: Mapping[str, Any], rs: Any = None) -> Any:
        """``checked`` (a checked `controller.corrections.Answer`), and when it names the colour of a
        die the table named by its look (``set_colour``), that look joining the colour's once the row
        is logged (``rs``: the readings answered about; the look is the one read at the reading's
        place)."""
        if not self.on or action != "set_colour":
            return checked
        reading, colour = str(checked.row.get("reading")), str(checked.row.get("to"))
        seen = self.perceiver.looks.get(reading)
        d = rs.by_id(reading, left_out=True) if rs is not None else {}
        if seen is None or colour.casefold() not in self.base.looks or not _at(seen[0], d.get("center")):
            return checked  # a colour with no learnt look (not the roster's) has none to join
        look = seen[1]

        def apply() -> None:
            checked.apply()
            self.add(reading, colour, look)

        row = {**checked.row, "look": {"colour": colour, "lab": [round(float(x), 3) for x in look]}}
        return replace(
            checked, row=row, apply=apply, message=f"{checked.message}; its look joins the {colour} dice's"
        )

    def taught(self, reading: Any) -> bool:
        """Whether a look was learnt from ``reading``."""
        return any(a[0] == reading for a in self.added)

    def unlearn(self, checked: Any, command: Mapping[str, Any], who: str) -> Any:
        """``unlearn`` of the look learnt from a reading (see `taught`): ``checked``, an answer to make
        it from (`controller.corrections.Answer`)."""
        reading = str(command.get("reading"))

        def apply() -> None:
            self.remove(reading)

        row = {"correction": "unlearn", "reading": reading, "who": who}
        return replace(
            checked, row=row, apply=apply, message=f"the look learnt from reading {reading} is forgotten"
        )

    def add(self, reading: str, colour: str, look: Sequence[float]) -> None:
        self.added.append((reading, colour.casefold(), tuple(float(x) for x in look)))
        self._install()

    def replay(self, events: Sequence[Any]) -> int:
        """The looks the log's answers taught (and did not take back), learnt again; how many now."""
        from vision.looks import Look

        if not self.on:
            return 0
        for e in events:
            data = e.data if e.kind == "control" else {}
            look = data.get("look")
            if isinstance(look, Mapping) and str(look.get("colour", "")).casefold() in self.base.looks:
                try:
                    lab = Look.learn([look["lab"]]).labs[0]
                except (KeyError, TypeError, ValueError):
                    continue  # a row this table cannot read teaches nothing
                self.added.append((str(data.get("reading")), str(look["colour"]).casefold(), lab))
            elif data.get("correction") == "unlearn":
                self._drop(data.get("reading"))
        return self._replayed()

    def palette(self) -> Any:
        """The learnt palette the table names colours by: the roster's looks with the referee's."""
        from vision.looks import LearntPalette, Look

        looks = dict(self.base.looks)
        for colour in sorted({a[1] for a in self.added}):
            mine = [a[2] for a in self.added if a[1] == colour]
            old = looks[colour]
            looks[colour] = Look(tuple(old.labs) + tuple(tuple(round(x, 2) for x in m) for m in mine))
        return LearntPalette.of(looks)

    def _install(self) -> None:
        self.perceiver.learnt = self.palette()


def _at(seen: Any, center: Any) -> bool:
    """Whether the centre a look was read at is the reading's (the same frame's die, not another's of
    the same id)."""
    try:
        return bool(abs(float(seen[0]) - float(center[0])) + abs(float(seen[1]) - float(center[1])) < 1.0)
    except (TypeError, ValueError, IndexError):
        return False
