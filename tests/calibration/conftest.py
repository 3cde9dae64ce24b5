"""Helpers for the calibration tests: synthetic frames of the example boards with a known camera."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from calibration.board import BoardLayout, load_board
from calibration.camera import CameraCalibration, pi_camera3_calibration
from calibration.printing import render_board_image
from training.render.synthetic import Cube, Light, look_at, project, render_scene, rotation_for_top

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


class DicetarHalf(NamedTuple):
    """A DICETAR WARS half on the example board: the camera, the cubes on the table after each
    throw (ann's red, bob's blue with one die on a red one and one off the board, bob's rethrow)
    and the scores it ends with."""

    camera: tuple[tuple[float, float, float], tuple[float, float]]
    throws: list[list[Cube]]
    players: tuple[str, ...]
    scores: dict[str, int]


@pytest.fixture
def dicetar_half() -> DicetarHalf:
    die = flat_die
    red = [
        die(5, "red", 135, 125),  # x6: 30
        die(2, "red", 110, 150),  # where x4, x6, x3 and x8 meet: lowest x3: 6
        die(4, "red", 240, 175),  # x8: 32
        die(3, "red", 30, 150),  # on the board, no zone: 0
        die(6, "red", 185, 75),  # x3: 18
    ]
    blue = [
        die(6, "blue", 244, 178, level=1, yaw=40),  # on the x8 red die: 6 x 8 x 4 = 192
        die(1, "blue", 335, 125),  # x3: 3
        die(4, "blue", 440, 120),  # off the board: 0, to be rethrown
        die(2, "blue", 285, 225),  # the L-shaped x4: 8
        die(5, "blue", 85, 225),  # x4: 20
    ]
    landed = [*blue[:2], die(3, "blue", 395, 215), *blue[3:]]  # the rethrown die lands on the board, no zone
    return DicetarHalf(
        ((215, 150, -700), (210, 150)),
        [red, red + blue, red + landed],
        ("ann", "bob", "ann"),
        {"ann": 30 + 6 + 32 + 0 + 18, "bob": 192 + 3 + 0 + 8 + 20},
    )
