"""The LED matrix's wire format, shared by the sender and the emulated receiver.

How a grid of pixels maps to the strip (``Wiring``), the two protocols' encoders
(Adalight, tpm2), the time a frame takes on the wire, and a receiver's streaming
``FrameDecoder``.  No I/O: ``hardware.leds`` sends these bytes over a port,
``hardware.protocol_emu`` decodes them as a receiver would.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

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
