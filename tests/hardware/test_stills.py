"""Two streams, one still at rest (issue 43, item 2): the gate watches a low-resolution stream, the
table reads a full-resolution still of each settled throw; recordings carry their stills."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.frames import FakeSource, Frame, ReconnectingSource, RecordedSource
from hardware.stills import (
    DownscaledStills,
    PicameraStills,
    RecordedStills,
    check_sizes,
    open_with_stills,
    parse_size,
    record_with_stills,
    still_of,
)
from vision.motion import MotionGate

#: picamera2 as Raspberry Pi OS ships it, as the table uses it (a Camera Module 3: a 4608x2592 sensor), run
#: by the camera's worker process (hardware/picam_worker.py) in place of the real one: two streams of one
#: video configuration, each captured by name, every capture counted in a file beside it
PICAMERA2 = """
import json
import numpy as np

class Picamera2:
    sensor_resolution = (4608, 2592)

    def __init__(self):
        self.config = None

    def create_video_configuration(self, main=None, lores=None, **kw):
        return {"main": dict(main or {}), "lores": None if lores is None else dict(lores)}

    def create_still_configuration(self, main=None, **kw):
        return {"main": dict(main or {"size": self.sensor_resolution})}

    def switch_mode_and_capture_array(self, config, name="main"):
        raise AssertionError("a still costs no mode switch: the main stream is captured")

    def configure(self, config):
        self.config = config
        with open(__file__ + ".config", "w") as f:
            json.dump(config, f)

    def start(self):
        pass

    def capture_array(self, name="main"):
        with open(__file__ + "." + name, "a") as f:
            f.write("x")
        w, h = self.config[name]["size"]
        if name == "lores":
            assert self.config["lores"]["format"] == "YUV420"
            # a BGR (40, 120, 200) picture's I420 planes (BT.601, as OpenCV makes them)
            yuv = np.empty((h * 3 // 2, w), np.uint8)
            yuv[:h] = 132
            yuv[h : h + h // 4] = 81
            yuv[h + h // 4 :] = 169
            return yuv
        assert self.config["main"]["format"] == "RGB888"
        return np.full((h, w, 3), (40, 120, 200), np.uint8)

    def stop(self):
        pass

    def close(self):
        pass
"""


@pytest.fixture
def picamera2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake picamera2 package's module file (its counts and configuration are written beside it)."""
    pkg = tmp_path / "fake" / "picamera2"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PICAMERA2, encoding="utf-8")
    monkeypatch.setenv("DICETABLE_PICAM_PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONPATH", f"{pkg.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return pkg / "__init__.py"


def _count(module: Path, stream: str) -> int:
    path = Path(f"{module}.{stream}")
    return len(path.read_text()) if path.exists() else 0


def test_sizes_are_checked_with_clear_refusals() -> None:
    assert parse_size("4608x2592") == (4608, 2592)
    assert parse_size(" MAX ") == "max"
    for bad, why in [
        ("big", 'expected WxH (e.g. 4608x2592) or "max"'),
        ("10x10", "each side must be 64 to 12000 px"),
        ("1281x960", "sides must be even"),
    ]:
        with pytest.raises(ValueError) as e:
            parse_size(bad, "camera.still")
        assert str(e.value).startswith("camera.still: ") and why in str(e.value) and repr(bad) in str(e.value)
    with pytest.raises(ValueError, match="expected WxH"):
        parse_size("max", "camera.video", allow_max=False)
    with pytest.raises(ValueError, match=r"camera\.still 640x480 is smaller than camera\.video 1280x960"):
        check_sizes((640, 480), (1280, 960))


def test_the_config_takes_still_and_video_and_refuses_bad_ones() -> None:
    from controller.config import ConfigError, parse_config

    cam = parse_config({"camera": {"source": "picam"}}).camera
    assert cam.sizes() == ("max", (1280, 960))
    assert parse_config({"camera": {"still": "4056x3040", "video": "1014x760"}}).camera.sizes() == (
        (4056, 3040),
        (1014, 760),
    )
    for camera, key in [({"still": "huge"}, "camera.still"), ({"video": "max"}, "camera.video")]:
        with pytest.raises(ConfigError) as e:
            parse_config({"camera": camera})
        assert key in str(e.value)
    with pytest.raises(ConfigError, match=r"smaller than camera\.video"):
        parse_config({"camera": {"still": "800x600"}})


def test_the_pi_camera_gates_on_lores_and_takes_its_still_from_main_once(picamera2: Path) -> None:
    with PicameraStills() as src:
        config = json.loads(Path(f"{picamera2}.config").read_text())
        assert config["main"] == {"size": [4608, 2592], "format": "RGB888"}
        # the gate's frame at the video's width, the sensor's aspect (16:9)
        assert config["lores"] == {"size": [1280, 720], "format": "YUV420"}
        frames = [src.read() for _ in range(5)]
        assert all(f is not None and f.image_bgr.shape == (720, 1280, 3) for f in frames)
        b, g, r = frames[0].image_bgr[360, 640]  # type: ignore[union-attr]
        assert abs(int(b) - 40) < 8 and abs(int(g) - 120) < 8 and abs(int(r) - 200) < 8  # BGR, not YUV
        assert (_count(picamera2, "main"), _count(picamera2, "lores")) == (0, 5)  # no still per frame
        still = still_of(src)
        assert still is not None and still.image_bgr.shape == (2592, 4608, 3)
        assert _count(picamera2, "main") == 1
    with PicameraStills(still=(2028, 1140), video=(1014, 760)) as half:
        assert half.still_size == (2028, 1140) and half.video_size == (1014, 570)
    with pytest.raises(ValueError, match="smaller than camera"):
        PicameraStills(still=(640, 480))


def test_a_usb_camera_at_full_size_gates_on_a_shrunk_copy_and_its_still_is_the_full_frame() -> None:
    big = np.random.default_rng(1).integers(0, 255, (1920, 2560, 3), np.uint8)
    src = DownscaledStills(FakeSource([big, big], [0.0, 0.1]), (1280, 960))
    assert still_of(src) is None  # nothing seen yet
    f = src.read()
    assert f is not None and f.image_bgr.shape == (960, 1280, 3)
    still = still_of(src)
    assert still is not None and still.image_bgr is big
    # a camera no larger than the video: no still (the table reads the gate's frame)
    small = DownscaledStills(FakeSource([big[:960, :1280].copy()]), (1280, 960))
    small.read()
    assert still_of(small) is None


def test_a_reconnecting_camera_passes_its_still_through() -> None:
    big = np.zeros((1920, 2560, 3), np.uint8)
    src = ReconnectingSource(lambda: DownscaledStills(FakeSource([big]), (1280, 960)))
    assert src.takes_stills
    src.read()
    got = src.still()
    assert got is not None and got.image_bgr.shape == (1920, 2560, 3)
    plain = ReconnectingSource(lambda: FakeSource([big]))
    assert not plain.takes_stills and plain.still() is None


def _throw_frames(n_throws: int = 2) -> list[tuple[np.ndarray, float]]:
    """Full-size (2560x1920) frames of a table: empty, then each throw a block tumbling and lying still."""
    empty = np.full((1920, 2560, 3), 90, np.uint8)
    cv2.randn(empty, 90, 3)
    out: list[tuple[np.ndarray, float]] = []
    t = 0.0
    for _ in range(15):
        out.append((empty.copy(), t))
        t += 0.1
    for throw in range(n_throws):
        for step in range(4):  # rolling
            frame = empty.copy()
            x = 400 + 300 * step + 100 * throw
            cv2.rectangle(frame, (x, 800), (x + 160, 960), (20, 20, 230), -1)
            out.append((frame, t))
            t += 0.1
        rest = empty.copy()
        cv2.rectangle(rest, (1700 + 200 * throw, 800), (1860 + 200 * throw, 960), (20, 20, 230), -1)
        for _ in range(12):  # at rest
            out.append((rest.copy(), t))
            t += 0.1
        for _ in range(6):  # picked up: the table empty again
            out.append((empty.copy(), t))
            t += 0.1
    return out


def test_record_saves_the_still_of_each_settled_throw_and_the_recording_replays_both(tmp_path: Path) -> None:
    frames = _throw_frames(2)
    src = DownscaledStills(FakeSource([f for f, _ in frames], [t for _, t in frames]), (1280, 960))
    n, kept = record_with_stills(src, tmp_path / "rec", MotionGate(settle_s=0.2))
    assert n == len(frames) and kept == 2
    rec = tmp_path / "rec"
    assert (rec / "stills.csv").read_text().splitlines()[0] == "file,t"
    replay = open_with_stills(f"recorded:{rec}")
    assert isinstance(replay, RecordedStills) and replay.takes_stills
    gate = MotionGate(settle_s=0.2)
    seen = []
    while (f := replay.read()) is not None:
        assert f.image_bgr.shape == (960, 1280, 3)  # the video frames
        upd = gate.update(f.image_bgr, f.t)
        if upd.settled_now:
            still = replay.still()
            assert still is not None and still.image_bgr.shape == (1920, 2560, 3)
            seen.append(still.image_bgr)
        elif upd.state.value == "empty":
            assert replay.still() is None  # no still stands for a frame far from any
    assert len(seen) == 2
    # each throw's own still: the die where that throw left it
    for i, still in enumerate(seen):
        x = 1780 + 200 * i
        assert still[880, x, 2] > 180 and still[880, x - 300, 2] < 140
    # a recording without stills replays as before
    (rec / "stills.csv").unlink()
    plain = open_with_stills(f"recorded:{rec}")
    assert type(plain) is RecordedSource and not getattr(plain, "takes_stills", False)


def test_the_table_reads_the_still_once_a_throw_and_keeps_the_dice_in_the_gate_frames_pixels(
    tmp_path: Path,
) -> None:
    """The perception step reads the still (the reader is handed the still's pixels), the die comes back
    in the gate frame's pixels, and the still is taken once a throw read, never per frame."""
    from controller.config import parse_config
    from controller.eventlog import EventLog
    from controller.live import play
    from controller.session import mock_pins
    from controller.table import Table

    frames = _throw_frames(1)
    taken: list[int] = []

    class Counting(DownscaledStills):
        def still(self) -> Frame | None:
            taken.append(1)
            return super().still()

    src = Counting(FakeSource([f for f, _ in frames], [t for _, t in frames]), (1280, 960))
    shapes: list[tuple[int, ...]] = []

    def reader(image: np.ndarray) -> list[dict[str, Any]]:
        shapes.append(image.shape)
        k = image.shape[1] / 2560
        x, y, r = 1780 * k, 880 * k, 80 * k
        quad = [[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]]
        return [
            {"kind": "d6", "value": 5, "center": [x, y], "quad": quad, "confidence": 0.99, "colour": "red"}
        ]

    names = [("ann", "red"), ("bob", "blue"), ("cid", "green")]
    players = [{"name": n, "colour": c, "pins": mock_pins(i).model_dump()} for i, (n, c) in enumerate(names)]
    cfg = parse_config(
        {"table": {"game": "dice-hunter", "seed": 3, "options": {"deck": "virtual"}}, "players": players}
    )
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"), reader=reader)
    play(table, src)
    assert (1920, 2560, 3) in shapes  # the throw read from the still
    assert len(taken) == 1  # one still: the one throw read
    assert table.reading_set is not None
    (die,) = table.reading_set.dice
    assert die["value"] == 5
    assert abs(die["center"][0] - 890) < 1 and abs(die["center"][1] - 440) < 1  # the gate frame's pixels


def test_the_settings_in_pixels_and_the_empty_table_are_scaled_from_the_gate_frame_to_the_still() -> None:
    from controller.config import VisionSection
    from controller.where import TableWhere
    from vision.where import DieSize, EmptyTable, PlayArea

    area = [[40, 30], [1240, 30], [1240, 930], [40, 930]]
    where = TableWhere(VisionSection(die_size_px=[30, 90], play_area_px=area, empty_finds=False))
    where.set_empty(np.full((960, 1280, 3), 90, np.uint8))
    video = where.steps(np.full((960, 1280, 3), 90, np.uint8))
    where.video_width = 1280
    still = where.steps(np.full((1920, 2560, 3), 90, np.uint8))
    kinds = [type(s) for s in still]
    assert kinds == [type(s) for s in video] == [EmptyTable, DieSize, PlayArea]
    assert still[0].empty.shape == (1920, 2560, 3)  # type: ignore[attr-defined]
    assert still[1].source == "configured 60-180 px" and video[1].source == "configured 30-90 px"  # type: ignore[attr-defined]
    assert np.allclose(still[2].polygon, 2 * np.asarray(area, np.float64))  # type: ignore[attr-defined]
