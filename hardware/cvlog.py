"""OpenCV's own log lines kept off a user's terminal.

Opening a camera that is not there makes OpenCV print ``[ WARN:0@0.05] global cap_v4l.cpp ...`` and
FFmpeg ``[tcp @ 0x...] Connection refused`` on stderr, beside the sentence in which the table says
the same thing in its words (hardware.frames).  Called before any device is opened; the owner's own
``OPENCV_LOG_LEVEL`` / ``OPENCV_FFMPEG_LOGLEVEL`` (to see those lines when debugging) are kept.
"""

from __future__ import annotations

import os

import cv2

#: FFmpeg's AV_LOG_QUIET; OpenCV reads OPENCV_FFMPEG_LOGLEVEL when its FFmpeg backend first starts
_FFMPEG_QUIET = "-8"


def quiet_opencv() -> None:
    """Silence OpenCV's logger and FFmpeg's (through OpenCV's backend) unless the owner set them."""
    if "OPENCV_LOG_LEVEL" not in os.environ:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", _FFMPEG_QUIET)
    os.environ.setdefault("OPENCV_VIDEOIO_DEBUG", "0")
