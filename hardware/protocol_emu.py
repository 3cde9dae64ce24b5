"""``emu://NAME``: an in-process emulated LED matrix behind a pyserial URL.

pyserial finds this module through ``serial.protocol_handler_packages``
(hardware.leds adds "hardware"), so ``serial.serial_for_url("emu://table")``
returns a port whose writes go to :func:`receiver` ``("emu://table")``: a fake
device that decodes Adalight/tpm2 frames, keeps the last one as an image, and
can be unplugged and replugged, or made to send bytes back, by tests and demos.
With ``?wire=1`` in the URL a write takes as long as the baud rate needs
(10 bits per byte), like a real UART, so frame rates can be measured.
"""

from __future__ import annotations

import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from hardware.ledwire import BITS_PER_BYTE, FrameDecoder, Wiring

_RECEIVERS: dict[str, EmulatedReceiver] = {}
_LOCK = threading.Lock()


def _name(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != "emu":
        raise ValueError(f"expected an emu://NAME url, got {url!r}")
    return parts.netloc or "default"


def receiver(url: str = "emu://") -> EmulatedReceiver:
    """The emulated device behind ``url`` (created on first use, shared by name)."""
    name = _name(url)
    with _LOCK:
        if name not in _RECEIVERS:
            _RECEIVERS[name] = EmulatedReceiver(name)
        return _RECEIVERS[name]


class EmulatedReceiver:
    """The device end: decodes frames and shows the last one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.decoder = FrameDecoder(f"emu://{name}")
        self.wiring: Wiring | None = None
        self.plugged = True
        self.received = bytearray()  # every byte that arrived (for golden-byte tests)
        self.last_strip: np.ndarray | None = None
        self.outgoing = bytearray()  # bytes the device sends to the host
        self._lock = threading.Lock()

    @property
    def frames(self) -> int:
        return self.decoder.frames

    def configure(self, wiring: Wiring) -> None:
        self.wiring = wiring

    def unplug(self) -> None:
        self.plugged = False

    def replug(self) -> None:
        self.plugged = True

    def send(self, data: bytes) -> None:
        """Bytes the device sends back to the host (e.g. a boot banner or line noise)."""
        with self._lock:
            self.outgoing += data

    def reset(self) -> None:
        with self._lock:
            self.received.clear()
            self.outgoing.clear()
            self.decoder = FrameDecoder(f"emu://{self.name}")
            self.last_strip = None
            self.plugged = True

    def receive(self, data: bytes) -> None:
        with self._lock:
            self.received += data
            for strip in self.decoder.feed(data):
                self.last_strip = strip

    def last_image(self) -> np.ndarray | None:
        """The last frame as the matrix shows it, (height, width, 3) RGB; None before any frame."""
        if self.last_strip is None:
            return None
        if self.wiring is None or self.wiring.count != len(self.last_strip):
            return self.last_strip.reshape(1, -1, 3)
        return self.wiring.to_image(self.last_strip)

    def save_png(self, path: str | Path, scale: int = 16) -> Path:
        """Render the last frame as round LEDs on black, ``scale`` pixels per LED (for the docs)."""
        image = self.last_image()
        if image is None:
            raise ValueError(f"emu://{self.name} has not received a frame yet")
        return render_png(image, path, scale)


def render_png(image_rgb: np.ndarray, path: str | Path, scale: int = 16) -> Path:
    h, w = image_rgb.shape[:2]
    canvas = np.zeros((h * scale, w * scale, 3), np.uint8)
    r = max(1, int(scale * 0.4))
    for y in range(h):
        for x in range(w):
            red, green, blue = (int(c) for c in image_rgb[y, x])
            colour = (blue, green, red) if (red, green, blue) != (0, 0, 0) else (28, 28, 28)
            centre = (x * scale + scale // 2, y * scale + scale // 2)
            cv2.circle(canvas, centre, r, colour, -1, cv2.LINE_AA)
    out = Path(path)
    if not cv2.imwrite(str(out), canvas):
        raise OSError(f"cannot write {out}")
    return out


class Serial(SerialBase):  # type: ignore[misc]  # pyserial has no type hints
    """The host end of ``emu://NAME``: a pyserial port object."""

    is_open: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._receiver: EmulatedReceiver | None = None
        self._wire = False
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        if self.is_open:
            raise SerialException("Port is already open.")
        rec = receiver(self._port)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self._port).query)
        self._wire = query.get("wire", ["0"])[0] not in ("0", "", "false")
        if not rec.plugged:
            raise SerialException(f"could not open port {self._port}: no such device (unplugged)")
        self._receiver = rec
        self.is_open = True

    def close(self) -> None:
        self.is_open = False
        self._receiver = None

    def _reconfigure_port(self) -> None:
        """Nothing to configure on an emulated line."""

    def _rec(self) -> EmulatedReceiver:
        if not self.is_open or self._receiver is None:
            raise PortNotOpenError()
        if not self._receiver.plugged:
            raise SerialException(f"write failed: {self._port} is gone (device unplugged)")
        return self._receiver

    def write(self, data: Any) -> int:
        rec = self._rec()
        payload = bytes(data)
        rec.receive(payload)
        if self._wire:
            time.sleep(len(payload) * BITS_PER_BYTE / self._baudrate)
        return len(payload)

    @property
    def in_waiting(self) -> int:
        return len(self._rec().outgoing)

    def read(self, size: int = 1) -> bytes:
        rec = self._rec()
        with rec._lock:
            out = bytes(rec.outgoing[:size])
            del rec.outgoing[:size]
        return out

    def reset_input_buffer(self) -> None:
        rec = self._rec()
        with rec._lock:
            rec.outgoing.clear()

    def reset_output_buffer(self) -> None:
        """Writes are delivered at once: nothing is buffered."""

    def flush(self) -> None:
        """Writes are delivered at once: nothing to wait for."""

    @property
    def out_waiting(self) -> int:
        return 0
