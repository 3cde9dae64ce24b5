"""The sizes of the table's dice in mm (issue 44): ``[dice] sizes_mm`` and each die of the table's
roster that knows its own (`controller.roster`, ``size_mm``, set on the admin page or in the roster
file).  Through the board's pose they become pixels (`controller.where.TableWhere`): the die-size
step, and a still's finer look, which puts the smallest die at the detector's trained size
(`vision.numbered.reader.NumberedReader.spotted`).  A table without a board and its calibration
cannot turn mm into pixels: ``check-config`` says so (`size_notes`), and ``[vision] die_size_px``
gives the size in pixels instead; a table whose camera takes stills and that knows no size at all is
told that small dice need one (`still_note`)."""

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


def takes_stills(spec: str) -> bool:
    """Whether the camera ``spec`` names takes a full-resolution still of each settled throw
    (`hardware.stills.open_with_stills`: ``picam``, ``v4l2:N``/``usb:N``, a recording with stills)."""
    from pathlib import Path

    from hardware.stills import STILLS_CSV

    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picam":
        return True
    if kind in ("v4l2", "usb"):
        return bool(arg)
    return kind == "recorded" and bool(arg) and (Path(arg) / STILLS_CSV).is_file()


def size_notes(cfg: Any, camera: str | None = None) -> list[tuple[str, str]]:
    """What ``check-config`` says (printed, never refused) when the table cannot see its dice's size
    in pixels (no ``[vision] die_size_px``, no board and calibration to project mm through): when the
    roster knows its dice's sizes in mm; else when the camera (``camera``, default the file's) takes
    stills, whose small dice are then looked for in 1600x900 px of each (`still_note`)."""
    sizes = roster_sizes_mm(cfg)
    if cfg.vision.die_size_px is not None:
        return []
    if not sizes:
        return still_note(cfg, camera or cfg.camera.source)
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


def still_note(cfg: Any, camera: str) -> list[tuple[str, str]]:
    """A table whose camera takes stills and that knows no die size in pixels (issue 44): a still's
    small dice are looked for in 1600x900 px of it, where a 40 px die of a 4608x2592 still is 14 px
    and found and read less often than at its size (benchmarks/small_stills.py, RESULTS "a table
    that knows no die size"); the note says a size is needed for small dice."""
    if not takes_stills(camera):
        return []
    if cfg.board.layout and cfg.board.calibration and cfg.vision.die_size:
        return []
    return [
        (
            "vision.die_size_px",
            f"the camera ({camera}) takes a still of each throw, but the table does not know its dice's "
            "size in pixels (no [vision] die_size_px, nor a board and calibration to see mm in pixels), "
            "so a still's small dice are looked for in 1600x900 px of it: a die under about 60 px of a "
            "4608x2592 still (17 px in a 1280x720 video frame) is found and read right less often; for "
            "small dice set [vision] die_size_px = [low, high], the die's box in the camera's video "
            "frame ('dicetable read --explain' prints the boxes)",
        )
    ]
