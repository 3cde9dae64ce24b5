"""The motion gate on recorded sequences (tests/fixtures/motion, from make_sequences.py) and tiny arrays."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import Frame, RecordedSource
from vision.motion import GateUpdate, MotionGate, RollState

MOTION = Path(__file__).resolve().parents[1] / "fixtures" / "motion"
TRUTH = json.loads((MOTION / "truth.json").read_text())


@cache
def frames_of(name: str) -> tuple[Frame, ...]:
    return tuple(RecordedSource(MOTION / name))


def run(name: str, step: int = 1, gate: MotionGate | None = None) -> list[tuple[float, GateUpdate]]:
    if gate is None:
        return list(_run_default(name, step))
    return [(f.t, gate.update(f.image_bgr, f.t)) for f in frames_of(name)[::step]]


@cache
def _run_default(name: str, step: int) -> tuple[tuple[float, GateUpdate], ...]:
    gate = MotionGate()
    return tuple((f.t, gate.update(f.image_bgr, f.t)) for f in frames_of(name)[::step])


def events(updates: list[tuple[float, GateUpdate]]) -> list[tuple[str, float | None]]:
    out = []
    for _, u in updates:
        if u.settled_now:
            out.append(("settled_now", u.t_rest))
        if u.changed:
            out.append(("changed", u.t_rest))
    return out


def state_at(updates: list[tuple[float, GateUpdate]], t: float) -> RollState:
    return min(updates, key=lambda tu: abs(tu[0] - t))[1].state


@pytest.mark.parametrize("name", ["throw_hand_nudge", "rethrow", "second_throw"])
def test_each_throw_is_read_once_and_a_nudge_is_a_change(name: str) -> None:
    updates = run(name)
    truth = [(e["event"], e["t_rest"]) for e in TRUTH[name]["events"]]
    got = events(updates)
    assert [e for e, _ in got] == [e for e, _ in truth]
    for (_, t_got), (_, t_true) in zip(got, truth, strict=True):
        assert t_got == pytest.approx(t_true, abs=0.1)  # within about one frame at 15 fps


@pytest.mark.parametrize("name", ["throw_hand_nudge", "rethrow", "second_throw"])
def test_the_tables_shorter_settle_wait_sees_the_same_events(name: str) -> None:
    from controller.live import SETTLE_S

    got = events(run(name, gate=MotionGate(settle_s=SETTLE_S)))
    truth = [(e["event"], e["t_rest"]) for e in TRUTH[name]["events"]]
    assert [e for e, _ in got] == [e for e, _ in truth]
    for (_, t_got), (_, t_true) in zip(got, truth, strict=True):
        assert t_got == pytest.approx(t_true, abs=0.1)


@pytest.mark.parametrize("name", ["throw_hand_nudge", "rethrow", "second_throw"])
def test_states_follow_the_scene(name: str) -> None:
    truth = TRUTH[name]
    updates = run(name)
    for t in truth["empty_at"]:
        assert state_at(updates, t) is RollState.EMPTY
    for t in truth["settled_at"]:
        assert state_at(updates, t) is RollState.SETTLED
    for t_in, t_out in truth["handled"]:
        mid = (t_in + t_out) / 2
        assert state_at(updates, mid) is RollState.HANDLED
    first_rest = truth["events"][0]["t_rest"]
    assert state_at(updates, first_rest - 0.5) is RollState.ROLLING


def test_a_hand_that_touches_nothing_does_not_start_a_new_roll() -> None:
    updates = run("throw_hand_nudge")
    t_in, t_out = TRUTH["throw_hand_nudge"]["handled"][0]
    during = [u for t, u in updates if t_in - 0.1 <= t <= t_out + 1.0]
    assert any(u.state is RollState.HANDLED for u in during)
    assert not any(u.settled_now or u.changed for u in during)


def test_the_gate_counts_seconds_not_frames() -> None:
    # Half the frame rate: the same events, at the same rest times (within a frame at 7.5 fps).
    for name in ("throw_hand_nudge", "rethrow", "second_throw"):
        got = events(run(name, step=2))
        truth = [(e["event"], e["t_rest"]) for e in TRUTH[name]["events"]]
        assert [e for e, _ in got] == [e for e, _ in truth]
        for (_, t_got), (_, t_true) in zip(got, truth, strict=True):
            assert t_got == pytest.approx(t_true, abs=0.2)


def test_settled_now_waits_settle_seconds() -> None:
    slow = run("rethrow", gate=MotionGate(settle_s=1.0))
    t_settled = [t for t, u in slow if u.settled_now]
    t_rest = [u.t_rest for _, u in slow if u.settled_now]
    assert len(t_settled) == 2
    for ts, tr in zip(t_settled, t_rest, strict=True):
        assert tr is not None and 1.0 <= ts - tr < 1.0 + 0.15


def _scene(rng: np.random.Generator, sigma: float, die_at: tuple[int, int] | None) -> np.ndarray:
    img = np.full((120, 160, 3), 90.0)
    if die_at is not None:
        x, y = die_at
        img[y : y + 12, x : x + 12] = 235.0
    img += rng.normal(0, sigma, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma", [1.0, 6.0])
def test_thresholds_follow_the_camera_noise(sigma: float) -> None:
    rng = np.random.default_rng(1)
    gate = MotionGate(settle_s=0.3)
    t = 0.0
    ups = []
    for i in range(60):  # 1 s empty, a die drops in and lies still
        die = (70, 50) if i >= 20 else None
        ups.append(gate.update(_scene(rng, sigma, die), t))
        t += 1 / 20
    assert [u.settled_now for u in ups].count(True) == 1
    assert gate.noise_sigma > (1.5 if sigma > 3 else 0)  # it learned the noisier camera
    assert ups[15].state is RollState.EMPTY and ups[-1].state is RollState.SETTLED


def test_bad_frames_are_refused_with_a_clear_error() -> None:
    gate = MotionGate()
    with pytest.raises(ValueError, match="BGR uint8"):
        gate.update(np.zeros((10, 10), np.uint8), 0.0)
    with pytest.raises(ValueError, match="BGR uint8"):
        gate.update(np.zeros((10, 10, 3), np.float64), 0.0)
    gate.update(np.zeros((10, 10, 3), np.uint8), 1.0)
    with pytest.raises(ValueError, match="before the previous frame"):
        gate.update(np.zeros((10, 10, 3), np.uint8), 0.5)
    with pytest.raises(ValueError, match="settle_s"):
        MotionGate(settle_s=0)


def test_a_sleeve_of_any_colour_reaching_in_from_the_edge_is_handled() -> None:
    rng = np.random.default_rng(2)
    gate = MotionGate(settle_s=0.3)
    t, states, events = 0.0, [], []
    for i in range(70):
        img = _scene(rng, 1.5, (70, 50) if i >= 10 else None)
        if 35 <= i < 50:  # a dark blue sleeve from the left edge, still for a while
            reach = min(i - 34, 5) * 12
            img[30:80, :reach] = (120, 40, 20)
        u = gate.update(img, t)
        states.append(u.state)
        events.append(u.settled_now or u.changed)
        t += 1 / 20
    assert events.count(True) == 1 and events.index(True) < 35  # the throw; the sleeve leaves no event
    assert all(s is RollState.HANDLED for s in states[40:50])
    assert states[-1] is RollState.SETTLED


def test_dice_added_beside_settled_ones_are_a_new_throw_not_a_change() -> None:
    # A die that lands right where it drops moves very little: only the amount of dice tells it apart.
    rng = np.random.default_rng(4)
    gate = MotionGate(settle_s=0.3)
    t, events = 0.0, []
    for i in range(60):
        img = _scene(rng, 1.5, (40, 50) if i >= 10 else None)
        if i >= 30:
            img[50:62, 100:112] = 235  # a second die, dropped in place
        u = gate.update(img, t)
        events.append("settled_now" if u.settled_now else "changed" if u.changed else None)
        t += 1 / 20
    assert [e for e in events if e] == ["settled_now", "settled_now"]


def test_the_same_die_shifted_a_little_is_a_change() -> None:
    rng = np.random.default_rng(5)
    gate = MotionGate(settle_s=0.3)
    t, events = 0.0, []
    for i in range(60):
        x = 40 if i < 30 else 43  # nudged by 3 px
        img = _scene(rng, 1.5, (x, 50) if i >= 10 else None)
        u = gate.update(img, t)
        events.append("settled_now" if u.settled_now else "changed" if u.changed else None)
        t += 1 / 20
    assert [e for e in events if e] == ["settled_now", "changed"]


def test_lights_changing_over_an_empty_table_is_not_a_throw(caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(6)
    gate = MotionGate(settle_s=0.3)
    t, events, states = 0.0, [], []
    for i in range(80):
        img = _scene(rng, 1.5, (60, 40) if i >= 50 else None)
        if i >= 15:  # someone switches on a lamp
            img = np.clip(img.astype(int) + 40, 0, 255).astype(np.uint8)
        u = gate.update(img, t)
        events.append(u.settled_now or u.changed)
        states.append(u.state)
        t += 1 / 20
    assert events.count(True) == 1 and events.index(True) > 50  # only the die thrown afterwards
    assert states[45] is RollState.EMPTY
    assert "lights or camera changed" in caplog.text


def test_the_gate_keeps_the_empty_table_under_the_light_of_the_moment() -> None:
    # the reader's empty-table step compares each settled frame with gate.empty_frame
    rng = np.random.default_rng(7)
    gate = MotionGate(settle_s=0.3)
    t, frames = 0.0, []
    for i in range(80):
        img = _scene(rng, 1.5, (60, 40) if i >= 50 else None)
        if i >= 15:  # a lamp goes on over the empty table
            img = np.clip(img.astype(int) + 40, 0, 255).astype(np.uint8)
        frames.append(img)
        u = gate.update(img, t)
        t += 1 / 20
        if i == 10:
            assert gate.empty_frame is not None and float(gate.empty_frame.mean()) < 150
    assert u.state is RollState.SETTLED
    empty = gate.empty_frame
    assert empty is not None and empty.shape == frames[-1].shape
    # the lamp's light, and no die in it: the last frame before the throw
    assert float(empty.mean()) > float(frames[5].mean()) + 30
    assert np.array_equal(empty, frames[49])
    gate.reset()
    assert gate.empty_frame is None
