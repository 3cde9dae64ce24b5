"""Games scored from rendered frames alone: the reader's dice become the engine's inputs.

Die-angler: each player's roll (d6s, d10, d20) is read from their frame and fed as a
`roll`; the bout must end exactly as it does when the true values are fed.
Dice Fighter: six percentile d10 read from one frame of the example board; side and
field status come from calibration (board pose from the frame's ArUco markers,
`BoardPose.backproject` of the die's outline at mid-height, `calibration.geometry.classify`),
not from the scene's truth; the truth is only compared with.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from conftest import ROOT, load_scene

from calibration.board import load_board
from calibration.camera import pi_camera3_calibration
from calibration.geometry import classify
from calibration.pose import estimate_board_pose
from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind
from vision.numbered.reader import NumberedReader
from vision.reading import DieReading


def _roll_dice(readings: list[DieReading]) -> list[Any]:
    return [r.value if r.kind == "d6" else {"kind": r.kind, "value": r.value} for r in readings]


def _angler(frames: dict[str, list[Any]]) -> Game:
    game = new_game(Setup.from_json({"game": "die-angler", "players": ["ann", "bob"], "seed": 3}))
    game.apply(Input.from_json({"type": "reveal", "card": "aji"}))
    game.apply(
        Input.from_json(
            {"type": "secret", "player": "ann", "d6": 2, "specials": {"d10": "chum", "d20": "chum"}}
        )
    )
    game.apply(Input.from_json({"type": "secret", "player": "bob", "d6": 3, "specials": {"d10": "chum"}}))
    while game.expects().kind == InputKind.ROLL:
        for player in game.expects().players:
            game.apply(Input.from_json({"type": "roll", "player": player, "dice": frames[player]}))
    return game


def test_die_angler_bout_scored_from_frames(reader: NumberedReader) -> None:
    read: dict[str, list[Any]] = {}
    true: dict[str, list[Any]] = {}
    for player in ("ann", "bob"):
        img, truth = load_scene(f"angler_{player}")
        readings = reader.read(img)
        got = Counter((r.kind, r.value) for r in readings)
        want = Counter((d["kind"], d["value"]) for d in truth["dice"])
        assert got == want, f"{player}: read {sorted(got.elements())}, thrown {sorted(want.elements())}"
        read[player] = _roll_dice(readings)
        true[player] = [
            d["value"] if d["kind"] == "d6" else {"kind": d["kind"], "value": d["value"]}
            for d in truth["dice"]
        ]
    from_frames, from_truth = _angler(read), _angler(true)
    assert from_frames.state["held"] == from_truth.state["held"]
    assert from_frames.state["last_bout"]["winner"] == from_truth.state["last_bout"]["winner"]
    # ann's d10 shows 0, which counts as 10: 3 + 2 + 10 + 16 = 31; the bout was decided.
    assert from_frames.state["last_bout"]["rolls"]["ann"]["sum"] == 31
    assert from_frames.state["phase"] == "reveal"


def _placement(img: np.ndarray, readings: list[DieReading]) -> list[dict[str, Any]]:
    board = load_board(ROOT / "boards" / "dice-fighter.example.toml")
    cal = pi_camera3_calibration(img.shape[1], img.shape[0])
    pose = estimate_board_pose(img, cal, board)
    dice = []
    for r in readings:
        # A d10 lying on a face is about 0.6 of its ring diameter high; its outline box,
        # dropped from mid-height, is a fair footprint (the rules judge what it touches).
        fp = pose.backproject(np.array(r.quad, np.float64), 6.0, cal)
        p = classify(fp, board)
        die: dict[str, Any] = {
            "kind": r.kind,
            "value": r.value,
            "colour": r.colour,
            "field_status": p.field_status,
        }
        if p.field_status == "field":
            die["side"] = p.side
        elif p.field_status == "card_slot":
            die["card_slot"] = p.card_slot
        dice.append(die)
    return dice


def _fighter_round(dice: list[dict[str, Any]]) -> Game:
    setup = {"game": "dice-fighter", "players": ["ann", "bob"], "options": {"initial_power": {}}}
    game = new_game(Setup.from_json(setup))
    game.apply(Input.from_json({"type": "secret", "player": "ann", "fighter": "lv3-champion"}))
    game.apply(Input.from_json({"type": "secret", "player": "bob", "fighter": "lv3-ninja"}))
    assert game.state["phase"] == "throw"
    game.apply(Input.from_json({"type": "throw", "dice": dice}))
    return game


def test_dice_fighter_round_scored_from_frame(reader: NumberedReader) -> None:
    img, truth = load_scene("fighter_round")
    readings = reader.read(img)
    assert sorted((r.kind, r.value) for r in readings) == sorted(
        (d["kind"], d["value"]) for d in truth["dice"]
    )
    dice = _placement(img, readings)
    # Matched to the truth by position: the same side and field status as the true footprints.
    for r, d in zip(readings, dice, strict=True):
        t = min(
            truth["dice"],
            key=lambda t: np.hypot(t["center_px"][0] - r.center[0], t["center_px"][1] - r.center[1]),
        )
        assert (d["field_status"], d.get("side")) == (t["field_status"], t["side"]), (r, t)
        assert r.colour == t["colour"], (r, t)
    true_dice = [
        {
            k: t[k]
            for k in ("kind", "value", "colour", "field_status", "side", "card_slot")
            if t.get(k) is not None
        }
        for t in truth["dice"]
    ]
    from_frame, from_truth = _fighter_round(dice), _fighter_round(true_dice)
    assert from_frame.state["phase"] != "throw"
    assert from_frame.state["players"] == from_truth.state["players"]
    assert from_frame.state["last_round"] == from_truth.state["last_round"]
    # Which player's dice the round gave: from the sides the calibration found.
    by_side = Counter(d["side"] for d in dice if d["field_status"] == "field")
    true_sides = Counter(t["side"] for t in truth["dice"] if t["field_status"] == "field")
    assert by_side == true_sides
