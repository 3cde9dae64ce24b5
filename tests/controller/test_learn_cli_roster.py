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
from typing import Any

import cv2
from typer.testing import CliRunner

from controller.cli import app
from controller.config import load_config
from controller.not_dice import path_for
from controller.perceive import Perceiver
from controller.roster import load_roster
from tests.real_photos import real_photos
from training.numbered.real import Lurig, at_table, default_root, load_lurig

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")
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


def _relay(img: Any, at: tuple[int, int], scale: float, lit: tuple[bool, ...]) -> Any:
    """A relay board drawn on ``img`` at ``at`` (its LEDs ``lit``), as a table's camera sees one."""
    x, y = at
    s = scale
    cv2.rectangle(img, (x, y), (int(x + 130 * s), int(y + 170 * s)), (40, 90, 30), -1)
    for i, on in enumerate(lit):
        top = int(y + (15 + 38 * i) * s)
        cv2.rectangle(img, (int(x + 15 * s), top), (int(x + 60 * s), int(top + 30 * s)), (30, 30, 30), -1)
        centre = (int(x + 100 * s), int(top + 15 * s))
        cv2.circle(img, centre, int(6 * s), (60, 60, 240) if on else (30, 40, 60), -1)
    return img


@needs_real
def test_what_the_person_named_not_the_die_is_left_out_where_it_lay(tmp_path: Path) -> None:
    # no empty table: a relay board at the frame's edge is read as dice in the learn frames and later
    mine = _frames("d20_top", FACES)
    taught = [x for f in FACES for x in [y for y in mine if y.face == f][:8:2]]
    later = [[y for y in mine if y.face == f][26] for f in FACES]
    at, scale = (2900, 900), 2.4
    learn = _write(taught, tmp_path / "learn")
    for i, p in enumerate(learn):
        lit = tuple(bool((i >> b) & 1) for b in range(4))
        cv2.imwrite(str(p), _relay(cv2.imread(str(p)), at, scale, lit))
    cfg_path = tmp_path / "table.toml"
    cfg_path.write_text('[table]\ngame = "dice-hunter"\nkinds = ["d20"]\n')
    session = tmp_path / "session"
    see = ["learn-dice", "see", *map(str, learn), "--set", "orange", "--kind", "d20", "--colour", "orange"]
    run = CliRunner().invoke(app, [*see, "--session", str(session), "--config", str(cfg_path)])
    assert run.exit_code == 0, run.output
    seen = json.loads((session / "seen.json").read_text())["seen"]
    truth = {str(p): x.face for p, x in zip(learn, taught, strict=True)}
    relay = (at[0] + 65 * scale, at[1] + 85 * scale)

    def at_relay(c: Any) -> bool:
        return math.dist(c, relay) < 110 * scale

    assert any(at_relay(s["centre"]) for s in seen), "the relay board is read as a die: nothing to name"
    rows = list(csv.DictReader((session / "confirm.csv").open()))
    for r in rows:  # the careful person: a group of crops at the relay board is not the die
        mine_ = [s for s in seen if s["group"] == int(r["group"])]
        shown = Counter(None if at_relay(s["centre"]) else truth[s["frame"]] for s in mine_)
        top = shown.most_common(1)[0][0]
        r["face"] = "-" if top is None else str(top)
    with (session / "confirm.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["group", "crops", "guess", "face"])
        w.writeheader()
        w.writerows(rows)
    run = CliRunner().invoke(
        app, ["learn-dice", "confirm", str(session), "--config", str(cfg_path), "--allow-missing"]
    )
    assert run.exit_code == 0, run.output
    assert "not the die" in run.output
    cfg = load_config(cfg_path)
    kept = path_for(cfg.roster_path)
    assert kept.is_file()

    frames = _write(later, tmp_path / "later")
    for i, p in enumerate(frames):
        lit = tuple(bool(((i + 1) >> b) & 1) for b in range(4))  # LEDs as in some learn frames
        cv2.imwrite(str(p), _relay(cv2.imread(str(p)), at, scale, lit))

    def at_the_relay(perceiver: Perceiver) -> int:
        n = 0
        for p in frames:
            dice = [d.to_json() for d in perceiver.perceive(cv2.imread(str(p))).dice]
            n += sum(at_relay(d["center"]) for d in dice)
            assert any(not at_relay(d["center"]) for d in dice)  # the die is still read
        return n

    assert at_the_relay(Perceiver.from_config(cfg)) == 0
    kept.rename(tmp_path / "aside.json")  # without the file the board is read as dice again
    assert at_the_relay(Perceiver.from_config(cfg)) > 0
