"""`dicetable learn-dice colour`: a roster die's look learnt from a few photos of it (issue 44 item 5).

The simplest path a user has: put the die alone on the table, take a photo (or a frame of the
table's camera), roll it, again, three times or more; then

    dicetable learn-dice colour --config table.toml --owner ann --colour green ONE.jpg TWO.jpg THREE.jpg

(a die the roster lists already, say one taught on ``/learn``: ``--die ann-green-d20`` instead of
``--owner``/``--colour``; more photos later add to its look).

Each photo is read as the table reads (its reader, its board's light, else the frame's own): it
must show one die, the die named; its whole look (`vision.looks.look_of`: the body's colour, the
spread of its plastic, its pips' colour and the shares of its pixels by hue, read from the die's crop
balanced by the light as the table balances it) joins the entry's look (`vision.looks.Look`).  All
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

from controller.config import TableConfig
from controller.roster import Die, Roster, RosterError, die_look


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
