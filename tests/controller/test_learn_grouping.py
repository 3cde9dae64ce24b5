"""`dicetable learn-dice see` never groups crops of dice of other colours as one face, and offers what
`read --config` would find (issue 44 item 2 and its phantoms).  Light: synthetic crops and fakes,
no nets run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller import learn_dice
from controller.learn_dice import LOOK_APART, LearnError, dice_in, die_lab, group_faces
from vision.numbered.reader import Found


def _die(body: tuple[int, int, int], ink: tuple[int, int, int], mark: str, light: float = 1.0) -> np.ndarray:
    """A 64 px crop of a die: a disc of ``body`` colour with a numeral of ``ink`` on it, lit by ``light``."""
    img = np.full((64, 64, 3), 200, np.uint8)
    cv2.circle(img, (32, 32), 27, body, -1)
    cv2.putText(img, mark, (17, 43), cv2.FONT_HERSHEY_SIMPLEX, 1.0, ink, 3)
    return np.clip(img.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_crops_of_dice_of_other_colours_are_never_one_face() -> None:
    # d20_off-angle through the CLI: each face another die (orange, red, blue, purple) the embedding
    # net sees alike at 60 px (0.8-0.93), so 3 of 16 crops were grouped, and taught, as another face
    n, turns = 4, 12
    alike = np.zeros((n, turns, 8), np.float32)
    alike[:, :, 0] = 1.0
    crops = [
        _die((40, 110, 240), (20, 20, 20), "1"),
        _die((40, 110, 240), (20, 20, 20), "1", 0.9),  # one die, a little less light
        _die((200, 60, 40), (60, 200, 230), "15"),
        _die((200, 60, 40), (60, 200, 230), "15", 1.08),
    ]
    looks = die_lab(crops)
    assert looks.shape == (4, 3)
    assert np.linalg.norm(looks[0] - looks[1]) < LOOK_APART / 2  # one die's look in other light
    assert len(set(group_faces(alike, alike))) == 1  # the embeddings alone: one group
    groups = group_faces(alike, alike, looks=looks)
    assert groups[0] == groups[1] and groups[2] == groups[3] and groups[0] != groups[2], groups
    # one die's faces (one look) are grouped as before
    same = [_die((40, 110, 240), (20, 20, 20), m) for m in ("1", "7", "12", "20")]
    assert len(set(group_faces(alike, alike, looks=die_lab(same)))) == 1


class _Perceived:
    def __init__(self, dice: list[dict[str, Any]]) -> None:
        self.dice = [_Json(d) for d in dice]


class _Json:
    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d

    def to_json(self) -> dict[str, Any]:
        return dict(self.d)


class _Where:
    def steps(self, image: np.ndarray, pose: Any = None) -> list[Any]:
        return []


class _Perceiver:
    where = _Where()

    def __init__(self, dice: list[dict[str, Any]]) -> None:
        self.dice = dice

    def perceive(self, image: np.ndarray) -> _Perceived:
        return _Perceived(self.dice)


class _Reader:
    copy_stills = False

    def __init__(self, peaks: list[Found]) -> None:
        self.peaks = peaks

    def detect(self, image: np.ndarray, shrunk: Any = None) -> list[Found]:
        return list(self.peaks)

    def locate(self, image: np.ndarray, found: list[Found]) -> list[Found]:
        return list(found)


def test_a_frame_with_only_another_kind_read_still_teaches_the_strongest_other_peak() -> None:
    # `see` with a config reads the table's kinds: the relay board read as a d6 is offered (to be
    # named `-`), and the set's die the classifier did not read is still taken from the detector
    img = np.zeros((720, 1280, 3), np.uint8)
    board = {
        "kind": "d6",
        "value": 3,
        "center": [1200.0, 330.0],
        "quad": [[1180, 310], [1220, 310], [1220, 350], [1180, 350]],
    }
    peaks = [
        Found((1200.0, 330.0), 60.0, 60.0, 0.9, (1200.0, 330.0)),  # the board's: a reading lies in it
        Found((400.0, 300.0), 70.0, 70.0, 0.6, (400.0, 300.0)),  # the die
    ]
    got = dice_in(_Perceiver([board]), _Reader(peaks), img, "d20")  # type: ignore[arg-type]
    assert len(got) == 2, got
    assert got[0]["kind"] == "d6" and got[0]["value"] is None  # another kind: no value for the set
    assert got[1]["unread"] and got[1]["center"] == [400.0, 300.0]
    # a frame the set's kind is read in takes the perception step's dice alone
    die = {**board, "kind": "d20", "value": 7, "center": [400.0, 300.0]}
    assert [d["value"] for d in dice_in(_Perceiver([board, die]), _Reader(peaks), img, "d20")] == [None, 7]  # type: ignore[arg-type]


def test_see_with_a_config_reads_the_tables_kinds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.config import load_config

    toml = tmp_path / "table.toml"
    toml.write_text('[table]\ngame = "die-angler"\n', encoding="utf-8")
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), np.zeros((72, 128, 3), np.uint8))
    asked: list[Any] = []

    def fake(kind: str, cfg: Any = None, empty: bool = False, reader: Any = None, kinds: Any = None) -> Any:
        asked.append(kinds)
        raise LearnError("stop here")

    monkeypatch.setattr(learn_dice, "learning_perceiver", fake)
    for cfg in (load_config(toml), None):
        with pytest.raises(LearnError, match="stop here"):
            learn_dice.see([frame], "blue", "d20", "blue", tmp_path / "s", object(), cfg)  # type: ignore[arg-type]
    assert asked == [("d6", "d10", "d20"), None]
