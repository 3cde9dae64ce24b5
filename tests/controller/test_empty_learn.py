"""The empty table is learnt again when nothing moves and nothing new lies on the board (issue 30
item 1, controller.empty_learn): a die lying on the board through the whole learn is never absorbed
(the white die on the white paper the detector misses included), the lights' change is followed,
a moved camera is learnt again once the board shows no die, a hand never; the learnt picture is
written atomically beside the stored one and a restarted table uses it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.empty_relearn import perceiver_for  # the benchmark's table, read the same way
from benchmarks.scenes import empty_frame
from controller.empty_learn import EmptyLearning, learnt_path, load_learnt
from controller.perceive import Perceiver
from vision.reader import DiceReader

ROOT = Path(__file__).resolve().parents[2]
LOW = ROOT / "tests" / "fixtures" / "lowcontrast"


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.fixture(scope="module")
def scene() -> dict[str, Any]:
    """Low-contrast scene 12: its frame, its empty table (same camera and light), and its die 4, a
    white 1 on the board's white paper that the detector alone misses."""
    truth = json.loads((LOW / "scene_0012.json").read_text()) | {"_dir": str(LOW)}
    image = cv2.imread(str(LOW / truth["image"]), cv2.IMREAD_COLOR)
    return {"truth": truth, "image": image, "empty": empty_frame(truth)}


def one_die(scene: dict[str, Any], i: int, base: np.ndarray | None = None) -> np.ndarray:
    """The empty table (or ``base``) with die ``i`` of the scene pasted in: the frame's pixels in a
    box round its top face, grown to take its sides and shadow."""
    out = (scene["empty"] if base is None else base).copy()
    q = np.asarray(scene["truth"]["dice"][i]["top_quad_px"], np.float64)
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    side = max(x1 - x0, y1 - y0)
    xa, ya = int(x0 - 0.6 * side), int(y0 - 0.6 * side)
    xb, yb = int(x1 + 0.6 * side), int(y1 + 0.6 * side)
    out[ya:yb, xa:xb] = scene["image"][ya:yb, xa:xb]
    return out


def lit(img: np.ndarray, gains: tuple[float, float, float], seed: int = 3) -> np.ndarray:
    """The same table under another light: each channel's gain, a slow shading across the table,
    its own sensor noise."""
    w = img.shape[1]
    shade = np.linspace(0.92, 1.05, w, dtype=np.float32)[None, :, None]
    noise = np.random.default_rng(seed).normal(0, 1.5, img.shape)
    out = img.astype(np.float32) * np.asarray(gains, np.float32) * shade + noise
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def learner(perceiver: Perceiver, empty: np.ndarray, tmp_path: Path) -> EmptyLearning:
    perceiver.set_empty(empty)
    return EmptyLearning(
        perceiver, tmp_path / "empty.learnt.png", clock=lambda: 1000.0, still_s=2.0, retry_s=10.0
    )


def feed(
    learn: EmptyLearning, frame: np.ndarray, seconds: float, state: str = "empty", t0: float = 0.0
) -> int:
    """``seconds`` of frames (every half second) in one gate state; how many were learnt."""
    return sum(learn.see(frame, t0 + k * 0.5, state) for k in range(int(seconds / 0.5) + 1))


def test_a_white_die_on_white_paper_lying_through_the_learn_is_never_absorbed(
    scene: dict[str, Any], reader: DiceReader, tmp_path: Path
) -> None:
    die = scene["truth"]["dice"][4]
    assert die["colour"] == "white" and die["zones"] == []
    stale = scene["empty"]
    learn = learner(perceiver_for(scene["truth"], reader), stale, tmp_path)
    frame = one_die(scene, 4)
    assert feed(learn, frame, 60.0) == 0  # a minute still on the board: judged six times, refused
    assert learn.picture is stale and learn.refused is not None
    assert not (tmp_path / "empty.learnt.png").exists()
    # under a changed light too: the die is no part of the light
    assert feed(learn, lit(frame, (0.85, 0.95, 1.08)), 30.0, t0=100.0) == 0
    assert learn.picture is stale


def test_the_light_is_followed_and_the_picture_saved_beside_the_stored_one(
    scene: dict[str, Any], reader: DiceReader, tmp_path: Path
) -> None:
    stale = scene["empty"]
    learn = learner(perceiver_for(scene["truth"], reader), stale, tmp_path)
    evening = lit(stale, (0.8, 0.9, 1.1))
    assert feed(learn, evening, 1.5) == 0  # not still long enough yet
    assert feed(learn, evening, 1.0, t0=1.5) == 1
    assert learn.picture is not stale and np.array_equal(learn.picture, evening)
    assert learn.status() == {"learnt_at": 1000.0, "source": "re-learnt", "refused": None}
    got = load_learnt(tmp_path / "empty.learnt.png", None)
    assert got is not None and np.array_equal(got[0], evening)
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]  # written by a rename


def test_moving_or_a_hand_starts_the_still_spell_again(
    scene: dict[str, Any], reader: DiceReader, tmp_path: Path
) -> None:
    stale = scene["empty"]
    learn = learner(perceiver_for(scene["truth"], reader), stale, tmp_path)
    evening = lit(stale, (0.8, 0.9, 1.1))
    for k in range(20):  # still for 1.5 s at a time, then a hand: never still for 2 s
        t = k * 2.0
        assert not learn.see(evening, t, "empty") and not learn.see(evening, t + 1.5, "empty")
        assert not learn.see(evening, t + 1.9, "handled" if k % 2 else "rolling")
    assert learn.picture is stale


def test_an_arm_held_still_is_not_learnt(scene: dict[str, Any], reader: DiceReader, tmp_path: Path) -> None:
    stale = scene["empty"]
    learn = learner(perceiver_for(scene["truth"], reader), stale, tmp_path)
    arm = stale.copy()
    cv2.ellipse(arm, (1280, 500), (420, 110), 10, 0, 360, (120, 150, 215), -1)  # skin, from the edge
    assert learn.judge(arm) == "a hand or an arm lies in view"
    assert learn.judge(lit(stale, (0.9, 1.0, 1.05))) is None


def test_a_moved_camera_is_learnt_again_unless_a_die_lies_there(
    scene: dict[str, Any], reader: DiceReader, tmp_path: Path
) -> None:
    stale = scene["empty"]
    learn = learner(perceiver_for(scene["truth"], reader), stale, tmp_path)
    shift = np.float32([[1, 0, 24], [0, 1, -18]])
    moved = cv2.warpAffine(stale, shift, (stale.shape[1], stale.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    with_dice = cv2.warpAffine(
        scene["image"], shift, (stale.shape[1], stale.shape[0]), borderMode=cv2.BORDER_REPLICATE
    )
    assert learn.judge(with_dice) is not None  # the scene's ten dice
    assert learn.judge(moved) is None


def test_a_restarted_table_uses_the_picture_learnt_last(tmp_path: Path) -> None:
    stored = tmp_path / "empty.png"
    old = np.full((60, 80, 3), 200, np.uint8)
    cv2.imwrite(str(stored), old)
    path = learnt_path(stored, None)
    assert path == tmp_path / "empty.learnt.png"
    assert learnt_path(None, tmp_path / "table.sqlite3") == tmp_path / "table.empty.learnt.png"
    assert load_learnt(path, stored) is None  # none learnt yet
    cv2.imwrite(str(path), np.full((60, 80, 3), 180, np.uint8))
    got = load_learnt(path, stored)
    assert got is not None and int(got[0][0, 0, 0]) == 180
    os.utime(stored, (got[1] + 10, got[1] + 10))  # calibrated again since: the stored one wins
    assert load_learnt(path, stored) is None


def check_config(path: Path) -> Any:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "controller", "check-config", "--offline", str(path)],  # v4l2:0: elsewhere
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_check_config_says_when_the_stored_empty_table_is_old_or_missing(tmp_path: Path) -> None:
    from controller.config import load_config
    from controller.empty_learn import stored_notes

    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((48, 64, 3), 200, np.uint8))
    toml = tmp_path / "table.toml"
    base = '[table]\ngame = "dice-hunter"\n[camera]\nsource = "v4l2:0"\n'
    base += f'[database]\npath = "{tmp_path}/t.sqlite3"\n'
    toml.write_text(base, encoding="utf-8")
    res = check_config(toml)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "note: vision.empty_table_frame: none stored" in res.stdout
    assert "dicetable calibrate empty FRAME --out empty.png" in res.stdout

    toml.write_text(base + f'[vision]\nempty_table_frame = "{empty}"\n', encoding="utf-8")
    assert "empty_table_frame" not in check_config(toml).stdout  # taken just now: nothing to say
    month = time.time() - 30 * 86400
    os.utime(empty, (month, month))
    res = check_config(toml)
    assert res.returncode == 0 and "note: vision.empty_table_frame: old: taken 30 day(s) ago" in res.stdout
    # the table learnt it again since (beside it): the stored picture's age is no worry
    cv2.imwrite(str(tmp_path / "empty.learnt.png"), np.full((48, 64, 3), 190, np.uint8))
    assert stored_notes(load_config(toml)) == []
