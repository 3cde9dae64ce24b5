"""Frame sources: recorded sessions, the recorder, specs, and a camera that goes away and comes back."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.frames import (
    CameraLost,
    CameraSource,
    FakeSource,
    Frame,
    FrameSource,
    FrameSourceError,
    ReconnectingSource,
    RecordedSource,
    open_source,
    record,
    synthetic_table,
)


def _images(n: int) -> list[np.ndarray]:
    out = []
    for i in range(n):
        im = synthetic_table(64, 48, seed=i)
        cv2.putText(im, str(i), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
        out.append(im)
    return out


def test_record_then_play_back_gives_the_same_frames_and_times(tmp_path: Path) -> None:
    images = _images(5)
    src = FakeSource(images, [10.0, 10.1, 10.25, 10.3, 10.5], name="cam")
    assert record(src, tmp_path / "s", image_format="png") == 5
    with open_source(f"recorded:{tmp_path / 's'}") as played:
        assert isinstance(played, FrameSource)
        frames = list(played)
    assert [round(f.t, 3) for f in frames] == [0.0, 0.1, 0.25, 0.3, 0.5]
    for f, im in zip(frames, images, strict=True):
        assert np.array_equal(f.image_bgr, im)
    assert frames[0].source == f"recorded:{tmp_path / 's'}"
    meta = played.metadata  # type: ignore[attr-defined]
    assert meta["source"] == "cam" and meta["frames"] == 5 and meta["width"] == 64


def test_record_stops_after_the_requested_seconds(tmp_path: Path) -> None:
    src = FakeSource(_images(10), [i * 0.2 for i in range(10)])
    assert record(src, tmp_path / "s", seconds=1.0) == 6  # t = 0.0 .. 1.0


def test_corrupt_and_missing_frames_are_logged_by_name_and_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    record(FakeSource(_images(4), [0, 1, 2, 3]), tmp_path, image_format="png")
    (tmp_path / "frame_000001.png").write_bytes(b"\x89PNG not really")
    (tmp_path / "frame_000002.png").unlink()
    with caplog.at_level(logging.WARNING):
        frames = list(RecordedSource(tmp_path))
    assert [f.t for f in frames] == [0.0, 3.0]
    assert "frame_000001.png" in caplog.text and "frame_000002.png" in caplog.text


def test_bad_rows_in_frames_csv_are_skipped_with_a_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), _images(1)[0])
    (tmp_path / "frames.csv").write_text("file,t\na.png,0.5\na.png,soon\n\na.png,0.7\n")
    with caplog.at_level(logging.WARNING):
        frames = list(RecordedSource(tmp_path))
    assert [f.t for f in frames] == [0.5, 0.7]
    assert "line 3" in caplog.text and "soon" in caplog.text


@pytest.mark.parametrize(
    ("content", "needle"), [(None, "frames.csv not found"), ("name,time\n", "header must be 'file,t'")]
)
def test_a_folder_that_is_not_a_session_is_refused_clearly(
    tmp_path: Path, content: str | None, needle: str
) -> None:
    if content is not None:
        (tmp_path / "frames.csv").write_text(content)
    with pytest.raises(FrameSourceError, match=needle):
        open_source(f"recorded:{tmp_path}")


@pytest.mark.parametrize("spec", ["", "webcam", "usb:", "recorded:", "v4l2"])
def test_bad_camera_specs_name_the_spec_and_the_expected_forms(spec: str) -> None:
    with pytest.raises(ValueError, match="camera spec"):
        open_source(spec)


def test_picam_off_a_pi_says_what_to_use_instead() -> None:
    with pytest.raises(FrameSourceError, match="picamera2"):
        open_source("picam")


def test_realtime_playback_paces_frames_by_their_recorded_times(tmp_path: Path) -> None:
    record(FakeSource(_images(3), [0.0, 0.5, 1.5]), tmp_path)
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    src = RecordedSource(tmp_path, realtime=True, clock=lambda: now[0], sleep=sleep)
    assert [f.t for f in src] == [0.0, 0.5, 1.5]
    assert slept == pytest.approx([0.5, 1.0])


def test_video_files_play_back(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for im in _images(6):
        writer.write(im)
    writer.release()
    frames = list(open_source(f"recorded:{path}"))  # type: ignore[call-overload]
    assert len(frames) == 6
    assert frames[-1].t == pytest.approx(0.5, abs=0.02)


class _FakeCapture:
    def __init__(self, frames: int, opened: bool = True) -> None:
        self.frames, self.opened = frames, opened

    def isOpened(self) -> bool:
        return self.opened

    def set(self, *_: object) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, synthetic_table(32, 24)

    def release(self) -> None:
        self.opened = False


def test_a_camera_that_cannot_open_or_stops_delivering_is_reported() -> None:
    with pytest.raises(FrameSourceError, match="cannot open"):
        CameraSource(3, capture_factory=lambda d: _FakeCapture(0, opened=False))
    cam = CameraSource(0, capture_factory=lambda d: _FakeCapture(1))
    assert isinstance(cam.read(), Frame)
    with pytest.raises(CameraLost, match="v4l2:0"):
        cam.read()


def test_a_lost_camera_is_reopened_with_backoff_and_the_game_resumes() -> None:
    opens: list[int] = []
    slept: list[float] = []
    statuses: list[str] = []

    def opener() -> FrameSource:
        opens.append(1)
        n = len(opens)
        if n in (2, 3):  # unplugged: the first two reopen attempts fail
            raise FrameSourceError("camera 'v4l2:0': cannot open it")
        return CameraSource(0, capture_factory=lambda d: _FakeCapture(2))

    src = ReconnectingSource(opener, backoff=(0.5, 1.0, 2.0), sleep=slept.append, on_status=statuses.append)
    got = [src.read() for _ in range(4)]
    assert all(isinstance(f, Frame) for f in got)
    assert slept == [0.5, 1.0, 2.0]  # lost, then two failed reopen attempts
    assert src.reconnects == 1
    assert any("lost" in s for s in statuses) and any("reconnected" in s for s in statuses)


def test_reconnection_gives_up_after_max_attempts() -> None:
    calls = [0]

    def opener() -> FrameSource:
        calls[0] += 1
        if calls[0] > 1:
            raise FrameSourceError("still unplugged")
        return CameraSource(0, capture_factory=lambda d: _FakeCapture(0))

    src = ReconnectingSource(opener, backoff=(1.0,), max_attempts=2, sleep=lambda s: None)
    with pytest.raises(FrameSourceError, match="still unplugged"):
        src.read()


def test_a_file_listed_again_is_decoded_once_and_each_frame_is_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a still table is recorded as one file at several times: decoding it again each row cost most of
    # a headless demo's time (issue 32)
    images = _images(2)
    cv2.imwrite(str(tmp_path / "a.png"), images[0])
    cv2.imwrite(str(tmp_path / "b.png"), images[1])
    (tmp_path / "frames.csv").write_text("file,t\na.png,0.0\na.png,0.1\na.png,0.2\nb.png,0.3\na.png,0.4\n")
    import hardware.frames as frames_module

    decoded: list[str] = []
    real = frames_module.read_image

    def counting(path: Path, *args: object) -> np.ndarray:
        decoded.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(frames_module, "read_image", counting)
    played = list(RecordedSource(tmp_path))
    assert decoded == ["a.png", "b.png", "a.png"]
    assert [f.t for f in played] == [0.0, 0.1, 0.2, 0.3, 0.4]
    for f, i in zip(played, [0, 0, 0, 1, 0], strict=True):
        assert np.array_equal(f.image_bgr, images[i])
    played[0].image_bgr[:] = 0  # drawing on one frame leaves the next as recorded
    assert np.array_equal(played[1].image_bgr, images[0])
    assert played[1].image_bgr is not played[2].image_bgr
