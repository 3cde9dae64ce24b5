"""Camera intrinsics from a datasheet, for a first game without a ChArUco session.

A nominal calibration is the ideal pinhole of a sensor and lens at an output size: the
focal length in pixels from the lens's focal length and the sensor's pixel pitch, the
principal point at the image centre, no distortion.  The output is taken as the largest
centred crop of the sensor with the output's aspect, scaled (what the Pi cameras' full
field-of-view modes give).  A generic webcam is described by its diagonal field of view.

Good enough to find the board and place dice on a first game (the board's markers fix the
pose); ChArUco (``dicetable calibrate camera IMAGES``) stays the way to precision, and the
only way to a wide lens's distortion.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from calibration.camera import CalibrationError, CameraCalibration


@dataclass(frozen=True)
class Sensor:
    width_px: int
    height_px: int
    pixel_um: float


@dataclass(frozen=True)
class NominalCamera:
    name: str
    description: str
    sensor: Sensor
    focal_mm: float


IMX219 = Sensor(3280, 2464, 1.12)  # Pi Camera Module 2
IMX708 = Sensor(4608, 2592, 1.4)  # Pi Camera Module 3 and 3 Wide
IMX477 = Sensor(4056, 3040, 1.55)  # Pi HQ Camera

CAMERAS: dict[str, NominalCamera] = {
    c.name: c
    for c in (
        NominalCamera("pi-camera-2", "Raspberry Pi Camera Module 2 (IMX219, 3.04 mm)", IMX219, 3.04),
        NominalCamera("pi-camera-3", "Raspberry Pi Camera Module 3 (IMX708, 4.74 mm)", IMX708, 4.74),
        NominalCamera(
            "pi-camera-3-wide",
            "Raspberry Pi Camera Module 3 Wide (IMX708, 2.75 mm; strong distortion: ChArUco for precision)",
            IMX708,
            2.75,
        ),
        *(
            NominalCamera(
                f"pi-hq-{f}mm", f"Raspberry Pi HQ Camera (IMX477) with a {f} mm lens", IMX477, float(f)
            )
            for f in (6, 8, 12, 16, 25)
        ),
    )
}

_WEBCAM = re.compile(r"^webcam-(?P<fov>\d+(?:\.\d+)?)$")
WEBCAM_HELP = "webcam-FOV (a webcam by its diagonal field of view in degrees, e.g. webcam-78)"


def names() -> list[str]:
    return [*CAMERAS, WEBCAM_HELP]


def nominal_calibration(name: str, width: int, height: int) -> CameraCalibration:
    """The datasheet calibration of camera ``name`` at an output of ``width`` x ``height`` px."""
    if width < 16 or height < 16:
        raise CalibrationError(f"--size: expected an output size such as 1280x960, got {width}x{height}")
    m = _WEBCAM.match(name)
    if m:
        fov = float(m["fov"])
        if not 20.0 <= fov <= 170.0:
            raise CalibrationError(f"--nominal {name!r}: expected a diagonal field of view of 20-170 degrees")
        f_px = math.hypot(width, height) / 2.0 / math.tan(math.radians(fov) / 2.0)
    elif name in CAMERAS:
        cam = CAMERAS[name]
        s = cam.sensor
        # the largest centred crop of the sensor with the output's aspect, scaled to the output
        scale = min(s.width_px / width, s.height_px / height)
        f_px = cam.focal_mm / (s.pixel_um * 1e-3) / scale
    else:
        raise CalibrationError(f"--nominal {name!r}: expected one of {', '.join(names())}")
    k = np.array([[f_px, 0, width / 2.0], [0, f_px, height / 2.0], [0, 0, 1]], dtype=np.float64)
    return CameraCalibration(k, np.zeros(5), (width, height), 0.0)
