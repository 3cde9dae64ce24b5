"""A small die in a full-resolution still is found (issue 44 item 2, at the still's resolution): the
detector reads a still where the table's dice are as big as it was trained on, not at its usual
~480x360 input, where a 60 px die of a 4608x2592 still is 7 px (`NumberedReader.spotted`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.learnt_cli import die_size
from benchmarks.small_stills import STILL, SURE, VIDEO, lay, outline, video_of
from controller.config import parse_config
from controller.perceive import Perceiver
from vision.numbered import reader as reader_module
from vision.numbered.reader import Found, NumberedReader, default_reader, die_side, finer, still_copies
from vision.reading import DieReading, box_quad
from vision.where import DieSize

#: TRAIN-split real d20s (d20_lurig's d20_off-angle and d20_color set-ups)
PHOTOS = (
    "d20_lurig/images/f01_d20_off-angle_0006.jpg",
    "d20_lurig/images/f13_d20_color_0574.jpg",
)
DIE_PX = 60.0
K = VIDEO[0] / STILL[0]


def _still(
    real: Path, photo: str, seed: int, die_px: float = DIE_PX
) -> tuple[np.ndarray, tuple[float, float]]:
    img = cv2.imread(str(real / photo))
    size = die_size(img)
    assert size is not None
    colour = np.median(np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]]), 0)
    return lay(img, size, colour, np.random.default_rng(seed), die_px)


def _found(
    tmp_path: Path,
    still: np.ndarray,
    centre: tuple[float, float],
    vision: dict[str, Any],
    die_px: float = DIE_PX,
    every: list[Any] | None = None,
) -> list[Any]:
    """The readings of the still through the table's perception step (`read --config`) that are the
    die: near its centre, its outline at most twice its side (gate frame pixels); ``every``: given
    every reading."""
    raw: dict[str, Any] = {"table": {"game": "die-angler"}}
    if vision:
        raw["vision"] = vision
    seen = Perceiver.from_config(parse_config(raw)).perceive(still, frame=video_of(still))
    if every is not None:
        every[:] = seen.dice
    c, side = (centre[0] * K, centre[1] * K), die_px * K
    return [
        d
        for d in seen.dice
        if d.center is not None and math.dist(d.center, c) <= side and outline(d) <= 2 * side
    ]


@pytest.mark.parametrize("photo", PHOTOS)
def test_a_60px_real_die_in_a_4608_still_is_found(
    tmp_path: Path, real_fixtures: Path, photo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    still, centre = _still(real_fixtures, photo, 7)
    edge = DIE_PX * K  # 17 px in the gate's 1280x720 frame
    known = {"die_size_px": [round(0.7 * edge, 1), round(1.8 * edge, 1)]}
    # the table knows its dice's size in pixels: found; and knowing nothing of it: found too
    assert len(_found(tmp_path, still, centre, known)) == 1
    assert len(_found(tmp_path, still, centre, {})) == 1
    # as the reader read a still before: the detector's ~480x360 input boxes the die 4 times too big,
    # or misses it
    monkeypatch.setattr(NumberedReader, "fine_stills", False)
    assert _found(tmp_path, still, centre, known) == []
    assert _found(tmp_path, still, centre, {}) == []


def test_a_40px_real_die_in_a_4608_still_is_found_where_the_table_knows_its_size(
    tmp_path: Path, real_fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 40 px die (11 px in the gate's frame): the finer look puts it at 24 px in the detector's input
    (2765x1555 of the still); at session 19's cap of 1600x900 it was 14 px there and not found."""
    still, centre = _still(real_fixtures, "d20_lurig/images/f08_d20_color_0017.jpg", 7, 40.0)
    edge = 40.0 * K
    known = {"die_size_px": [round(0.7 * edge, 1), round(1.8 * edge, 1)]}
    every: list[Any] = []
    assert len(_found(tmp_path, still, centre, known, 40.0, every)) == 1
    assert len(every) == 1  # and nothing else read: no phantom
    monkeypatch.setattr(reader_module, "MAX_DET_AREA", 1600 * 900)
    assert _found(tmp_path, still, centre, known, 40.0) == []


def test_a_large_die_in_a_still_is_read_once(real_fixtures: Path) -> None:
    """A die at a photo's own pixels (~240 px) in the still: one reading (the finer look's peaks on its
    numerals are the large die's), where the usual look reads it."""
    img = cv2.imread(str(real_fixtures / PHOTOS[0]))
    still = np.empty((STILL[1], STILL[0], 3), np.uint8)
    still[:] = np.median(np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]]), 0)
    h, w = img.shape[:2]
    y0, x0 = (STILL[1] - h) // 2, (STILL[0] - w) // 2
    still[y0 : y0 + h, x0 : x0 + w] = img
    size = die_size(img)
    assert size is not None
    centre = (x0 + size[0][0], y0 + size[0][1])
    got = default_reader().read(still)
    near = [r for r in got if math.dist(r.center, centre) <= size[1]]
    assert len(near) == 1 and len(got) == 1


def _f(x: float, y: float, side: float, score: float) -> Found:
    return Found((x, y), side, side, score, (x, y))


def test_finer_puts_a_small_die_in_place_of_its_blurred_box() -> None:
    s = 0.1  # the usual look's input over the frame's pixels: a box under 120 px is too small for it
    blurred = _f(1000, 1000, 250, 0.5)  # the usual look boxes a 60 px die 4 times too big
    fine = [
        _f(1010, 990, 60, 0.4),  # the small die, seen by the finer look
        _f(3000, 500, 55, 0.3),  # a small die the usual look did not see
        _f(2000, 2000, 200, 0.7),  # a large die only the finer look saw: the usual look's to find
    ]
    assert finer([blurred], fine, s) == [fine[0], fine[1]]


def test_finer_keeps_large_dice_and_drops_their_numerals_and_print() -> None:
    s = 0.1
    large, other = _f(100, 100, 300, 0.9), _f(1000, 1000, 280, 0.7)
    fine = [
        _f(105, 95, 280, 0.8),  # the finer look sees the large die too...
        _f(60, 120, 50, 0.6),  # ...and a numeral of it
        _f(990, 1010, 110, 0.4),  # a part of the other die, which it does not see whole
        _f(3000, 500, 55, 0.5),  # a board's printed numeral, far smaller than the dice
    ]
    assert finer([large, other], fine, s) == [large, other]


def test_the_die_size_the_table_knows() -> None:
    assert die_side([], 4608, 2592) is None
    assert die_side([DieSize.fixed(40, 90)], 4608, 2592) == pytest.approx(60.0)
    # a set of sizes: the smallest die (a board's step gives the median die, `controller.where`)
    assert die_side([DieSize(lambda x, y: 60.0, smallest=0.75)], 4608, 2592) == pytest.approx(45.0)
    # a still of unknown dice: two looks; the usual one alone for a frame no larger than video
    r = default_reader()
    assert r.detect_scale(4608, 2592, 80.0) == pytest.approx(24 / 80)
    assert r.detect_scale(4608, 2592, 40.0) == pytest.approx(24 / 40)  # 2765x1555 of the still
    # a 60 px die is 21 px in 1600x900 of the still: enough, the look grows no further (GROW_UNDER)
    assert r.detect_scale(4608, 2592, 60.0) == pytest.approx(1600 / 4608)
    assert r.detect_scale(4608, 2592, 30.0) == pytest.approx(math.sqrt(2880 * 1620 / (4608 * 2592)))  # capped
    assert r.detect_scale(4608, 2592, 300.0) is None  # the usual input shows it 36 px: enough
    frame = np.full((720, 1280, 3), 128, np.uint8)
    copies = still_copies(frame)
    assert copies.video is None and r.spotted(frame, copies)[1] is copies


class _Looks(NumberedReader):
    """The reader's looks at a still without its nets: each call's input area recorded, nothing found."""

    def __init__(self) -> None:  # no nets loaded
        self.det_area = reader_module.DET_AREA
        self.looks: list[float | None] = []

    def detect(self, image: np.ndarray, det_area: float | None = None, shrunk: Any = None) -> list[Found]:
        self.looks.append(det_area)
        return []


def _die(side: float, x: float = 1000.0) -> DieReading:
    return DieReading(
        kind="d20",
        value=5,
        center=(x, 600.0),
        quad=box_quad((x, 600.0), side, side),
        confidence=0.3,
        colour="blue",
    )


def test_a_table_that_knows_no_size_reads_a_still_again_sized_for_its_smallest_small_die() -> None:
    """`NumberedReader.fine_self_sized`, tried and off by default (benchmarks/small_stills.py's
    "tried" row): the rule as that row reads."""
    r = _Looks()
    assert not NumberedReader.fine_self_sized  # off by default
    r.fine_self_sized = True
    still = np.zeros((STILL[1], STILL[0], 3), np.uint8)
    copies = reader_module.Copies(np.zeros((STILL[1] // 2, STILL[0] // 2, 3), np.uint8), 2.0, video_of(still))
    # a 40 px die is 14 px in the 1600x900 look (under GROW_UNDER): read again, sized for it
    assert r.self_sized(still, copies, [_die(120.0, 300.0), _die(40.0)]) == pytest.approx(40.0)
    # a 60 px die is 21 px there: read once, as before; so a table that knows its size, a frame no
    # larger than video, no die read, or the rule off
    assert r.self_sized(still, copies, [_die(60.0)]) is None
    assert r.self_sized(still, copies, [_die(40.0)], [DieSize.fixed(30, 50)]) is None
    assert r.self_sized(still, reader_module.Copies(still, 1.0, None), [_die(40.0)]) is None
    assert r.self_sized(still, copies, []) is None
    r.fine_self_sized = False
    assert r.self_sized(still, copies, [_die(40.0)]) is None
    # read again with that size: the finer look at the die's size (24 px), no FINE_AREA or coarse look
    r.spotted(still, copies, (), 40.0)
    assert r.looks == [None, pytest.approx((24 / 40) ** 2 * STILL[0] * STILL[1])]


def test_a_small_die_at_a_table_that_knows_nothing_is_no_sure_phantom(
    tmp_path: Path, real_fixtures: Path
) -> None:
    """A 40 px real d20 (train) at a table with no size and no empty table: the coarse look boxed it as
    big as the usual look (70 px in the gate's frame, 6 times its side), so the box was confirmed as a
    large die and read as a sure d6 "1", the die its one pip (session 21).  Its box is almost all
    table (`box_filled`): the finer look's die takes its place, read at its size, not surely wrong."""
    still, centre = _still(real_fixtures, "d20_lurig/images/f17_d20_off-angle_0947.jpg", 2, 40.0)
    every: list[Any] = []
    die = _found(tmp_path, still, centre, {}, 40.0, every)
    assert len(die) == 1
    assert not [d for d in every if (d.confidence or 0) >= SURE and not (d.kind == "d20" and d.value == 17)]


def test_box_filled_tells_a_small_die_on_the_table_from_a_die_of_its_box() -> None:
    image = np.full((400, 400, 3), (200, 205, 210), np.uint8)
    image += np.random.default_rng(1).integers(0, 4, image.shape, dtype=np.uint8)  # the sensor's noise
    cv2.rectangle(image, (190, 190), (210, 210), (20, 30, 160), -1)  # a 20 px die in a 140 px box
    cv2.rectangle(image, (260, 40), (360, 140), (20, 30, 160), -1)  # a 100 px die in a 120 px box
    assert reader_module.box_filled(image, _f(200, 200, 140, 0.5)) < reader_module.FILLED
    assert reader_module.box_filled(image, _f(310, 90, 120, 0.5)) > 0.5


def test_finer_confirms_a_coarse_box_only_where_it_holds_a_die_of_its_size() -> None:
    s = 0.1
    box = _f(1000, 1000, 250, 0.5)  # the usual look's box round a small die...
    coarse = [_f(1010, 1000, 300, 0.4)]  # ...and the coarse look's, about as big
    fine = [_f(1005, 995, 40, 0.4)]  # the small die, seen by the finer look
    assert finer([box], fine, s, coarse) == [box]  # as session 21: taken for a large die
    assert finer([box], fine, s, coarse, lambda u: False) == [fine[0]]  # mostly table: the die
    assert finer([box], fine, s, coarse, lambda u: True) == [box]  # a die of its size
