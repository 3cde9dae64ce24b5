"""A table reads every kind of its game's dice by default, and a die of a kind it does not read is
asked, never scored as another kind (issue 43, item 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.config import TableConfig, parse_config
from controller.eventlog import EventLog
from controller.perceive import Perceiver, game_kinds
from controller.session import mock_pins
from controller.setup_check import kinds_line
from controller.table import Table
from tests.real_photos import real_photos
from training.numbered.real import default_root
from vision.numbered import NumberedDice
from vision.reader import default_reader

ROOT = Path(__file__).resolve().parents[2]
REAL = default_root()
#: real d20 photos whose face the bare pip-d6 reader reads as pips, surely (0.82-0.98), once the die
#: lies ~60 px wide in an 800x600 frame (the Die-angler demo's video frame)
D20_READ_AS_PIPS = (
    ("d20_imac1844", "images/Green_Transparent_d20_15.jpg"),
    ("d20_imac1844", "images/Green_Transparent_d20_5.jpg"),
    ("d20_lurig", "images/f01_d20_top_0501.jpg"),
    ("d20_lurig", "images/f14_d20_wood_1290.jpg"),
    ("d20_lurig", "images/f15_d20_off-angle_0766.jpg"),
)
needs_real = real_photos(*(f"{s}/{f}" for s, f in D20_READ_AS_PIPS))


def _cfg(game: str, **table: object) -> TableConfig:
    names = [("ann", "red"), ("bob", "blue"), ("cid", "green")]
    players = [{"name": n, "colour": c, "pins": mock_pins(i).model_dump()} for i, (n, c) in enumerate(names)]
    return parse_config({"table": {"game": game, "seed": 3, **table}, "players": players})


def _on_table(path: Path, side: int = 60) -> np.ndarray:
    """The photo's die ~``side`` px wide in an 800x600 frame of the photo's own border colour."""
    img = cv2.imread(str(path))
    k = side / (0.5 * img.shape[1])
    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    frame = np.empty((600, 800, 3), np.uint8)
    frame[:] = np.median(img[:5].reshape(-1, 3), axis=0)
    h, w = small.shape[:2]
    frame[300 - h // 2 : 300 - h // 2 + h, 400 - w // 2 : 400 - w // 2 + w] = small
    return frame


def test_a_mixed_game_reads_all_its_kinds_by_default_and_may_name_fewer() -> None:
    assert game_kinds("die-angler") == ("d6", "d10", "d20")
    assert game_kinds("dice-fighter") == ("d10p",)
    assert game_kinds("dice-hunter") == ("d6",)
    seen = Perceiver.from_config(_cfg("die-angler"))
    assert seen.kinds == ("d6", "d10", "d20")
    assert isinstance(seen.reader, NumberedDice) and seen.reader.kinds == ("d6", "d10", "d20")
    fewer = Perceiver.from_config(_cfg("die-angler", kinds=["d6", "d20"]))
    assert fewer.kinds == ("d6", "d20") and fewer.reader.kinds == ("d6", "d20")


def test_check_config_prints_the_kinds_it_will_read(tmp_path: Path) -> None:
    assert (
        kinds_line(_cfg("die-angler"))
        == "reads d6, d10, d20 dice (the game's kinds; name fewer in table.kinds)"
    )
    assert "a die of the game's d10, d20 is asked about, never scored" in kinds_line(
        _cfg("die-angler", kinds=["d6"])
    )
    toml = tmp_path / "table.toml"
    players = [
        f'[[players]]\nname = "{n}"\ncolour = "{c}"\n'
        f"pins = {{ up = {u}, down = {d}, select = {e}, confirm = {f} }}\n"
        for n, c, (u, d, e, f) in (("ann", "red", (5, 6, 13, 19)), ("bob", "blue", (12, 16, 20, 21)))
    ]
    toml.write_text('[table]\ngame = "die-angler"\n\n[camera]\nsource = "v4l2:0"\n\n' + "\n".join(players))
    res = subprocess.run(
        [sys.executable, "-m", "controller", "check-config", "--offline", str(toml)],  # v4l2:0: elsewhere
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"{toml}: reads d6, d10, d20 dice" in res.stdout


def test_the_learn_page_takes_a_d20_at_a_die_angler_table_set_up_as_the_readme_shows(tmp_path: Path) -> None:
    cfg = _cfg("die-angler", dice_set=str(tmp_path / "sets" / "green.json"))
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"))
    assert table.teach({"action": "status"}, "ann").get("why_not") is None
    out = table.teach({"action": "start", "owner": "ann", "colour": "green", "kind": "d20"}, "ann")
    assert out["message"].startswith("teaching ann's green d20")


@needs_real
@pytest.mark.parametrize(("source", "file"), D20_READ_AS_PIPS)
def test_a_d20_at_a_table_of_pip_d6_is_asked_never_scored_as_a_d6(source: str, file: str) -> None:
    frame = _on_table(REAL / source / file)
    # the pip reader alone reads the d20's face as pips, surely: what the table scored before
    bare = default_reader().read(frame)
    assert any(r.confidence >= 0.8 for r in bare), bare
    for cfg in (_cfg("dice-hunter"), _cfg("die-angler", kinds=["d6"])):
        seen = Perceiver.from_config(cfg).perceive(frame)
        threshold = cfg.table.confidence_threshold
        assert seen.dice, "the die is still there, to be asked about"
        assert all(d.confidence < threshold for d in seen.dice if d.kind == "d6"), seen.dice


def test_a_weak_numbered_peak_does_not_dispute_a_sure_d6_the_classifier_takes_for_a_d6() -> None:
    """The Die-angler demo read at its game's kinds: the detector's weak d10 peak (0.07) on a drawn d6
    read surely (0.95) asked 8 of its 99 dice; the classifier at the pip reader's box gave them the d6
    kind at 0.83-0.97.  A d6 the classifier does not clear stays asked."""
    from vision.numbered.combined import D6_CLEAR, D6_KIND, DISPUTED, merge
    from vision.reading import DieReading

    def die(kind: str, value: int, x: float, confidence: float) -> DieReading:
        quad = ((x - 30, 270.0), (x + 30, 270.0), (x + 30, 330.0), (x - 30, 330.0))
        return DieReading(
            kind=kind, value=value, center=(x, 300.0), quad=quad, confidence=confidence, colour="red"
        )

    d6, weak = die("d6", 5, 200, 0.95), die("d10", 8, 203, 0.07)
    assert merge([d6], [weak], cleared=frozenset({id(d6)})) == [d6]
    assert merge([d6], [weak])[0].confidence == DISPUTED  # not cleared: asked, as before
    # a numbered reading that is not weak still disputes (or displaces) it, cleared or not
    assert merge([d6], [die("d10", 8, 203, 0.5)], cleared=frozenset({id(d6)}))[0].kind == "d10"
    assert D6_CLEAR > D6_KIND
