"""End to end, every game: `dicetable demo --game NAME` plays its recorded session through the
real motion gate, the real vision reader and (for secret choices) the real GPIO panel machinery,
and must reach the result the session's generator computed from the true dice values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
GAMES = ("die-angler", "dice-hunter", "nozoku-dice", "dicetar-wars", "dice-fighter")

DEMO = (sys.executable, "-m", "controller", "demo")

pytestmark = pytest.mark.slow


def session_or_skip(game: str) -> Path:
    folder = SESSIONS / f"{game}-demo"
    if not (folder / "frames.csv").is_file() or not (folder / "truth.json").is_file():
        pytest.skip(f"no recorded session for {game} yet at {folder} (its generator has not been run)")
    return folder


@pytest.mark.parametrize("game", GAMES)
def test_demo_reaches_the_true_result(game: str, tmp_path: Path) -> None:
    folder = session_or_skip(game)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    res = subprocess.run(
        [*DEMO, "--game", game, "--no-serve", "--json", "--db", str(tmp_path / "demo.sqlite3")],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == 0, f"{game}: {res.stderr[-2000:]}"
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["status"] == "over"
    assert out["scores"] == truth["final_scores"]
    assert out["winners"] == truth["winners"]


@pytest.mark.parametrize("game", GAMES)
def test_run_with_the_sessions_config_reaches_the_true_result(game: str, tmp_path: Path) -> None:
    """`dicetable run` on the same recording (the same loop, from a table.toml) agrees."""
    folder = session_or_skip(game)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    from controller.live import run_live
    from controller.session import session_config

    cfg = session_config(folder)
    cfg = cfg.model_copy(
        update={"database": cfg.database.model_copy(update={"path": str(tmp_path / "t.db")})}
    )
    out = run_live(cfg, serve=False)
    assert (out["status"], out["scores"], out["winners"]) == ("over", truth["final_scores"], truth["winners"])
