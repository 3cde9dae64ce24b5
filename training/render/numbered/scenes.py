"""Random throws of d6, d10, percentile d10 and d20 dice: training windows and test scenes.

Two generators that never share parameters (see tests/fixtures/README.numbered.md):

* ``train``: windows of a 1280x960 Pi Camera 3 frame (same pixel scale as the
  table), random body colours (any hue), random contrasting ink, camera
  380-760 mm high and tilted 0-32 degrees, light 25-88 degrees high.
* ``test``: whole 1280x960 frames, dice in the named body colours of real sets
  (the calibration renderer's palette plus orange and pink, a little jitter),
  named marbled sets, camera 450-700 mm high and tilted 0-25 degrees, light
  35-80 degrees high, on the example boards.

Scene ``i`` of a split depends only on ``(seed, i)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from calibration.board import BoardLayout, load_board
from calibration.camera import pi_camera3_calibration
from calibration.geometry import classify
from calibration.printing import render_board_image
from training.render.numbered.draw import FONTS, Light, Look, board_background, render_dice, truth_of
from training.render.numbered.solids import F64, KINDS, VALUES, Die
from training.render.synthetic import finish, look_at, project

ROOT = Path(__file__).resolve().parents[3]
W, H = 1280, 960
PX_PER_MM = 3.0
BOARDS = {
    "dicetar-wars": "boards/dicetar-wars.example.toml",
    "dice-fighter": "boards/dice-fighter.example.toml",
}
# Body colours of real sets (BGR) used by the TEST generator only, with the ink they carry.
TEST_BODIES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "red": ((40, 40, 200), (245, 245, 245)),
    "blue": ((170, 80, 25), (245, 245, 245)),
    "green": ((60, 150, 40), (245, 245, 245)),
    "white": ((232, 232, 228), (25, 25, 25)),
    "black": ((35, 32, 30), (245, 245, 245)),
    "yellow": ((40, 200, 235), (25, 25, 25)),
    "purple": ((140, 45, 110), (245, 245, 245)),
    "orange": ((30, 120, 235), (25, 25, 25)),
    "pink": ((170, 120, 235), (25, 25, 25)),
}
TEST_MARBLES = {
    "white": (150, 150, 150),
    "blue": (220, 190, 160),
    "red": (30, 20, 90),
    "green": (150, 210, 140),
    "black": (110, 110, 110),
    "purple": (200, 140, 190),
}
SIZES = {"d6": (13.0, 17.0), "d10": (19.0, 23.0), "d10p": (19.0, 23.0), "d20": (19.0, 23.0)}


@lru_cache(maxsize=8)
def board(name: str, px_per_mm: float = PX_PER_MM) -> tuple[BoardLayout, np.ndarray]:
    layout = load_board(ROOT / BOARDS[name])
    return layout, render_board_image(layout, px_per_mm)


def frame_size(scale: float) -> tuple[int, int]:
    """Frame width and height at `scale` times 1280x960 (same camera, same field of view)."""
    return round(W * scale), round(H * scale)


def _contrast_ink(body: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    if rng.random() < 0.2:  # a coloured ink (gold, red, blue...) that still stands out
        for _ in range(20):
            ink = tuple(int(v) for v in rng.integers(0, 256, 3))
            li = 0.114 * ink[0] + 0.587 * ink[1] + 0.299 * ink[2]
            if abs(li - lum) > 110:
                return ink  # type: ignore[return-value]
    return (25, 25, 25) if lum > 128 else (240, 240, 240)


#: each split's ranges of marble frequency, stroke weight and numeral size
LOOK_RANGES = {
    "train": ((1.5, 5.0), (0.06, 0.14), (0.8, 1.0)),
    "test": ((2.0, 4.0), (0.07, 0.12), (0.8, 0.95)),
}
D6_COLOURS = ("red", "blue", "green", "white", "black", "yellow", "purple")
Colours = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int] | None]


def _train_colours(rng: np.random.Generator) -> Colours:
    """Any body hue, a contrasting ink, sometimes a vein of the body's colour shifted at random."""
    hsv = np.array([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(20, 256)]]], np.uint8)
    b = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    body = (int(b[0]), int(b[1]), int(b[2]))
    ink = _contrast_ink(body, rng)
    vein = None
    if rng.random() < 0.3:
        v0, v1, v2 = (int(np.clip(v + rng.normal(0, 60), 0, 255)) for v in body)
        vein = (v0, v1, v2)
    return body, ink, vein


def _test_colours(rng: np.random.Generator, name: str) -> Colours:
    """A real set's body (a little jitter) and ink, sometimes marbled."""
    body, ink = TEST_BODIES[name]
    b0, b1, b2 = (int(np.clip(v + rng.normal(0, 8), 0, 255)) for v in body)
    vein = TEST_MARBLES.get(name) if rng.random() < 0.25 else None
    return (b0, b1, b2), ink, vein


def random_look(rng: np.random.Generator, split: str, colour: str | None = None) -> tuple[str, Look]:
    """A die's colour name and look for the split's generator."""
    font = FONTS[int(rng.integers(len(FONTS)))]
    mark = "underline" if rng.random() < 0.6 else "dot"
    seed = int(rng.integers(1 << 30))
    if split == "train":
        name, (body, ink, vein) = "any", _train_colours(rng)
    else:
        name = colour or list(TEST_BODIES)[int(rng.integers(len(TEST_BODIES)))]
        body, ink, vein = _test_colours(rng, name)
    freq, weight, size = (
        float(rng.uniform(lo, hi)) for lo, hi in LOOK_RANGES["train" if split == "train" else "test"]
    )
    return name, Look(body, ink, vein, freq, font, weight, size, mark, seed)


def make_die(
    rng: np.random.Generator,
    kind: str,
    split: str,
    xy: tuple[float, float],
    colour: str | None = None,
    value: int | None = None,
) -> Die:
    v = int(VALUES[kind][int(rng.integers(len(VALUES[kind])))]) if value is None else value
    size = float(rng.uniform(*SIZES[kind]))
    name, look = random_look(rng, split, colour)
    if kind == "d6":
        name = colour if colour in D6_COLOURS else D6_COLOURS[int(rng.integers(len(D6_COLOURS)))]
    return Die.placed(kind, v, name, size, xy, float(rng.uniform(0, 360)), {"look": look})


def _camera(rng: np.random.Generator, target: F64, split: str) -> tuple[F64, F64]:
    lo, hi, tilt_max = (380.0, 760.0, 32.0) if split == "train" else (450.0, 700.0, 25.0)
    height = float(rng.uniform(lo, hi))
    tilt = math.radians(float(rng.uniform(0, tilt_max)))
    az = float(rng.uniform(0, 2 * math.pi))
    off = height * math.tan(tilt)
    cam = [float(target[0]) + off * math.cos(az), float(target[1]) + off * math.sin(az), -height]
    return look_at(cam, [target[0], target[1], 0.0], float(rng.uniform(-8, 8)))


def _light(rng: np.random.Generator, split: str) -> Light:
    lo, hi = (25, 88) if split == "train" else (35, 80)
    el = math.radians(float(rng.uniform(lo, hi)))
    az = float(rng.uniform(0, 2 * math.pi))
    d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), -math.sin(el)])
    return Light(
        d, float(rng.uniform(0.35, 0.55)), float(rng.uniform(0.45, 0.7)), float(rng.uniform(0.8, 1.15))
    )


def ground_point(px: tuple[float, float], r: F64, t: F64, k: F64) -> F64:
    ray = np.linalg.solve(k, np.array([px[0], px[1], 1.0])) @ r
    c = -r.T @ t
    return np.asarray((c - c[2] / ray[2] * ray)[:2], np.float64)


def _seen_box(r: F64, t: F64, k: F64, pixels: Sequence[tuple[float, float]]) -> tuple[F64, F64]:
    """The (x, y) mm box on the table that holds the ground under ``pixels``."""
    corners = [ground_point(p, r, t, k) for p in pixels]
    return np.min(corners, axis=0), np.max(corners, axis=0)


def _radius(d: Die) -> float:
    """Half the widest extent of the die's footprint, mm."""
    return 0.5 * float(np.ptp(d.footprint(), axis=0).max())


def scatter(
    rng: np.random.Generator,
    kinds: list[str],
    region: tuple[F64, F64],
    split: str,
    colours: list[str | None] | None = None,
    touching: float = 0.3,
    inside: Any = None,
    values: list[int] | None = None,
) -> list[Die]:
    """Dice of the given kinds dropped at random in an (x, y) mm box, not overlapping."""
    (x0, y0), (x1, y1) = region
    dice: list[Die] = []
    for j, kind in enumerate(kinds):
        for _ in range(200):
            xy = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
            d = make_die(rng, kind, split, xy, colours[j] if colours else None, values[j] if values else None)
            rad = max(_radius(d), 0.5)
            gap = 0.2 if rng.random() < touching else rng.uniform(2.0, 25.0)
            ok = all(math.dist(xy, o.centre[:2]) > rad + _radius(o) + gap for o in dice)
            if ok and (inside is None or inside(d)):
                dice.append(d)
                break
    return dice


@lru_cache(maxsize=4)
def _layout(name: str) -> BoardLayout:
    return load_board(ROOT / BOARDS[name])


class TrainView(NamedTuple):
    """The frame a TRAIN window is cut from: its board ("" for none), size and camera."""

    board: str
    w: int
    h: int
    k: F64  # a copy: a window shifts its principal point
    r: F64
    t: F64


def _train_view(rng: np.random.Generator, scale: float) -> TrainView:
    """A TRAIN frame `scale` times 1280x960 with its board and camera pose: the first draws of every
    TRAIN generator, so that `window_view` and the others find the frame `window` renders."""
    w, h = frame_size(scale)
    k = pi_camera3_calibration(w, h).camera_matrix.copy()
    name = ["dicetar-wars", "dice-fighter", ""][int(rng.integers(3))]
    if name:
        bx0, by0, bx1, by1 = _layout(name).bounds()
        target = np.array([rng.uniform(bx0, bx1), rng.uniform(by0, by1)])
    else:
        target = np.array([0.0, 0.0])
    r, t = _camera(rng, target, "train")
    return TrainView(name, w, h, k, r, t)


def _lit(
    rng: np.random.Generator, split: str, frame: np.ndarray, dice: list[Die], r: F64, t: F64, k: F64
) -> np.ndarray:
    """``dice`` rendered onto the table ``frame`` under a light of the split's range, as 8-bit BGR."""
    light = _light(rng, split)
    render_dice(frame, dice, r, t, k, light)
    frame *= light.gain
    return np.clip(frame, 0, 255).astype(np.uint8)


def _train_window(
    rng: np.random.Generator, size: int, scale: float, view: TrainView, dice: list[Die]
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The window `view.k` sees: a table of random colour, the board, ``dice``, noise, JPEG; its truth."""
    ppm = PX_PER_MM * max(1.0, scale)
    tex = board(view.board, ppm)[1] if view.board else None
    table = tuple(int(v) for v in rng.integers(20, 235, 3))
    frame = board_background(size, size, view.r, view.t, view.k, tex, ppm, table, rng)  # type: ignore[arg-type]
    img = _lit(rng, "train", frame, dice, view.r, view.t, view.k)
    img, _ = finish(img, rng, float(rng.uniform(0.8, 3.0)), int(rng.integers(70, 95)))
    return img, [truth_of(d, view.r, view.t, view.k) for d in dice]


def _window_origin(rng: np.random.Generator, size: int, w: int, h: int) -> tuple[float, float]:
    return float(rng.uniform(0, w - size)), float(rng.uniform(0, h - size))


def nadir_px(r: F64, k: F64) -> tuple[float, float]:
    """The image of the point straight below the camera (the vertical vanishing point: every
    vertical edge on the table points at it), frame pixels; it may lie outside the frame."""
    v = k @ r[:, 2]  # the table's normal (+z, away from the camera) seen by the camera
    return float(v[0] / v[2]), float(v[1] / v[2])


def window_nadir(rng: np.random.Generator, scale: float = 1.0) -> tuple[float, float]:
    """The nadir (`nadir_px`, frame pixels) of the frame `window(rng, ..., scale)` or
    `die_window(rng, ..., scale)` (same generator state) is cut from.  Renders nothing."""
    view = _train_view(rng, scale)
    return nadir_px(view.r, view.k)


def window_view(
    rng: np.random.Generator, size: int = 320, scale: float = 1.0
) -> tuple[float, float, int, int]:
    """Where `window(rng, size, scale)` (same generator state) lies in its frame: the window's
    top-left corner and the frame's width and height, in pixels.  Renders nothing."""
    view = _train_view(rng, scale)
    return (*_window_origin(rng, size, view.w, view.h), view.w, view.h)


def window(
    rng: np.random.Generator, size: int = 320, scale: float = 1.0
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A training window: `size` x `size` pixels of a frame `scale` times 1280x960, 0-9 dice of every kind."""
    view = _train_view(rng, scale)
    ox, oy = _window_origin(rng, size, view.w, view.h)
    view.k[0, 2] -= ox
    view.k[1, 2] -= oy
    lo, hi = _seen_box(view.r, view.t, view.k, ((0, 0), (size, 0), (size, size), (0, size)))
    n = int(rng.integers(0, 10))
    kinds = [KINDS[int(i)] for i in rng.choice(4, n, p=[0.22, 0.26, 0.26, 0.26])]
    dice = scatter(rng, kinds, (lo - 5, hi + 5), "train", touching=0.35)
    return _train_window(rng, size, scale, view, dice)


def scene(
    seed: int,
    index: int,
    board_name: str = "dice-fighter",
    kinds: list[str] | None = None,
    colours: list[str | None] | None = None,
    values: list[int] | None = None,
    scale: float = 1.0,
) -> tuple[np.ndarray, bytes, dict[str, Any]]:
    """A held-out TEST frame (JPEG) of a throw on an example board, with its truth.

    `scale` 1 is the 1280x960 video frame; 2.7 is the 3456x2592 still (the sensor's full
    4:3 height), same camera and field of view, so every die is `scale` times as many pixels wide.
    """
    rng = np.random.default_rng([seed, index])
    W, H = frame_size(scale)
    ppm = PX_PER_MM * max(1.0, scale)
    layout, tex = board(board_name, ppm) if board_name else (None, None)
    k = pi_camera3_calibration(W, H).camera_matrix
    bx0, by0, bx1, by1 = layout.bounds() if layout is not None else (0.0, 0.0, 320.0, 240.0)
    centre = np.array([(bx0 + bx1) / 2 + rng.normal(0, 15), (by0 + by1) / 2 + rng.normal(0, 15)])
    r, t = _camera(rng, centre, "test")
    if kinds is None:
        n = int(rng.integers(6, 13))
        kinds = [KINDS[int(i)] for i in rng.choice(4, n, p=[0.25, 0.25, 0.25, 0.25])]
    m = 60 * scale
    lo, hi = _seen_box(r, t, k, ((m, m), (W - m, m), (W - m, H - m), (m, H - m)))
    lo = np.maximum(lo, [bx0 + 10, by0 + 10])
    hi = np.minimum(hi, [bx1 - 10, by1 - 10])

    def in_view(d: Die) -> bool:
        px = project(d.vertices(), r, t, k)
        e = 15 * scale
        return bool(np.all(px > e) and np.all(px[:, 0] < W - e) and np.all(px[:, 1] < H - e))

    dice = scatter(rng, kinds, (lo, hi), "test", colours, touching=0.25, inside=in_view, values=values)
    table = (70, 95, 120) if layout is not None else (60, 110, 40)
    frame = board_background(H, W, r, t, k, tex, ppm, table, rng)
    img, jpeg = finish(_lit(rng, "test", frame, dice, r, t, k), rng, float(rng.uniform(1.0, 2.5)), 85)
    rvec, _ = cv2.Rodrigues(r)
    truth = {
        "seed": seed,
        "scene": index,
        "split": "test",
        "board": board_name or None,
        "board_file": BOARDS.get(board_name),
        "image_size": [W, H],
        "camera": {"camera_matrix": k.tolist(), "rvec": rvec.ravel().tolist(), "tvec": t.tolist()},
        "dice": [_test_truth(d, layout, r, t, k) for d in dice],
    }
    return img, jpeg, truth


def _test_truth(d: Die, layout: BoardLayout | None, r: F64, t: F64, k: F64) -> dict[str, Any]:
    """What a reader should report for die ``d`` of a TEST scene, with its place on the board."""
    truth = truth_of(d, r, t, k)
    if layout is not None:
        p = classify(d.footprint(), layout)
        truth.update(side=p.side, field_status=p.field_status, card_slot=p.card_slot, zones=list(p.zones))
    return truth


def _die_window_spot(
    rng: np.random.Generator, r: F64, t: F64, k: F64, w: int, h: int, scale: float
) -> tuple[F64, F64]:
    """Where `die_window` puts its die: anywhere in the frame, (x, y) mm on the table and the frame pixel."""
    off = rng.uniform(-1, 1, 2) * np.array([w / 2 - 40 * scale, h / 2 - 40 * scale])
    at = ground_point((w / 2 + off[0], h / 2 + off[1]), r, t, k)
    px = project(np.array([[at[0], at[1], 0.0]]), r, t, k)[0]
    return at, px


def die_window_view(
    rng: np.random.Generator, size: int = 128, scale: float = 1.0
) -> tuple[float, float, int, int]:
    """Where `die_window(rng, size, scale)` (same generator state) lies in its frame: the window's
    top-left corner and the frame's width and height, in pixels.  Renders nothing."""
    view = _train_view(rng, scale)
    _, px = _die_window_spot(rng, view.r, view.t, view.k, view.w, view.h, scale)
    return float(px[0] - size / 2), float(px[1] - size / 2), view.w, view.h


def die_window(
    rng: np.random.Generator, size: int = 128, scale: float = 1.0
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A training window centred on one die (any kind) with 0-3 neighbours close by (TRAIN generator).

    Cheaper per die than `window`, for the classifier; the first truth is the centred die.
    `scale`: the frame the window is cut from is `scale` times 1280x960 (see `scene`).
    """
    view = _train_view(rng, scale)
    at, px = _die_window_spot(rng, view.r, view.t, view.k, view.w, view.h, scale)
    view.k[0, 2] -= px[0] - size / 2
    view.k[1, 2] -= px[1] - size / 2
    kind = KINDS[int(rng.choice(4, p=[0.16, 0.24, 0.24, 0.36]))]
    first = make_die(rng, kind, "train", (float(at[0]), float(at[1])))
    n = int(rng.integers(0, 4))
    near = (at - 30, at + 30)
    others = scatter(rng, [KINDS[int(i)] for i in rng.integers(0, 4, n)], near, "train", touching=0.6)
    rad = _radius(first)
    others = [o for o in others if math.dist(o.centre[:2], first.centre[:2]) > rad + _radius(o) + 0.2]
    return _train_window(rng, size, scale, view, [first, *others])
