"""The reader on real photos it was not trained on (the held-out part of the shared photos)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision import read_dice, read_die_crop
from vision.dataset import is_held_out, load_byler, load_skovy_crops, load_skovy_scenes


def score(found: list, dice: tuple) -> tuple[int, int]:
    """(dice read right, detections matching no labelled die) for one photo."""
    used: set[int] = set()
    right = 0
    for d in dice:
        x0, y0, x1, y1 = d.box
        hits = [
            i
            for i, r in enumerate(found)
            if i not in used and x0 <= r.center[0] <= x1 and y0 <= r.center[1] <= y1
        ]
        if hits:
            used.add(hits[0])
            right += found[hits[0]].value == d.value
    return right, len(found) - len(used)


@pytest.mark.slow
def test_byler_held_out_photos(real_fixtures: Path) -> None:
    held = [i for i in load_byler(real_fixtures) if is_held_out(i.path.name)]
    assert len(held) >= 30
    right = extra = total = 0
    for item in held:
        r, e = score(read_dice(cv2.imread(str(item.path))), item.dice)
        right, extra, total = right + r, extra + e, total + len(item.dice)
    assert right / total >= 0.97, f"{right}/{total} dice read right"
    assert extra / total <= 0.02, f"{extra} detections matched no die"


def test_one_byler_photo_exactly(real_fixtures: Path) -> None:
    item = next(i for i in load_byler(real_fixtures) if i.path.name == "IMG_20191208_111228.jpg")
    found = read_dice(cv2.imread(str(item.path)))
    assert len(found) == len(item.dice) == 22
    assert sorted(r.value for r in found) == sorted(d.value for d in item.dice)


def test_skovy_held_out_crops(real_fixtures: Path) -> None:
    held = [i for i in load_skovy_crops(real_fixtures) if is_held_out(i.path.name)]
    right = sum(read_die_crop(cv2.imread(str(i.path))).value == i.dice[0].value for i in held)
    assert right / len(held) >= 0.9, f"{right}/{len(held)}"


def test_skovy_angled_scene(real_fixtures: Path) -> None:
    scenes = load_skovy_scenes(real_fixtures)
    right = total = 0
    for item in scenes[:5]:
        r, _ = score(read_dice(cv2.imread(str(item.path))), item.dice)
        right, total = right + r, total + len(item.dice)
    assert right >= total - 2, f"{right}/{total}"
