"""Helpers for the calibration tests: synthetic frames of the example boards with a known camera."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from calibration.board import BoardLayout, load_board
from calibration.camera import CameraCalibration, pi_camera3_calibration
from calibration.printing import render_board_image
from calibration.synthetic import Cube, Light, look_at, project, render_scene, rotation_for_top

PX_PER_MM = 3.0


class Scene:
    """One synthetic frame of a board: the camera, the image and a few helpers."""

    def __init__(
        self,
        board: BoardLayout,
        camera_mm: tuple[float, float, float],
        target_mm: tuple[float, float],
        roll: float = 0.0,
        cubes: list[Cube] | None = None,
        seed: int = 0,
    ) -> None:
        self.board = board
        self.cal: CameraCalibration = pi_camera3_calibration()
        self.r, self.t = look_at(camera_mm, (*target_mm, 0.0), roll)
        rng = np.random.default_rng(seed)
        light = Light(np.array([0.3, 0.2, -0.93]) / np.linalg.norm([0.3, 0.2, -0.93]))
        tex = render_board_image(board, PX_PER_MM)
        self.cubes = cubes or []
        self.image, self.labels = render_scene(
            tex, PX_PER_MM, self.cubes, self.r, self.t, self.cal, light, rng
        )

    def px(self, points_mm: Any) -> np.ndarray:
        return project(np.asarray(points_mm, np.float64), self.r, self.t, self.cal.camera_matrix)

    def marker_px(self, marker_id: int) -> np.ndarray:
        m = self.board.marker(marker_id)
        assert m is not None
        return self.px(np.column_stack([m.corners(), np.zeros(4)]))

    def hide_markers(self, keep: set[int]) -> None:
        """Paint over every marker not in ``keep`` (a hand, a card, a sleeve)."""
        import cv2

        for m in self.board.markers:
            if m.id not in keep:
                quad = self.marker_px(m.id)
                c = quad.mean(axis=0)
                grown = c + (quad - c) * 1.3
                cv2.fillPoly(self.image, [np.round(grown).astype(np.int32)], (120, 150, 205))


def flat_die(
    value: int, colour: str, x: float, y: float, size: float = 16.0, level: int = 0, yaw: float = 20.0
) -> Cube:
    centre = np.array([x, y, -(level + 0.5) * size])
    return Cube(value, colour, size, rotation_for_top(value, yaw), centre, {"level": level})


@pytest.fixture
def dicetar_board() -> BoardLayout:
    return load_board("dicetar-wars")


@pytest.fixture
def fighter_board() -> BoardLayout:
    return load_board("dice-fighter")


@pytest.fixture
def make_scene() -> Callable[..., Scene]:
    return Scene


@pytest.fixture
def die() -> Callable[..., Cube]:
    """``die(value, colour, x, y, size=16, level=0, yaw=20)``: a flat die resting at (x, y) mm."""
    return flat_die
