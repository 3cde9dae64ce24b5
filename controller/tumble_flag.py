"""The tumble check of a throw (``[vision] tumble_check``), judged off the camera thread.

:func:`not_tumbled` turns the throw's motion record and the dice read at rest into the flag the
table logs (a ``control`` event ``not_tumbled``) and shows, or None.  :class:`TumbleChecks` runs it
on a thread of its own, so the camera thread goes on with the next frames while a throw is judged
(tens of milliseconds, more on a Pi); the table waits for the verdict only before it reads the next
throw (``wait``), which keeps the log in the same order as a check on the camera thread would.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("dicetable.tumble")

#: judge(record, image, readings, t, seq) -> the flag or None
Judge = Callable[[Any, np.ndarray, Sequence[dict[str, Any]], float, int], "dict[str, Any] | None"]


def not_tumbled(
    record: Any, image: np.ndarray, readings: Sequence[dict[str, Any]], t: float, seq: int
) -> dict[str, Any] | None:
    """The flag for a throw whose dice did not tumble, or None.

    ``record``: the throw's frames (a ``vision.tumble.ThrowRecorder``); ``readings``: the dice read
    in the settled frame ``image`` (their ``quad`` and ``center`` in its pixels); ``seq``: the reading
    set's number.  A check that cannot run flags nothing and says why in the log."""
    from vision.tumble import DieBox

    boxes, ids = [], []
    for r in readings:
        quad, center = r.get("quad"), r.get("center")
        if not quad or not center or r.get("hidden"):
            continue
        side = sum(
            float(np.hypot(quad[i][0] - quad[i - 1][0], quad[i][1] - quad[i - 1][1])) for i in range(4)
        )
        boxes.append(DieBox(float(center[0]), float(center[1]), side / 4))
        ids.append(str(r["id"]))
    try:
        verdict = record.judge(image, boxes)
    except (ValueError, cv2.error) as e:
        log.warning("the tumble check could not judge the throw at t=%.2f: %s", t, e)
        return None
    if not verdict.flagged:
        return None
    data = verdict.to_json()
    return {
        "action": "not_tumbled",
        "t": t,
        "reading_set": seq,
        "reason": verdict.reason(ids),
        "dice": [{"reading": i, **d} for i, d in zip(ids, data["dice"], strict=True)],
        "frames": data["frames"],
    }


class TumbleChecks:
    """Judges throws one at a time on a daemon thread; ``on_flag(flag, seq)`` gets each flag.

    ``submit`` takes a snapshot of the motion record (``ThrowRecorder.snapshot``), since the camera
    thread goes on adding frames to it.  ``wait`` returns once every submitted throw is judged and its
    flag handled.  A judge or handler that fails is logged; the next throw is judged all the same."""

    def __init__(self, judge: Judge, on_flag: Callable[[dict[str, Any], int], None]) -> None:
        self.judge = judge
        self.on_flag = on_flag
        self._jobs: queue.Queue[tuple[Any, np.ndarray, list[dict[str, Any]], float, int]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def submit(
        self, record: Any, image: np.ndarray, readings: Sequence[dict[str, Any]], t: float, seq: int
    ) -> None:
        frozen = record.snapshot() if hasattr(record, "snapshot") else record
        self._jobs.put((frozen, image, [dict(r) for r in readings], t, seq))
        with self._start:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="tumble-check", daemon=True)
                self._thread.start()

    def wait(self) -> None:
        """Until every throw submitted so far is judged and its flag handled."""
        self._jobs.join()

    def _run(self) -> None:
        while True:
            record, image, readings, t, seq = self._jobs.get()
            try:
                flag = self.judge(record, image, readings, t, seq)
                if flag is not None:
                    self.on_flag(flag, seq)
            except Exception:  # a fault in the check must not stop the table
                log.exception("the tumble check failed on the throw at t=%.2f", t)
            finally:
                self._jobs.task_done()
