"""Reading the held-out rendered scenes: kind and value of every die, any rotation of the frame."""

from __future__ import annotations

import math
from collections import Counter

import cv2
import pytest
from numbered_helpers import SCENES, STILLS, load_scene

from training.numbered.evaluate import Score
from vision.numbered.reader import NumberedReader

# Floors a little under what benchmarks/results/vision_numbered_compare.md measured on these scenes
# with the nadir fitted to the dice (as read here, no board), so a regression fails here and the
# benchmark says by how much (targets: 99.5 / 99).  Session 5, video frames: kind 99.46 %, values
# d6 100 %, d10 98.8 %, d10p 98.0 %, d20 99.0 %, 3 false readings; stills: kind 99.73 %, values d6 100 %,
# d10 98.9 %, d10p 100 %, d20 100 %, 2 false readings (a still's die is about 1.2 % of its kind).
KIND_FLOOR = 0.99
VALUE_FLOOR = {"d6": 0.985, "d10": 0.975, "d10p": 0.97, "d20": 0.975}
FALSE_MAX = 6
STILL_DICE = 367
STILL_KIND_FLOOR = 0.985
STILL_VALUE_FLOOR = {"d6": 0.97, "d10": 0.965, "d10p": 0.965, "d20": 0.965}
STILL_FALSE_MAX = 5


@pytest.mark.slow
def test_held_out_scenes_are_read(reader: NumberedReader) -> None:
    score = Score()
    for meta in sorted(SCENES.glob("scene_*.json")):
        img, truth = load_scene(meta.stem)
        score.add(truth["dice"], reader.read(img))
    assert sum(score.dice.values()) == 742
    assert score.kind_accuracy() >= KIND_FLOOR, score.confusions.most_common(10)
    for kind, floor in VALUE_FLOOR.items():
        assert score.value_accuracy(kind) >= floor, (kind, score.confusions.most_common(10))
    assert score.false_readings <= FALSE_MAX


@pytest.mark.slow
def test_held_out_stills_are_read(reader: NumberedReader) -> None:
    score = Score()
    for meta in sorted(STILLS.glob("scene_*.json")):
        img, truth = load_scene(meta.stem, STILLS)
        assert img.shape == (2592, 3456, 3)
        score.add(truth["dice"], reader.read(img))
    assert sum(score.dice.values()) == STILL_DICE
    assert score.kind_accuracy() >= STILL_KIND_FLOOR, score.confusions.most_common(10)
    for kind, floor in STILL_VALUE_FLOOR.items():
        assert score.value_accuracy(kind) >= floor, (kind, score.confusions.most_common(10))
    assert score.false_readings <= STILL_FALSE_MAX


def test_a_turned_frame_finds_the_same_kinds(reader: NumberedReader) -> None:
    img, truth = load_scene("angler_ann")
    want = Counter(d["kind"] for d in truth["dice"])
    for turn in (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180):
        frame = img if turn is None else cv2.rotate(img, turn)
        got = Counter(r.kind for r in reader.read(frame))
        assert got == want, turn


def test_readings_report_kind_value_and_where(reader: NumberedReader) -> None:
    img, truth = load_scene("angler_ann")
    got = reader.read(img)
    assert {r.kind for r in got} == {"d6", "d10", "d20"}
    for r in got:
        js = r.to_json()
        assert js["kind"] == r.kind and js["value"] == r.value
        t = min(
            truth["dice"],
            key=lambda d: (d["center_px"][0] - r.center[0]) ** 2 + (d["center_px"][1] - r.center[1]) ** 2,
        )
        assert t["kind"] == r.kind
        assert abs(t["center_px"][0] - r.center[0]) < 12 and abs(t["center_px"][1] - r.center[1]) < 12


@pytest.mark.slow
def test_the_top_face_net_centres_the_crop_on_the_top_face(reader: NumberedReader) -> None:
    """The classifier's crop is centred where the top-face net puts the top face: over 0.2 of the
    die's box off (a neighbouring face) for 10 of the 561 numbered dice of the video scenes when
    measured, against 68 with the detector's own estimate."""
    assert reader.has_top_face
    n = det_off = off = 0
    for meta in sorted(SCENES.glob("scene_*.json")):
        img, truth = load_scene(meta.stem)
        found = reader.detect(img)
        located = reader.locate(img, found)
        for d in truth["dice"]:
            if d["kind"] == "d6":
                continue
            x0, y0, x1, y1 = d["box_px"]
            side, box = max(x1 - x0, y1 - y0), ((x0 + x1) / 2, (y0 + y1) / 2)
            i = min(range(len(found)), key=lambda i: math.dist(found[i].box_center, box))
            n += 1
            det_off += math.dist(found[i].center, d["center_px"]) > 0.2 * side
            off += math.dist(located[i].center, d["center_px"]) > 0.2 * side
    assert n == 561
    assert off <= 0.03 * n and off < det_off / 3, (off, det_off)


def test_score_counts_what_the_table_would_take_without_asking() -> None:
    from vision.reading import DieReading

    def reading(kind: str, value: int, x: float, conf: float) -> DieReading:
        quad = ((x - 10, 90.0), (x + 10, 90.0), (x + 10, 110.0), (x - 10, 110.0))
        return DieReading(kind=kind, value=value, center=(x, 100.0), quad=quad, confidence=conf, colour="red")

    def die(kind: str, value: int, x: float) -> dict[str, object]:
        return {"kind": kind, "value": value, "box_px": [x - 10, 90, x + 10, 110], "center_px": [x, 100]}

    score = Score()
    truth = [die("d20", 18, 100), die("d10p", 80, 200), die("d6", 3, 300), die("d10", 7, 400)]
    got = [
        reading("d20", 16, 101, 0.95),  # wrong, sure: taken
        reading("d10p", 0, 199, 0.5),  # wrong, asked
        reading("d6", 3, 300, 0.99),  # right
        reading("d20", 4, 700, 0.85),  # on no die, sure
        reading("d6", 1, 900, 0.2),  # on no die, asked
    ]
    score.add(truth, got)  # type: ignore[arg-type]
    assert (score.wrong_sure, score.false_sure, score.false_readings) == (1, 1, 2)
    assert score.confusions[("d10:7", "missed")] == 1 and score.confusions[("d20:18", "d20:16")] == 1
