"""A pip d6's value read again from its top face at the board (issue 45 item 2: controller.values,
calibration.topface.face_square_px), through the table's own perception step."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import controller.values as values
from benchmarks.harness import ROOT
from benchmarks.scenes import load_scenes
from benchmarks.values import match_visible, read
from calibration.board import load_board
from calibration.camera import parse_calibration, pi_camera3_calibration
from calibration.pose import BoardPose
from calibration.topface import face_square_px, square_mm
from controller.config import VisionSection
from controller.perceive import BoardGeometry, FrameOnly, Perceiver, reader_for
from controller.values import DOUBT, twice, weigh


def _probs(value: int, p: float) -> np.ndarray:
    out = np.full(7, (1.0 - p) / 6, np.float32)
    out[value] = p
    return out


def test_weigh_lifts_agreement_asks_disagreement_and_keeps_the_readers_doubt() -> None:
    # the reader unsure (a weak detector peak), the top face sure of the same value: not asked
    assert weigh(4, 0.62, _probs(4, 0.95)) == (4, pytest.approx(0.95))
    # both sure, of two values: asked, with the surer read's value
    value, conf = weigh(2, 0.85, _probs(4, 0.98))
    assert (value, conf) == (4, DOUBT)
    # the reader unsure, the top face sure of another value: asked too, with the top face's value
    assert weigh(2, 0.6, _probs(5, 0.9)) == (5, DOUBT)
    # a die read twice (its sides read as a second die) is never made surer
    assert weigh(4, 0.62, _probs(4, 0.95), lift=False) == (4, 0.62)
    # a reading the reader held at its doubt (cut by the frame's edge, another kind...) stays asked
    assert weigh(3, 0.5, _probs(3, 0.99)) == (3, 0.5)
    assert weigh(3, 0.3, _probs(6, 0.99))[1] <= 0.3
    # the top face unsure of another value: no surer than its probability of the reader's value
    value, conf = weigh(1, 0.95, np.array([0.0, 0.2, 0.1, 0.5, 0.1, 0.05, 0.05], np.float32))
    assert value == 1 and conf == pytest.approx(0.2)


def test_a_second_reading_beside_a_surer_one_at_one_level_is_the_same_die() -> None:
    def die(x: float, conf: float, level: int = 0) -> dict[str, Any]:
        return {
            "confidence": conf,
            "stack_level": level,
            "board_center_mm": [x, 100.0],
            "footprint_mm": square_mm(x, 100.0, 0.0, 16.0).tolist(),
        }

    readings = [die(100.0, 0.9), die(108.0, 0.6), die(130.0, 0.7), die(60.0, 0.7), die(71.0, 0.95, 1)]
    # 8 mm apart: one die read twice, the less sure reading; 30 mm: two dice; 11 mm, one a level
    # up: a die read twice and placed a level up, or a stack, the lower die mostly covered
    assert twice(readings, [0, 1, 2, 3, 4]) == {1, 3}


def test_face_square_is_the_placed_top_face_seen_in_the_frame() -> None:
    cal = pi_camera3_calibration(1280, 960)
    pose = BoardPose(np.array([0.2, -0.1, 0.05]), np.array([-180.0, -150.0, 700.0]))
    s, level = 16.0, 1
    face = square_mm(200.0, 150.0, 0.4, s)
    true_px = pose.project(np.column_stack([face, np.full(4, -(level + 1) * s)]), cal)
    quad, side = face_square_px(face, level, pose, cal, 1.0)
    assert side == pytest.approx(s)
    assert np.allclose(quad.mean(axis=0), true_px.mean(axis=0), atol=0.5)
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    assert area == pytest.approx(abs(cv2.contourArea(true_px.astype(np.float32))), rel=0.03)
    # the crop's corners in the image's order: top-left, top-right, bottom-right, bottom-left
    assert quad[0, 0] < quad[1, 0] and quad[0, 1] < quad[3, 1]
    big, _ = face_square_px(face, level, pose, cal, 1.5)
    assert abs(cv2.contourArea(big.astype(np.float32))) == pytest.approx(2.25 * area, rel=0.03)
    with pytest.raises(ValueError, match="footprint_mm"):
        face_square_px(np.zeros((4, 2)), 0, pose, cal)


@pytest.fixture(scope="module")
def scene16() -> dict[str, Any]:
    # a committed DICETAR WARS render (seed 20261121) whose three dice the reader reads right, unsurely
    return next(s for s in load_scenes("all") if s["scene"] == 16)


def _by_die(truth: dict[str, Any], got: list[dict[str, Any]] | None) -> dict[int, dict[str, Any]]:
    assert got is not None
    pairs = match_visible(truth["dice"], [np.asarray(r["center"], np.float64) for r in got])
    return {i: got[j] for i, j in pairs.items()}


def test_a_die_read_unsurely_is_read_surely_at_the_board(scene16: dict[str, Any]) -> None:
    reader = reader_for("dicetar-wars")
    got = _by_die(scene16, read(scene16, reader, {}))
    for i in (0, 1, 2):
        die = got[i]
        assert die["value"] == scene16["dice"][i]["value"]
        assert not die["unsure"], die
        assert die["value_at_board"][0] == die["value"]
    # every die found in the scene read right, none asked for its value but for its support
    assert all(got[i]["value"] == d["value"] for i, d in enumerate(scene16["dice"]) if i in got)


def test_without_the_board_read_the_same_dice_are_asked(
    scene16: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(values, "ENABLED", False)
    got = _by_die(scene16, read(scene16, reader_for("dicetar-wars"), {}))
    assert any(got[i]["unsure"] for i in (0, 1, 2))
    assert all("value_at_board" not in got[i] for i in got)


def test_a_still_is_read_at_its_own_pixels_and_given_in_the_frames(scene16: dict[str, Any]) -> None:
    frame = cv2.imread(str(Path(scene16["_dir"]) / scene16["image"]), cv2.IMREAD_COLOR)
    still = cv2.resize(frame, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
    got = _by_die(scene16, read(scene16, reader_for("dicetar-wars"), {}, still))
    assert len(got) >= 9
    for i, die in got.items():
        assert die["value"] == scene16["dice"][i]["value"]
        centre = np.asarray(scene16["dice"][i]["top_quad_px"]).mean(axis=0)
        assert math.dist(die["center"], centre) < 20  # the frame's pixels, not the still's
    assert sum("value_at_board" in d for d in got.values()) >= 9


def test_a_reader_of_the_frame_alone_keeps_its_readings(scene16: dict[str, Any]) -> None:
    # a test's or a recording's reader (FrameOnly) is not second-guessed: its values stand
    cam = scene16["camera"]
    cal = parse_calibration(
        {
            "camera_matrix": cam["camera_matrix"],
            "dist_coeffs": cam["dist_coeffs"],
            "image_size": scene16["image_size"],
        }
    )
    dice = [
        {
            "kind": "d6",
            "value": 1 if d["value"] == 6 else 6,
            "colour": d["colour"],
            "confidence": 0.99,
            "quad": d["top_quad_px"],
            "center": np.mean(d["top_quad_px"], axis=0).tolist(),
        }
        for d in scene16["dice"]
    ]
    geo = BoardGeometry.of(load_board(ROOT / scene16["board_file"]), cal, "body", [scene16["die_size_mm"]])
    p = Perceiver.of(FrameOnly(lambda _img: [dict(d) for d in dice]), VisionSection(), geo)
    seen = p.perceive(cv2.imread(str(Path(scene16["_dir"]) / scene16["image"]), cv2.IMREAD_COLOR))
    assert seen.pose_found
    assert [d.value for d in seen.dice] == [d["value"] for d in dice]
    assert all("value_at_board" not in d.to_json() for d in seen.dice)
