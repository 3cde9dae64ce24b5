"""Frame sources: where the table's pictures come from.

Every source yields :class:`Frame` values (a BGR uint8 image, a time in
seconds, the source's name) through the small :class:`FrameSource` protocol,
so that the motion gate and vision never know whether they look at a Pi
camera, a USB webcam or a recorded session on disk.

Specs understood by :func:`open_source`::

    recorded:DIR          a recorded session (frames.csv + image files)
    recorded:VIDEO.mp4    any video file OpenCV can decode
    v4l2:0 / usb:0        a V4L2/USB camera through cv2.VideoCapture
    picam                 the Raspberry Pi camera (picamera2, run in the system's Python 3)
    http://HOST:PORT/PATH a network camera: MJPEG over HTTP(S) (a phone's IP-camera app, a second Pi)
    rtsp://HOST:PORT/PATH a network camera over RTSP (TCP), e.g. a security camera
    fake                  a synthetic still table (for hw-check --fake and demos)

A recorded session on disk is a folder with ``frames.csv`` (header ``file,t``;
file names relative to the folder, ``t`` in seconds from the start), the
image files (JPEG/PNG) and an optional ``session.json``.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from hardware.cvlog import quiet_opencv
from hardware.imagefile import MAX_PIXELS, ImageError, check_size, image_size, read_image
from hardware.mjpeg import MjpegStream, NotMjpeg, StreamError
from hardware.urls import mask_url

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], None]

SPEC_HELP = (
    "expected 'recorded:DIR', 'recorded:VIDEO.mp4', 'v4l2:N', 'usb:N', 'v4l2:/dev/videoN', 'picam', "
    "a network camera 'http://HOST:PORT/PATH' (MJPEG), 'https://...' or 'rtsp://HOST:PORT/PATH', or 'fake'"
)
#: the URL schemes of network cameras (an IP-camera app on a phone, a second Pi, an RTSP camera)
NETWORK_SCHEMES = ("http", "https", "rtsp", "rtsps")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


class FrameSourceError(RuntimeError):
    """A frame source that cannot be opened or read; the message names it."""


class CameraLost(FrameSourceError):
    """A live camera stopped delivering frames (unplugged, driver reset)."""


@dataclass(frozen=True, eq=False)  # arrays do not compare with ==
class Frame:
    """One picture of the table: BGR uint8 pixels, time in seconds, and where it came from."""

    image_bgr: np.ndarray
    t: float
    source: str

    def __repr__(self) -> str:  # the default repr would print the whole array
        h, w = self.image_bgr.shape[:2]
        return f"Frame({w}x{h}, t={self.t:.3f}, source={self.source!r})"


@runtime_checkable
class FrameSource(Protocol):
    """Anything that yields frames.  ``read()`` returns None at the end of a recording."""

    name: str

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _SourceBase(ABC):
    """Context manager and iteration shared by the concrete sources."""

    name: str = "source"
    #: frames this source skipped as too large (or not images), and why the last one was
    refused_count: int = 0
    last_refused: str | None = None

    def _refuse(self, why: str) -> None:
        """A frame skipped: counted, and said (the first of each kind, then every 50th: a hostile
        camera that sends nothing else does not fill the log)."""
        self.refused_count += 1
        self.last_refused = why
        said: set[str] = self.__dict__.setdefault("_refusals_said", set())
        new = why not in said and len(said) < 16
        if new:
            said.add(why)
        if new or self.refused_count % 50 == 0:
            log.warning("camera %r: frame skipped (%d so far): %s", self.name, self.refused_count, why)

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None at the end of a recording."""

    def close(self) -> None:  # noqa: B027 - a source with nothing to release keeps this no-op
        """Release the device or files; closing twice is harmless."""

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _bounded(image: np.ndarray, name: str) -> None:
    """A frame a camera library already decoded, checked before use with the one size check
    (``hardware.imagefile.check_size``): ImageError when it is larger than a frame is read."""
    h, w = image.shape[:2]
    check_size("frame", int(w), int(h), f"camera {name!r}", MAX_PIXELS)


def _declared_over(cap: Any, name: str) -> str | None:
    """Why the frames an opened cv2.VideoCapture says it will deliver are too large to read (its
    stream's width and height, known before a frame is decoded), or None."""
    get = getattr(cap, "get", None)
    if get is None:
        return None
    try:
        w, h = int(get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    except (TypeError, ValueError, cv2.error):
        return None
    if w <= 0 or h <= 0:
        return None  # not said: each frame is checked once decoded
    try:
        check_size("stream", w, h, f"camera {name!r}", MAX_PIXELS)
    except ImageError as e:
        return str(e)
    return None


def _check_bgr(image: Any, what: str) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        dtype = getattr(image, "dtype", None)
        raise FrameSourceError(
            f"{what}: expected a BGR uint8 image (H, W, 3), got shape {shape} dtype {dtype}"
        )
    return image


# -- recorded sessions -------------------------------------------------------------------------


def read_frames_csv(folder: Path) -> list[tuple[str, float]]:
    """The (file, t) rows of a session's frames.csv; bad rows are logged and skipped."""
    csv_path = folder / "frames.csv"
    if not folder.is_dir():
        raise FrameSourceError(f"recorded session {str(folder)!r}: not a folder ({SPEC_HELP})")
    if not csv_path.is_file():
        raise FrameSourceError(
            f"recorded session {str(folder)!r}: frames.csv not found "
            "(expected a folder with frames.csv, header 'file,t', and the image files)"
        )
    rows: list[tuple[str, float]] = []
    with csv_path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:2]] != ["file", "t"]:
            raise FrameSourceError(f"{csv_path}: header must be 'file,t', got {header!r}")
        for lineno, row in enumerate(reader, start=2):
            if not row or not "".join(row).strip():
                continue
            try:
                name, t = row[0].strip(), float(row[1])
                if not name or not np.isfinite(t):
                    raise ValueError
            except (IndexError, ValueError):
                log.warning(
                    "%s line %d: expected 'file,t' with t in seconds, got %r; skipped", csv_path, lineno, row
                )
                continue
            rows.append((name, t))
    return rows


class _Wrapping(_SourceBase):
    """A source reading the frames of another (`_wrapped`): the frames that one skipped as too large
    (the size check, `_refuse`) are the ones it skipped."""

    @abstractmethod
    def _wrapped(self) -> object:
        """The source whose frames this one reads."""

    @property
    def refused_count(self) -> int:  # type: ignore[override]
        """The wrapped source's frames skipped as too large."""
        return int(getattr(self._wrapped(), "refused_count", 0))

    @property
    def last_refused(self) -> str | None:  # type: ignore[override]
        return getattr(self._wrapped(), "last_refused", None)


class _Played(_SourceBase):
    """A recording played back: with ``realtime=True`` its frames are paced against ``clock``/``sleep``
    so that playback takes as long as the recording did (`_pace`); else as fast as they are read."""

    def __init__(self, *, realtime: bool, clock: Clock, sleep: Sleep) -> None:
        self.realtime = realtime
        self._clock, self._sleep = clock, sleep
        self._anchor: tuple[float, float] | None = None  # (clock at first frame, t of first frame)

    def _pace(self, t: float) -> None:
        """With ``realtime``: wait until the recording's time ``t`` has come on the source's clock."""
        if not self.realtime:
            return
        now = self._clock()
        if self._anchor is None:
            self._anchor = (now, t)
            return
        wait = self._anchor[0] + (t - self._anchor[1]) - now
        if wait > 0:
            self._sleep(wait)


class RecordedSource(_Played):
    """Plays back a recorded session folder with its recorded timestamps.

    With ``realtime=True`` frames are paced against ``clock``/``sleep`` so that
    playback takes as long as the recording did; the default returns frames as
    fast as they are read (tests, benchmarks).  A missing or corrupt image is
    logged with its name and skipped.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        realtime: bool = False,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(realtime=realtime, clock=clock, sleep=sleep)
        self.folder = Path(folder)
        self.name = f"recorded:{self.folder}"
        self._rows = read_frames_csv(self.folder)
        self._i = 0
        self.skipped: list[str] = []
        self.metadata: dict[str, Any] = self._read_metadata()
        # the last file decoded: a still table is recorded as one file listed again at each time, and
        # decoding it once a row cost most of a headless demo's time (issue 32)
        self._last: tuple[str, np.ndarray] | None = None

    def _read_metadata(self) -> dict[str, Any]:
        path = self.folder / "session.json"
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            log.warning("%s: not readable JSON (%s); metadata ignored", path, e)
            return {}
        return data if isinstance(data, dict) else {}

    def __len__(self) -> int:
        return len(self._rows)

    def read(self) -> Frame | None:
        while self._i < len(self._rows):
            name, t = self._rows[self._i]
            self._i += 1
            image = self._image(name)
            if image is None:
                self.skipped.append(name)
                continue
            self._pace(t)
            return Frame(image, t, self.name)
        return None

    def _image(self, name: str) -> np.ndarray | None:
        """The row's picture: decoded, or a copy of the previous row's when the same file is listed
        again (a copy: whoever takes a frame may draw on it)."""
        if self._last is not None and self._last[0] == name:
            return self._last[1].copy()
        try:  # the size is checked from the header before a pixel is decoded
            image = read_image(self.folder / name)
        except ImageError as e:
            log.warning("recorded session %s: frame %r skipped: %s", self.folder, name, e)
            self._last = None
            return None
        self._last = (name, image.copy())
        return image


class VideoFileSource(_Played):
    """Plays back a video file; t comes from the container's timestamps (paced to them with
    ``realtime=True``, as ``RecordedSource``)."""

    def __init__(
        self,
        path: str | Path,
        *,
        realtime: bool = False,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(realtime=realtime, clock=clock, sleep=sleep)
        self.path = Path(path)
        self.name = f"recorded:{self.path}"
        if not self.path.is_file():
            raise FrameSourceError(f"recorded video {str(self.path)!r}: file not found")
        quiet_opencv()  # a file OpenCV cannot decode is said in our words, not FFmpeg's
        self._cap: Any = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise FrameSourceError(f"recorded video {str(self.path)!r}: OpenCV cannot decode it")
        over = _declared_over(self._cap, self.name)
        if over is not None:  # every frame of it would be refused: not one is decoded
            self.close()
            raise FrameSourceError(f"recorded video {str(self.path)!r}: {over}")
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self._fps = fps if fps > 0 else 30.0
        self._index = 0

    def read(self) -> Frame | None:
        while self._cap is not None:
            ok, image = self._cap.read()
            if not ok or image is None:
                return None
            msec = float(self._cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0)
            t = msec / 1000.0 if msec > 0 or self._index == 0 else self._index / self._fps
            self._index += 1
            try:  # decoded by OpenCV already: checked before use
                _bounded(image, self.name)
            except ImageError as e:
                self._refuse(str(e))
                continue
            self._pace(t)
            return Frame(image, t, self.name)
        return None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# -- live cameras ------------------------------------------------------------------------------


class _CaptureSource(_SourceBase):
    """A live camera read through a cv2.VideoCapture (``_cap``); t is the clock time since opening."""

    name: str
    _cap: Any
    _clock: Clock
    _t0: float
    #: what a failed read means for this kind of camera
    no_frame = "returned no frame (unplugged?)"
    #: seconds of frames all skipped (too large) before the camera is taken for lost
    refuse_for_s = 5.0

    def read(self) -> Frame | None:
        since = self._clock()
        if self._cap is not None and (over := _declared_over(self._cap, self.name)) is not None:
            self._refuse(over)  # its stream says so before a frame is decoded: none is
            raise CameraLost(f"camera {self.name!r}: {over}")
        while True:
            if self._cap is None:
                raise CameraLost(f"camera {self.name!r} is closed")
            ok, image = self._cap.read()
            if not ok or image is None:
                raise CameraLost(f"camera {self.name!r}: {self.no_frame}")
            image = _check_bgr(image, self.name)
            try:  # decoded by OpenCV already (nothing bounds it before): checked before use
                _bounded(image, self.name)
            except ImageError as e:
                del image
                self._refuse(str(e))
                if self._clock() - since > self.refuse_for_s:
                    raise CameraLost(
                        f"camera {self.name!r}: no frame it may read for {self.refuse_for_s:g} s ({e})"
                    ) from None
                continue
            return Frame(image, self._clock() - self._t0, self.name)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class CameraSource(_CaptureSource):
    """A V4L2/USB camera through cv2.VideoCapture; t is the clock time since opening."""

    def __init__(
        self,
        device: int | str,
        *,
        width: int | None = None,
        height: int | None = None,
        clock: Clock = time.monotonic,
        capture_factory: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> None:
        self.device = device
        self.name = name or f"v4l2:{device}"  # as the owner wrote it ('usb:3' stays 'usb:3')
        self._clock = clock
        factory = capture_factory or cv2.VideoCapture
        quiet_opencv()  # a camera that is not there is said below in our words, not OpenCV's WARN lines
        self._cap: Any = factory(device)
        if not self._cap.isOpened():
            self._cap.release()
            raise FrameSourceError(f"camera {self.name!r}: cannot open it (is it plugged in, and free?)")
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._t0 = clock()


#: the Python that runs picamera2 (Raspberry Pi OS's, which its apt packages are built for)
PICAM_PYTHON = "/usr/bin/python3"
PICAM_WORKER = Path(__file__).with_name("picam_worker.py")


def _picam_import_failed(hello: dict[str, Any], python: str) -> str:
    """The one sentence for a picamera2 that does not import in ``python``: the cause and the fix."""
    error = str(hello.get("error", "?"))
    if "numpy.dtype size changed" in error or "binary incompatibility" in error:
        return (
            f"camera 'picam': picamera2 does not import in {python} because its simplejpeg was built "
            f"for Raspberry Pi OS's numpy and numpy {hello.get('numpy', '?')} from "
            f"{hello.get('numpy_file', '?')} stands before it ({error}): remove that numpy "
            "(sudo pip uninstall --break-system-packages numpy, or pip uninstall numpy for one in "
            "~/.local) and run sudo apt install --reinstall python3-numpy python3-simplejpeg"
        )
    return f"camera 'picam': picamera2 does not import in {python} ({error}); {_picam_advice()}"


def _picam_advice() -> str:
    from hardware.pi import install_advice

    elsewhere = "use 'v4l2:0', a network camera or 'recorded:DIR'"
    return install_advice("python3-picamera2", elsewhere=elsewhere, venv_hint=False)


class PicameraSource(_SourceBase):
    """The Raspberry Pi camera through picamera2, run in the system's Python (``hardware/picam_worker.py``).

    Raspberry Pi OS builds python3-picamera2's C extensions against its own numpy 1.x, while the venv
    has numpy 2 (OpenCV 5 requires it): in one process they cannot meet ("numpy.dtype size changed").
    So picamera2 runs in ``python`` (``/usr/bin/python3``; ``DICETABLE_PICAM_PYTHON`` names another)
    and each frame comes over a pipe as raw B, G, R bytes."""

    def __init__(
        self,
        *,
        width: int = 1280,
        height: int = 960,
        clock: Clock = time.monotonic,
        python: str | None = None,
        still: tuple[int, int] | None = None,
    ) -> None:
        self.name = "picam"
        self._clock = clock
        self._proc: Any = None
        #: ``still``: (W, H) of the main stream beside the gate's lores one ((0, 0): the sensor's), and
        #: ``sizes`` the worker's word on both (hardware.stills.PicameraStills, issue 43)
        self.sizes: dict[str, tuple[int, int]] = {}
        python = python or os.environ.get("DICETABLE_PICAM_PYTHON") or PICAM_PYTHON
        extra = [] if still is None else [str(still[0]), str(still[1])]
        try:
            # -s: a numpy pip put in ~/.local must not stand before the system's
            proc = subprocess.Popen(
                [python, "-s", str(PICAM_WORKER), str(width), str(height), *extra],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError as e:
            raise FrameSourceError(
                f"camera 'picam': cannot start {python} to run picamera2 in ({e.strerror}); {_picam_advice()}"
            ) from None
        line = proc.stdout.readline() if proc.stdout else b""
        try:
            hello = json.loads(line) if line.strip() else {}
        except ValueError:
            hello = {"error": line[:200].decode("utf-8", "replace")}
        if hello.get("ok") is not True:
            self._stop(proc)
            if hello.get("stage") == "import":
                raise FrameSourceError(_picam_import_failed(hello, python))
            what = hello.get("error") or f"{python} ended (exit {proc.returncode}) before the camera started"
            raise FrameSourceError(f"camera 'picam': {what}")
        self._proc = proc
        self.sizes = {k: (int(hello[k][0]), int(hello[k][1])) for k in ("main", "lores") if k in hello}
        self._t0 = clock()

    def _read_exactly(self, n: int) -> bytearray | None:
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self._proc.stdout.readinto(view[got:])
            if not k:
                return None
            got += k
        return buf

    def read(self) -> Frame | None:
        image = self._capture(b"f", 3)
        return Frame(_check_bgr(image, self.name), self._clock() - self._t0, self.name)

    def _capture(self, command: bytes, channels: int) -> np.ndarray:
        """One capture from the worker: ``f`` the main stream (B, G, R), ``l`` the lores one (I420
        planes, ``channels`` 1)."""
        if self._proc is None:
            raise CameraLost("camera 'picam' is closed")
        try:
            self._proc.stdin.write(command)
            self._proc.stdin.flush()
            head = self._read_exactly(12)
            if head is None:
                raise CameraLost(f"camera 'picam': its process ended (exit {self._proc.poll()})")
            h, w, n_error = (int.from_bytes(head[i : i + 4], "little") for i in (0, 4, 8))
            if n_error:
                text = self._read_exactly(n_error) or b""
                raise CameraLost(f"camera 'picam' failed to capture: {text.decode('utf-8', 'replace')}")
            pixels = self._read_exactly(h * w * channels)
        except (BrokenPipeError, ValueError) as e:
            raise CameraLost(f"camera 'picam': its process went away ({e})") from None
        if pixels is None:
            raise CameraLost(f"camera 'picam': its process ended (exit {self._proc.poll()})")
        shape = (h, w, channels) if channels > 1 else (h, w)
        return np.frombuffer(pixels, np.uint8).reshape(shape)

    @staticmethod
    def _stop(proc: Any) -> None:
        try:
            if proc.stdin:
                proc.stdin.write(b"q")
                proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()

    def close(self) -> None:
        if self._proc is not None:
            self._stop(self._proc)
            self._proc = None


# -- fakes that ship with the package ------------------------------------------------------------


class FakeSource(_SourceBase):
    """Frames from memory: a list of images with times, or one still image repeated.

    ``fail_after``/``fail_times`` make it raise :class:`CameraLost` like an
    unplugged camera (to test reconnection without hardware).
    """

    def __init__(
        self,
        images: Sequence[np.ndarray] | None = None,
        times: Iterable[float] | None = None,
        *,
        name: str = "fake",
        still: np.ndarray | None = None,
        count: int | None = None,
        fps: float = 15.0,
    ) -> None:
        if images is None:
            base = still if still is not None else synthetic_table()
            n = 30 if count is None else count
            images = [base] * n
        self._images = [_check_bgr(im, f"fake source {name!r}") for im in images]
        self._times = list(times) if times is not None else [i / fps for i in range(len(self._images))]
        if len(self._times) != len(self._images):
            raise ValueError(f"fake source {name!r}: {len(self._images)} images but {len(self._times)} times")
        self.name = name
        self._i = 0
        self.closed = False

    def read(self) -> Frame | None:
        if self.closed:
            raise CameraLost(f"camera {self.name!r} is closed")
        if self._i >= len(self._images):
            return None
        i = self._i
        self._i += 1
        return Frame(self._images[i], self._times[i], self.name)

    def close(self) -> None:
        self.closed = True


def synthetic_table(width: int = 320, height: int = 240, seed: int = 0) -> np.ndarray:
    """A green felt table with a little texture (the fake camera's view)."""
    rng = np.random.default_rng(seed)
    table = np.empty((height, width, 3), np.uint8)
    table[:] = (60, 110, 40)
    noise = rng.normal(0, 6, (height // 8 + 1, width // 8 + 1)).astype(np.float32)
    texture = cv2.resize(noise, (width, height), interpolation=cv2.INTER_CUBIC)[..., None]
    out: np.ndarray = np.clip(table.astype(np.float32) + texture, 0, 255).astype(np.uint8)
    return out


class NetworkSource(_CaptureSource):
    """A network camera: MJPEG over HTTP(S) read by ``hardware.mjpeg`` (each frame's bytes and size
    bounded before it is decoded), RTSP (over TCP) or another HTTP stream through OpenCV's FFmpeg
    backend (each frame's size checked once decoded, before use).

    Each frame's ``t`` is its arrival time (the clock since opening), not the stream's own clock,
    which a phone app may start anywhere.  A stream that stops raises :class:`CameraLost` within
    ``timeout_s`` (FFmpeg's own read timeout), so a :class:`ReconnectingSource` can say so and reopen.
    A frame too large is skipped and said (``refused_count``, ``last_refused``, a warning naming the
    camera); a camera that sends nothing else for ``timeout_s`` is taken for lost.
    """

    no_frame = "the stream stopped"
    _stream: MjpegStream | None = None

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 5.0,
        clock: Clock = time.monotonic,
        capture_factory: Callable[..., Any] | None = None,
    ) -> None:
        scheme = url.partition(":")[0].lower()
        if scheme not in NETWORK_SCHEMES or "://" not in url or not url.split("://", 1)[1].strip("/"):
            raise ValueError(
                f"camera spec {mask_url(url)!r}: a network camera is 'http://HOST:PORT/PATH' or 'rtsp://...'"
            )
        self.url = url
        self.name = mask_url(url)
        self._clock = clock
        if scheme.startswith("rtsp"):
            # TCP: a lost UDP packet would tear frames; kept if the owner set other options
            os.environ.setdefault("OPENCV_FFMPEG_CAPTURE_OPTIONS", "rtsp_transport;tcp")
        self.refuse_for_s = timeout_s
        self._cap: Any = None
        if scheme.startswith("http") and capture_factory is None:
            try:  # MJPEG read here, every frame bounded before it is decoded
                self._stream = MjpegStream(url, self.name, timeout_s)
                self._t0 = clock()
                return
            except NotMjpeg as e:  # another kind of HTTP stream: FFmpeg's, checked once decoded
                log.info("camera %r: %s; read through FFmpeg", self.name, e)
            except StreamError as e:
                raise CameraLost(
                    f"camera {self.name!r}: no stream there ({e}; is the camera app running, the address "
                    f"and port right, and this machine on its network?)"
                ) from None
        quiet_opencv()  # an unreachable camera is said below in our words, not FFmpeg's
        ms = int(timeout_s * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
        if capture_factory is not None:
            self._cap = capture_factory(url)
        else:
            self._cap = cv2.VideoCapture(url, cv2.CAP_FFMPEG, params)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraLost(
                f"camera {self.name!r}: no stream there (is the camera app running, the address and port "
                f"right, and this machine on its network?)"
            )
        self._t0 = clock()

    def read(self) -> Frame | None:
        if self._stream is None:
            return super().read()
        since = self._clock()
        while True:
            try:
                image = self._stream.next_image()
            except ImageError as e:  # refused before it was decoded: skipped
                self._refuse(str(e))
                if self._clock() - since > self.refuse_for_s:
                    raise CameraLost(
                        f"camera {self.name!r}: no frame it may read for {self.refuse_for_s:g} s ({e})"
                    ) from None
                continue
            except StreamError as e:
                raise CameraLost(f"camera {self.name!r}: {e}") from None
            return Frame(image, self._clock() - self._t0, self.name)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        super().close()


def is_live(spec: str) -> bool:
    """A camera that can drop out and come back (wrap it in a :class:`ReconnectingSource`)."""
    kind = spec.strip().partition(":")[0].lower()
    return kind in ("v4l2", "usb", "picam", *NETWORK_SCHEMES)


# -- wrappers ----------------------------------------------------------------------------------


class ReconnectingSource(_SourceBase):
    """Wraps a live source: when the camera disappears, reports it and reopens with backoff.

    ``read()`` blocks (through the injected ``sleep``) until a frame arrives
    again, so the game simply waits and resumes.  ``on_status`` hears
    "lost"/"reconnected" messages for the display.  ``max_attempts`` (None =
    forever) bounds the waiting; after that the last error is raised.
    """

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        *,
        name: str | None = None,
        backoff: Sequence[float] = (0.5, 1.0, 2.0, 5.0),
        max_attempts: int | None = None,
        sleep: Sleep = time.sleep,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        if not backoff or any(b < 0 for b in backoff):
            raise ValueError(f"backoff must be non-negative seconds, got {list(backoff)!r}")
        self._opener = opener
        self._backoff = list(backoff)
        self._max_attempts = max_attempts
        self._sleep = sleep
        self._on_status = on_status
        self._inner: FrameSource | None = opener()
        self.name = name or self._inner.name
        self.reconnects = 0
        self._past_refused = 0  # frames skipped by the sources closed since

    @property
    def refused_count(self) -> int:  # type: ignore[override]
        return self._past_refused + int(getattr(self._inner, "refused_count", 0))

    @property
    def last_refused(self) -> str | None:  # type: ignore[override]
        inner = getattr(self._inner, "last_refused", None)
        return inner if inner is not None else self._last_refused

    _last_refused: str | None = None

    def _status(self, msg: str) -> None:
        log.warning("%s", msg)
        if self._on_status is not None:
            self._on_status(msg)

    def read(self) -> Frame | None:
        attempt = 0
        while True:
            try:
                if self._inner is None:
                    self._inner = self._opener()
                    self.reconnects += 1
                    self._status(f"camera {self.name!r} reconnected after {attempt} attempt(s)")
                return self._inner.read()
            except FrameSourceError as e:
                if self._inner is not None:
                    self._safe_close()
                if self._max_attempts is not None and attempt >= self._max_attempts:
                    raise
                delay = self._backoff[min(attempt, len(self._backoff) - 1)]
                attempt += 1
                self._status(f"camera {self.name!r} lost ({e}); reopening in {delay:g} s (attempt {attempt})")
                self._sleep(delay)

    @property
    def takes_stills(self) -> bool:
        """Whether the camera takes a full-resolution still of a settled throw (hardware.stills)."""
        return bool(getattr(self._inner, "takes_stills", False))

    def still(self) -> Frame | None:
        """The camera's still now (hardware.stills), None when it takes none or is away."""
        take = getattr(self._inner, "still", None)
        return take() if callable(take) else None

    def _safe_close(self) -> None:
        if self._inner is not None:
            self._past_refused += int(getattr(self._inner, "refused_count", 0))
            self._last_refused = getattr(self._inner, "last_refused", None) or self._last_refused
        try:
            if self._inner is not None:
                self._inner.close()
        except Exception as e:  # a vanished device may fail to close; it is gone either way
            log.debug("closing %s failed: %s", self.name, e)
        self._inner = None

    def close(self) -> None:
        self._safe_close()


class Recorder(_Wrapping):
    """Wraps any source and writes what it reads to a session folder (frames.csv + images).

    It is itself a source, so a game can be played and recorded at once.
    Times are written relative to the first frame.
    """

    def __init__(
        self,
        source: FrameSource,
        out_dir: str | Path,
        *,
        image_format: str = "jpg",
        jpeg_quality: int = 90,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        if image_format not in ("jpg", "png"):
            raise ValueError(f"image_format must be 'jpg' or 'png', got {image_format!r}")
        self.out = Path(out_dir)
        if self.out.exists() and (self.out / "frames.csv").exists():
            raise FrameSourceError(f"recording folder {str(self.out)!r} already holds a session (frames.csv)")
        self.out.mkdir(parents=True, exist_ok=True)
        self.source = source
        self.name = source.name
        self._fmt = image_format
        self._params = [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)] if image_format == "jpg" else []
        self._csv = (self.out / "frames.csv").open("w", newline="", encoding="utf-8")
        self._writer = csv.writer(self._csv)
        self._writer.writerow(["file", "t"])
        self._t0: float | None = None
        self.count = 0
        self._meta = {
            "source": source.name,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            **(metadata or {}),
        }

    def _wrapped(self) -> object:
        return self.source

    def read(self) -> Frame | None:
        frame = self.source.read()
        if frame is None:
            return None
        if self._t0 is None:
            self._t0 = frame.t
        name = f"frame_{self.count:06d}.{self._fmt}"
        if not cv2.imwrite(str(self.out / name), frame.image_bgr, self._params):
            raise FrameSourceError(f"recording to {str(self.out)!r}: cannot write {name}")
        self._writer.writerow([name, f"{frame.t - self._t0:.4f}"])
        self._csv.flush()
        self.count += 1
        return frame

    def close(self) -> None:
        if self._csv.closed:
            return
        self._csv.close()
        h, w = (0, 0)
        first = self.out / f"frame_{0:06d}.{self._fmt}"
        if first.exists():  # its size from its header: nothing decoded again
            with first.open("rb") as fh:
                found = image_size(fh.read(64 * 1024))
            if found is not None:
                w, h = found[1], found[2]
        meta = {**self._meta, "frames": self.count, "width": w, "height": h}
        (self.out / "session.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        self.source.close()


def record(
    source: FrameSource,
    out_dir: str | Path,
    *,
    seconds: float | None = None,
    max_frames: int | None = None,
    **kw: Any,
) -> int:
    """Record ``source`` into ``out_dir`` for ``seconds`` of frame time (or until it ends); returns frames."""
    with Recorder(source, out_dir, **kw) as rec:
        t0: float | None = None
        while (frame := rec.read()) is not None:
            t0 = frame.t if t0 is None else t0
            if seconds is not None and frame.t - t0 >= seconds:
                break
            if max_frames is not None and rec.count >= max_frames:
                break
        return int(rec.count)


def write_session(
    folder: str | Path,
    frames: Iterable[tuple[np.ndarray, float]],
    *,
    image_format: str = "jpg",
    jpeg_quality: int = 85,
    metadata: dict[str, Any] | None = None,
) -> int:
    """Write (image, t) pairs as a session folder (used by fixture scripts); returns the frame count."""
    times = []
    images = []
    for image, t in frames:
        images.append(image)
        times.append(t)
    src = FakeSource(images, times, name="generated")
    return record(src, folder, image_format=image_format, jpeg_quality=jpeg_quality, metadata=metadata)


# -- the spec parser ---------------------------------------------------------------------------


def open_source(spec: str, **kw: Any) -> FrameSource:
    """Open a frame source from a spec string (see the module doc); bad specs get a clear ValueError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"camera spec {spec!r}: {SPEC_HELP}")
    shown = mask_url(spec.strip())
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "recorded":
        if not arg:
            raise ValueError(f"camera spec {spec!r}: 'recorded:' needs a folder or video file")
        path = Path(arg)
        if path.suffix.lower() in VIDEO_SUFFIXES:
            return VideoFileSource(path, **kw)
        return RecordedSource(path, **kw)
    if kind in ("v4l2", "usb"):
        if not arg:
            raise ValueError(
                f"camera spec {spec!r}: '{kind}:' needs a device number or path, e.g. '{kind}:0'"
            )
        device: int | str = int(arg) if arg.isdigit() else arg
        return CameraSource(device, name=f"{kind}:{arg}", **kw)
    if kind == "picam":
        return PicameraSource(**kw)
    if kind in NETWORK_SCHEMES:
        return NetworkSource(spec.strip(), **kw)
    if kind == "fake":
        return FakeSource(**kw)
    raise ValueError(f"camera spec {shown!r}: unknown source {mask_url(kind)!r}; {SPEC_HELP}")
