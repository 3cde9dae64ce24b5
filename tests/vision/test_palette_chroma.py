"""A die's colour named among the colours in play (issue 30 item 2): pastel and saturated renderings
of one plastic get one name, white only when the die has really little chroma, with or without a
board to balance the light by."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from controller.config import VisionSection
from controller.perceive import Perceiver
from vision.face import body_lab
from vision.palette import DEFAULT_BGR, KNOWN_COLOURS, Palette, _to_linear, _to_srgb, frame_light
from vision.reader import default_reader

GAME = ("red", "blue", "green", "purple", "yellow")  # Die Angler's colours
WARM = (0.55, 0.82, 1.0)  # tungsten: linear-light gains (B, G, R)


def pastel(colour: str, white: float) -> tuple[float, float, float]:
    """The plastic's colour washed towards white (a soft, bright rendering): ``white`` of the light
    reflected is white, in linear light."""
    lin = _to_linear(np.asarray(DEFAULT_BGR[colour], np.float64) / 255.0)
    b, g, r = 255.0 * _to_srgb((1.0 - white) * lin + white)
    return float(b), float(g), float(r)


def frame(
    body: tuple[float, float, float], gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
) -> np.ndarray:
    """A grey table with one die (40 px, four dark pips) in the middle, under a light of ``gains``."""
    img = np.full((240, 320, 3), 172, np.uint8)
    cv2.rectangle(img, (140, 100), (180, 140), tuple(round(v) for v in body), -1)
    for dx, dy in ((-10, -10), (10, 10), (-10, 10), (10, -10)):
        cv2.circle(img, (160 + dx, 120 + dy), 3, (30, 30, 30), -1)
    lin = _to_linear(img.astype(np.float64) / 255.0) * np.asarray(gains)
    return np.asarray(np.round(255.0 * _to_srgb(np.clip(lin, 0.0, 1.0))), np.uint8)


def named(image: np.ndarray, colours: tuple[str, ...]) -> str:
    """The die's colour as the table names it among ``colours`` (no board: the frame's own light)."""
    perceiver = Perceiver.of(default_reader(), VisionSection())
    palette = perceiver.reading_palette(image, None, colours)
    return str(palette.nearest_lab(body_lab(image[100:141, 140:181]))[0])


@pytest.mark.parametrize("colour", GAME)
@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), WARM], ids=["white light", "warm light"])
def test_a_pastel_die_is_named_its_plastics_colour_among_the_games_not_white(
    colour: str, gains: tuple[float, float, float]
) -> None:
    image = frame(pastel(colour, 0.3), gains)
    assert named(image, GAME) == colour
    # the Lab distance the table named colours with before issue 30 calls it white
    old = replace(Palette.default(), metric="lab").only({*GAME, "white", "black"})
    if gains == (1.0, 1.0, 1.0):
        assert old.nearest_lab(body_lab(image[100:141, 140:181]))[0] == "white"


@pytest.mark.parametrize("colour", GAME)
def test_pastel_and_saturated_renderings_of_one_plastic_get_one_name(colour: str) -> None:
    names = {named(frame(pastel(colour, w)), GAME) for w in (0.0, 0.1, 0.2, 0.3)}
    assert names == {colour}


def test_white_and_black_dice_stay_white_and_black_among_the_games_colours() -> None:
    ivory = (222, 232, 238)  # a white die, a little warm
    assert named(frame(ivory), GAME) == "white"
    assert named(frame(ivory, WARM), GAME) == "white"
    assert named(frame((38, 36, 40)), GAME) == "black"


def test_a_colour_is_named_only_among_the_colours_in_play() -> None:
    # a pastel purple among red and blue only is one of those two, never purple
    image = frame(pastel("purple", 0.2))
    assert named(image, ("red", "blue")) in {"red", "blue"}
    # a colour the default palette lacks is known when it is in play
    teal = Palette.known({"teal", "white", "black"})
    assert set(teal.lab) == {"teal", "white", "black"}
    assert teal.nearest((128, 128, 20)) == "teal"


def test_the_frame_light_takes_a_colour_cast_out() -> None:
    image = frame((200, 200, 200), WARM)
    white, black = frame_light(image)
    assert white[2] > white[0] + 20  # warm: more red than blue
    balanced = Palette.default().balanced(white, black)
    lab = balanced.balance_lab(body_lab(image[100:141, 140:181]))
    assert np.hypot(lab[1], lab[2]) < 4.0  # the grey die is grey again
    with pytest.raises(ValueError, match="near-neutral"):
        frame_light(np.full((50, 50, 3), (0, 0, 255), np.uint8))
    with pytest.raises(ValueError, match="BGR uint8"):
        frame_light(np.zeros((5, 5), np.uint8))


def test_colour_names_are_checked_and_the_error_names_the_flag_and_the_known_names() -> None:
    assert Palette.parse_colours("Red, blue,red") == ("red", "blue")
    for bad in ("red,magenta", "", "red,,blue"):
        with pytest.raises(ValueError) as e:
            Palette.parse_colours(bad, "--colours")
        assert "--colours" in str(e.value) and all(n in str(e.value) for n in KNOWN_COLOURS)


def test_real_dice_are_named_among_the_colours_in_their_photo() -> None:
    """The held-out byler_d6 photos (many plastics, pips of every colour, marbled and smoky dice) and
    the skovy_d6 scenes, labelled by eye (benchmarks/labels/d6_colours.csv), read as the table reads
    them: at least 93 % named right among the colours in each photo (62.9 % before issue 30, 92.2 %
    with session 13's weights)."""
    from benchmarks.colours_real import REAL, run

    if not (REAL / "byler_d6").exists():
        pytest.skip(f"the shared real photos are not at {REAL}")
    c = run()["tally"]["all | reader"]
    assert c["found"] >= 395
    assert c["after"] / c["found"] >= 0.93
    assert c["session 13"] / c["found"] < 0.93  # session 13's weights and teal, same run
    assert c["before"] / c["found"] < 0.7  # the table's way before issue 30, same run
    # issue 45: the die told from the paper round it, its pips left out (93.23 % before, same run)
    assert c["after"] > c["issue 30"]


#: body colours of real dice (byler_d6 train photos labelled by eye, benchmarks/labels/
#: d6_colours_tune.csv and d6_colours_train.csv), balanced by their photo's light: Lab
DARK_PURPLE = [(20.7, 10.1, -6.4), (16.9, 9.3, -6.3), (43.9, 8.2, -6.1)]
WARM_BLACK = [(30.2, 6.6, 6.9), (29.6, 4.2, 4.9), (25.7, 7.4, 4.9), (29.6, 7.6, 7.0)]  # smoke, red pips
JADE_TEAL = (40.2, -25.1, 9.3)
LIGHT_RED = (67.8, 37.5, 16.2)  # translucent red, lit through


def test_a_dark_plastic_is_named_by_its_chroma_for_its_lightness() -> None:
    """A dark purple die has a few units of chroma, a black smoke die as few (warm, from its red pips
    and the light through it): the chroma ratio's floor (`ChromaWeights.floor`) is low enough that the
    purple is purple and the smoke stays black among the game's colours; session 13's weights called
    the purple black.  (With maroon and brown in play the darkest warm smokes can be named those: the
    train photos' errors, benchmarks/RESULTS.md.)"""
    from vision.palette import CHROMA_S13, session13

    palette = Palette.known({"purple", "blue", "red", "green", "black", "white"})
    for lab in DARK_PURPLE:
        assert palette.nearest_lab(np.asarray(lab))[0] == "purple", lab
        assert session13(palette).nearest_lab(np.asarray(lab))[0] == "black", lab
    for lab in WARM_BLACK:
        assert palette.nearest_lab(np.asarray(lab))[0] == "black", lab
    assert session13(palette).chroma == CHROMA_S13


def test_jade_teal_and_translucent_red_dice_are_named_teal_and_red() -> None:
    """The teal a set of dice calls teal is a jade green-blue (`MORE_BGR`'s teal, chosen on the train
    photos), and a light translucent red is red beside maroon; session 13 named them green and maroon."""
    from vision.palette import session13

    palette = Palette.known(KNOWN_COLOURS)
    assert palette.nearest_lab(np.asarray(JADE_TEAL))[0] == "teal"
    assert session13(palette).nearest_lab(np.asarray(JADE_TEAL))[0] == "green"
    assert palette.nearest_lab(np.asarray(LIGHT_RED))[0] == "red"
    assert session13(palette).nearest_lab(np.asarray(LIGHT_RED))[0] == "maroon"
    # the plain plastics keep their names
    for name, bgr in {**DEFAULT_BGR}.items():
        if name not in {"orange", "pink"}:
            assert palette.nearest(bgr) == name, name
