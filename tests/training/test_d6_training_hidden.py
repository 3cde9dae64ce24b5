"""Training data for the d6 reader: partly hidden dice (the lower dice of stacks)."""

from __future__ import annotations

import numpy as np
import pytest

from training.d6 import renders
from training.d6.samples import UNKNOWN, cls_sample, soft_target_matrix
from vision.crops import CROP, Pyramid


def test_a_die_of_unknown_value_is_taught_as_a_die_with_every_value_equally_likely() -> None:
    t = soft_target_matrix(np.array([0, 3, UNKNOWN]))
    assert t.shape == (3, 7)
    assert t[0].tolist() == [1.0, 0, 0, 0, 0, 0, 0]
    assert t[1].tolist() == [0, 0, 0, 1.0, 0, 0, 0]
    assert t[2, 0] == 0.0 and np.allclose(t[2, 1:], 1 / 6) and np.allclose(t.sum(1), 1.0)


def test_partly_hidden_dice_are_taught_as_unknown_value_only_when_asked() -> None:
    img = np.full((200, 200, 3), 90, np.uint8)
    box = (80.0, 80.0, 120.0, 120.0)
    pyr = Pyramid(img)
    dice = [(pyr, box, 2)]
    crops = [(pyr, 2)]
    negs = [(pyr, [box])]
    rendered = [(pyr, box, 5)]
    hidden = [(pyr, box, 4)]
    rng = np.random.default_rng(1)
    taught = [cls_sample(dice, crops, negs, rng, None, rendered, hidden) for _ in range(400)]
    labels = [label for _, label in taught]
    # about 0.55 (a labelled die) x 0.3 (a rendered one) x 0.2 (a partly hidden one) of the crops
    assert 4 <= labels.count(UNKNOWN) <= 30
    assert all(crop.shape == (CROP, CROP, 3) for crop, _ in taught)
    rng = np.random.default_rng(1)
    plain = [cls_sample(dice, crops, negs, rng, None, rendered, None)[1] for _ in range(400)]
    assert UNKNOWN not in plain


@pytest.mark.slow
def test_board_scenes_keep_partly_hidden_dice_down_to_min_visible_with_their_whole_top_face() -> None:
    # scene 3 of the training seed has a lower die of a stack with about a fifth of its top face in view
    _, default = renders.board_scene(3)
    _, more = renders.board_scene(3, min_visible=0.15)
    assert all(vis >= 0.5 for *_, vis in default)
    extra = [d for d in more if d not in default]
    assert extra and all(0.15 <= vis < 0.5 and not readable for _, _, readable, vis in extra)
    sides = [max(b[2] - b[0], b[3] - b[1]) for b, *_ in default]
    for box, _, _, _ in extra:  # the box of the whole face: as big as a whole die's
        assert max(box[2] - box[0], box[3] - box[1]) > 0.8 * min(sides)


def test_detector_patches_can_be_centred_on_the_partly_hidden_dice() -> None:
    from training.d6.samples import PATCH, STRIDE, det_sample

    img = np.full((400, 400, 3), 120, np.uint8)
    upper, lower = (200.0, 200.0, 240.0, 240.0), (212.0, 214.0, 252.0, 254.0)  # half a face apart
    far = (20.0, 20.0, 60.0, 60.0)
    src = [(img, [far])]
    rng = np.random.default_rng(3)
    peaks = []
    for _ in range(20):
        patch, target = det_sample(src, rng, [(img, [upper, lower], lower)], focus_share=1.0)
        assert patch.shape == (PATCH, PATCH, 3)
        # two die centres, each its own peak, the hidden one's inside the patch
        ys, xs = np.nonzero(target[0] == 1.0)
        assert 1 <= len(ys) <= 2  # at the smallest scales both centres can share a cell
        assert all(0 <= v < PATCH // STRIDE for v in (*ys, *xs))
        peaks.append(len(ys))
    assert peaks.count(2) >= 10
