"""The Raspberry Pi camera's process: picamera2 in the system's Python, frames handed to dicetable.

Run by :class:`hardware.frames.PicameraSource` as ``/usr/bin/python3 -s picam_worker.py WIDTH HEIGHT``,
never imported by dicetable. Raspberry Pi OS builds python3-picamera2 and its C extensions (simplejpeg)
against its own numpy (1.24 on Bookworm); dicetable's venv needs numpy 2 (OpenCV 5 requires it), and a
numpy 2 first on the path makes picamera2's import die of "numpy.dtype size changed". So picamera2 runs
here, in the Python it was built for, and only raw pixels cross over. This file imports nothing but
the standard library, numpy and picamera2 (whatever that Python has), and runs on Python 3.9+.

The protocol, over this process's stdin and stdout:
  1. it writes one JSON line: ``{"ok": true, ...}`` once the camera is configured and started, or
     ``{"ok": false, "stage": "import"|"camera", "error": "...", ...}`` and exits 1; both with
     ``python``, ``numpy`` (version and file) and ``simplejpeg`` (version or the import's error) for
     the message;
  2. then for each byte ``f`` it reads, it captures a frame and writes a header of three little-endian
     uint32 (height, width, error length) and then height*width*3 bytes of B, G, R pixels, or, when the
     capture failed, the error's UTF-8 text;
  3. ``q`` or the end of stdin stops and closes the camera, exit 0.

With ``STILL_W STILL_H`` after the size (``0 0``: the sensor's resolution; issue 43, hardware/stills.py)
the camera runs two streams of one video configuration: ``main`` at the still's size (RGB888) and
``lores`` for the motion gate at WIDTH wide, the sensor's aspect (YUV420); the hello line names both
(``"main": [w, h], "lores": [w, h]``). Then ``f`` captures ``main`` (the still) as above, and ``l``
captures ``lores``: the header (rows, width, error length) and rows*width bytes of its I420 planes.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any

HEADER = struct.Struct("<III")


def _versions() -> dict[str, Any]:
    info: dict[str, Any] = {"python": sys.executable, "python_version": sys.version.split()[0]}
    try:
        import numpy

        info["numpy"] = numpy.__version__
        info["numpy_file"] = os.path.dirname(numpy.__file__)
    except Exception as e:  # reported, not raised: the message names it
        info["numpy"] = f"{type(e).__name__}: {e}"
    try:
        import simplejpeg

        info["simplejpeg"] = getattr(simplejpeg, "__version__", "?")
    except Exception as e:
        info["simplejpeg"] = f"{type(e).__name__}: {e}"
    return info


def _hello(out: Any, **fields: Any) -> None:
    out.write((json.dumps(fields) + "\n").encode("utf-8"))
    out.flush()


def main(argv: list[str]) -> int:
    out, inp = sys.stdout.buffer, sys.stdin.buffer
    width, height = int(argv[0]), int(argv[1])
    still = (int(argv[2]), int(argv[3])) if len(argv) >= 4 else None
    try:
        from picamera2 import Picamera2
    except Exception as e:  # ImportError, or the ValueError of a numpy the extensions were not built for
        _hello(out, ok=False, stage="import", error=f"{type(e).__name__}: {e}", **_versions())
        return 1
    try:
        cam = Picamera2()
        sizes: dict[str, Any] = {}
        # picamera2's "RGB888" is laid out B, G, R in memory: exactly OpenCV's BGR
        if still is None:
            cam.configure(cam.create_video_configuration(main={"size": (width, height), "format": "RGB888"}))
        else:
            full = tuple(cam.sensor_resolution) if still == (0, 0) else still
            w = min(width, full[0])  # lores is never larger than main
            lores = (w, max(2, round(w * full[1] / full[0] / 2) * 2))
            config = cam.create_video_configuration(
                main={"size": full, "format": "RGB888"}, lores={"size": lores, "format": "YUV420"}
            )
            cam.configure(config)
            sizes = {"main": list(full), "lores": list(lores)}
        cam.start()
    except Exception as e:  # no camera, the camera busy in another process, ...
        _hello(out, ok=False, stage="camera", error=f"{type(e).__name__}: {e}", **_versions())
        return 1
    _hello(out, ok=True, **sizes, **_versions())
    try:
        while (command := inp.read(1)) in (b"f", b"l"):
            try:
                if command == b"l":  # the gate's stream: its I420 planes, one byte a pixel row by row
                    image = cam.capture_array("lores")
                    pixels = image.copy(order="C").tobytes()
                else:
                    image = cam.capture_array()
                    pixels = image[:, :, :3].copy(order="C").tobytes()
                h, w = image.shape[:2]
            except Exception as e:  # the camera went away: said, and the reader decides
                text = f"{type(e).__name__}: {e}".encode()
                out.write(HEADER.pack(0, 0, len(text)) + text)
            else:
                out.write(HEADER.pack(h, w, 0))
                out.write(pixels)
            out.flush()
    except BrokenPipeError:  # dicetable went away
        pass
    finally:
        try:
            cam.stop()
            cam.close()
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    # libcamera logs every frame's configuration at INFO; the table's log wants its warnings only
    os.environ.setdefault("LIBCAMERA_LOG_LEVELS", "*:WARN")
    sys.exit(main(sys.argv[1:]))
