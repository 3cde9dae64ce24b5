"""The pretrained-backbone classifier (numbered_backbone.onnx, issue 20 item 3): shipped small, read by
default, the older classifier still selectable, and real held-out d20 read right.

The held-out d20 frames (d20_lurig's d20_top and d20_wood set-ups, `training/numbered/real.py`) were
never trained on: the backbone saw only the d20_color and d20_off-angle set-ups."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from training.numbered.real import HELD_OUT_GROUPS, default_root, load_lurig
from vision.numbered.crop import BACKBONE_CROP, CROP
from vision.numbered.reader import BACKBONE_FILE, CLASSIFIER_FILE, MODELS, NumberedReader

REAL = default_root()
needs_real = pytest.mark.skipif(
    not (REAL / "d20_lurig" / "labels.csv").is_file(),
    reason=f"the shared real photos are not at {REAL} (d20_lurig/)",
)
# Held-out frames read here: every STRIDE-th frame of the two held-out set-ups, and how many of them
# each classifier must read right (kind d20 and the labelled face; the reader at a table of d20s).
STRIDE = 20
BACKBONE_AT_LEAST = 0.5
OLD_AT_MOST = 0.1


def test_the_backbone_is_shipped_pi_sized_and_read_by_default() -> None:
    path = MODELS / BACKBONE_FILE
    assert path.is_file() and path.stat().st_size <= 10 * 2**20, path
    new = NumberedReader()
    assert (new.classifier_file, new.crop_side) == (BACKBONE_FILE, BACKBONE_CROP)
    old = NumberedReader(backbone=False)
    assert (old.classifier_file, old.crop_side) == (CLASSIFIER_FILE, CROP)


def test_a_models_folder_without_the_backbone_reads_with_the_older_classifier(tmp_path: Path) -> None:
    for f in MODELS.glob("numbered_*.onnx"):
        if f.name != BACKBONE_FILE:
            (tmp_path / f.name).symlink_to(f)
    r = NumberedReader(models=tmp_path)
    assert (r.classifier_file, r.crop_side) == (CLASSIFIER_FILE, CROP)


def test_crops_are_cut_at_the_classifier_side_and_handed_to_the_embedder_at_its_own() -> None:
    r = NumberedReader()
    img = np.full((480, 640, 3), 200, np.uint8)
    cv2.circle(img, (320, 240), 40, (30, 30, 160), -1)
    probs = r.classify([np.full((CROP, CROP, 3), 128, np.uint8)])  # a 48-px crop is resized, not refused
    assert probs.shape == (1, 47) and abs(float(probs.sum()) - 1) < 1e-4
    for _found, crop in r.top_faces(img):
        assert crop.shape == (CROP, CROP, 3)


def _right(reader: NumberedReader, items: list) -> int:  # type: ignore[type-arg]
    right = 0
    for x in items:
        img = cv2.imread(str(x.path), cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        got = reader.read(img, kinds=("d20",))
        near = [r for r in got if math.dist(r.center, (w / 2, h / 2)) <= 0.3 * w]
        die = min(near, key=lambda r: math.dist(r.center, (w / 2, h / 2)), default=None)
        right += die is not None and die.kind == "d20" and die.value == x.face
    return right


@needs_real
def test_the_shipped_backbone_reads_held_out_real_d20_the_old_classifier_did_not() -> None:
    items = [x for x in load_lurig(REAL) if x.group in HELD_OUT_GROUPS][::STRIDE]
    assert len(items) >= 20
    new = _right(NumberedReader(), items)
    old = _right(NumberedReader(backbone=False), items)
    assert new >= BACKBONE_AT_LEAST * len(items), (new, old, len(items))
    assert old <= OLD_AT_MOST * len(items), (new, old, len(items))
