"""Board pose from the markers in a frame: all visible, only two, one, a moved board."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.pose import PoseError, check_moved, estimate_board_pose


def board_point_error(scene, pose, points_mm) -> float:  # type: ignore[no-untyped-def]
    """How far (mm) the pose puts the given board points from where they really are."""
    px = scene.px(np.column_stack([points_mm, np.zeros(len(points_mm))]))
    back = pose.backproject(px, 0.0, scene.cal)
    return float(np.max(np.linalg.norm(back - points_mm, axis=1)))


GRID = np.array([[x, y] for x in (60, 210, 360) for y in (50, 150, 250)], np.float64)


def test_pose_from_all_markers_puts_the_board_within_half_a_millimetre(make_scene, dicetar_board) -> None:
    scene = make_scene(dicetar_board, (250, 120, -620), (205, 150), roll=4)
    pose = estimate_board_pose(scene.image, scene.cal, dicetar_board)
    assert len(pose.markers_used) == 12 and pose.source == "markers"
    assert board_point_error(scene, pose, GRID) < 0.5
    assert np.allclose(pose.camera_position(), [250, 120, -620], atol=3)


def test_any_two_markers_are_enough(make_scene, dicetar_board) -> None:
    scene = make_scene(dicetar_board, (180, 160, -560), (210, 150))
    scene.hide_markers(keep={0, 11})  # a hand and the dice over all the others
    pose = estimate_board_pose(scene.image, scene.cal, dicetar_board)
    assert pose.markers_used == (0, 11)
    assert board_point_error(scene, pose, GRID) < 1.5


def test_one_marker_is_not_enough_and_says_what_it_saw(make_scene, dicetar_board) -> None:
    scene = make_scene(dicetar_board, (210, 150, -600), (210, 150))
    scene.hide_markers(keep={3})
    with pytest.raises(PoseError, match=r"at least 2 .* saw \[3\]"):
        estimate_board_pose(scene.image, scene.cal, dicetar_board)


def test_not_an_image_is_refused(dicetar_board) -> None:
    from calibration.camera import pi_camera3_calibration

    with pytest.raises(PoseError, match="BGR uint8"):
        estimate_board_pose(np.zeros((960, 1280, 3), np.float32), pi_camera3_calibration(), dicetar_board)


def test_a_moved_board_is_detected_and_a_still_one_is_not(make_scene, fighter_board) -> None:
    before = make_scene(fighter_board, (300, 200, -700), (280, 190))
    ref = estimate_board_pose(before.image, before.cal, fighter_board)
    again = make_scene(fighter_board, (300, 200, -700), (280, 190), seed=5)  # same camera, new noise
    same = estimate_board_pose(again.image, again.cal, fighter_board)
    still = check_moved(ref, same, before.cal, fighter_board)
    assert not still.moved and still.shift_px < 1.0
    nudged = make_scene(fighter_board, (306, 200, -700), (286, 190))  # board slid 6 mm
    moved_pose = estimate_board_pose(nudged.image, nudged.cal, fighter_board)
    moved = check_moved(ref, moved_pose, before.cal, fighter_board)
    assert moved.moved and moved.shift_px > 5
    assert "moved" in moved.describe()


def test_calibrated_reference_pose_is_used_until_the_board_moves(make_scene, fighter_board) -> None:
    empty = make_scene(fighter_board, (300, 200, -700), (280, 190))
    ref = estimate_board_pose(empty.image, empty.cal, fighter_board)
    cal = replace(empty.cal, board_pose=ref.to_json(fighter_board.name))
    play = make_scene(fighter_board, (300, 200, -700), (280, 190), seed=3)
    play.hide_markers(keep={4, 5, 7})
    got = estimate_board_pose(play.image, cal, fighter_board)
    assert got.source == "reference" and got.markers_used == (4, 5, 7) and not got.moved
    nudged = make_scene(fighter_board, (306, 200, -700), (286, 190))
    got = estimate_board_pose(nudged.image, cal, fighter_board)
    assert got.source == "markers" and got.moved  # the saved pose no longer fits: solved afresh, reported
    assert board_point_error(nudged, got, np.array([[100.0, 100.0], [450.0, 300.0]])) < 0.5
