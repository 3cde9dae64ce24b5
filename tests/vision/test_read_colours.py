"""`dicetable read --colours` names each die among the colours given; `read --config` among its game's."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from controller.cli_vision import register
from training.numbered.real import default_root
from vision.palette import KNOWN_COLOURS

ROOT = Path(__file__).resolve().parents[2]
REAL = default_root()
LABELS = ROOT / "benchmarks" / "labels" / "d6_colours.csv"


def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def main() -> None:
        """test app"""

    register(a)
    return a


def skovy(n: int) -> list[tuple[Path, list[dict[str, str]]]]:
    """The first ``n`` skovy_d6 scenes (a red and a cream die each) and their dice labelled by eye."""
    rows = list(csv.DictReader(ln for ln in LABELS.read_text().splitlines() if not ln.startswith("#")))
    photos = sorted({r["image"] for r in rows if r["image"].startswith("skovy_d6/")})[:n]
    if not (REAL / photos[0]).exists():
        pytest.skip(f"the shared real photos are not at {REAL} (skovy_d6/scenes)")
    return [(REAL / p, [r for r in rows if r["image"] == p]) for p in photos]


def test_read_colours_names_each_die_among_the_colours_given() -> None:
    """The cream die with red pips is a pale yellow: among red and yellow it is yellow, not white."""
    scenes = skovy(4)
    res = CliRunner().invoke(
        app(), ["read", "--json", "--colours", "red,yellow", *(str(p) for p, _ in scenes)]
    )
    assert res.exit_code == 0, res.output
    got = [json.loads(line) for line in res.stdout.strip().splitlines()]
    matched = 0
    for (_, truth), seen in zip(scenes, got, strict=True):
        for die in seen["dice"]:
            x, y = die["center"]
            box = [
                t for t in truth if int(t["x0"]) <= x <= int(t["x1"]) and int(t["y0"]) <= y <= int(t["y1"])
            ]
            if box:
                matched += 1
                assert die["colour"] == box[0]["colour"], (seen["image"], die)
    assert matched >= 6  # the reader finds the dice


def test_read_colours_refuses_an_unknown_colour_naming_the_flag_and_the_known_names(tmp_path: Path) -> None:
    res = CliRunner().invoke(app(), ["read", str(tmp_path / "x.png"), "--colours", "red,magneta"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    text = " ".join(res.output.split())
    assert "--colours" in text and "'magneta'" in text and all(n in text for n in KNOWN_COLOURS)


def test_read_config_names_the_dice_among_its_games_colours(tmp_path: Path) -> None:
    """A Dicetar Wars table of blue and purple: every die read is blue or purple (or white or black,
    what is not a die), whatever colour the plastic is (here red and cream)."""
    scenes = skovy(2)
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\ngame = "dicetar-wars"\n\n[table.options.colours]\nAnn = "blue"\nBo = "purple"\n\n'
        '[[players]]\nname = "Ann"\ncolour = "blue"\n\n[[players]]\nname = "Bo"\ncolour = "purple"\n',
        encoding="utf-8",
    )
    res = CliRunner().invoke(app(), ["read", "--json", "--config", str(toml), *(str(p) for p, _ in scenes)])
    assert res.exit_code == 0, res.output
    colours = {d["colour"] for line in res.stdout.strip().splitlines() for d in json.loads(line)["dice"]}
    assert colours and colours <= {"blue", "purple", "white", "black"}
    beside = CliRunner().invoke(app(), ["read", "--config", str(toml), "--colours", "red", str(scenes[0][0])])
    assert beside.exit_code != 0 and "--colours" in beside.output
