"""Colours with no palette file: the board's paper white and marker black balance the light, and each
die is named among the game's colours."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from calibration.boardlight import BoardLightError, board_light
from calibration.colours import face_samples
from calibration.pose import estimate_board_pose
from controller.cli_vision import register
from vision.palette import Palette

#: a 2700 K lamp seen by a camera balanced for daylight: linear gains (B, G, R)
TUNGSTEN = (0.38, 0.68, 1.0)


def under(image: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    """The frame under another light: each channel scaled in linear light."""
    v = image.astype(np.float32) / 255.0
    lin = np.clip(np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4) * np.float32(gains), 0, 1)
    return np.asarray(
        np.round(255 * np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)), np.uint8
    )


#: a dim lamp: a third of the light, and warm
DIM_WARM = (0.15, 0.25, 0.35)
COLOURS = ["white", "yellow", "blue", "purple", "red", "green", "black"]


@pytest.fixture
def pale_pair(make_scene, die, dicetar_board):  # type: ignore[no-untyped-def]
    """A throw of dice of seven colours on the DICETAR WARS board."""
    cubes = [die(1 + i % 6, c, 60 + 45 * i, 120 + (i % 2) * 80) for i, c in enumerate(COLOURS)]
    return make_scene(dicetar_board, (215, 150, -600), (210, 150), cubes=cubes)


def test_the_board_white_and_black_are_read_from_the_markers_and_follow_the_light(pale_pair) -> None:  # type: ignore[no-untyped-def]
    s = pale_pair
    pose = estimate_board_pose(s.image, s.cal, s.board)
    white = board_light(s.image, pose, s.cal, s.board)
    assert min(white.white_bgr) > 150 and max(white.black_bgr) < 60
    assert np.ptp(white.white_bgr) < 6  # the renderer's light is white
    warm = board_light(under(s.image, TUNGSTEN), pose, s.cal, s.board)
    b, g, r = warm.white_bgr
    assert r > g > b and r - b > 60  # the paper looks orange under the lamp
    with pytest.raises(BoardLightError, match="BGR uint8"):
        board_light(s.image.astype(np.float32), pose, s.cal, s.board)  # type: ignore[arg-type]


def test_in_a_dim_warm_room_dice_are_named_right_once_the_board_balances_the_light(
    pale_pair,  # type: ignore[no-untyped-def]
) -> None:
    s = pale_pair
    image = under(s.image, DIM_WARM)
    light = board_light(image, estimate_board_pose(image, s.cal, s.board), s.cal, s.board)
    labs = [np.median(face_samples(image, s.px(c.face_corners(c.top_value()))), axis=0) for c in s.cubes]
    balanced = Palette.default().balanced(light.white_bgr, light.black_bgr)
    assert [balanced.nearest_lab(lab)[0] for lab in labs] == COLOURS
    as_seen = [Palette.default().nearest_lab(lab)[0] for lab in labs]
    # unbalanced, the white die is a dim warm grey: "black" by the Lab distance, "yellow" by hue
    assert as_seen[COLOURS.index("white")] != "white"
    # among a game's two colours only, the balanced names hold too
    pair = Palette.default().only(["white", "black"]).balanced(light.white_bgr, light.black_bgr)
    assert pair.nearest_lab(labs[COLOURS.index("white")])[0] == "white"


def test_a_palette_light_must_have_white_above_black() -> None:
    with pytest.raises(ValueError, match="white above black"):
        Palette.default().balanced((200, 200, 30), (40, 40, 40))


def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def main() -> None:
        """test app"""

    register(a)
    return a


def test_read_names_colours_from_a_learnt_palette_file_and_refuses_a_bad_one(
    tmp_path: Path, pale_pair
) -> None:  # type: ignore[no-untyped-def]
    frame = tmp_path / "throw.png"
    cv2.imwrite(str(frame), pale_pair.image)
    learnt = tmp_path / "palette.json"
    learnt.write_text(json.dumps({"mine": {"bgr": [120, 120, 120]}}))
    res = CliRunner().invoke(app(), ["read", str(frame), "--json", "--palette", str(learnt)])
    assert res.exit_code == 0, res.output
    dice = json.loads(res.stdout)["dice"]
    assert dice and {d["colour"] for d in dice} == {"mine"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"red": [1, 2]}')
    res = CliRunner().invoke(app(), ["read", str(frame), "--palette", str(bad)])
    assert res.exit_code == 2 and "--palette" in res.output and "calibrate colours" in res.output


def test_a_points_3x3_mean_is_the_mean_of_its_own_patch() -> None:
    """Issue 32: the samples gathered at once are each point's own 3x3 mean, to the last bit."""
    from calibration.boardlight import _sample

    rng = np.random.default_rng(8)
    image = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    px = rng.uniform(1.0, 78.4, (200, 2)) * [1.0, 58.4 / 78.4]
    want = np.array(
        [image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0) for x, y in np.round(px).astype(int)]
    )
    got = _sample(image, px)
    assert got is not None and got.dtype == np.float64 and np.array_equal(got, want)
    assert _sample(image, np.array([[0.2, 10.0]])) is None  # a point on the frame's edge: no patch
