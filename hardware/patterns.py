"""What the LED matrix shows: pictures (RGB uint8, height x width x 3) for moments of a game.

Every function takes the matrix size and returns one frame or a short list of
frames (an animation).  The secret-choice pattern takes only who has
confirmed, never what, so it cannot leak a choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hardware.font import GLYPH_H, scroll_windows, text_bitmap

RGB = tuple[int, int, int]

COLOURS: dict[str, RGB] = {
    "red": (255, 0, 0),
    "blue": (0, 60, 255),
    "green": (0, 200, 0),
    "purple": (160, 0, 220),
    "yellow": (255, 200, 0),
    "orange": (255, 100, 0),
    "white": (200, 200, 200),
    "black": (60, 60, 60),
}
QUESTION: RGB = (255, 180, 0)
DAMAGE: RGB = (255, 0, 0)
DIM = 0.25


def colour_of(name: str | RGB) -> RGB:
    """A player's colour by name (the table's colours) or as an (r, g, b) tuple."""
    if isinstance(name, tuple):
        return name
    if name not in COLOURS:
        raise ValueError(f"unknown LED colour {name!r}; expected one of {sorted(COLOURS)} or (r, g, b)")
    return COLOURS[name]


def blank(width: int, height: int) -> np.ndarray:
    return np.zeros((height, width, 3), np.uint8)


def _dim(c: RGB, f: float = DIM) -> RGB:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def draw_text(
    frame: np.ndarray,
    text: str,
    colour: RGB,
    x: int | None = None,
    y: int | None = None,
    scale: int | None = None,
) -> np.ndarray:
    """Draw text (3x5 font) centred unless x/y are given; clipped at the edges.

    ``scale`` None picks the largest of 1-3 that fits with a pixel to spare (big digits on 16x16).
    """
    bitmap = text_bitmap(text)
    h, w = frame.shape[:2]
    if scale is None:
        fits = [s for s in (3, 2) if bitmap.shape[1] * s <= w - 2 and bitmap.shape[0] * s <= h - 2]
        scale = fits[0] if fits else 1
    bitmap = np.kron(bitmap, np.ones((scale, scale), dtype=bool)).astype(bool)
    bh, bw = bitmap.shape
    x0 = (w - bw) // 2 if x is None else x
    y0 = (h - bh) // 2 if y is None else y
    for yy, xx in zip(*np.nonzero(bitmap), strict=True):
        fx, fy = x0 + xx, y0 + yy
        if 0 <= fx < w and 0 <= fy < h:
            frame[fy, fx] = colour
    return frame


def border(frame: np.ndarray, colour: RGB) -> np.ndarray:
    frame[0, :] = frame[-1, :] = colour
    frame[:, 0] = frame[:, -1] = colour
    return frame


def number(width: int, height: int, n: int, colour: RGB = (255, 255, 255)) -> np.ndarray:
    """A number centred on the matrix (as many digits as fit)."""
    return draw_text(blank(width, height), str(n), colour)


def scrolling_text(width: int, height: int, text: str, colour: RGB = (255, 255, 255)) -> list[np.ndarray]:
    """Frames that scroll ``text`` across the middle of the matrix."""
    frames = []
    y0 = (height - GLYPH_H) // 2
    for window in scroll_windows(text, width):
        f = blank(width, height)
        f[y0 : y0 + GLYPH_H][window] = colour
        frames.append(f)
    return frames


def turn(width: int, height: int, colour: str | RGB, seat: int | None = None) -> np.ndarray:
    """Whose turn: a border in the player's colour, with their seat number inside."""
    c = colour_of(colour)
    f = border(blank(width, height), c)
    if seat is not None:
        draw_text(f, str(seat), c)
    return f


def roll_order(width: int, height: int, groups: Sequence[Sequence[str | RGB]]) -> np.ndarray:
    """Roll order, left to right: one column band per group; players rolling together share a band."""
    f = blank(width, height)
    if not groups:
        return f
    band = max(1, width // len(groups))
    for gi, group in enumerate(groups):
        x0 = gi * band
        rows = max(1, height // max(1, len(group)))
        for pi, col in enumerate(group):
            f[pi * rows : (pi + 1) * rows - 1, x0 : x0 + band - 1] = colour_of(col)
    return f


def confirmed(width: int, height: int, colours: Sequence[str | RGB], done: Sequence[bool]) -> np.ndarray:
    """Who has confirmed a secret choice (not what): a dim box per player, lit when confirmed."""
    if len(colours) != len(done):
        raise ValueError(f"{len(colours)} colours but {len(done)} confirmation flags")
    f = blank(width, height)
    n = max(1, len(colours))
    cell = max(1, width // n)
    top, bottom = height // 4, height - height // 4
    for i, (col, ok) in enumerate(zip(colours, done, strict=True)):
        c = colour_of(col)
        x0, x1 = i * cell, (i + 1) * cell - 1
        f[top:bottom, x0:x1] = c if ok else _dim(c)
    return f


def reveal(width: int, height: int, colours: Sequence[str | RGB], steps: int = 6) -> list[np.ndarray]:
    """The reveal: the players' colours burst outward from the centre."""
    frames = []
    cy, cx = (height - 1) / 2, (width - 1) / 2
    yy, xx = np.mgrid[0:height, 0:width]
    dist = np.hypot(yy - cy, xx - cx)
    cols = [colour_of(c) for c in colours] or [(255, 255, 255)]
    angle = (np.arctan2(yy - cy, xx - cx) + np.pi) / (2 * np.pi)
    sector = np.minimum((angle * len(cols)).astype(int), len(cols) - 1)
    rmax = float(dist.max())
    for s in range(1, steps + 1):
        f = blank(width, height)
        ring = np.abs(dist - rmax * s / steps) < 1.2
        for i, c in enumerate(cols):
            f[ring & (sector == i)] = c
        frames.append(f)
    return frames


def damage(width: int, height: int, amount: int, colour: str | RGB = DAMAGE) -> list[np.ndarray]:
    """Damage dealt: a red flash, then the amount."""
    flash = np.full((height, width, 3), DAMAGE, np.uint8)
    return [flash, blank(width, height), number(width, height, amount, colour_of(colour))]


def ko(width: int, height: int, colour: str | RGB) -> list[np.ndarray]:
    """A KO: 'KO' blinking in red over the fallen player's colour."""
    on = draw_text(np.full((height, width, 3), _dim(colour_of(colour), 0.3), np.uint8), "KO", DAMAGE)
    return [on, blank(width, height), on, blank(width, height), on]


def winner(width: int, height: int, colours: Sequence[str | RGB], label: str = "WIN") -> list[np.ndarray]:
    """The winner (or winners of a shared victory): their colours fill the matrix, then 'WIN'."""
    cols = [colour_of(c) for c in colours] or [(255, 255, 255)]
    fill = blank(width, height)
    stripe = max(1, height // len(cols))
    for i, c in enumerate(cols):
        fill[i * stripe :] = c
    text = draw_text(blank(width, height), label, cols[0] if len(cols) == 1 else (255, 255, 255))
    return [fill, text, fill, text]


def question(width: int, height: int) -> np.ndarray:
    """Unsure: a reading or a question waits for a person."""
    return draw_text(border(blank(width, height), _dim(QUESTION, 0.4)), "?", QUESTION)


def for_snapshot(snapshot: Mapping[str, Any], width: int, height: int) -> np.ndarray:
    """The still picture for a table snapshot (the controller's view of the game); never a secret."""
    players = [p.get("name") for p in snapshot.get("players", [])]
    colours = {p.get("name"): p.get("colour", "white") for p in snapshot.get("players", [])}
    if snapshot.get("question"):
        return question(width, height)
    state = snapshot.get("state") or {}
    result = state.get("result")
    if result:
        win = result.get("winners") or []
        return winner(width, height, [colours.get(w, "white") for w in win])[0]
    exp = state.get("expects") or {}
    secret = snapshot.get("secret")
    if isinstance(secret, Mapping) and secret.get("status") == "selecting":  # who has chosen, never what
        done = set(secret.get("confirmed") or [])
        return confirmed(width, height, [colours[p] for p in players], [p in done for p in players])
    who = exp.get("players") or []
    if len(who) == 1 and who[0] in colours:
        return turn(width, height, colours[who[0]], players.index(who[0]) + 1)
    return blank(width, height)
