"""A learnt set reads back the frames it was taught from (issue 44 item 2), on real frames: the d20s
of d20_wood (hand-held over wood, daylight; 10 faces) taught 4 frames of each face the way
`dicetable learn-dice see`/`confirm` teach them (`benchmarks.learn_readback.learn`: the learning
perception step, its crops grouped, each group named by the face most of its crops show), then each
taught frame read by `read` with the set.

The issue's target is >= 99 % of them; reached: 36 of 40 (90 %) with the die cut on its own outline
(`DiceSet.crop` "die", issue 44 item 2, named in the set file; 35 with the box crop; 34
before `reader.SAME`: a die whose crop was 1.0 alike to the very picture taught as 3 was read as the
OCR head's 9).  What keeps it under 99 %: benchmarks/RESULTS.md, issue 44 item 2 (frames the
learning step finds no die in, a die centred apart by the learning step and `read`, a crop grouped
with another face's)."""

from __future__ import annotations

import pytest

from benchmarks.harness import imread
from benchmarks.learn_readback import learn, read, taught_and_later
from training.numbered.real import at_table, default_root, load_lurig
from vision.numbered.reader import NumberedReader

REAL = default_root()
#: the level reached (of 40 taught frames); the target is 40
REACHED = 36


@pytest.mark.skipif(
    not (REAL / "d20_lurig" / "labels.csv").is_file(),
    reason=f"the shared real photos are not at {REAL} (d20_lurig/)",
)
def test_a_learnt_set_reads_its_own_learn_frames_back() -> None:
    items = [x for x in load_lurig(REAL) if x.group == "d20_wood"]
    taught, _ = taught_and_later(items, 4)
    frames = [(x, at_table(imread(x.path))) for x in taught]
    reader = NumberedReader()
    learnt, _, wrong = learn(reader, frames, "die")  # the set names its crop (issue 44 item 2)
    assert learnt.crop == "die"
    assert wrong <= 1, wrong
    got = read(reader, frames, learnt)
    assert got["frames"] == 40
    assert got["right"] >= REACHED, got
    assert got["silent"] == 0, got
