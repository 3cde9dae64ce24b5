"""The recorded referee answers only questions the table asked, and only what its record shows."""

from __future__ import annotations

from typing import Any

from controller.adapters import Question, TableReadings
from controller.referee import RecordedReferee, Still, _hidden_under, _spans


class FakeTable:
    """Just what the referee touches: the question, the readings and ``correct``."""

    def __init__(self, question: Question | None, dice: list[dict[str, Any]], t: float = 1.0) -> None:
        self.question = question
        self.reading_set = TableReadings(1, t, dice)
        self.commands: list[dict[str, Any]] = []

    def correct(self, command: dict[str, Any], who: str) -> dict[str, Any]:
        self.commands.append(command)
        self.question = None
        return {"ok": True}


def still(**kw: Any) -> Still:
    base: dict[str, Any] = {
        "t0": 0.5,
        "t1": 2.0,
        "values": (3, 5, 2),
        "colours": ("red", "blue", "red"),
        "centers": ((100.0, 100.0), (200.0, 100.0), (203.0, 102.0)),
        "under": (None, None, 1),  # the red 2 lies under the blue 5
        "reach_px": 20.0,
    }
    return Still(**{**base, **kw})


def die(rid: str, value: int, colour: str, x: float, y: float = 100.0) -> dict[str, Any]:
    return {"id": rid, "kind": "d6", "value": value, "colour": colour, "center": [x, y]}


def test_the_referee_answers_a_value_question_from_the_visible_die_not_the_hidden_one() -> None:
    table = FakeTable(
        Question("Is r1.2 a 2?", ("r1.2",), "unsure"),
        [die("r1.1", 3, "red", 101), die("r1.2", 2, "blue", 202)],
    )
    RecordedReferee([still()]).answer(table)
    assert table.commands == [{"action": "set_value", "reading": "r1.2", "value": 5}]


def test_the_referee_names_a_hidden_die_only_for_a_count_question() -> None:
    dice = [die("r1.1", 3, "red", 101), die("r1.2", 5, "blue", 201)]
    asked = FakeTable(Question("sees 1 red", ("r1.1", "r1.2"), "count"), dice)
    RecordedReferee([still()]).answer(asked)
    assert asked.commands == [{"action": "hidden", "under": "r1.2", "colour": "red", "value": 2}]
    for q in (None, Question("owner?", ("r1.2",), "owner")):
        not_asked = FakeTable(q, [dict(d) for d in dice])
        assert RecordedReferee([still()]).answer(not_asked) == 0 and not_asked.commands == []


def test_the_referee_does_not_answer_for_a_die_the_camera_simply_missed() -> None:
    # the blue 5 is missed (not under anything): the count question stays for the people at the table
    table = FakeTable(Question("sees 1 die", ("r1.1",), "count"), [die("r1.1", 3, "red", 101)])
    assert RecordedReferee([still(under=(None, None, None))]).answer(table) == 0
    assert table.question is not None


def test_the_referee_knows_nothing_outside_the_recorded_still() -> None:
    table = FakeTable(Question("Is r1.1 a 2?", ("r1.1",), "unsure"), [die("r1.1", 2, "red", 101)], t=9.0)
    assert RecordedReferee([still()]).answer(table) == 0


def test_hidden_dice_and_frame_spans_from_a_rendered_truth() -> None:
    dice = [
        {"stack_level": 0, "center_mm": [10.0, 10.0]},
        {"stack_level": 1, "center_mm": [11.0, 10.5]},
        {"stack_level": 0, "center_mm": [60.0, 10.0]},
    ]
    assert _hidden_under(dice) == (1, None, None)
    rows = [("a.jpg", 0.0), ("a.jpg", 0.1), ("b.jpg", 0.2), ("b.jpg", 0.3), ("a.jpg", 0.4)]
    assert _spans(rows) == {"a.jpg": (0.4, 0.4), "b.jpg": (0.2, 0.3)}


def test_the_referee_answers_a_support_question_from_the_record() -> None:
    """Issue 45: what a die the camera could not tell the support of rests on, as the record says:
    the board, the reading of the die under it, or (no reading shows that die) the die, hidden."""
    opts = [{"on": "board", "stack_level": 0}, {"on": 0, "stack_level": 1}]
    on_die = still(
        values=(3, 5),
        colours=("red", "blue"),
        centers=((100.0, 100.0), (112.0, 100.0)),
        under=(1, None),  # the blue 5 rests on the red 3, offset: both seen
        rests=(None, 0),
    )
    dice = [die("r1.1", 3, "red", 101), {**die("r1.2", 5, "blue", 112), "support_options": opts}]
    table = FakeTable(Question("rests on?", ("r1.2",), "support"), dice)
    assert RecordedReferee([on_die]).answer(table) == 1
    assert table.commands == [{"action": "set_support", "reading": "r1.2", "on": "r1.1"}]
    flat = still(rests=(None, None, None))
    table = FakeTable(
        Question("rests on?", ("r1.2",), "support"),
        [die("r1.1", 3, "red", 101), {**die("r1.2", 5, "blue", 201), "support_options": opts}],
    )
    RecordedReferee([flat]).answer(table)
    assert table.commands == [{"action": "set_support", "reading": "r1.2", "on": "board"}]
    hidden = still(rests=(None, 2, None))  # the blue 5 on the red 2 under it, which no reading shows
    table = FakeTable(
        Question("rests on?", ("r1.2",), "support"),
        [die("r1.1", 3, "red", 101), {**die("r1.2", 5, "blue", 201), "support_options": opts}],
    )
    RecordedReferee([hidden]).answer(table)
    assert table.commands == [{"action": "hidden", "under": "r1.2", "colour": "red", "value": 2}]


def test_the_referee_names_a_die_between_two_colours_by_the_record() -> None:
    table = FakeTable(Question("red or pink?", ("r1.2",), "colour"), [die("r1.2", 5, "red", 201)])
    RecordedReferee([still()]).answer(table)
    assert table.commands == [{"action": "set_colour", "reading": "r1.2", "colour": "blue"}]
