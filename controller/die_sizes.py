"""The sizes of the table's dice in mm (issue 44): ``[dice] sizes_mm`` and each die of the table's
roster that knows its own (`controller.roster`, ``size_mm``, set on the admin page or in the roster
file).  Through the board's pose they become pixels (`controller.where.TableWhere`): the die-size
step, and a still's finer look, which puts the smallest die at the detector's trained size
(`vision.numbered.reader.NumberedReader.spotted`).  A table without a board and its calibration
cannot turn mm into pixels: ``check-config`` says so (`size_notes`), and ``[vision] die_size_px``
gives the size in pixels instead."""

from __future__ import annotations

from typing import Any


def roster_sizes_mm(cfg: Any) -> list[float]:
    """The sizes (mm, smallest first, each once) of the dice of the table's roster that know theirs;
    [] without a roster, or with one the table refuses (the roster's own check says why)."""
    from controller.roster import RosterError, load_roster

    path = cfg.roster_path
    if not path.is_file():
        return []
    try:
        dice = load_roster(path)
    except RosterError:
        return []
    return sorted({float(d.size_mm) for d in dice if d.size_mm is not None})


def table_sizes_mm(cfg: Any) -> list[float] | None:
    """Every die size in play (mm): ``[dice] sizes_mm`` and the roster's dice's sizes together,
    smallest first; None when neither names one (the board file's deprecated size, else 16 mm)."""
    own = [float(v) for v in cfg.dice.sizes_mm or ()]
    sizes = sorted({*own, *roster_sizes_mm(cfg)})
    return sizes or None


def size_notes(cfg: Any) -> list[tuple[str, str]]:
    """What ``check-config`` says (printed, never refused) when the roster knows its dice's sizes in
    mm but the table cannot see them in pixels: no board and calibration to project them through,
    and no ``[vision] die_size_px``."""
    sizes = roster_sizes_mm(cfg)
    if not sizes or cfg.vision.die_size_px is not None:
        return []
    if cfg.board.layout and cfg.board.calibration:
        if cfg.vision.die_size:
            return []
        why = "[vision] die_size is off"
    else:
        why = "the table has no board and calibration ([board] layout, calibration) to see mm in pixels"
    shown = ", ".join(f"{v:g}" for v in sizes)
    return [
        (
            "roster",
            f"{cfg.roster_path}: its dice are {shown} mm, but {why}: the table does not know its dice's "
            "size in pixels, so a still's small dice are looked for in 1600x900 px of it (a die under "
            "about 60 px of a 4608x2592 still may be missed); set [vision] die_size_px = [low, high], "
            "the die's box in the camera's video frame ('dicetable read --explain' prints the boxes)",
        )
    ]
