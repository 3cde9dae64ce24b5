"""Stacks from one frame: a raised die shows the sides of the die under it (calibration.raised), and
place() stands it one level up from that cue alone (lying=...)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.end_to_end import evaluate, summary
from calibration.board import load_board
from calibration.camera import parse_calibration
from calibration.geometry import place
from calibration.pose import BoardPose
from calibration.raised import body_px, raised_share
from controller.config import VisionSection

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "tests" / "fixtures" / "rendered"


def _scene(i: int) -> tuple[dict, object, BoardPose]:
    truth = json.loads((SCENES / f"scene_{i:04d}.json").read_text())
    cam = truth["camera"]
    cal = parse_calibration(
        {
            "camera_matrix": cam["camera_matrix"],
            "dist_coeffs": cam["dist_coeffs"],
            "image_size": truth["image_size"],
        }
    )
    pose = BoardPose(np.asarray(cam["rvec"], np.float64), np.asarray(cam["tvec"], np.float64))
    return truth, cal, pose


def _mask(polys: list[np.ndarray], scale: float = 0.5) -> np.ndarray:
    m = np.zeros((round(960 * scale), round(1280 * scale)), np.uint8)
    for p in polys:
        cv2.fillPoly(m, [np.round(p * scale).astype(np.int32)], 1)
    return m.astype(bool)


def test_a_die_showing_a_lower_die_s_sides_is_raised_and_one_showing_the_board_is_not() -> None:
    truth, cal, pose = _scene(0)
    far = max(truth["dice"], key=lambda d: np.hypot(*np.subtract(d["center_px"], (640, 480))))
    q = np.asarray(far["top_quad_px"], np.float64)
    s = float(far["size_mm"])
    up = body_px(q, s, 1, pose, cal)
    flat = body_px(q, s, 0, pose, cal)
    assert abs(cv2.contourArea(up.astype(np.float32))) > abs(cv2.contourArea(flat.astype(np.float32)))
    # the frame shows something all down a raised die's sides: raised
    assert raised_share([q], [s], pose, cal, _mask([up]), (1280, 960))[0] == pytest.approx(1.0, abs=0.15)
    # ... only the die itself (its top face and own sides): the board shows where a lower die would be
    assert raised_share([q], [s], pose, cal, _mask([flat]), (1280, 960))[0] == pytest.approx(0.0, abs=0.15)
    # the mask's scale does not matter
    assert raised_share([q], [s], pose, cal, _mask([up], 1.0), (1280, 960))[0] == pytest.approx(1.0, abs=0.15)


def test_place_stands_a_die_on_a_hidden_die_from_its_sides() -> None:
    truth, cal, pose = _scene(0)
    board = load_board(ROOT / truth["board_file"])
    far = max(truth["dice"], key=lambda d: np.hypot(*np.subtract(d["center_px"], (640, 480))))
    q = np.asarray(far["top_quad_px"], np.float64)
    s = float(far["size_mm"])
    common = dict(pose=pose, die_size_mm=s, outline=False)
    flat = place([q], ["d6"], cal, board, **common)[0]
    assert flat.stack_level == 0 and not flat.support_hidden
    mask = _mask([body_px(q, s, 1, pose, cal)])
    up = place([q], ["d6"], cal, board, lying=mask, **common)[0]
    assert up.stack_level == 1 and up.rests_on is None and up.support_hidden
    # a die standing on the board shows no lower die: not raised
    again = place([q], ["d6"], cal, board, lying=_mask([body_px(q, s, 0, pose, cal)]), **common)[0]
    assert again.stack_level == 0


def test_raised_share_says_what_it_expected() -> None:
    truth, cal, pose = _scene(0)
    q = np.asarray(truth["dice"][0]["top_quad_px"], np.float64)
    with pytest.raises(ValueError, match="2 sizes"):
        raised_share([q], [16.0, 16.0], pose, cal, np.zeros((480, 640), bool), (1280, 960))


@pytest.mark.slow
def test_stacks_from_one_frame_on_rendered_stacks() -> None:
    scenes = []
    for p in sorted(SCENES.glob("scene_*.json")):
        t = json.loads(p.read_text())
        if t["split"] == "tune" and any(d["stack_level"] > 0 for d in t["dice"]):
            scenes.append({**t, "_dir": str(SCENES)})
    from vision.reader import DiceReader

    reader = DiceReader()
    on = dict(summary(evaluate(scenes, reader, vision=VisionSection())))
    off = dict(summary(evaluate(scenes, reader, vision=VisionSection(stacks_by_sides=False))))
    p = "upper dice of stacks found as stacked, one frame: precision (target >= 95 %)"
    r = "upper dice of stacks found as stacked, one frame: recall (target >= 95 %)"

    def count(text: str) -> int:
        return int(text.split("(")[1].split("/")[0])

    assert count(on[r]) >= count(off[r]) + 4
    assert float(on[p].split(" %")[0]) >= 70.0
