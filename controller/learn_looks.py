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
import numpy as np

from controller.config import TableConfig
from controller.roster import Die, Roster, RosterError, die_look, learnt_palette


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
            labs.append(die_look(image, dice[0].box or dice[0].quad, palette))
        except ValueError as e:
            raise RosterError(f"{photo}: {e}") from None
    return roster.looked(die, labs, who, _log_row(cfg))


def close_colours(dice: list[Die], die_id: str) -> dict[str, tuple[int, int]]:
    """Which other colours of the roster the look of the entry ``die_id`` comes close to: each of its
    sightings named, left out, among every learnt look (`controller.roster.learnt_palette`'s, pooled
    by colour): by colour, how many of its sightings would be asked about it (a die between the two)
    and how many named it.  Empty when the roster does not name colours by looks yet, or the entry
    has a single sighting.  A table tells two players' dice apart only as well as their looks differ:
    a close colour is asked about in play, and more photos of each die help."""
    from vision.looks import LearntPalette, Look, pooled

    entry = next((d for d in dice if d.id == die_id), None)
    if entry is None or entry.look is None or learnt_palette(dice) is None:
        return {}
    mine = Look.from_json(entry.look).labs
    if len(mine) < 2:
        return {}
    others = [(d.colour, Look.from_json(d.look)) for d in dice if d.look is not None and d is not entry]
    out: dict[str, list[int]] = {}
    for i, row in enumerate(mine):
        rest = Look(mine[:i] + mine[i + 1 :])
        palette = LearntPalette.of(pooled([*others, (entry.colour, rest)]))
        got, near = palette.near_two(np.asarray(row, np.float64))
        colour = entry.colour.casefold()
        if got != colour:
            out.setdefault(got, [0, 0])[1] += 1
        elif near is not None:
            out.setdefault(near, [0, 0])[0] += 1
    return {c: (a, n) for c, (a, n) in out.items()}


def close_notes(cfg: TableConfig, die: Die) -> list[str]:
    """What to tell the person who taught ``die``'s look about the colours it comes close to
    (`close_colours`): one line a colour, none when it stands apart."""
    roster = Roster(cfg.roster_path)
    seen = len((die.look or {}).get("labs") or [])
    return [
        f"{die.id} looks like the {other} dice in {asked + named} of its {seen} sightings "
        f"({named} named {other}, {asked} asked between the two): such dice will be asked about; "
        "more photos of each die help"
        for other, (asked, named) in sorted(close_colours(roster.dice, die.id).items())
    ]


def _log_row(cfg: TableConfig) -> Any:
    def row(data: dict[str, Any], who: str) -> None:
        from controller.eventlog import EventLog

        log = EventLog(cfg.database_path())
        try:
            log.append(log.latest_game() or 0, "control", {**data, "who": who}, "admin", who)
        finally:
            log.close()

    return row
