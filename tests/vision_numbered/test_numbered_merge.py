"""Merging the pip-d6 reader's dice with the numbered reader's, on exact hand-made readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.numbered import merge
from vision.reading import DieReading


def die(kind: str, value: int, x: float, y: float, size: float = 40.0, confidence: float = 0.9) -> DieReading:
    h = size / 2
    quad = ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))
    return DieReading(kind=kind, value=value, center=(x, y), quad=quad, confidence=confidence, colour="red")


def test_a_d6_reading_on_a_numbered_die_gives_way() -> None:
    d6 = [die("d6", 4, 100, 100), die("d6", 2, 300, 100)]
    numbered = [die("d20", 17, 104, 98), die("d6", 2, 302, 101)]
    got = merge(d6, numbered)
    assert [(r.kind, r.value) for r in got] == [("d20", 17), ("d6", 2)]
    assert got[1] is d6[1]  # the d6 reader's own reading of a d6 is kept


@pytest.mark.parametrize(
    ("d6_conf", "numbered_conf", "kept"),
    [(0.9, 0.29, "d6"), (0.89, 0.29, "d20"), (0.9, 0.3, "d20"), (0.99, 0.95, "d20")],
)
def test_a_weak_numbered_reading_does_not_displace_a_sure_d6(
    d6_conf: float, numbered_conf: float, kept: str
) -> None:
    from vision.numbered.combined import SURE_D6, WEAK_NUMBERED

    assert (SURE_D6, WEAK_NUMBERED) == (0.9, 0.3)
    got = merge(
        [die("d6", 4, 100, 100, confidence=d6_conf)], [die("d20", 9, 103, 99, confidence=numbered_conf)]
    )
    assert [r.kind for r in got] == [kept]


def test_dice_only_one_reader_found_are_kept_in_reading_order() -> None:
    got = merge([die("d6", 6, 50, 300)], [die("d10p", 90, 400, 50), die("d6", 1, 200, 200)])
    assert [(r.kind, r.value) for r in got] == [("d10p", 90), ("d6", 1), ("d6", 6)]


def test_nothing_in_nothing_out() -> None:
    assert merge([], []) == []


@pytest.mark.parametrize("still", [False, True])
def test_read_all_gives_the_numbered_dice_of_a_rendered_roll(still: bool) -> None:
    from numbered_helpers import SCENES, STILLS, load_scene

    from vision.numbered import read_all

    img, truth = load_scene("angler_ann", STILLS if still else SCENES)
    got = read_all(img)
    near_px = 15 * img.shape[1] / 1280
    for d in truth["dice"]:
        near = [
            r
            for r in got
            if abs(r.center[0] - d["center_px"][0]) < near_px
            and abs(r.center[1] - d["center_px"][1]) < near_px
        ]
        assert [r.kind for r in near] == [d["kind"]], (d, near)  # one reading per die, of its kind


def test_read_all_names_bad_input() -> None:
    from vision.numbered import read_all

    with pytest.raises(ValueError, match="3 colour channels"):
        read_all(np.zeros((480, 640), np.uint8))


def test_top_faces_found_late_are_those_found_at_once() -> None:
    """add_numbered reads without d6 top faces and finds them for the d6 it keeps: the same dice,
    quads and all, as reading them at once and merging."""
    from numbered_helpers import SCENES, load_scene

    from vision.numbered.combined import add_numbered, merge
    from vision.numbered.reader import default_reader

    img, _ = load_scene("angler_ann", SCENES)
    reader = default_reader()
    eager = reader.read(img)
    lazy = reader.read(img, quads=False)
    assert [(r.kind, r.value, r.center) for r in lazy] == [(r.kind, r.value, r.center) for r in eager]
    d6 = [r for r in eager if r.kind == "d6"]
    assert d6 and all(a.quad != b.quad for a, b in zip(d6, [r for r in lazy if r.kind == "d6"], strict=True))
    # no pip reader: every d6 is the numbered reader's, and each gets its top face back
    assert add_numbered(img, [], reader=reader) == merge([], eager)
    # a pip reading kept as it is, not given a face it did not find
    pip = [replace(d6[0], value=d6[0].value % 6 + 1, confidence=0.99)]
    got = add_numbered(img, pip, reader=reader)
    assert pip[0] in got and got == merge(pip, eager)


def test_with_face_quad_leaves_numbered_dice_alone() -> None:
    from vision.numbered.reader import with_face_quad

    r = die("d20", 17, 100, 100)
    assert with_face_quad(np.zeros((200, 200, 3), np.uint8), r) is r
