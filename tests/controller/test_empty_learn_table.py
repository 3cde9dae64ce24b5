"""Through the real Table, motion gate and reader (controller.live.play), issue 30 item 1: a lamp
switched on over part of the board is learnt into the empty table once the board lies still with no
die on it (before, the gate called the lit board "settled", never "empty", and the table compared
every later throw with the picture from before the lamp); a die put down on the empty board and left
lying there for half a minute is no part of the empty table the next throw is read against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.scenes import empty_frame
from calibration.board import load_board
from calibration.camera import parse_calibration
from controller.eventlog import EventLog
from controller.live import play
from controller.perceive import BoardGeometry
from controller.session import session_config
from controller.table import Table
from hardware.frames import Frame

ROOT = Path(__file__).resolve().parents[2]
LOW = ROOT / "tests" / "fixtures" / "lowcontrast"
SESSION = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"


class Frames:
    """A camera showing each picture for its seconds, ten frames a second."""

    name = "test: frames"

    def __init__(self, shots: list[tuple[np.ndarray, float]]) -> None:
        self.frames = [(img, 0.1 * k) for img, secs in shots for k in range(round(secs * 10))]
        self.frames = [(img, round(0.1 * i, 1)) for i, (img, _) in enumerate(self.frames)]
        self.i = 0

    def read(self) -> Frame | None:
        if self.i >= len(self.frames):
            return None
        img, t = self.frames[self.i]
        self.i += 1
        return Frame(img, t, self.name)


def scene_table(tmp_path: Path) -> tuple[Table, dict[str, Any], np.ndarray, np.ndarray]:
    """A DICETAR WARS table (white and red dice) at low-contrast scene 12's board and camera: the
    table, the scene's truth, its frame and its empty table."""
    truth = json.loads((LOW / "scene_0012.json").read_text()) | {"_dir": str(LOW)}
    image = cv2.imread(str(LOW / truth["image"]), cv2.IMREAD_COLOR)
    cam = truth["camera"]
    cal = parse_calibration(
        {
            "camera_matrix": cam["camera_matrix"],
            "dist_coeffs": cam["dist_coeffs"],
            "image_size": truth["image_size"],
        }
    )
    sizes = list(truth["die_sizes_mm"])
    geo = BoardGeometry.of(load_board(ROOT / truth["board_file"]), cal, "body", sizes)
    cfg = session_config(SESSION)
    options = {**cfg.table.options, "colours": {"ann": "white", "bob": "red"}}
    cfg = cfg.model_copy(
        update={
            "table": cfg.table.model_copy(update={"options": options}),
            "players": [
                p.model_copy(update={"colour": c}) for p, c in zip(cfg.players, ("white", "red"), strict=True)
            ],
            "dice": cfg.dice.model_copy(update={"sizes_mm": sizes}),
        }
    )
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=False, geometry=geo)
    return table, truth, image, empty_frame(truth)


def lamp(img: np.ndarray) -> np.ndarray:
    """A warm lamp switched on over the board's top right: a third brighter at its middle, fading
    over ~250 px."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pool = np.exp(-((xx - 1050) ** 2 + (yy - 250) ** 2) / (2 * 250.0**2))[..., None]
    gain = 1 + pool * np.asarray([0.15, 0.3, 0.45], np.float32)
    return np.asarray(np.clip(img * gain, 0, 255), np.uint8)


def test_a_lamp_switched_on_is_learnt_into_the_empty_table(tmp_path: Path) -> None:
    """The lamp's pool of light reaches the frame's edge: the gate calls the board "handled" (an
    arm) for as long as the lamp stays on, so before no throw was ever read again."""
    table, truth, image, empty = scene_table(tmp_path)
    lit = lamp(empty)
    seen: list[list[dict[str, Any]]] = []
    table.reading_listeners.append(lambda rs, _exp: seen.append(rs.dice))
    try:
        play(table, Frames([(empty, 1.5), (lit, 8.0), (lamp(image), 1.0)]))
    finally:
        table.log.close()
    assert table.where.empty is not None
    assert np.array_equal(table.where.empty.empty, lit)
    assert table.empty_table.source == "re-learnt"
    assert len(seen) == 1, "the throw under the lamp was not read"
    assert len(seen[0]) >= len(truth["dice"]) - 2  # (its dice: low contrast, two may be missed)


def test_a_die_left_lying_on_the_board_is_read_in_the_next_throw(tmp_path: Path) -> None:
    table, truth, image, empty = scene_table(tmp_path)
    die = truth["dice"][4]  # a white 1 on the board's white paper (the detector alone misses it)
    q = np.asarray(die["top_quad_px"], np.float64)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    s = max(x1 - x0, y1 - y0)
    lying = empty.copy()
    ya, yb, xa, xb = int(y0 - 0.6 * s), int(y1 + 0.6 * s), int(x0 - 0.6 * s), int(x1 + 0.6 * s)
    lying[ya:yb, xa:xb] = image[ya:yb, xa:xb]
    seen: list[list[dict[str, Any]]] = []
    table.reading_listeners.append(lambda rs, _exp: seen.append(rs.dice))
    try:
        # the empty board; the white die put down and left for half a minute; then a throw lands
        play(table, Frames([(empty, 1.5), (lying, 30.0), (image, 1.0)]))
    finally:
        table.log.close()
    assert table.where.empty is not None and np.array_equal(table.where.empty.empty, empty)
    assert seen, "the throw was never read"
    centre = q.mean(axis=0)
    near = [d for d in seen[-1] if np.hypot(d["center"][0] - centre[0], d["center"][1] - centre[1]) < 0.6 * s]
    assert len(near) == 1 and near[0]["value"] == die["value"], seen[-1]


def test_the_camera_thread_goes_on_while_the_empty_table_is_judged(tmp_path: Path) -> None:
    """Issue 32: judging a still frame (a whole perception step, once per ten still seconds) ran on
    the camera thread, so a throw starting meanwhile waited for it.  It runs on the learner's own
    thread: the camera's frames go on while it is held, and its verdict is taken before the next
    throw is read."""
    import threading

    table, _truth, _image, empty = scene_table(tmp_path)
    judged_on: list[str] = []
    held, release = threading.Event(), threading.Event()
    real = table.perceiver.perceive

    def perceive(image: np.ndarray, **kw: Any) -> Any:
        if kw.get("seq") == 0:  # the learner's judging (EmptyLearning._dice)
            judged_on.append(threading.current_thread().name)
            if threading.current_thread() is not threading.main_thread():
                held.set()
                release.wait(timeout=120)  # held until the camera's frames below have gone on
        return real(image, **kw)

    table.perceiver.perceive = perceive  # type: ignore[method-assign]
    lit = lamp(empty)
    try:
        assert table.see_board(empty, 0.0, "empty", empty, False)  # the gate's first empty board
        t = 0.0
        while not judged_on and t < 5.0:  # still for the learner's 2 s: its frame is judged
            t = round(t + 0.1, 1)
            table.see_board(lit, t, "empty", empty, False)
        assert judged_on and judged_on[0] != threading.main_thread().name, judged_on
        assert held.wait(timeout=120)
        # a throw starts while the frame is judged: the camera thread is not held by it
        for k, state in enumerate(["rolling"] * 5 + ["settled"] * 5):
            assert not table.see_board(lit, round(t + 0.1 * (k + 1), 1), state, empty, state == "rolling")
        assert not release.is_set() and table.where.empty is not None
        assert np.array_equal(table.where.empty.empty, empty)  # no verdict yet: the old picture
        release.set()
        assert table.settle_board()  # before the throw is read: the verdict, learnt
        assert np.array_equal(table.where.empty.empty, lit) and table.empty_table.source == "re-learnt"
    finally:
        release.set()
        table.log.close()
