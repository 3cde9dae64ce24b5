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
        return learnt_notes(cfg)
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
    wins = "the stated camera_tilt_deg wins: no view is learnt from the teaching rolls"
    notes = [("vision.learn_camera_view", wins)] if v.learn_camera_view else []
    notes += [
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


def learnt_notes(cfg: Any) -> list[tuple[str, str]]:
    """``check-config``'s notes on ``[vision] learn_camera_view`` with no view stated: the view the
    table learnt from its teaching rolls (`controller.learn_view`), or that none is learnt yet."""
    from controller.learn_view import learnt_of, learnt_problem, view_path

    if not cfg.vision.learn_camera_view:
        return []
    bad = learnt_problem(cfg)
    if bad is not None:
        return [("vision.learn_camera_view", bad)]
    got = learnt_of(cfg)
    if got is None:
        return [
            (
                "vision.learn_camera_view",
                "no camera view learnt yet: 'dicetable learn-dice see --config' learns it from the teaching "
                "rolls (with the empty table), 'confirm --config' keeps it in " + str(view_path(cfg)),
            )
        ]
    what = (
        "no tilt: each d20 is cut as from straight above"
        if got.tilt_deg is None
        else f"{got.tilt_deg:g} degrees off straight down, the point below it at {got.nadir_deg:g} degrees "
        f"from the frame's centre, lens {got.focal:.3g} x the frame's width: each d20 is cut on its top face"
    )
    return [
        (
            "vision.learn_camera_view",
            f"the camera's view learnt from the teaching rolls ({view_path(cfg)}): {what}; to override it "
            "state [vision] camera_tilt_deg (0 for straight down), or remove that file and teach again",
        )
    ]
