"""`dicetable read --kinds`: a table looks only for the kinds its game uses; unknown is not a die."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
import typer
from typer.testing import CliRunner

from controller.cli import app as main_app
from controller.config import ConfigError, load_config
from training.numbered.real import default_root, load_images
from vision.numbered import read_all
from vision.numbered.labels import parse_kinds

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "tests" / "fixtures" / "numbered" / "scene_0002"
REAL = default_root()


def app() -> typer.Typer:
    return main_app


def test_parse_kinds_names_the_bad_input() -> None:
    assert parse_kinds("d20,d6") == ("d6", "d20")
    with pytest.raises(ValueError, match=r"'d12' is not a kind"):
        parse_kinds("d6,d12")


def test_read_kinds_reads_only_those_kinds() -> None:
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    res = CliRunner().invoke(app(), ["read", str(SCENE.with_suffix(".jpg")), "--json", "--kinds", "d20"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout.strip())["dice"]
    assert got and {d["kind"] for d in got} == {"d20"}
    want = sorted(d["value"] for d in truth["dice"] if d["kind"] == "d20")
    # every d20 read right; a die of a kind the game does not use is not reported as its own kind
    # (a d20 table has none: one of this scene's other dice may come out as a d20)
    assert [v for v in want if v in [d["value"] for d in got]] == want


def test_read_kinds_refuses_an_unknown_kind() -> None:
    res = CliRunner().invoke(app(), ["read", str(SCENE.with_suffix(".jpg")), "--kinds", "d6,d12"])
    assert res.exit_code != 0
    assert "--kinds" in res.output and "d12" in res.output


def test_numbered_is_a_deprecated_alias() -> None:
    res = CliRunner().invoke(app(), ["read", str(SCENE.with_suffix(".jpg")), "--json", "--numbered"])
    assert res.exit_code == 0, res.output
    assert "deprecated" in res.stderr and "--kinds d6,d10,d10p,d20" in res.stderr
    both = CliRunner().invoke(app(), ["read", str(SCENE.with_suffix(".jpg")), "--numbered", "--kinds", "d6"])
    assert both.exit_code != 0 and "--kinds alone" in both.output


def test_config_kinds_are_checked(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\ngame = "dice-fighter"\nkinds = ["d10p", "d30"]\n')
    with pytest.raises(ConfigError, match="d30"):
        load_config(cfg)
    cfg.write_text('[table]\ngame = "dice-fighter"\nkinds = ["d20", "d10p"]\n')
    assert load_config(cfg).table.kinds == ["d10p", "d20"]


@pytest.mark.skipif(
    not (REAL / "negatives" / "labels.csv").is_file(),
    reason=f"the shared real photos are not at {REAL} (negatives/)",
)
def test_no_phantom_d20_on_real_photos_without_dice() -> None:
    """44 real photos of desks, foam, brick, coins, signs: a d20 table sees at most one die in 20."""
    photos = load_images(REAL, "negatives")
    phantoms = [
        (p.name, r.kind, r.value, round(r.confidence, 2))
        for p in photos
        for r in read_all(cv2.imread(str(p)), kinds=("d20",))
    ]
    assert len(phantoms) <= len(photos) / 20, phantoms
    assert not [x for x in phantoms if x[3] >= 0.8], phantoms
