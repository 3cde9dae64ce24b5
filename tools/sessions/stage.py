"""The drawn table a recorded session shows: a hand reaching in, dice rolling, dice at rest.

Frames are drawn by ``draw.py`` and written by a :class:`recorder.Recorder`;
every still table with dice on it is a settled frame the reader must get right,
so :meth:`Stage.rest` keeps the truth of each one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from recorder import STEP, Recorder

from training.render.tabletop import DrawnDie, draw_die, draw_hand, spread


class Stage:
    """What lies on the drawn table, and the frames that show it change."""

    def __init__(
        self, rec: Recorder, rng: np.random.Generator, background: np.ndarray, size: float = 52.0
    ) -> None:
        self.rec = rec
        self.rng = rng
        self.background = background
        self.height, self.width = background.shape[:2]
        self.size = size
        self.dice: list[DrawnDie] = []
        self.settled: list[dict[str, Any]] = []
        #: what the engine waits for while the table shows a frame (set by the generator)
        self.waiting_for: Callable[[], Any] = lambda: None

    def image(self, dice: Sequence[DrawnDie], blur: float = 0.0) -> np.ndarray:
        img = self.background.copy()
        for d in dice:
            draw_die(img, d, blur)
        return img

    def hand(self, dice: Sequence[DrawnDie], reaches: Sequence[float]) -> None:
        """An arm reaching in from the bottom edge over ``dice``, one frame a reach."""
        x = float(self.rng.uniform(self.width * 0.3, self.width * 0.7))
        for r in reaches:
            img = self.image(dice)
            draw_hand(img, r, x, self.rng)
            self.rec.frame(img)

    def roll(
        self, kept: list[DrawnDie], final: list[DrawnDie], frames: int, spin: float, blur_step: int
    ) -> None:
        """Dice on their way from the thrower's edge to ``final``, tumbling faces, blurred less and less."""
        w, h = self.width, self.height
        for k in range(frames):
            f = (k + 1) / (frames + 1)
            moving = [
                DrawnDie(
                    int(self.rng.integers(1, 7)),
                    w / 2 + (d.x - w / 2) * f,
                    h * 0.9 + (d.y - h * 0.9) * f,
                    d.angle + spin * (frames - k),
                    d.style,
                    d.size,
                )
                for d in final
            ]
            self.rec.frame(self.image(kept + moving, blur=9 - blur_step * k))

    def rest(self, seconds: float, check: bool = True, throw: bool = False) -> float:
        """Hold the table still for ``seconds``; returns the time of its first frame.

        ``check``: keep the truth of this still (when dice lie on it) in ``settled``;
        ``throw``: the dice just came to rest after a throw, so the engine scores this frame.
        """
        name, t = self.rec.still(self.image(self.dice), seconds)
        if check and self.dice:
            ordered = sorted(self.dice, key=lambda d: (d.value, d.style))
            entry = {
                "file": name,
                "t": round(t, 3),
                "seconds": seconds,
                "throw": throw,
                # where each die lies, and when: what the recorded referee looks at
                "t0": round(t, 3),
                "t1": round(t + seconds - STEP, 3),
                "centers": [[round(d.x, 1), round(d.y, 1)] for d in ordered],
                "engine_expects": self.waiting_for(),
                "dice": [[d.value, d.style] for d in ordered],
            }
            self.settled.append(entry)
        return t

    def throw(
        self,
        values: list[int],
        styles: list[str],
        area: tuple[float, float, float, float] | None = None,
        rest_s: float = 1.6,
    ) -> float:
        """Hand in, dice rolling to free spots of ``area``, dice at rest; returns when they came to rest."""
        kept = list(self.dice)
        self.hand(kept, [0.3, 0.45])
        m = self.size * 1.2
        area = area or (m, m, self.width - m, self.height - m)
        final = spread(values, styles, self.rng, area, self.size, kept)
        self.roll(kept, final, frames=3, spin=45, blur_step=3)
        self.dice = kept + final
        return self.rest(rest_s, throw=True)

    def take(
        self,
        leaving: Sequence[DrawnDie],
        rest_s: float = 0.5,
        check: bool = True,
        reaches: Sequence[float] = (0.55,),
    ) -> None:
        """A hand picks up ``leaving`` from the table."""
        self.hand(self.dice, reaches)
        gone = {id(d) for d in leaving}
        self.dice = [d for d in self.dice if id(d) not in gone]
        self.rest(rest_s, check)

    def clear(self, reaches: Sequence[float] = (0.55,)) -> None:
        self.take(list(self.dice), rest_s=0.5, reaches=reaches)
