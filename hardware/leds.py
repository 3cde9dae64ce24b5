"""The serial LED matrix: Adalight (default; stock WLED understands it) or tpm2 over any pyserial URL.

``open_matrix(url, width, height, ...)`` gives a :class:`LedMatrix` that takes
RGB images (height, width, 3) and sends them in strip order for the wiring
(row-major or serpentine, from any corner).  Frames are paced to what the baud
rate carries: one frame is ``bytes x 10 bits / baud`` seconds on the wire.  A
device that disappears (USB unplugged) is reported once, frames are dropped
while it is gone, and the port is reopened with backoff: the game goes on.
Bytes the device sends back are read and ignored with a log line.

URLs: a device path (``/dev/ttyACM0``), any pyserial URL (``loop://``,
``socket://host:port``), or ``emu://NAME`` for the in-process emulated matrix of
:mod:`hardware.protocol_emu`, whose last decoded frame can be read and saved
as a PNG (``matrix.emulator``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import serial

log = logging.getLogger(__name__)

if "hardware" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("hardware")  # provides emu:// (hardware/protocol_emu.py)

PROTOCOLS = ("adalight", "tpm2")
LAYOUTS = ("row-major", "serpentine")
ORIGINS = ("top-left", "top-right", "bottom-left", "bottom-right")
ADA_MAGIC = b"Ada"
TPM2_START, TPM2_DATA, TPM2_END = 0xC9, 0xDA, 0x36
BITS_PER_BYTE = 10  # 8N1: a start bit, 8 data bits, a stop bit


class LedError(ValueError):
    """A bad LED setting or frame; the message names it and what was expected."""


# -- wiring --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wiring:
    """How a width x height grid of pixels maps to positions along the LED strip."""

    width: int
    height: int
    layout: str = "serpentine"
    origin: str = "top-left"

    def __post_init__(self) -> None:
        for name, v in (("width", self.width), ("height", self.height)):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 128:
                raise LedError(f"LED matrix {name} must be a whole number 1-128, got {v!r}")
        if self.layout not in LAYOUTS:
            raise LedError(f"LED wiring must be one of {list(LAYOUTS)}, got {self.layout!r}")
        if self.origin not in ORIGINS:
            raise LedError(f"LED origin must be one of {list(ORIGINS)}, got {self.origin!r}")

    @property
    def count(self) -> int:
        return self.width * self.height

    def index_map(self) -> np.ndarray:
        """(height, width) array: the strip position of each pixel."""
        idx = np.arange(self.count).reshape(self.height, self.width)
        if self.layout == "serpentine":
            idx[1::2] = idx[1::2, ::-1].copy()  # every other row runs back
        if self.origin.startswith("bottom"):
            idx = idx[::-1]
        if self.origin.endswith("right"):
            idx = idx[:, ::-1]
        out: np.ndarray = np.ascontiguousarray(idx)
        return out

    def to_strip(self, image_rgb: np.ndarray) -> np.ndarray:
        """(count, 3) uint8 RGB in strip order."""
        image = check_image(image_rgb, self)
        strip = np.empty((self.count, 3), np.uint8)
        strip[self.index_map().ravel()] = image.reshape(-1, 3)
        return strip

    def to_image(self, strip: np.ndarray) -> np.ndarray:
        """Back from strip order to a (height, width, 3) image (what a receiver shows)."""
        if strip.shape != (self.count, 3):
            raise LedError(
                f"expected {self.count} RGB pixels for a {self.width}x{self.height} matrix, "
                f"got {strip.shape[0]}"
            )
        out: np.ndarray = strip[self.index_map()]
        return out


def check_image(image_rgb: Any, wiring: Wiring) -> np.ndarray:
    shape = (wiring.height, wiring.width, 3)
    if not isinstance(image_rgb, np.ndarray) or image_rgb.shape != shape or image_rgb.dtype != np.uint8:
        raise LedError(
            f"an LED frame must be an RGB uint8 array of shape {shape}, got "
            f"shape {getattr(image_rgb, 'shape', None)} dtype {getattr(image_rgb, 'dtype', None)}"
        )
    return image_rgb


# -- the two wire protocols ---------------------------------------------------------------------


def encode_adalight(strip: np.ndarray) -> bytes:
    """'Ada', (count-1) hi, lo, hi^lo^0x55, then R,G,B per LED."""
    n = len(strip)
    if not 1 <= n <= 65536:
        raise LedError(f"Adalight carries 1-65536 LEDs, got {n}")
    hi, lo = (n - 1) >> 8, (n - 1) & 0xFF
    return ADA_MAGIC + bytes((hi, lo, hi ^ lo ^ 0x55)) + np.asarray(strip, np.uint8).tobytes()


def encode_tpm2(strip: np.ndarray) -> bytes:
    """0xC9 0xDA, data size hi/lo, R,G,B per LED, 0x36."""
    data = np.asarray(strip, np.uint8).tobytes()
    if len(data) > 0xFFFF:
        raise LedError(f"a tpm2 frame carries at most 65535 bytes, got {len(data)}")
    return bytes((TPM2_START, TPM2_DATA, len(data) >> 8, len(data) & 0xFF)) + data + bytes((TPM2_END,))


ENCODERS: dict[str, Callable[[np.ndarray], bytes]] = {"adalight": encode_adalight, "tpm2": encode_tpm2}


def frame_bytes(protocol: str, count: int) -> int:
    """Bytes on the wire for one frame of ``count`` LEDs."""
    return (6 if protocol == "adalight" else 5) + 3 * count


def max_frame_rate(protocol: str, count: int, baud: int) -> float:
    """Frames per second the line carries: baud / (bytes per frame x 10 bits)."""
    return baud / (frame_bytes(protocol, count) * BITS_PER_BYTE)


class FrameDecoder:
    """A receiver's streaming decoder (both protocols): ``feed(bytes)`` returns complete strips.

    Bytes that do not belong to a frame are skipped and reported in one log line per run of garbage.
    """

    def __init__(self, name: str = "LED receiver") -> None:
        self.name = name
        self._buf = bytearray()
        self.garbage = 0  # bytes skipped so far
        self.frames = 0

    def feed(self, data: bytes) -> list[np.ndarray]:
        self._buf += data
        out: list[np.ndarray] = []
        while self._buf:
            skipped = self._skip_to_start()
            if skipped:
                self.garbage += skipped
                log.warning(
                    "%s: ignored %d byte(s) that are not an Adalight or tpm2 frame", self.name, skipped
                )
            if not self._buf:
                break
            strip, used = self._parse()
            if used == 0:  # need more bytes
                break
            del self._buf[:used]
            if strip is not None:
                out.append(strip)
                self.frames += 1
        return out

    def _skip_to_start(self) -> int:
        i = 0
        while i < len(self._buf) and not self._is_start(i):
            i += 1
        del self._buf[:i]
        return i

    def _is_start(self, i: int) -> bool:
        head = bytes(self._buf[i : i + 3])
        if head[:1] == ADA_MAGIC[:1]:
            return ADA_MAGIC.startswith(head)
        if head[0] == TPM2_START:
            return len(head) < 2 or head[1] == TPM2_DATA
        return False

    def _parse(self) -> tuple[np.ndarray | None, int]:
        buf = self._buf
        if buf[0] == ADA_MAGIC[0]:
            if len(buf) < 6:
                return None, 0
            hi, lo, chk = buf[3], buf[4], buf[5]
            if chk != hi ^ lo ^ 0x55:
                log.warning("%s: Adalight header with a bad checksum; skipped", self.name)
                self.garbage += 1
                return None, 1
            n = ((hi << 8) | lo) + 1
            end = 6 + 3 * n
            if len(buf) < end:
                return None, 0
            return np.frombuffer(bytes(buf[6:end]), np.uint8).reshape(n, 3), end
        if len(buf) < 4:
            return None, 0
        size = (buf[2] << 8) | buf[3]
        end = 4 + size + 1
        if len(buf) < end:
            return None, 0
        if buf[end - 1] != TPM2_END or size % 3:
            log.warning("%s: tpm2 frame without its end byte or not RGB; skipped", self.name)
            self.garbage += 1
            return None, 1
        return np.frombuffer(bytes(buf[4 : end - 1]), np.uint8).reshape(size // 3, 3), end


# -- the matrix --------------------------------------------------------------------------------


class LedMatrix:
    """An LED matrix on a serial line (see the module doc)."""

    def __init__(
        self,
        url: str,
        width: int = 16,
        height: int = 16,
        *,
        protocol: str = "adalight",
        wiring: str = "serpentine",
        origin: str = "top-left",
        baud: int = 115200,
        brightness: float = 1.0,
        max_fps: float | None = None,
        backoff: Sequence[float] = (0.5, 1.0, 2.0, 5.0),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        serial_factory: Callable[..., Any] = serial.serial_for_url,
    ) -> None:
        if protocol not in PROTOCOLS:
            raise LedError(f"LED protocol must be one of {list(PROTOCOLS)}, got {protocol!r}")
        if not isinstance(baud, int) or baud <= 0:
            raise LedError(f"LED baud must be a positive whole number, got {baud!r}")
        if not 0.0 <= brightness <= 1.0:
            raise LedError(f"LED brightness must be 0.0-1.0, got {brightness!r}")
        self.url = url
        self.wiring = Wiring(width, height, wiring, origin)
        self.protocol = protocol
        self.baud = baud
        self.brightness = brightness
        wire_fps = max_frame_rate(protocol, self.wiring.count, baud)
        self.fps = min(wire_fps, max_fps) if max_fps else wire_fps
        self.frame_interval = 1.0 / self.fps
        self._encode = ENCODERS[protocol]
        self._clock, self._sleep = clock, sleep
        self._factory = serial_factory
        self._backoff = list(backoff)
        self._port: Any = None
        self._failures = 0
        self._retry_at = 0.0
        self._next_slot = 0.0
        self.sent = 0
        self.dropped = 0
        self.ignored_bytes = 0
        self.last_image: np.ndarray | None = None
        self._connect(initial=True)

    @property
    def width(self) -> int:
        return self.wiring.width

    @property
    def height(self) -> int:
        return self.wiring.height

    @property
    def connected(self) -> bool:
        return self._port is not None

    @property
    def emulator(self) -> Any:
        """The emulated receiver behind an ``emu://`` URL (None for real devices)."""
        from hardware.protocol_emu import receiver

        return receiver(self.url) if self.url.lower().startswith("emu://") else None

    def __repr__(self) -> str:
        state = "connected" if self.connected else "disconnected"
        return (
            f"LedMatrix({self.url!r}, {self.width}x{self.height}, {self.protocol}, {self.baud} baud, {state})"
        )

    # -- connection ---------------------------------------------------------------------------
    def _connect(self, initial: bool = False) -> bool:
        try:
            self._port = self._factory(self.url, baudrate=self.baud, timeout=0, write_timeout=2.0)
        except (serial.SerialException, OSError, ValueError) as e:
            if initial and isinstance(e, ValueError):
                raise LedError(f"LED matrix url {self.url!r}: {e}") from None
            self._port = None
            delay = self._backoff[min(self._failures, len(self._backoff) - 1)]
            if self._failures == 0 or initial:
                log.warning(
                    "LED matrix %s not available (%s); retrying every %g-%g s",
                    self.url,
                    e,
                    self._backoff[0],
                    self._backoff[-1],
                )
            self._failures += 1
            self._retry_at = self._clock() + delay
            return False
        if self._failures:
            log.warning("LED matrix %s reconnected", self.url)
        self._failures = 0
        return True

    def _lost(self, e: Exception) -> None:
        log.warning("LED matrix %s lost (%s); frames are dropped until it is back", self.url, e)
        try:
            self._port.close()
        except Exception as close_error:  # a vanished port may fail to close; it is gone either way
            log.debug("closing %s failed: %s", self.url, close_error)
        self._port = None
        self._failures = 1
        self._retry_at = self._clock() + self._backoff[0]

    def close(self) -> None:
        if self._port is not None:
            self._port.close()
            self._port = None

    def __enter__(self) -> LedMatrix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- frames -------------------------------------------------------------------------------
    def encode(self, image_rgb: np.ndarray) -> bytes:
        """The bytes of one frame for this matrix (wiring, brightness, protocol)."""
        strip = self.wiring.to_strip(image_rgb)
        if self.brightness < 1.0:
            strip = (strip.astype(np.float32) * self.brightness + 0.5).astype(np.uint8)
        return self._encode(strip)

    def show(self, image_rgb: np.ndarray, *, wait: bool = True) -> bool:
        """Send one frame.  Returns False when it was dropped (device gone, or line busy and not waiting).

        With ``wait`` (the default) it sleeps until the line can carry the next
        frame, so an animation never outruns the baud rate.
        """
        data = self.encode(image_rgb)
        self.last_image = image_rgb.copy()
        now = self._clock()
        if now < self._next_slot:
            if not wait:
                self.dropped += 1
                return False
            self._sleep(self._next_slot - now)
            now = self._next_slot
        if self._port is None and (now < self._retry_at or not self._connect()):
            self.dropped += 1
            return False
        try:
            self._drain_input()
            self._port.write(data)
        except (serial.SerialException, OSError) as e:
            self._lost(e)
            self.dropped += 1
            return False
        self._next_slot = max(now, self._next_slot) + self.frame_interval
        self.sent += 1
        return True

    def play(self, frames: Sequence[np.ndarray]) -> int:
        """Show an animation at the line's pace; returns the number of frames sent."""
        return sum(self.show(f) for f in frames)

    def _drain_input(self) -> None:
        waiting = self._port.in_waiting
        if waiting:
            junk = self._port.read(waiting)
            self.ignored_bytes += len(junk)
            log.info(
                "LED matrix %s: ignored %d byte(s) sent by the device: %r", self.url, len(junk), junk[:32]
            )


def open_matrix(url: str = "emu://", width: int = 16, height: int = 16, **kw: Any) -> LedMatrix:
    """Open an LED matrix; ``emu://`` (or ``emu://NAME``) gives the in-process emulated one."""
    if not isinstance(url, str) or not url:
        raise LedError(f"LED matrix url must be a device path or pyserial URL, got {url!r}")
    if url.lower().startswith("emu://"):
        from hardware.protocol_emu import receiver

        receiver(url).configure(
            Wiring(width, height, kw.get("wiring", "serpentine"), kw.get("origin", "top-left"))
        )
    return LedMatrix(url, width, height, **kw)
