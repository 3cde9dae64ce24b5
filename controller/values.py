"""A pip d6's value read again from its top face at the board (issue 45 item 2).

The reader reads each die from its box in the frame.  Once the board's pose has placed a die
(`calibration.geometry.place`: its top face's footprint on the board, its size and stack level), its
top face lies at a known place in the frame: the square on the plane of that face, centred on it and
``MARGIN`` times its side (`calibration.topface.face_square_px`), is cut from the frame the table
read (the full-resolution still when the camera takes one, `hardware.stills`) as seen from straight
above and read by the classifier of warped top faces (`vision.reader.DiceReader.classify`,
``warped``).  The two reads are then weighed:

* they agree and the top face reads surely (``SURE``): the die is read as sure as the surer of the
  two, unless the reader had held it at or under ``DOUBT`` for what it knows of it (a die cut by the
  frame's edge, one the numbered classifier takes for another kind, a piece the classifier called
  "not a die" that the empty table insists on): those stay asked;
* the top face reads another value surely: the die is asked (read no surer than ``DOUBT``), with
  the surer read's value;
* the top face reads no value surely: the reader's value stands, as sure as the reader read it when
  the top face's likeliest value is the same, else no surer than the top face's probability of it.

A reading of a die another, surer reading of the frame reads too (`twice`) is never made surer.  A
die whose top face's square is not wholly in the frame, a die remembered under another
(`calibration.memory`), a numbered die, and a frame whose reader has no classifier of pip faces
(a test's or a recording's) keep the reader's reading.  Tuned on the held-out renders of seed
20261207 (`benchmarks/values.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: the square cut about the top face, in the face's sides: 1.0-1.8 tried on seed 20261207's
#: held-out renders (1280x960), 1.5 read most right and no sure value wrong
MARGIN = 1.5
#: the top face's read is sure at this probability or more
SURE = 0.8
#: a value the two reads disagree on is read no surer than this (under the table's asking threshold,
#: so the table asks); a reading the reader held at or under it keeps its doubt
DOUBT = 0.5
#: two placed readings whose centres lie under this many sides apart may read one die twice: the
#: less sure one is never made surer (held-out seed 20261209: four sure phantoms, each a second
#: reading of a die beside the first, some placed a level up, before this rule)
TWICE = 1.0
#: False: the reader's reading alone, as before issue 45 item 2 (benchmarks compare the two)
ENABLED = True


def pip_classifier(reader: Any, kinds: Sequence[str]) -> Any:
    """The pip-d6 reader whose classifier reads warped top faces (`vision.reader.DiceReader`), for a
    table's reader: itself, the one inside `vision.numbered.combined.PipDice`, or the shared one at a
    table of numbered dice with d6 among them; None for a reader of the frame alone (a test's)."""
    from vision.reader import DiceReader, default_reader

    if isinstance(reader, DiceReader):
        return reader
    pips = getattr(reader, "pips", None)
    if isinstance(pips, DiceReader):
        return pips
    from vision.numbered.combined import NumberedDice

    if isinstance(reader, NumberedDice) and "d6" in kinds:
        return default_reader()
    return None


def weigh(value: int, confidence: float, probs: np.ndarray, lift: bool = True) -> tuple[int, float]:
    """The value and confidence of a die the reader read as ``value`` at ``confidence`` and its top
    face at the board as ``probs`` (softmax over not a die, 1..6); see the module's doc.  ``lift``:
    whether agreeing reads may make the die surer (not for a die read twice, `twice`)."""
    v2 = int(np.argmax(probs[1:])) + 1
    c2 = float(probs[v2])
    if c2 >= SURE:
        if v2 == value:
            return value, max(confidence, c2) if lift and confidence > DOUBT else confidence
        # two reads of two values: asked, the surer read's value shown
        return (v2 if c2 > confidence else value), min(confidence, DOUBT)
    if v2 == value:  # the same value, unsurely: the reader's confidence stands
        return value, confidence
    return value, min(confidence, float(probs[value]))


def twice(readings: list[dict[str, Any]], placed: list[int]) -> set[int]:
    """The placed readings that may be a die another, surer reading of the frame reads too: their
    centres on the board under TWICE of the larger die's side apart, at any stack levels (two dice
    side by side at one level lie a side apart or more; a die read twice, its sides or shadow the
    second reading, may be placed a level up, and a die under another shows too little of its top
    face to be made surer either)."""
    out: set[int] = set()
    for a in placed:
        for b in placed:
            ra, rb = readings[a], readings[b]
            if a == b:
                continue
            side = max(
                float(np.sqrt(abs(_area(np.asarray(r["footprint_mm"], np.float64))))) for r in (ra, rb)
            )
            apart = float(np.hypot(*(np.asarray(ra["board_center_mm"]) - np.asarray(rb["board_center_mm"]))))
            surer = (float(rb.get("confidence", 1.0)), b) > (float(ra.get("confidence", 1.0)), a)
            if apart < TWICE * side and surer:
                out.add(a)
    return out


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def read_top_faces(
    image: np.ndarray, readings: list[dict[str, Any]], pose: Any, calibration: Any, classifier: Any
) -> None:
    """Each placed pip d6 of ``readings`` (dicts in ``image``'s pixels, placed on the board by
    ``pose`` and ``calibration``, the board's calibration) read again from its top face and weighed
    (`weigh`), in place: its ``value`` and ``confidence``, and ``value_at_board`` (the top face's
    value and probability, for `dicetable read --explain` and the benchmarks)."""
    if not ENABLED or classifier is None or pose is None:
        return
    from calibration.topface import face_square_px
    from vision.crops import Pyramid
    from vision.oblique import crop_top

    h, w = image.shape[:2]
    cal = calibration.for_image(w, h)
    todo: list[tuple[int, np.ndarray]] = []
    for i, r in enumerate(readings):
        if (
            r.get("kind", "d6") != "d6"
            or r.get("hidden")
            or r.get("footprint_mm") is None
            or r.get("stack_level") is None
            or not isinstance(r.get("value"), int)
        ):
            continue
        try:
            quad, _ = face_square_px(
                np.asarray(r["footprint_mm"], np.float64), int(r["stack_level"]), pose, cal, MARGIN
            )
        except ValueError:
            continue
        if not (np.all(quad >= 0) and np.all(quad[:, 0] <= w - 1) and np.all(quad[:, 1] <= h - 1)):
            continue
        todo.append((i, quad))
    if not todo:
        return
    pyr = Pyramid(image)
    probs = classifier.classify([crop_top(pyr, q) for _, q in todo], 4, True)
    again = twice(readings, [i for i, _ in todo])
    for (i, _), p in zip(todo, probs, strict=True):
        r = readings[i]
        value, conf = weigh(int(r["value"]), float(r.get("confidence", 1.0)), p, i not in again)
        v2 = int(np.argmax(p[1:])) + 1
        r["value_at_board"] = [v2, round(float(p[v2]), 3)]
        r["value"] = value
        if conf != r.get("confidence"):  # kept to 3 decimals, as the readers keep theirs
            r["confidence"] = round(conf, 3)
