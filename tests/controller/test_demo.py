"""The demo, the main job: a recorded Dice Hunter game read from its pixels and scored."""

from __future__ import annotations

import csv
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
TRUTH = json.loads((SESSION / "truth.json").read_text())

pytestmark = pytest.mark.slow


def demo(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "demo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_headless_demo_scores_match_the_generators_ground_truth(tmp_path: Path) -> None:
    res = demo("--no-serve", "--json", "--db", str(tmp_path / "demo.sqlite3"))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["scores"] == TRUTH["final_scores"]
    assert out["winners"] == TRUTH["winners"]
    assert out["rolls_read"] == len(TRUTH["rolls"])
    assert out["status"] == "over"
    # the recorded referee answers only the table's questions; the pixels decide the rest
    dice = sum(len(r) for r in TRUTH["rolls"])
    assert out["referee_answers"] <= dice // 20


def test_without_the_referee_the_demo_stops_at_a_question_it_cannot_answer(tmp_path: Path) -> None:
    res = demo("--no-serve", "--json", "--no-referee", "--db", str(tmp_path / "q.sqlite3"))
    if res.returncode == 0:  # every reading was sure enough: nothing was asked
        out = json.loads(res.stdout.strip().splitlines()[-1])
        assert out["referee_answers"] == 0 and out["scores"] == TRUTH["final_scores"]
    else:
        assert "the session ended before the game did" in res.stderr
        assert "Traceback" not in res.stderr


def _settled_files(folder: Path) -> list[str]:
    """Frame files shown for a long still spell: the dice at rest after each roll."""
    with (folder / "frames.csv").open() as f:
        rows = list(csv.DictReader(f))
    runs = Counter(r["file"] for r in rows)
    return [name for name, n in runs.items() if n >= 12]


def test_a_changed_frame_changes_the_result(tmp_path: Path) -> None:
    copy = tmp_path / "session"
    shutil.copytree(SESSION, copy)
    settled = _settled_files(copy)
    assert len(settled) == len(TRUTH["rolls"])
    # the last roll (five 1s: the reversal tile wins) now shows the first roll's dice
    shutil.copyfile(copy / settled[0], copy / settled[-1])
    res = demo("--no-serve", "--json", "--session", str(copy), "--db", str(tmp_path / "d.sqlite3"))
    if res.returncode == 0:
        out = json.loads(res.stdout.strip().splitlines()[-1])
        assert (out["scores"], out["winners"]) != (TRUTH["final_scores"], TRUTH["winners"])
    else:
        assert "error:" in res.stderr and "Traceback" not in res.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_demo_serves_the_display_while_it_plays(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller",
            "demo",
            "--port",
            str(port),
            "--linger",
            "30",
            "--db",
            str(tmp_path / "s.sqlite3"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        state = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as r:
                    state = json.loads(r.read())
                if state.get("status") == "over":
                    break
            except OSError:
                pass
            time.sleep(0.3)
        assert state is not None, "the display never answered"
        assert state["status"] == "over"
        assert state["state"]["scores"] == TRUTH["final_scores"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert b"<html" in r.read().lower()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
