"""The camera's view learnt from the teaching rolls (issue 44, controller.learn_view): a tilted scene
learns its tilt, a top-down one none, a stated view wins, bad values refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller import learn_view
from controller.camera_view import view_notes
from controller.config import ConfigError, parse_config
from vision.oblique import Tilt, resting_top

W, H = 1280, 720


def _cfg(tmp: Path, **vision: object) -> Any:
    table = {"game": "die-angler", "roster": str(tmp / "t.roster.json")}
    return parse_config({"table": table, "vision": vision})


class Read:
    def __init__(self, value: int, confidence: float) -> None:
        self.value, self.confidence = value, confidence
        self.features = (confidence, float(np.log(confidence + 1e-6)), 0.5, 0.5)


class Head:
    """A head that reads a die surely only where its top face truly is (the scene's ``tops``: the image
    point of each die's top face), less surely the farther it is asked from it."""

    def __init__(self, tops: dict[tuple[int, int], tuple[float, float]]) -> None:
        self.tops = tops
        self.rectify: Any = None

    def read(self, image: np.ndarray, asks: list[tuple[tuple[float, float], float, str]]) -> list[Read]:
        out = []
        for (x, y), side, _ in asks:
            key = min(self.tops, key=lambda k: (k[0] - x) ** 2 + (k[1] - y) ** 2)
            tx, ty = self.tops[key]
            off = float(np.hypot(x - tx, y - ty)) / side
            out.append(Read(7, float(np.exp(-((off / 0.12) ** 2)))))
        return out


def _scene(
    tilt: Tilt | None, n: int = 40, centred: bool = False
) -> tuple[list[tuple[Any, list[tuple[float, float, float]]]], Head]:
    """Dice of one size on a table under ``tilt`` (None: straight down): each frame one die's outline
    (its centre, its longer side as the camera sees it) and a head reading it surely at its top face
    (``centred``: at its outline's centre, as a die seen from above)."""
    rng = np.random.default_rng(44)
    view = (tilt or Tilt(0.0, 90.0, 1.0)).view(W, H)
    px = rng.uniform([100, 80], [W - 100, H - 80], size=(n, 2))
    rays = np.column_stack([px, np.ones(n)]) @ view.kinv.T
    sides = view.camera_matrix[0, 0] * 1.8 * (rays @ view.down) / 30.0 * rng.normal(1.0, 0.02, n)
    frames, tops = [], {}
    for (x, y), s in zip(px, sides, strict=True):
        top = resting_top(view, (float(x), float(y)), float(s)) if tilt is not None and not centred else None
        tops[(round(x), round(y))] = top[0] if top is not None else (float(x), float(y))
        frames.append((np.zeros((H, W, 3), np.uint8), [(float(x), float(y), float(s))]))
    return frames, Head(tops)


def test_a_tilted_scene_learns_its_tilt_direction_and_lens() -> None:
    truth = Tilt(45.0, 90.0, 1.4286)
    frames, head = _scene(truth)
    got = learn_view.learn(head, frames, "d20", W, H)
    assert got.tilt_deg == 45.0 and got.nadir_deg == 90.0, got.why
    assert abs(got.focal - 1.4286) < 0.15
    assert got.tilt() == Tilt(45.0, 90.0, got.focal)
    assert "45 degrees" in got.said()


def test_a_top_down_scene_learns_no_tilt() -> None:
    frames, head = _scene(None)
    got = learn_view.learn(head, frames, "d20", W, H)
    assert got.tilt_deg is None and got.tilt() is None
    assert "no tilt" in got.said()
    # too few dice, or a kind cut as from above whatever the view: nothing learnt
    assert learn_view.learn(head, frames[:5], "d20", W, H).tilt_deg is None
    assert learn_view.learn(head, _scene(Tilt(45.0, 90.0, 1.4286))[0], "d10", W, H).tilt_deg is None


def test_sizes_that_tell_a_tilt_the_head_does_not_back_learn_no_tilt() -> None:
    frames, head = _scene(Tilt(45.0, 90.0, 1.4286), centred=True)
    got = learn_view.learn(head, frames, "d20", W, H)
    assert got.tilt_deg is None and "bigger toward 90" in got.why and "no tilt read" in got.why


def test_the_size_gradient_tells_the_nadir_only_when_there_is_one() -> None:
    frames, _ = _scene(Tilt(30.0, 0.0, 1.0))
    at = np.array([o for _, d in frames for o in d])
    got = learn_view.size_gradient(at[:, :2], at[:, 2], W)
    assert got is not None and (got[0] < 10 or got[0] > 350)  # bigger toward the right
    flat = at.copy()
    flat[:, 2] = 60.0 + np.random.default_rng(1).normal(0, 1.0, len(flat))
    assert learn_view.size_gradient(flat[:, :2], flat[:, 2], W) is None


def _keep(tmp: Path, cfg: Any, view: learn_view.LearntView) -> str | None:
    session = tmp / "session"
    session.mkdir(exist_ok=True)
    (session / "seen.json").write_text(json.dumps({"view": view.to_json(), "seen": []}), encoding="utf-8")
    return learn_view.keep(cfg, session)


def test_a_learnt_view_is_kept_used_and_a_stated_view_wins(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, learn_camera_view=True)
    assert learn_view.table_view(cfg) is None  # nothing learnt yet
    ((key, said),) = view_notes(cfg)
    assert key == "vision.learn_camera_view" and "no camera view learnt yet" in said
    kept = _keep(tmp_path, cfg, learn_view.LearntView(45.0, 90.0, 1.41, "why"))
    assert kept is not None and "45 degrees" in kept
    assert learn_view.table_view(cfg) == Tilt(45.0, 90.0, 1.41)
    ((_, said),) = view_notes(cfg)
    assert "45 degrees" in said and "camera_tilt_deg" in said
    # not asked to learn: the learnt view is not used
    assert learn_view.table_view(_cfg(tmp_path)) is None
    # a stated view wins, 0 (straight down) too
    stated = _cfg(tmp_path, learn_camera_view=True, camera_tilt_deg=0)
    assert learn_view.table_view(stated) == Tilt(0.0, 90.0, 0.98)
    assert any("wins" in s for _, s in view_notes(stated))
    # a session that learnt no tilt replaces the tilt learnt before, and says the dice need teaching again
    kept = _keep(tmp_path, cfg, learn_view.LearntView(None, why="flat"))
    assert kept is not None and "no tilt" in kept and "teach them again" in kept
    assert learn_view.table_view(cfg) is None


def test_a_session_that_learnt_nothing_leaves_the_view_file(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, learn_camera_view=True)
    _keep(tmp_path, cfg, learn_view.LearntView(30.0, 90.0, 1.0))
    session = tmp_path / "s2"
    session.mkdir()
    (session / "seen.json").write_text(json.dumps({"seen": []}), encoding="utf-8")
    assert learn_view.keep(cfg, session) is None
    assert learn_view.table_view(cfg) == Tilt(30.0, 90.0, 1.0)


@pytest.mark.parametrize("value", ["yes", 1, "learn"])
def test_a_bad_learn_setting_is_refused_by_name(tmp_path: Path, value: object) -> None:
    with pytest.raises(ConfigError) as e:
        _cfg(tmp_path, learn_camera_view=value)
    assert [k for k, _ in e.value.problems] == ["vision.learn_camera_view"]


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"tilt_deg": 95, "nadir_deg": 90, "focal": 1.0}, "tilt_deg"),
        ({"tilt_deg": 30, "nadir_deg": 400, "focal": 1.0}, "nadir_deg"),
        ({"tilt_deg": 30, "nadir_deg": 90, "focal": 0}, "focal"),
        ({"tilt_deg": "steep"}, "tilt_deg"),
        ([30, 90], "tilt_deg"),
    ],
)
def test_a_bad_view_file_is_refused_by_name(tmp_path: Path, data: object, named: str) -> None:
    cfg = _cfg(tmp_path, learn_camera_view=True)
    learn_view.view_path(cfg).write_text(json.dumps(data), encoding="utf-8")
    assert learn_view.table_view(cfg) is None  # cut as from straight above
    ((key, said),) = view_notes(cfg)
    assert key == "vision.learn_camera_view" and named in said and str(learn_view.view_path(cfg)) in said
