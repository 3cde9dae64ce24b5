"""The per-die reader on the OCR recogniser's features (issue 44, `vision.numbered.die_head`): a die
read later is its taught roll's face whatever turn it lies at; faces never taught score -1; bad
features are refused by name; a set keeps its taught rolls' head views (in its file, with answers
added, from `confirm`), and `read` weighs a die of it by them, sure only by a clear margin."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.numbered import die_head
from vision.numbered.die_head import DieHead, pooled
from vision.numbered.learnt import DiceSet, LearntReading, set_from_json
from vision.numbered.ocr import OcrValue
from vision.numbered.reader import UNCONFIRMED, NumberedReader, with_die_head

SHARES, TURNS, STEPS, D = 2, 12, 6, 16


def roll(rng: np.random.Generator, base: np.ndarray, shift: int = 0, noise: float = 0.05) -> np.ndarray:
    """One die's head views (SHARES*TURNS x STEPS x D): ``base`` (SHARES x TURNS x D) with its turns
    moved ``shift`` places (the die turned on the table), each step a little noisy."""
    views = np.roll(base, shift, axis=1).reshape(SHARES * TURNS, 1, D)
    return np.asarray(views + noise * rng.standard_normal((SHARES * TURNS, STEPS, D)), np.float32)


def test_a_turned_die_reads_as_its_taught_face_and_untaught_faces_score_minus_one() -> None:
    rng = np.random.default_rng(0)
    looks = {f: rng.standard_normal((SHARES, TURNS, D)) for f in (3, 7, 12)}
    taught = [f for f in looks for _ in range(2)]
    head = DieHead.fit(taught, pooled(np.stack([roll(rng, looks[f]) for f in taught])))
    assert head.faces == [3, 7, 12]
    later = np.stack([roll(rng, looks[f], shift=s) for f, s in ((7, 5), (12, 11), (3, 3))])
    got = head.likeness(pooled(later), faces=[3, 7, 12, 20])
    assert got.shape == (3, 4)
    assert [[3, 7, 12][i] for i in got[:, :3].argmax(1)] == [7, 12, 3]
    assert (got[:, 3] == -1).all()


def test_bad_features_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="views a multiple of 2"):
        DieHead.fit([1], np.zeros((1, 5, D), np.float32))
    with pytest.raises(ValueError, match="1 faces for 2 rolls"):
        DieHead.fit([1], np.zeros((2, SHARES * TURNS, D), np.float32))
    with pytest.raises(ValueError, match="N x views x steps x features"):
        pooled(np.zeros((SHARES * TURNS, STEPS, D), np.float32))


def _set(head: bool = True) -> DiceSet:
    """A d20 set of two faces (5 and 9), one crop each, with or without its taught rolls' head views:
    face 9's views a shifted copy of face 5's look's opposite."""
    rng = np.random.default_rng(1)
    views = rng.standard_normal((2, SHARES * TURNS, D)).astype(np.float32)
    return DiceSet(
        "ann-d20",
        "d20",
        "red",
        "x",
        np.array([5, 9]),
        np.eye(2, 4, dtype=np.float32),
        head_values=np.array([5, 9]) if head else None,
        head_views=views if head else None,
    )


def _reading(likes: tuple[float, float], rival: str = "") -> LearntReading:
    return LearntReading(
        kind="d20",
        value=5 if likes[0] >= likes[1] else 9,
        center=(400.0, 300.0),
        quad=((380.0, 280.0), (420.0, 280.0), (420.0, 320.0), (380.0, 320.0)),
        confidence=UNCONFIRMED,
        colour="red",
        dice_set="ann-d20",
        faces=(5, 9),
        likenesses=likes,
        rival=rival,
    )


def test_a_set_keeps_its_head_views_in_its_file_and_with_answers_added() -> None:
    dice = _set()
    back = set_from_json(json.loads(json.dumps(dice.to_json())))
    assert back.head_values is not None and back.head_views is not None
    assert back.head_values.tolist() == [5, 9]
    assert np.allclose(back.head_views, dice.head_views, atol=1e-2)  # kept as float16
    answered = back.plus(np.array([5]), np.zeros((1, 4), np.float32))
    assert answered.die_head is not None and answered.die_head.faces == [5, 9]
    assert "head" not in _set(head=False).to_json() and set_from_json(_set(False).to_json()).die_head is None
    bad = dice.to_json()
    bad["head"]["views"] = bad["head"]["views"][:1]
    with pytest.raises(ValueError, match="for each of its 2 rolls"):
        set_from_json(bad)
    with pytest.raises(ValueError, match="die head views"):
        die_head.decode("24:not base64!")


def test_a_die_is_read_by_its_own_head_views_sure_only_by_a_clear_margin() -> None:
    dice = _set()
    assert dice.die_head is not None and dice.head_views is not None
    flat = [1 / 20] * 20  # the OCR head tells nothing
    # the set's likeness leans to 5, but the die's views are face 9's taught roll's, turned 4 places
    views = np.roll(dice.head_views[1].reshape(SHARES, TURNS, D), 4, axis=1).reshape(SHARES * TURNS, D)
    got = with_die_head(_reading((0.86, 0.84)), flat, views, dice.die_head)
    assert got is not None and got.value == 9 and got.confidence == die_head.SURE
    # a die two of a roster's dice are as alike to is asked, whatever it reads
    disputed = with_die_head(_reading((0.86, 0.84), rival="bob-d20"), flat, views, dice.die_head)
    assert disputed is not None and disputed.value == 9 and disputed.confidence <= UNCONFIRMED
    # halfway between the two taught rolls: no clear margin, asked
    half = (dice.head_views[0] + dice.head_views[1]) / 2
    unsure = with_die_head(_reading((0.85, 0.85)), flat, half, dice.die_head)
    assert unsure is not None and unsure.confidence <= UNCONFIRMED
    # no views, or views of another head: read as before
    assert with_die_head(_reading((0.86, 0.84)), flat, None, dice.die_head) is None
    assert with_die_head(_reading((0.86, 0.84)), flat, views[:6], dice.die_head) is None


def test_confirm_keeps_the_head_views_see_read(tmp_path: Path) -> None:
    from controller.learn_dice import confirm

    rng = np.random.default_rng(2)
    views = [rng.standard_normal((SHARES * TURNS, D)).astype(np.float32) for _ in range(3)]
    seen = [
        {
            "frame": f"f{i}.png",
            "centre": [10, 10],
            "group": i,
            "guess": None,
            "features": [1.0, 0.0],
            "head": h,
        }
        for i, h in enumerate(die_head.encode(v) for v in views)
    ]
    meta = {"name": "red", "kind": "d20", "colour": "red", "embedder": "x", "seen": seen}
    (tmp_path / "seen.json").write_text(json.dumps(meta))
    (tmp_path / "confirm.csv").write_text("group,crops,guess,face\n0,1,,3\n1,1,,-\n2,1,,17\n")
    dice = confirm(tmp_path, allow_missing=True)
    assert dice.head_values is not None and dice.head_views is not None
    assert dice.head_values.tolist() == [3, 17] and dice.head_views.shape == (2, SHARES * TURNS, D)
    seen[2]["head"] = None  # a crop the head gave no views of: the set keeps none (read as before)
    (tmp_path / "seen.json").write_text(json.dumps(meta))
    assert confirm(tmp_path, allow_missing=True).die_head is None


class _ViewsHead:
    """The OCR head telling nothing of the face, but giving the die's views."""

    def __init__(self, views: np.ndarray) -> None:
        self.views = views

    def read(self, image: np.ndarray, dice: list[tuple[tuple[float, float], float, str]]) -> list[OcrValue]:
        ev = tuple(1 / 20 for _ in range(20))
        return [OcrValue("d20", 1, 0.05, ev, (0.05, -3.0, 1.0, 0.1), views=self.views) for _ in dice]


def test_read_weighs_a_die_of_a_set_with_head_views_by_them(monkeypatch: pytest.MonkeyPatch) -> None:
    dice = _set()
    assert dice.head_views is not None
    reader = NumberedReader.__new__(NumberedReader)
    reader.ocr, reader.learnt_ocr = _ViewsHead(dice.head_views[1]), 0.08  # type: ignore[assignment]
    image = np.zeros((600, 800, 3), np.uint8)
    reader.top_view = None  # no camera view stated: read as before
    unviewed = reader.learnt_ocr_readings(image, [_reading((0.86, 0.84))], dice)[0]
    assert unviewed.value == 5 and unviewed.confidence <= UNCONFIRMED
    reader.top_view = object()  # the camera's view stated: the die's own reader weighs it
    got = reader.learnt_ocr_readings(image, [_reading((0.86, 0.84))], dice)[0]
    assert (got.value, got.confidence) == (9, die_head.SURE)
    monkeypatch.setenv("DICETABLE_DIE_HEAD", "off")  # as before: the set's nearest face, asked
    before = reader.learnt_ocr_readings(image, [_reading((0.86, 0.84))], dice)[0]
    assert before.value == 5 and before.confidence <= UNCONFIRMED
