"""A stand-in for Raspberry Pi OS's python3-picamera2, for the arm64 proof only (tools/arm64/prove.sh
ARM64_PICAMERA=...): never installed by dicetable, never on a real Pi.

Debian has no picamera2 (Raspberry Pi OS's own archive has, built with libcamera for the Pi's camera
stack), and an emulated root has no camera. What breaks on a Pi is picamera2's import of simplejpeg,
a C extension built against the system's numpy 1.24 (picamera2/encoders/jpeg_encoder.py: ``import
simplejpeg``; "numpy.dtype size changed" when a numpy 2 stands first on sys.path). This stand-in
imports numpy and simplejpeg at import time exactly as picamera2 does, and gives the part of
Picamera2's API that dicetable uses (create_video_configuration, configure, start, capture_array,
stop, close). Its frames are the JPEG files of a folder (PICAMERA2_STANDIN_FRAMES, in name order,
over and over), decoded by simplejpeg into the "RGB888" layout (B, G, R in memory) and padded to
the configured size; without the folder, a gradient with the frame's number in its first pixel."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import simplejpeg  # what the real picamera2 imports first of its compiled dependencies

__all__ = ["Picamera2"]


class Picamera2:
    def __init__(self, camera_num: int = 0) -> None:
        folder = os.environ.get("PICAMERA2_STANDIN_FRAMES")
        self._files = sorted(Path(folder).glob("*.jpg")) if folder else []
        self._size = (640, 480)
        self._n = 0
        self._started = False

    def create_video_configuration(self, main: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        return {"main": dict(main or {})}

    def configure(self, config: dict[str, Any]) -> None:
        self._size = tuple(config["main"].get("size", self._size))

    def start(self) -> None:
        self._started = True

    def capture_array(self, name: str = "main") -> np.ndarray:
        if not self._started:
            raise RuntimeError("Camera must be started before capture")
        w, h = self._size
        out = np.zeros((h, w, 3), np.uint8)
        if self._files:
            jpeg = self._files[self._n % len(self._files)].read_bytes()
            image = simplejpeg.decode_jpeg(jpeg, colorspace="BGR")
            ih, iw = min(h, image.shape[0]), min(w, image.shape[1])
            out[:ih, :iw] = image[:ih, :iw]
        else:
            out[:] = (np.arange(w, dtype=np.uint16) * 255 // max(w - 1, 1)).astype(np.uint8)[None, :, None]
            out[0, 0] = self._n % 256
        self._n += 1
        return out

    def stop(self) -> None:
        self._started = False

    def close(self) -> None:
        self._started = False
