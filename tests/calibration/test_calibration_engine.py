"""A DICETAR WARS half scored from rendered frames: pose from the markers, geometry from the top faces.

The dice values and colours come from the scene (the vision reader's job); every
geometric fact the engine scores on (zones, stacks, on/off the board) comes
from the frame through ``calibration.geometry.place``.
"""

from __future__ import annotations

from typing import Any

import pytest

from calibration.geometry import place
from controller.scenario import Setup, new_game
from engine import Input


def dice_json(scene, cubes) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    quads = [scene.px(c.face_corners(c.top_value())) for c in cubes]
    got = place(quads, ["d6"] * len(cubes), scene.cal, scene.board, image=scene.image)
    return [
        {"kind": "d6", "value": c.top_value(), "colour": c.colour, **g.to_json()}
        for c, g in zip(cubes, got, strict=True)
    ]


@pytest.mark.slow
def test_a_half_scores_from_rendered_frames(make_scene, dicetar_half, dicetar_board) -> None:
    game = new_game(Setup.from_json({"game": "dicetar-wars", "players": ["ann", "bob"]}))
    for n, (player, cubes) in enumerate(zip(dicetar_half.players, dicetar_half.throws, strict=True)):
        frame = make_scene(dicetar_board, *dicetar_half.camera, cubes=cubes)
        game.apply(Input.from_json({"type": "throw", "player": player, "dice": dice_json(frame, cubes)}))
        if n == 1:
            expects = game.expects()
            assert expects.detail["step"] == "rethrow" and expects.detail["off_board"]["blue"] == 1
    assert game.scores() == dicetar_half.scores


@pytest.mark.slow
def test_a_dice_fighter_round_takes_sides_and_ring_outs_from_a_rendered_frame(
    make_scene, die, fighter_board
) -> None:
    slots = {"ann": ["power-first-1", "power-first-2"], "bob": ["power-second-1", "power-second-2"]}
    game = new_game(
        Setup.from_json(
            {"game": "dice-fighter", "players": ["ann", "bob"], "options": {"power_slots": slots}}
        )
    )
    game.apply(Input.from_json({"type": "secret", "player": "ann", "fighter": "lv1-sprinter"}))
    game.apply(Input.from_json({"type": "secret", "player": "bob", "fighter": "lv2-wrestler"}))
    # (colour, percentile value, where it came to rest); the cubes stand in for d10s geometrically.
    thrown = [
        ("red", 70, 150, 120),  # ann's half
        ("blue", 50, 200, 260),  # ann's half
        ("green", 10, 45, 330),  # off the field, on no card: rung out (the table asks who threw it)
        ("red", 30, 350, 100),  # bob's half
        ("blue", 40, 420, 280),  # bob's half
        ("green", 20, 521, 114),  # on bob's laid power card: his
    ]
    cubes = [die(3, colour, x, y) for colour, _, x, y in thrown]
    scene = make_scene(fighter_board, (280, 190, -760), (280, 190), cubes=cubes)
    dice = dice_json(scene, cubes)
    for d, (_, value, _, _) in zip(dice, thrown, strict=True):
        d["kind"], d["value"] = "d10p", value
        if d["field_status"] == "off":
            d["thrower"] = "ann"  # the players' answer: never guessed
    assert [d["side"] for d in dice[:2] + dice[3:5]] == ["a", "a", "b", "b"]
    game.apply(Input.from_json({"type": "throw", "dice": dice}))
    state = game.state_json()
    assert state["owners"] == ["ann", "ann", None, "bob", "bob", "bob"]
    assert state["rung_out"] == {"ann": 1, "bob": 0}
    assert state["phase"] == "damage_cards"  # ann's 70 beats bob's 40: bob may guard
