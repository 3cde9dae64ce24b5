"""What a new user reads first (issue 48 item 7): `serve-fake` says what the table waits for and
where to act (it used to start on "waits for: reveal" with nothing saying the reveal is a button on
the admin page), and the demo's first lines fit an 80-column terminal (the event log's path was
broken across two lines)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from table_rig import Rig, d6
from test_dev_sh import checkout  # noqa: F401  (the stand-in checkout fixture)

from controller.drawn_camera import where_to_act
from display.server import free_port

ROOT = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8000"


def test_serve_fake_starts_by_saying_what_it_waits_for_and_where_to_act() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve-fake", "--port", str(free_port()), "--every", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().rstrip("\n") for _ in range(5)]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert lines[3] == "waits for: reveal", lines
    assert "button on the admin page" in lines[4] and lines[4].endswith("/admin"), lines
    assert any(line.strip().startswith("admin page: http://") for line in lines[:3]), lines
    assert all(len(line) <= 80 for line in lines), [len(line) for line in lines]


def lines_of(snap: dict[str, Any], every: float = 4.0) -> list[str]:
    said = where_to_act(snap, URL, every).splitlines()
    assert len(said) == 2 and all(len(line) <= 80 for line in said), said
    return said


def test_each_thing_a_table_waits_for_says_where_to_act(make_rig: Any) -> None:
    rig: Rig = make_rig(options={"deck": "virtual"})
    assert lines_of(rig.table.snapshot()) == [
        "waits for: roll from ann",
        "  -> nothing to do: the drawn camera throws every 4 s",
    ]
    assert "type the dice in on the admin page" in lines_of(rig.table.snapshot(), every=0)[1]
    rig.settle([d6(3), d6(3), d6(3, confidence=0.4), d6(5), d6(6)])
    asked = lines_of(rig.table.snapshot())
    assert asked[0].startswith("waits for: a person: Is die r1.3") and "admin page" in asked[1]
    rig.table.correct({"action": "confirm", "reading": "r1.3"}, "ref")
    assert lines_of(rig.table.snapshot())[1] == f"  -> choose with a button on the admin page: {URL}/admin"
    rig.table.correct({"action": "pause"}, "ref")
    assert "Start / resume" in lines_of(rig.table.snapshot())[1]
    angler: Rig = make_rig(
        game="die-angler", players=[("ann", "red"), ("bob", "blue")], options={"deck": "virtual"}
    )
    assert "button panels" in lines_of(angler.table.snapshot())[1]


@pytest.mark.slow
def test_the_demos_first_lines_fit_80_columns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "DICETABLE_DATA_DIR": str(home / ".local" / "share" / "dicetable"),
        "COLUMNS": "80",
        "PYTHONPATH": str(ROOT),
    }
    args = ["demo", "--game", "dice-fighter", "--port", str(free_port()), "--linger", "0"]
    out = subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stderr.splitlines()
    shown = next(line for line in lines if line.startswith("event log: "))
    assert shown.startswith("event log: ~/.local/share/dicetable/demo-dice-fighter-"), shown
    assert shown.endswith(".sqlite3") and len(shown) <= 80, shown  # the whole path, on one line
    assert lines[lines.index(shown) - 1].startswith("display: http://127.0.0.1:"), lines[:3]
    first = lines[: lines.index(shown) + 1]
    assert all(len(line) <= 80 for line in first), first


def test_dev_sh_demos_first_lines_fit_80_columns(checkout: tuple[Path, Path, dict[str, str]]) -> None:  # noqa: F811
    repo, _log, env = checkout  # a stand-in venv: dev.sh's own words, nothing installed
    out = subprocess.run(
        ["bash", str(repo / "dev.sh"), "demo", "--no-serve"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stderr.splitlines() if line.startswith("\x1b[1m==> ")]
    assert said, out.stderr
    assert all(len(line.removeprefix("\x1b[1m").removesuffix("\x1b[0m")) <= 80 for line in said), said
