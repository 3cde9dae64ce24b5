"""A network camera that sends huge frames (issue 47, item 1): a real MJPEG server on loopback
(tests/hardware/mjpeg_server.py) sends a 16000 x 16000 JPEG (1.5 MB, 768 MB decoded), a few bytes
whose header claims as much, a part that declares 200 MB and one of 34 MB without a length, between
good frames.  Every frame is bounded before it is decoded; the frame is skipped and said with the
camera's name (its password masked); `run` goes on, `record` records the good frames, `hw-check`
fails the camera; no command's memory comes near what a decoded huge frame takes."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.frames import CameraLost, CameraSource, NetworkSource
from tests.hardware.test_url_secrets import _config
from tests.peak_memory import measured

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).with_name("mjpeg_server.py")
GOOD = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo" / "00001.jpg"
#: far below one decoded 16000 x 16000 frame (768 MB as BGR), above what a command takes itself
MAX_RSS_MB = 600
SECRET = "p@ss:w/rd"

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg makes the huge JPEG")


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("jpegs")
    huge = d / "huge.jpg"  # a real JPEG of 16000 x 16000, 1.5 MB (ffmpeg streams it; Python never holds it)
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=16000x16000",
         "-frames:v", "1", "-q:v", "31", str(huge)],
        check=True, timeout=300,
    )  # fmt: skip
    _, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))
    claim = bytearray(buf.tobytes())  # a few bytes whose frame header claims 16000 x 16000
    at = claim.find(b"\xff\xc0")
    struct.pack_into(">HH", claim, at + 5, 16000, 16000)
    (d / "claim.jpg").write_bytes(bytes(claim))
    return {"huge": huge, "claim": d / "claim.jpg", "good": GOOD}


def serve(plan: dict[str, object], tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "0", str(tmp_path / "plan.json")], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def hostile_plan(j: dict[str, Path]) -> dict[str, object]:
    part = lambda k, length=True: {"file": str(j[k]), "length": length}  # noqa: E731
    return {
        "once": [
            {"declared": 200_000_000, "send": 1_000_000},
            {"junk": 34 * 1024 * 1024},
            part("huge", False),
        ],
        "loop": [part("huge"), part("claim"), part("good"), part("good", False)],
        "fps": 10,
    }


@pytest.fixture
def hostile(jpegs: dict[str, Path], tmp_path: Path) -> Iterator[str]:
    proc, port = serve(hostile_plan(jpegs), tmp_path)
    try:
        yield f"http://admin:{SECRET}@127.0.0.1:{port}/video?token=tok123"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _said(out: str) -> None:
    assert "Traceback" not in out, out
    assert SECRET not in out and "tok123" not in out, out
    assert "admin:***@127.0.0.1" in out and "token=***" in out, out  # the camera named, masked


def test_hw_check_fails_a_camera_that_sends_huge_frames(hostile: str, tmp_path: Path) -> None:
    rc, out, mb, _ = measured("hw-check", "--fake", "--camera", hostile, "--out", str(tmp_path / "hw"))
    assert rc == 1 and "all passed" not in out, out
    assert "PROBLEM: camera" in out and "skipped, too large" in out, out
    _said(out)
    assert mb < MAX_RSS_MB, f"{mb} MB"


def test_record_skips_huge_frames_and_keeps_the_good_ones(hostile: str, tmp_path: Path) -> None:
    out_dir = tmp_path / "rec"
    rc, out, mb, _ = measured("record", "--camera", hostile, "--out", str(out_dir), "--frames", "4")
    assert rc == 0, out
    assert "recorded 4 frames" in out and "skipped, too large" in out, out
    _said(out)
    assert mb < MAX_RSS_MB, f"{mb} MB"
    shapes = {cv2.imread(str(p)).shape for p in out_dir.glob("frame_*.jpg")}
    assert shapes == {(600, 800, 3)}
    assert SECRET not in (out_dir / "session.json").read_text()


def test_run_goes_on_past_huge_frames(hostile: str, tmp_path: Path) -> None:
    cfg = _config(tmp_path, hostile)
    _, out, mb, alive = measured("run", "--config", str(cfg), "--no-hold", stop_after=12)
    assert alive, out  # still playing when stopped: the table goes on
    assert "frame skipped" in out and "16000x16000" in out, out
    _said(out)
    assert mb < MAX_RSS_MB, f"{mb} MB"


# -- the sources themselves -----------------------------------------------------------------------


def test_the_network_source_reads_only_the_good_frames(jpegs: dict[str, Path], tmp_path: Path) -> None:
    proc, port = serve(hostile_plan(jpegs), tmp_path)
    try:
        with NetworkSource(f"http://127.0.0.1:{port}/x", timeout_s=5.0) as cam:
            frames = [cam.read() for _ in range(4)]
            assert all(f is not None and f.image_bgr.shape == (600, 800, 3) for f in frames)
            assert cam.refused_count >= 5 and cam.last_refused is not None  # the 3 once, 2 of each loop
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_a_camera_that_sends_only_huge_frames_is_taken_for_lost(
    jpegs: dict[str, Path], tmp_path: Path
) -> None:
    proc, port = serve({"loop": [{"file": str(jpegs["claim"])}], "fps": 20}, tmp_path)
    try:
        cam = NetworkSource(f"http://127.0.0.1:{port}/x", timeout_s=1.0)
        with pytest.raises(CameraLost, match="no frame it may read"):
            cam.read()
        assert cam.refused_count >= 2
        cam.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize("which, ok", [("good", True), ("huge", False)])
def test_a_snapshot_camera_body_is_bounded(
    which: str, ok: bool, jpegs: dict[str, Path], tmp_path: Path
) -> None:
    proc, port = serve({"loop": [{"file": str(jpegs[which])}]}, tmp_path)
    try:
        cam = NetworkSource(f"http://127.0.0.1:{port}/still.jpg", timeout_s=1.0)
        if ok:
            frame = cam.read()
            assert frame is not None and frame.image_bgr.shape == (600, 800, 3) and cam.refused_count == 0
            assert cam.read() is not None  # the next request, the next picture
        else:
            with pytest.raises(CameraLost):
                cam.read()
            assert cam.refused_count >= 1 and "16000x16000" in str(cam.last_refused)
        cam.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)


class _HugeThenSmall:
    """A V4L2 capture whose driver hands over one frame of 16000 x 16000 (a view of 3 bytes), then small."""

    def __init__(self) -> None:
        self.n = 0

    def isOpened(self) -> bool:
        return True

    def set(self, *a: object) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        self.n += 1
        if self.n == 1:
            return True, np.lib.stride_tricks.as_strided(np.zeros(3, np.uint8), (16000, 16000, 3), (0, 0, 1))
        return True, np.zeros((48, 64, 3), np.uint8)

    def release(self) -> None:
        pass


def test_a_decoded_frame_too_large_is_skipped_before_use() -> None:
    cam = CameraSource(0, capture_factory=lambda d: _HugeThenSmall())
    frame = cam.read()
    assert frame is not None and frame.image_bgr.shape == (48, 64, 3)
    assert cam.refused_count == 1 and "16000x16000" in str(cam.last_refused)


class _SaysHuge(_HugeThenSmall):
    """An RTSP stream whose codec says 16000 x 16000 once opened: no frame of it is decoded."""

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_WIDTH: 16000.0, cv2.CAP_PROP_FRAME_HEIGHT: 16000.0}.get(prop, 0.0)


def test_a_stream_that_says_its_frames_are_too_large_is_not_decoded() -> None:
    capture = _SaysHuge()
    cam = NetworkSource("rtsp://admin:hunter2@127.0.0.1:9/live", capture_factory=lambda u: capture)
    with pytest.raises(CameraLost, match="16000x16000") as err:
        cam.read()
    assert capture.n == 0 and cam.refused_count == 1  # not one frame read
    assert "hunter2" not in str(err.value) and "admin:***@" in str(err.value)


def test_a_video_file_of_huge_frames_is_refused_from_its_header(
    jpegs: dict[str, Path], tmp_path: Path
) -> None:
    from hardware.frames import FrameSourceError, VideoFileSource

    video = tmp_path / "huge.avi"  # MJPEG in AVI: its header says 16000 x 16000
    subprocess.run(
        ["ffmpeg", "-loglevel", "error", "-y", "-i", str(jpegs["huge"]), "-c:v", "copy", str(video)],
        check=True, timeout=120,
    )  # fmt: skip
    with pytest.raises(FrameSourceError, match="16000x16000"):
        VideoFileSource(video)


def test_a_password_with_at_colon_and_slash_logs_in(jpegs: dict[str, Path], tmp_path: Path) -> None:
    proc, port = serve({"loop": [{"file": str(jpegs["good"])}], "auth": f"admin:{SECRET}"}, tmp_path)
    try:
        with NetworkSource(f"http://admin:{SECRET}@127.0.0.1:{port}/video?x=1", timeout_s=2.0) as cam:
            frame = cam.read()
            assert frame is not None and frame.image_bgr.shape == (600, 800, 3)
            assert SECRET not in cam.name and SECRET not in frame.source
        with pytest.raises(CameraLost, match="refused the user name and password") as err:
            NetworkSource(f"http://admin:wrong@127.0.0.1:{port}/video", timeout_s=2.0)
        assert "wrong" not in str(err.value)
    finally:
        proc.kill()
        proc.wait(timeout=10)
