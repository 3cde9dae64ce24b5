"""A lone photo of a real surface with no dice (no empty table to compare with) reads no dice: the
pip-d6 reader's readings there are mostly unsure (issue 46 item 5, vision.numbered.combined.alone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from controller.perceive import reader_for
from tests.controller.test_perceive import app
from training.numbered.real import default_root
from vision.numbered.combined import LONE_MEDIAN, LONE_STEP, PipDice
from vision.palette import Palette
from vision.reading import DieReading, Examined, box_quad

REAL = default_root()


def negative(name: str) -> Path:
    p = REAL / "negatives" / "images" / name
    if not p.is_file():
        pytest.skip(f"the shared real photos are not at {REAL} (negatives/images/{name})")
    return p


class Fixed:
    """A pip reader that reads the given confidences, one die each (no net runs)."""

    def __init__(self, confidences: list[float], found_again: tuple[int, ...] = ()) -> None:
        self.confidences = confidences
        self.found_again = found_again
        self.where: tuple[Any, ...] = ()

    def read(
        self, image: np.ndarray, palette: Palette | None = None, where: Any = None, view: Any = None
    ) -> Any:
        return self.examine(image, palette, where, view).readings

    def examine(
        self, image: np.ndarray, palette: Palette | None = None, where: Any = None, view: Any = None
    ) -> Examined:
        return Examined(
            [
                DieReading(
                    value=3,
                    center=(20.0 + 40 * i, 20.0),
                    quad=box_quad((20.0 + 40 * i, 20.0), 30.0, 30.0),
                    confidence=c,
                    colour="white",
                )
                for i, c in enumerate(self.confidences)
            ],
            [],
            self.found_again,
        )


class Step:
    def __init__(self, name: str) -> None:
        self.name = name


def test_a_lone_photo_of_mostly_unsure_readings_reads_no_dice_and_says_why() -> None:
    img = np.zeros((64, 200, 3), np.uint8)
    seen = PipDice(Fixed([0.3, 0.45, 0.5]))  # type: ignore[arg-type]
    out = seen.examine(img, where=())
    assert out.readings == []
    assert [r.step for r in out.rejected] == [LONE_STEP] * 3
    assert all("median confidence 0.45" in r.why for r in out.rejected)
    assert [r.confidence for r in out.rejected] == [0.3, 0.45, 0.5]


def test_the_symbol_steps_questions_leave_the_median_to_the_pip_readings() -> None:
    """A die kept only as a question by the symbol-face step (always unsure) does not pull a photo
    under the rule: a printed sign read as a 6 at 0.56 beside two such questions is still a reading
    the rule weighs alone (it stays, for the not-a-d6 check to doubt; the questions too), and a photo
    of only such questions reads none."""
    img = np.zeros((64, 200, 3), np.uint8)
    out = PipDice(Fixed([0.56, 0.3, 0.3], found_again=(1, 2))).examine(img, where=())  # type: ignore[arg-type]
    assert len(out.readings) == 3 and not [r for r in out.rejected if r.step == LONE_STEP]
    out = PipDice(Fixed([0.56, 0.3, 0.3])).examine(img, where=())  # type: ignore[arg-type]
    assert out.readings == []  # the same readings, none from the symbol step: median 0.3
    out = PipDice(Fixed([0.3, 0.3], found_again=(0, 1))).examine(img, where=())  # type: ignore[arg-type]
    assert out.readings == []


def test_with_the_empty_table_or_mostly_sure_readings_or_the_rule_off_every_reading_stands() -> None:
    img = np.zeros((64, 200, 3), np.uint8)
    unsure = Fixed([0.3, 0.45, 0.5])
    for step in ("empty table", "empty diff"):
        assert len(PipDice(unsure).examine(img, where=(Step(step),)).readings) == 3  # type: ignore[arg-type]
    assert len(PipDice(unsure, lone_median=None).examine(img, where=()).readings) == 3  # type: ignore[arg-type]
    # a median at the bar stands (0.5 is DISPUTED: the numbered check does not run on it)
    assert len(PipDice(Fixed([0.2, 0.5, 0.5]), lone_median=0.5).examine(img, where=()).readings) == 3  # type: ignore[arg-type]
    assert 0.5 < LONE_MEDIAN < 0.7


def test_dicetable_read_of_real_coins_with_no_config_reads_no_dice() -> None:
    # scikit-image's coins (a held-out no-dice source): today's main read 7 dice there, one at 0.87
    coins = negative("skimage_coins.png")
    r = CliRunner().invoke(app(), ["read", "--json", str(coins)])
    assert r.exit_code == 0, r.output
    assert '"dice": []' in r.output
    # the tilted reader keeps them: it reads an oblique photo's dice unsurely by design
    tilted, plain = reader_for("", ["d6"], estimate_tilt=True), reader_for("", ["d6"])
    assert isinstance(tilted, PipDice) and tilted.lone_median is None
    assert isinstance(plain, PipDice) and plain.lone_median == LONE_MEDIAN


def test_found_again_names_the_symbol_steps_own_readings_after_sorting() -> None:
    """`Examined.found_again` indexes the readings as returned (sorted top to bottom): on a rendered
    board the symbol-face step keeps a printed "x3" as a question (at most ASKED sure), and it is
    that reading, not the one whose place it had before the readings were sorted."""
    import cv2

    from vision.reader import ASKED, default_reader

    img = cv2.imread(str(Path(__file__).resolve().parents[1] / "fixtures" / "numbered" / "scene_0002.jpg"))
    seen = default_reader().examine(img)
    assert seen.found_again
    for i in seen.found_again:
        assert seen.readings[i].confidence <= ASKED
    assert any(abs(seen.readings[i].center[0] - 436) < 10 for i in seen.found_again)
