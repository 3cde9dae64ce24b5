"""Issue 46 item 3: a d6 whose top face carries a symbol (a skull, a logo, a word) is found and asked,
never dropped as "not a die"; the pip check tells pips from a symbol on a drawn face."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.harness import match_boxes
from training.render.symbols import (
    DESIGNS,
    HELDOUT_DESIGNS,
    TUNE_DESIGNS,
    TUNE_SEED,
    make_scene,
    symbol_texture,
)
from training.render.synthetic import face_texture
from vision import pipcheck, symbolfaces
from vision.crops import CROP, Pyramid
from vision.reader import ASKED, DiceReader
from vision.reading import Rejected
from vision.symbolfaces import SymbolFaces


def _on_table(face: np.ndarray, shape: str = "square") -> np.ndarray:
    """A 200 x 200 grey table with ``face`` (72 px) lying in its middle, or a disc of its colour."""
    img = np.full((200, 200, 3), (120, 128, 118), np.uint8)
    if shape == "square":
        img[64:136, 64:136] = face
    else:
        cv2.circle(img, (100, 100), 40, tuple(int(v) for v in face[36, 5]), -1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("design", TUNE_DESIGNS)
def test_a_drawn_symbol_face_fails_the_pip_check_and_pips_pass(design: str) -> None:
    rng = np.random.default_rng(1)
    symbol = symbol_texture(design, "red", rng)
    assert not pipcheck.check(cv2.resize(symbol, (pipcheck.SIDE, pipcheck.SIDE)), 1).ok
    for value in range(1, 7):
        pips = face_texture(value, "red")
        assert pipcheck.check(cv2.resize(pips, (pipcheck.SIDE, pipcheck.SIDE)), value).ok, value


def test_a_square_of_one_colour_is_die_like_a_disc_is_not() -> None:
    rng = np.random.default_rng(2)
    face = symbol_texture("skull", "blue", rng)
    pyr = Pyramid(_on_table(face))
    assert pipcheck.die_like(pyr, (100.0, 100.0), 72.0, 72.0)
    assert not pipcheck.die_like(Pyramid(_on_table(face, "disc")), (100.0, 100.0), 72.0, 72.0)
    # a square far bigger than the box is not this box's die
    assert not pipcheck.die_like(pyr, (100.0, 100.0), 36.0, 36.0)


def test_found_again_keeps_only_die_like_rejections_apart_from_dice_read_and_of_their_size() -> None:
    pyr = Pyramid(_on_table(symbol_texture("star", "green", np.random.default_rng(3))))
    r = Rejected((100.0, 100.0), 72.0, 72.0, "classifier", "read as not a die", 3, 0.9)
    read = [((20.0, 20.0), 70.0, 70.0)]
    found, rest = pipcheck.found_again(pyr, read, [r], ("classifier",))
    assert found == [r] and rest == []
    # a where step's rejection stays rejected; so does one lying on a die read, or of no die's size
    assert (
        pipcheck.found_again(
            pyr, read, [Rejected((100.0, 100.0), 72.0, 72.0, "play area", "out")], ("classifier",)
        )[0]
        == []
    )
    assert pipcheck.found_again(pyr, [((110.0, 100.0), 72.0, 72.0)], [r], ("classifier",))[0] == []
    assert pipcheck.found_again(pyr, [((20.0, 20.0), 30.0, 30.0)], [r], ("classifier",))[0] == []


def test_the_designs_held_out_for_measuring_were_not_tuned_on() -> None:
    assert not set(TUNE_DESIGNS) & set(HELDOUT_DESIGNS)
    assert set(TUNE_DESIGNS) | set(HELDOUT_DESIGNS) == set(DESIGNS)


def test_a_symbol_die_on_top_is_found_and_asked_not_dropped() -> None:
    img, truth = make_scene(1, TUNE_SEED, TUNE_DESIGNS)
    again, _ = make_scene(1, TUNE_SEED, TUNE_DESIGNS)
    assert np.array_equal(img, again)  # seeded
    dice = truth["dice"]
    symbol = [j for j, d in enumerate(dice) if d["symbol"]]
    assert symbol
    boxes = [tuple(d["box_px"]) for d in dice]
    before = DiceReader(symbol_dice=False).read(img)
    now = DiceReader().read(img)
    m_before = match_boxes(boxes, [d.center for d in before])
    m_now = match_boxes(boxes, [d.center for d in now])
    dropped = [j for j in symbol if m_before[j] is None]
    assert dropped, "the scene no longer shows a symbol die the old reader drops"
    found = [j for j in dropped if m_now[j] is not None]
    assert found, "every symbol die the old reader dropped is still dropped"
    assert all(now[m_now[j]].confidence <= ASKED for j in found)  # type: ignore[index]
    # every pip die read as before
    for j, d in enumerate(dice):
        if not d["symbol"] and m_before[j] is not None:
            assert m_now[j] is not None and now[m_now[j]].value == before[m_before[j]].value
    assert len(now) - sum(i is not None for i in m_now) == 0  # no phantom


def test_a_named_symbol_face_reads_as_its_value_at_any_quarter_turn_and_another_is_still_asked() -> None:
    rng = np.random.default_rng(5)
    skull = cv2.resize(symbol_texture("skull", "blue", rng), (CROP, CROP), interpolation=cv2.INTER_AREA)
    star = cv2.resize(symbol_texture("star", "blue", rng), (CROP, CROP), interpolation=cv2.INTER_AREA)
    named = SymbolFaces.of([(1, symbolfaces.decode(symbolfaces.encode(skull)))])
    seen = np.ascontiguousarray(np.rot90(skull)) + rng.integers(0, 6, skull.shape).astype(np.uint8)
    got = named.read(seen)
    assert got is not None and got[0] == 1 and got[1] >= symbolfaces.SAME
    assert named.read(star) is None
    assert SymbolFaces().read(skull) is None
    with pytest.raises(ValueError, match="crop: expected a 32x32"):
        symbolfaces.decode("bm90IGEgcGljdHVyZQ==")
