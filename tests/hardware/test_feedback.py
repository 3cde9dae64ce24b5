"""The LED listener: the picture for a snapshot, animations on transitions, no waiting in the table loop."""

from __future__ import annotations

import numpy as np

from hardware import patterns
from hardware.feedback import LedFeedback
from hardware.leds import open_matrix
from hardware.protocol_emu import receiver

PLAYERS = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]


def snap(kind: str | None, players: list[str], result: dict | None = None) -> dict:
    """A table snapshot: while a secret choice runs, its "secret" names who has chosen (never what)."""
    secret = None
    if kind == "secret":
        done = [p["name"] for p in PLAYERS if p["name"] not in players]
        secret = {"status": "selecting", "confirmed": done, "waiting": players}
    return {
        "players": PLAYERS,
        "state": {"expects": {"kind": kind, "players": players}, "result": result},
        "secret": secret,
    }


def test_feedback_follows_the_game_and_animates_the_reveal_and_the_winner() -> None:
    url = "emu://feedback-test"
    receiver(url).reset()
    fb = LedFeedback(open_matrix(url, 8, 8, baud=2_000_000))
    try:
        fb(snap("secret", ["ann", "bob"]))
        assert fb.wait_idle()
        assert np.array_equal(
            receiver(url).last_image(), patterns.confirmed(8, 8, ["red", "blue"], [False, False])
        )
        fb(snap("secret", ["bob"]))
        assert fb.wait_idle()
        assert np.array_equal(
            receiver(url).last_image(), patterns.confirmed(8, 8, ["red", "blue"], [True, False])
        )
        reveal = fb.frames_for(snap("roll", ["ann"]))
        assert len(reveal) == len(patterns.reveal(8, 8, ["red", "blue"])) + 1
        assert np.array_equal(reveal[-1], patterns.turn(8, 8, "red", 1))
        end = fb.frames_for(snap(None, [], {"winners": ["bob"]}))
        assert len(end) == len(patterns.winner(8, 8, ["blue"])) + 1
        assert len(fb.frames_for(snap(None, [], {"winners": ["bob"]}))) == 1  # the fanfare plays once
    finally:
        fb.close()
