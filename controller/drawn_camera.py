"""The camera of ``dicetable serve-fake``: random throws drawn on a felt table, read back as drawn.

Everything else on that table is real (``controller.table.Table``, its event
log, questions, corrections and panels); only the camera is simulated, so the
pages can be tried without one.  One die in five is read unsure, so that the
table asks and a referee can answer on the admin page.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import numpy as np

from controller.table import Table

FRAME_W, FRAME_H = 960, 540
DIE_PX = 70
UNSURE_SHARE = 0.2


class DrawnCamera:
    """Draws a throw (``throw``) and is the table's reader for it (``read``)."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.drawn: list[dict[str, Any]] = []

    def throw(self, colour: str, n: int = 5) -> np.ndarray:
        """A felt table with ``n`` dice of ``colour`` at random places, values and angles."""
        from hardware.drawn import draw_die, felt
        from vision.palette import DEFAULT_BGR

        image = felt(FRAME_H, FRAME_W, rng=np.random.default_rng(self.rng.randrange(1 << 30)))
        body = DEFAULT_BGR.get(colour, DEFAULT_BGR["white"])
        pips = (30, 30, 30) if sum(body) > 450 else (245, 245, 245)  # dark pips on light dice
        self.drawn = []
        slot = (FRAME_W - DIE_PX) / n
        for i in range(n):
            centre = (
                DIE_PX + slot * (i + self.rng.uniform(0.2, 0.8)),
                self.rng.uniform(DIE_PX, FRAME_H - DIE_PX),
            )
            angle = self.rng.uniform(0, 90)
            die = draw_die(
                image, centre, DIE_PX, self.rng.randint(1, 6), angle_deg=angle, body_bgr=body, pip_bgr=pips
            )
            sure = self.rng.random() >= UNSURE_SHARE
            self.drawn.append(
                {
                    "kind": "d6",
                    "value": die.value,
                    "colour": colour,
                    "confidence": round(self.rng.uniform(0.9, 1.0) if sure else 0.55, 2),
                    "center": [round(c, 1) for c in die.center],
                    "quad": [[round(x, 1), round(y, 1)] for x, y in die.quad],
                }
            )
        return image

    def read(self, image: np.ndarray) -> list[dict[str, Any]]:
        """The table's reader: the dice of the last throw, as drawn."""
        return [dict(d) for d in self.drawn]


def throw_for_the_table(table: Table, camera: DrawnCamera, t: float) -> bool:
    """Throw five dice of the colour of the player the table waits for; False when it waits for no throw."""
    snap = table.snapshot()
    expects = snap["state"].get("expects") or {}
    if (
        snap["status"] != "playing"
        or snap["question"] is not None
        or expects.get("kind") not in ("roll", "throw")
    ):
        return False
    player = (expects.get("players") or [None])[0]
    colour = next((p["colour"] for p in snap["players"] if p["name"] == player), "white")
    table.on_settled(camera.throw(colour), t, t)
    return True


def autoplay(table: Table, camera: DrawnCamera, stop: threading.Event, every: float) -> None:
    """Until ``stop``: let the table's time pass (its panels) and throw every ``every`` seconds."""
    t0 = time.monotonic()
    while not stop.wait(every):
        t = time.monotonic() - t0
        table.tick(t)
        throw_for_the_table(table, camera, t)


def where_to_act(snap: dict[str, Any], url: str, every: float) -> str:
    """What a serve-fake table waits for and where a person gives it: two lines of at most 80
    columns (the admin page's address added where it fits): its buttons, its form, or nothing to
    do while the drawn camera throws."""
    expects = snap.get("state", {}).get("expects") or {}
    kind = expects.get("kind")
    waiting = str(snap.get("waiting_for") or kind or "nothing")
    if len(waiting) > 69:
        waiting = waiting[:68] + "…"
    page = True  # the admin page is where to act
    if snap.get("status") == "paused":
        how = "press Start / resume on the admin page"
    elif snap.get("question") is not None:
        how = "answer it on the admin page, or tap the die on the table page"
    elif expects.get("secret"):
        how, page = "a secret selection: only the players' button panels give it", False
    elif kind in ("roll", "throw"):
        if every > 0:
            how, page = f"nothing to do: the drawn camera throws every {every:g} s", False
        else:
            how = "type the dice in on the admin page (--every 0: no drawn throws)"
    elif kind == "reveal":
        how = "turn it up with its button on the admin page"
    elif kind == "choice":
        how = "choose with a button on the admin page"
    else:
        how = "a button on the admin page"
    how = f"  -> {how}"
    if page and len(f"{how}: {url}/admin") <= 80:
        how = f"{how}: {url}/admin"
    return f"waits for: {waiting}\n{how}"
