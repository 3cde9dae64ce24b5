"""The Pi camera runs picamera2 in the system's Python (hardware/picam_worker.py), never in dicetable's
process, and a picamera2 that does not import there is named with its cause and its fix (issue 42).

A fake ``picamera2`` package on the worker's PYTHONPATH stands in for Raspberry Pi OS's, and the
worker's Python is this one (DICETABLE_PICAM_PYTHON): the pipe, the frames and the messages are the
real ones. tools/arm64/prove.sh ARM64_PICAMERA=... shows the numpy 1.24 / simplejpeg case on arm64."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import CameraLost, FrameSourceError, PicameraSource, open_source

ROOT = Path(__file__).resolve().parents[2]

CAMERA = """
import numpy as np

class Picamera2:
    sensor_resolution = (320, 240)

    def __init__(self):
        self.n = 0
        self.size = None

    def create_video_configuration(self, main, lores=None):
        assert main["format"] == "RGB888"
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.size = config["main"]["size"]
        # with a still (issue 43): the gate's stream, YUV420 (dicetable record takes stills)
        self.lores = config["lores"]["size"] if config["lores"] else None

    def start(self):
        if self.size == (13, 13):
            raise RuntimeError("Camera __init__ sequence did not complete.")

    def capture_array(self, name="main"):
        if name == "lores":
            w, h = self.lores
            return np.full((h * 3 // 2, w), 128, np.uint8)
        w, h = self.size
        if self.n == 3:
            raise RuntimeError("Camera frontend has timed out!")
        # four channels (XRGB8888 comes so): the reader keeps the first three
        image = np.zeros((h, w, 4), np.uint8)
        image[:, :, 0] = np.arange(w, dtype=np.uint8)[None, :]
        image[:, :, 1] = np.arange(h, dtype=np.uint8)[:, None]
        image[:, :, 2] = self.n
        image[:, :, 3] = 255
        self.n += 1
        return image

    def stop(self):
        pass

    def close(self):
        open(__file__ + ".closed", "w").close()
"""

DTYPE = (
    "numpy.dtype size changed, may indicate binary incompatibility. "
    "Expected 96 from C header, got 88 from PyObject"
)


def _fake(tmp_path: Path, body: str) -> dict[str, str]:
    pkg = tmp_path / "fake" / "picamera2"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return {
        "DICETABLE_PICAM_PYTHON": sys.executable,
        "PYTHONPATH": f"{pkg.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }


@pytest.fixture
def camera(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for k, v in _fake(tmp_path, CAMERA).items():
        monkeypatch.setenv(k, v)
    return tmp_path / "fake" / "picamera2" / "__init__.py"


def test_frames_come_from_picamera2_in_the_other_python(camera: Path) -> None:
    with open_source("picam") as src:
        assert isinstance(src, PicameraSource)
        frames = [src.read() for _ in range(3)]
    for n, frame in enumerate(frames):
        assert frame is not None and frame.source == "picam"
        image = frame.image_bgr
        assert image.shape == (960, 1280, 3) and image.dtype == np.uint8 and image.flags.c_contiguous
        assert (image[5, :256, 0] == np.arange(256)).all() and (image[:256, 7, 1] == np.arange(256)).all()
        assert (image[:, :, 2] == n).all()
    assert "picamera2" not in sys.modules, "picamera2 ran in dicetable's own process"
    assert Path(str(camera) + ".closed").exists(), "closing the source closes the camera"


def test_a_size_is_asked_of_the_camera_and_a_lost_camera_is_said(camera: Path) -> None:
    src = PicameraSource(width=64, height=48)
    try:
        for _ in range(3):
            frame = src.read()
            assert frame is not None and frame.image_bgr.shape == (48, 64, 3)
        with pytest.raises(CameraLost, match="failed to capture: RuntimeError: Camera frontend has"):
            src.read()
    finally:
        src.close()
    with pytest.raises(CameraLost, match="closed"):
        src.read()


def test_a_camera_that_does_not_start_is_said(camera: Path) -> None:
    with pytest.raises(FrameSourceError, match="camera 'picam': RuntimeError: Camera __init__ sequence"):
        PicameraSource(width=13, height=13)


def test_picamera2_built_for_another_numpy_names_the_cause_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import's "numpy.dtype size changed" (picamera2's simplejpeg against a numpy it was not built
    for) comes out as one sentence: why, and what to run."""
    for k, v in _fake(tmp_path, f"raise ValueError({DTYPE!r})\n").items():
        monkeypatch.setenv(k, v)
    with pytest.raises(FrameSourceError) as e:
        PicameraSource()
    said = str(e.value)
    assert said.startswith(f"camera 'picam': picamera2 does not import in {sys.executable} because its ")
    assert "simplejpeg was built for Raspberry Pi OS's numpy" in said
    assert f"numpy {np.__version__} from {Path(np.__file__).parent}" in said
    assert "sudo apt install --reinstall python3-numpy python3-simplejpeg" in said
    assert "\n" not in said


def test_no_picamera2_off_a_pi_says_what_to_use_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_PICAM_PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # no picamera2 on it
    with pytest.raises(FrameSourceError, match=r"No module named 'picamera2'.*use 'v4l2:0'"):
        PicameraSource()
    monkeypatch.setenv("DICETABLE_PICAM_PYTHON", str(tmp_path / "no-python3"))
    with pytest.raises(FrameSourceError, match=r"cannot start .*no-python3 to run picamera2 in"):
        PicameraSource()


def test_record_reads_the_pi_camera_and_a_broken_one_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, **_fake(tmp_path / "ok", CAMERA), "COLUMNS": "200"}
    out = tmp_path / "session"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "record",
            "--camera",
            "picam",
            "--frames",
            "2",
            "--format",
            "png",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "recorded 2 frames from picam" in run.stdout
    assert len(list(out.glob("*.png"))) == 2
    env = {**os.environ, **_fake(tmp_path / "broken", f"raise ValueError({DTYPE!r})\n"), "COLUMNS": "200"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "record",
            "--camera",
            "picam",
            "--frames",
            "2",
            "--out",
            str(tmp_path / "none"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "because its simplejpeg was built for Raspberry Pi OS's numpy" in run.stderr, run.stderr
