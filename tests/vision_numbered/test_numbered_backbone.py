"""The pretrained-backbone classifier (numbered_backbone.onnx, issue 20 item 3): shipped Pi-sized,
read with `backbone=True` (the older classifier stays the default), and held-out real d20 read as d20.

The held-out d20 frames (d20_lurig's d20_top and d20_wood set-ups, `training/numbered/real.py`) were
never trained on: the backbone saw only the d20_color and d20_off-angle set-ups.  It reads their
KIND far better than the older classifier; their VALUES neither reads (MODELS.md, "Issue 20 item 3"),
so this test holds the kind, not the value."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from tests.real_photos import real_photos
from training.numbered.real import HELD_OUT_GROUPS, TABLE_SCALE, at_table, default_root, load_lurig
from vision.numbered.crop import BACKBONE_CROP, CROP
from vision.numbered.reader import BACKBONE_FILE, CLASSIFIER_FILE, MODELS, NumberedReader

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")
# Every STRIDE-th frame of the two held-out set-ups is read at the table's scale (`at_table`); the
# backbone must read at least BACKBONE_AT_LEAST of them as a d20, and MORE_THAN_OLD of them more than
# the older classifier does (measured on all 509: 97.6 % and 66.0 %,
# benchmarks/results/vision_numbered_backbone.md).
STRIDE = 20
BACKBONE_AT_LEAST = 0.85
MORE_THAN_OLD = 0.1


def test_the_backbone_is_shipped_pi_sized_and_read_when_asked() -> None:
    path = MODELS / BACKBONE_FILE
    assert path.is_file() and path.stat().st_size <= 10 * 2**20, path
    new = NumberedReader(backbone=True)
    assert (new.classifier_file, new.crop_side) == (BACKBONE_FILE, BACKBONE_CROP)
    old = NumberedReader()
    assert (old.classifier_file, old.crop_side) == (CLASSIFIER_FILE, CROP)


def test_a_models_folder_without_the_backbone_reads_with_the_older_classifier(tmp_path: Path) -> None:
    for f in [*MODELS.glob("numbered_*.onnx"), *MODELS.glob("numbered_*.json")]:  # nets and settings
        if f.name != BACKBONE_FILE:
            (tmp_path / f.name).symlink_to(f)
    r = NumberedReader(models=tmp_path, backbone=True)
    assert (r.classifier_file, r.crop_side) == (CLASSIFIER_FILE, CROP)


def test_crops_are_cut_at_the_classifier_side_and_handed_to_the_embedder_at_its_own() -> None:
    r = NumberedReader(backbone=True)
    img = np.full((480, 640, 3), 200, np.uint8)
    cv2.circle(img, (320, 240), 40, (30, 30, 160), -1)
    probs = r.classify([np.full((CROP, CROP, 3), 128, np.uint8)])  # a 48-px crop is resized, not refused
    assert probs.shape == (1, 47) and abs(float(probs.sum()) - 1) < 1e-4
    for _found, crop in r.top_faces(img):
        assert crop.shape == (CROP, CROP, 3)


def _d20s(reader: NumberedReader, items: list) -> int:  # type: ignore[type-arg]
    """How many of `items` the reader reads as a d20 (the reading nearest the die's centre)."""
    hits = 0
    for x in items:
        img = cv2.imread(str(x.path), cv2.IMREAD_COLOR)
        frame = at_table(img)
        c = (frame.shape[1] / 2, frame.shape[0] / 2)
        near = [r for r in reader.read(frame) if math.dist(r.center, c) <= 0.3 * TABLE_SCALE * img.shape[1]]
        die = min(near, key=lambda r: math.dist(r.center, c), default=None)
        hits += die is not None and die.kind == "d20"
    return hits


@needs_real
def test_the_shipped_backbone_reads_held_out_real_d20_as_d20_more_often_than_the_old_classifier() -> None:
    items = [x for x in load_lurig(REAL) if x.group in HELD_OUT_GROUPS][::STRIDE]
    assert len(items) >= 20
    new = _d20s(NumberedReader(backbone=True), items)
    old = _d20s(NumberedReader(), items)
    assert new >= BACKBONE_AT_LEAST * len(items), (new, old, len(items))
    assert new >= old + MORE_THAN_OLD * len(items), (new, old, len(items))
