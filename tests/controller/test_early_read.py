"""Issue 32 item 3: a throw is read while it settles and scored when it settles; the tumble check is
judged off the camera thread, after the score, and the next throw waits for its verdict."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.live import EARLY_S, SETTLE_S, load_script, play
from controller.session import mock_pins, session_config
from controller.table import Table
from hardware.frames import Frame, RecordedSource
from vision.motion import MotionGate
from vision.tumble import ThrowRecorder

ROOT = Path(__file__).resolve().parents[2]


class Camera:
    """A reader that counts the frames it reads and returns the test's dice."""

    def __init__(self, values: list[int]) -> None:
        self.values = values
        self.frames: list[int] = []

    def __call__(self, image: np.ndarray) -> list[dict[str, Any]]:
        self.frames.append(int(image[0, 0, 0]))
        return [
            {"kind": "d6", "value": v, "confidence": 0.99, "colour": "red", "center": [10.0 + 9 * i, 10.0]}
            for i, v in enumerate(self.values)
        ]


def hunter(tmp_path: Path, **vision: Any) -> tuple[Table, Camera]:
    players = [
        {"name": n, "colour": c, "pins": mock_pins(i).model_dump()}
        for i, (n, c) in enumerate([("ann", "red"), ("bob", "blue"), ("cid", "green")])
    ]
    cfg = parse_config(
        {
            "table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3},
            "players": players,
            "vision": vision,
        }
    )
    cam = Camera([3, 3, 3, 5, 6])
    return Table(cfg, EventLog(tmp_path / "t.sqlite3"), reader=cam, resume=False), cam


def frame(mark: int, dice_at: int = 20) -> np.ndarray:
    img = np.full((120, 160, 3), 90, np.uint8)
    img[0, 0] = mark  # which frame the reader was given
    img[40:60, dice_at : dice_at + 20] = 230  # the dice
    return img


def test_a_throw_read_while_it_settles_is_scored_without_reading_it_again(tmp_path: Path) -> None:
    table, cam = hunter(tmp_path)
    table.read_early(frame(1), 1.0)
    table.read_early(frame(2), 1.0)  # the same rest: read once
    assert cam.frames == [1]
    table.on_settled(frame(3), 1.0, 1.2)
    assert cam.frames == [1], "the settled frame is scored from the early reading"
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert table.early.used == 1


def test_a_die_that_moved_after_the_early_read_is_read_again(tmp_path: Path) -> None:
    table, cam = hunter(tmp_path)
    table.read_early(frame(1, dice_at=20), 1.0)
    table.on_settled(frame(3, dice_at=90), 1.0, 1.2)  # the dice are elsewhere in the settled frame
    assert cam.frames == [1, 3]
    assert table.early.missed == 1 and table.game.state["dice"] == [3, 3, 3, 5, 6]


def test_an_early_reading_serves_only_its_own_rest(tmp_path: Path) -> None:
    table, cam = hunter(tmp_path)
    table.read_early(frame(1), 1.0)
    table.on_settled(frame(3), 1.1, 1.3)  # they came to rest again later (a die rocked)
    assert cam.frames == [1, 3]


def test_nothing_is_read_early_when_no_throw_is_expected(tmp_path: Path) -> None:
    table, cam = hunter(tmp_path)
    table.on_settled(frame(1), 1.0, 1.2)  # scored: now a choice is expected
    table.read_early(frame(2), 5.0)
    assert cam.frames == [1]


class SlowRecord:
    """A motion record whose verdict takes until the test releases it (at most 5 s)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.judged = threading.Event()

    def snapshot(self) -> SlowRecord:
        return self

    def judge(self, image: np.ndarray, boxes: Any) -> Any:
        self.release.wait(5.0)
        self.judged.set()

        class Flagged:
            flagged = True

            def to_json(self) -> dict[str, Any]:
                return {"dice": [{"verdict": "placed"} for _ in boxes], "frames": 3}

            def reason(self, ids: list[str]) -> str:
                return "placed by hand"

        return Flagged()


def test_the_tumble_check_never_holds_the_score_or_the_camera_thread(tmp_path: Path) -> None:
    table, cam = hunter(tmp_path)
    cam.values = [3, 3, 3, 5, 6]
    record = SlowRecord()
    quad = [[0, 0], [9, 0], [9, 9], [0, 9]]
    cam_call = cam.__call__

    def with_quads(image: np.ndarray) -> list[dict[str, Any]]:
        return [{**d, "quad": quad} for d in cam_call(image)]

    table.reader = with_quads
    table.on_settled(frame(1), 1.0, 1.2, motion=record)
    # returned with the throw scored while the check still runs
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert not record.judged.is_set()
    flags = [e for e in table.log.events(table.game_no) if e.kind == "control"]
    assert not any(e.data.get("action") == "not_tumbled" for e in flags)
    record.release.set()
    table.tumble.wait()
    flags = [e for e in table.log.events(table.game_no) if e.kind == "control"]
    assert [e.data["action"] for e in flags if e.data.get("action") == "not_tumbled"] == ["not_tumbled"]
    assert table.snapshot()["flag"]["reading_set"] == 1


def test_a_recorder_snapshot_keeps_the_throw_it_was_taken_of() -> None:
    rec = ThrowRecorder()
    moving = np.full((60, 80, 3), 40, np.uint8)
    rec.add(moving, still=False, t=0.0)
    snap = rec.snapshot()
    rec.add(moving, still=True, t=0.1)  # the camera goes on: the table is still again
    assert len(snap.frames) == 1 and len(rec.frames) == 0


@pytest.mark.slow
def test_the_live_loop_reads_each_recorded_throw_early_and_scores_the_demo(tmp_path: Path) -> None:
    folder = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
    cfg = session_config(folder)
    table = Table(cfg, EventLog(tmp_path / "d.sqlite3"), resume=False)
    table.pending = load_script(folder / "script.jsonl")
    with RecordedSource(folder) as src:
        play(table, src, gate=MotionGate(settle_s=SETTLE_S))
    assert table.status == "over"
    assert table.early.used >= 25 and table.early.missed == 0
    assert EARLY_S < SETTLE_S


def test_the_gate_says_how_long_the_dice_have_rested_before_they_settle() -> None:
    gate = MotionGate(settle_s=SETTLE_S)
    empty = np.full((120, 160, 3), 90, np.uint8)
    dice = empty.copy()
    dice[40:60, 40:60] = 230
    ups = []
    t = 0.0
    for img in [empty] * 12 + [dice, empty, dice] + [dice] * 5:
        ups.append((t, gate.update(img, t)))
        t = round(t + 0.1, 3)
    resting = [(t, u.resting_since) for t, u in ups if u.resting_since is not None]
    settled = [(t, u.t_rest) for t, u in ups if u.settled_now]
    assert len(settled) == 1
    t_settled, t_rest = settled[0]
    assert resting and all(r == t_rest and t < t_settled for t, r in resting)
    assert t_settled - t_rest == pytest.approx(SETTLE_S)


class Examining:
    """A reader of the reader protocol (not a frame-only callable) that notes each frame it is given."""

    def __init__(self) -> None:
        self.frames: list[int] = []

    def read(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> list[Any]:
        return list(self.examine(image).readings)

    def examine(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
        from vision.reading import Examined

        self.frames.append(int(image[0, 0, 0]))
        return Examined([], [])


class OneFrame:
    name = "test"

    def __init__(self, image: np.ndarray) -> None:
        self.image: np.ndarray | None = image

    def read(self) -> Frame | None:
        image, self.image = self.image, None
        return None if image is None else Frame(image, 0.0, self.name)


def test_the_reader_is_warmed_on_the_cameras_first_frame_not_on_the_first_throw(tmp_path: Path) -> None:
    """Issue 32: the table's reader loads and runs its nets on the first frame (its reading dropped),
    so the first throw is read as fast as the others; a reader the table was handed as a callable
    (a test's, a recording's) is never called for it."""
    table, cam = hunter(tmp_path)
    play(table, OneFrame(frame(7)))
    assert cam.frames == []  # a frame-only reader: not warmed
    reader = Examining()
    table.reader = reader
    play(table, OneFrame(frame(8)))
    assert reader.frames == [8]
    assert table.reading_set is None and table.early.seen is None  # nothing of it kept


class Frames:
    name = "test"

    def __init__(self, images: list[np.ndarray]) -> None:
        self.images = list(images)

    def read(self) -> Frame | None:
        if not self.images:
            return None
        t = round(0.1 * (20 - len(self.images)), 3)
        return Frame(self.images.pop(0), t, self.name)


def test_the_live_loop_says_what_it_waits_for_without_a_snapshot_a_frame(tmp_path: Path) -> None:
    """Issue 32: the progress line took the table's whole snapshot (the game's state copied, the log
    counted) on every frame; it asks for what the table waits for alone, the same words."""
    table, _ = hunter(tmp_path)
    built: list[int] = []
    real = table.snapshot

    def counted() -> dict[str, Any]:
        built.append(1)
        return real()

    table.snapshot = counted  # type: ignore[method-assign]
    said: list[str] = []
    images = [frame(1, 20)] * 6 + [frame(2, 60)] * 6 + [frame(3, 100)] * 8
    play(table, Frames(images), progress=lambda t, what: said.append(what))
    assert len(said) == len(images)
    assert said[-1] == real()["waiting_for"] == table.waiting_for()
    assert len(built) < len(images) // 2  # the snapshots the listeners were sent, not one a frame
