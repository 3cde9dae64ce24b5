"""Helpers for the vision tests: drawn tables with known dice."""

from __future__ import annotations

import numpy as np

from hardware.drawn import DrawnDie, draw_die


def draw_row(
    img: np.ndarray,
    values: list[int],
    *,
    size: float = 48,
    gap: float = 1.6,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (25, 25, 25),
    y: float = 240,
    angle: float = 0.0,
) -> list[DrawnDie]:
    """Draw dice left to right with the given values; `gap` is centre spacing in die sides."""
    x0 = img.shape[1] / 2 - (len(values) - 1) * size * gap / 2
    return [
        draw_die(img, (x0 + i * size * gap, y), size, v, angle_deg=angle + 17 * i, body_bgr=body, pip_bgr=pip)
        for i, v in enumerate(values)
    ]
