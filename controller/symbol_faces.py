"""A table's named symbol faces (issue 46 item 3): "this skull is the 1", said once, read after.

A d6 whose top face is not pips (a skull, a logo) is asked (`vision.pipcheck`).  The referee answers
it with ``set_value`` and ``"symbol": true`` ("this face is 1"): once the answer is logged, the die's
crop (cut from the frame the reading was made from) is kept with the roster's d6 of its colour
(`controller.roster.Roster.symbol_named`, its own ``control`` row ``roster`` logged first; a new
entry when the roster lists none), and from then on a d6 the table would ask about whose face looks
like a named one is read as that face's value (`vision.symbolfaces.NamedFaces` round the table's
reader).  The admin page's roster step ``forget_symbol`` (``id``, ``value``) undoes it, logged too,
and the table reads without that face at once (`symbols_now`).

The named faces live in the roster file, so a table restarted (or another table given the file)
reads them the same: `with_symbols` gives a pip-d6 table's reader its roster's faces.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.corrections import Answer


def _pip_table(reader: Any) -> bool:
    """Whether ``reader`` is a pip-d6 table's (`PipDice`, or it with named faces round it)."""
    from vision.numbered.combined import PipDice
    from vision.symbolfaces import NamedFaces

    return isinstance(reader.inner if isinstance(reader, NamedFaces) else reader, PipDice)


def with_symbols(reader: Any, roster_path: Path) -> Any:
    """A pip-d6 table's reader with its roster's named symbol faces round it (`NamedFaces`); any
    other reader, a roster naming none, or one that cannot be read (the admin page says why), as it
    is."""
    from controller.roster import RosterError, load_roster, symbol_faces
    from vision.symbolfaces import NamedFaces, SymbolFaces

    if not _pip_table(reader):
        return reader
    try:
        named = symbol_faces(load_roster(roster_path))
    except RosterError:
        named = []
    return NamedFaces(reader, SymbolFaces.of(named)) if named else reader


def symbols_now(reader: Any, dice: list[Any]) -> Any:
    """A pip-d6 table's reader with the named faces of the roster's ``dice`` as they are now (after
    a roster step: a face forgotten is no longer read by name); any other reader as it is."""
    from controller.roster import symbol_faces
    from vision.symbolfaces import NamedFaces, SymbolFaces

    if not _pip_table(reader):
        return reader
    inner = reader.inner if isinstance(reader, NamedFaces) else reader
    named = symbol_faces(dice)
    return NamedFaces(inner, SymbolFaces.of(named)) if named else inner


def named(table: Any, action: str, command: Mapping[str, Any], checked: Answer, who: str) -> Answer:
    """``checked`` (an answer the table is about to log), and, for a ``set_value`` that says the face
    is a symbol (``"symbol": true``) of a die at a pip-d6 table, the face named once it is logged."""
    if action != "set_value" or not command.get("symbol"):
        return checked
    from vision.crops import Pyramid
    from vision.symbolfaces import NamedFaces, SymbolFaces, crop_at, encode

    reader = table.perceiver.reader
    if not _pip_table(reader):
        raise ValueError("'symbol': this table reads no pip d6, so it names no symbol faces")
    rs = table.reading_set
    d = rs.by_id(command.get("reading"), left_out=True) if rs is not None else None
    image = None
    if table.frame is not None:
        image = cv2.imdecode(np.frombuffer(table.frame, np.uint8), cv2.IMREAD_COLOR)
    if d is None or image is None or not d.get("quad") or not d.get("center"):
        raise ValueError(f"'symbol': no picture of reading {command.get('reading')!r} to name its face by")
    crop = crop_at(Pyramid(image), d["center"], d["quad"])
    value, colour = int(command["value"]), str(d.get("colour") or "unknown")

    def apply() -> None:
        checked.apply()
        table.roster.symbol_named(colour, value, encode(crop), who, table.log_roster)
        faces = list(reader.faces.faces) if isinstance(reader, NamedFaces) else []
        inner = reader.inner if isinstance(reader, NamedFaces) else reader
        table.perceiver.reader = NamedFaces(inner, SymbolFaces.of([*faces, (value, crop)]))

    row = {**checked.row, "symbol": True}
    return Answer(row, apply, f"{checked.message}; its face is named {value} for the {colour} d6 (roster)")
