"""benchmarks/learnt_cli.py's careful person names a crop within a die's side of the die's true centre
the die, as `read` is scored there: a photo whose die is not measured is centred on its middle, up to
~40 px off the die at 60 px (d20_wood's face 14 at frame 1263: 43 px; its crop was named not the die
and its learn frame read back wrong, 39 of 40)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from benchmarks.learnt_cli import Shot, name_groups


def test_a_crop_a_little_off_the_measured_centre_is_named_the_die(tmp_path: Path) -> None:
    frame = str(tmp_path / "f.png")
    seen = [
        {"frame": frame, "centre": [343.0, 472.0], "group": 0},  # the die, 43 px off the centre given
        {"frame": frame, "centre": [1230.0, 330.0], "group": 1},  # the relay board
    ]
    (tmp_path / "seen.json").write_text(json.dumps({"seen": seen}), encoding="utf-8")
    got = name_groups(tmp_path, [Shot(Path(frame), 14, (300.0, 472.0))])
    rows = list(csv.DictReader((tmp_path / "confirm.csv").open(encoding="utf-8")))
    assert [r["face"] for r in rows] == ["14", "-"]
    assert got["not the die"] == 1 and got["misnamed"] == 0
