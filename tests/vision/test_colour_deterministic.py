"""A die's colour does not depend on what ran before (issue 45 item 3, second round): the body's
two-means split (`vision.face.die_parts`) started from OpenCV's shared random state, so 39 of 697
labelled real dice changed colour with the seed; it starts the same way every time now."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.colours_real import LABELS, load_labels
from benchmarks.colours_roster import box_crops
from benchmarks.harness import imread
from vision.face import body_colour_labs


@pytest.mark.parametrize("die", [4, 8])
def test_a_real_dies_colour_is_the_same_whatever_the_random_state(real_fixtures: Path, die: int) -> None:
    photo = "byler_d6/images/IMG_20191208_111246.jpg"
    crop = box_crops(imread(real_fixtures / photo), load_labels(LABELS)[photo])[die]
    seen = []
    for seed in (1, 2, 3, 4):
        cv2.setRNGSeed(seed)
        seen.append(body_colour_labs([crop])[0])
    assert all(np.array_equal(seen[0], s) for s in seen[1:])
