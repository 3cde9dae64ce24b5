"""A die's look learnt from photos of it alone (`dicetable learn-dice colour`, controller.learn_looks),
kept in the roster and used by the table to name its dice's colours (issue 44 item 5): real skovy_d6
photos, a red die and a cream (pastel yellow) die with red pips."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.colours_real import LABELS, load_labels
from controller.config import TableConfig, data_dir, parse_config
from controller.eventlog import EventLog
from controller.learn_looks import learn_colour
from controller.perceive import Perceiver
from controller.roster import Die, RosterError, learnt_palette, load_roster, new_die, parse
from vision.looks import LearntPalette

ROOT = Path(__file__).resolve().parents[2]
LEARN = ("WIN_20221210_14_48_10_Pro.jpg", "WIN_20221210_14_48_16_Pro.jpg", "WIN_20221210_14_48_22_Pro.jpg")
NAMES = {"red": "red", "yellow": "yellow"}  # the label's colour -> the roster's name (players' colours)


def _cfg() -> TableConfig:
    players = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "yellow"}]
    return parse_config({"table": {"game": "dicetar-wars", "seed": 3}, "players": players})


def _alone(real: Path, photo: str, colour: str, out: Path) -> Path:
    """The part of the photo round the labelled die of ``colour`` (220 px a side): that die alone."""
    dice = load_labels(LABELS)[f"skovy_d6/scenes/{photo}"]
    x0, y0, x1, y1 = next(d["box"] for d in dice if d["colour"] == colour)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    image = cv2.imread(str(real / "skovy_d6" / "scenes" / photo))
    path = out / f"{colour}-{photo.replace('.jpg', '.png')}"
    cv2.imwrite(str(path), image[cy - 110 : cy + 110, cx - 110 : cx + 110])
    return path


@pytest.mark.slow
def test_looks_learnt_from_photos_name_the_dice_of_another_photo(real_fixtures: Path, tmp_path: Path) -> None:
    cfg = _cfg()
    assert Perceiver.from_config(cfg).learnt is None  # no roster: the palette names the dice
    for label, name in NAMES.items():
        photos = [_alone(real_fixtures, p, label, tmp_path) for p in LEARN]
        got = learn_colour(cfg, new_die("d6", "ann" if name == "red" else "bob", name), photos)
        assert got.look is not None and got.look["seen"] == 3
    dice = load_roster(cfg.roster_path)
    assert [(d.colour, d.look is not None) for d in dice] == [("red", True), ("yellow", True)]
    perceiver = Perceiver.from_config(cfg)
    assert isinstance(perceiver.learnt, LearntPalette)
    for photo in ("WIN_20221210_14_49_12_Pro.jpg", "WIN_20221210_14_49_32_Pro.jpg"):
        image = cv2.imread(str(real_fixtures / "skovy_d6" / "scenes" / photo))
        palette = perceiver.reading_palette(image, None, None)
        read = perceiver.reader.read(image, palette)
        truth = load_labels(LABELS)[f"skovy_d6/scenes/{photo}"]
        assert sorted((r.colour, r.colour_near) for r in read) == sorted(
            (NAMES[d["colour"]], None) for d in truth
        )
    log = EventLog(cfg.database_path())
    steps = [e.data["step"] for e in log.events() if e.kind == "control"]
    log.close()
    assert steps == ["added_look", "added_look"]


def test_a_photo_without_the_die_alone_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    cfg = _cfg()
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 200, np.uint8))
    with pytest.raises(RosterError, match=r"blank.png: expected one die .* found 0"):
        learn_colour(cfg, new_die("d6", "ann", "red"), [blank])
    with pytest.raises(RosterError, match=r"nothing.png: expected a photo"):
        learn_colour(cfg, new_die("d6", "ann", "red"), [tmp_path / "nothing.png"])
    with pytest.raises(RosterError, match=r"--die: expected the id of a die of the roster \(none\)"):
        learn_colour(cfg, "ann-red-d6", [blank])
    assert not cfg.roster_path.exists()


def test_the_cli_refuses_a_bad_call_by_name(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(
        '[table]\ngame = "dicetar-wars"\n[[players]]\nname = "ann"\ncolour = "red"\n'
        '[[players]]\nname = "bob"\ncolour = "blue"\n',
        encoding="utf-8",
    )
    env_dir = tmp_path / "data"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "learn-dice",
            "colour",
            str(tmp_path / "x.png"),
            "--config",
            str(toml),
            "--owner",
            "ann",
            "--colour",
            "red",
            "--kind",
            "d12",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DICETABLE_DATA_DIR": str(env_dir)},
    )
    assert run.returncode == 2 and "kind: expected one of d6" in run.stderr and "Traceback" not in run.stderr


def test_the_roster_keeps_a_look_and_names_by_it_only_when_every_colour_has_one() -> None:
    look = {"labs": [[50.0, 60.0, 40.0], [52.0, 58.0, 41.0]]}
    base = {"kind": "d6", "owner": "ann", "size_mm": None, "appearance": "", "faces": None}
    dice = parse(
        {
            "format": "dicetable-roster/1",
            "dice": [
                {**base, "id": "a", "colour": "red", "look": look},
                {**base, "id": "b", "colour": "cream", "look": None},
            ],
        },
        "t.json",
    )
    assert dice[0].look is not None and dice[0].look["seen"] == 2
    assert dice[0].to_json(content=False)["look"] == {k: v for k, v in dice[0].look.items() if k != "labs"}
    assert learnt_palette(dice) is None  # cream not learnt: the palette names the dice
    both = [dice[0], Die("b", "d6", "bob", "cream", look={"labs": [[90.0, 0.0, 20.0]], "seen": 1})]
    pal = learnt_palette(both)
    assert pal is not None and pal.near_two(np.array([91.0, 0.0, 19.0])) == ("cream", None)
    with pytest.raises(RosterError, match=r"dice\[0\].look.labs\[0\]: expected \[L, a, b\]"):
        parse(
            {
                "format": "dicetable-roster/1",
                "dice": [{**base, "id": "a", "colour": "red", "look": {"labs": [[500, 0, 0]]}}],
            },
            "t.json",
        )
    assert json.dumps(dice[0].to_json())  # the file form is JSON
    assert data_dir().name == "userdata"


def test_the_table_names_a_die_by_the_look_it_learnt_from_the_same_crop(
    real_fixtures: Path, tmp_path: Path
) -> None:
    """Issue 44 item 5, fifth round: the reader names a die by its look cut at the photo's own pixels
    at its detector's box (`vision.looks.LearntPalette.describe_at`), the crop `learn-dice colour`
    learns it from (`controller.roster.die_look`), not by the classifier's 32 px crop: read back on a
    photo it was learnt from, a die's look is that sighting (before: another crop, another look)."""
    cfg = _cfg()
    red = [_alone(real_fixtures, p, "red", tmp_path) for p in LEARN]
    learn_colour(cfg, new_die("d6", "ann", "red"), red)
    yellow = [_alone(real_fixtures, p, "yellow", tmp_path) for p in LEARN]
    learn_colour(cfg, new_die("d6", "bob", "yellow"), yellow)
    perceiver = Perceiver.from_config(cfg)
    learnt = next(d for d in load_roster(cfg.roster_path) if d.colour == "red").look
    assert learnt is not None and perceiver.learnt is not None

    @dataclasses.dataclass(frozen=True)
    class Seeing(LearntPalette):
        seen: list[np.ndarray] = dataclasses.field(default_factory=list)

        def describe(self, crops: list[np.ndarray]) -> np.ndarray:
            out = super().describe(crops)
            self.seen.extend(out)
            return out

    for k, photo in enumerate(red):
        image = cv2.imread(str(photo))
        p = perceiver.reading_palette(image, None, None)
        seeing = Seeing(**{f.name: getattr(p, f.name) for f in dataclasses.fields(p)})
        (read,) = perceiver.reader.read(image, seeing)
        assert (read.colour, read.colour_near) == ("red", None)
        assert np.allclose(seeing.seen[-1], learnt["labs"][k], atol=0.01)  # kept to 2 decimals
        assert read.box is not None  # the detector's box, which the look was cut from


def test_the_referees_colour_answer_joins_the_look_logged_undoable_and_resumed(
    real_fixtures: Path, tmp_path: Path
) -> None:
    """Issue 44 items 4 and 5: a referee's answer naming a die's colour (``set_colour``) at a table
    that names colours by its roster's looks adds the look the die was named by to that colour's
    sightings (`controller.referee_looks`): logged with the answer, undone by ``unlearn``, learnt
    again from the log by a restarted table."""
    from controller.adapters import TableReadings
    from controller.table import Table

    cfg = _cfg()
    for colour, who in (("red", "ann"), ("yellow", "bob")):
        learn_colour(
            cfg, new_die("d6", who, colour), [_alone(real_fixtures, p, colour, tmp_path) for p in LEARN]
        )
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=False)
    assert table.learning.looks.on and len(table.perceiver.learnt.looks["red"].labs) == 3
    image = cv2.imread(str(real_fixtures / "skovy_d6" / "scenes" / "WIN_20221210_14_49_12_Pro.jpg"))
    dice = [d.to_json() for d in table.perceiver.perceive(image).dice]
    red = next(d for d in dice if d["colour"] == "red")
    seen = table.perceiver.looks[red["id"]][1]  # the look the die was named by (never logged as a reading)
    assert "look" not in red and "_look" not in red
    table.reading_set = TableReadings(1, 0.0, [dict(d) for d in dice])
    table.frame = cv2.imencode(".jpg", image)[1].tobytes()
    # another frame read under the same ids (its dice elsewhere) lends this die no look
    table.perceiver.perceive(np.roll(image, 40, axis=1))
    out = table.correct({"action": "set_colour", "reading": red["id"], "colour": "red"}, "ref")
    assert "joins" not in out["message"] and len(table.perceiver.learnt.looks["red"].labs) == 3
    table.perceiver.perceive(image)
    table.reading_set = TableReadings(1, 0.0, [dict(d) for d in dice])
    out = table.correct({"action": "set_colour", "reading": red["id"], "colour": "red"}, "ref")
    assert "its look joins the red dice's" in out["message"]
    rows = [e.data for e in table.log.events() if e.kind == "control" and "look" in e.data]
    assert len(rows) == 1 and rows[0]["look"]["colour"] == "red"
    labs = table.perceiver.learnt.looks["red"].labs
    assert len(labs) == 4 and np.allclose(labs[-1], seen, atol=0.01)
    assert len(table.perceiver.learnt.looks["yellow"].labs) == 3
    # a restarted table learns it again from its log
    again = Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=True)
    assert len(again.perceiver.learnt.looks["red"].labs) == 4
    # unlearn: logged, the look gone, and gone after a restart too
    out = table.correct({"action": "unlearn", "reading": red["id"]}, "ref")
    assert "forgotten" in out["message"] and len(table.perceiver.learnt.looks["red"].labs) == 3
    again = Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=True)
    assert len(again.perceiver.learnt.looks["red"].labs) == 3
    # a colour the roster has no look of teaches nothing (a palette colour, not one of its dice)
    blue = {"action": "set_colour", "reading": red["id"], "colour": "blue", "version": 1}
    out = table.correct(blue, "ref")
    assert "joins" not in out["message"] and len(table.perceiver.learnt.looks) == 2
