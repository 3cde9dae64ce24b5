"""Rendered d6 with a symbol on one face (a skull for the 1, a logo on the 6), seen near overhead.

``make_scene(i, seed, designs)`` gives scene ``i`` of a seed: a 1280x960 frame of 10-20 d6 lying
close together on a tray mat (many touching), seen by an ideal Raspberry Pi Camera Module 3 tilted
0-20 degrees off vertical.  About a third of the dice carry a symbol instead of the pips of their
1 or their 6 face (one design a die, drawn from ``designs``; each design on its own face, ``FACE``),
and half of those show it on top.
Scene ``i`` depends only on ``(seed, i, designs)``.

The designs are drawn with OpenCV in the pips' ink: ``TUNE_DESIGNS`` (skull, star, word "WIN",
ringed letter logo) are the ones the pip check (``vision.pipcheck``) was tuned on;
``HELDOUT_DESIGNS`` (crown, heart, word "ACE", a dragon-like scrawl, a filled logo disc with a
letter, a numeral) were drawn after the check was fixed and measure symbols it never saw
(``benchmarks/vision_symbol_faces.py``; seeds ``TUNE_SEED`` and ``HELDOUT_SEED``).

Each die in the truth says its top ``value`` (1-6, the pips a plain face would show) and
``symbol``: the design on top, or None for pips.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

from calibration.camera import pi_camera3_calibration
from training.render.oblique import MAT_MM, MAT_PX_PER_MM, _camera, _mat
from training.render.synthetic import (
    DIE_COLOURS,
    Cube,
    Light,
    face_texture,
    finish,
    project,
    render_scene,
    rotation_for_top,
)

W, H = 1280, 960
TUNE_SEED = 4601
HELDOUT_SEED = 4607
JPEG_QUALITY = 85
SIZE = 72  # face texture side, pixels (synthetic.face_texture's)


def _skull(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    c = SIZE // 2
    cv2.ellipse(img, (c, c - 6), (20, 18), 0, 0, 360, ink, -1, cv2.LINE_AA)
    cv2.rectangle(img, (c - 11, c + 6), (c + 11, c + 20), ink, -1, cv2.LINE_AA)
    for dx in (-8, 8):
        cv2.circle(img, (c + dx, c - 6), 5, body, -1, cv2.LINE_AA)
    cv2.fillConvexPoly(img, np.array([[c, c + 1], [c - 3, c + 7], [c + 3, c + 7]]), body, cv2.LINE_AA)
    for dx in (-6, 0, 6):
        cv2.line(img, (c + dx, c + 12), (c + dx, c + 20), body, 2, cv2.LINE_AA)


def _star(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    c, r1, r2 = SIZE / 2, 26.0, 11.0
    pts = [
        (
            c + (r1 if k % 2 == 0 else r2) * math.sin(k * math.pi / 5),
            c - (r1 if k % 2 == 0 else r2) * math.cos(k * math.pi / 5),
        )
        for k in range(10)
    ]
    cv2.fillPoly(img, [np.round(np.array(pts) * 4).astype(np.int32)], ink, cv2.LINE_AA, shift=2)


def _word(text: str) -> Callable[[np.ndarray, tuple[int, ...], tuple[int, ...], np.random.Generator], None]:
    def draw(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
        font = cv2.FONT_HERSHEY_DUPLEX
        (tw, th), _ = cv2.getTextSize(text, font, 0.8, 2)
        cv2.putText(img, text, ((SIZE - tw) // 2, (SIZE + th) // 2), font, 0.8, ink, 2, cv2.LINE_AA)

    return draw


def _ring_logo(
    img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator
) -> None:
    c = SIZE // 2
    cv2.circle(img, (c, c), 24, ink, 4, cv2.LINE_AA)
    (tw, th), _ = cv2.getTextSize("K", cv2.FONT_HERSHEY_SIMPLEX, 1.0, 3)
    cv2.putText(img, "K", (c - tw // 2, c + th // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.0, ink, 3, cv2.LINE_AA)


def _crown(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    pts = np.array([[12, 54], [12, 22], [24, 38], [36, 16], [48, 38], [60, 22], [60, 54]], np.int32)
    cv2.fillPoly(img, [pts], ink, cv2.LINE_AA)
    cv2.rectangle(img, (12, 57), (60, 61), ink, -1)


def _heart(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    t = np.linspace(0, 2 * math.pi, 80)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.column_stack([SIZE / 2 + 1.6 * x, SIZE / 2 + 1.6 * y + 2])
    cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], ink, cv2.LINE_AA, shift=2)


def _scrawl(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    pts = np.array([[14, 50], [22, 20], [34, 44], [40, 14], [50, 40], [58, 22]], np.int32)
    cv2.polylines(img, [pts], False, ink, 4, cv2.LINE_AA)
    cv2.circle(img, (40, 14), 5, ink, -1, cv2.LINE_AA)


def _disc_logo(
    img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator
) -> None:
    c = SIZE // 2
    cv2.circle(img, (c, c), 25, ink, -1, cv2.LINE_AA)
    (tw, th), _ = cv2.getTextSize("G", cv2.FONT_HERSHEY_SIMPLEX, 1.1, 3)
    cv2.putText(img, "G", (c - tw // 2, c + th // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.1, body, 3, cv2.LINE_AA)


def _numeral(img: np.ndarray, ink: tuple[int, ...], body: tuple[int, ...], rng: np.random.Generator) -> None:
    (tw, th), _ = cv2.getTextSize("6", cv2.FONT_HERSHEY_TRIPLEX, 1.6, 3)
    cv2.putText(
        img, "6", ((SIZE - tw) // 2, (SIZE + th) // 2), cv2.FONT_HERSHEY_TRIPLEX, 1.6, ink, 3, cv2.LINE_AA
    )


Design = Callable[[np.ndarray, tuple[int, ...], tuple[int, ...], np.random.Generator], None]
DESIGNS: dict[str, Design] = {
    "skull": _skull,
    "star": _star,
    "word WIN": _word("WIN"),
    "ring logo": _ring_logo,
    "crown": _crown,
    "heart": _heart,
    "word ACE": _word("ACE"),
    "scrawl": _scrawl,
    "disc logo": _disc_logo,
    "numeral": _numeral,
}
#: the face each design stands for (a set of dice carries its symbol on one face: a skull for the 1)
FACE = {d: 1 if d in ("skull", "heart", "word ACE", "numeral") else 6 for d in DESIGNS}
TUNE_DESIGNS = ("skull", "star", "word WIN", "ring logo")
HELDOUT_DESIGNS = ("crown", "heart", "word ACE", "scrawl", "disc logo", "numeral")


def symbol_texture(design: str, colour: str, rng: np.random.Generator) -> np.ndarray:
    """A die face (``synthetic.face_texture``'s look: body colour, darker rim) with ``design``
    drawn in the pips' ink, turned by a random quarter turn."""
    body, ink = DIE_COLOURS[colour]
    img = face_texture(1, colour)
    c = SIZE // 2
    r = round(SIZE * 0.085)
    cv2.circle(img, (c, c), r + 1, body, -1)  # the one pip painted over
    DESIGNS[design](img, tuple(int(v) for v in ink), tuple(int(v) for v in body), rng)
    return np.ascontiguousarray(np.rot90(img, int(rng.integers(4))))


def make_scene(index: int, seed: int, designs: Sequence[str]) -> tuple[np.ndarray, dict[str, Any]]:
    """Scene ``index`` of ``seed``: the decoded JPEG frame and its truth (see the module's doc)."""
    rng = np.random.default_rng([seed, index])
    cal = pi_camera3_calibration(W, H)
    k = cal.camera_matrix
    cam = _camera(rng, float(rng.uniform(0.0, 20.0)))
    size = float(rng.uniform(13.0, 19.0))
    colours = [c for c in DIE_COLOURS]
    colour = colours[int(rng.integers(len(colours)))]  # one set of dice, one colour (mostly)
    n = int(rng.integers(10, 21))
    cubes: list[Cube] = []
    symbols: list[str | None] = []
    tries = 0
    while len(cubes) < n and tries < 2000:
        tries += 1
        xy = rng.normal(0, 2.2 * size, 2)
        if any(np.hypot(*(xy - c.centre[:2])) < 1.5 * size for c in cubes):
            continue
        value = int(rng.integers(1, 7))
        col = colour if rng.random() < 0.8 else colours[int(rng.integers(len(colours)))]
        cube = Cube(
            value,
            col,
            size,
            rotation_for_top(value, float(rng.uniform(0, 360))),
            np.array([xy[0], xy[1], -size / 2]),
        )
        px = project(cube.vertices(), cam["r"], cam["t"], k)
        if px[:, 0].min() < 16 or px[:, 1].min() < 16 or px[:, 0].max() > W - 16 or px[:, 1].max() > H - 16:
            continue
        design: str | None = None
        if rng.random() < 0.35:  # a symbol die: its 1 or its 6 carries the design
            design = designs[int(rng.integers(len(designs)))]
            face = FACE[design]
            cube.extra["faces"] = {face: symbol_texture(design, col, rng)}
            if rng.random() < 0.5:  # half of them show it on top
                cube = Cube(
                    face,
                    col,
                    size,
                    rotation_for_top(face, float(rng.uniform(0, 360))),
                    cube.centre,
                    cube.extra,
                )
        cubes.append(cube)
        symbols.append(design if design and cube.value in cube.extra["faces"] else None)  # type: ignore[operator]
    el = np.radians(rng.uniform(45, 85))
    azl = rng.uniform(0, 2 * np.pi)
    ld = np.array([np.cos(el) * np.cos(azl), np.cos(el) * np.sin(azl), -np.sin(el)])
    light = Light(
        ld, float(rng.uniform(0.35, 0.55)), float(rng.uniform(0.5, 0.7)), float(rng.uniform(0.85, 1.12))
    )
    shift = np.array([MAT_MM / 2, MAT_MM / 2, 0.0])
    moved = [Cube(c.value, c.colour, c.size, c.rot, c.centre + shift, c.extra) for c in cubes]
    t_moved = cam["t"] - cam["r"] @ shift
    table = tuple(int(v) for v in rng.uniform(40, 160, 3))
    frame, _ = render_scene(_mat(rng), MAT_PX_PER_MM, moved, cam["r"], t_moved, cal, light, rng, table)  # type: ignore[arg-type]
    image, _ = finish(frame, rng, float(rng.uniform(1.0, 2.5)), JPEG_QUALITY)
    dice = []
    for cube, sym in zip(cubes, symbols, strict=True):
        top = cube.top_value()
        sil = project(cube.vertices(), cam["r"], cam["t"], k)
        dice.append(
            {
                "value": top,
                "symbol": sym,
                "colour": cube.colour,
                "box_px": [round(float(v), 2) for v in (*sil.min(axis=0), *sil.max(axis=0))],
            }
        )
    return image, {"scene": index, "seed": seed, "designs": list(designs), "dice": dice}
