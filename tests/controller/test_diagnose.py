"""``dicetable demo --explain``: readings matched against the session truth, and what the table did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.diagnose import TrueDie, _actions, _outcome, match, truth_frames
from controller.eventlog import Event

ROOT = Path(__file__).resolve().parents[2]


def reading(rid: str, value: int, colour: str, x: float, y: float, **extra: Any) -> dict[str, Any]:
    q = [[x - 10, y - 10], [x + 10, y - 10], [x + 10, y + 10], [x - 10, y + 10]]
    return {"id": rid, "kind": "d6", "value": value, "colour": colour, "center": [x, y], "quad": q, **extra}


def test_match_names_every_kind_of_error() -> None:
    truth = [
        TrueDie("d6", 3, "red", (100.0, 100.0), 20.0),
        TrueDie("d6", 5, "blue", (200.0, 100.0), 20.0),
        TrueDie("d6", 2, "green", (300.0, 100.0), 20.0),
        TrueDie("d6", 6, "red", (400.0, 100.0), 20.0),
        TrueDie("d6", 4, "red", (500.0, 100.0), 20.0, {"zones": ["a", "b"], "stack_level": 0}),
    ]
    readings = [
        reading("r1.1", 3, "red", 102, 99),  # right
        reading("r1.2", 4, "blue", 199, 101),  # wrong value
        reading("r1.3", 2, "yellow", 300, 104),  # wrong colour
        reading("r1.4", 1, "white", 700, 300),  # nothing there
        reading("r1.5", 4, "red", 500, 100, zones=["b", "a"], stack_level=2),  # placed too high
    ]
    rows = {
        (r.truth.label() if r.truth else None, (r.reading or {}).get("id")): r.verdict
        for r in match(readings, truth)
    }
    assert rows == {
        ("red d6 3", "r1.1"): "ok",
        ("blue d6 5", "r1.2"): "value",
        ("green d6 2", "r1.3"): "colour",
        ("red d6 6", None): "missed",
        (None, "r1.4"): "extra",
        ("red d6 4", "r1.5"): "stack_level",
    }


def test_a_reading_too_far_from_the_die_is_extra_and_the_die_missed() -> None:
    rows = match([reading("r1.1", 3, "red", 130, 100)], [TrueDie("d6", 3, "red", (100.0, 100.0), 20.0)])
    assert sorted(r.verdict for r in rows) == ["extra", "missed"]


def test_truth_frames_reads_drawn_and_rendered_sessions() -> None:
    truth = {
        "settled": [{"file": "a.jpg", "dice": [[3, "red"]], "centers": [[10.0, 20.0]]}],
        "throws": [
            {
                "frame": "b.jpg",
                "dice": [
                    {
                        "kind": "d6",
                        "value": 5,
                        "colour": "blue",
                        "zones": ["r1c1"],
                        "top_quad_px": [[0, 0], [10, 0], [10, 10], [0, 10]],
                    }
                ],
            }
        ],
    }
    frames = truth_frames(truth)
    assert frames["a.jpg"] == [TrueDie("d6", 3, "red", (10.0, 20.0))]
    (die,) = frames["b.jpg"]
    assert (die.value, die.colour, die.center, die.size, dict(die.board)) == (
        5,
        "blue",
        (5.0, 5.0),
        10.0,
        {"zones": ["r1c1"]},
    )


def event(
    seq: int, kind: str, data: dict[str, Any], source: str = "table", player: str | None = None
) -> Event:
    return Event(seq, 1, 0.0, source, kind, player, data)


def test_actions_follow_their_reading_set_and_an_uncorrected_error_is_called_out() -> None:
    events = [
        event(1, "setup", {}),
        event(2, "reading", {"dice": []}, "camera"),
        event(3, "question", {"kind": "unsure", "text": "Is die r1.1 a 2?", "readings": ["r1.1"]}),
        event(4, "control", {"correction": "set_value", "reading": "r1.1", "from": 2, "to": 3, "who": "ref"}),
        event(
            5,
            "input",
            {"type": "roll", "player": "ann", "dice": [{"value": 3, "colour": "red"}]},
            "camera",
            "ann",
        ),
        event(6, "reading", {"dice": []}, "camera"),
        event(7, "question", {"kind": "count", "text": "The camera sees 1 dice", "readings": []}),
    ]
    acts = _actions(events)
    assert [k for k, _ in acts[1]] == ["asked", "answer", "scored"]
    assert "set r1.1 from 2 to 3" in acts[1][1][1]
    assert [k for k, _ in acts[2]] == ["asked"]
    fixed = match([reading("r1.1", 3, "red", 0, 0)], [TrueDie("d6", 3, "red", (0.0, 0.0), 20.0)])
    assert _outcome(acts[1], fixed, last=False, over=False) == "scored"
    wrong = match([reading("r1.2", 4, "red", 0, 0)], [TrueDie("d6", 3, "red", (0.0, 0.0), 20.0)])
    assert _outcome(acts[1], wrong, last=False, over=False).startswith("scored, with 1 reading error")
    assert "stalled" in _outcome(acts[2], [], last=True, over=False)


@pytest.mark.slow
def test_demo_explain_prints_every_throw_of_a_session(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "controller", "demo", "--game", "die-angler", "--explain", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    truth = json.loads((ROOT / "tests/fixtures/sessions/die-angler-demo/truth.json").read_text())
    assert out["true_scores"] == truth["final_scores"]
    assert out["throws"], "no reading set was explained"
    for th in out["throws"]:
        assert th["outcome"] and th["dice"] is not None
        assert all(d["verdict"] for d in th["dice"])
