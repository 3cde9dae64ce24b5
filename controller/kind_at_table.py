"""A numbered die's kind from what the table knows (issue 43 item 5): its dice.

`at_table` gives the table's numbered reader (`vision.numbered.NumberedDice`) a `TableKinds` route
(its ``kind_of``: `vision.numbered.table_kind.settle`): the candidates for a numbered die are the
table's kinds (``table.kinds``, else the game's), narrowed to the kinds of the table's dice when its
roster lists any (``[table] roster``, `controller.roster`: a Die-angler table whose roster lists pip
d6 and a d20 has no d10 to read).  At a table of two numbered kinds or more, one numbered kind left
settles the die (whether it is a numbered die at all, or a d6, stays the reader's call:
`vision.numbered.ocr.joint`): it is read again at that kind (`vision.numbered.table_kind.at_kind`),
but at a table with d6 only when its outline is not a square's (SQUARE_FILL: a numeral d6 is read
as a numbered die too).  Several left: the die stays as
the reader read it (a kind it is unsure of is asked); the generic kind classifier is the last
resort.  The roster is read when the table's perception step is made
(`controller.perceive.Perceiver.from_config`).

Not used, measured (benchmarks/RESULTS.md, issue 43 item 5): the die's size in mm from a board
calibration (the reader's box back-projected on the board at each size: benchmarks/kind_sizes.py) and
a round outline as a d20's (`vision.numbered.table_kind.outline_kind`).  On rendered board scenes the
reader's box is too uneven a measure (a d10 of 19.1 mm fits a 25 mm d20 but not a 19.1 mm d10 in 19
of 152 readings at a 6 % tolerance), and a d10's outline passes the d20 rule 12 % of the time:
either would score a die of the wrong kind.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vision.reading import DieReading, Reader

log = logging.getLogger("dicetable.kind_at_table")

NUMBERED = ("d10", "d10p", "d20")
#: at a table with d6, a die is settled a numbered kind only when its outline is whole and fills less
#: of its least rectangle than this (`vision.numbered.outline`: a square fills ~1, a d20 seen from above
#: 0.77-0.84 on the TRAIN set-ups' d20s, 5-95 %).  A numeral d6 (d20_imac1844's, held out) is read as a
#: numbered die by the joint reading, and its "4" read at d20 would be sure: without this, 1 of its 12
#: was scored as a d20 at a table whose roster lists d6 and a d20
SQUARE_FILL = 0.88


class TableKinds:
    """The kind a table's dice settle for a numbered die (a `NumberedDice` ``kind_of``: see the
    module's doc).  ``dice``: the kinds of the table's dice (its roster's; none: every kind of the
    table's is a candidate)."""

    def __init__(self, kinds: Sequence[str], dice: Iterable[str] = ()) -> None:
        self.kinds = tuple(kinds)
        listed = {k for k in dice if k in self.kinds}
        self.candidates = tuple(k for k in self.kinds if not listed or k in listed)
        #: a table of one numbered kind (Dice Fighter's d10p, `kinds = ["d6", "d20"]`) reads its numbered
        #: dice at that kind already (`ocr.second_opinion`, `ocr.joint` against d6): nothing to settle
        self.settles = sum(k in NUMBERED for k in self.kinds) >= 2

    def __call__(self, image: np.ndarray, r: DieReading) -> str | None:
        numbered = [k for k in self.candidates if k in NUMBERED]
        if not self.settles or len(numbered) != 1:
            return None
        if "d6" in self.candidates:  # a numeral d6 is read as a numbered die too: not a square outline
            from vision.numbered.outline import outline
            from vision.numbered.table_kind import side_px

            o = outline(image, r.center, side_px(r))
            if o is None or o.cut or o.fill >= SQUARE_FILL:
                return None
        return numbered[0]


def roster_dice(path: Any) -> list[str]:
    """The kinds of the roster's dice at ``path`` (none: no file, or a file the roster refuses,
    which the admin page shows: the reader is not stopped for it)."""
    from controller.roster import RosterError, load_roster

    try:
        return [d.kind for d in load_roster(path)]
    except RosterError as e:
        log.warning("%s: the dice's kinds are read without the roster", e)
        return []


def at_table(reader: Reader, kinds: Sequence[str], roster: Any = None) -> Reader:
    """``reader`` (the table's reader) with its numbered dice's kinds settled by the table's knowledge:
    its roster at ``roster`` (a path; None: none; see the module's doc); a reader that is not
    `NumberedDice` as it is."""
    from vision.numbered import NumberedDice

    if not isinstance(reader, NumberedDice):
        return reader
    dice = roster_dice(roster) if roster is not None else []
    return replace(reader, kind_of=TableKinds(kinds, dice))
