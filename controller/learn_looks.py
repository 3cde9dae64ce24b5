"""`dicetable learn-dice colour`: a roster die's look learnt from a few photos of it (issue 44 item 5).

The simplest path a user has: put the die alone on the table, take a photo (or a frame of the
table's camera), roll it, again, three times or more; then

    dicetable learn-dice colour --config table.toml --owner ann --colour green ONE.jpg TWO.jpg THREE.jpg

(a die the roster lists already, say one taught on ``/learn``: ``--die ann-green-d20`` instead of
``--owner``/``--colour``; more photos later add to its look).

Each photo is read as the table reads (its reader, its board's light, else the frame's own): it
must show one die, the die named; its whole look (`vision.looks.look_of`: the body's colour, the
spread of its plastic and its pips' colour, read from the die's crop balanced by the light as the
table balances it) joins the entry's look (`vision.looks.Look`).  All
photos are read before anything is written: a photo that cannot be read, or shows no die or
several, is refused by name and the roster is left as it was.  The change is logged in the table's
event log (a ``control`` row ``roster``, step ``look``).  Once every colour of the roster has a
look, the table names its dice's colours by them from its next start (`controller.roster
.learnt_palette`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.config import TableConfig
from controller.roster import Die, Roster, RosterError


def die_look(image: np.ndarray, quad: Any, palette: Any) -> np.ndarray:
    """The whole look (`vision.looks.look_of`, balanced by ``palette``'s light) of the die whose top
    face is ``quad`` (its box grown by the reader's margin, at 64 px a side, as the colour benchmarks
    read it)."""
    from vision.crops import MARGIN
    from vision.looks import look_of

    q = np.asarray(quad, np.float64)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    h, w = image.shape[:2]
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, MARGIN * max(x1 - x0, y1 - y0) / 2
    a, b = int(max(0, cx - half)), int(max(0, cy - half))
    crop = image[b : int(min(h, cy + half)), a : int(min(w, cx + half))]
    if crop.size == 0:
        raise ValueError("the die lies outside the photo")
    return np.asarray(look_of([cv2.resize(crop, (64, 64))], palette)[0], np.float64)


def learn_colour(cfg: TableConfig, die: str | Die, photos: list[Path], who: str = "cli") -> Die:
    """The look of the roster die ``die`` (its id, or a new entry: added) learnt from ``photos`` (see
    the module's doc); raises RosterError naming the photo or the roster's problem."""
    from controller.perceive import Perceiver

    roster = Roster(cfg.roster_path)
    if roster.error is not None:
        raise RosterError(roster.error)
    die_id = die.name if isinstance(die, Die) else die
    if isinstance(die, str) and not any(d.id == die for d in roster.dice):
        ids = ", ".join(d.id for d in roster.dice) or "none"
        raise RosterError(
            f"--die: expected the id of a die of the roster ({ids}), got {die!r} "
            "(a new die: --owner and --colour instead)"
        )
    if not photos:
        raise RosterError("photos: expected one or more photos of the die alone")
    perceiver = Perceiver.from_config(cfg)
    labs = []
    for photo in photos:
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            raise RosterError(f"{photo}: expected a photo (PNG or JPEG) that can be read")
        pose = perceiver.geometry.pose(image) if perceiver.geometry is not None else None
        palette = perceiver.reading_palette(image, pose, None)
        dice = perceiver.reader.read(image, palette)
        if len(dice) != 1:
            raise RosterError(
                f"{photo}: expected one die (the die {die_id} alone on the table), found {len(dice)}"
            )
        try:
            labs.append(die_look(image, dice[0].quad, palette))
        except ValueError as e:
            raise RosterError(f"{photo}: {e}") from None
    return roster.looked(die, labs, who, _log_row(cfg))


def _log_row(cfg: TableConfig) -> Any:
    def row(data: dict[str, Any], who: str) -> None:
        from controller.eventlog import EventLog

        log = EventLog(cfg.database_path())
        try:
            log.append(log.latest_game() or 0, "control", {**data, "who": who}, "admin", who)
        finally:
            log.close()

    return row
