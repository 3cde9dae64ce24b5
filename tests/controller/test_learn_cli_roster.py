"""`dicetable learn-dice confirm --config` makes the die an entry of the table's roster (issue 44):
a table taught from the command line reads against the roster as one taught on /learn does (the
die matched by its faces and look, a die of its kind far from its look asked), not with the old
`[table] dice_set` alone.  Real d20_lurig frames at the table's scale."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path

import cv2
import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.config import load_config
from controller.perceive import Perceiver
from controller.roster import load_roster
from training.numbered.real import Lurig, at_table, default_root, load_lurig

REAL = default_root()
needs_real = pytest.mark.skipif(
    not (REAL / "d20_lurig" / "labels.csv").is_file(),
    reason=f"the shared real photos are not at {REAL} (d20_lurig/)",
)
FACES = (9, 11, 20)


def _frames(group: str, faces: tuple[int, ...]) -> list[Lurig]:
    return sorted(
        (x for x in load_lurig(REAL) if x.group == group and x.face in faces), key=lambda x: x.frame
    )


def _write(items: list[Lurig], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for x in items:
        p = folder / f"{x.group}_{x.face:02d}_{x.frame:04d}.jpg"
        cv2.imwrite(str(p), at_table(cv2.imread(str(x.path))))
        out.append(p)
    return out


def _middle(perceiver: Perceiver, path: Path) -> dict:
    img = cv2.imread(str(path))
    h, w = img.shape[:2]
    dice = [d.to_json() for d in perceiver.perceive(img).dice]
    return min(dice, key=lambda d: math.dist(d["center"], (w / 2, h / 2)))


@needs_real
def test_a_set_confirmed_with_config_is_read_against_the_roster(tmp_path: Path) -> None:
    # the orange d20 of d20_top: three faces, four frames each taught, a later frame of each read;
    # the blue d20 of d20_wood is not the taught die
    mine = _frames("d20_top", FACES)
    taught = [x for f in FACES for x in [y for y in mine if y.face == f][:8:2]]
    later = [[y for y in mine if y.face == f][26] for f in FACES]  # later in each face's clip
    learn = _write(taught, tmp_path / "learn")
    blue = _write([x for x in load_lurig(REAL) if x.path.name == "f20_d20_wood_0279.jpg"], tmp_path / "blue")
    cfg_path = tmp_path / "table.toml"
    cfg_path.write_text('[table]\ngame = "dice-hunter"\nkinds = ["d20"]\ndice_set = "sets/d20.json"\n')
    session = tmp_path / "session"
    see = ["learn-dice", "see", *map(str, learn), "--set", "orange", "--kind", "d20"]
    run = CliRunner().invoke(app, [*see, "--session", str(session), "--config", str(cfg_path)])
    assert run.exit_code == 0, run.output
    seen = json.loads((session / "seen.json").read_text())["seen"]
    assert all(s["lab"] is not None for s in seen)  # each crop's look kept for the roster entry
    truth = {str(p): x.face for p, x in zip(learn, taught, strict=True)}
    rows = list(csv.DictReader((session / "confirm.csv").open()))
    for r in rows:  # a careful person: each group named by the face its crops show
        shown = Counter(truth[s["frame"]] for s in seen if s["group"] == int(r["group"]))
        r["face"] = str(shown.most_common(1)[0][0])
    with (session / "confirm.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["group", "crops", "guess", "face"])
        w.writeheader()
        w.writerows(rows)

    # a session whose crops have no colour named, and none given: the colour is asked for
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "confirm.csv").write_bytes((session / "confirm.csv").read_bytes())
    data = json.loads((session / "seen.json").read_text())
    data["seen"] = [{**s, "colour": None} for s in data["seen"]]
    (bare / "seen.json").write_text(json.dumps(data))
    args = ["--config", str(cfg_path), "--allow-missing"]
    run = CliRunner().invoke(app, ["learn-dice", "confirm", str(bare), *args])
    assert run.exit_code == 2 and "--colour: expected the die's colour" in run.output, run.output
    assert not load_config(cfg_path).roster_path.exists()  # nothing written

    confirm = ["learn-dice", "confirm", str(session), *args]
    run = CliRunner().invoke(app, [*confirm, "--owner", "ann"])  # the colour the reader named
    assert run.exit_code == 0, run.output
    named = Counter(s["colour"] for s in seen).most_common(1)[0][0]
    cfg = load_config(cfg_path)
    assert cfg.dice_set_path is not None and cfg.dice_set_path.is_file()  # the old file still written
    (die,) = load_roster(cfg.roster_path)
    assert (die.id, die.colour, die.faces and die.faces["taught"]) == (f"ann-{named}-d20", named, list(FACES))
    assert die.look is not None and die.look["seen"] == len(seen)
    # confirmed again: the entry's faces are replaced, not doubled
    run = CliRunner().invoke(app, [*confirm, "--owner", "ann", "--colour", named.upper()])
    assert run.exit_code == 0, run.output
    (again,) = load_roster(cfg.roster_path)
    assert again.faces and again.faces["crops"] == die.faces["crops"] and again.look == die.look

    # `read --config` reads against the roster: the taught die is ann's, the blue one none of its dice
    perceiver = Perceiver.from_config(cfg)
    assert perceiver.roster is not None
    for x, path in zip(later, _write(later, tmp_path / "later"), strict=True):
        got = _middle(perceiver, path)
        assert (got["die"], got["value"]) == (die.id, x.face), got
    other = _middle(perceiver, blue[0])
    assert other["die"] is None and other["confidence"] < cfg.table.confidence_threshold, other

    # bad input: a message, no traceback, nothing changed
    before = cfg.roster_path.read_text()
    run = CliRunner().invoke(app, [*confirm, "--owner", ""])
    assert run.exit_code == 2 and "--owner: expected" in run.output and "Traceback" not in run.output
    run = CliRunner().invoke(
        app, ["learn-dice", "confirm", str(session), "--out", "x.json", "--owner", "bob"]
    )
    assert run.exit_code == 2 and "with --config" in run.output
    cfg.roster_path.write_text("{}")
    run = CliRunner().invoke(app, confirm)
    assert run.exit_code == 2 and "format" in run.output and cfg.roster_path.read_text() == "{}"
    assert before != "{}"
