"""Two streams, one still at rest (issue 43): the motion gate watches a low-resolution video stream,
and when the dice settle the table reads one full-resolution still of the throw.

A source that can take a still has the `Still` capability: ``still()`` gives a `Frame` of the table
as it is now, at the still's resolution (None: it has none, the table reads the gate's frame). The
still's cost is paid once a throw, when the table asks for it, never per frame.

- ``picam``: picamera2 with two streams of one configuration, ``main`` at the still's size (the
  sensor's resolution with ``still = "max"``: Camera Module 3 4608x2592, HQ 4056x3040) and ``lores``
  at the video's for the gate (`PicameraStills`); the still is the main stream's next frame.
- ``v4l2:N``/``usb:N``: the camera at the still's size (its highest with ``"max"``), the gate given
  a copy shrunk to the video's size; the still is the last frame at full size (`DownscaledStills`).
- a network camera: frames as delivered, no still (the table reads the gate's frame).
- ``recorded:DIR``: a recording made with stills (``stills.csv`` beside ``frames.csv``) gives, for a
  settled frame, the still recorded at that time (`RecordedStills`); one without stills replays as
  before. ``dicetable record`` saves the still of each settled throw (`StillLog`).

Sizes come from ``[camera] still`` (``WxH`` or ``"max"``) and ``[camera] video`` (``WxH``), checked by
`parse_size`.
"""

from __future__ import annotations

import csv
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from hardware.frames import (
    CameraSource,
    Frame,
    FrameSource,
    FrameSourceError,
    PicameraSource,
    RecordedSource,
    _check_bgr,
    _Wrapping,
    open_source,
)
from hardware.imagefile import ImageError, read_image

log = logging.getLogger(__name__)

#: ``[camera] video``'s default: the gate's frame (the size the readers' video scale was set at)
VIDEO = (1280, 960)
#: ``[camera] still``'s default: the camera's largest
STILL = "max"
#: a side below this or above that is not a camera's
SIDE_RANGE = (64, 12000)
#: asked of a V4L2 camera for ``"max"``: the driver answers with its largest size
V4L2_MAX = (10000, 10000)
#: a recorded still stands for a settled frame this close in time (seconds): the replaying gate settles
#: on the frame the recording's gate settled on, give or take a frame or two
STILL_MATCH_S = 0.35
STILLS_CSV = "stills.csv"

Size = tuple[int, int]


def parse_size(value: Any, key: str = "", allow_max: bool = True) -> Size | str:
    """``"WxH"`` as (W, H), or ``"max"`` (when ``allow_max``); raises ValueError naming ``key`` (none:
    the message names the value alone, for a config validator that names the key itself)."""
    try:
        return _parse_size(value, allow_max)
    except ValueError as e:
        raise ValueError(f"{key}: {e}, got {value!r}" if key else str(e)) from None


def _parse_size(value: Any, allow_max: bool) -> Size | str:
    want = 'WxH (e.g. 4608x2592) or "max"' if allow_max else "WxH (e.g. 1280x960)"
    if not isinstance(value, str):
        raise ValueError(f"expected {want}")
    text = value.strip().lower()
    if allow_max and text == "max":
        return "max"
    m = re.fullmatch(r"(\d{1,6})\s*[x×]\s*(\d{1,6})", text)
    if m is None:
        raise ValueError(f"expected {want}")
    w, h = int(m.group(1)), int(m.group(2))
    lo, hi = SIDE_RANGE
    if not (lo <= w <= hi and lo <= h <= hi):
        raise ValueError(f"each side must be {lo} to {hi} px")
    if w % 2 or h % 2:
        raise ValueError("sides must be even (the camera's YUV streams)")
    return (w, h)


def check_sizes(still: Size | str, video: Size) -> None:
    """Refuse a still smaller than the video frame (ValueError naming both keys)."""
    if still != "max" and isinstance(still, tuple) and (still[0] < video[0] or still[1] < video[1]):
        raise ValueError(
            f"camera.still {still[0]}x{still[1]} is smaller than camera.video {video[0]}x{video[1]}: "
            'the still is the full-resolution picture; give a larger size or "max"'
        )


@runtime_checkable
class Still(Protocol):
    """A frame source that can take a full-resolution still of the table now."""

    def still(self) -> Frame | None: ...


def still_of(source: Any) -> Frame | None:
    """The still ``source`` takes now (None when it has no still capability, or none to give)."""
    take: Callable[[], Frame | None] | None = getattr(source, "still", None)
    return take() if callable(take) else None


def shrunk(image: np.ndarray, size: Size) -> np.ndarray:
    """``image`` at ``size`` (W, H) by area; itself when it is not larger."""
    h, w = image.shape[:2]
    if w <= size[0] and h <= size[1]:
        return image
    out: np.ndarray = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return out


def video_size_for(still: tuple[int, int], video: Size) -> Size:
    """The gate's frame size for a camera delivering ``still`` (W, H): ``video``'s width, the height
    at the still's aspect (a 4608x2592 camera's gate frame at 1280 wide is 1280x720), even."""
    w = min(video[0], still[0])
    h = round(w * still[1] / still[0] / 2) * 2
    return (w, max(2, h))


class PicameraStills(PicameraSource):
    """The Raspberry Pi camera with two streams of one video configuration, run in the system's Python
    (`hardware.frames.PicameraSource`, ``hardware/picam_worker.py``): ``lores`` at the video's width
    and the sensor's aspect for the gate (``read``) and ``main`` at the still's size (``still``: the
    sensor's resolution for ``"max"``), so a still costs one capture of main, no mode switch."""

    takes_stills = True

    def __init__(self, *, still: Size | str = STILL, video: Size = VIDEO, **kw: Any) -> None:
        check_sizes(still, video)
        super().__init__(
            width=video[0], height=video[1], still=(0, 0) if isinstance(still, str) else still, **kw
        )
        full = self.sizes.get("main")
        lores = self.sizes.get("lores")
        if full is None or lores is None:
            self.close()
            raise FrameSourceError("camera 'picam': its process did not say the sizes of its two streams")
        self.still_size: Size = full
        self.video_size: Size = lores

    def read(self) -> Frame | None:
        yuv = self._capture(b"l", 1)
        w, h = self.video_size
        if yuv.shape[0] != h * 3 // 2 or yuv.shape[1] < w:
            raise FrameSourceError(
                f"camera 'picam': lores stream gave shape {yuv.shape}, expected YUV420 ({h * 3 // 2}, {w})"
            )
        bgr = cv2.cvtColor(np.ascontiguousarray(yuv[:, :w]), cv2.COLOR_YUV2BGR_I420)
        return Frame(_check_bgr(bgr, self.name), self._clock() - self._t0, self.name)

    def still(self) -> Frame | None:
        image = self._capture(b"f", 3)
        return Frame(_check_bgr(np.ascontiguousarray(image), self.name), self._clock() - self._t0, self.name)


class DownscaledStills(_Wrapping):
    """A camera delivering full-size frames (a V4L2/USB camera at its highest resolution): the gate
    reads each frame shrunk to the video's size (`read`), the still is the last frame at full size."""

    takes_stills = True

    def __init__(self, inner: FrameSource, video: Size = VIDEO) -> None:
        self.inner = inner
        self.name = inner.name
        self.video = video
        self._last: Frame | None = None

    def read(self) -> Frame | None:
        frame = self.inner.read()
        if frame is None:
            return None
        self._last = frame
        h, w = frame.image_bgr.shape[:2]
        size = video_size_for((w, h), self.video)
        return Frame(shrunk(frame.image_bgr, size), frame.t, frame.source)

    def _wrapped(self) -> object:
        return self.inner

    def still(self) -> Frame | None:
        if self._last is None:
            return None
        w = self._last.image_bgr.shape[1]
        return self._last if w > self.video[0] else None  # no larger than the gate's: no still

    def close(self) -> None:
        self.inner.close()


def read_stills_csv(folder: Path) -> list[tuple[str, float]]:
    """The (file, t) rows of a recording's stills.csv (none when it has none); bad rows skipped."""
    path = folder / STILLS_CSV
    if not path.is_file():
        return []
    rows: list[tuple[str, float]] = []
    with path.open(newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.reader(fh), start=1):
            if lineno == 1 and row[:2] == ["file", "t"]:
                continue
            try:
                name, t = row[0].strip(), float(row[1])
                if not name or not np.isfinite(t):
                    raise ValueError
            except (IndexError, ValueError):
                log.warning("%s line %d: expected 'file,t', got %r; skipped", path, lineno, row)
                continue
            rows.append((name, t))
    return rows


class RecordedStills(RecordedSource):
    """A recorded session with its stills: frames as `RecordedSource` plays them, and for the frame
    read last the still recorded within STILL_MATCH_S of it (`still`)."""

    takes_stills = True

    def __init__(self, folder: str | Path, **kw: Any) -> None:
        super().__init__(folder, **kw)
        self.stills = sorted(read_stills_csv(self.folder), key=lambda r: r[1])
        self._t: float | None = None

    def read(self) -> Frame | None:
        frame = super().read()
        self._t = None if frame is None else frame.t
        return frame

    def still(self) -> Frame | None:
        if self._t is None or not self.stills:
            return None
        t = self._t
        name, ts = min(self.stills, key=lambda r: abs(r[1] - t))
        if abs(ts - t) > STILL_MATCH_S:
            return None
        try:
            image = read_image(self.folder / name)
        except ImageError as e:
            log.warning("recorded session %s: still %r not read: %s", self.folder, name, e)
            return None
        return Frame(image, t, self.name)


def recorded(folder: str | Path, **kw: Any) -> RecordedSource:
    """A recorded session folder's source: with its stills when it has a stills.csv
    (`RecordedStills`), else as `RecordedSource` plays it."""
    if (Path(folder) / STILLS_CSV).is_file():
        return RecordedStills(folder, **kw)
    return RecordedSource(folder, **kw)


class StillLog:
    """The stills of a recording (``record``): each written beside the frames as ``still_NNNNNN.jpg``
    with a row ``file,t`` in stills.csv, ``t`` on the frames' clock."""

    def __init__(self, folder: str | Path, jpeg_quality: int = 95) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._params = [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)]
        path = self.folder / STILLS_CSV
        new = not path.exists()
        self._fh = path.open("a", newline="", encoding="utf-8")
        self._csv = csv.writer(self._fh)
        if new:
            self._csv.writerow(["file", "t"])
        self.count = len(read_stills_csv(self.folder))

    def add(self, image: np.ndarray, t: float) -> str:
        name = f"still_{self.count:06d}.jpg"
        if not cv2.imwrite(str(self.folder / name), image, self._params):
            raise FrameSourceError(f"recording to {str(self.folder)!r}: cannot write {name}")
        self._csv.writerow([name, f"{t:.4f}"])
        self._fh.flush()
        self.count += 1
        return name

    def close(self) -> None:
        self._fh.close()


def open_with_stills(spec: str, still: Size | str = STILL, video: Size = VIDEO, **kw: Any) -> FrameSource:
    """`hardware.frames.open_source` with the still capability where the camera has one: ``picam``
    (`PicameraStills`), ``v4l2:N``/``usb:N`` at ``still`` (its largest for ``"max"``) read through
    `DownscaledStills`, a recording with stills (`RecordedStills`); any other source as it opens."""
    check_sizes(still, video)
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picam":
        return PicameraStills(still=still, video=video, **kw)
    if kind in ("v4l2", "usb") and arg:
        device: int | str = int(arg) if arg.isdigit() else arg
        w, h = V4L2_MAX if isinstance(still, str) else still
        return DownscaledStills(CameraSource(device, width=w, height=h, **kw), video)
    if kind == "recorded" and arg and (Path(arg) / STILLS_CSV).is_file():
        return recorded(arg, **kw)
    return open_source(spec, **kw)


def record_with_stills(
    source: FrameSource,
    out_dir: str | Path,
    gate: Any,
    *,
    seconds: float | None = None,
    max_frames: int | None = None,
    **kw: Any,
) -> tuple[int, int]:
    """`hardware.frames.record` of a camera that takes stills: its video frames as a session folder,
    and the still of each throw the ``gate`` (a motion gate: ``update(image, t)`` saying
    ``settled_now`` or ``changed``) sees settle, written beside them (`StillLog`), so that
    ``recorded:DIR`` replays both.  Returns (frames, stills)."""
    from hardware.frames import Recorder

    with Recorder(source, out_dir, **kw) as rec:
        log_ = StillLog(out_dir)
        try:
            t0: float | None = None
            while (frame := rec.read()) is not None:
                t0 = frame.t if t0 is None else t0
                upd = gate.update(frame.image_bgr, frame.t)
                if upd.settled_now or upd.changed:
                    got = still_of(source)
                    if got is not None:
                        log_.add(got.image_bgr, frame.t - t0)
                if seconds is not None and frame.t - t0 >= seconds:
                    break
                if max_frames is not None and rec.count >= max_frames:
                    break
        finally:
            log_.close()
        return int(rec.count), log_.count
