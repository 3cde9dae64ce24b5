"""`dicetable read --config table.toml` reads against the empty table the running table reads
against: the picture it learnt again (controller.empty_learn, saved beside the stored one) when that
is newer than `dicetable calibrate empty`'s, and says which one in --json and --explain.  Before, it
read against the stored picture only, so what had been put down since (a page of text, a die of
another set at the edge) was read as dice the table itself no longer sees."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.controller.teach_scene import empty_table, needs_real, place, roll, write
from tests.controller.test_perceive import app


def _table(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A Die-angler table whose stored empty table (taken an hour ago) is the bare table, and the
    picture it learnt again since, with the page and the other d20 that have lain there since."""
    bare = empty_table().copy()
    bare[:] = empty_table()[480, 640]  # the table's own colour, nothing on it
    stored = write(bare, tmp_path / "empty.png")
    os.utime(stored, (time.time() - 3600,) * 2)
    learnt = write(empty_table(), tmp_path / "empty.learnt.png")  # where the table saves it
    frame = write(roll(5, 0), tmp_path / "frame.png")
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\ngame = "die-angler"\nkinds = ["d6", "d10", "d20"]\n'
        f'[vision]\nempty_table_frame = "{stored}"\n[database]\npath = "{tmp_path / "t.sqlite3"}"\n',
        encoding="utf-8",
    )
    return toml, stored, learnt, frame


def _read(*args: str) -> dict[str, Any]:
    res = CliRunner().invoke(app(), ["read", "--json", *args])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


@needs_real
def test_read_config_reads_against_the_empty_table_the_table_learnt_again(tmp_path: Path) -> None:
    toml, stored, learnt, frame = _table(tmp_path)
    got = _read("--config", str(toml), str(frame))
    assert got["empty_table"]["file"] == str(learnt) and got["empty_table"]["source"] == "re-learnt"
    # the die rolled, alone: the page and the d20 lying at the edge are part of the table now
    assert len(got["dice"]) == 1, got["dice"]
    (x, y), (px, py) = got["dice"][0]["center"], place(0)
    assert abs(x - px) < 40 and abs(y - py) < 40
    # read against the stored picture alone (what read --config did before), they are dice
    plain = _read("--empty", str(stored), str(frame))
    assert len(plain["dice"]) > 1, plain["dice"]

    # a picture stored again after the table learnt its own is the newer one: it is used
    os.utime(learnt, (time.time() - 7200,) * 2)
    got = _read("--config", str(toml), str(frame))
    assert got["empty_table"]["file"] == str(stored) and got["empty_table"]["source"] == "calibrate empty"
    assert len(got["dice"]) > 1


@needs_real
def test_read_config_explain_names_the_empty_table_it_read_against(tmp_path: Path) -> None:
    toml, _stored, learnt, frame = _table(tmp_path)
    res = CliRunner().invoke(app(), ["read", "--explain", "--config", str(toml), str(frame)])
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith(f"empty table: {learnt} (learnt again by the running table, "), first
    learnt.unlink()
    res = CliRunner().invoke(app(), ["read", "--explain", "--config", str(toml), str(frame)])
    assert res.output.splitlines()[0].startswith(f"empty table: {_stored} (calibrate empty, "), res.output
