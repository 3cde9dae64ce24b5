"""The referee's answers about one of the roster's dice join that die's own set (issue 44 item 4):
one set, every face's crops weighed together, cut as the entry's were (its pixels kept), so that a
later die is never read by a set of the answered faces alone (with a margin over no other face)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from controller.corrections import RefereeLearning
from vision.numbered import NumberedDice
from vision.numbered.learnt import DiceSet
from vision.numbered.template import SIDE, encode


def _unit(*v: float) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


class _Net:
    digest = "e1"


class _Reader:
    """The embedding net's name is all the learning step asks of the reader here."""

    def embedder(self) -> _Net:
        return _Net()


def _learning(entry: DiceSet) -> RefereeLearning:
    dice = NumberedDice(("d20",), entry, _Reader())  # type: ignore[arg-type]
    return RefereeLearning(SimpleNamespace(reader=dice, learnt=None, palette=None))


def _row(reading: str, value: int, features: np.ndarray, **more: Any) -> Any:
    learnt = {"kind": "d20", "value": value, "embedder": "e1", "features": features.tolist(), **more}
    return SimpleNamespace(kind="control", data={"action": "set_value", "reading": reading, "learnt": learnt})


def test_an_answer_joins_the_entrys_set_and_is_weighed_against_every_face() -> None:
    entry = DiceSet(
        "ann-d20", "d20", "red", "e1", np.array([3, 7]), np.stack([_unit(1, 0, 0), _unit(0, 1, 0)]),
        trust=True, entry="ann/red", calibrated=True,
    )  # fmt: skip
    learning = _learning(entry)
    answered = _unit(0.6, 0.8, 0.0)  # a 3 the referee named, a crop much like ann's 7
    assert learning.replay([_row("r4.1", 3, answered, die="ann-d20")]) == 1
    learnt = learning.perceiver.reader.learnt
    # one set, the entry's, grown by the answer (not a set of the answered faces beside it)
    assert isinstance(learnt, DiceSet) and learnt.name == "ann-d20" and learnt.entry == "ann/red"
    assert learnt.faces == [3, 7] and len(learnt.values) == 3 and learnt.trust and learnt.calibrated
    # a 7 a little more like the answered 3 than like ann's taught 7: read with its margin over the
    # 7, not as a set of 3s alone reads it (its margin its whole likeness: over no other face)
    seven = _unit(0.55, 0.83, 0.1)
    m = learnt.match(seven[None, None, :], 0.0)[0]
    assert m is not None and m.value == 3
    like = seven @ np.stack([answered, _unit(0, 1, 0)]).T
    assert abs(m.margin - float(like[0] - like[1])) < 1e-5 and m.margin < m.likeness - 0.5
    # unlearnt: the entry as it was taught
    assert learning.remove("r4.1") == 1
    again = learning.perceiver.reader.learnt
    assert again.name == "ann-d20" and len(again.values) == 2


def test_answers_join_a_set_that_keeps_pixels_only_with_their_own() -> None:
    px = np.full((2, SIDE, SIDE, 3), 90, np.uint8)
    entry = DiceSet(
        "ann-d20", "d20", "red", "e1", np.array([3, 7]), np.stack([_unit(1, 0), _unit(0, 1)]),
        trust=True, entry="ann/red", crop="die", pixels=px,
    )  # fmt: skip
    learning = _learning(entry)
    crop = np.full((SIDE, SIDE, 3), 200, np.uint8)
    learning.replay([_row("r1.1", 7, _unit(0.1, 1), die="ann-d20", crop="die", pixels=encode(crop))])
    learnt = learning.perceiver.reader.learnt
    assert isinstance(learnt, DiceSet) and learnt.pixels is not None and len(learnt.pixels) == 3
    assert (learnt.pixels[-1] == 200).all()  # the answer's own pixels, read by the template too
    # an answer logged before answers kept pixels (a box crop): kept apart, the entry's pixels kept
    learning.replay([_row("r2.1", 3, _unit(1, 0.1), die="ann-d20")])
    sets = learning.perceiver.reader.learnt.sets
    assert [(s.name, len(s.values), s.crop) for s in sets] == [("ann-d20", 3, "die"), ("ann-d20", 1, "box")]
    assert sets[0].pixels is not None and len(sets[0].pixels) == 3
