"""Network cameras: MJPEG over HTTP served by a real ffmpeg, and RTSP served by GStreamer's RTSP server,
both on loopback; a stream killed mid-way is reported lost and resumed when it comes back."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.frames import CameraLost, NetworkSource, ReconnectingSource, open_source

ROOT = Path(__file__).resolve().parents[2]
FRAMES = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
RTSP_SERVER = Path(__file__).with_name("rtsp_server.py")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's: GStreamer's bindings (python3-gst-1.0) live there

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (./dev.sh test installs it)"
)


def read_until_resumed(cam: ReconnectingSource, said: list[str], timeout: float = 60.0) -> int:
    """Read on (frames still buffered, then the loss, then the new stream) until 5 frames came after
    the reconnection; returns the frames read in all."""
    end, n, after = time.monotonic() + timeout, 0, 0
    while after < 5:
        assert time.monotonic() < end, f"not resumed within {timeout} s: {said}"
        assert cam.read() is not None
        n += 1
        after += any("reconnected" in m for m in said)
    return n


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mjpeg_server(port: int) -> subprocess.Popen[bytes]:
    """ffmpeg serving the demo session's frames as MJPEG over HTTP, in real time, to one client."""
    return subprocess.Popen(
        ["ffmpeg", "-loglevel", "error", "-re", "-framerate", "10", "-stream_loop", "-1",
         "-i", str(FRAMES / "%05d.jpg"), "-f", "mpjpeg", "-listen", "1", f"http://127.0.0.1:{port}/x.mjpg"],
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait(timeout=10)


def wait_until_listening(port: int, timeout: float = 60.0) -> None:
    """Wait until something listens on ``port``, without connecting to it (ffmpeg's ``-listen 1``
    serves exactly one client: a probe would be that client): the kernel's own socket table."""
    want = f":{port:04X} "
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            if any(want in row.split()[1] + " " and row.split()[3] == "0A" for row in rows):
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port} after {timeout} s")


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def mjpeg() -> Iterator[tuple[str, int]]:
    port = free_port()
    proc = mjpeg_server(port)
    try:
        wait_until_listening(port)  # ffmpeg's -listen opens the port only once its input is ready
        yield f"http://127.0.0.1:{port}/x.mjpg", port
    finally:
        stop(proc)


@needs_ffmpeg
def test_an_mjpeg_stream_gives_frames_stamped_on_arrival(mjpeg: tuple[str, int]) -> None:
    url, _ = mjpeg
    with open_source(url) as cam:
        assert isinstance(cam, NetworkSource)
        frames = [cam.read() for _ in range(12)]
    assert all(f is not None and f.image_bgr.shape == (600, 800, 3) for f in frames)
    times = [f.t for f in frames if f is not None]
    assert times == sorted(times) and 0.3 < times[-1] - times[0] < 5, times  # ~10 fps, as it arrived


@needs_ffmpeg
def test_record_takes_30_frames_from_a_live_stream(mjpeg: tuple[str, int], tmp_path: Path) -> None:
    url, _ = mjpeg
    out = tmp_path / "rec"
    res = subprocess.run(
        [sys.executable, "-m", "controller", "record", "--camera", url, "--out", str(out), "--frames", "30"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert len((out / "frames.csv").read_text().splitlines()) == 31
    assert len(list(out.glob("*.jpg")) + list(out.glob("*.png"))) == 30


@needs_ffmpeg
def test_a_stream_killed_mid_way_is_reported_lost_and_resumed() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/x.mjpg"
    proc = mjpeg_server(port)
    said: list[str] = []
    try:
        wait_until_listening(port)
        cam = ReconnectingSource(
            lambda: NetworkSource(url, timeout_s=2.0), backoff=(0.3,), max_attempts=40, on_status=said.append
        )
        assert cam.read() is not None
        stop(proc)  # the phone's app closed, the Wi-Fi dropped
        proc = mjpeg_server(port)  # ... and it is back
        read_until_resumed(cam, said)
        cam.close()
    finally:
        stop(proc)
    assert any("lost" in m for m in said) and any("reconnected" in m for m in said), said


def test_no_stream_there_is_a_clear_error() -> None:
    with pytest.raises(CameraLost, match="no stream there"):
        NetworkSource(f"http://127.0.0.1:{free_port()}/x.mjpg", timeout_s=1.0)
    with pytest.raises(ValueError, match="network camera"):
        open_source("http://")


def test_a_password_in_the_url_is_never_shown() -> None:
    with pytest.raises(CameraLost) as err:
        NetworkSource(f"rtsp://admin:s3cret@127.0.0.1:{free_port()}/live", timeout_s=1.0)
    assert "s3cret" not in str(err.value) and "admin:***@" in str(err.value)


def _has_rtsp_server() -> bool:
    if not Path(SYSTEM_PYTHON).exists():
        return False
    probe = "import gi; gi.require_version('GstRtspServer', '1.0'); from gi.repository import GstRtspServer"
    return subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True).returncode == 0


@pytest.mark.skipif(
    not _has_rtsp_server(), reason="GStreamer's RTSP server is not installed (./dev.sh test installs it)"
)
def test_an_rtsp_stream_killed_mid_way_is_reported_lost_and_resumed() -> None:
    port = free_port()
    url = f"rtsp://127.0.0.1:{port}/table"

    def serve() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([SYSTEM_PYTHON, str(RTSP_SERVER), str(port), str(FRAMES)])
        wait_for_port(port)
        return proc

    proc = serve()
    said: list[str] = []
    try:
        cam = ReconnectingSource(
            lambda: NetworkSource(url, timeout_s=3.0), backoff=(0.5,), max_attempts=30, on_status=said.append
        )
        first = cam.read()
        assert first is not None and first.image_bgr.shape == (600, 800, 3)
        stop(proc)
        proc = serve()
        read_until_resumed(cam, said)
        cam.close()
    finally:
        stop(proc)
    assert any("lost" in m for m in said) and any("reconnected" in m for m in said), said
