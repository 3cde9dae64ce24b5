"""A photo of unknown scale (issue 29): `dicetable read` with numbered kinds and nothing that tells
the scale finds a die photographed close (vision.numbered.scale.AnyScale), gives it back in the
photo's pixels, and reads a table-scale frame as before; and a d6 reading on a spot the numbered reader
read as another kind is asked, never scored unasked (vision.numbered.combined.DISPUTED)."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from controller.cli import app
from tests.real_photos import real_photos
from training.numbered.real import at_table, default_root
from vision.numbered import NumberedDice, merge
from vision.numbered.scale import AnyScale, canvas
from vision.reading import DieReading

REAL = default_root()
LURIG = REAL / "d20_lurig" / "images"
needs_real = real_photos("d20_lurig/labels.csv")
#: close-ups of d20_lurig's TRAIN set-up d20_color (480x480, the die most of the crop) in which the
#: numbered reader at the photo's own scale finds no die near the middle
CLOSE_UPS = (
    "f01_d20_color_0366.jpg",
    "f07_d20_color_0150.jpg",
    "f08_d20_color_0052.jpg",
    "f13_d20_color_0510.jpg",
    "f15_d20_color_0683.jpg",
)


def _near_middle(dice: list[DieReading], img: np.ndarray) -> bool:
    h, w = img.shape[:2]
    return any(math.dist(d.center, (w / 2, h / 2)) <= 0.3 * w for d in dice)


@needs_real
def test_a_die_photographed_close_is_found_at_its_own_scale() -> None:
    plain, any_scale = NumberedDice(("d20",)), AnyScale(NumberedDice(("d20",)))
    before = after = 0
    for name in CLOSE_UPS:
        img = cv2.imread(str(LURIG / name))
        before += _near_middle(plain.read(img), img)
        got = any_scale.read(img)
        after += _near_middle(got, img)
        h, w = img.shape[:2]
        for d in got:  # in the photo's pixels, not the canvas's
            assert -0.5 * w <= d.center[0] <= 1.5 * w and -0.5 * h <= d.center[1] <= 1.5 * h
    assert before == 0
    assert after == len(CLOSE_UPS)


@needs_real
def test_a_frame_at_the_tables_scale_is_read_as_before() -> None:
    frame = at_table(cv2.imread(str(LURIG / "f01_d20_color_0291.jpg")))
    inner = NumberedDice(("d20",))
    any_scale = AnyScale(inner)
    assert any_scale.zoom_of(frame) == 1.0
    assert any_scale.read(frame) == inner.read(frame)


def test_a_table_photo_of_many_dice_is_not_zoomed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rendered table frame of many numbered dice, where zoomed out 4 times the detector takes the
    whole cluster for one die and peaks higher (0.93) than at its own scale (0.85): read as it is."""
    from pathlib import Path

    import vision.numbered.scale as scale
    from vision.numbered.scale import MANY, STRONG

    frame = cv2.imread(str(Path(__file__).parents[1] / "fixtures" / "numbered" / "scene_0001.jpg"))
    any_scale = AnyScale(NumberedDice())
    assert any_scale.zoom_of(frame) == 1.0
    assert (MANY, STRONG) == (3, 0.5)
    assert any_scale.read(frame) == NumberedDice().read(frame)
    monkeypatch.setattr(scale, "MANY", 10**6)  # the peaks alone would zoom it out
    assert any_scale.zoom_of(frame) == 4.0


def test_where_steps_or_a_view_mean_the_scale_is_known() -> None:
    class Inner:
        kinds = ("d20",)
        reader = None

        def examine(self, image, palette=None, where=None, view=None):  # type: ignore[no-untyped-def]
            from vision.reading import Examined

            self.seen = (image.shape, where)
            return Examined([], [])

    inner = Inner()
    AnyScale(inner).examine(np.zeros((200, 300, 3), np.uint8), None, ["a step"])  # type: ignore[arg-type, list-item]
    assert inner.seen == ((200, 300, 3), ["a step"])  # the frame itself, not a canvas


def test_a_canvas_puts_the_photo_in_its_middle_and_says_where() -> None:
    img = np.full((100, 160, 3), 200, np.uint8)
    img[40:60, 70:90] = (0, 0, 255)
    big, x0, y0, s = canvas(img, 3.0)
    assert big.shape == (300, 480, 3) and s == 1.0 and (x0, y0) == (160.0, 100.0)
    assert (big[0, 0] == 200).all()  # the photo's border colour
    ys, xs = np.nonzero(big[..., 2] == 255)
    assert (xs.min() - x0, ys.min() - y0) == (70, 40)
    small, _, _, s = canvas(np.zeros((2000, 1000, 3), np.uint8), 4.0, max_side=3456)
    assert max(small.shape[:2]) <= 3456 and s < 1.0


@pytest.mark.parametrize("zooms", [(), (0.5,), (1.0, float("nan"))])
def test_a_zoom_under_one_is_refused(zooms: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="zooms"):
        AnyScale(NumberedDice(("d20",)), zooms)


@needs_real
def test_dicetable_read_finds_the_close_up_die(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = LURIG / CLOSE_UPS[0]
    res = CliRunner().invoke(app, ["read", "--kinds", "d20", "--json", str(path)])
    assert res.exit_code == 0, res.output
    dice = json.loads(res.output.strip().splitlines()[-1])["dice"]
    img = cv2.imread(str(path))
    assert any(
        math.dist(d["center"], (img.shape[1] / 2, img.shape[0] / 2)) <= 0.3 * img.shape[1] for d in dice
    )


def _die(kind: str, value: int, x: float, y: float, confidence: float) -> DieReading:
    quad = ((x - 20, y - 20), (x + 20, y - 20), (x + 20, y + 20), (x - 20, y + 20))
    return DieReading(kind=kind, value=value, center=(x, y), quad=quad, confidence=confidence, colour="black")


def test_a_d6_the_numbered_reader_reads_as_another_kind_is_asked() -> None:
    from vision.numbered.combined import DISPUTED

    # a d20 whose "3" the pip reader reads as three pips, surely; the numbered reader weakly a d20
    got = merge([_die("d6", 3, 100, 100, 0.95)], [_die("d20", 20, 103, 98, 0.09)])
    assert [(r.kind, r.value) for r in got] == [("d6", 3)]
    assert got[0].confidence == DISPUTED < 0.8
    # a d6 the numbered reader also reads as a d6 stays as sure as the pip reader made it
    got = merge([_die("d6", 3, 100, 100, 0.95)], [_die("d6", 3, 103, 98, 0.4)])
    assert got[0].confidence == 0.95
    # a d6 away from the numbered die too
    got = merge([_die("d6", 3, 100, 100, 0.95)], [_die("d20", 20, 400, 98, 0.09)])
    assert [r.confidence for r in got if r.kind == "d6"] == [0.95]
