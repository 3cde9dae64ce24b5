"""A learnt set reads back the frames it was taught from (issue 44 item 2), on real frames: the d20s
of d20_wood (hand-held over wood, daylight; 10 faces) taught 4 frames of each face the way
`dicetable learn-dice see`/`confirm` teach them (`benchmarks.learn_readback.learn`: the learning
step's dice, `learn_dice.dice_in`; each cut where `read` finds it, on its own outline; grouped by
`learn_dice.group_faces`; each group named by the face most of its crops show), then each taught
frame read as `dicetable read --config` reads it (the perception step with the set).

The issue's target is >= 99 % of them.  Before this round 36 of 40 (90 %): 2 frames the learning step
found no die in, 2 dice cut at another centre than `read` cut them (the pip reader's box against the
detector's), 1 crop grouped with another face's (benchmarks/RESULTS.md, issue 44 item 2)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
from typer.testing import CliRunner

from benchmarks.harness import imread
from benchmarks.learn_readback import learn, read, taught_and_later
from tests.real_photos import real_photos
from training.numbered.real import TABLE_STILL, at_table, default_root, load_lurig
from vision.numbered.reader import NumberedReader

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")
#: the level reached (of 40 taught frames); the target is 40 (>= 99 %)
REACHED = 40


@needs_real
def test_a_learnt_set_reads_its_own_learn_frames_back() -> None:
    items = [x for x in load_lurig(REAL) if x.group == "d20_wood"]
    taught, _ = taught_and_later(items, 4)
    frames = [(x, at_table(imread(x.path)), None) for x in taught]
    reader = NumberedReader()
    learnt, grouping = learn(reader, frames, "after")
    assert learnt.crop == "die"
    assert grouping["missed"] == 0 and grouping["wrong"] == 0, grouping
    got = read(reader, frames, learnt)
    assert got["frames"] == 40
    assert got["right"] >= REACHED, got
    assert got["silent"] == 0, got


@needs_real
def test_a_frame_the_perception_step_reads_no_die_in_still_teaches_the_die() -> None:
    """d20_wood's face 12 at frame 437: the classifier calls the die no die, so the perception step
    reads none; `read` with a set that knows it keeps it.  The learning step takes the detector's
    strongest peak there (`dice_in`), unread (no value)."""
    from controller.learn_dice import dice_in, learning_perceiver

    x = next(x for x in load_lurig(REAL) if x.group == "d20_wood" and x.face == 12 and x.frame == 437)
    img = at_table(imread(x.path))
    reader = NumberedReader()
    perceiver = learning_perceiver("d20", None, False, reader)
    assert not perceiver.perceive(img).dice  # the case: the perception step reads no die
    dice = dice_in(perceiver, reader, img, "d20")
    assert len(dice) == 1 and dice[0]["unread"] and dice[0]["value"] is None
    assert math.dist(dice[0]["center"], (img.shape[1] / 2, img.shape[0] / 2)) < 80, dice


@needs_real
def test_see_says_which_frame_showed_no_die(tmp_path: Path) -> None:
    from controller.cli import app

    x = next(x for x in load_lurig(REAL) if x.group == "d20_top" and x.face == 9)
    die, bare = tmp_path / "die.png", tmp_path / "bare.png"
    cv2.imwrite(str(die), at_table(imread(x.path)))
    cv2.imwrite(str(bare), np.full((TABLE_STILL[1], TABLE_STILL[0], 3), 200, np.uint8))
    args = ["learn-dice", "see", str(die), str(bare), "--set", "red", "--kind", "d20"]
    run = CliRunner().invoke(app, [*args, "--session", str(tmp_path / "s")])
    assert run.exit_code == 0, run.output
    assert f"{bare}: no die found" in run.output and f"{die}: no die" not in run.output
