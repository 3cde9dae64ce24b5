"""The table loop with a scripted camera: what it scores, what it asks, and what it never shows."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.live import load_script
from controller.script import Scripted
from controller.session import mock_pins
from controller.table import Table, TableError
from engine import Input
from hardware import patterns
from hardware.feedback import LedFeedback
from hardware.leds import open_matrix

IMAGE = np.zeros((48, 64, 3), np.uint8)


class Camera:
    """A reader that returns whatever the test says the camera sees next."""

    def __init__(self) -> None:
        self.next: list[dict[str, Any]] = []

    def __call__(self, image: np.ndarray) -> list[dict[str, Any]]:
        return [dict(d) for d in self.next]


def d6(value: int, colour: str = "red", conf: float = 0.99, x: float = 10.0, **kw: Any) -> dict[str, Any]:
    return {"kind": "d6", "value": value, "confidence": conf, "colour": colour, "center": [x, 10.0], **kw}


def make_table(
    tmp_path: Path, game: str, players: list[dict[str, Any]], options: dict[str, Any] | None = None
) -> tuple[Table, Camera, list[dict[str, Any]]]:
    for i, p in enumerate(players):
        p.setdefault("pins", mock_pins(i).model_dump())
    cfg = parse_config({"table": {"game": game, "options": options or {}, "seed": 3}, "players": players})
    cam = Camera()
    snaps: list[dict[str, Any]] = []
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"), reader=cam, listeners=[snaps.append], resume=False)
    return table, cam, snaps


def press(t: float, player: str, button: str, hold: float = 0.0) -> Scripted:
    return Scripted(t, "button", player=player, press=button, hold=hold)


def run_until(table: Table, t_end: float, step: float = 0.05, t0: float = 0.0) -> None:
    for t in np.arange(t0, t_end, step):
        table.tick(float(t))


def settle(table: Table, cam: Camera, dice: list[dict[str, Any]], t: float) -> None:
    cam.next = dice
    table.on_settled(IMAGE, t, t)


HUNTERS = [
    {"name": "ann", "colour": "red"},
    {"name": "bob", "colour": "blue"},
    {"name": "cid", "colour": "green"},
]


@pytest.fixture
def hunter(tmp_path: Path) -> Iterator[tuple[Table, Camera, list[dict[str, Any]]]]:
    table, cam, snaps = make_table(tmp_path, "dice-hunter", [dict(p) for p in HUNTERS], {"deck": "virtual"})
    yield table, cam, snaps
    table.log.close()


# -- unsure means ask ---------------------------------------------------------------------------------


def test_a_sure_roll_is_scored_at_once(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(v) for v in (3, 3, 3, 5, 6)], 1.0)
    assert table.question is None
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert table.snapshot()["state"]["expects"]["kind"] == "choice"


def test_an_unsure_reading_is_asked_and_scored_only_after_a_confirmation(hunter: Any) -> None:
    table, cam, snaps = hunter
    settle(table, cam, [d6(3), d6(3), d6(3, conf=0.5), d6(5), d6(6)], 1.0)
    snap = table.snapshot()
    assert snap["question"]["kind"] == "unsure" and snap["question"]["readings"] == ["r1.3"]
    assert snap["state"]["expects"]["kind"] == "roll", "nothing may be scored before the answer"
    led = LedFeedback(open_matrix("emu://", 16, 16))
    try:
        assert np.array_equal(led.frames_for(snap)[-1], patterns.question(16, 16))
    finally:
        led.close()
    table.correct({"action": "confirm", "reading": "r1.3"}, "ref")
    assert table.question is None
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert snaps[-1]["question"] is None


def test_a_corrected_value_is_what_gets_scored(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(3), d6(3), d6(2, conf=0.4), d6(5), d6(6)], 1.0)
    table.correct({"action": "set_value", "reading": "r1.3", "value": 3}, "ref")
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]


def test_a_wrong_die_count_is_asked_and_a_rethrow_answers_it(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(3), d6(3), d6(5), d6(6)], 1.0)
    assert table.question is not None and table.question.kind == "count"
    assert "4 dice" in table.question.text and "needs 5" in table.question.text
    table.correct({"action": "confirm", "reading": "r1.1"}, "ref")  # confirming cannot make 4 dice 5
    assert table.question is not None and table.game.state["expects"]["kind"] == "roll"
    settle(table, cam, [d6(v) for v in (1, 2, 3, 4, 5)], 3.0)
    assert table.question is None and table.game.state["dice"] == [1, 2, 3, 4, 5]


def test_a_cocked_die_is_asked_about(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(3), d6(3), d6(3, cocked=True), d6(5), d6(6)], 1.0)
    assert table.question is not None and table.question.kind == "cocked"
    assert table.game.state["expects"]["kind"] == "roll"
    table.correct({"action": "set_value", "reading": "r1.3", "value": 4}, "ref")
    assert table.game.state["dice"] == [3, 3, 4, 5, 6]


def test_a_throw_is_read_only_when_the_game_expects_one(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(v) for v in (3, 3, 3, 5, 6)], 1.0)
    settle(table, cam, [d6(v) for v in (1, 1, 1, 1, 1)], 2.0)  # someone fiddles before choosing
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert table.reading_set is not None and table.reading_set.seq == 1


def test_a_corrupt_frame_changes_nothing_and_says_so(hunter: Any) -> None:
    table, _, _ = hunter

    def broken(image: np.ndarray) -> list[Any]:
        raise ValueError("expected a BGR uint8 image, got shape (3,)")

    table.reader = broken
    table.on_settled(IMAGE, 1.0, 1.0)
    assert table.game.state["expects"]["kind"] == "roll"
    assert "could not be read" in (table.snapshot()["notice"] or "")


def test_a_fault_in_the_reader_loses_nothing_and_says_so(hunter: Any) -> None:
    table, cam, _ = hunter

    def broken(image: np.ndarray) -> list[Any]:
        raise IndexError("index 3 is out of bounds for axis 0 with size 3")

    table.reader = broken
    table.on_settled(IMAGE, 1.0, 1.0)
    assert table.game.state["expects"]["kind"] == "roll"
    assert "IndexError" in (table.snapshot()["notice"] or "")
    table.reader = cam
    settle(table, cam, [d6(v) for v in (1, 2, 3, 4, 5)], 2.0)  # the next throw is read as usual
    assert table.question is None and len(table.rest_times) == 1


# -- scripted choices, corrections and presses ----------------------------------------------------------


def test_scripted_choices_wait_for_the_roll_they_follow(hunter: Any) -> None:
    table, cam, _ = hunter
    table.pending = [
        Scripted(
            0.5,
            "button",
            input=Input.from_json({"type": "choice", "player": "ann", "take": "trio"}),
        )
    ]
    table.tick(1.0)
    assert table.pending, "the choice waits: the roll has not been read"
    settle(table, cam, [d6(v) for v in (3, 3, 3, 5, 6)], 1.5)
    table.tick(1.6)
    assert table.game.state["holdings"]["ann"] == ["trio"]


def test_a_scripted_correction_answers_the_question_when_it_is_asked(hunter: Any, tmp_path: Path) -> None:
    table, cam, _ = hunter
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"t": 0.5, "source": "admin", "correction": {"action": "confirm"}, "who": "ref"})
    )
    table.pending = load_script(script)
    table.tick(0.6)
    assert table.pending, "a confirmation waits for a question"
    settle(table, cam, [d6(3), d6(3), d6(3, conf=0.5), d6(5), d6(6)], 1.0)
    table.tick(1.1)
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    corrections = [e for e in table.log.events(table.game_no) if e.source == "correction"]
    assert corrections and corrections[0].data["who"] == "ref"


def test_a_malformed_script_line_is_named(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text('{"t": 1, "input": {"type": "roll"}}\n{"t": 2, "press": "sideways", "player": "ann"}\n')
    with pytest.raises(TableError, match=r"script.jsonl:2: .*press"):
        load_script(script)


# -- secret selections on the panels ---------------------------------------------------------------------

ANGLERS = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]


def choose(player: str, t: float, ups: int) -> list[Scripted]:
    """Click ``up`` n times, then hold ``confirm``."""
    out = [press(t + 0.3 * i, player, "up") for i in range(ups)]
    return [*out, press(t + 0.3 * ups, player, "confirm", hold=1.2)]


def test_secret_choices_go_through_the_gpio_panels_and_stay_hidden_until_the_reveal(tmp_path: Path) -> None:
    table, _cam, snaps = make_table(tmp_path, "die-angler", [dict(p) for p in ANGLERS], {"deck": "virtual"})
    assert table.game.expects().kind.value == "secret"
    table.pending = choose("ann", 0.5, 3) + choose("bob", 2.0, 1)
    run_until(table, 3.0)  # ann has confirmed (t=2.6), bob is still holding (until t=3.5)
    seen = json.dumps([s for s in snaps]) + json.dumps(table.snapshot())
    seen += json.dumps([e.to_json() for e in table.log.events(table.game_no)])
    assert table.snapshot()["secret"]["confirmed"] == ["ann"]
    assert '"d6": 3' not in seen and '"d6": 1' not in seen, "a choice leaked before the reveal"
    run_until(table, 4.5, t0=3.0)
    sel = table.game.state["selections"]
    assert sel["ann"]["d6"] == 3 and sel["bob"]["d6"] == 1
    inputs = [e for e in table.log.events(table.game_no) if e.kind == "input"]
    assert {e.source for e in inputs} == {"button"}
    table.log.close()


def test_die_angler_reads_each_players_colour_from_one_simultaneous_throw(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "die-angler", [dict(p) for p in ANGLERS], {"deck": "virtual"})
    table.pending = choose("ann", 0.5, 2) + choose("bob", 0.5, 2)
    run_until(table, 3.0)
    exp = table.game.expects()
    assert exp.kind.value == "roll" and set(exp.players) == {"ann", "bob"}
    # another colour on the table (a die left from before) is not either player's
    settle(table, cam, [d6(4, "red"), d6(2, "blue"), d6(6, "red"), d6(1, "blue"), d6(5, "green")], 3.5)
    assert table.question is None
    rolls = table.game.state["last_bout"]["rolls"]
    assert sorted(d["value"] for d in rolls["ann"]["dice"]) == [4, 6]
    assert sorted(d["value"] for d in rolls["bob"]["dice"]) == [1, 2]
    table.log.close()


def test_die_angler_asks_when_a_player_shows_too_many_dice(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "die-angler", [dict(p) for p in ANGLERS], {"deck": "virtual"})
    table.pending = choose("ann", 0.5, 1) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    settle(table, cam, [d6(4, "red"), d6(6, "red"), d6(1, "blue")], 3.5)
    assert table.question is not None and table.question.kind == "count"
    assert "red dice of ann" in table.question.text
    assert table.game.expects().kind.value == "roll"
    table.log.close()


def test_a_die_read_in_the_wrong_colour_is_fixed_by_its_colour_and_then_scored(tmp_path: Path) -> None:
    """Issue 34 item 2: the colour of a misread die is corrected like its value (``set_colour``)."""
    table, cam, _ = make_table(tmp_path, "die-angler", [dict(p) for p in ANGLERS], {"deck": "virtual"})
    table.pending = choose("ann", 0.5, 1) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    settle(table, cam, [d6(4, "red"), d6(6, "red")], 3.5)  # bob's blue 6 read as red
    assert table.question is not None and table.question.kind == "count"
    for bad in ({"colour": "mauve"}, {"colour": None}, {"colour": "blue", "reading": "r9.9"}):
        with pytest.raises(ValueError):
            table.correct({"action": "set_colour", "reading": "r1.2", **bad}, "ref")
    assert table.game.expects().kind.value == "roll", "a refused correction changes nothing"
    out = table.correct({"action": "set_colour", "reading": "r1.2", "colour": "blue"}, "ref")
    assert out["ok"] and table.question is None
    rolls = table.game.state["last_bout"]["rolls"]
    assert [d["value"] for d in rolls["ann"]["dice"]] == [4]
    assert [d["value"] for d in rolls["bob"]["dice"]] == [6]
    logged = [e.data for e in table.log.events(table.game_no) if e.data.get("correction") == "set_colour"]
    assert logged == [
        {"correction": "set_colour", "reading": "r1.2", "from": "red", "to": "blue", "who": "ref"}
    ]
    table.log.close()


# -- Dice Fighter: the owner of an off-field die is asked, never guessed ------------------------------------


def d10p(value: int, colour: str, side: str | None, status: str = "field", **kw: Any) -> dict[str, Any]:
    die = {"kind": "d10p", "value": value, "confidence": 0.99, "colour": colour, "field_status": status}
    if side:
        die["side"] = side
    return {**die, **kw}


def test_dice_fighter_asks_who_threw_an_off_field_die(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "dice-fighter", [dict(p) for p in ANGLERS])
    table.pending = choose("ann", 0.5, 0) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    assert table.game.expects().kind.value == "throw", table.game.expects()
    throw = [
        d10p(70, "red", "a"),
        d10p(50, "blue", "a"),
        d10p(90, "red", "b"),
        d10p(40, "blue", "b"),
        d10p(40, "green", "b"),
        d10p(30, "green", None, "off"),
    ]
    settle(table, cam, throw, 3.5)
    q = table.question
    assert q is not None and q.kind == "owner" and q.readings == ("r1.6",)
    assert table.game.expects().kind.value == "throw", "never scored on a guess"
    with pytest.raises(ValueError, match="thrower"):
        table.correct({"action": "set_thrower", "reading": "r1.6", "thrower": "zed"}, "ref")
    table.correct({"action": "set_thrower", "reading": "r1.6", "thrower": "bob"}, "ref")
    assert table.question is None
    dice = table.game.state["dice"]
    assert dice[5]["rung_out"] and dice[5]["thrower"] == "bob"
    table.log.close()


# -- DICETAR WARS: the whole board, both colours, stacks by index --------------------------------------------

WARRIORS = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]


def board_die(value: int, colour: str, zone: str | None = "x3", **kw: Any) -> dict[str, Any]:
    die = d6(value, colour, field_status="field" if zone else "off", zones=[zone] if zone else [])
    return {**die, **kw}


def test_dicetar_wars_takes_the_players_dice_and_ignores_other_colours(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "dicetar-wars", [dict(p) for p in WARRIORS])
    zone = next(iter(table.game.state["zones"]))
    first = [board_die(v, "red", zone) for v in (1, 2, 3, 4, 5)]
    settle(table, cam, [*first, d6(6, "black")], 2.0)  # a marker misread as a black die
    assert table.question is None
    assert table.game.state["step"] == "second_throw"
    settle(table, cam, first[:4], 4.0)  # a red die is missing from the second throw
    assert table.question is not None and table.question.kind == "count"
    table.log.close()


def test_dicetar_wars_stacked_die_keeps_its_support_by_index(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "dicetar-wars", [dict(p) for p in WARRIORS])
    zone = next(iter(table.game.state["zones"]))
    mult = table.game.state["zones"][zone]
    settle(table, cam, [board_die(v, "red", zone) for v in (1, 1, 1, 1, 1)], 2.0)
    blues = [board_die(1, "blue", zone) for _ in range(4)]
    stacked = d6(6, "blue", stack_level=1, rests_on=0, zones=[zone])
    settle(table, cam, [board_die(1, "red", zone) for _ in range(5)] + blues + [stacked], 4.0)
    assert table.question is None, table.question
    assert table.game.state["provisional"]["bob"] == 4 * mult + 6 * mult * 4
    table.log.close()


def test_a_die_hidden_under_another_is_asked_for_then_scored_under_it(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "dicetar-wars", [dict(p) for p in WARRIORS])
    zone = next(iter(table.game.state["zones"]))
    mult = table.game.state["zones"][zone]
    settle(table, cam, [board_die(1, "red", zone, center=[20.0 * i, 10.0]) for i in range(5)], 2.0)
    # bob's fifth die lies on a red one: the camera sees four reds (one hidden) and five blues
    reds = [board_die(1, "red", zone, center=[20.0 * i, 10.0]) for i in range(4)]
    blues = [board_die(1, "blue", zone, center=[200.0 + 20 * i, 10.0]) for i in range(4)]
    top = board_die(6, "blue", zone, center=[300.0, 10.0], stack_level=0)
    settle(table, cam, reds + blues + [top], 4.0)
    q = table.question
    assert q is not None and q.kind == "count" and "under another" in q.text
    assert table.game.state["step"] == "second_throw"  # nothing scored
    top_id = table.reading_set.dice[-1]["id"]  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="cannot show 7"):
        table.correct({"action": "hidden", "under": top_id, "colour": "red", "value": 7}, "ref")
    with pytest.raises(ValueError, match="not in the latest frame"):
        table.correct({"action": "hidden", "under": "r9.9", "colour": "red", "value": 2}, "ref")
    table.correct({"action": "hidden", "under": top_id, "colour": "red", "value": 2}, "ref")
    assert table.question is None
    assert table.game.state["provisional"]["bob"] == 4 * mult + 6 * mult * 4
    assert table.game.state["provisional"]["ann"] == 4 * mult + 2 * mult
    log = [e.data for e in table.log.events(table.game_no) if e.data.get("correction") == "hidden"]
    assert log and log[0]["under"] == top_id and log[0]["value"] == 2 and log[0]["who"] == "ref"
    table.log.close()


def test_dice_fighter_asks_about_a_die_on_an_empty_card_slot(tmp_path: Path) -> None:
    table, cam, _ = make_table(tmp_path, "dice-fighter", [dict(p) for p in ANGLERS])
    table.pending = choose("ann", 0.5, 0) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    laid = {c["slot"] for p in table.game.state["players"].values() for c in p["power_cards"]}
    empty = "bob-power-9"
    assert empty not in laid
    throw = [
        d10p(70, "red", "a"),
        d10p(50, "blue", "a"),
        d10p(90, "red", "b"),
        d10p(40, "blue", "b"),
        d10p(40, "green", "b"),
        d10p(30, "green", None, "card_slot", card_slot=empty),
    ]
    settle(table, cam, throw, 3.5)
    assert table.question is not None and table.question.kind == "owner"
    assert table.game.expects().kind.value == "throw"
    table.log.close()


def test_a_choice_can_be_made_on_the_panel(hunter: Any) -> None:
    table, cam, _ = hunter
    settle(table, cam, [d6(v) for v in (3, 3, 3, 5, 6)], 1.0)
    table.tick(1.1)
    options = table.game.choices("ann")
    labels = [label for label, _ in options]
    assert "take trio" in labels and "keep 3 3 3" in labels
    want = labels.index("keep 3 3 3")
    ups = [press(1.5 + 0.3 * i, "ann", "up") for i in range(want)]
    confirm = press(1.5 + 0.3 * want, "ann", "confirm", hold=1.2)
    table.pending = [*ups, confirm, press(1.6, "bob", "confirm", hold=1.2)]  # not bob's turn: ignored
    run_until(table, 1.5 + 0.3 * want + 1.5, t0=1.2)
    assert table.game.state["kept"] == [3, 3, 3]
    assert table.game.expects().kind.value == "roll"
    inputs = [e for e in table.log.events(table.game_no) if e.kind == "input"]
    assert inputs[-1].source == "button" and inputs[-1].data == {
        "type": "choice",
        "player": "ann",
        "keep": [3, 3, 3],
    }


def test_a_refused_secret_selection_logs_nothing_and_everyone_chooses_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.die_angler import DieAngler

    table, _cam, _ = make_table(tmp_path, "die-angler", [dict(p) for p in ANGLERS], {"deck": "virtual"})

    def too_many(self: Any, values: Any) -> Any:  # a panel menu whose payload has a count the rules refuse
        return {"d6": 9, "specials": {}}

    monkeypatch.setattr(DieAngler, "secret_payload", too_many)
    table.pending = choose("ann", 0.5, 1) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    assert "refused" in (table.snapshot()["notice"] or "")
    assert not [e for e in table.log.events(table.game_no) if e.kind == "input"], "no selection may be logged"
    assert table.game.expects().kind.value == "secret" and set(table.game.expects().players) == {"ann", "bob"}
    assert table.secret_round is not None and table.secret_round.status.value == "selecting"
    table.log.close()


def test_the_tables_measured_palette_names_the_dice_colours(tmp_path: Path, monkeypatch: Any) -> None:
    from vision.reader import default_reader
    from vision.reading import Examined

    path = tmp_path / "palette.json"
    path.write_text(json.dumps({"red": {"lab": [40.0, 60.0, 40.0]}, "blue": {"bgr": [170, 90, 30]}}))
    seen: list[Any] = []
    monkeypatch.setattr(
        default_reader(), "examine", lambda image, palette=None, *_: seen.append(palette) or Examined([], [])
    )
    cfg = parse_config(
        {"table": {"game": "dice-hunter", "options": {"deck": "virtual"}}, "camera": {"palette": str(path)}}
    )
    table = Table(cfg, EventLog(tmp_path / "p.sqlite3"), resume=False)
    assert table.game.expects().kind.value == "roll"
    table.on_settled(IMAGE, 1.0, 1.0)
    assert len(seen) == 1 and sorted(seen[0].lab) == ["blue", "red"]
    table.log.close()


def test_a_bad_palette_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "palette.json"
    path.write_text('{"red": [1, 2]}')
    cfg = parse_config({"table": {"game": "dice-hunter"}, "camera": {"palette": str(path)}})
    with pytest.raises(TableError, match=r"palette\.json"):
        Table(cfg, EventLog(tmp_path / "p.sqlite3"), resume=False)


def test_nozoku_reroll_with_a_die_count_the_rules_do_not_allow_is_asked(tmp_path: Path) -> None:
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "nozoku-dice-demo"
    truth = json.loads((folder / "truth.json").read_text())
    options = json.loads((folder / "session.json").read_text())["setup"]["options"]
    table, cam, _ = make_table(tmp_path, "nozoku-dice", [{"name": "ann", "colour": "red"}], options)
    for inp in truth["inputs"]:
        table.apply(Input.from_json(inp), "scenario")
        if table.game.expects().detail.get("roll") == "reroll":
            break
    detail = table.game.expects().detail
    centre = table.game.state["centre"]
    assert detail["roll"] == "reroll" and detail["dice"] < len(centre)
    seen = [d6(d["value"], d["colour"], x=30.0 * i) for i, d in enumerate(centre)][:-1]  # one missed
    settle(table, cam, seen, 50.0)
    q = table.question
    assert q is not None and q.kind == "count" and f"whole centre of {len(centre)}" in q.text
    assert table.game.expects().detail.get("roll") == "reroll"  # nothing scored
    table.log.close()


def test_dice_fighter_asks_about_a_die_read_as_another_kind_and_takes_the_answer_as_a_d10p(
    tmp_path: Path,
) -> None:
    table, cam, _ = make_table(tmp_path, "dice-fighter", [dict(p) for p in ANGLERS])
    table.pending = choose("ann", 0.5, 0) + choose("bob", 0.5, 1)
    run_until(table, 3.0)
    throw = [
        d10p(70, "red", "a"),
        d10p(50, "blue", "a"),
        d10p(90, "red", "b"),
        {**d10p(20, "blue", "b"), "kind": "d20"},  # the reader's guess at the kind
        d10p(40, "green", "b"),
        d10p(30, "green", "a"),
    ]
    settle(table, cam, throw, 3.5)
    q = table.question
    assert q is not None and q.kind == "unsure" and q.readings == ("r1.4",) and "d10p" in q.text
    assert table.game.expects().kind.value == "throw", "never scored on a guess"
    with pytest.raises(ValueError, match="d10p die cannot show 17"):
        table.correct({"action": "set_value", "reading": "r1.4", "value": 17}, "ref")
    table.correct({"action": "set_value", "reading": "r1.4", "value": 30}, "ref")
    assert table.question is None
    thrown = list(table.log.inputs(table.game_no))[-1].data["dice"]
    assert (thrown[3]["kind"], thrown[3]["value"], thrown[3]["colour"]) == ("d10p", 30, "blue")
    table.log.close()


def test_the_reader_names_colours_among_the_games_own(tmp_path: Path, monkeypatch: Any) -> None:
    """A red die under warm light is red, not pink, when the game's dice are red, blue and green."""
    from vision.palette import Palette
    from vision.reader import default_reader
    from vision.reading import Examined

    palettes: list[Any] = []
    monkeypatch.setattr(
        default_reader(),
        "examine",
        lambda image, palette=None, *_: palettes.append(palette) or Examined([], []),
    )
    cfg = parse_config({"table": {"game": "dicetar-wars"}, "players": [dict(p) for p in WARRIORS]})
    table = Table(cfg, EventLog(tmp_path / "c.sqlite3"), resume=False)
    table.on_settled(IMAGE, 1.0, 1.0)
    (palette,) = palettes
    assert sorted(palette.lab) == ["black", "blue", "red", "white"]
    pinkish_red = (120, 90, 230)
    assert Palette.default().nearest(pinkish_red) == "pink"
    assert palette.nearest(pinkish_red) == "red"
    table.log.close()


@pytest.mark.slow
def test_a_die_covered_by_the_next_throw_is_carried_even_across_a_restart(tmp_path: Path) -> None:
    """DICETAR WARS from the demo session's frames, read by the real reader on the real board: bob's
    blue die lands on a red die of ann's first throw.  The table restarts in between (a crash): the
    red die is still carried from the first frame, hidden under the blue one, and nobody is asked."""
    from controller.session import session_config
    from vision.reader import read_dice

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "dicetar-wars-demo"
    throws = json.loads((folder / "truth.json").read_text(encoding="utf-8"))["throws"][:2]
    frames = [cv2.imread(str(folder / t["frame"])) for t in throws]
    cfg = session_config(folder)
    db = tmp_path / "t.sqlite3"
    first = Table(cfg, EventLog(db), reader=read_dice, resume=False)
    first.on_settled(frames[0], 1.0, 1.0)
    assert first.question is None and first.game.state["step"] == "second_throw"
    scored = [d["value"] for d in first.previous]
    first.log.close()

    table = Table(cfg, EventLog(db), reader=read_dice, resume=True)
    assert table.resumed and [d["value"] for d in table.previous] == scored
    table.on_settled(frames[1], 2.0, 2.0)
    assert table.question is None, table.question
    rs = table.reading_set
    assert rs is not None and rs.applied
    # the reading ids go on from before the restart: no id of this throw names a die of the first
    assert rs.seq == 2 and not {d["id"] for d in rs.dice} & {d["id"] for d in first.previous}
    (carried,) = [d for d in rs.dice if d.get("carried")]
    truth = throws[1]["dice"]
    lower = truth[next(d["rests_on"] for d in truth if d.get("rests_on") is not None)]
    assert (carried["colour"], carried["value"]) == (lower["colour"], lower["value"])
    assert carried["seen_as"] in {d["id"] for d in first.previous}
    top = next(d for d in rs.dice if d["id"] == carried["under"])
    assert top["stack_level"] == 1 and rs.dice[top["rests_on"]] is carried
    table.log.close()


def test_the_numbered_reader_is_told_the_nadir_the_board_markers_give(tmp_path: Path) -> None:
    """Dice Fighter (percentile d10s) on its board: the table solves the board's pose from the markers
    of the settled frame and hands the numbered reader the point below the camera."""
    from controller.perceive import frame_nadir
    from controller.session import session_config

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "dice-fighter-demo"
    throw = json.loads((folder / "truth.json").read_text(encoding="utf-8"))["throws"][0]
    frame = cv2.imread(str(folder / throw["frame"]))
    given: list[Any] = []

    class Reader:  # a vision.reading.Reader that only notes the nadir of the view it is given
        def read(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
            return self.examine(image, palette, where, view).readings

        def examine(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
            from vision.reading import Examined

            given.append(None if view is None else view.nadir())
            return Examined([], [])

    table = Table(session_config(folder), EventLog(tmp_path / "t.sqlite3"), reader=Reader(), resume=False)
    assert table.geometry is not None
    for player, fighter in (("ann", "lv3-ronin"), ("bob", "lv3-titan")):  # the round's secret picks
        table.apply(Input.from_json({"type": "secret", "player": player, "fighter": fighter}), "button", 0.5)
    table.on_settled(frame, 1.0, 1.0)
    assert len(given) == 1 and given[0] is not None
    want = frame_nadir(frame, table.geometry.calibration, table.geometry.board)
    assert want is not None and math.dist(given[0], want) < 1e-6
    table.log.close()


def test_the_nadir_solved_from_the_markers_matches_the_camera_the_scene_was_rendered_with() -> None:
    from calibration.board import load_board
    from calibration.camera import pi_camera3_calibration
    from controller.perceive import frame_nadir
    from vision.numbered.topface import nadir_from_pose

    root = Path(__file__).resolve().parents[2]
    for scene in ("numbered/scene_0000", "numbered_still/scene_0001"):
        truth = json.loads((root / "tests" / "fixtures" / f"{scene}.json").read_text(encoding="utf-8"))
        img = cv2.imread(str(root / "tests" / "fixtures" / f"{scene}.jpg"))
        h, w = img.shape[:2]
        got = frame_nadir(img, pi_camera3_calibration(w, h), load_board(root / truth["board_file"]))
        want = nadir_from_pose(truth["camera"]["rvec"], truth["camera"]["camera_matrix"])
        assert got is not None and math.dist(got, want) < 0.01 * max(w, h), (scene, got, want)
    blank = np.full((960, 1280, 3), 90, np.uint8)  # no markers: no pose, no nadir
    assert frame_nadir(blank, pi_camera3_calibration(), load_board(root / truth["board_file"])) is None


# -- corrections after an undo, and an admin roll over a pending question ----------------------


def test_set_value_after_undoing_a_choice_is_refused_not_lost(hunter: Any) -> None:
    """Undoing the choice after a roll leaves the roll scored: a set_value on that roll must be
    refused (it would change nothing), until the roll itself is undone."""
    table, cam, _ = hunter
    settle(table, cam, [d6(v) for v in (3, 3, 3, 5, 6)], 1.0)
    table.correct({"action": "input", "input": {"type": "choice", "player": "ann", "take": "trio"}}, "ref")
    assert table.game.state["scores"]["ann"] == 200
    assert table.correct({"action": "undo"}, "ref")["message"] == "undid choice from ann"
    seq = table.log.count(table.game_no)
    with pytest.raises(ValueError, match="already scored: undo the last input first"):
        table.correct({"action": "set_value", "reading": "r1.4", "value": 3}, "ref")
    assert table.log.count(table.game_no) == seq, "a refused correction leaves no trace"
    assert table.game.state["dice"] == [3, 3, 3, 5, 6]
    assert table.correct({"action": "undo"}, "ref")["message"] == "undid roll from ann"
    table.correct({"action": "set_value", "reading": "r1.4", "value": 3}, "ref")
    assert table.game.state["dice"] == [3, 3, 3, 3, 6]


def test_an_admin_roll_over_a_pending_question_replaces_the_camera_reading(hunter: Any) -> None:
    """The referee types the roll while the table asks about the camera's readings: the typed roll
    is scored once, the question goes, and a later answer cannot score the camera's dice too."""
    table, cam, _ = hunter
    settle(table, cam, [d6(3), d6(3), d6(2, conf=0.4), d6(5), d6(6)], 1.0)
    assert table.question is not None
    roll = {"type": "roll", "player": "ann", "dice": [1, 1, 1, 2, 2]}
    table.correct({"action": "input", "input": roll}, "ref")
    assert table.question is None and table.snapshot()["question"] is None
    assert table.game.state["dice"] == [1, 1, 1, 2, 2]
    assert table.game.state["expects"]["kind"] == "choice"
    table.correct({"action": "confirm", "reading": "r1.3"}, "ref")  # too late: scores nothing
    assert table.game.state["dice"] == [1, 1, 1, 2, 2]
    assert table.game.state["expects"]["kind"] == "choice"
