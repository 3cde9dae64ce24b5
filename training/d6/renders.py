"""Training scenes the project renders itself, with seeds that no test fixture uses.

Two generators, both committed in the repository:

* ``board_scenes``: ``training/render/board_scenes.py:make_scene`` (printed DICETAR WARS and Dice
  Fighter boards, tilted Pi Camera 3, shaded cubes, stacks, cocked dice, hands) with seed
  ``BOARD_SEED``. The committed test scenes use seed 20261121, the demo sessions 11 and 5.
* ``drawn_scenes``: the flat drawn dice of ``training/render/tabletop.py`` (felt or plain mats,
  dice in loose throws or sorted into columns by face, 30-60 px) with seed ``DRAWN_SEED``.
  The demo sessions use seeds 3, 5, 7 and 11.

Each scene is ``(image, dice)`` with ``dice`` a list of ``(box, value, readable, visible)``: the
box (x0, y0, x1, y1) of the die's whole top face in pixels (hidden parts included), its value,
whether the top face is clear enough (flat, at least 90 % visible) to teach the value classifier,
and the fraction of the top face in view (1.0 for the drawn dice). Board dice showing less than
``min_visible`` of their top face (the lower dice of stacks, mostly) are left out.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from training.render import board_scenes, tabletop

ROOT = Path(__file__).resolve().parents[2]
BOARD_SEED = 4242
DRAWN_SEED = 4343

Box = tuple[float, float, float, float]
Die = tuple[Box, int, bool, float]
Scene = tuple[np.ndarray, list[Die]]


def board_scene(i: int, seed: int = BOARD_SEED, min_visible: float = 0.5) -> Scene:
    image, _, truth = board_scenes.make_scene(i, seed)
    dice: list[Die] = []
    for d in truth["dice"]:
        if d.get("kind", "d6") != "d6" or d["top_visible_fraction"] < min_visible:
            continue
        q = np.asarray(d["top_quad_px"], np.float64)
        box = (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))
        readable = not d["cocked"] and d["top_visible_fraction"] >= 0.9
        dice.append((box, int(d["value"]), readable, float(d["top_visible_fraction"])))
    return image, dice


def drawn_scene(i: int, seed: int = DRAWN_SEED) -> Scene:
    rng = np.random.default_rng([seed, i])
    w, h = 1280, 960
    if rng.random() < 0.5:
        img = tabletop.felt(w, h, rng)
    else:
        img = tabletop.mat(w, h, rng, tuple(int(v) for v in rng.integers(60, 230, 3)))
    styles = sorted(tabletop.STYLES)
    size = float(rng.uniform(30, 60))
    n = int(rng.integers(3, 25))
    picked = [styles[int(rng.integers(len(styles)))] for _ in range(n)]
    values = [int(rng.integers(1, 7)) for _ in range(n)]
    area = (40.0, 40.0, w - 40.0, h - 40.0)
    dice: list[Any] = []
    try:
        if rng.random() < 0.4:
            dice = tabletop.grouped_by_face(list(zip(values, picked, strict=True)), rng, area, size)
        else:
            dice = tabletop.spread(values, picked, rng, area, size)
    except ValueError:
        dice = tabletop.spread(values[:6], picked[:6], rng, area, min(size, 46.0))
    for d in dice:
        tabletop.draw_die(img, d)
    noise = rng.normal(0, rng.uniform(0.5, 2.5), img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 95))])
    img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    out: list[Die] = []
    for d in dice:
        # the drawn top face: a rounded square of side d.size turned by d.angle
        half = d.size / 2 * (abs(math.cos(math.radians(d.angle))) + abs(math.sin(math.radians(d.angle))))
        out.append(((d.x - half, d.y - half, d.x + half, d.y + half), int(d.value), True, 1.0))
    return img, out


_MIN_VISIBLE = [0.5]  # for the pool's workers (forked, so they see the value render_all set)


def _board(i: int) -> Scene:
    cv2.setNumThreads(1)
    return board_scene(i, min_visible=_MIN_VISIBLE[0])


def _drawn(i: int) -> Scene:
    cv2.setNumThreads(1)
    return drawn_scene(i)


def render_all(boards: int, drawn: int, procs: int = 1, min_visible: float = 0.5) -> list[Scene]:
    """``boards`` board scenes then ``drawn`` drawn scenes (indices 0..n-1 of each generator);
    board dice showing less than ``min_visible`` of their top face are left out."""
    _MIN_VISIBLE[0] = min_visible
    if procs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(procs) as pool:
            return pool.map(_board, range(boards), chunksize=8) + pool.map(_drawn, range(drawn), chunksize=8)
    return [_board(i) for i in range(boards)] + [_drawn(i) for i in range(drawn)]
