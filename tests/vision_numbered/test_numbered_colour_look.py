"""Issue 44 item 5: a numbered die is named by the table's learnt looks as a d6 is.

The d6 reader names a die by its look cut at its detector's box (`vision.looks.LearntPalette.describe_at`,
the crop a roster learns a die's look from: `controller.roster.die_look`) and asks about a die between
two learnt colours.  The numbered reader named a die by its body's colour alone, carried no box, no
look and never asked.  Now its readings carry their detector's box and, with a palette of learnt looks,
the look they were named by and the colour they lie nearly as near (`Palette.looks_at`).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numbered_helpers import load_scene

from controller.roster import die_look
from tests.real_photos import REAL, real_photos
from vision.looks import LearntPalette, Look, look_of, pooled
from vision.numbered.reader import NumberedReader
from vision.palette import Palette
from vision.reading import box_quad

needs_real = real_photos("d20_imac1844/images/Green_Transparent_d20_10.jpg")


def _truth_colour(truth: dict, center: tuple[float, float]) -> str | None:  # type: ignore[type-arg]
    x, y = center
    for d in truth["dice"]:
        x0, y0, x1, y1 = d["box_px"]
        if x0 <= x <= x1 and y0 <= y <= y1:
            return str(d["colour"])
    return None


def test_a_numbered_die_is_named_by_its_look_at_its_box_and_asked_between_two(reader: NumberedReader) -> None:
    img, truth = load_scene("fighter_round")  # six d10p: two red, two blue, two green
    light = Palette.default().balanced_by_frame(img).light
    assert light is not None
    plain = LearntPalette.of({"x": Look.learn([[50.0, 0.0, 0.0]])})
    learnt: list[tuple[str, Look]] = []
    for d in truth["dice"]:
        x0, y0, x1, y1 = d["box_px"]
        quad = box_quad(((x0 + x1) / 2, (y0 + y1) / 2), x1 - x0, y1 - y0)
        learnt.append((d["colour"], Look.learn([die_look(img, quad, Palette(light=light))])))
    pal = LearntPalette.of(pooled(learnt)).balanced(*light)
    read = reader.read(img, pal)
    assert len(read) == 6
    for r in read:
        assert r.box is not None and r.look is not None  # before: no box, no look
        assert (r.colour, r.colour_near) == (_truth_colour(truth, r.center), None)
        # the look it was named by is the one at its detector's box, the roster's crop
        assert np.allclose(r.look, die_look(img, r.box, pal), atol=1e-6)
    # a second colour learnt from the red dice's own looks: a red die lies as near both, and is asked
    twin = LearntPalette.of(pooled([*learnt, *(("crimson", lk) for c, lk in learnt if c == "red")]))
    reds = [r for r in reader.read(img, twin.balanced(*light)) if _truth_colour(truth, r.center) == "red"]
    assert len(reds) == 2 and all({r.colour, r.colour_near} == {"red", "crimson"} for r in reds)
    # a plain palette names a numbered die by its body's colour as before (no look, never asked)
    assert all(r.look is None and r.colour_near is None for r in reader.read(img, Palette.default()))
    assert plain.looks_at(img, [], []) == []


@needs_real
def test_a_d20_read_with_its_numeral_keeps_its_box_and_the_look_it_was_named_by(
    reader: NumberedReader,
) -> None:
    """A die whose kind or value the OCR head weighs in is read anew (`vision.numbered.ocr`'s opinion,
    `table_kind`, `combined`): it keeps its box, its look and the colour it lies nearly as near."""
    img = cv2.imread(str(REAL / "d20_imac1844" / "images" / "Green_Transparent_d20_10.jpg"))  # real
    pal = Palette.default().balanced_by_frame(img)
    look = die_look(img, box_quad((100.0, 100.0), 120.0, 120.0), pal)
    black = look_of([np.full((64, 64, 3), 25, np.uint8)], pal)[0]
    learnt = LearntPalette.of({"green": Look.learn([look]), "black": Look.learn([black])})
    read = reader.read(img, replace(learnt, light=pal.light), kinds=("d6", "d20"))
    d20 = [r for r in read if r.kind == "d20"]
    assert d20 and all(r.box is not None and r.look is not None and r.colour == "green" for r in d20)


def test_a_die_the_roster_knows_is_not_asked_about_its_colour() -> None:
    """A numbered die its roster entry's faces (and look) match takes the entry's colour: the colour a
    learnt look left it between (``colour_near``, now said of numbered dice too) is not asked."""
    from controller.roster import Die, RosterView
    from vision.numbered.learnt import DiceSet
    from vision.numbered.reader import UNCONFIRMED

    s = DiceSet("x", "d20", "", "e1", np.array([3]), np.asarray([[1.0, 0.0]], np.float32))
    faces = {"dice_set": None, "taught": s.faces, "crops": len(s.values), "set": s.to_json()}
    view = RosterView((Die("ann-d20", "d20", "ann", "red", faces=faces),))
    read = {"kind": "d20", "value": 3, "confidence": 0.95, "colour": "red", "colour_near": "maroon"}
    (got,) = view.settle([{**read, "learnt": "ann-d20"}], UNCONFIRMED)
    assert got["die"] == "ann-d20" and got["colour"] == "red" and "colour_near" not in got
    (unknown,) = view.settle([read], UNCONFIRMED)  # a die none of its dice match: still asked
    assert unknown["colour_near"] == "maroon"
