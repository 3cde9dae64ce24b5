"""The roster's die sizes feed the table's pixels (issue 44, a small die in a full still): each die of
the roster that knows its edge (``size_mm``, set on the admin page) is a size in play beside ``[dice]
sizes_mm``, projected through the board's pose into the die-size step and a still's finer look,
which puts the smallest die at the detector's trained size (`vision.numbered.reader.die_side`); a
table that cannot see mm in pixels (no board and calibration) says so in ``check-config``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from controller.config import parse_config
from controller.die_sizes import size_notes, table_sizes_mm
from controller.perceive import Perceiver
from controller.roster import FORMAT
from controller.session import session_config
from controller.setup_check import check_table
from vision.numbered.reader import die_side

ROOT = Path(__file__).resolve().parents[2]
FIGHTER = ROOT / "tests" / "fixtures" / "sessions" / "dice-fighter-demo"


def _roster(folder: Path, table_id: str, *sizes: float | None) -> None:
    dice = [
        {"id": f"ann-red-{i}", "kind": "d10p", "owner": "ann", "colour": "red", "size_mm": s}
        for i, s in enumerate(sizes)
    ]
    path = folder / f"{table_id}.roster.json"
    path.write_text(json.dumps({"format": FORMAT, "dice": dice}), encoding="utf-8")


def _smallest_px(tmp_path: Path) -> float:
    """The smallest die side (px) the table's where steps expect in the demo's first frame."""
    cfg = session_config(FIGHTER)
    frame = cv2.imread(str(FIGHTER / json.loads((FIGHTER / "truth.json").read_text())["throws"][0]["frame"]))
    perceiver = Perceiver.from_config(cfg)
    assert perceiver.geometry is not None
    pose = perceiver.geometry.pose(frame)
    assert pose is not None
    side = die_side(perceiver.where.steps(frame, pose), frame.shape[1], frame.shape[0])
    assert side is not None
    return side


def test_the_rosters_smallest_die_sets_the_size_the_table_looks_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path))
    table_id = session_config(FIGHTER).table.id
    plain = _smallest_px(tmp_path)  # no roster: the dice set's sizes alone (16 mm by default)
    _roster(tmp_path, table_id, 10.0, None, 16.0)
    assert table_sizes_mm(session_config(FIGHTER)) == [10.0, 16.0]
    small = _smallest_px(tmp_path)
    # a 10 mm die is about 10/16 of a 16 mm die's pixels through the same pose
    assert 0.55 < small / plain < 0.7, (small, plain)
    # a roster with no size known: as without one
    _roster(tmp_path, table_id, None)
    assert _smallest_px(tmp_path) == pytest.approx(plain)


def test_a_table_that_cannot_see_the_rosters_mm_in_pixels_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path))
    cfg = parse_config({"table": {"game": "die-angler", "id": "t1"}})
    assert size_notes(cfg) == []  # no roster: nothing to say
    _roster(tmp_path, "t1", 12.0)
    ((key, note),) = size_notes(cfg)
    assert key == "roster" and "12 mm" in note and "no board and calibration" in note
    assert "die_size_px" in note
    # check-config says it (a note: never refused)
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\ngame = "die-angler"\nid = "t1"\n[camera]\nsource = "v4l2:0"\n', encoding="utf-8"
    )
    check = check_table(toml, offline=True)
    assert ("roster", note) in check.notes and not any(k == "roster" for k, _ in check.problems)
    # the size in pixels configured: nothing to say
    sized = parse_config({"table": {"game": "die-angler", "id": "t1"}, "vision": {"die_size_px": [20, 40]}})
    assert size_notes(sized) == []
    # a refused roster file: its own check says why, not this note
    (tmp_path / "t1.roster.json").write_text("{", encoding="utf-8")
    assert size_notes(cfg) == [] and table_sizes_mm(cfg) is None


def test_a_table_whose_camera_takes_stills_and_knows_no_die_size_is_told_small_dice_need_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path))
    cfg = parse_config({"table": {"game": "die-angler", "id": "t1"}, "camera": {"source": "picam"}})
    ((key, note),) = size_notes(cfg)
    assert key == "vision.die_size_px" and "picam" in note and "1600x900" in note and "die_size_px =" in note
    assert size_notes(cfg, "v4l2:0")[0][0] == "vision.die_size_px"  # `run --camera`'s camera
    # a camera that takes no stills (a recording without them, a still photo): nothing to say
    assert size_notes(cfg, f"recorded:{FIGHTER}") == [] and size_notes(cfg, "file:x.png") == []
    # the size in pixels known: nothing to say
    sized = parse_config(
        {"table": {"game": "die-angler"}, "camera": {"source": "picam"}, "vision": {"die_size_px": [9, 25]}}
    )
    assert size_notes(sized) == []
    # check-config prints it (a note, never refused)
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\ngame = "die-angler"\nid = "t1"\n[camera]\nsource = "v4l2:0"\n', encoding="utf-8"
    )
    check = check_table(toml, offline=True)
    assert any(k == "vision.die_size_px" for k, _ in check.notes) and not check.problems
