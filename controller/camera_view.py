"""A camera stated to look at the table at an angle (``[vision] camera_tilt_deg``, issue 44): what
``check-config`` says of it (`view_notes`, printed, never refused).

At 45 degrees a d20's side faces face the camera more squarely than its top face, and a crop centred on
the whole die shows a side face; with the tilt stated, `learn-dice` and `read` cut each d20 on its top
face instead (`vision.oblique.resting_top`, `vision.numbered.die_crop.top_cut`)."""

from __future__ import annotations

from typing import Any

_WAY = {0: "right", 90: "below", 180: "left", 270: "above"}


def view_notes(cfg: Any) -> list[tuple[str, str]]:
    """``check-config``'s notes on ``[vision] camera_tilt_deg``: what the stated view does, and when it
    does nothing (no d20 among the table's kinds)."""
    from controller.perceive import game_kinds

    v = cfg.vision
    if v.camera_tilt_deg is None:
        return []
    kinds = tuple(cfg.table.kinds) if cfg.table.kinds else game_kinds(cfg.table.game)
    way = _WAY.get(round(v.camera_nadir_deg) % 360, f"at {v.camera_nadir_deg:g} degrees")
    said = (
        f"the camera is taken to look {v.camera_tilt_deg:g} degrees off straight down, the point below "
        f"it {way} the frame's centre (camera_nadir_deg {v.camera_nadir_deg:g}), its lens "
        f"{v.camera_focal:g} x the frame's width"
    )
    if "d20" not in kinds:
        return [
            (
                "vision.camera_tilt_deg",
                f"{said}; it changes nothing here: only d20 are cut by it, "
                f"and this table reads {', '.join(kinds)}",
            )
        ]
    notes = [
        (
            "vision.camera_tilt_deg",
            f"{said}: each d20 is cut on its top face for learn-dice and read alike, where the table "
            "has its empty table (without one, as before); a set learnt before this was set (or with "
            "another tilt) was cut otherwise: teach it again",
        )
    ]
    if "camera_focal" not in v.model_fields_set:
        notes.append(
            (
                "vision.camera_focal",
                f"not stated, so the lens is guessed ({v.camera_focal:g} x the frame's width): state it "
                "(the focal length over the frame's width, or 1 / (2 tan(half the horizontal field of "
                "view))); on renders a guessed lens placed the top face worse and learn-dice see mixed "
                "more faces, and more dice were read surely wrong (benchmarks/RESULTS.md, the top face "
                "of an oblique d20)",
            )
        )
    return notes
