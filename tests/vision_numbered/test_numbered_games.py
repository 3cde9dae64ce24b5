"""Games scored from rendered frames alone: the reader's dice become the engine's inputs.

The "scored" tests read the 1280x960 video frames (kinds, sides, the engine takes the
roll); the "ends as thrown" tests read the 3456x2592 stills a table takes once the dice
have settled (tests/fixtures/numbered_still: other throws of the same kinds, colours and
values) and must give exactly the result the true values give.

Die-angler: each player's roll (d6s, d10, d20) is read from their frame and fed as a
`roll`; the bout must end exactly as it does when the true values are fed.
Dice Fighter: six percentile d10 read from one frame of the example board; side and
field status come from calibration (board pose from the frame's ArUco markers,
`BoardPose.backproject` of the die's outline at mid-height, `calibration.geometry.classify`),
not from the scene's truth; the truth is only compared with.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from numbered_helpers import ROOT, SCENES, STILLS, load_scene

from calibration.board import load_board
from calibration.camera import pi_camera3_calibration
from calibration.geometry import classify
from calibration.pose import estimate_board_pose
from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind
from vision.numbered.reader import default_reader
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


def _frames(folder: Path = SCENES) -> tuple[dict[str, list[DieReading]], dict[str, list[Any]]]:
    read: dict[str, list[DieReading]] = {}
    true: dict[str, list[Any]] = {}
    reader = default_reader()
    for player in ("ann", "bob"):
        img, truth = load_scene(f"angler_{player}", folder)
        read[player] = reader.read(img)
        true[player] = [
            d["value"] if d["kind"] == "d6" else {"kind": d["kind"], "value": d["value"]}
            for d in truth["dice"]
        ]
    return read, true


def test_die_angler_bout_scored_from_frames() -> None:
    """Each player's dice and kinds come from their frame; the engine takes them as the roll."""
    read, _ = _frames()
    for player, readings in read.items():
        _, truth = load_scene(f"angler_{player}")
        assert Counter(r.kind for r in readings) == Counter(d["kind"] for d in truth["dice"]), player
    game = _angler({p: _roll_dice(r) for p, r in read.items()})
    bout = game.state["last_bout"]
    assert game.state["phase"] == "reveal" and bout is not None
    assert bout["rolls"], "no one rolled"
    for player, roll in bout["rolls"].items():  # who rolled (a success ends the bout early)
        # The engine's sum is the frame's: a d10 read as 0 counts as 10.
        want = sum(10 if r.kind == "d10" and r.value == 0 else r.value for r in read[player])
        assert roll["sum"] == want
        assert Counter(d["kind"] for d in roll["dice"]) == Counter(r.kind for r in read[player])


def test_die_angler_bout_ends_as_thrown() -> None:
    read, true = _frames(STILLS)
    for player, readings in read.items():
        _, truth = load_scene(f"angler_{player}", STILLS)
        assert Counter((r.kind, r.value) for r in readings) == Counter(
            (d["kind"], d["value"]) for d in truth["dice"]
        )
    from_frames, from_truth = _angler({p: _roll_dice(r) for p, r in read.items()}), _angler(true)
    assert from_frames.state["held"] == from_truth.state["held"]


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


def _with_throwers(dice: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Who threw a die off the field is the players' answer, not the frame's (the controller asks):
    here ann threw the first die of each colour that needs one, bob the second."""
    asked: Counter[str] = Counter()
    out = []
    for d in dice:
        if d["field_status"] != "field":
            d = {**d, "thrower": ["ann", "bob"][min(1, asked[d["colour"]])]}
            asked[d["colour"]] += 1
        out.append(d)
    return out


def _fighter_round(dice: list[dict[str, Any]]) -> Game:
    dice = _with_throwers(dice)
    setup = {"game": "dice-fighter", "players": ["ann", "bob"], "options": {"initial_power": {}}}
    game = new_game(Setup.from_json(setup))
    game.apply(Input.from_json({"type": "secret", "player": "ann", "fighter": "lv3-champion"}))
    game.apply(Input.from_json({"type": "secret", "player": "bob", "fighter": "lv3-ninja"}))
    assert game.state["phase"] == "throw"
    game.apply(Input.from_json({"type": "throw", "dice": dice}))
    return game


def test_dice_fighter_round_scored_from_frame() -> None:
    """Six percentile d10 read from the frame; side and field status from calibration, not truth."""
    img, truth = load_scene("fighter_round")
    readings = default_reader().read(img)
    assert [r.kind for r in readings] == ["d10p"] * 6
    assert all(r.value in range(0, 100, 10) for r in readings)
    dice = _placement(img, readings)
    for r, d in zip(readings, dice, strict=True):
        t = min(
            truth["dice"],
            key=lambda t: np.hypot(t["center_px"][0] - r.center[0], t["center_px"][1] - r.center[1]),
        )
        assert (d["field_status"], d.get("side")) == (t["field_status"], t["side"]), (r, t)
        assert r.colour == t["colour"], (r, t)
    game = _fighter_round(dice)
    assert game.state["phase"] != "throw"
    # The round is scored on what the frame shows: each die counted for the side calibration put it on.
    by_side = Counter(d["side"] for d in dice if d["field_status"] == "field")
    assert by_side == Counter(t["side"] for t in truth["dice"] if t["field_status"] == "field")


def test_dice_fighter_round_ends_as_thrown() -> None:
    img, truth = load_scene("fighter_round", STILLS)
    readings = default_reader().read(img)
    assert sorted(r.value for r in readings) == sorted(t["value"] for t in truth["dice"])
    dice = _placement(img, readings)
    true_dice = [
        {
            k: t[k]
            for k in ("kind", "value", "colour", "field_status", "side", "card_slot")
            if t.get(k) is not None
        }
        for t in truth["dice"]
    ]
    from_frame, from_truth = _fighter_round(dice), _fighter_round(true_dice)
    assert from_frame.state["players"] == from_truth.state["players"]
    assert from_frame.state["last_round"] == from_truth.state["last_round"]
