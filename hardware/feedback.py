"""A table-snapshot listener that drives the LED matrix from a worker thread.

``LedFeedback(matrix)`` is called with each snapshot of the table (the dict the
display also gets).  It picks the picture (:func:`hardware.patterns.for_snapshot`),
adds an animation on a transition (the reveal when a secret selection ends, the
winner when the game ends), and hands the frames to a worker thread, so the
table loop never waits for the serial line.  A newer snapshot replaces frames
not yet sent.  It never sees a secret: snapshots carry only who has confirmed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from hardware import patterns
from hardware.leds import LedMatrix, open_matrix

log = logging.getLogger(__name__)


class LedFeedback:
    """Callable snapshot listener; ``close()`` stops the worker and the port."""

    def __init__(self, matrix: LedMatrix) -> None:
        self.matrix = matrix
        self._pending: list[np.ndarray] = []
        self._cond = threading.Condition()
        self._closed = False
        self._last_kind: str | None = None
        self._had_result = False
        self._worker = threading.Thread(target=self._run, name="led-feedback", daemon=True)
        self._worker.start()

    @classmethod
    def open(cls, cfg: Any) -> LedFeedback:
        """From a table config's ``leds`` section (url, width, height, protocol, wiring, origin, baud)."""
        leds = cfg.leds
        return cls(
            open_matrix(
                leds.url,
                leds.width,
                leds.height,
                protocol=leds.protocol,
                wiring=leds.wiring,
                origin=leds.origin,
                baud=leds.baud,
            )
        )

    def frames_for(self, snapshot: Mapping[str, Any]) -> list[np.ndarray]:
        """The frames to show for this snapshot (an animation on a transition, then the still)."""
        w, h = self.matrix.width, self.matrix.height
        colours = [p.get("colour", "white") for p in snapshot.get("players", [])]
        state = snapshot.get("state") or {}
        secret = snapshot.get("secret")
        kind = "secret" if isinstance(secret, Mapping) and secret.get("status") == "selecting" else None
        frames: list[np.ndarray] = []
        if self._last_kind == "secret" and kind != "secret":
            frames += patterns.reveal(w, h, colours)
        result = state.get("result")
        if result and not self._had_result:
            by_name = {p.get("name"): p.get("colour", "white") for p in snapshot.get("players", [])}
            frames += patterns.winner(w, h, [by_name.get(n, "white") for n in result.get("winners") or []])
        self._last_kind, self._had_result = kind, bool(result)
        frames.append(patterns.for_snapshot(snapshot, w, h))
        return frames

    def __call__(self, snapshot: Mapping[str, Any]) -> None:
        frames = self.frames_for(snapshot)
        with self._cond:
            self._pending = frames
            self._cond.notify()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every queued frame has been sent (tests, shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closed)
                if self._closed:
                    return
                frame = self._pending[0]
            try:
                self.matrix.show(frame)
            except Exception:  # the LEDs must never stop the table
                log.exception("LED matrix %s: showing a frame failed", self.matrix.url)
            with self._cond:
                if self._pending and self._pending[0] is frame:
                    self._pending.pop(0)
                self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._worker.join(timeout=2.0)
        self.matrix.close()
