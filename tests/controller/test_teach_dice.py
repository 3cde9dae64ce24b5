"""Teaching the table a die of its own with its camera (issue 29 item 4, controller.teach): each
settled roll of the die alone becomes its crop and a proposed face, confirmed or corrected by the
owner; only the die that was not on the empty table is ever a face; the set is complete at
N_EACH rolls of every face and is then saved where the table keeps its set and read with at once;
a restarted table carries on the session from its log.  Real photos (tests/controller/teach_scene.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from controller import teach
from controller.config import TableConfig, parse_config
from controller.eventlog import EventLog
from controller.live import play
from controller.session import mock_pins
from controller.table import Table
from hardware.frames import Frame
from tests.controller.teach_scene import LYING, PAGE, empty_table, needs_real, nudged, place, roll
from vision.numbered.learnt import load_set

START = {"action": "start", "owner": "ann", "colour": "green", "kind": "d20"}


def _cfg(game: str = "die-angler", **table: object) -> TableConfig:
    names = [("ann", "red"), ("bob", "blue"), ("cid", "green")][: 3 if game == "dice-hunter" else 2]
    players = [{"name": n, "colour": c, "pins": mock_pins(i).model_dump()} for i, (n, c) in enumerate(names)]
    raw = {"game": game, "seed": 3, **table}
    if game == "die-angler":
        raw.setdefault("kinds", ["d6", "d10", "d20"])
        raw.setdefault("dice_set", "sets/green.json")
    return parse_config({"table": raw, "players": players})


def _table(tmp_path: Path, cfg: TableConfig | None = None, resume: bool = False) -> Table:
    return Table(cfg or _cfg(), EventLog(tmp_path / "t.sqlite3"), resume=resume)


def _settle(table: Table, frame: np.ndarray, t: float) -> dict:
    table.on_settled(frame, t, t, empty=empty_table())
    return table.teach({"action": "status"}, "ann")


@needs_real
@pytest.mark.slow
def test_a_die_is_taught_roll_by_roll_and_the_table_reads_with_the_saved_set(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert table.perceiver.reader.learnt is None  # dice_set named, not taught yet: the table runs
    out = table.teach(START, "ann")
    assert out["message"].startswith("teaching ann's green d20")
    assert table.snapshot()["waiting_for"] == "a die to be taught: roll ann's green d20 (the game waits)"
    assert _settle(table, empty_table(), 1.0)["notice"].startswith("no die where the table changed")
    two = _settle(table, roll(3, 0, also=5), 2.0)
    assert "2 dice are on the table: leave one die only, ann's green d20" in two["notice"]
    assert two["rolls"] == 0
    right_later = 0
    for i in range(4 * 20):
        face, t = i % 20 + 1, 3.0 + i
        got = _settle(table, roll(face, i), t)
        r = got["roll"]
        assert got["notice"] is None and r["n"] == i + 1 and r["crop"].startswith("data:image/jpeg")
        # the die rolled, never the text page or the d20 that lay on the table all along
        assert math.dist(r["center"], place(i)) < 40, (i, r["center"])
        assert min(math.dist(r["center"], p) for p in (PAGE, LYING)) > 300
        # a half-taught set proposes nothing alone ("untrusted": the head not yet backed by the owner's word)
        assert r["by"] in ("", "ocr", "disagree", "untrusted") or i >= 20
        right_later += i >= 20 and r["proposed"] == face and r["by"] in ("match", "both")
        if i == 59:  # three rounds: every face short of N_EACH
            with pytest.raises(ValueError, match=r"taught too few times \(every face 4 times\)"):
                table.teach({"action": "save"}, "ann")
            assert got["short"] == list(range(1, 21)) and not got["missing"]
        if i == 5:
            assert got["missing"] == list(range(6, 21)) and got["short"] == [1, 2, 3, 4, 5]
        answer = {"action": "answer", "roll": r["n"], "face": face}
        said = table.teach(answer, "ann")["message"]
        assert said.startswith(f"roll {i + 1} taught as {face}")
    # every face taught, the crops taught propose the faces of later rolls (each a quarter turn on)
    assert right_later >= 0.9 * 60, right_later
    status = table.teach({"action": "status"}, "ann")
    assert status["complete"] and status["taught"] == 80 and not status["missing"]
    saved = table.teach({"action": "save"}, "ann")
    assert "the table reads with it now" in saved["message"] and not saved["on"]
    stored = load_set(table.cfg.dice_set_path)  # the file `learn-dice confirm` writes
    assert stored.name == "ann's green d20" and stored.kind == "d20" and stored.faces == list(range(1, 21))
    assert len(stored.values) == 80
    # the table reads against its roster (issue 44 item 4): the die's entry, its faces the crops taught
    assert table.perceiver.reader.learnt.name == "ann-green-d20" and table.perceiver.roster is not None
    own = table.perceiver.reader.learnt
    assert len(own.values) == 80 and own.entry == "ann/green"
    assert table.snapshot()["teaching"] is None and "teach" not in table.snapshot()["waiting_for"]
    # a table started again reads against the roster from its config
    assert _table(tmp_path, resume=True).perceiver.reader.learnt.name == "ann-green-d20"
    steps = [e.data["step"] for e in table.log.controls("teach")]
    assert steps == ["start", *["roll", "answer"] * 80, "saved"]


@needs_real
def test_a_restarted_table_carries_on_the_session_losing_nothing_taught(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.teach(START, "ann")
    for i, face in enumerate((7, 12, 7)):
        r = _settle(table, roll(face, i), 1.0 + i)["roll"]
        if i == 0:
            table.teach({"action": "answer", "roll": r["n"], "face": face}, "ann")
        elif i == 1:
            table.teach({"action": "skip", "roll": r["n"]}, "ann")
    # the process dies; the table starts again from its log
    again = _table(tmp_path, resume=True)
    status = again.teach({"action": "status"}, "ann")
    assert status["on"] and status["session"]["name"] == "ann's green d20" and status["rolls"] == 3
    assert status["taught"] == 1 and status["short"] == [7]
    assert status["roll"]["n"] == 3 and not status["roll"]["answered"]
    assert status["roll"]["crop"].startswith("data:image/jpeg")  # the crop kept beside the log
    assert again.teach({"action": "answer", "roll": 3, "face": 7}, "ann")["taught"] == 2
    again.teach({"action": "cancel"}, "ann")
    assert not _table(tmp_path, resume=True).teaching.on
    assert not again.cfg.dice_set_path.exists()


@needs_real
def test_a_nudged_die_is_said_not_counted_and_a_roll_that_lands_there_again_counts(tmp_path: Path) -> None:
    """A die pushed a little after it settled (the same face up, a few degrees, a few millimetres)
    is the last roll again: said, logged, never a second crop of the same look.  The same face
    come to rest at the same place a quarter turn round, or another face there, is a new roll."""
    table = _table(tmp_path)
    table.teach(START, "ann")
    first = _settle(table, roll(7, 0), 1.0)["roll"]
    table.teach({"action": "answer", "roll": first["n"], "face": 7}, "ann")
    for t, (shift, degrees) in enumerate((((14, -9), 7.0), ((-10, 18), -4.0)), 2):  # (11 degrees back)
        got = _settle(table, nudged(7, 0, shift, degrees), float(t))
        assert got["rolls"] == 1, got["roll"]
        assert got["notice"].startswith("nudged, not a new roll: roll 1 (it still shows 7)"), got["notice"]
        assert got["faces"][6] == {"face": 7, "taught": 1}
    steps = [e.data["step"] for e in table.log.controls("teach")]
    assert steps == ["start", "roll", "answer", "nudged", "nudged"]
    # rolled again, and it came to rest where it lay, the same face up, a quarter turn round
    again = _settle(table, nudged(7, 0, (0, 0), 0.0, turns=1), 4.0)
    assert again["rolls"] == 2 and again["notice"] is None
    third = _settle(table, nudged(13, 0, (5, 0), 0.0, turns=1), 5.0)  # another face there
    assert third["rolls"] == 3 and third["roll"]["proposed"] != 13  # (the reader proposes another face)
    table.teach({"action": "answer", "roll": 3, "face": 13}, "ann")
    # nudged, and now the reader proposes 13: the face its owner named, so the same face
    got = _settle(table, nudged(13, 0, (15, 6), 5.0, turns=1), 5.5)
    assert got["rolls"] == 3 and got["roll"]["face"] == 13, got["roll"]
    assert got["notice"].startswith("nudged, not a new roll: roll 3 (it still shows 13)"), got["notice"]
    # a table started again takes up where the die was nudged to, and knows a nudge of the last roll
    restarted = _table(tmp_path, resume=True)
    assert restarted.teaching.rolls[0].center == table.teaching.rolls[0].center
    assert restarted.teach({"action": "status"}, "ann")["rolls"] == 3
    assert _settle(restarted, roll(7, 4), 6.0)["rolls"] == 4
    again = _table(tmp_path, resume=True)
    got = _settle(again, nudged(7, 4, (12, -8), 6.0), 7.0)
    assert got["rolls"] == 4 and got["notice"].startswith("nudged, not a new roll: roll 4"), got["notice"]


def test_bad_steps_are_refused_naming_what_was_expected(tmp_path: Path) -> None:
    table = _table(tmp_path)
    for command, message in [
        ({"action": "save"}, "'save': no die is being taught: start a session first"),
        ({"action": "fly"}, "action: expected one of status, start, answer, skip, save, cancel, got 'fly'"),
        ({**START, "kind": "d6"}, "kind: expected one of the numbered kinds the table's game 'die-angler' "),
        ({**START, "kind": "d12"}, "uses (d10, d20), got 'd12'"),
        ({**START, "owner": " "}, "owner: expected a name of 1 to 40 characters, got ' '"),
    ]:
        with pytest.raises(ValueError) as e:
            table.teach(command, "ann")
        assert message in str(e.value), (command, str(e.value))
    table.teach(START, "ann")
    for command, message in [
        (START, "'start': ann's green d20 is being taught: save it or cancel it first"),
        ({"action": "answer", "roll": 1, "face": 3}, "roll: expected the number of a roll of this session"),
        (
            {"action": "save"},
            "faces 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 not taught",
        ),
    ]:
        with pytest.raises(ValueError) as e:
            table.teach(command, "ann")
        assert message in str(e.value), (command, str(e.value))
    # a settled frame while no empty table was seen: said, nothing taught
    table.on_settled(np.full((480, 640, 3), 90, np.uint8), 1.0, 1.0)
    assert "has not seen the table empty" in table.teaching.notice and not table.teaching.rolls
    # a pip-dice game has nothing to teach; a table with no dice_set has nowhere to keep it
    hunter = _table(tmp_path / "h", _cfg("dice-hunter"))
    with pytest.raises(ValueError, match="uses d6 dice: pip dice are read by their pips"):
        hunter.teach(START, "ann")
    bare = _table(tmp_path / "b", _cfg(kinds=["d6", "d10", "d20"], dice_set=None))
    assert "has no [table] dice_set" in bare.teach({"action": "status"}, "ann")["why_not"]


@needs_real
def test_a_face_out_of_the_kinds_range_is_refused(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.teach(START, "ann")
    _settle(table, roll(4, 0), 1.0)
    for face in (0, 21, "4", True, None):
        with pytest.raises(ValueError, match=rf"face: a d20 shows 1\.\.20, got {face!r}"):
            table.teach({"action": "answer", "roll": 1, "face": face}, "ann")
    assert table.teach({"action": "status"}, "ann")["taught"] == 0


class _Camera:
    """A camera that shows ``shots`` in turn, each held for ``hold`` seconds at 10 frames a second."""

    name = "test"

    def __init__(self, shots: list[np.ndarray], hold: float = 1.5) -> None:
        self.frames = [
            (s, round(i * hold + k * 0.1, 2)) for i, s in enumerate(shots) for k in range(int(hold * 10))
        ]

    def read(self) -> Frame | None:
        if not self.frames:
            return None
        image, t = self.frames.pop(0)
        return Frame(image, t, "test")


@needs_real
def test_the_live_loop_gives_the_settled_rolls_and_the_empty_table_the_gate_saw(tmp_path: Path) -> None:
    """`dicetable run`'s loop (`controller.live.play`, the motion gate): while a die is taught, each
    roll that comes to rest is taught against the empty table the gate saw between rolls."""
    table = _table(tmp_path)
    table.teach(START, "ann")
    empty = empty_table()
    play(table, _Camera([empty, roll(9, 0), empty, roll(14, 1), empty, roll(2, 2, also=6)]))
    status = table.teach({"action": "status"}, "ann")
    assert status["rolls"] == 2, status["notice"]
    assert [math.dist(r.center, place(i)) < 40 for i, r in enumerate(table.teaching.rolls)] == [True, True]
    assert "leave one die only" in status["notice"]
    # the game never read them: no reading logged, nothing scored
    assert not [e for e in table.log.events(table.game_no) if e.kind in ("reading", "input")]


@needs_real
@pytest.mark.slow
def test_a_second_die_of_the_kind_joins_the_stored_set_and_another_kind_must_replace_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(teach, "N_EACH", 1)  # every face once completes a set here
    table = _table(tmp_path)
    for owner in ("ann", "bob"):
        table.teach({**START, "owner": owner}, owner)
        for i in range(20):
            r = _settle(table, roll(i + 1, i), 1.0 + i)["roll"]
            table.teach({"action": "answer", "roll": r["n"], "face": i + 1}, owner)
        said = table.teach({"action": "save"}, owner)["message"]
    assert 'joining "ann\'s green d20"' in said, said
    stored = load_set(table.cfg.dice_set_path)
    assert stored.name == "ann's green d20 + bob's green d20" and len(stored.values) == 40
    # read against the roster: one set a die, ann's and bob's (issue 44 item 4)
    assert table.perceiver.reader.learnt.name == "ann-green-d20+bob-green-d20"
    d10 = {**START, "kind": "d10"}
    with pytest.raises(ValueError, match=r"the table keeps one set, of d20 .* start with replace to do so"):
        table.teach(d10, "cid")
    assert table.teach({**d10, "replace": True}, "cid")["session"]["name"] == "ann's green d10"


@needs_real
def test_a_die_is_taught_against_the_empty_table_the_table_learnt(tmp_path: Path) -> None:
    """The live loop gives the table no empty frame with a settled one any more: the table's own
    picture (controller.empty_learn, the gate's first empty frame here) is the one taught against."""
    table = _table(tmp_path)
    table.teach(START, "ann")
    assert table.see_board(empty_table(), 0.0, "empty", gate_empty=empty_table())
    table.on_settled(roll(7, 0), 1.0, 1.0)
    got = table.teach({"action": "status"}, "ann")
    assert got["notice"] is None and got["rolls"] == 1, got
