"""A die can only be where a die can be: each vision.where step, on and off."""

from __future__ import annotations

import numpy as np
import pytest
from vision_helpers import draw_row

from hardware.drawn import draw_die, felt
from vision.reader import DiceReader
from vision.where import DieSize, EmptyTable, PlayArea, board_outline_px


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def values_at(readings: list, x_lo: float, x_hi: float) -> list[int]:
    return [r.value for r in readings if x_lo <= r.center[0] <= x_hi]


def test_empty_table_drops_what_was_there_before_the_throw(reader: DiceReader) -> None:
    # a die printed on the table's cloth (or a die left as decoration) is part of the empty table
    empty = felt(480, 640, (60, 110, 40), np.random.default_rng(1))
    draw_die(empty, (140, 240), 48, 5, angle_deg=10, body_bgr=(235, 235, 235), pip_bgr=(25, 25, 25))
    frame = empty.copy()
    draw_die(frame, (470, 240), 48, 3, angle_deg=25, body_bgr=(235, 235, 235), pip_bgr=(25, 25, 25))
    # the light changed a little since the empty table was seen
    frame = np.clip(frame.astype(np.float32) * 1.06 + 3, 0, 255).astype(np.uint8)

    off = reader.read(frame, where=[])
    assert sorted(r.value for r in off) == [3, 5]  # the printed die reads as a die without the step

    step = EmptyTable(empty)
    on = reader.examine(frame, where=[step])
    assert [(r.value, round(r.center[0] / 10)) for r in on.readings] == [(3, 47)]
    assert [(j.step, round(j.center[0] / 10)) for j in on.rejected] == [("empty table", 14)]


def test_empty_table_relearnt_when_the_light_changes(reader: DiceReader) -> None:
    empty = felt(480, 640, (60, 110, 40), np.random.default_rng(2))
    frame = empty.copy()
    draw_row(frame, [2, 6], size=48)
    step = EmptyTable(np.zeros_like(empty))  # a wrong (black) reference: everything differs
    step.relearn(empty)
    assert sorted(r.value for r in reader.read(frame, where=[step])) == [2, 6]


def test_die_size_drops_a_box_many_times_a_die(reader: DiceReader) -> None:
    frame = felt(720, 960, (60, 110, 40), np.random.default_rng(3))
    draw_row(frame, [4, 1], size=48, y=120)
    # board art: a big die drawn on the board, five times a die's size
    draw_die(frame, (480, 470), 240, 6, angle_deg=5, body_bgr=(235, 235, 235), pip_bgr=(25, 25, 25))

    off = reader.read(frame, where=[])
    assert 6 in [r.value for r in off]  # without the step the art reads as a die

    for step in (DieSize.fixed(30, 80), DieSize.learnt([47, 50, 49, 52])):
        on = reader.examine(frame, where=[step])
        assert sorted(r.value for r in on.readings) == [1, 4]
        assert [j.step for j in on.rejected if j.center[1] > 300] == ["die size"]


def test_die_size_from_the_board_and_calibration() -> None:
    # a camera 600 mm straight above the board, f = 1000 px: a 16 mm die's top face (584 mm away)
    # is 1000 * 16 / 584 = 27.4 px wide below the camera
    k = np.array([[1000.0, 0, 640], [0, 1000.0, 480], [0, 0, 1]])
    size = DieSize.from_board(16.0, k, np.zeros(5), np.zeros(3), np.array([0.0, 0.0, 600.0]))
    assert size.expected(640, 480) == pytest.approx(1000 * 16 / 584, rel=1e-3)
    boxes = [(27.0, None), (80.0, "too big"), (8.0, "too small")]
    from vision.where import Box

    verdicts = size.check(np.zeros((960, 1280, 3), np.uint8), [Box((640, 480), s, s) for s, _ in boxes])
    for (_, want), got in zip(boxes, verdicts, strict=True):
        assert (got is None) if want is None else (want in (got or ""))


def test_play_area_looks_for_dice_only_inside_it(reader: DiceReader) -> None:
    frame = felt(480, 640, (60, 110, 40), np.random.default_rng(4))
    draw_row(frame, [2, 5], size=48, gap=6)  # one die at x = 176, one at x = 464
    assert sorted(r.value for r in reader.read(frame, where=[])) == [2, 5]
    tray = PlayArea(np.array([[300, 100], [620, 100], [620, 400], [300, 400]]))
    on = reader.examine(frame, where=[tray])
    assert [r.value for r in on.readings] == [5]
    assert [(j.step, j.why) for j in on.rejected] == [("play area", "outside the play area")]


def test_board_outline_projects_to_the_play_area() -> None:
    k = np.array([[1000.0, 0, 640], [0, 1000.0, 480], [0, 0, 1]])
    px = board_outline_px(
        np.array([[-100, -100], [100, -100], [100, 100], [-100, 100]]),
        k,
        np.zeros(5),
        np.zeros(3),
        np.array([0.0, 0.0, 500.0]),
    )
    assert np.allclose(px, [[440, 280], [840, 280], [840, 680], [440, 680]])


def test_steps_refuse_bad_input_naming_it() -> None:
    with pytest.raises(ValueError, match="play area: expected a polygon of 3 or more"):
        PlayArea(np.array([[0, 0], [10, 10]]))
    with pytest.raises(ValueError, match="encloses no area"):
        PlayArea(np.array([[0, 0], [10, 10], [20, 20]]))
    with pytest.raises(ValueError, match=r"die size range: expected 0 < low <= high"):
        DieSize.fixed(60, 30)
    with pytest.raises(ValueError, match="at least 3 dice"):
        DieSize.learnt([40, 41])
    with pytest.raises(ValueError, match="empty-table reference: expected 3 colour channels"):
        EmptyTable(np.zeros((48, 64), np.uint8))
    step = EmptyTable(np.zeros((48, 64, 3), np.uint8))
    with pytest.raises(ValueError, match="empty-table reference is 64x48 px but the frame is 32x32"):
        step.differs(np.zeros((32, 32, 3), np.uint8))


def test_empty_table_fits_a_frames_light_once_for_every_check_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32: both readers and the empty table's own proposals check their candidates on one frame;
    its light is fitted to the empty table once (same answers), and again for another frame or after
    the empty table is learnt again."""
    import vision.where as where

    empty = felt(480, 640, (60, 110, 40), np.random.default_rng(4))
    frame = empty.copy()
    dice = draw_row(frame, [2, 6], size=48)
    fits: list[int] = []
    fit = where._light_fit
    monkeypatch.setattr(where, "_light_fit", lambda a, b: fits.append(1) or fit(a, b))
    step = EmptyTable(empty)
    on_die = (float(dice[0].center[0]), float(dice[0].center[1]))
    boxes = [where.Box(on_die, 48.0, 48.0), where.Box((60.0, 60.0), 48.0, 48.0)]
    first = step.check(frame, boxes)
    assert step.check(frame, boxes[:1]) == first[:1] and step.check(frame, boxes) == first
    assert first[0] is None and first[1] is not None
    assert len(fits) == 1
    step.check(frame.copy(), boxes)  # another frame
    step.relearn(empty)
    step.check(frame, boxes)  # the same frame, a new empty table
    assert len(fits) == 3
