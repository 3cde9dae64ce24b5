"""A die only the pip reader found, at a table of numbered kinds (`vision.numbered.combined.lone_pips`):
read as the learnt set's face (a `LearntReading`, its set and rival) or as the table's kind (a
`DieReading`), each carrying the pip reading's colour, near colour, box and look, at its box.  No nets:
the reader's steps are stood in for."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from vision.numbered import combined
from vision.numbered import reader as numbered_reader
from vision.numbered.learnt import LearntReading
from vision.numbered.reader import Verdict
from vision.reading import DieReading, box_quad


class _Reader:
    copy_stills = False
    reject_threshold, trust_support, trust_margin = 0.5, 2, 0.05

    def __init__(self, match: Any) -> None:
        self.match = match

    def locate(self, work: np.ndarray, found: list[Any], *_: Any) -> list[Any]:
        return found

    def crops(self, work: np.ndarray, located: list[Any]) -> list[np.ndarray]:
        return [np.zeros((8, 8, 3), np.uint8) for _ in located]

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        return np.zeros((len(crops), 4), np.float32)

    def learnt_matches(self, crops: list[np.ndarray], learnt: Any, **_: Any) -> list[Any]:
        return [self.match] * len(crops)


PIP = DieReading(
    kind="d6",
    value=3,
    center=(100.0, 80.0),
    quad=box_quad((100.0, 80.0), 40.0, 40.0),
    confidence=0.9,
    colour="red",
    colour_near="blue",
    box=box_quad((101.0, 80.0), 44.0, 44.0),
    look=(1.0, 2.0, 3.0),
)
CARRIED = {"colour": "red", "colour_near": "blue", "box": PIP.box, "look": (1.0, 2.0, 3.0)}


def test_a_lone_pip_die_is_read_as_the_learnt_face_or_the_tables_kind_keeping_what_it_carries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(numbered_reader, "verdict", lambda *a: Verdict("d20", 1, 0.2, 0.2))
    monkeypatch.setattr(numbered_reader, "learnt_verdict", lambda *a: Verdict("d20", 7, 0.6, 0.9))
    monkeypatch.setattr(numbered_reader, "narrowed", lambda *a: Verdict("d20", 5, 0.4, 0.5))
    image = np.zeros((200, 200, 3), np.uint8)
    learnt = SimpleNamespace(crops=("box",), kind="d20", name="the set")
    match = SimpleNamespace(kind="d20", set_name="ann-d20", rival="bob-d20")
    (got,) = combined.lone_pips(image, [PIP], [], _Reader(match), kinds=("d20",), learnt=learnt)  # type: ignore[arg-type]
    assert isinstance(got, LearntReading)
    assert (got.kind, got.value, got.confidence, got.dice_set, got.rival) == (
        "d20",
        7,
        0.6,
        "ann-d20",
        "bob-d20",
    )
    assert got.center == PIP.center and got.quad == box_quad(PIP.center, 40.0, 40.0)
    assert {k: getattr(got, k) for k in CARRIED} == CARRIED
    (plain,) = combined.lone_pips(image, [PIP], [], _Reader(None), kinds=("d20",), learnt=learnt)  # type: ignore[arg-type]
    assert type(plain) is DieReading and (plain.kind, plain.value, plain.confidence) == ("d20", 5, 0.4)
    assert plain.center == PIP.center and plain.quad == got.quad
    assert {k: getattr(plain, k) for k in CARRIED} == CARRIED
