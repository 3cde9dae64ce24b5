"""The parts the Table is a facade over, each alone: the log's part, the script, the corrections."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.adapters import TableReadings
from controller.corrections import answer, check_command, next_status, reopen
from controller.eventlog import EventLog, LogWriteError
from controller.ledger import HeldWrite, apply_step, open_game, position_mark, resume_point
from controller.scenario import Setup, new_game
from controller.script import Script, Scripted, select_reading
from engine import Input, InputKind, RuleError

SETUP = Setup("dice-hunter", ("ann", "bob", "cid"), {"deck": "virtual"}, 3)
ROLL = Input(InputKind.ROLL, "ann", {"dice": [3, 3, 3, 5, 6]})


# -- the log's part (controller.ledger) ----------------------------------------------------------
def test_a_step_the_log_refuses_leaves_the_game_as_it_was() -> None:
    game = new_game(SETUP)
    before = game.state

    def refuse(applied: object) -> list[int]:
        raise LogWriteError(Path("t.sqlite3"), sqlite3.OperationalError("database or disk is full"))

    with pytest.raises(LogWriteError):
        apply_step(game, [ROLL], refuse)
    assert game.state == before


def test_a_step_the_engine_refuses_in_part_applies_none_of_it() -> None:
    game = new_game(SETUP)
    before = game.state
    written: list[object] = []
    bad = Input(InputKind.ROLL, "bob", {"dice": [1, 2, 3, 4, 6]})  # not bob's turn
    with pytest.raises(RuleError):
        apply_step(game, [ROLL, bad], lambda applied: written.append(applied) or [])
    assert game.state == before and written == []


def test_a_logged_step_returns_the_game_after_it_and_the_seqs(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    game_no, game, resumed = open_game(log, SETUP, resume=True)
    assert not resumed
    rows = position_mark(2.5, "camera", script=1, edges=4, inputs=1)
    after, outcomes, seqs = apply_step(
        game, [ROLL], lambda applied: log.append_inputs(game_no, applied, "camera", before=rows)
    )
    assert after.state["roll"] == 1 and len(outcomes) == 1 and len(seqs) == 1
    assert resume_point(log.events(game_no)) == {
        "action": "position",
        "t": 2.5,
        "via": "camera",
        "script": 1,
        "edges": 4,
        "inputs": 1,
    }
    again_no, again, resumed = open_game(log, SETUP, resume=True)
    assert (again_no, resumed) == (game_no, True) and again.state == after.state
    log.close()


def test_a_held_write_is_handed_back_once_retry_s_has_passed() -> None:
    held = HeldWrite(retry_s=2.0)
    calls: list[int] = []
    error = LogWriteError(Path("t.sqlite3"), sqlite3.OperationalError("database or disk is full"))
    notice = held.hold(error, lambda: calls.append(1), now=10.0)
    assert "tries again every 2 s" in notice and held.waiting
    assert held.due(11.9) is None and held.waiting
    retry = held.due(12.0)
    assert retry is not None and not held.waiting
    retry()
    assert calls == [1]


# -- the recorded script (controller.script) ------------------------------------------------------
def test_a_script_splits_presses_from_lines_and_skips_what_a_resumed_game_used() -> None:
    script = Script()
    has_presses = script.load(
        [
            Scripted(1.0, "button", player="ann", press="select"),
            Scripted(2.0, "admin", input=ROLL),
            Scripted(3.0, "admin", correction={"action": "confirm"}),
        ]
    )
    assert has_presses and len(script.edges) == 2 and len(script.lines) == 2
    assert [e.pressed for e in script.due_edges(1.0)] == [True]
    assert script.edges_driven == 1
    assert script.next_due(1.5) is None
    item = script.take()
    assert item.input == ROLL and script.consumed == 1
    script.put_back(item)
    assert script.consumed == 0 and script.next_due(2.0) == item
    script.skip_to({"script": 1, "edges": 2})
    assert (script.consumed, script.edges_driven, script.edges) == (1, 2, [])
    assert [s.t for s in script.lines] == [3.0]


def test_a_script_names_a_die_by_colour_and_place() -> None:
    dice = [
        {"id": "r1.1", "colour": "red", "center": [10, 10]},
        {"id": "r1.2", "colour": "blue", "center": [12, 12]},
        {"id": "r1.3", "colour": "red", "center": [90, 90]},
    ]
    assert select_reading(dice, (), {"colour": "red", "center_px": [80, 80]}) == "r1.3"
    assert select_reading(dice, ("r1.2",), None) == "r1.2"
    assert select_reading(None, (), {"colour": "red"}) is None
    with pytest.raises(ValueError, match="'die' must be an object"):
        select_reading(dice, (), "red")


# -- referee corrections (controller.corrections) -------------------------------------------------
def test_an_answer_changes_nothing_until_it_is_applied() -> None:
    rs = TableReadings(1, 0.0, [{"id": "r1.1", "kind": "d6", "value": 2, "unsure": True}])
    checked = answer("set_value", {"reading": "r1.1", "value": 5}, rs, "ref", None, ("ann",))
    assert rs.dice[0]["value"] == 2
    assert checked.row == {"correction": "set_value", "reading": "r1.1", "from": 2, "to": 5, "who": "ref"}
    checked.apply()
    assert rs.dice[0]["value"] == 5 and rs.dice[0]["confirmed"] and not rs.dice[0]["unsure"]


def test_a_hidden_die_is_added_under_the_die_it_names() -> None:
    top = {"id": "r2.1", "kind": "d6", "value": 4, "colour": "red", "stack_level": 0, "rests_on": None}
    rs = TableReadings(2, 0.0, [top])
    checked = answer("hidden", {"under": "r2.1", "colour": "Blue", "value": 3}, rs, "ref", None, ())
    checked.apply()
    hidden = rs.dice[1]
    assert (hidden["id"], hidden["colour"], hidden["stack_level"]) == ("r2.h1", "blue", 0)
    assert (top["stack_level"], top["rests_on"]) == (1, 1)
    with pytest.raises(ValueError, match="cannot show 7"):
        answer("hidden", {"under": "r2.1", "colour": "red", "value": 7}, rs, "ref", None, ())


def test_bad_corrections_are_refused_with_what_was_expected() -> None:
    with pytest.raises(ValueError, match="needs 'who'"):
        check_command({"action": "undo"}, " ")
    with pytest.raises(ValueError, match="unknown action 'dance'"):
        check_command({"action": "dance"}, "ref")
    assert check_command({"action": "undo"}, " ref ") == ("undo", "ref")
    with pytest.raises(ValueError, match="one of the players"):
        answer("set_thrower", {"thrower": "zed"}, None, "ref", "d10p", ("ann", "bob"))
    rs = TableReadings(1, 0.0, [{"id": "r1.1", "kind": "d10", "value": 70}])
    with pytest.raises(ValueError, match="a d10p die cannot show 7"):  # the game's only kind: d10p
        answer("set_value", {"reading": "r1.1", "value": 7}, rs, "ref", "d10p", ("ann",))
    with pytest.raises(ValueError, match="no reading to confirm"):
        answer("confirm", {"reading": "r1.1"}, None, "ref", None, ("ann",))


def test_the_referees_status_commands() -> None:
    assert next_status("playing", "pause") == "paused"
    assert next_status("paused", "start") == "playing"
    assert next_status("paused", "end") == "over"
    with pytest.raises(ValueError, match="only a playing game can be paused"):
        next_status("paused", "pause")
    with pytest.raises(ValueError, match="already over"):
        next_status("over", "end")


def test_undoing_every_input_a_reading_set_scored_reopens_it() -> None:
    rs = TableReadings(1, 0.0, [], applied=True, input_seqs=(4, 5))
    reopen(rs, 5)
    assert rs.applied and rs.input_seqs == (4,)
    reopen(rs, 4)
    assert not rs.applied
