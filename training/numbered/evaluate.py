"""Score readings against a rendered scene's truth (used by the benchmark and the tests).

A reading matches a true die when its centre lies within 0.45 of the die's box
size from the die's top-face centre; each true die takes the nearest unmatched
reading.  Readings left over are false detections.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.reading import DieReading


@dataclass
class Score:
    """Counts over one or more frames."""

    dice: Counter[str] = field(default_factory=Counter)  # true dice per kind
    found: Counter[str] = field(default_factory=Counter)  # matched by a reading
    kind_right: Counter[str] = field(default_factory=Counter)
    value_right: Counter[str] = field(default_factory=Counter)  # kind and value right
    false_readings: int = 0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)
    # Readings the table takes without asking (confidence at least `sure`, the controller's
    # confidence_threshold): wrong ones of found dice, and false ones.
    sure: float = 0.8
    wrong_sure: int = 0
    false_sure: int = 0

    def add(self, truth: list[dict[str, Any]], readings: list[DieReading]) -> None:
        left = list(range(len(readings)))
        for d in truth:
            kind, value = d["kind"], int(d["value"])
            self.dice[kind] += 1
            x0, y0, x1, y1 = d["box_px"]
            size = max(x1 - x0, y1 - y0)
            cx, cy = d["center_px"]
            best = min(
                left,
                key=lambda i: math.hypot(readings[i].center[0] - cx, readings[i].center[1] - cy),
                default=None,
            )
            if (
                best is None
                or math.hypot(readings[best].center[0] - cx, readings[best].center[1] - cy) > 0.45 * size
            ):
                self.confusions[(label(kind, value), "missed")] += 1
                continue
            left.remove(best)
            r = readings[best]
            self.found[kind] += 1
            self.kind_right[kind] += r.kind == kind
            if r.kind == kind and r.value == value:
                self.value_right[kind] += 1
            else:
                self.confusions[(label(kind, value), label(r.kind, r.value))] += 1
                self.wrong_sure += r.confidence >= self.sure
        self.false_readings += len(left)
        self.false_sure += sum(readings[i].confidence >= self.sure for i in left)

    def kind_accuracy(self) -> float:
        return sum(self.kind_right.values()) / max(1, sum(self.dice.values()))

    def value_accuracy(self, kind: str) -> float:
        return self.value_right[kind] / max(1, self.dice[kind])


def label(kind: str, value: int) -> str:
    return f"{kind}:{value:02d}" if kind == "d10p" else f"{kind}:{value}"


def load_truth(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data
