"""What the perception step reads on the demo sessions' frames is pinned (issue 32: the step made
cheaper must read every frame as it did).

``tests/fixtures/sessions/perceived.json`` (``tools/sessions/perceived.py``) holds every reading set
the table's `Perceiver.perceive` gave while the five demo sessions played, with the frame, the empty
table and the arguments it was given: each is read again here and must be the same, die for die
(kind, value, centre, outline, confidence, colour, place on the board, asked or not) and candidate
for candidate rejected (with the step and why)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from controller.perceive import Perceiver
from controller.session import session_config

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
PINNED = json.loads((SESSIONS / "perceived.json").read_text(encoding="utf-8"))

pytestmark = pytest.mark.slow


def reading(out: Any) -> dict[str, Any]:
    got = out.to_json()
    got["rejected"] = [r.to_json() for r in out.rejected]
    got["board_problem"] = out.board_problem
    got["pose_found"] = out.pose_found
    return dict(json.loads(json.dumps(got)))


@pytest.mark.parametrize("game", sorted(PINNED))
def test_the_demo_frames_read_as_pinned(game: str) -> None:
    folder = SESSIONS / f"{game}-demo"
    per = Perceiver.from_config(session_config(folder))
    images: dict[str, Any] = {}

    def image(name: str) -> Any:
        if name not in images:
            images[name] = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        return images[name]

    assert PINNED[game], f"no reading set pinned for {game}"
    for i, call in enumerate(PINNED[game]):
        if call["empty"] is not None:
            per.set_empty(image(call["empty"]))
        got = reading(per.perceive(image(call["frame"]), **call["args"]))
        assert got == call["read"], f"{game}: reading set #{i} ({call['frame']}) changed"


def test_a_changed_reading_is_caught() -> None:
    """The comparison can fail: a frame read with other arguments does not read as pinned."""
    call = PINNED["dice-fighter"][0]
    folder = SESSIONS / "dice-fighter-demo"
    per = Perceiver.from_config(session_config(folder))
    per.set_empty(cv2.imread(str(folder / call["empty"]), cv2.IMREAD_COLOR))
    other = cv2.imread(str(folder / PINNED["dice-fighter"][1]["frame"]), cv2.IMREAD_COLOR)
    assert reading(per.perceive(other, **call["args"])) != call["read"]
