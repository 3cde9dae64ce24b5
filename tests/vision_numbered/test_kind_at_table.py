"""Kind at a table (issue 43 item 5): a numbered die's kind from the table's dice (its roster), its
value then read at that one kind (controller.kind_at_table, vision.numbered.table_kind)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.table_stills import frames_of
from controller.config import parse_config
from controller.kind_at_table import TableKinds
from controller.perceive import Perceiver
from vision.numbered.outline import outline
from vision.numbered.table_kind import outline_kind
from vision.reading import DieReading

#: a TRAIN-split real d20 (d20_lurig's d20_color set-up) showing 8: at a Die-angler table's three
#: kinds it is read right but asked (~0.3: a numeral a d10 has too)
PHOTO = "d20_lurig/images/f08_d20_color_0000.jpg"


def _roster(path: Path, kinds: list[tuple[str, float | None]]) -> Path:
    dice = [
        {"id": f"die-{i}", "kind": k, "owner": "ann", "colour": "green", "size_mm": s}
        for i, (k, s) in enumerate(kinds)
    ]
    path.write_text(json.dumps({"format": "dicetable-roster/1", "dice": dice}), encoding="utf-8")
    return path


def _read(tmp_path: Path, photo: np.ndarray, roster: Path | None) -> object:
    # the photo laid in a 4608x2592 still of its border's colour, as the benchmark lays it
    still, video, _, empty = frames_of(photo)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    raw: dict = {"table": {"game": "die-angler"}}
    raw["vision"] = {"empty_table_frame": str(tmp_path / "empty.png")}
    if roster is not None:
        raw["table"]["roster"] = str(roster)
    seen = Perceiver.from_config(parse_config(raw)).perceive(still, frame=video)
    centre = (640.0, 360.0)
    dice = [d for d in seen.dice if d.center is not None and math.dist(d.center, centre) < 60]
    assert len(dice) == 1, seen.dice
    return dice[0]


def test_a_roster_of_one_numbered_kind_reads_a_real_d20_unasked(tmp_path: Path, real_fixtures: Path) -> None:
    photo = cv2.imread(str(real_fixtures / PHOTO))
    # without a roster: three kinds, a numeral a d10 has too: asked
    asked = _read(tmp_path, photo, None)
    assert (asked.kind, asked.value) == ("d20", 8) and asked.unsure
    # the table's dice are pip d6 and this d20: the kind is settled, the value read at d20 alone
    die = _read(tmp_path, photo, _roster(tmp_path / "r.json", [("d6", 16.0), ("d6", None), ("d20", 20.0)]))
    assert (die.kind, die.value) == ("d20", 8) and not die.unsure and die.confidence >= 0.8
    # a roster with a d10 and a d20 (no sizes, no board) does not settle it: asked
    both = _read(tmp_path, photo, _roster(tmp_path / "r2.json", [("d10", None), ("d20", None)]))
    assert both.unsure


def _drawn(corners: int) -> np.ndarray:
    """A die drawn from above on a grey table: a hexagon (a d20's outline) or a square (a d6's)."""
    image = np.full((200, 200, 3), 120, np.uint8)
    a = np.linspace(0, 2 * np.pi, corners, endpoint=False) + np.pi / 4
    pts = np.stack([100 + 45 * np.cos(a), 100 + 45 * np.sin(a)], 1).astype(np.int32)
    cv2.fillPoly(image, [pts], (40, 160, 40))
    return image


def test_the_table_s_dice_settle_a_numbered_die_s_kind() -> None:
    """The candidates are the table's kinds narrowed to its roster's; one numbered kind left settles
    it, at a table with d6 only for a die whose outline is not a square (a numeral d6's)."""
    die = DieReading(
        kind="d10",
        value=7,
        center=(100.0, 100.0),
        quad=((55, 55), (145, 55), (145, 145), (55, 145)),
        confidence=0.2,
        colour="green",
    )
    round_die, square_die = _drawn(6), _drawn(4)
    angler = ("d6", "d10", "d20")
    assert TableKinds(angler)(round_die, die) is None  # no roster: a d10 or a d20, asked
    assert TableKinds(angler, ["d6", "d20", "d20"])(round_die, die) == "d20"
    assert TableKinds(angler, ["d6", "d20", "d20"])(square_die, die) is None  # a numeral d6's outline
    assert TableKinds(angler, ["d10", "d6"])(round_die, die) == "d10"
    assert TableKinds(angler, ["d10", "d20"])(round_die, die) is None
    assert TableKinds(angler, ["d10p"])(round_die, die) is None  # a die the table does not read: no help
    assert TableKinds(("d10", "d20"), ["d20"])(square_die, die) == "d20"  # no d6 at the table
    # a table of one numbered kind reads at it already (Dice Fighter's d10p): its reading is left as it is
    assert TableKinds(("d10p",))(round_die, die) is None
    assert TableKinds(("d6", "d20"), ["d20"])(round_die, die) is None


def test_a_real_d20s_outline_is_round_and_a_numeral_d6s_square(real_fixtures: Path) -> None:
    rows = list(csv.DictReader((real_fixtures / "d20_imac1844" / "labels.csv").open(encoding="utf-8")))
    d20 = next(r for r in rows if r["kind"] == "d20" and r["face"] == "7")
    d6 = next(r for r in rows if r["kind"] == "d6" and r["die"] == "Black")
    for row, want in ((d20, "d20"), (d6, None)):
        img = cv2.imread(str(real_fixtures / "d20_imac1844" / row["file"]))
        h, w = img.shape[:2]
        o = outline(img, (w / 2, h / 2), 0.5 * min(h, w))
        assert outline_kind(o, ("d6", "d20")) == want, (row["file"], o)
        assert outline_kind(o, ("d6", "d10", "d20")) is None  # its guard: a d10's outline is as round


@pytest.mark.parametrize("bad", [None, "d6"])
def test_a_table_of_pip_d6_or_a_reader_handed_in_has_no_kind_route(bad: str | None) -> None:
    raw: dict = {"table": {"game": "die-angler"}}
    if bad:
        raw["table"]["kinds"] = [bad]
    p = Perceiver.from_config(parse_config(raw))
    assert getattr(p.reader, "kind_of", None) is (None if bad else p.reader.kind_of)
