"""Reading against the roster (issue 44 item 4): each die found is matched to one of the table's dice
(its entry: kind, owner and colour follow) and read against that die's faces; a die two dice are as
alike to, or of a taught kind and like none of them, is asked; the referee's answers add to the
entry the die was matched to (logged with the answer, undone by ``unlearn``, rebuilt from the log)."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.adapters import TableReadings
from controller.config import parse_config
from controller.eventlog import EventLog
from controller.perceive import Perceiver
from controller.roster import Die, RosterView, entry_set, save_roster
from controller.session import mock_pins
from controller.table import Table
from tests.real_photos import real_photos
from training.numbered.real import Lurig, at_table, default_root, load_lurig
from vision.numbered.learnt import ENTRY_MARGIN, DiceSet, LearntSets, Match
from vision.numbered.reader import UNCONFIRMED, Verdict, learnt_verdict

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")


def _unit(*v: float) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


def _die(die_id: str, owner: str, colour: str, s: DiceSet) -> Die:
    faces = {"dice_set": None, "taught": s.faces, "crops": len(s.values), "set": s.to_json()}
    return Die(die_id, s.kind, owner, colour, faces=faces)


def test_a_die_is_matched_to_one_entry_and_two_entries_as_alike_are_asked() -> None:
    ann = DiceSet("x", "d20", "", "e1", np.array([3, 7]), np.stack([_unit(1, 0, 0, 0), _unit(0, 1, 0, 0)]))
    bob_faces = np.stack([_unit(0.6, 0, 0.8, 0), _unit(0, 0, 0, 1)])  # bob's 3 is a little like ann's
    bob = DiceSet("y", "d20", "", "e1", np.array([3, 7]), bob_faces)
    sets = LearntSets(
        (
            entry_set(_die("ann-d20", "ann", "red", ann)),  # type: ignore[arg-type]
            entry_set(_die("bob-d20", "bob", "blue", bob)),  # type: ignore[arg-type]
        )
    )
    queries = np.stack(
        [
            _unit(0.98, 0.05, -0.3, 0.0),  # ann's 3
            _unit(0.1, 0.0, 0.05, 0.98),  # bob's 7
            _unit(1.6, 0.0, 0.8, 0.0),  # a 3 as like ann's as bob's: which die is it?
        ]
    )[:, None, :]
    got = sets.match(queries, 0.0)
    assert [(m.set_name, m.value, m.rival) for m in got if m is not None] == [
        ("ann-d20", 3, ""),
        ("bob-d20", 7, ""),
        (got[2].set_name, 3, "bob-d20" if got[2].set_name == "ann-d20" else "ann-d20"),  # type: ignore[union-attr]
    ]
    # a disputed die is asked even when the classifier reads the same face
    agree = Verdict("d20", 3, 0.99, 0.99)
    assert learnt_verdict("d20", got[0], agree).confidence > 0.8  # type: ignore[arg-type]
    assert learnt_verdict("d20", got[2], agree).confidence <= UNCONFIRMED  # type: ignore[arg-type]
    # two dice of one owner and colour (five green d6 of one player) are never each other's rival
    twin = LearntSets(
        (
            entry_set(_die("ann-d20", "ann", "red", ann)),  # type: ignore[arg-type]
            entry_set(_die("ann-d20-2", "ann", "red", bob)),  # type: ignore[arg-type]
        )
    )
    assert all(m is not None and not m.rival for m in twin.match(queries, 0.0))
    assert ENTRY_MARGIN > 0 and Match(3, 0.9, 0.1).rival == ""


def test_the_roster_names_the_die_and_asks_a_die_it_does_not_know() -> None:
    s = DiceSet("x", "d20", "", "e1", np.array([3]), _unit(1, 0)[None])
    view = RosterView((_die("ann-d20", "ann", "red", s), Die("bob-d6", "d6", "bob", "blue")))
    assert view.learnt_kinds == ("d20",)  # bob's pip d6 has no faces taught: a d6 is read as before
    readings = [
        {"kind": "d20", "value": 3, "confidence": 0.95, "colour": "green", "learnt": "ann-d20"},
        {"kind": "d20", "value": 5, "confidence": 0.9, "colour": "green"},  # no entry's: asked
        {"kind": "d6", "value": 2, "confidence": 0.97, "colour": "blue"},
        {"kind": "d20", "value": 3, "confidence": 0.9, "colour": "red", "learnt": "ann-d20", "rival": "cid"},
    ]
    got = view.settle(readings, UNCONFIRMED)
    assert got[0]["die"] == "ann-d20" and got[0]["colour"] == "red" and got[0]["confidence"] == 0.95
    assert got[1]["die"] is None and got[1]["confidence"] == UNCONFIRMED
    assert "die" not in got[2] and got[2]["confidence"] == 0.97
    # ann's one d20 seen twice in a frame: the less sure of the two is asked (and so is a disputed die)
    assert got[3]["die"] == "ann-d20" and got[3]["confidence"] == UNCONFIRMED
    # a die read twice (two readings a few pixels apart) is one die, the one matched kept; a die a
    # side away is another die, and asked (ann has one d20)
    box = [[100.0, 100.0], [160.0, 100.0], [160.0, 160.0], [100.0, 160.0]]
    ann = {
        "kind": "d20",
        "value": 3,
        "confidence": 0.9,
        "learnt": "ann-d20",
        "center": [130, 130],
        "quad": box,
    }
    twice = {"kind": "d20", "value": 9, "confidence": 0.95, "center": [140, 125], "quad": box}
    beside = {**ann, "center": [195, 130], "confidence": 0.85}
    got = view.settle([twice, ann, beside], UNCONFIRMED)
    assert [(r["value"], r["die"], r["confidence"]) for r in got] == [
        (3, "ann-d20", 0.9),
        (3, "ann-d20", 0.5),
    ]
    # a colour the game's dice do not come in is not given: the reader's stays
    assert view.settle(readings[:1], UNCONFIRMED, {"blue"})[0]["colour"] == "green"


def test_a_die_whose_look_is_not_its_entrys_is_none_of_the_rosters_dice() -> None:
    s = DiceSet("x", "d20", "", "e1", np.array([3]), _unit(1, 0)[None])
    red = {"labs": [[50.0, 60.0, 40.0], [52.0, 58.0, 42.0]]}
    pink = {"labs": [[60.0, 50.0, 30.0], [62.0, 52.0, 28.0]]}
    ann = replace(_die("ann-d20", "ann", "red", s), look=red)
    view = RosterView((ann, replace(_die("bob-d20", "bob", "pink", s), look=pink)))
    read = {
        "kind": "d20",
        "value": 3,
        "confidence": 0.95,
        "learnt": "ann-d20",
        "quad": [[0, 0], [1, 0], [1, 1], [0, 1]],
    }
    looks = {"red": [51.0, 59.0, 41.0], "green": [50.0, -50.0, 40.0], "between": [56.0, 55.0, 35.0]}
    got = {k: view.settle([read], UNCONFIRMED, lab=lambda r, v=v: np.array(v))[0] for k, v in looks.items()}
    assert got["red"]["die"] == "ann-d20" and got["red"]["confidence"] == 0.95
    # a green die with faces like ann's red one: none of the roster's dice, asked
    assert got["green"]["die"] is None and got["green"]["confidence"] == UNCONFIRMED
    # a die between ann's red and bob's pink: which is it? asked
    assert got["between"]["rival"] == "bob-d20" and got["between"]["confidence"] == UNCONFIRMED


def _clip(group: str, face: int) -> list[Lurig]:
    return sorted((x for x in load_lurig(REAL) if x.group == group and x.face == face), key=lambda x: x.frame)


def _taught(frames: list[tuple[Lurig, np.ndarray]]) -> DiceSet:
    """A die's set as the table teaches it (`learn-dice see`'s perception step, `crops_of`)."""
    from controller.learn_dice import learning_perceiver
    from vision.numbered.reader import default_reader

    reader = default_reader()
    perceiver = learning_perceiver("d20", None, False, reader)
    values, crops = [], []
    for x, img in frames:
        dice = [d.to_json() for d in perceiver.perceive(img).dice]
        h, w = img.shape[:2]
        d = min(dice, key=lambda d: abs(d["center"][0] - w / 2) + abs(d["center"][1] - h / 2))
        values.append(x.face)
        crops.append(reader.crops_of(img, [d])[0])
    feats = reader.embedder().embed(crops, 1)[:, 0]
    return DiceSet("t", "d20", "", reader.embedder().digest, np.array(values), feats)


def _middle(dice: list[Any], frame: np.ndarray) -> Any:
    h, w = frame.shape[:2]
    return min(dice, key=lambda d: abs(d["center"][0] - w / 2) + abs(d["center"][1] - h / 2))


def _angler(tmp_path: Path, roster: Path, resume: bool = False) -> Table:
    players = [
        {"name": n, "colour": c, "pins": mock_pins(i).model_dump()}
        for i, (n, c) in enumerate([("ann", "red"), ("bob", "blue")])
    ]
    cfg = parse_config(
        {
            "table": {"game": "die-angler", "seed": 3, "kinds": ["d6", "d10", "d20"], "roster": str(roster)},
            "players": players,
        }
    )
    return Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=resume)


@needs_real
def test_real_dice_are_read_against_the_roster_and_the_referee_adds_to_the_entry(tmp_path: Path) -> None:
    top, wood = _clip("d20_top", 9), _clip("d20_wood", 2)
    frames = {x.path: at_table(cv2.imread(str(x.path))) for x in (top[0], top[8], top[-4], wood[0], wood[-1])}
    ann = _taught([(x, frames[x.path]) for x in (top[0], top[8])])
    bob = _taught([(wood[0], frames[wood[0].path])])
    roster = tmp_path / "roster.json"
    save_roster(roster, [_die("ann-d20", "ann", "red", ann), _die("bob-d20", "bob", "blue", bob)])
    table = _angler(tmp_path, roster)
    assert table.perceiver.roster is not None
    # ann's d20, a later roll: matched to her entry, read against her faces, her colour
    later = frames[top[-4].path]
    dice = [d.to_json() for d in table.perceiver.perceive(later).dice]
    die = _middle(dice, later)
    assert die["die"] == "ann-d20" and die["learnt"] == "ann-d20" and die["colour"] == "red"
    assert die["kind"] == "d20" and die["value"] == 9
    # bob's d20 is bob's
    bobs = [d.to_json() for d in table.perceiver.perceive(frames[wood[-1].path]).dice]
    assert _middle(bobs, frames[wood[-1].path])["die"] == "bob-d20"
    # a d20 the roster does not list (another source's green die): no entry's, asked
    row = next(
        r
        for r in csv.DictReader((REAL / "d20_imac1844" / "labels.csv").open(encoding="utf-8"))
        if r["kind"] == "d20"
    )
    green = at_table(cv2.imread(str(REAL / "d20_imac1844" / row["file"])))
    other = _middle([d.to_json() for d in table.perceiver.perceive(green).dice], green)
    assert other.get("die") is None and other["unsure"] and other["confidence"] <= UNCONFIRMED
    # the referee's answer about ann's die joins ann's entry: logged first, undone by unlearn
    table.reading_set = TableReadings(1, 0.0, dice)
    table.frame = cv2.imencode(".jpg", later)[1].tobytes()
    out = table.correct({"action": "confirm", "reading": die["id"]}, "ref")
    assert "joins the faces of ann-d20" in out["message"]
    rows = [e.data for e in table.log.events() if e.kind == "control" and "learnt" in e.data]
    assert rows[-1]["learnt"]["die"] == "ann-d20"
    names = [(s.name, s.trust) for s in table.perceiver.reader.learnt.sets]
    assert ("ann-d20", True) in names and not any(n.startswith("referee-") for n, _ in names)
    again = _angler(tmp_path, roster, resume=True)  # rebuilt from the log
    assert ("ann-d20", True) in [(s.name, s.trust) for s in again.perceiver.reader.learnt.sets]
    table.correct({"action": "unlearn", "reading": die["id"]}, "ref")
    assert [s.name for s in table.perceiver.reader.learnt.sets] == ["ann-d20", "bob-d20"]


def test_a_table_without_a_taught_roster_reads_as_before(tmp_path: Path) -> None:
    roster = tmp_path / "roster.json"
    save_roster(roster, [Die("ann-d20", "d20", "ann", "red")])
    cfg = parse_config({"table": {"game": "die-angler", "roster": str(roster)}})
    assert Perceiver.from_config(cfg).roster is None
