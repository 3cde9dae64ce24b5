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
from typing import Any

import numpy as np
import serial

from hardware.ledwire import (
    ENCODERS,
    PROTOCOLS,
    LedError,
    Wiring,
    max_frame_rate,
)
from hardware.protocol_emu import receiver

log = logging.getLogger(__name__)

if "hardware" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("hardware")  # provides emu:// (hardware/protocol_emu.py)

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
        receiver(url).configure(
            Wiring(width, height, kw.get("wiring", "serpentine"), kw.get("origin", "top-left"))
        )
    return LedMatrix(url, width, height, **kw)
