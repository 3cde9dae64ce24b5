"""The table's roster of its dice (issue 44 item 1, controller.roster): one entry a physical die, kept
with the table's data (``[table] roster``, default ``<id>.roster.json`` in the data dir), grown by
teaching a die on /learn (its learnt faces in the entry itself, so the one file is all another table
needs), edited and pruned by the admin, each change logged; a bad file is refused naming the file
and the field, and never written over."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller import teach
from controller.config import data_dir
from controller.roster import FORMAT, Roster, RosterError, load_roster, parse
from tests.controller.teach_scene import empty_table, needs_real, roll
from tests.controller.test_teach_dice import START, _cfg, _table
from vision.numbered.learnt import DiceSet


def _set(kind: str = "d20", faces: tuple[int, ...] = (1, 2)) -> dict[str, Any]:
    feats = np.eye(len(faces), 4, dtype=np.float32)
    return DiceSet("ann's green d20", kind, "green", "e1", np.array(faces), feats).to_json()


def _die(**over: Any) -> dict[str, Any]:
    die = {"id": "ann-green-d20", "kind": "d20", "owner": "ann", "colour": "green", "size_mm": 20}
    return {**die, **over}


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ([], "expected a JSON object with format 'dicetable-roster/1', got list"),
        ({"format": "x", "dice": []}, "format: expected 'dicetable-roster/1', got 'x'"),
        ({"format": FORMAT}, "dice: expected a list of dice, got None"),
        (
            {"format": FORMAT, "dice": [_die(kind="d12")]},
            "dice[0].kind: expected one of d6, d10, d10p, d20, got 'd12'",
        ),
        (
            {"format": FORMAT, "dice": [_die(), _die()]},
            "dice[1].id: 'ann-green-d20' is the id of another die too",
        ),
        (
            {"format": FORMAT, "dice": [_die(owner="")]},
            "dice[0].owner: expected a name of 1 to 40 characters, got ''",
        ),
        (
            {"format": FORMAT, "dice": [_die(colour=3)]},
            "dice[0].colour: expected a name of 1 to 20 characters, got 3",
        ),
        (
            {"format": FORMAT, "dice": [_die(size_mm=200)]},
            "dice[0].size_mm: expected an edge between 5 and 60 mm",
        ),
        ({"format": FORMAT, "dice": [_die(size_mm="big")]}, "dice[0].size_mm: expected the die's edge in mm"),
        ({"format": FORMAT, "dice": [_die(id="a b")]}, "dice[0].id: expected 1 to 80 characters, no space"),
        ({"format": FORMAT, "dice": [_die(hue=1)]}, "dice[0]: unknown field 'hue'"),
        (
            {"format": FORMAT, "dice": [_die(faces={"set": {"format": "?"}})]},
            "dice[0].faces.set: expected the die's learnt set",
        ),
        (
            {"format": FORMAT, "dice": [_die(faces={"set": _set("d10")})]},
            "dice[0].faces.set.kind: expected the die's kind 'd20', got 'd10'",
        ),
        (
            {
                "format": FORMAT,
                "dice": [
                    _die(faces={"set": {**_set(), "faces": [{"value": 21, "features": [[1.0, 0, 0, 0]]}]}})
                ],
            },
            "dice[0].faces.set: expected",
        ),
        ({"format": FORMAT, "dice": [_die(faces=[1, 2])]}, "dice[0].faces: expected the die's learnt faces"),
    ],
)
def test_a_bad_roster_is_refused_naming_the_file_and_the_field(tmp_path: Path, data: Any, said: str) -> None:
    path = tmp_path / "t.roster.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RosterError) as e:
        load_roster(path)
    assert str(e.value).startswith(f"roster {path}: "), str(e.value)
    assert said in str(e.value), str(e.value)
    # the table's roster keeps the file as it is, says why, and refuses changes until it is mended
    before = path.read_bytes()
    roster = Roster(path)
    assert roster.status()["error"] == str(e.value) and roster.status()["dice"] == []
    with pytest.raises(RosterError, match="the roster is not changed until the file is mended or removed"):
        roster.command({"action": "remove", "id": "ann-green-d20"}, "kim", lambda *a: None)
    assert path.read_bytes() == before


def test_a_roster_that_is_not_json_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("{dice: ", encoding="utf-8")
    with pytest.raises(RosterError, match=rf"roster {path}: expected JSON \(Expecting property name"):
        load_roster(path)
    assert load_roster(tmp_path / "none.json") == []  # no file: an empty roster


def test_the_roster_is_kept_with_the_tables_data_and_edited_by_the_admin_logged(tmp_path: Path) -> None:
    table = _table(tmp_path)
    assert table.cfg.roster_path == data_dir() / "table-1.roster.json"  # beside the table's log
    assert _cfg(roster="dice/ours.json").roster_path == data_dir() / "dice" / "ours.json"
    entries = [
        _die(faces={"dice_set": "sets/green.json", "set": _set()}),
        _die(id="bob-blue-d10", kind="d10", owner="bob", colour="blue", size_mm=None, appearance="swirl"),
    ]
    table.cfg.roster_path.parent.mkdir(parents=True, exist_ok=True)
    table.cfg.roster_path.write_text(json.dumps({"format": FORMAT, "dice": entries}), encoding="utf-8")
    table = _table(tmp_path / "again")
    listed = table.roster_step({"action": "list"}, "")
    assert [d["name"] for d in listed["dice"]] == ["ann's green d20", "bob's blue d10"]
    assert listed["dice"][0]["faces"] == {"dice_set": "sets/green.json", "taught": [1, 2], "crops": 2}
    got = table.roster_step({"action": "edit", "id": "bob-blue-d10", "owner": "cid", "colour": "teal"}, "kim")
    assert got["message"] == "bob's blue d10 (bob-blue-d10) is now cid's teal d10"
    got = table.roster_step({"action": "edit", "id": "ann-green-d20", "size_mm": 16}, "kim")
    assert got["message"] == "ann's green d20 (ann-green-d20) is now ann's green d20, 16 mm"
    for command, said in [
        (
            {"action": "edit", "id": "nobody"},
            "id: expected the id of a die of the roster (ann-green-d20, bob-blue-d10), got 'nobody'",
        ),
        (
            {"action": "edit", "id": "bob-blue-d10", "owner": " "},
            "owner: expected a name of 1 to 40 characters, got ' '",
        ),
        (
            {"action": "edit", "id": "bob-blue-d10", "size_mm": 0},
            "size_mm: expected an edge between 5 and 60 mm, got 0",
        ),
        (
            {"action": "edit", "id": "bob-blue-d10"},
            "edit: expected one or more of owner, colour, size_mm, appearance",
        ),
        ({"action": "fly"}, "action: expected one of list, edit, remove, forget_symbol, got 'fly'"),
    ]:
        with pytest.raises(RosterError) as e:
            table.roster_step(command, "kim")
        assert str(e.value) == said
    table.roster_step({"action": "remove", "id": "ann-green-d20"}, "kim")
    kept = load_roster(table.cfg.roster_path)
    assert [(d.id, d.owner, d.colour, d.kind) for d in kept] == [("bob-blue-d10", "cid", "teal", "d10")]
    assert kept[0].appearance == "swirl"
    rows = [e.data for e in table.log.events() if e.kind == "control" and e.data.get("action") == "roster"]
    assert [(r["step"], r["id"], r["who"]) for r in rows] == [
        ("edit", "bob-blue-d10", "kim"),
        ("edit", "ann-green-d20", "kim"),
        ("remove", "ann-green-d20", "kim"),
    ]


@needs_real
def test_teaching_a_die_adds_its_entry_with_its_faces_and_the_file_serves_another_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(teach, "N_EACH", 1)  # every face once completes a set here
    table = _table(tmp_path)
    for t in range(2):  # the same die taught twice: one entry, its faces joined
        table.teach(START, "ann")
        for i in range(20):
            table.on_settled(roll(i + 1, i + t), 1.0 + i, 1.0 + i, empty=empty_table())
            table.teach({"action": "answer", "roll": i + 1, "face": i + 1}, "ann")
        table.teach({"action": "save"}, "ann")
        listed = table.roster_step({"action": "list"}, "")["dice"]
        assert [(d["id"], d["name"]) for d in listed] == [("ann-green-d20", "ann's green d20")]
        assert listed[0]["faces"] == {
            "dice_set": "sets/green.json",
            "taught": list(range(1, 21)),
            "crops": 20 * (t + 1),
        }
    bob = {**START, "owner": "bob"}
    table.teach(bob, "bob")
    for i in range(20):
        table.on_settled(roll(i + 1, i), 30.0 + i, 30.0 + i, empty=empty_table())
        table.teach({"action": "answer", "roll": i + 1, "face": i + 1}, "bob")
    table.teach({"action": "save"}, "bob")
    dice = load_roster(table.cfg.roster_path)
    assert [d.id for d in dice] == ["ann-green-d20", "bob-green-d20"]
    ann = dice[0].learnt()
    assert ann is not None and len(ann.values) == 40 and ann.faces == list(range(1, 21))
    assert ann.embedder == table.teaching.reader().embedder().digest
    # each roll's look joined the die's entry (issue 44 item 4: which die a die found is, by its look too)
    assert dice[0].look is not None and len(dice[0].look["labs"]) == 40 and len(dice[1].look["labs"]) == 20
    steps = [e.data for e in table.log.events() if e.kind == "control" and e.data.get("action") == "roster"]
    assert [(s["step"], s["id"]) for s in steps] == [
        ("taught", "ann-green-d20"),
        ("taught_again", "ann-green-d20"),
        ("taught", "bob-green-d20"),
    ]
    saved = [e.data for e in table.log.controls("teach") if e.data["step"] == "saved"]
    assert [s["roster"] for s in saved] == ["ann-green-d20", "ann-green-d20", "bob-green-d20"]
    # the one file copied to another table with the same dice: its dice and their faces, as they were
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(table.cfg.roster_path, other / "ours.json")
    copied = load_roster(other / "ours.json")
    assert [d.name for d in copied] == ["ann's green d20", "bob's green d20"]
    assert np.allclose(copied[0].learnt().features, ann.features, atol=1e-4)


def test_parse_reads_what_save_writes(tmp_path: Path) -> None:
    roster = Roster(tmp_path / "r.json")
    die = roster.taught(
        DiceSet("x", "d20", "red", "e1", np.array([3]), np.ones((1, 4), np.float32)),
        "アン",
        "赤",
        16.0,
        None,
        "kim",
        lambda *a: None,
    )
    assert die.id == "アン-赤-d20" and die.size_mm == 16.0
    again = parse(json.loads((tmp_path / "r.json").read_text(encoding="utf-8")), "r.json")
    assert again == roster.dice
