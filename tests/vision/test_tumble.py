"""The tumble check (vision.tumble) on recorded throws with ground truth: tests/fixtures/sessions/throws."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.live import SETTLE_S
from hardware.frames import RecordedSource
from vision.motion import MotionGate, RollState
from vision.tumble import DieBox, DieVerdict, ThrowRecorder, ThrowVerdict, TumbleSettings, decide, judge_throw

ROOT = Path(__file__).resolve().parents[2]
THROWS = ROOT / "tests" / "fixtures" / "sessions" / "throws"
TRUTH = json.loads((THROWS / "truth.json").read_text())


def boxes(throw: dict[str, Any]) -> list[DieBox]:
    return [DieBox(d["center"][0], d["center"][1], d["side"]) for d in throw["dice"]]


def play(recorder_for: Any = ThrowRecorder) -> list[tuple[dict[str, Any], ThrowVerdict]]:
    """Every throw of the fixture through the motion gate and a recorder, judged where it settled."""
    gate, rec = MotionGate(settle_s=SETTLE_S), recorder_for()
    out = []
    with RecordedSource(THROWS) as src:
        while (frame := src.read()) is not None:
            upd = gate.update(frame.image_bgr, frame.t)
            if upd.settled_now:
                throw = min(TRUTH["throws"], key=lambda th: abs(th["t_rest"] - upd.t_rest))
                out.append((throw, rec.judge(frame.image_bgr, boxes(throw))))
            rec.add(frame.image_bgr, upd.state in (RollState.EMPTY, RollState.SETTLED), frame.t)
    return out


@pytest.fixture(scope="module")
def judged() -> list[tuple[dict[str, Any], ThrowVerdict]]:
    return play()


def test_the_fixture_holds_every_kind_of_throw() -> None:
    kinds = [th["kind"] for th in TRUTH["throws"]]
    assert {k: kinds.count(k) for k in set(kinds)} == {"thrown": 3, "placed": 3, "slid": 3}


def test_placed_and_slid_throws_are_flagged_and_real_ones_are_not(judged: list[Any]) -> None:
    assert len(judged) == len(TRUTH["throws"]), "the gate settles once per throw"
    for throw, verdict in judged:
        assert verdict.flagged == (throw["kind"] != "thrown"), (
            throw["kind"],
            throw["t_rest"],
            verdict.to_json(),
        )


def test_the_verdicts_say_what_each_die_did(judged: list[Any]) -> None:
    for throw, verdict in judged:
        kinds = {d.verdict for d in verdict.dice}
        if throw["kind"] == "thrown":
            assert "tumbled" in kinds and not kinds & {"placed", "slid"}
        elif throw["kind"] == "placed":
            assert "placed" in kinds
            assert "came with a hand and did not roll" in verdict.reason()
        else:
            assert "slid" in kinds or "placed" in kinds  # a pushing hand in view makes a slide a placing
        # a real throw's dice were seen tumbling: several frames with another face up
        if throw["kind"] == "thrown":
            assert max(d.new_faces for d in verdict.dice) >= 2


def test_without_the_motion_record_nothing_is_flagged() -> None:
    """The verdict comes from the frames before the dice settled: a recorder that keeps none sees no
    placing or sliding, and says it saw nothing (it never guesses a flag)."""

    class Blind(ThrowRecorder):
        def add(self, image: np.ndarray, still: bool, t: float | None = None) -> None:
            super().add(image, True, t)

    for _, verdict in play(Blind):
        assert not verdict.flagged
        assert {d.verdict for d in verdict.dice} <= {"unseen", "stayed"}


def test_the_reason_names_the_dice() -> None:
    v = ThrowVerdict(
        (DieVerdict("tumbled"), DieVerdict("placed", hand=True), DieVerdict("slid", travel=3.26))
    )
    assert v.flagged
    assert v.reason(["r1.1", "r1.2", "r1.3"]) == (
        "r1.2 came with a hand and did not roll; r1.3 slid 3.3 die widths with the same face up"
    )
    assert ThrowVerdict((DieVerdict("tumbled"),)).reason() == "every die tumbled"
    with pytest.raises(ValueError, match="2 names for 3 dice"):
        v.reason(["a", "b"])


def test_decide_from_the_evidence() -> None:
    st = TumbleSettings()
    nan = math.nan
    # seen at 3, 2 and 1 die widths showing other faces: it tumbled
    assert decide([(1.0, 0.4), (2.0, 0.3), (3.0, 0.5)], False, st).verdict == "tumbled"
    # the same face all the way: slid; with a hand beside it: placed
    assert decide([(1.0, 0.95), (2.0, 0.93), (3.0, 0.9)], False, st).verdict == "slid"
    assert decide([(1.0, 0.95), (2.0, nan)], True, st).verdict == "placed"
    # one frame with its own face is not enough for a slide; nothing seen is not a placing
    assert decide([(3.0, 0.95)], False, st).verdict == "unclear"
    assert decide([], False, st).verdict == "unseen"


def test_bad_input_is_refused_with_a_clear_message() -> None:
    img = np.zeros((60, 80, 3), np.uint8)
    with pytest.raises(ValueError, match="uint8"):
        judge_throw([], [DieBox(10, 10, 8)], None, img.astype(np.float32))
    with pytest.raises(ValueError, match="the settled frame is"):
        judge_throw([np.zeros((30, 40, 3), np.uint8)], [DieBox(10, 10, 8)], None, img)
    with pytest.raises(ValueError, match="side must be > 0"):
        judge_throw([], [DieBox(10, 10, 0)], None, img)
    with pytest.raises(ValueError, match="new_face <= same_face"):
        TumbleSettings(same_face=0.5, new_face=0.7)
    with pytest.raises(ValueError, match="max_frames"):
        ThrowRecorder(max_frames=0)
    assert judge_throw([], [], None, img).dice == ()


def test_the_recorder_learns_the_frame_rate_from_the_frames_times() -> None:
    rec = ThrowRecorder()
    img = np.zeros((60, 80, 3), np.uint8)
    assert rec.frame_rate() == 10.0  # until told
    for i in range(8):
        rec.add(img, i < 3, t=i / 30)
    assert rec.frame_rate() == pytest.approx(30.0)
    assert len(rec.frames) == 5 and rec.before is not None


def test_the_recorder_keeps_frames_without_converting_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # every frame of the camera passes the recorder: it checks a frame, it does not turn it grey to
    # do so (a quarter of the crash sweep's CPU once, issue 32); a bad frame is still refused clearly
    import cv2

    converted: list[int] = []
    real = cv2.cvtColor

    def counting(*args: Any, **kwargs: Any) -> Any:
        converted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(cv2, "cvtColor", counting)
    rec = ThrowRecorder()
    img = np.full((600, 800, 3), 90, np.uint8)
    for i in range(5):
        rec.add(img, i == 0, t=i / 10)
    assert converted == [] and len(rec.frames) == 4
    with pytest.raises(ValueError, match=r"expected a BGR image \(H, W, 3\)"):
        rec.add(np.zeros((60, 80, 4), np.uint8), False)
    with pytest.raises(ValueError, match="uint8"):
        rec.add(img.astype(np.float32), False)


def test_a_still_frame_is_brought_to_the_recorders_width_only_once_it_is_the_table_before_a_throw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 32: each still frame replaces the last, and resizing a 1280x960 frame to 800 wide cost
    # ~4 ms of the camera thread's every frame; the one kept as the table before a throw is resized
    # when the throw starts, to the same pixels
    import cv2

    resized: list[tuple[int, int]] = []
    real = cv2.resize

    def counting(img: np.ndarray, size: Any, *args: Any, **kwargs: Any) -> Any:
        resized.append(tuple(size))
        return real(img, size, *args, **kwargs)

    monkeypatch.setattr(cv2, "resize", counting)
    rng = np.random.default_rng(5)
    stills = [rng.integers(0, 255, (960, 1280, 3), np.uint8) for _ in range(10)]
    rec = ThrowRecorder()
    for i, img in enumerate(stills):
        rec.add(img, True, t=i / 10)
    assert resized == []
    last = stills[-1].copy()
    stills[-1][:] = 0  # the camera's buffer drawn over: the recorder kept its own copy
    moving = rng.integers(0, 255, (960, 1280, 3), np.uint8)
    rec.add(moving, False, t=1.0)
    assert resized == [(800, 600), (800, 600)]  # the table before, then the moving frame
    snap = rec.snapshot()
    assert snap.before is not None
    assert np.array_equal(snap.before, real(last, (800, 600), interpolation=cv2.INTER_AREA))
    assert len(snap.frames) == 1 and rec.scale == 0.625
