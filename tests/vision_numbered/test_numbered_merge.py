"""Merging the pip-d6 reader's dice with the numbered reader's, on exact hand-made readings."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from vision.numbered import merge
from vision.reading import DieReading

if TYPE_CHECKING:
    from vision.numbered.reader import NumberedReader


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


def _blind_reader() -> NumberedReader:
    """The default models with a detector that finds nothing: every die is one only the pip reader found."""
    from vision.numbered.reader import Found, NumberedReader

    class Blind(NumberedReader):
        def detect(
            self, image: np.ndarray, det_area: float | None = None, shrunk: np.ndarray | None = None
        ) -> list[Found]:
            return []

    return Blind()


def _pip_reading_on(d: dict[str, Any], value: int = 3, confidence: float = 0.96) -> DieReading:
    """What the pip reader makes of a die it found: a d6, here surely read."""
    x0, y0, x1, y1 = d["box_px"]
    return die("d6", value, (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0), confidence)


def test_a_numbered_die_only_the_pip_reader_found_is_read_again() -> None:
    """A die the numbered detector missed but the pip reader found (as a sure d6) is read by the
    numbered reader from the pip reader's box, and its numbered reading replaces the d6 one."""
    from numbered_helpers import SCENES, load_scene

    from vision.numbered.combined import add_numbered, second_look
    from vision.numbered.reader import default_reader

    img, truth = load_scene("angler_ann", SCENES)
    numbered = [d for d in truth["dice"] if d["kind"] != "d6"]
    pip = [_pip_reading_on(d) for d in numbered]
    got = second_look(img, pip, [], default_reader())
    assert sorted((r.kind, r.value) for r in got) == sorted((d["kind"], d["value"]) for d in numbered)
    # a die the numbered reader found already is not looked at again
    assert second_look(img, pip, got, default_reader()) == []
    # through add_numbered, with a detector that finds nothing: the pip reader's d6 readings give way
    blind = _blind_reader()
    assert blind.read(img) == []
    merged = add_numbered(img, pip, reader=blind)
    assert sorted((r.kind, r.value) for r in merged) == sorted((d["kind"], d["value"]) for d in numbered)
    blind.second_look = False  # as session 6 read: the pip reader's readings stand, ...
    stood = add_numbered(img, pip, reader=blind)
    assert [(r.kind, r.value, r.center) for r in stood] == [(r.kind, r.value, r.center) for r in pip]
    # ... asked: the numbered classifier, read at their boxes, does not find d6 there (`doubted`)
    from vision.numbered.combined import DISPUTED

    assert all(r.confidence == DISPUTED for r in stood)


def test_a_second_look_at_a_d6_keeps_the_pip_readers_reading() -> None:
    from numbered_helpers import SCENES, load_scene

    from vision.numbered.combined import add_numbered, second_look
    from vision.numbered.reader import default_reader

    img, truth = load_scene("angler_ann", SCENES)
    pip = [_pip_reading_on(d, d["value"]) for d in truth["dice"] if d["kind"] == "d6"]
    assert len(pip) == 2
    assert second_look(img, pip, [], default_reader()) == []
    assert add_numbered(img, pip, reader=_blind_reader()) == pip


def test_a_still_is_detected_from_its_video_size_copy() -> None:
    """The numbered detector starting from the pip reader's shrunk copy of a still finds the dice it
    finds starting from the still itself, within a few still pixels."""
    import math

    from numbered_helpers import STILLS, load_scene

    from vision.numbered.reader import default_reader, video_copy

    img, truth = load_scene("angler_ann", STILLS)
    small = video_copy(img)
    assert small is not None and small.shape[1] == 1280
    assert video_copy(small) is None  # a video frame is not shrunk
    reader = default_reader()
    full = [f for f in reader.detect(img) if f.score >= 0.3]
    shared = [f for f in reader.detect(img, shrunk=small) if f.score >= 0.3]
    assert len(full) == len(shared) == len(truth["dice"])
    for f in full:
        assert min(math.dist(f.center, g.center) for g in shared) < 0.1 * max(f.w, f.h)
    assert reader.detect(img, shrunk=np.zeros_like(small)) == []  # the copy is what it looked at


@pytest.mark.parametrize(
    ("size", "work", "video"),
    [
        ((3456, 2592), (1728, 1296), (1280, 960)),
        ((2000, 1500), (2000, 1500), (1280, 960)),
        ((1280, 960), (1280, 960), None),
    ],
)
def test_still_copies_halve_a_still_once_for_the_numbered_reader(
    size: tuple[int, int], work: tuple[int, int], video: tuple[int, int] | None
) -> None:
    from vision.numbered.reader import still_copies

    img = np.zeros((size[1], size[0], 3), np.uint8)
    img[::7, ::5] = 255
    c = still_copies(img)
    assert (c.work.shape[1], c.work.shape[0]) == work
    assert c.k == size[0] / work[0]
    assert (None if c.video is None else (c.video.shape[1], c.video.shape[0])) == video
    if c.work is not img:  # the first halving is an area average of the still
        assert np.allclose(c.work.mean(), img.mean(), atol=0.5)


def test_a_still_read_at_its_first_halving_is_reported_in_still_pixels() -> None:
    import math

    from numbered_helpers import STILLS, load_scene

    from vision.numbered.reader import default_reader

    img, truth = load_scene("angler_ann", STILLS)
    got = default_reader().read(img)
    assert len(got) == len(truth["dice"])
    for d in truth["dice"]:
        r = min(got, key=lambda r: math.dist(r.center, d["center_px"]))
        x0, y0, x1, y1 = d["box_px"]
        assert math.dist(r.center, d["center_px"]) < 0.2 * max(x1 - x0, y1 - y0)
        assert (r.kind, r.value) == (d["kind"], d["value"])
        xs = [p[0] for p in r.quad]
        assert 0.7 < (max(xs) - min(xs)) / (x1 - x0) < 1.4  # the outline in still pixels too
