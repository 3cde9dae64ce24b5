"""End to end, every game: `dicetable demo --game NAME` plays its recorded session through the
real motion gate, the real vision reader and (for secret choices) the real GPIO panel machinery,
and must reach the result the session's generator computed from the true dice values."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
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


#: DICETAR WARS's session stacks a die on another twice per half: no camera sees the bottom one's top
#: face, but the table saw it in the frame before and carries it over (calibration.memory).

#: at most this share of the dice thrown may be asked about, or have their value corrected, by the
#: recorded referee (it answers only what the table asks about; a confirmation keeps the camera's
#: value): beyond it the result would be the referee's, not the camera's
REFEREE_SHARE = 0.1


def dice_thrown(truth: dict[str, Any]) -> int:
    settled = sum(len(s["dice"]) for s in truth.get("settled", []) if s.get("throw", True))
    return settled + sum(len(t["dice"]) for t in truth.get("throws", []))


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
    thrown = dice_thrown(truth)
    assert out["referee_corrections"] <= max(1, REFEREE_SHARE * thrown), (
        f"{game}: the referee corrected {out['referee_corrections']} of {thrown} dice thrown"
    )
    # ... nor be asked about more: a reader that reads right but unsure makes the game a chore (session
    # 4's numbered detector asked about 3 of Dice Fighter's 24 dice it read right)
    assert out["referee_answers"] <= max(1, REFEREE_SHARE * thrown), (
        f"{game}: the referee was asked {out['referee_answers']} times for {thrown} dice thrown"
    )
    if game == "dicetar-wars":
        # the two dice landed on twice per half were seen before they were covered: nobody is asked
        assert out["referee_hidden"] == 0 and out["referee_answers"] == 0, out


# -- the same loop with an oracle for the pixels: everything but the dice reader is real ---------------------


def oracle_reader(folder: Path, truth: dict[str, Any]) -> Any:
    """Reads each throw's frame as the generator's true dice (kind, value, colour, top-face quad).

    Board geometry, the engine, the script and the panels stay real; "thrower" is left out
    (the camera cannot know it: the table must ask).
    """
    frames: dict[str, list[dict[str, Any]]] = {}
    for still in truth.get("settled", []):  # drawn sessions: [value, colour] per die, no board
        image = cv2.imread(str(folder / still["file"]))
        frames[hashlib.sha1(image.tobytes()).hexdigest()] = [
            {"kind": "d6", "value": v, "colour": c, "confidence": 0.99} for v, c in still["dice"]
        ]
    for throw in truth.get("throws", []):
        image = cv2.imread(str(folder / throw["frame"]))
        frames[hashlib.sha1(image.tobytes()).hexdigest()] = [
            {
                "kind": d["kind"],
                "value": d["value"],
                "colour": d["colour"],
                "confidence": 0.99,
                "quad": d["top_quad_px"],
                "center": np.mean(d["top_quad_px"], axis=0).tolist(),
            }
            for d in throw["dice"]
        ]

    def read(image: np.ndarray) -> list[dict[str, Any]]:
        return [dict(d) for d in frames.get(hashlib.sha1(image.tobytes()).hexdigest(), [])]

    return read


@pytest.mark.parametrize("game", GAMES)
def test_true_dice_reach_the_true_result_through_the_rest_of_the_loop(game: str, tmp_path: Path) -> None:
    """Geometry (board games), secret presses on the mock GPIO panels, scripted choices and answers."""
    folder = session_or_skip(game)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    throws = truth.get("throws", [])
    if not truth.get("settled") and not (
        throws and all("top_quad_px" in d for t in throws for d in t["dice"])
    ):
        pytest.skip(f"{folder}/truth.json lists no settled frames with their true dice")
    from controller.eventlog import EventLog
    from controller.live import load_script, play
    from controller.session import session_config
    from controller.table import Table
    from hardware.frames import RecordedSource

    cfg = session_config(folder)
    # the oracle's quads are the exact top faces, not a reader's boxes about the dice
    cfg = cfg.model_copy(update={"board": cfg.board.model_copy(update={"fit": "none"})})
    table = Table(cfg, EventLog(tmp_path / "o.sqlite3"), reader=oracle_reader(folder, truth), resume=False)
    table.pending = load_script(folder / "script.jsonl")
    play(table, RecordedSource(folder))
    result = table.game.result()
    assert table.status == "over", table.snapshot()["waiting_for"]
    assert table.game.scores() == truth["final_scores"]
    assert result is not None and list(result.winners) == truth["winners"]
    table.log.close()
