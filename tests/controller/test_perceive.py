"""One perception step (controller.perceive): the table, `dicetable read` and `read --config` read a
frame the same way; both readers take the same view and where-steps (vision.reading.Reader)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from controller.cli_vision import register
from controller.config import VisionSection
from controller.eventlog import EventLog
from controller.perceive import Perceiver, Reading, ReadingSet, as_reader, reader_for
from controller.session import session_config
from controller.table import Table
from engine import Input
from training.numbered.real import default_root
from vision.numbered import NumberedDice
from vision.reading import Reader
from vision.where import EmptyTable

ROOT = Path(__file__).resolve().parents[2]
REAL = default_root()
SCENE = ROOT / "tests" / "fixtures" / "numbered" / "scene_0002.jpg"
FIGHTER = ROOT / "tests" / "fixtures" / "sessions" / "dice-fighter-demo"


def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def main() -> None:
        """test app"""

    register(a)
    return a


def real_d6_photos(n: int) -> list[Path]:
    photos = sorted((REAL / "skovy_d6" / "scenes").glob("*.jpg"))[:n]
    if not photos:
        pytest.skip(f"the shared real photos are not at {REAL} (skovy_d6/scenes)")
    return photos


def test_read_with_a_pip_d6_tables_config_reads_die_for_die_what_plain_read_reads(tmp_path: Path) -> None:
    photos = [str(p) for p in real_d6_photos(3)]
    toml = tmp_path / "table.toml"
    toml.write_text('[table]\ngame = "dice-hunter"\n\n[table.options]\ndeck = "virtual"\n', encoding="utf-8")
    plain = CliRunner().invoke(app(), ["read", "--json", *photos])
    table = CliRunner().invoke(app(), ["read", "--json", "--config", str(toml), *photos])
    assert plain.exit_code == 0 and table.exit_code == 0, (plain.output, table.output)
    a = [json.loads(x) for x in plain.stdout.strip().splitlines()]
    b = [json.loads(x) for x in table.stdout.strip().splitlines()]
    assert sum(len(x["dice"]) for x in a) >= 3  # the photos show dice
    for x, y in zip(a, b, strict=True):
        assert x["image"] == y["image"]
        assert x["dice"] == y["dice"]


def test_read_config_takes_no_reading_option_beside_it(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('[table]\ngame = "dice-hunter"\n', encoding="utf-8")
    res = CliRunner().invoke(app(), ["read", str(SCENE), "--config", str(toml), "--kinds", "d20"])
    assert res.exit_code != 0 and "--kinds" in res.output and "table.toml" in res.output
    bad = CliRunner().invoke(app(), ["read", str(SCENE), "--config", str(tmp_path / "none.toml")])
    assert bad.exit_code != 0 and "none.toml" in bad.output and "Traceback" not in bad.output


def test_read_config_reads_as_the_dice_fighter_table_reads_its_frames() -> None:
    """The demo table's config (board, calibration, percentile d10s): `read --config` gives each throw
    the values the table reads from the same frame."""
    cfg = session_config(FIGHTER)
    truth = json.loads((FIGHTER / "truth.json").read_text(encoding="utf-8"))["throws"][0]
    frame = cv2.imread(str(FIGHTER / truth["frame"]))
    perceiver = Perceiver.from_config(cfg)
    seen = perceiver.perceive(frame, colours={"red", "blue", "green"}, place_colours={"red", "blue", "green"})
    assert sorted(d.value for d in seen.dice) == sorted(d["value"] for d in truth["dice"])
    assert all(d.kind == "d10p" and d.place is not None for d in seen.dice)


def test_both_readers_are_one_reader_protocol() -> None:
    assert isinstance(reader_for("dice-hunter"), Reader)
    assert isinstance(reader_for("dice-fighter"), Reader)
    assert isinstance(reader_for("dice-hunter", ["d6", "d20"]), NumberedDice)


def test_the_numbered_reader_takes_the_where_steps_and_explains_what_they_reject() -> None:
    """A numbered table's empty-table step: a die only where the frame differs from the empty table
    (here the frame itself: nothing differs, so nothing is a die, and --explain says which step)."""
    image = cv2.imread(str(SCENE))
    reader = NumberedDice(("d20",))
    found = reader.read(image)
    assert found
    seen = reader.examine(image, where=[EmptyTable(image.copy())])
    assert seen.readings == []
    assert len(seen.rejected) >= len(found) and {r.step for r in seen.rejected} == {"empty table"}


def test_read_explain_takes_numbered_kinds(tmp_path: Path) -> None:
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), cv2.imread(str(SCENE)))
    res = CliRunner().invoke(app(), ["read", str(SCENE), "--json", "--kinds", "d20", "--empty", str(empty)])
    assert res.exit_code == 0, res.output
    (line,) = [json.loads(x) for x in res.stdout.strip().splitlines()]
    assert (
        line["dice"] == [] and line["rejected"] and {r["step"] for r in line["rejected"]} == {"empty table"}
    )


def test_a_reading_set_is_frozen_and_its_json_form_round_trips(tmp_path: Path) -> None:
    cfg = session_config(FIGHTER)
    truth = json.loads((FIGHTER / "truth.json").read_text(encoding="utf-8"))["throws"][0]
    frame = cv2.imread(str(FIGHTER / truth["frame"]))
    rs = Perceiver.from_config(cfg).perceive(frame, seq=7, t=2.5)
    assert isinstance(rs, ReadingSet) and rs.seq == 7 and rs.pose_found is True
    assert [d.id for d in rs.dice] == [f"r7.{i + 1}" for i in range(len(rs.dice))]
    for d in rs.dice:
        assert Reading.from_json(d.to_json()) == d
    with pytest.raises(AttributeError):
        rs.seq = 8  # type: ignore[misc]
    assert json.loads(json.dumps(rs.to_json()))["dice"] == [d.to_json() for d in rs.dice]


def test_the_table_reads_through_the_perception_step(tmp_path: Path) -> None:
    """The table's reading set is the perception step's, die for die, on the same frame."""
    cfg = session_config(FIGHTER)
    truth = json.loads((FIGHTER / "truth.json").read_text(encoding="utf-8"))["throws"][0]
    frame = cv2.imread(str(FIGHTER / truth["frame"]))
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"), resume=False)
    got: list[Any] = []
    table.reading_listeners.append(lambda rs, exp: got.append(rs))
    for player, fighter in (("ann", "lv3-ronin"), ("bob", "lv3-titan")):  # the round's secret picks
        table.apply(Input.from_json({"type": "secret", "player": player, "fighter": fighter}), "button", 0.5)
    table.on_settled(frame, 1.0, 1.0)
    table.log.close()
    want = Perceiver.from_config(cfg).perceive(
        frame, seq=1, t=1.0, colours={"red", "blue", "green"}, place_colours={"red", "blue", "green"}
    )
    assert got and got[0].dice == [d.to_json() for d in want.dice]


def test_a_frame_only_reader_is_given_the_frame_alone() -> None:
    """A test's or a recording's reader (a callable of the frame) reads through the same step."""
    calls: list[Any] = []
    p = Perceiver.of(
        as_reader(lambda img: calls.append(img) or [{"kind": "d6", "value": 4}]), VisionSection()
    )
    rs = p.perceive(np.zeros((48, 64, 3), np.uint8))
    assert len(calls) == 1 and [d.to_json() for d in rs.dice] == [
        {"kind": "d6", "value": 4, "id": "r1.1", "unsure": False}
    ]


def test_a_tilted_camera_without_a_calibration_is_read_as_the_config_says(tmp_path: Path) -> None:
    """Issue 35: ``[vision] estimate_tilt`` (and ``read --tilted``) reads pip d6 by the camera's tilt
    estimated from the dice; a steep render (59-60 degrees off vertical, no calibration), read as
    straight down, scores dice wrong at the asking threshold; read with the tilt estimated, it
    scores none wrong, and `read --tilted` reads die for die what the table of that config reads."""
    from training.render.oblique import STEEP, STEEP_TUNE_SEED, make_scene

    img, truth = make_scene(7, STEEP_TUNE_SEED, STEEP)
    photo = tmp_path / "steep.png"
    cv2.imwrite(str(photo), img)
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\ngame = "dice-hunter"\n\n[table.options]\ndeck = "virtual"\n'
        "\n[vision]\nestimate_tilt = true\n",
        encoding="utf-8",
    )
    boxes = [(d["box_px"], d["value"]) for d in truth["dice"]]

    def wrong_and_sure(dice: list[dict[str, Any]]) -> int:
        bad = 0
        for d in dice:
            x, y = d["center"]
            on = [v for (x0, y0, x1, y1), v in boxes if x0 <= x <= x1 and y0 <= y <= y1]
            bad += d["confidence"] >= 0.8 and (not on or d["value"] != on[0])
        return bad

    runs = {
        name: CliRunner().invoke(app(), ["read", "--json", *extra, str(photo)])
        for name, extra in {"plain": [], "tilted": ["--tilted"], "config": ["--config", str(toml)]}.items()
    }
    assert all(r.exit_code == 0 for r in runs.values()), {k: r.output for k, r in runs.items()}
    dice = {k: json.loads(r.stdout.strip().splitlines()[0])["dice"] for k, r in runs.items()}
    assert wrong_and_sure(dice["plain"]) >= 1  # straight down assumed: sure and wrong
    assert wrong_and_sure(dice["tilted"]) == 0 and any(d["confidence"] < 0.8 for d in dice["tilted"])
    assert dice["tilted"] == dice["config"]


def test_estimate_tilt_is_refused_for_numbered_dice_and_beside_kinds(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('[table]\ngame = "dice-fighter"\n\n[vision]\nestimate_tilt = true\n', encoding="utf-8")
    res = CliRunner().invoke(app(), ["read", "--json", "--config", str(toml), str(SCENE)])
    assert res.exit_code != 0 and "estimate_tilt" in res.output and "pip d6 only" in res.output
    assert "Traceback" not in res.output
    cli = CliRunner().invoke(app(), ["read", "--tilted", "--kinds", "d20", str(SCENE)])
    assert cli.exit_code != 0 and "--tilted" in cli.output and "d20" in cli.output
    beside = CliRunner().invoke(app(), ["read", "--tilted", "--config", str(toml), str(SCENE)])
    assert beside.exit_code != 0 and "--tilted" in beside.output
    with pytest.raises(ValueError, match="estimate_tilt"):
        VisionSection(estimate_tilt="yes")  # type: ignore[arg-type]
