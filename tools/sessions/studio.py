"""A rendered example board seen by a fixed Pi Camera 3: the frames of the board-game sessions.

:class:`Studio` is what the DICETAR WARS and Dice Fighter sessions share: the
camera over the board, the sensor noise, dice smeared in flight.  What lies on
the board is drawn by :class:`CubeStudio` (d6, the calibration renderer
``training.render.synthetic``) or :class:`NumberedStudio` (numbered dice,
``tools/render_numbered``).  :class:`Filming` records a throw: hands, dice in
flight, stills.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from recorder import Recorder

from calibration.board import load_board
from calibration.camera import pi_camera3_calibration, save_calibration
from calibration.printing import render_board_image
from engine import Game
from training.render import synthetic
from training.render.numbered import draw as numbered
from training.render.numbered.solids import Die
from training.render.synthetic import Cube, look_at, project
from training.render.tabletop import draw_hand

ROOT = Path(__file__).resolve().parents[2]
W, H = 1280, 960
PX_PER_MM = 3.0  # the board texture's resolution


class Studio(ABC):
    """A fixed camera over one example board; a subclass renders the dice lying on it."""

    #: the blurred mask of the flying dice, times this, is how much of the smear covers the board,
    #: so that a die's core stays opaque; the cubes' exact label mask is widened a pixel first
    alpha_gain = 1.2
    alpha_dilate = True

    def __init__(
        self,
        board_file: str,
        camera_mm: tuple[float, float, float],
        target_mm: tuple[float, float],
        roll_deg: float,
        seed: int,
    ) -> None:
        self.board = load_board(ROOT / "boards" / board_file)
        self.cal = pi_camera3_calibration(W, H)
        self.k = self.cal.camera_matrix
        self.r, self.t = look_at(camera_mm, (*target_mm, 0.0), roll_deg)
        self.texture = render_board_image(self.board, PX_PER_MM)
        self.seed = seed
        self.noise = np.random.default_rng([seed, 1])

    @abstractmethod
    def render(self, dice: Sequence[Any]) -> np.ndarray:
        """The frame before noise; the table's grain is the same in every frame."""

    @abstractmethod
    def in_flight(self, resting: Sequence[Any], flying: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """The frame with every die, and the mask (float 0/1) of the flying ones."""

    def px(self, points_mm: np.ndarray) -> np.ndarray:
        return project(np.asarray(points_mm, np.float64), self.r, self.t, self.k)

    def quad_px(self, points_mm: np.ndarray) -> list[list[float]]:
        return [[round(float(x), 2), round(float(y), 2)] for x, y in self.px(points_mm)]

    def in_view(self, vertices_mm: np.ndarray, margin: float = 20.0) -> bool:
        p = self.px(vertices_mm)
        return bool(np.all(p > margin) and np.all(p[:, 0] < W - margin) and np.all(p[:, 1] < H - margin))

    def ground(self, u: float, v: float) -> np.ndarray:
        """The board point (x, y) mm under pixel (u, v)."""
        ray = np.linalg.solve(self.k, np.array([u, v, 1.0])) @ self.r
        c = -self.r.T @ self.t
        return np.asarray((c - c[2] / ray[2] * ray)[:2], np.float64)

    def along_throw(self, centre_mm: np.ndarray, f: float) -> np.ndarray:
        """The board point under a die ``f`` of its way from below the bottom edge to ``centre_mm``."""
        start = np.array([W * 0.5, H * 1.1])
        target = self.px(centre_mm[None, :])[0]
        return self.ground(*(start + (target - start) * f))

    def finish(self, frame: np.ndarray, sigma: float = 1.2) -> np.ndarray:
        noisy = frame.astype(np.float32) + self.noise.normal(0, sigma, frame.shape).astype(np.float32)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def still(self, dice: Sequence[Any]) -> np.ndarray:
        return self.finish(self.render(dice))

    def motion(self, resting: Sequence[Any], flying: Sequence[Any], blur_px: int) -> np.ndarray:
        """Dice in flight over the resting ones, smeared along their motion (up the frame)."""
        frame, moving = self.in_flight(resting, flying)
        k = max(3, blur_px | 1)
        kernel = np.zeros((k, k), np.float32)
        kernel[:, k // 2] = 1.0 / k  # vertical smear: the dice fly up from the thrower's edge
        smear = cv2.filter2D(frame, -1, kernel)
        alpha = cv2.filter2D(moving, -1, kernel)
        if self.alpha_dilate:
            alpha = cv2.dilate(alpha, np.ones((3, 3), np.uint8))
        alpha = np.clip(alpha * self.alpha_gain, 0, 1)[..., None]
        return self.finish(self.render(resting) * (1 - alpha) + smear * alpha)


class CubeStudio(Studio):
    """d6 cubes drawn by the calibration renderer, which labels every die's pixels."""

    def __init__(self, *args: Any, light: synthetic.Light, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.light = light

    def _scene(self, cubes: Sequence[Cube]) -> tuple[np.ndarray, np.ndarray]:
        grain = np.random.default_rng([self.seed, 0])
        return synthetic.render_scene(
            self.texture, PX_PER_MM, list(cubes), self.r, self.t, self.cal, self.light, grain
        )

    def render(self, dice: Sequence[Cube]) -> np.ndarray:
        return self._scene(dice)[0]

    def in_flight(self, resting: Sequence[Cube], flying: Sequence[Cube]) -> tuple[np.ndarray, np.ndarray]:
        frame, labels = self._scene([*resting, *flying])
        first, end = 100 * len(resting), 100 * (len(resting) + len(flying))
        return frame, ((labels >= first) & (labels < end)).astype(np.float32)


class NumberedStudio(Studio):
    """Numbered dice drawn by ``tools/render_numbered``; a die's pixels are where the frame changed."""

    alpha_gain = 1.5
    alpha_dilate = False

    def __init__(self, *args: Any, light: numbered.Light, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.light = light

    def render(self, dice: Sequence[Die]) -> np.ndarray:
        grain = np.random.default_rng([self.seed, 0])
        frame = numbered.board_background(
            H, W, self.r, self.t, self.k, self.texture, PX_PER_MM, (70, 95, 120), grain
        )
        numbered.render_dice(frame, list(dice), self.r, self.t, self.k, self.light)
        return frame * self.light.gain

    def in_flight(self, resting: Sequence[Die], flying: Sequence[Die]) -> tuple[np.ndarray, np.ndarray]:
        frame = self.render([*resting, *flying])
        return frame, (np.abs(frame - self.render(resting)).max(axis=2) > 8).astype(np.float32)


def board_mm(centre: np.ndarray) -> list[float]:
    """A die's (x, y) on the board, mm, as the truth files give it."""
    return [round(float(v), 2) for v in centre[:2]]


class Filming:
    """The studio's camera recording a session: hands, dice in flight, stills."""

    def __init__(self, studio: Studio, rec: Recorder, rng: np.random.Generator) -> None:
        self.studio = studio
        self.rec = rec
        self.rng = rng

    def hand(self, dice: Sequence[Any], reaches: Sequence[float], x: float | None = None) -> float:
        """An arm reaching in from the bottom edge at ``x`` (None: at random), a frame a reach; returns x."""
        if x is None:
            x = float(self.rng.uniform(W * 0.3, W * 0.7))
        for reach in reaches:
            img = self.studio.still(dice)
            draw_hand(img, reach, x, self.rng)
            self.rec.frame(img)
        return x

    def fly(
        self,
        resting: Sequence[Any],
        centres: Sequence[np.ndarray],
        fractions: Sequence[float],
        blur: tuple[int, int],
        tumbling: Callable[[int, float, np.ndarray], Any],
    ) -> None:
        """Dice on their way to ``centres``, a frame at each fraction of the way.

        ``blur``: the first frame's smear in pixels, and how much less each next one has;
        ``tumbling(j, f, ground)``: die ``j`` in the air over board point ``ground``.
        """
        first, less = blur
        for k, f in enumerate(fractions):
            flying = [tumbling(j, f, self.studio.along_throw(c, f)) for j, c in enumerate(centres)]
            self.rec.frame(self.studio.motion(resting, flying, first - less * k))

    def wrap_up(self, last: str, game: Game) -> None:
        """The last still a second longer, the timeline and the camera's calibration written."""
        self.rec.show(last, 1.0)
        self.rec.close()
        if game.result() is None:
            raise SystemExit("the demo game did not finish")
        save_calibration(self.studio.cal, self.rec.out / "camera.json")
