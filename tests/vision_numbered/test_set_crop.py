"""A learnt set names the crop it was learnt with (issue 44 item 2): `learn-dice see` keeps each die
cut on its own outline (`vision.numbered.die_crop`, grouped on the crops round its top face), the set
file says so (``"crop": "die"``), and the reader matches each set on its own crop; a set saved before
(no ``crop``) is read on the box crop as it was learnt."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.learn_dice import confirm
from vision.numbered.learnt import DiceSet, LearntSets, load_set, set_from_json


def _unit(*v: float) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


def test_the_set_file_names_its_crop_and_an_older_file_is_the_box_crop(tmp_path: Path) -> None:
    s = DiceSet("red", "d20", "red", "e1", np.array([3]), _unit(1, 0)[None], crop="die")
    s.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["crop"] == "die" and load_set(tmp_path / "s.json").crop == "die"
    del data["crop"]
    assert set_from_json(data).crop == "box"
    with pytest.raises(ValueError, match=r"crop: expected one of box, die, got 'round'"):
        DiceSet("red", "d20", "red", "e1", np.array([3]), _unit(1, 0)[None], crop="round")
    with pytest.raises(ValueError, match="crop"):
        set_from_json({**data, "crop": "round"})
    assert s.plus(np.array([4]), _unit(0, 1)[None]).crop == "die"


def test_each_set_is_matched_on_the_crop_it_was_learnt_with() -> None:
    boxed = DiceSet("a", "d20", "", "e1", np.array([3, 7]), np.stack([_unit(1, 0, 0), _unit(0, 1, 0)]))
    die = DiceSet(
        "b", "d10", "", "e1", np.array([3, 7]), np.stack([_unit(1, 0, 0), _unit(0, 0, 1)]), crop="die"
    )
    sets = LearntSets((boxed, die))
    assert sets.crops == ("box", "die")
    # the die's box crop is like face 7 of the box set, its own crop like face 7 of the die set
    turned = {"box": _unit(0, 1, 0)[None, None], "die": _unit(0, 0, 1)[None, None]}
    assert [(m.set_name, m.value) for m in boxed.match(turned) if m] == [("a", 7)]
    assert [(m.set_name, m.value) for m in die.match(turned) if m] == [("b", 7)]
    # a die cut as a box alone (no set of die crops): every set on it, as before
    assert [(m.set_name, m.value) for m in die.match(turned["box"]) if m] == []


def test_confirm_keeps_the_crop_see_kept(tmp_path: Path) -> None:
    session = tmp_path / "s"
    session.mkdir()
    seen = [{"frame": "a.jpg", "centre": [1, 2], "guess": None, "features": [1.0, 0.0], "group": 0}]
    meta = {"name": "red", "kind": "d20", "colour": "red", "embedder": "x", "seen": seen}
    (session / "confirm.csv").write_text("group,crops,guess,face\n0,1,,5\n")
    (session / "seen.json").write_text(json.dumps({**meta, "crop": "die"}))
    assert confirm(session, allow_missing=True).crop == "die"
    (session / "seen.json").write_text(json.dumps(meta))  # a session seen before issue 44 item 2
    assert confirm(session, allow_missing=True).crop == "box"
