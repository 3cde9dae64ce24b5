"""Calibration and board geometry: layouts in millimetres, camera intrinsics, board pose, die placement.

The workflow at a table (commands in ``controller/cli_calibration.py``)::

    dicetable board print dicetar-wars --out board.pdf        # print at 100 %
    dicetable calibrate charuco --out charuco.pdf             # print, then photograph it 10-20 times
    dicetable calibrate camera shots/*.jpg --out camera.json  # intrinsics + distortion
    dicetable calibrate pose empty.jpg --calibration camera.json --board dicetar-wars
    dicetable calibrate check frame.jpg --calibration camera.json --board dicetar-wars
    dicetable calibrate colours throw.jpg --colour red --colour blue --out palette.json

In play, :func:`calibration.geometry.place` turns each die's top-face quad
(pixels) into board millimetres, zones, centre-line side, field status and
stack level, with the board pose from the frame's markers
(:func:`calibration.pose.estimate_board_pose`).
"""

from calibration.board import BoardError, BoardLayout, load_board
from calibration.camera import CalibrationError, CameraCalibration, load_calibration, save_calibration
from calibration.geometry import DieGeometry, GeometryError, place
from calibration.pose import BoardPose, PoseError, estimate_board_pose

__all__ = [
    "BoardError",
    "BoardLayout",
    "BoardPose",
    "CalibrationError",
    "CameraCalibration",
    "DieGeometry",
    "GeometryError",
    "PoseError",
    "estimate_board_pose",
    "load_board",
    "load_calibration",
    "place",
    "save_calibration",
]
