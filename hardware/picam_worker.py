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
    try:
        from picamera2 import Picamera2
    except Exception as e:  # ImportError, or the ValueError of a numpy the extensions were not built for
        _hello(out, ok=False, stage="import", error=f"{type(e).__name__}: {e}", **_versions())
        return 1
    try:
        cam = Picamera2()
        # picamera2's "RGB888" is laid out B, G, R in memory: exactly OpenCV's BGR
        cam.configure(cam.create_video_configuration(main={"size": (width, height), "format": "RGB888"}))
        cam.start()
    except Exception as e:  # no camera, the camera busy in another process, ...
        _hello(out, ok=False, stage="camera", error=f"{type(e).__name__}: {e}", **_versions())
        return 1
    _hello(out, ok=True, **_versions())
    try:
        while inp.read(1) == b"f":
            try:
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
